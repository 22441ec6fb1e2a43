// Gradient checks: every differentiable op through the public lt::Tensor API,
// analytic gradient (autograd/) vs central finite differences in float64 on
// the reference evaluator.
#define BOOST_TEST_MODULE autograd_gradcheck
#include <boost/test/unit_test.hpp>

#include "gradcheck.h"
#include "lazy/runtime.h"

using namespace lt;
using gradcheck::check;
using gradcheck::check_values;
using gradcheck::f64;
using gradcheck::i64;
using Xs = const std::vector<Tensor>&;

using gradcheck::ReferenceBackend;
BOOST_GLOBAL_FIXTURE(ReferenceBackend);

// ---- unary ------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(unary)

BOOST_AUTO_TEST_CASE(smooth_math) {
  check([](Xs x) { return neg(x[0]); }, {{{2, 3}}});
  check([](Xs x) { return exp(x[0]); }, {{{2, 3}}});
  check([](Xs x) { return log(x[0]); }, {{{2, 3}, 0.5, 2.0}});
  check([](Xs x) { return log1p(x[0]); }, {{{2, 3}, -0.5, 2.0}});
  check([](Xs x) { return expm1(x[0]); }, {{{2, 3}}});
  check([](Xs x) { return sqrt(x[0]); }, {{{2, 3}, 0.5, 2.0}});
  check([](Xs x) { return rsqrt(x[0]); }, {{{2, 3}, 0.5, 2.0}});
  check([](Xs x) { return reciprocal(x[0]); }, {{{2, 3}, 0.5, 2.0}});
  check([](Xs x) { return sin(x[0]); }, {{{2, 3}, -3, 3}});
  check([](Xs x) { return cos(x[0]); }, {{{2, 3}, -3, 3}});
  check([](Xs x) { return tanh(x[0]); }, {{{2, 3}, -2, 2}});
  check([](Xs x) { return erf(x[0]); }, {{{2, 3}, -2, 2}});
}

BOOST_AUTO_TEST_CASE(abs_away_from_zero_and_zero_at_zero) {
  check([](Xs x) { return abs(x[0]); }, {{{4}, 0, 0, {-1.5, -0.3, 0.2, 2.0}}});
  Tensor x = f64({-2, 0, 3}, {3});
  x.requires_grad_();
  abs(x).sum().backward();
  check_values(x.grad(), {-1, 0, 1});
}

BOOST_AUTO_TEST_CASE(activations) {
  check([](Xs x) { return sigmoid(x[0]); }, {{{2, 3}, -3, 3}});
  check([](Xs x) { return relu(x[0]); }, {{{5}, 0, 0, {-2, -0.5, 0.3, 1, 4}}});
  check([](Xs x) { return gelu(x[0]); }, {{{2, 3}, -3, 3}});
  check([](Xs x) { return gelu(x[0], /*tanh_approximation=*/true); }, {{{2, 3}, -3, 3}});
  check([](Xs x) { return silu(x[0]); }, {{{2, 3}, -3, 3}});
  check([](Xs x) { return softplus(x[0]); }, {{{2, 3}, -3, 3}});
  // beta=2, threshold=1: elements past the threshold take the identity branch.
  check([](Xs x) { return softplus(x[0], 2.0, 1.0); }, {{{6}, 0, 0, {-2, -0.4, 0.1, 0.45, 0.8, 2}}});
}

BOOST_AUTO_TEST_CASE(rounding_ops_have_zero_gradient) {
  using UnaryFn = Tensor (*)(const Tensor&);
  for (UnaryFn op : {UnaryFn(&lt::floor), UnaryFn(&lt::ceil), UnaryFn(&lt::round), UnaryFn(&lt::sign)}) {
    Tensor x = f64({-1.3, 0.4, 2.6}, {3});
    x.requires_grad_();
    Tensor y = op(x);
    BOOST_TEST(y.requires_grad());
    std::vector<Tensor> g = grad({y.sum()}, {x});
    check_values(g[0], {0, 0, 0});
  }
}

BOOST_AUTO_TEST_CASE(cast_passes_the_gradient_back_in_the_input_dtype) {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3}, {3});
  x.requires_grad_();
  Tensor y = cast(x, DType::Float64) * f64({4, 5, 6}, {3});
  y.sum().backward();
  BOOST_TEST((x.grad().dtype() == DType::Float32));
  check_values(x.grad(), {4, 5, 6});
}

BOOST_AUTO_TEST_SUITE_END()

// ---- binary, broadcasting, where ------------------------------------------------------

BOOST_AUTO_TEST_SUITE(binary)

BOOST_AUTO_TEST_CASE(arithmetic) {
  check([](Xs x) { return x[0] + x[1]; }, {{{2, 3}}, {{2, 3}}});
  check([](Xs x) { return x[0] - x[1]; }, {{{2, 3}}, {{2, 3}}});
  check([](Xs x) { return x[0] * x[1]; }, {{{2, 3}}, {{2, 3}}});
  check([](Xs x) { return x[0] / x[1]; }, {{{2, 3}}, {{2, 3}, 0.5, 2}});
  check([](Xs x) { return 3.0 - x[0] * 2.0 + x[0] / 4.0; }, {{{2, 3}}});
  check([](Xs x) { return 1.5 / x[0]; }, {{{2, 3}, 0.5, 2}});
}

BOOST_AUTO_TEST_CASE(pow_base_and_exponent) {
  check([](Xs x) { return pow(x[0], x[1]); }, {{{2, 3}, 0.5, 2}, {{2, 3}, -2, 2}});
  check([](Xs x) { return pow(x[0], 3.0); }, {{{2, 3}, -2, 2}});
  check([](Xs x) { return pow(2.0, x[0]); }, {{{2, 3}, -2, 2}});
}

BOOST_AUTO_TEST_CASE(pow_at_base_zero_follows_pytorch) {
  // base 0: d/dbase = e * 0^(e-1) (0 for e > 1, 0 when e == 0); d/dexp = 0 for e >= 0.
  Tensor a = f64({0, 0, 0, 2}, {4});
  Tensor e = f64({2, 0, 1, 0}, {4});
  a.requires_grad_();
  e.requires_grad_();
  pow(a, e).sum().backward();
  check_values(a.grad(), {0, 0, 1, 0});
  check_values(e.grad(), {0, 0, 0, std::log(2.0)});
}

BOOST_AUTO_TEST_CASE(maximum_minimum_split_ties_in_half) {
  check([](Xs x) { return maximum(x[0], x[1]); }, {{{4}, 0, 0, {1, -2, 3, 0}}, {{4}, 0, 0, {2, -3, 1, 0.5}}});
  check([](Xs x) { return minimum(x[0], x[1]); }, {{{4}, 0, 0, {1, -2, 3, 0}}, {{4}, 0, 0, {2, -3, 1, 0.5}}});
  for (bool is_max : {true, false}) {
    Tensor a = f64({1, 2, 3}, {3}), b = f64({1, 5, 0}, {3});
    a.requires_grad_();
    b.requires_grad_();
    (is_max ? maximum(a, b) : minimum(a, b)).sum().backward();
    check_values(a.grad(), is_max ? std::vector<double>{0.5, 0, 1} : std::vector<double>{0.5, 1, 0});
    check_values(b.grad(), is_max ? std::vector<double>{0.5, 1, 0} : std::vector<double>{0.5, 0, 1});
  }
}

BOOST_AUTO_TEST_CASE(clamp_inside_and_outside) {
  check([](Xs x) { return clamp(x[0], Scalar(-0.5), Scalar(0.5)); }, {{{5}, 0, 0, {-1, -0.2, 0.1, 0.4, 2}}});
}

BOOST_AUTO_TEST_CASE(broadcasting_sums_over_stretched_dims) {
  check([](Xs x) { return x[0] + x[1]; }, {{{3, 1}}, {{4}}});
  check([](Xs x) { return x[0] * x[1]; }, {{{2, 3, 4}}, {{3, 1}}});
  check([](Xs x) { return x[0] / x[1]; }, {{{2, 1, 4}}, {{1, 3, 1}, 0.5, 2}});
  check([](Xs x) { return x[0] * x[1]; }, {{{2, 3}}, gradcheck::Input{Shape{}}});  // 0-dim tensor
  check([](Xs x) { return x[0].expand({2, 3, 4}); }, {{{3, 1}}});
}

BOOST_AUTO_TEST_CASE(where_routes_the_gradient) {
  Tensor cond = Tensor::from_vector(std::vector<bool>{true, false, true, false, false, true}, {2, 3});
  check([cond](Xs x) { return where(cond, x[0], x[1]); }, {{{2, 3}}, {{3}}});
  check([cond](Xs x) { return where(cond, x[0], 0.0); }, {{{2, 3}}});
  check([](Xs x) { return masked_fill(x[0], gt(x[0], 0.0), 2.0); }, {{{2, 3}}});
}

BOOST_AUTO_TEST_SUITE_END()

// ---- reductions -------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(reductions)

BOOST_AUTO_TEST_CASE(sum_and_mean) {
  check([](Xs x) { return x[0].sum(); }, {{{2, 3, 4}}});
  check([](Xs x) { return sum(x[0], {0, 2}); }, {{{2, 3, 4}}});
  check([](Xs x) { return sum(x[0], {1}, /*keepdim=*/true); }, {{{2, 3, 4}}});
  check([](Xs x) { return mean(x[0], {-1}); }, {{{2, 3, 4}}});
  check([](Xs x) { return x[0].mean(); }, {{{2, 3}}});
}

BOOST_AUTO_TEST_CASE(prod_with_and_without_zeros) {
  check([](Xs x) { return prod(x[0], {1}); }, {{{2, 3}, 0.5, 2}});
  check([](Xs x) { return prod(x[0]); }, {{{2, 3}, -2, 2}});
  // One zero in a row: the zero gets the product of the others; two zeros: all 0.
  check([](Xs x) { return prod(x[0], {1}); }, {{{3, 3}, 0, 0, {1, 0, 3, 0, 0, 2, -1, 2, 3}}});
  Tensor x = f64({2, 0, 3, 0, 0, 5}, {2, 3});
  x.requires_grad_();
  prod(x, {1}).sum().backward();
  check_values(x.grad(), {0, 6, 0, 0, 0, 0});
}

BOOST_AUTO_TEST_CASE(amax_amin_split_ties_evenly) {
  check([](Xs x) { return amax(x[0], {1}); }, {{{2, 3}}});
  check([](Xs x) { return amin(x[0]); }, {{{2, 3}}});
  Tensor x = f64({1, 3, 3, 2, 3, 0}, {6});
  x.requires_grad_();
  amax(x).backward();
  check_values(x.grad(), {0, 1.0 / 3, 1.0 / 3, 0, 1.0 / 3, 0});
  Tensor y = f64({4, 1, 1, 2, 2, 2}, {2, 3});
  y.requires_grad_();
  amin(y, {1}).sum().backward();
  check_values(y.grad(), {0, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  Tensor z = f64({5, 7, 7}, {3});
  z.requires_grad_();
  z.max().backward();
  check_values(z.grad(), {0, 0.5, 0.5});
}

BOOST_AUTO_TEST_CASE(var_std_logsumexp) {
  check([](Xs x) { return var(x[0]); }, {{{2, 3}}});
  check([](Xs x) { return var(x[0], {1}, /*correction=*/0); }, {{{2, 3}}});
  check([](Xs x) { return lt::std(x[0], {0}); }, {{{3, 2}}});
  check([](Xs x) { return logsumexp(x[0], {1}); }, {{{2, 4}, -3, 3}});
  check([](Xs x) { return logsumexp(x[0], {0, 1}, true); }, {{{2, 4}, -3, 3}});
}

BOOST_AUTO_TEST_CASE(cumsum_is_reversed) {
  check([](Xs x) { return cumsum(x[0], 1); }, {{{2, 4}}});
  check([](Xs x) { return cumsum(x[0], 0); }, {{{3, 2}}});
}

BOOST_AUTO_TEST_CASE(argmax_does_not_require_grad) {
  Tensor x = f64({1, 3, 2}, {3});
  x.requires_grad_();
  BOOST_TEST(!argmax(x).requires_grad());
  BOOST_TEST(!gt(x, 1.0).requires_grad());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- movement ---------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(movement)

BOOST_AUTO_TEST_CASE(views) {
  check([](Xs x) { return x[0].reshape({3, 4}) * f64({1, 2, 3, 4}, {4}); }, {{{2, 6}}});
  check([](Xs x) { return x[0].permute({2, 0, 1}); }, {{{2, 3, 4}}});
  check([](Xs x) { return x[0].transpose(0, 1); }, {{{2, 3}}});
  check([](Xs x) { return x[0].unsqueeze(1).squeeze(); }, {{{2, 3}}});
  check([](Xs x) { return flatten(x[0], 1); }, {{{2, 3, 2}}});
}

BOOST_AUTO_TEST_CASE(slices_with_steps_scatter_back_with_zeros) {
  check([](Xs x) { return x[0].slice(0, 1, 7, 2); }, {{{8}}});
  check([](Xs x) { return x[0].slice(1, 0, std::nullopt, 3); }, {{{2, 7}}});
  check([](Xs x) { return x[0].slice(0, 1, 3).slice(1, 2, std::nullopt, 2); }, {{{4, 6}}});
  check([](Xs x) { return x[0].slice(0, -2, std::nullopt, 4); }, {{{9}}});  // one element
  check([](Xs x) { return narrow(x[0], 1, 1, 2); }, {{{3, 4}}});
  check([](Xs x) { return x[0].select(0, 1); }, {{{3, 4}}});
  check([](Xs x) { return x[0].slice(0, 2, 2).sum() + x[0].sum(); }, {{{3}}});  // empty slice
}

BOOST_AUTO_TEST_CASE(flip_pad) {
  check([](Xs x) { return flip(x[0], {0, 1}); }, {{{2, 3}}});
  check([](Xs x) { return pad(x[0], {1, 2, 0, 1}, 5.0); }, {{{2, 3}}});
  check([](Xs x) { return pad(x[0], {-1, 2}); }, {{{2, 4}}});  // negative pads crop
  check([](Xs x) { return tril(x[0]) + triu(x[0], 1) * 3.0; }, {{{3, 3}}});
}

BOOST_AUTO_TEST_CASE(cat_stack_split_chunk) {
  check([](Xs x) { return cat({x[0], x[1], x[0]}, 1); }, {{{2, 3}}, {{2, 1}}});
  check([](Xs x) { return stack({x[0], x[1]}, 1); }, {{{2, 3}}, {{2, 3}}});
  check([](Xs x) {
    std::vector<Tensor> parts = split(x[0], 2, 1);
    return parts[0] * 2.0 + parts[1].sum() - parts[2].sum();
  }, {{{2, 5}}});
  check([](Xs x) {
    std::vector<Tensor> parts = split(x[0], std::vector<int64_t>{1, 3}, 0);
    return parts[1] * parts[0];
  }, {{{4, 2}}});
  check([](Xs x) { return chunk(x[0], 2, 0)[1]; }, {{{4, 2}}});
}

BOOST_AUTO_TEST_SUITE_END()

// ---- indexing ---------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(indexing)

BOOST_AUTO_TEST_CASE(index_select_and_embedding_accumulate_repeats) {
  Tensor idx = i64({2, 0, 2, 2}, {4});
  check([idx](Xs x) { return index_select(x[0], 0, idx); }, {{{3, 2}}});
  check([idx](Xs x) { return index_select(x[0], 1, idx); }, {{{2, 3}}});
  Tensor tokens = i64({1, 3, 1, 0, 3, 3}, {2, 3});
  check([tokens](Xs x) { return embedding(x[0], tokens); }, {{{4, 2}}});
  Tensor w = f64({0, 0, 0, 0, 0, 0, 0, 0}, {4, 2});
  w.requires_grad_();
  embedding(w, tokens).sum().backward();
  check_values(w.grad(), {1, 1, 2, 2, 0, 0, 3, 3});
}

BOOST_AUTO_TEST_CASE(gather_scatter_add_index_add) {
  Tensor gidx = i64({0, 2, 2, 1, 0, 0}, {2, 3});
  check([gidx](Xs x) { return gather(x[0], 1, gidx); }, {{{2, 4}}});
  check([gidx](Xs x) { return gather(x[0], 0, i64({1, 0, 1}, {1, 3})); }, {{{2, 4}}});
  // One index per line spanning the other dims: the elementwise (no scatter) rule.
  check([](Xs x) { return gather(x[0], 1, i64({3, 0, 0}, {3, 1})); }, {{{3, 4}}});
  check([](Xs x) { return gather(x[0], 0, i64({1, 0, 1, 1}, {1, 4})); }, {{{2, 4}}});
  Tensor sidx = i64({0, 2, 2, 1, 0, 0}, {2, 3});
  check([sidx](Xs x) { return scatter_add(x[0], 1, sidx, x[1]); }, {{{2, 4}}, {{2, 3}}});
  check([sidx](Xs x) { return scatter_add(x[0], 0, i64({1, 0, 1}, {1, 3}), x[1]); }, {{{2, 4}}, {{2, 3}}});
  Tensor aidx = i64({3, 0, 3}, {3});
  check([aidx](Xs x) { return index_add(x[0], 0, aidx, x[1], 0.5); }, {{{4, 2}}, {{3, 2}}});
}

BOOST_AUTO_TEST_SUITE_END()

// ---- matmul -----------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(linear_algebra)

BOOST_AUTO_TEST_CASE(matmul_all_ranks) {
  check([](Xs x) { return matmul(x[0], x[1]); }, {{{4}}, {{4}}});        // dot
  check([](Xs x) { return matmul(x[0], x[1]); }, {{{3}}, {{3, 2}}});     // vector-matrix
  check([](Xs x) { return matmul(x[0], x[1]); }, {{{2, 3}}, {{3}}});     // matrix-vector
  check([](Xs x) { return matmul(x[0], x[1]); }, {{{2, 3}}, {{3, 4}}});  // matrix
  check([](Xs x) { return matmul(x[0], x[1]); }, {{{2, 1, 2, 3}}, {{3, 3, 2}}});  // batch broadcast
  check([](Xs x) { return matmul(x[0], x[1]); }, {{{2, 2, 3}}, {{3}}});
  check([](Xs x) { return linear(x[0], x[1], x[2]); }, {{{2, 3}}, {{4, 3}}, {{4}}});
}

BOOST_AUTO_TEST_SUITE_END()

// ---- nn composites ----------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(nn)

BOOST_AUTO_TEST_CASE(softmax_family) {
  check([](Xs x) { return softmax(x[0], 1); }, {{{2, 4}, -3, 3}});
  check([](Xs x) { return softmax(x[0], 0); }, {{{3, 2}, -3, 3}});
  check([](Xs x) { return log_softmax(x[0], -1); }, {{{2, 4}, -3, 3}});
}

BOOST_AUTO_TEST_CASE(layer_norm_with_affine) {
  check([](Xs x) { return layer_norm(x[0], {4}, x[1], x[2]); }, {{{3, 4}, -2, 2}, {{4}}, {{4}}}, 1e-5, 1e-4);
  check([](Xs x) { return layer_norm(x[0], {2, 3}); }, {{{2, 2, 3}, -2, 2}}, 1e-5, 1e-4);
}

BOOST_AUTO_TEST_CASE(losses) {
  Tensor target = i64({2, 0, 1}, {3});
  check([target](Xs x) { return cross_entropy(x[0], target); }, {{{3, 4}, -2, 2}});
  check([target](Xs x) { return cross_entropy(x[0], target, Reduction::Sum); }, {{{3, 4}, -2, 2}});
  Tensor ignored = i64({2, -100, 1}, {3});
  check([ignored](Xs x) { return cross_entropy(x[0], ignored); }, {{{3, 4}, -2, 2}});
  check([target](Xs x) { return nll_loss(log_softmax(x[0], 1), target); }, {{{3, 4}, -2, 2}});
  check([target](Xs x) { return nll_loss(x[0], target, Reduction::None); }, {{{3, 4}}});
  check([](Xs x) { return mse_loss(x[0], x[1]); }, {{{2, 3}}, {{2, 3}}});
  check([](Xs x) { return mse_loss(x[0], x[1], Reduction::Sum); }, {{{2, 3}}, {{3}}});
}

BOOST_AUTO_TEST_SUITE_END()
