// A broad corpus of programs for backend tests: every primitive and dtype,
// movement patterns, reductions over every axis, Rows kernels (softmax,
// layer_norm, argmax, cumsum), matmul with transposed and computed operands,
// gather/scatter, random numbers, and composites under every fusion policy.
// The CUDA tests compile every kernel it schedules (test_cuda_codegen) and,
// on a GPU, compare every program with the reference (test_cuda_device).
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "eval_test_util.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace lt::test {

struct CorpusProgram {
  std::string name;
  std::vector<NodePtr> roots;
  std::string policy;  ///< fusion policy ("" = default)
};

inline BufferPtr corpus_buffer(DType dtype, int64_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = is_floating(dtype) ? u(gen) : std::floor(u(gen));
  return buffer_of(dtype, v);
}

inline NodePtr corpus_input(DType dtype, Shape shape, double lo = -3, double hi = 3, uint32_t seed = 1) {
  BufferPtr data = corpus_buffer(dtype, shape_numel(shape), lo, hi, seed);
  return make_input(std::move(data), std::move(shape));
}

inline std::vector<CorpusProgram> kernel_corpus() {
  const DType all[] = {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64};
  const DType floats[] = {DType::Float32, DType::Float64};
  std::vector<CorpusProgram> c;
  auto push = [&](std::string name, const std::function<std::vector<NodePtr>()>& build, std::string policy = "") {
    try {
      c.push_back({std::move(name), build(), std::move(policy)});
    } catch (const Error&) {
      // The builder rejects this combination (e.g. sub on bool): nothing to schedule.
    }
  };
// Builds the roots lazily so a combination the builder rejects is skipped.
#define CORPUS_ADD(name, ...) push(name, [&]() { return std::vector<NodePtr> __VA_ARGS__; })
#define CORPUS_ADD_POLICY(policy, name, ...) push(name, [&]() { return std::vector<NodePtr> __VA_ARGS__; }, policy)
  using U = NodePtr (*)(const NodePtr&);
  struct Unary {
    const char* name;
    U f;
    double lo, hi;
  };
  const Unary unary[] = {{"neg", ops::neg, -5, 5},     {"abs", ops::abs, -5, 5},       {"exp", ops::exp, -80, 80},
                         {"log", ops::log, 1e-6, 1e6}, {"log1p", ops::log1p, -0.9, 10}, {"expm1", ops::expm1, -5, 5},
                         {"sqrt", ops::sqrt, 0, 100},  {"sin", ops::sin, -50, 50},      {"cos", ops::cos, -50, 50},
                         {"tanh", ops::tanh, -12, 12}, {"erf", ops::erf, -6, 6},        {"floor", ops::floor, -5, 5},
                         {"ceil", ops::ceil, -5, 5},   {"round", ops::round, -5, 5},    {"sign", ops::sign, -2, 2},
                         {"sigmoid", ops::sigmoid, -20, 20}, {"relu", ops::relu, -3, 3}, {"isnan", ops::isnan, -1, 1},
                         {"logical_not", ops::logical_not, -1, 1}};
  for (DType d : floats)
    for (int64_t n : {1, 1023})
      for (const Unary& u : unary)
        CORPUS_ADD(std::string(u.name) + "_" + std::string(dtype_name(d)) + "_" + std::to_string(n),
            {u.f(corpus_input(d, {n}, u.lo, u.hi, 7))});
  {
    std::vector<double> v = {0.0, -0.0, kInf, -kInf, kNaN, 1e-40, -1e-40, 1e30, -1e30, 88.7, -103.0, 709.0, 1.0, -1.0};
    for (DType d : floats) {
      NodePtr x = input(d, {static_cast<int64_t>(v.size())}, v);
      for (U f : {ops::exp, ops::log, ops::log1p, ops::expm1, ops::tanh, ops::erf, ops::sign, ops::sqrt, ops::isnan})
        CORPUS_ADD("special_" + std::string(dtype_name(d)), {f(x)});
      CORPUS_ADD("special_casts_" + std::string(dtype_name(d)),
          {ops::cast(x, DType::Int32), ops::cast(x, DType::Int64), ops::cast(x, DType::Bool)});
    }
  }
  using B = NodePtr (*)(const NodePtr&, const NodePtr&);
  const B binary[] = {ops::add, ops::sub, ops::mul, ops::maximum, ops::minimum, ops::eq, ops::ne,
                      ops::lt,  ops::le,  ops::gt,  ops::ge,      ops::logical_and, ops::logical_or};
  for (DType d : all) {
    std::string dn(dtype_name(d));
    NodePtr a = corpus_input(d, {1023}, -4, 4, 3), b = corpus_input(d, {1023}, -4, 4, 4);
    for (B f : binary) CORPUS_ADD("binary_" + dn, {f(a, b)});
    if (is_floating(d)) CORPUS_ADD("div_pow_" + dn, {ops::div(a, b), ops::pow(ops::abs(a), b)});
    if (is_integral(d)) CORPUS_ADD("ipow_" + dn, {ops::pow(a, corpus_input(d, {1023}, -1, 5, 5))});
    for (DType to : all) CORPUS_ADD("cast_" + dn + "_" + std::string(dtype_name(to)), {ops::cast(corpus_input(d, {1023}, -300, 300, 9), to)});
    NodePtr cnd = corpus_input(DType::Bool, {5, 7}, 0, 2, 11);
    NodePtr x = corpus_input(d, {5, 7}, -9, 9, 12);
    NodePtr s = ops::scalar(2.0, d);
    CORPUS_ADD("where_scalar_" + dn, {ops::where(cnd, x, ops::expand(s, Shape{5, 7})), ops::mul(x, s)});
  }
  for (DType d : all)
    for (Shape shape : {Shape{7, 9}, Shape{3, 1, 5}, Shape{1023}, Shape{4, 0}, Shape{3, 300}, Shape{2, 40}}) {
      std::string dn(dtype_name(d));
      NodePtr x = corpus_input(d, shape, -5, 5, 21);
      int64_t r = static_cast<int64_t>(shape.size());
      for (int64_t axis = 0; axis < r; ++axis) {
        CORPUS_ADD("sum_prod_" + dn + shape_str(shape), {ops::sum(x, {axis}), ops::prod(ops::cast(x, d), {axis}, true)});
        if (shape_numel(shape) > 0)
          CORPUS_ADD("extremes_" + dn + shape_str(shape),
              {ops::amax(x, {axis}), ops::amin(x, {axis}, true), ops::argmax(x, axis), ops::argmin(x, axis, true)});
      }
      CORPUS_ADD("sum_all_" + dn + shape_str(shape), {ops::sum(x)});
    }
  CORPUS_ADD("argmax_nan", {ops::argmax(input(DType::Float32, {2, 4}, {1, 3, 3, 2, 1, kNaN, 5, kNaN}), 1)});
  for (DType d : all) {
    std::string dn(dtype_name(d));
    NodePtr x = corpus_input(d, {6, 5, 4}, -5, 5, 31);
    NodePtr y = corpus_input(d, {4, 5, 6}, -5, 5, 32);
    CORPUS_ADD("permute_" + dn, {ops::add(ops::permute(x, {2, 1, 0}), y)});
    CORPUS_ADD("flip_" + dn, {ops::maximum(ops::flip(y, {0, 2}), ops::permute(ops::flip(x, {1}), {2, 1, 0}))});
    CORPUS_ADD("slice_" + dn, {ops::mul(ops::slice(x, 0, 1, 6, 2), ops::slice(ops::slice(x, 2, 0, 4, 1), 0, 0, 3, 1))});
    CORPUS_ADD("expand_" + dn, {ops::add(ops::expand(ops::slice(x, 1, 0, 1, 1), {6, 5, 4}), x)});
    CORPUS_ADD("pad_" + dn, {ops::pad(x, {1, 2, 0, 3}, 7.0)});
    CORPUS_ADD("pad_permute_" + dn, {ops::add(ops::pad(ops::permute(x, {1, 0, 2}), {2, 0}, -1.0), ops::scalar(1, d))});
    CORPUS_ADD("reshape_" + dn, {ops::reshape(ops::permute(x, {1, 0, 2}), {30, 4})});
    CORPUS_ADD("transpose_flatten_" + dn, {ops::flatten(ops::transpose(ops::reshape(x, {12, 10}), 0, 1))});
    CORPUS_ADD("cat_" + dn, {ops::cat({x, ops::flip(x, {0}), ops::slice(x, 0, 0, 2, 1)}, 0)});
    CORPUS_ADD("cat_last_" + dn, {ops::cat({x, x}, 2)});
    NodePtr g = corpus_input(d, {5, 6}, -5, 5, 41);
    NodePtr idx = corpus_input(DType::Int64, {5, 3}, 0, 6, 42);
    CORPUS_ADD("gather_" + dn, {ops::gather(g, 1, idx)});
    NodePtr idx0 = corpus_input(DType::Int64, {4, 6}, 0, 5, 43);
    CORPUS_ADD("gather_exp_" + dn, {ops::gather(ops::exp(ops::cast(g, DType::Float32)), 0, idx0)});
    CORPUS_ADD("scatter_add_" + dn, {ops::scatter_add(g, 0, idx0, corpus_input(d, {4, 6}, -5, 5, 44))});
    CORPUS_ADD("cumsum_" + dn, {ops::cumsum(corpus_input(d, {4, 9}, -5, 5, 61), 1), ops::cumsum(corpus_input(d, {4, 9}, -5, 5, 62), 0)});
  }
  for (DType d : {DType::Float32, DType::Float64, DType::Int64, DType::Int32}) {
    std::string dn(dtype_name(d));
    NodePtr a = corpus_input(d, {7, 13}, -3, 3, 51), b = corpus_input(d, {13, 5}, -3, 3, 52);
    CORPUS_ADD("matmul_" + dn, {ops::matmul(a, b)});
    CORPUS_ADD("matmul_transposed_" + dn, {ops::matmul(a, ops::transpose(corpus_input(d, {5, 13}, -3, 3, 53), 0, 1))});
    NodePtr ba = corpus_input(d, {3, 4, 6}, -3, 3, 54), bb = corpus_input(d, {3, 6, 2}, -3, 3, 55);
    CORPUS_ADD("bmm_epilogue_" + dn, {ops::add(ops::matmul(ops::exp(ops::cast(ba, DType::Float64)), ops::cast(bb, DType::Float64)),
                                        ops::scalar(1.0, DType::Float64))});
  }
  CORPUS_ADD("matmul_f32_large", {ops::matmul(corpus_input(DType::Float32, {64, 1023}, -1, 1, 56),
                                       corpus_input(DType::Float32, {1023, 33}, -1, 1, 57))});
  CORPUS_ADD("matmul_f32_130", {ops::matmul(corpus_input(DType::Float32, {130, 70}, -1, 1, 58),
                                     corpus_input(DType::Float32, {70, 129}, -1, 1, 59))});
  {
    // MatMul epilogues and operand index checks (the CUDA MatMul kernel emits
    // the epilogue from the kernel's stores and stages the operands' checks).
    NodePtr x = corpus_input(DType::Float32, {33, 40}, -1, 1, 91), w = corpus_input(DType::Float32, {20, 40}, -1, 1, 92);
    NodePtr b = corpus_input(DType::Float32, {20}, -1, 1, 93), r = corpus_input(DType::Float32, {33, 20}, -1, 1, 94);
    NodePtr y = ops::linear(x, w, b);
    CORPUS_ADD("linear_bias_relu", {ops::relu(y)});
    CORPUS_ADD("linear_gelu_cast", {ops::cast(ops::gelu(y), DType::Float64)});
    CORPUS_ADD("matmul_scale_residual", {ops::add(ops::mul(ops::matmul(x, ops::transpose(w, 0, 1)), ops::scalar(0.5, DType::Float32)), r)});
    CORPUS_ADD("linear_3d_relu", {ops::relu(ops::linear(corpus_input(DType::Float32, {3, 11, 40}, -1, 1, 95), w, b))});
    NodePtr gi = corpus_input(DType::Int64, {33, 40}, 0, 40, 96);
    CORPUS_ADD("matmul_gather_k", {ops::tanh(ops::matmul(ops::gather(x, 1, gi), ops::transpose(w, 0, 1)))});
    NodePtr hot = ops::cast(ops::one_hot(corpus_input(DType::Int64, {33}, 0, 40, 97), 40), DType::Float32);
    CORPUS_ADD("one_hot_matmul", {ops::relu(ops::matmul(hot, ops::transpose(w, 0, 1)))});
    CORPUS_ADD("matmul_int_epilogue", {ops::add(ops::matmul(corpus_input(DType::Int32, {9, 12}, -5, 5, 98),
                                                             corpus_input(DType::Int32, {12, 7}, -5, 5, 99)),
                                                 ops::scalar_int(3, DType::Int32))});
  }
  {
    // bfloat16 / float16 products (float32 accumulation; tensor-core MMA on
    // CUDA): sizes off every tile edge, K not a multiple of the k slice, a
    // transposed operand, a batch, and a fused epilogue.
    for (DType d : {DType::BFloat16, DType::Float16}) {
      std::string dn(dtype_name(d));
      NodePtr a = corpus_input(d, {70, 129}, -1, 1, 111), b = corpus_input(d, {129, 130}, -1, 1, 112);
      CORPUS_ADD("matmul_lowp_" + dn, {ops::matmul(a, b)});
      CORPUS_ADD("matmul_lowp_transposed_" + dn, {ops::matmul(a, ops::transpose(corpus_input(d, {33, 129}, -1, 1, 113), 0, 1))});
      CORPUS_ADD("bmm_lowp_" + dn, {ops::matmul(corpus_input(d, {3, 17, 40}, -1, 1, 114), corpus_input(d, {3, 40, 24}, -1, 1, 115))});
      NodePtr x = corpus_input(d, {33, 40}, -1, 1, 116), w = corpus_input(d, {20, 40}, -1, 1, 117);
      CORPUS_ADD("linear_bias_relu_lowp_" + dn, {ops::relu(ops::linear(x, w, corpus_input(d, {20}, -1, 1, 118)))});
    }
  }
  {
    // Per-channel arithmetic over [N, C, H, W] (a BatchNorm's apply): the
    // scheduler makes it a Rows kernel without reductions whose rstd is
    // row-level (scheduler/row_invariants.cpp); a max pool's window argmax
    // and max, unrolled into elementwise kernels (scheduler/short_rows.cpp).
    NodePtr x = corpus_input(DType::Float32, {8, 6, 9, 10}, -2, 2, 121);
    NodePtr var = corpus_input(DType::Float32, {1, 6, 1, 1}, 0.1, 2, 122);
    NodePtr rstd = ops::div(ops::scalar(1.0, DType::Float32), ops::sqrt(ops::add(var, ops::scalar(1e-5, DType::Float32))));
    CORPUS_ADD("per_channel_rstd", {ops::relu(ops::mul(ops::sub(x, corpus_input(DType::Float32, {1, 6, 1, 1}, -1, 1, 123)), rstd))});
    NodePtr win = ops::reshape(x, {8, 6, 45, 2});
    CORPUS_ADD("short_rows_argmax_max", {ops::argmax(win, 3, true), ops::gather(win, 3, ops::argmax(win, 3, true))});
  }
  {  // convolutions (ir/conv.h): implicit-GEMM MatMul kernels with guarded-load operands
    NodePtr x = corpus_input(DType::Float32, {2, 4, 9, 7}, -1, 1, 101), w = corpus_input(DType::Float32, {6, 2, 3, 3}, -1, 1, 102);
    NodePtr b = corpus_input(DType::Float32, {6}, -1, 1, 103);
    NodePtr y = ops::conv(x, w, {2, 1}, {1, 1}, {1, 1}, {1, 2}, 2);  // stride (2, 1), dilation (1, 2), 2 groups
    Shape bias_shape{1, 6, 1, 1};
    CORPUS_ADD("conv2d_bias_relu", {ops::relu(ops::add(y, ops::reshape(b, bias_shape)))});
    NodePtr dy = corpus_input(DType::Float32, y->shape, -1, 1, 104);
    Attrs attrs = y->attrs;
    CORPUS_ADD("conv2d_input_grad", {ops::conv_input_grad(dy, w, attrs, {9, 7})});
    CORPUS_ADD("conv2d_weight_grad", {ops::conv_weight_grad(x, dy, attrs, {3, 3})});
    NodePtr x1 = corpus_input(DType::Float64, {3, 5, 11}, -1, 1, 105), w1 = corpus_input(DType::Float64, {4, 5, 4}, -1, 1, 106);
    CORPUS_ADD("conv1d_f64_same", {ops::conv(x1, w1, {1}, {1}, {2}, {1}, 1)});
  }
  CORPUS_ADD("iota_arange", {ops::iota({3, 4}, 1), ops::arange(0, 10, 1)});
  CORPUS_ADD("rand", {ops::rand({5, 7}, 42, 3), ops::rand({3, 3}, 7, 0, DType::Float64)});
  CORPUS_ADD("randn", {ops::randn({1000}, 5, 11)});
  for (DType d : floats)
    for (Shape s : {Shape{1, 1}, Shape{7, 1023}, Shape{3, 5, 16}, Shape{300, 40}}) {
      std::string dn = std::string(dtype_name(d)) + shape_str(s);
      NodePtr x = corpus_input(d, s, -4, 4, 71);
      CORPUS_ADD("softmax_" + dn, {ops::softmax(x, -1)});
      CORPUS_ADD("log_softmax_" + dn, {ops::log_softmax(x, -1)});
      CORPUS_ADD("softmax_dim0_" + dn, {ops::softmax(x, 0)});
      CORPUS_ADD("layer_norm_" + dn, {ops::layer_norm(x, {s.back()}, nullptr, nullptr)});
      CORPUS_ADD("var_mean_lse_" + dn, {ops::var(x, {-1}), ops::mean(x), ops::logsumexp(x, {-1})});
      CORPUS_ADD("gelu_silu_" + dn, {ops::gelu(x), ops::silu(x), ops::gelu(x, true)});
    }
  {
    NodePtr x = corpus_input(DType::Float32, {9, 33}, -4, 4, 81);
    NodePtr w = corpus_input(DType::Float32, {33}, -1, 1, 82);
    for (std::string p : {"default", "none", "elementwise"}) {
      CORPUS_ADD_POLICY(p, "policy_softmax_" + p, {ops::softmax(x, -1)});
      CORPUS_ADD_POLICY(p, "policy_layer_norm_" + p, {ops::layer_norm(x, {33}, w, nullptr), ops::sum(ops::exp(x))});
    }
  }
#undef CORPUS_ADD
#undef CORPUS_ADD_POLICY
  return c;
}

}  // namespace lt::test
