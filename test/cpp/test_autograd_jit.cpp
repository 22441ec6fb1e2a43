// Gradients compiled by the CPU JIT (float32, fused forward + backward) match
// the reference evaluator's for the same graphs.
#define BOOST_TEST_MODULE autograd_jit
#include <boost/test/unit_test.hpp>

#include <functional>
#include <random>

#include "lazy/runtime.h"
#include "lazy/tensor.h"

using namespace lt;
using Xs = const std::vector<Tensor>&;
using Fn = std::function<Tensor(Xs)>;

namespace {

boost::test_tools::assertion_result cpu_jit_built(boost::unit_test::test_unit_id) {
  try {
    runtime::set_backend("cpu");
    return true;
  } catch (const Error& e) {
    boost::test_tools::assertion_result no(false);
    no.message() << e.what();
    return no;
  }
}

/// Gradients of <f(inputs), weight> with respect to every input, on `backend`.
std::vector<std::vector<float>> gradients_on(const std::string& backend, const Fn& f,
                                             const std::vector<std::vector<float>>& values,
                                             const std::vector<Shape>& shapes) {
  runtime::set_backend(backend);
  std::vector<Tensor> xs;
  for (size_t i = 0; i < values.size(); ++i) {
    xs.push_back(Tensor::from_vector(values[i], shapes[i]));
    xs.back().requires_grad_();
  }
  Tensor y = f(xs);
  std::vector<float> w(y.numel());
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + 0.25f * static_cast<float>(i % 5);
  std::vector<Tensor> g = grad({y}, xs, {Tensor::from_vector(w, y.shape())}, false, true);
  sync(absl::MakeConstSpan(g));
  std::vector<std::vector<float>> out;
  for (const Tensor& t : g) out.push_back(t.defined() ? t.to_vector<float>() : std::vector<float>());
  return out;
}

void jit_matches_reference(const Fn& f, const std::vector<Shape>& shapes, float lo = -1, float hi = 1) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<std::vector<float>> values;
  for (const Shape& s : shapes) {
    values.emplace_back(shape_numel(s));
    for (float& v : values.back()) v = u(rng);
  }
  auto jit = gradients_on("cpu", f, values, shapes);
  auto ref = gradients_on("reference", f, values, shapes);
  for (size_t i = 0; i < jit.size(); ++i) {
    BOOST_REQUIRE_EQUAL(jit[i].size(), ref[i].size());
    for (size_t j = 0; j < jit[i].size(); ++j) {
      BOOST_TEST_CONTEXT("input " << i << " element " << j << ": jit " << jit[i][j] << " reference " << ref[i][j]) {
        BOOST_TEST(std::abs(jit[i][j] - ref[i][j]) <= 2e-5f + 2e-4f * std::abs(ref[i][j]));
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jit_vs_reference, *boost::unit_test::precondition(cpu_jit_built))

BOOST_AUTO_TEST_CASE(elementwise_math) {
  jit_matches_reference([](Xs x) { return exp(x[0]) * sin(x[1]) + tanh(x[0] * x[1]) - erf(x[1]); }, {{4, 5}, {4, 5}});
  jit_matches_reference([](Xs x) { return log(x[0]) + sqrt(x[0]) / x[1] + pow(x[0], x[1]); }, {{3, 7}, {3, 7}}, 0.5,
                        2);
  jit_matches_reference([](Xs x) { return gelu(x[0]) + silu(x[0]) * sigmoid(x[1]) + softplus(x[1]); }, {{9}, {9}}, -3, 3);
  jit_matches_reference([](Xs x) { return maximum(x[0], x[1]) + abs(x[0]) + relu(x[1]); }, {{2, 3, 4}, {3, 4}});
}

BOOST_AUTO_TEST_CASE(reductions_and_scans) {
  jit_matches_reference([](Xs x) { return sum(x[0] * x[0], {1}) + mean(x[0], {1}); }, {{6, 5}});
  jit_matches_reference([](Xs x) { return prod(x[0], {0}) + amax(x[0], {1}).sum(); }, {{3, 4}}, 0.5, 1.5);
  jit_matches_reference([](Xs x) { return var(x[0], {1}) + logsumexp(x[0], {1}); }, {{4, 6}});
  jit_matches_reference([](Xs x) { return cumsum(x[0], 1) * x[0]; }, {{3, 5}});
}

BOOST_AUTO_TEST_CASE(movement_and_indexing) {
  jit_matches_reference([](Xs x) { return x[0].slice(1, 1, std::nullopt, 2).permute({1, 0}) * 2.0; }, {{4, 9}});
  jit_matches_reference([](Xs x) { return cat({flip(x[0], {0}), pad(x[0], {1, 1})}, 1); }, {{3, 4}});
  Tensor idx = Tensor::from_vector<int64_t>({2, 0, 2, 1}, {4});
  jit_matches_reference([idx](Xs x) { return embedding(x[0], idx) * x[1]; }, {{3, 5}, {4, 5}});
  Tensor gidx = Tensor::from_vector<int64_t>({0, 2, 2, 1, 0, 0}, {2, 3});
  jit_matches_reference([gidx](Xs x) { return gather(x[0], 1, gidx) + scatter_add(x[0], 1, gidx, x[1]).sum(); },
                        {{2, 4}, {2, 3}});
}

BOOST_AUTO_TEST_CASE(matmul_and_nn) {
  jit_matches_reference([](Xs x) { return matmul(x[0], x[1]); }, {{2, 1, 3, 4}, {3, 4, 5}});
  jit_matches_reference([](Xs x) { return matmul(x[0], x[1]); }, {{4}, {4, 3}});
  jit_matches_reference([](Xs x) { return layer_norm(x[0], {6}, x[1], x[2]); }, {{5, 6}, {6}, {6}});
  jit_matches_reference([](Xs x) { return softmax(x[0], 1) * log_softmax(x[0], 0); }, {{4, 5}}, -3, 3);
  Tensor target = Tensor::from_vector<int64_t>({2, 0, 1, 2, 0}, {5});
  jit_matches_reference(
      [target](Xs x) { return cross_entropy(relu(matmul(x[0], x[1]) + x[2]), target); }, {{5, 4}, {4, 3}, {3}});
  jit_matches_reference([](Xs x) { return mse_loss(x[0], x[1]); }, {{3, 4}, {3, 4}});
}

BOOST_AUTO_TEST_SUITE_END()
