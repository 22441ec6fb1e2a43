// Autograd behaviour through the public API: accumulation into .grad,
// retain_graph and release, no_grad, detach, requires_grad_, lt::grad, the
// errors. In-place changes of saved values: test_autograd_inplace.cpp.
#define BOOST_TEST_MODULE autograd_api
#include <boost/test/unit_test.hpp>

#include "gradcheck.h"
#include "ir/counters.h"
#include "lazy/runtime.h"

using namespace lt;
using gradcheck::check_values;
using gradcheck::error_of;
using gradcheck::f64;
using gradcheck::leaf;

using gradcheck::ReferenceBackend;
BOOST_GLOBAL_FIXTURE(ReferenceBackend);

BOOST_AUTO_TEST_CASE(backward_is_lazy_until_the_gradient_is_read) {
  Tensor x = leaf({1, 2, 3});
  Tensor loss = (x * x).sum();
  int64_t syncs = counters::syncs.get();
  loss.backward();
  BOOST_TEST(counters::syncs.get() == syncs);
  BOOST_TEST(!x.grad().is_materialized());
  check_values(x.grad(), {2, 4, 6});
}

BOOST_AUTO_TEST_CASE(gradients_accumulate_into_grad_across_backward_calls) {
  Tensor x = leaf({1, 2, 3});
  (x * x).sum().backward();
  (x * 3.0).sum().backward();
  check_values(x.grad(), {5, 7, 9});
  x.set_grad(Tensor());
  (x * 2.0).sum().backward();
  check_values(x.grad(), {2, 2, 2});
}

BOOST_AUTO_TEST_CASE(a_value_used_twice_sums_its_contributions) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2.0;
  (y * y + y + exp(x)).sum().backward();
  check_values(x.grad(), {8 * 1 + 2 + std::exp(1.0), 8 * 2 + 2 + std::exp(2.0)});
}

BOOST_AUTO_TEST_CASE(retain_graph_allows_a_second_backward) {
  Tensor x = leaf({1, 2});
  Tensor loss = (x * x).sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();
  check_values(x.grad(), {4, 8});
}

BOOST_AUTO_TEST_CASE(a_second_backward_through_a_released_graph_raises) {
  Tensor x = leaf({1, 2});
  Tensor loss = (x * x).sum();
  loss.backward();
  std::string msg = error_of([&] { loss.backward(); });
  BOOST_TEST(msg.find("Trying to backward through the graph a second time") != std::string::npos);
  BOOST_TEST(msg.find("retain_graph=True") != std::string::npos);
  // The failed call left .grad as it was.
  check_values(x.grad(), {2, 4});
  // So does backward through a shared part of a released graph, even after a sync.
  Tensor y = x * x;
  Tensor a = y.sum(), b = (y * 2.0).sum();
  a.backward();
  sync({a, b});
  BOOST_TEST(!error_of([&] { b.backward(); }).empty());
}

BOOST_AUTO_TEST_CASE(backward_of_a_non_scalar_needs_a_gradient) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  std::string msg = error_of([&] { y.backward(); });
  BOOST_TEST(msg.find("grad can be implicitly created only for scalar outputs") != std::string::npos);
  y.backward(f64({1, 10, 100}, {3}));
  check_values(x.grad(), {2, 20, 200});
  BOOST_TEST(!error_of([&] { (x * 2.0).backward(f64({1, 2}, {2})); }).empty());
}

BOOST_AUTO_TEST_CASE(grad_with_respect_to_a_tensor_that_does_not_require_grad_raises) {
  Tensor x = leaf({1, 2});
  Tensor c = f64({3, 4}, {2});
  Tensor y = (x * c).sum();
  std::string msg = error_of([&] { grad({y}, {c}); });
  BOOST_TEST(msg.find("does not require grad") != std::string::npos);
  BOOST_TEST(!error_of([&] { (c * 2.0).sum().backward(); }).empty());
}

BOOST_AUTO_TEST_CASE(lt_grad_leaves_dot_grad_untouched) {
  Tensor x = leaf({1, 2}), w = leaf({3, 4});
  Tensor y = (x * w).sum();
  std::vector<Tensor> g = grad({y}, {x});
  check_values(g[0], {3, 4});
  BOOST_TEST(!x.grad().defined());
  BOOST_TEST(!w.grad().defined());
}

BOOST_AUTO_TEST_CASE(lt_grad_of_an_intermediate_and_unused_inputs) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 3.0;
  Tensor y = (h * h).sum();
  std::vector<Tensor> g = grad({y}, {h}, {}, /*retain_graph=*/true);
  check_values(g[0], {6, 12});
  Tensor unused = leaf({5});
  BOOST_TEST(!error_of([&] { grad({y}, {unused}, {}, true); }).empty());
  std::vector<Tensor> g2 = grad({y}, {unused, x}, {}, false, /*allow_unused=*/true);
  BOOST_TEST(!g2[0].defined());
  check_values(g2[1], {18, 36});
}

BOOST_AUTO_TEST_CASE(no_grad_scope_records_nothing_differentiable) {
  Tensor x = leaf({1, 2});
  {
    NoGradGuard no_grad;
    Tensor y = x * 2.0;
    BOOST_TEST(!y.requires_grad());
  }
  BOOST_TEST((x * 2.0).requires_grad());
}

BOOST_AUTO_TEST_CASE(detach_stops_the_gradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * x.detach() + x;
  BOOST_TEST(!x.detach().requires_grad());
  y.sum().backward();
  check_values(x.grad(), {2, 3});
}

BOOST_AUTO_TEST_CASE(requires_grad_makes_a_leaf_and_refuses_integers) {
  Tensor x = f64({1, 2}, {2});
  BOOST_TEST(!x.requires_grad());
  x.requires_grad_();
  BOOST_TEST(x.requires_grad());
  BOOST_TEST(x.is_leaf());
  Tensor y = x * 2.0;
  BOOST_TEST(!y.is_leaf());
  Tensor i = gradcheck::i64({1, 2}, {2});
  BOOST_TEST(!error_of([&] { i.requires_grad_(); }).empty());
  x.requires_grad_(false);
  BOOST_TEST(!x.requires_grad());
}

BOOST_AUTO_TEST_CASE(gradients_are_not_differentiable_again) {
  Tensor x = leaf({1, 2});
  (x * x).sum().backward();
  BOOST_TEST(!x.grad().requires_grad());
}

BOOST_AUTO_TEST_CASE(backward_after_the_forward_was_synced) {
  Tensor x = leaf({1, 2, 3});
  Tensor h = exp(x);
  Tensor loss = (h * x).sum();
  sync(loss);
  loss.backward();
  check_values(x.grad(), {std::exp(1.0) * 2, std::exp(2.0) * 3, std::exp(3.0) * 4}, 1e-9);
}

BOOST_AUTO_TEST_CASE(released_graph_is_freed_at_the_sync_that_computes_it) {
  Tensor x = leaf({1, 2, 3});
  sync(x);
  int64_t before = counters::nodes_live.get();
  {
    Tensor loss = (exp(x) * x).sum();
    loss.backward();
    sync({loss, x.grad()});
    // Realised and released: the loss and the gradient hold no graph.
    BOOST_TEST(loss.node()->inputs.empty());
    BOOST_TEST(x.grad().node()->inputs.empty());
  }
  // Left: the .grad slot's realised node and nothing else.
  BOOST_TEST(counters::nodes_live.get() == before + 1);
}
