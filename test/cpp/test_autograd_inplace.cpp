// Autograd and in-place changes: the version check on values saved for
// backward ("modified by an inplace operation", as in PyTorch), what counts as
// saved, copies that do not share a version, and the leaf rules.
#define BOOST_TEST_MODULE autograd_inplace
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

static bool modified_inplace(const std::string& message) {
  return message.find("one of the variables needed for gradient computation has been modified by an inplace "
                      "operation") != std::string::npos;
}

BOOST_AUTO_TEST_CASE(in_place_change_of_a_saved_value_raises_at_backward) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = a * a;  // mul saves both operands
  a.mul_(3.0);
  std::string e = error_of([&] { b.sum().backward(); });
  BOOST_TEST(modified_inplace(e), e);
  BOOST_TEST(e.find("[float64 [2]] is at version 1; expected version 0 instead") != std::string::npos, e);
  BOOST_TEST(!x.grad().defined());  // a failed backward changes nothing
}

BOOST_AUTO_TEST_CASE(the_message_counts_every_in_place_change) {
  Tensor x = leaf({1, 2, 3});
  Tensor a = x * 1.0;
  a.add_(1.0);
  Tensor b = a * x;
  a.mul_(2.0);
  a.zero_();
  std::string e = error_of([&] { b.sum().backward(); });
  BOOST_TEST(e.find("[float64 [3]] is at version 3; expected version 1 instead") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(in_place_change_of_a_value_no_rule_reads_is_allowed) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = (a + 1.0) * 2.0;  // add saves nothing; mul by a number saves the number
  a.mul_(3.0);
  b.sum().backward();
  check_values(x.grad(), {2, 2});
}

BOOST_AUTO_TEST_CASE(exp_saves_its_output_not_its_input) {
  Tensor x = leaf({0, 1});
  Tensor a = x * 1.0;
  Tensor y = exp(a);
  a.add_(5.0);  // not saved by exp
  y.sum().backward(Tensor(), /*retain_graph=*/true);
  check_values(x.grad(), {1, std::exp(1.0)}, 1e-12);
  y.add_(1.0);  // saved by exp
  BOOST_TEST(modified_inplace(error_of([&] { y.sum().backward(); })));
}

BOOST_AUTO_TEST_CASE(relu_and_sigmoid_save_their_output_as_in_pytorch) {
  for (auto f : {+[](const Tensor& t) { return relu(t); }, +[](const Tensor& t) { return sigmoid(t); }}) {
    Tensor x = leaf({-1, 2});
    Tensor a = x * 1.0;
    Tensor y = f(a);
    a.mul_(2.0);  // the input is not saved
    Tensor z = y * 1.0;
    z.sum().backward(Tensor(), /*retain_graph=*/true);
    y.mul_(2.0);  // the output is
    BOOST_TEST(modified_inplace(error_of([&] { z.sum().backward(); })));
  }
}

BOOST_AUTO_TEST_CASE(matmul_saves_both_operands) {
  Tensor w = f64({1, 2, 3, 4}, {2, 2});
  w.requires_grad_();
  Tensor x = f64({1, 1, 1, 1}, {2, 2});
  Tensor y = matmul(x, w);
  x.add_(1.0);  // x does not require grad, but mm saves it for w's gradient
  BOOST_TEST(modified_inplace(error_of([&] { y.sum().backward(); })));
}

BOOST_AUTO_TEST_CASE(a_saved_value_changed_only_for_an_input_that_needs_no_gradient_is_allowed) {
  Tensor x = leaf({1, 2});
  Tensor c = f64({3, 4}, {2});
  Tensor y = x * c;  // x's gradient reads c; c's gradient (none needed) would read x
  Tensor a = x * 1.0;
  Tensor z = c * a.detach();
  (void)z;
  y.sum().backward();
  check_values(x.grad(), {3, 4});
}

BOOST_AUTO_TEST_CASE(in_place_change_after_backward_is_allowed) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = a * a;
  b.sum().backward();
  a.mul_(3.0);
  check_values(x.grad(), {2, 4});
  check_values(a, {3, 6});
}

BOOST_AUTO_TEST_CASE(retain_graph_then_in_place_change_fails_the_second_backward) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = (a * a).sum();
  b.backward(Tensor(), /*retain_graph=*/true);
  a.add_(1.0);
  BOOST_TEST(modified_inplace(error_of([&] { b.backward(); })));
  check_values(x.grad(), {2, 4});  // only the first backward's
}

BOOST_AUTO_TEST_CASE(grad_checks_saved_values_too) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = (a * a).sum();
  a.sub_(1.0);
  BOOST_TEST(modified_inplace(error_of([&] { grad({b}, {x}); })));
}

BOOST_AUTO_TEST_CASE(a_clone_is_a_copy_with_its_own_version) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = (a * a).sum();
  Tensor c = a.clone();
  c.mul_(2.0);
  b.backward(Tensor(), /*retain_graph=*/true);
  check_values(x.grad(), {2, 4});
  a.mul_(2.0);
  BOOST_TEST(modified_inplace(error_of([&] { b.backward(); })));
}

BOOST_AUTO_TEST_CASE(copy_and_assign_copy_the_value_not_the_version) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = (a * a).sum();
  Tensor c = f64({0, 0}, {2});
  Tensor d = f64({0, 0}, {2});
  c.copy_(a);    // same dtype and shape: c holds a's node
  d.assign(a);
  c.add_(1.0);
  d.add_(1.0);
  b.backward();
  check_values(x.grad(), {2, 4});
}

BOOST_AUTO_TEST_CASE(copying_a_tensor_onto_itself_is_a_change_of_its_own) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  a.copy_(a);
  Tensor b = (a * a).sum();
  b.backward();  // a's node is at a's current version
  check_values(x.grad(), {2, 4});
}

BOOST_AUTO_TEST_CASE(leaf_updated_under_no_grad_after_a_rule_saved_it_raises) {
  Tensor p = leaf({1, 2});
  Tensor loss = (p * p).sum();
  {
    NoGradGuard no_grad;
    p.sub_(f64({10, 10}, {2}));
  }
  BOOST_TEST(p.requires_grad());
  BOOST_TEST(p.is_leaf());
  BOOST_TEST(modified_inplace(error_of([&] { loss.backward(); })));
}

BOOST_AUTO_TEST_CASE(leaf_updated_under_no_grad_that_no_rule_saved_gets_the_recorded_gradient) {
  Tensor p = leaf({1, 2});
  Tensor loss = (p * 3.0 + 1.0).sum();  // mul by a number saves the number, not p
  {
    NoGradGuard no_grad;
    p.sub_(f64({10, 10}, {2}));
  }
  loss.backward();
  check_values(p.grad(), {3, 3});
  check_values(p, {-9, -8});
  (p * p).sum().backward();
  check_values(p.grad(), {3 - 18, 3 - 16});
}

BOOST_AUTO_TEST_CASE(in_place_update_of_a_leaf_with_grad_mode_on_raises_as_in_pytorch) {
  Tensor p = leaf({1, 2});
  std::string e = error_of([&] { p.add_(1.0); });
  BOOST_TEST(e.find("a leaf Variable that requires grad is being used in an in-place operation.") !=
                 std::string::npos,
             e);
  NoGradGuard no_grad;
  p.add_(1.0);
  check_values(p, {2, 3});
}

BOOST_AUTO_TEST_CASE(optimizer_step_after_backward_is_allowed_every_step) {
  Tensor w = leaf({1, 2});
  Tensor x = f64({3, 4}, {2});
  for (int step = 0; step < 3; ++step) {
    w.set_grad(Tensor());
    Tensor loss = (w * x * w).sum();
    loss.backward();
    NoGradGuard no_grad;
    w.sub_(w.grad() * 0.01);
    sync({w, loss});
  }
  BOOST_TEST(w.version() == 3u);
}

BOOST_AUTO_TEST_CASE(a_failed_check_leaves_no_nodes_behind) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1.0;
  Tensor b = (a * a).sum();
  a.mul_(2.0);
  int64_t live = counters::nodes_live.get();
  BOOST_TEST(modified_inplace(error_of([&] { b.backward(); })));
  BOOST_TEST(counters::nodes_live.get() == live);
}

BOOST_AUTO_TEST_CASE(a_weight_seen_through_a_transpose_is_still_saved) {
  // linear(x, w) is matmul(x, transpose(w)): the rule saves the transpose,
  // an internal node; the check looks through it to w, as PyTorch's view would.
  Tensor w = f64({1, 2, 3, 4}, {2, 2});
  w.requires_grad_();
  Tensor x = f64({1, 1, 1, 1}, {2, 2});
  x.requires_grad_();
  Tensor y = linear(x, w, Tensor());
  {
    NoGradGuard no_grad;
    w.sub_(1.0);
  }
  BOOST_TEST(modified_inplace(error_of([&] { y.sum().backward(); })));
}

BOOST_AUTO_TEST_CASE(a_change_is_seen_after_the_changed_tensor_is_gone) {
  Tensor x = leaf({1, 2});
  Tensor b;
  {
    Tensor a = x * 1.0;
    b = (a * a).sum();
    a.mul_(2.0);
  }
  std::string e = error_of([&] { b.backward(); });
  BOOST_TEST(e.find("is at version 1; expected version 0 instead") != std::string::npos, e);
}
