// Differential tests: the cpu backend (scheduler + LLVM JIT) against the
// reference evaluator, for every primitive and composed programs.
#define BOOST_TEST_MODULE cpu_jit
#include <limits>
#include <thread>

#include "ir/counters.h"
#include "ir/evaluator.h"
#include "jit/cpu/random.h"
#include "jit_test_util.h"

using namespace lt;
using namespace lt::test;

namespace {
const DType kAll[] = {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64};
const DType kFloats[] = {DType::Float32, DType::Float64};
const int64_t kSizes[] = {0, 1, 7, 1023};
}  // namespace

BOOST_AUTO_TEST_CASE(unary_float_ops_match_reference) {
  struct U {
    NodePtr (*f)(const NodePtr&);
    double lo, hi;
  };
  U cases[] = {{ops::neg, -5, 5},   {ops::abs, -5, 5},    {ops::exp, -80, 80},  {ops::log, 1e-6, 1e6},
               {ops::log1p, -0.9, 10}, {ops::expm1, -5, 5}, {ops::sqrt, 0, 100}, {ops::sin, -50, 50},
               {ops::cos, -50, 50}, {ops::tanh, -12, 12}, {ops::erf, -6, 6},    {ops::floor, -5, 5},
               {ops::ceil, -5, 5},  {ops::round, -5, 5},  {ops::sign, -2, 2},   {ops::sigmoid, -20, 20},
               {ops::relu, -3, 3},  {ops::isnan, -1, 1},  {ops::logical_not, -1, 1}};
  for (DType d : kFloats)
    for (int64_t n : kSizes)
      for (const U& u : cases) check_against_reference({u.f(random_input(d, {n}, u.lo, u.hi, 7))});
}

BOOST_AUTO_TEST_CASE(special_float_values_match_reference) {
  std::vector<double> v = {0.0, -0.0, kInf, -kInf, kNaN, 1e-40, -1e-40, 1e30, -1e30, 88.7, -103.0, 709.0, 1.0, -1.0};
  for (DType d : kFloats) {
    NodePtr x = input(d, {static_cast<int64_t>(v.size())}, v);
    for (auto f : {ops::exp, ops::log, ops::log1p, ops::expm1, ops::tanh, ops::erf, ops::sign, ops::sqrt, ops::isnan})
      check_against_reference({f(x)});
    check_against_reference({ops::cast(x, DType::Int32), ops::cast(x, DType::Int64), ops::cast(x, DType::Bool)});
  }
}

BOOST_AUTO_TEST_CASE(binary_ops_match_reference_for_every_dtype) {
  NodePtr (*fs[])(const NodePtr&, const NodePtr&) = {ops::add, ops::mul, ops::maximum, ops::minimum,
                                                     ops::eq,  ops::ne,  ops::lt,  ops::le,      ops::gt,
                                                     ops::ge,  ops::logical_and, ops::logical_or};
  for (DType d : kAll)
    for (int64_t n : kSizes) {
      NodePtr a = random_input(d, {n}, -4, 4, 3), b = random_input(d, {n}, -4, 4, 4);
      for (auto f : fs) check_against_reference({f(a, b)});
      if (d != DType::Bool) check_against_reference({ops::sub(a, b)});
      if (is_floating(d)) check_against_reference({ops::div(a, b), ops::pow(ops::abs(a), b)});
      if (is_integral(d)) check_against_reference({ops::pow(a, random_input(d, {n}, -1, 5, 5))});
    }
}

BOOST_AUTO_TEST_CASE(casts_between_all_dtypes_match_reference) {
  for (DType from : kAll)
    for (DType to : kAll) check_against_reference({ops::cast(random_input(from, {1023}, -300, 300, 9), to)});
}

BOOST_AUTO_TEST_CASE(where_and_scalars_match_reference) {
  for (DType d : kAll) {
    NodePtr c = random_input(DType::Bool, {5, 7}, 0, 2, 11);
    NodePtr a = random_input(d, {5, 7}, -9, 9, 12);
    NodePtr s = ops::scalar(2.0, d);
    check_against_reference({ops::where(c, a, ops::expand(s, Shape{5, 7})), ops::mul(a, s)});
  }
}

BOOST_AUTO_TEST_CASE(reductions_match_reference_over_every_axis) {
  for (DType d : kAll)
    for (Shape shape : {Shape{7, 9}, Shape{3, 1, 5}, Shape{1023}, Shape{4, 0}}) {
      NodePtr x = random_input(d, shape, -5, 5, 21);
      int64_t r = static_cast<int64_t>(shape.size());
      for (int64_t axis = 0; axis < r; ++axis) {
        check_against_reference({ops::sum(x, {axis}), ops::prod(ops::cast(x, d), {axis}, true)});
        if (shape_numel(shape) > 0)
          check_against_reference({ops::amax(x, {axis}), ops::amin(x, {axis}, true), ops::argmax(x, axis),
                                   ops::argmin(x, axis, true)});
      }
      check_against_reference({ops::sum(x)});
    }
}

// Few long rows run as split reductions (per-chunk partials on all threads,
// then an ordered combine): full sums, max/min, prod, mean/var tails, a
// strided (transposed) input, bool and integer sums, and a NaN in one chunk.
BOOST_AUTO_TEST_CASE(split_reductions_of_long_rows_match_reference) {
  for (DType d : kAll) {
    NodePtr x = random_input(d, {3, 100003}, -2, 2, 31);
    check_against_reference({ops::sum(x), ops::sum(x, {1}), ops::amax(x, {1}), ops::amin(x)});
    if (is_floating(d)) {
      check_against_reference({ops::mean(x), ops::var(x, {1})});
      check_against_reference({ops::sum(ops::permute(x, {1, 0}), {0})});
      NodePtr small = random_input(d, {200001}, 0.999, 1.001, 32);
      check_against_reference({ops::prod(small, {0})});
    }
  }
  std::vector<double> v(300000, 1.0);
  v[250000] = kNaN;
  NodePtr n = input(DType::Float32, {300000}, v);
  check_against_reference({ops::sum(n), ops::amax(n, {0}), ops::amin(n, {0})});
  // float32 sums add blocks of 1024 in float32 first (docs/cpu-jit.md,
  // "Float32 split sums"); a block whose float32 sum overflows (3e38 - 3e38
  // in lanes of 3e38s and lanes of -3e38s: inf - inf) is summed again in
  // double, so the result is the finite one the reference gives, not NaN.
  std::vector<double> big(200000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = i % 2 ? -3e38 : 3e38;
  big[7] = 2.5;
  big[150001] = kInf;
  NodePtr b = input(DType::Float32, {2, 100000}, big);
  check_against_reference({ops::sum(b, {1}), ops::mean(b, {1}), ops::sum(ops::slice(b, 1, 0, 99999), {1})});
  CapturedTrace ct = capture_trace({ops::sum(b, {1})});
  BufferPtr got = run_cpu(ct.trace)[0];
  BOOST_TEST(std::isfinite(values(got)[0]));
  BOOST_TEST(std::isinf(values(got)[1]));
  std::shared_ptr<const Plan> plan = cpu_plan_for(ct.trace, RunOptions{});
  BOOST_REQUIRE_EQUAL(plan->kernels.size(), 1u);
  BOOST_TEST(cpu::kernel_splits_reduction(plan->kernels[0]));
  BOOST_TEST(cpu::kernel_llvm_ir(plan->kernels[0], false, cpu::Tier::Full).find("block.redo") != std::string::npos);
}

// Column reductions (cpu::kernel_reduces_columns) run their loops
// interchanged, one accumulator per row in a segment of rows: segments that
// cross kColumnSegment and line ends (a middle axis reduced), parallel
// launches, every dtype, NaN in a column, a row-level bias, a transposed
// input, and kernels that must keep the row-by-row loops.
BOOST_AUTO_TEST_CASE(column_reductions_run_interchanged_and_match_reference) {
  // Kernels of the plan that run interchanged; -1 when only some of them do.
  auto columns = [](const std::vector<NodePtr>& roots) {
    // Kernels as the first program of their structure gets them: a later size
    // of the same structure is shape-generic (scheduler/generic.h), and one
    // whose strides vary keeps the row-by-row loops.
    cpu_clear_caches();
    std::shared_ptr<const Plan> plan = cpu_plan_for(capture_trace(roots).trace, RunOptions{});
    int n = 0;
    for (const Kernel& k : plan->kernels) n += cpu::kernel_reduces_columns(k);
    return n == 0 || n == static_cast<int>(plan->kernels.size()) ? n : -1;
  };
  for (DType d : kAll) {
    NodePtr x = random_input(d, {333, 300}, -2, 2, 61);
    NodePtr y = random_input(d, {4, 301, 37}, -2, 2, 62);
    std::vector<NodePtr> sums = {ops::sum(x, {0}), ops::sum(y, {1}), ops::sum(y, {0, 1}, true)};
    BOOST_TEST(columns(sums) >= 1);  // (sibling kernels may share one)
    check_against_reference(sums);
    check_against_reference({ops::amax(x, {0}), ops::amin(y, {1}, true)});
    if (is_floating(d)) {
      NodePtr near1 = random_input(d, {300, 40}, 0.99, 1.01, 63);
      NodePtr w = random_input(d, {300}, -1, 1, 64);
      std::vector<NodePtr> more = {ops::prod(near1, {0}), ops::mean(x, {0}), ops::sum(ops::mul(ops::add(x, w), x), {0}),
                                   ops::sum(ops::permute(random_input(d, {300, 333}, -2, 2, 65), {1, 0}), {1})};
      BOOST_TEST(columns(more) >= 2);
      check_against_reference(more);
      // Each row adds its elements in order, as the reference does: sums are bit-exact.
      CapturedTrace ct = capture_trace({ops::sum(x, {0})});
      check_outputs(evaluate_reference(ct.trace), run_cpu(ct.trace), [](DType) { return Tolerance{}; });
    }
  }
  // Few rows, long columns: the column-split entries (partials per block of
  // rows and chunk of the columns on all threads, then an ordered combine).
  for (DType d : kAll) {
    NodePtr tall = random_input(d, {70001, 20}, -2, 2, 68);
    std::vector<NodePtr> roots = {ops::sum(tall, {0}), ops::amax(tall, {0})};
    if (is_floating(d)) roots.push_back(ops::mean(ops::mul(tall, tall), {0}));
    check_against_reference(roots);
    std::shared_ptr<const Plan> plan = cpu_plan_for(capture_trace(roots).trace, RunOptions{});
    for (const Kernel& k : plan->kernels) BOOST_TEST(cpu::kernel_splits_columns(k));
  }
  std::vector<double> v(64 * 20, 1.0);
  v[37 * 20 + 5] = kNaN;
  NodePtr n = input(DType::Float32, {64, 20}, v);
  check_against_reference({ops::sum(n, {0}), ops::amax(n, {0}), ops::amin(n, {0})});
  // Row by row: rows contiguous along the inner loop, short lines, gathers, argmax.
  NodePtr x = random_input(DType::Float32, {333, 300}, -2, 2, 66);
  BOOST_TEST(columns({ops::sum(x, {1})}) == 0);
  BOOST_TEST(columns({ops::sum(random_input(DType::Float32, {333, 5}, -2, 2, 67), {0})}) == 0);
  BOOST_TEST(columns({ops::argmax(x, 0)}) == 0);
  NodePtr idx = input(DType::Int64, {4}, {3, 1, 4, 1});
  BOOST_TEST(columns({ops::sum(ops::index_select(x, 0, idx), {0})}) == 0);
}

// Rows kernels whose inner dims the loads do not walk as one run (x.sum((0,
// 2)) of [N, C, HW], BatchNorm's statistics) get a loop per inner dim;
// argmax's index, softmax over a middle axis, a masked short last dim and
// plain reductions must not notice.
BOOST_AUTO_TEST_CASE(reductions_over_separated_inner_dims_nest_their_loops) {
  auto nested = [](const std::vector<NodePtr>& roots) {
    std::shared_ptr<const Plan> plan = cpu_plan_for(capture_trace(roots).trace, RunOptions{});
    std::string ir;
    for (const Kernel& k : plan->kernels) ir += cpu::kernel_llvm_ir(k, /*optimized=*/false, cpu::Tier::Full);
    return ir.find("inner.outer") != std::string::npos;
  };
  for (DType d : kAll) {
    NodePtr x = random_input(d, {5, 7, 33}, -3, 3, 71);
    std::vector<NodePtr> roots = {ops::sum(x, {0, 2}), ops::amax(x, {0, 2}, true)};
    BOOST_TEST(nested(roots));
    check_against_reference(roots);
    if (!is_floating(d)) continue;
    NodePtr var = ops::var(x, {0, 2});
    BOOST_TEST(nested({var}));
    check_against_reference({var, ops::mean(ops::mul(x, x), {0, 2}, true)});
    check_against_reference({ops::softmax(ops::permute(x, {1, 0, 2}), 0)});
  }
  NodePtr x = random_input(DType::Float32, {5, 7, 33}, -3, 3, 72);
  BOOST_TEST(!nested({ops::sum(x, {1, 2})}));  // one run: the linear loop reads it in order
  BOOST_TEST(!nested({ops::sum(random_input(DType::Float32, {5, 7, 9}, -3, 3, 73), {0, 2})}));  // short last dim
  check_against_reference({ops::sum(x, {1, 2}), ops::argmax(ops::reshape(ops::permute(x, {1, 0, 2}), {7, 165}), 1)});
}

BOOST_AUTO_TEST_CASE(argmax_prefers_the_first_nan_and_the_first_tie) {
  NodePtr x = input(DType::Float32, {2, 4}, {1, 3, 3, 2, 1, kNaN, 5, kNaN});
  check_against_reference({ops::argmax(x, 1), ops::argmin(x, 1), ops::amax(x, {1})});
}

BOOST_AUTO_TEST_CASE(views_feeding_elementwise_match_reference) {
  for (DType d : kAll) {
    NodePtr x = random_input(d, {6, 5, 4}, -5, 5, 31);
    NodePtr y = random_input(d, {4, 5, 6}, -5, 5, 32);
    NodePtr p = ops::permute(x, {2, 1, 0});
    check_against_reference({ops::add(p, y)});
    check_against_reference({ops::maximum(ops::flip(y, {0, 2}), ops::permute(ops::flip(x, {1}), {2, 1, 0}))});
    check_against_reference({ops::mul(ops::slice(x, 0, 1, 6, 2), ops::slice(ops::slice(x, 2, 0, 4, 1), 0, 0, 3, 1))});
    check_against_reference({ops::add(ops::expand(ops::slice(x, 1, 0, 1, 1), {6, 5, 4}), x)});
    check_against_reference({ops::pad(x, {1, 2, 0, 3}, 7.0)});
    check_against_reference({ops::add(ops::pad(ops::permute(x, {1, 0, 2}), {2, 0}, -1.0), ops::scalar(1, d))});
    check_against_reference({ops::reshape(ops::permute(x, {1, 0, 2}), {30, 4})});
    check_against_reference({ops::flatten(ops::transpose(ops::reshape(x, {12, 10}), 0, 1))});
    check_against_reference({ops::cat({x, ops::flip(x, {0}), ops::slice(x, 0, 0, 2, 1)}, 0)});
    check_against_reference({ops::cat({x, x}, 2)});
  }
}

BOOST_AUTO_TEST_CASE(gather_and_scatter_add_match_reference) {
  for (DType d : kAll) {
    NodePtr x = random_input(d, {5, 6}, -5, 5, 41);
    NodePtr idx = random_input(DType::Int64, {5, 3}, 0, 6, 42);
    check_against_reference({ops::gather(x, 1, idx)});
    NodePtr idx0 = random_input(DType::Int64, {4, 6}, 0, 5, 43);
    check_against_reference({ops::gather(ops::exp(ops::cast(x, DType::Float32)), 0, idx0)});
    NodePtr src = random_input(d, {4, 6}, -5, 5, 44);
    check_against_reference({ops::scatter_add(x, 0, idx0, src)});
  }
}

BOOST_AUTO_TEST_CASE(out_of_range_indices_raise_at_sync_with_pytorchs_error_kinds) {
  // gather and scatter_add raise RuntimeError in PyTorch (ErrorKind::Runtime),
  // index_select IndexError (ErrorKind::Index): the kind rides in the node's
  // attrs into the kernel's error slot.
  // Runs `root` (`what`) on the cpu backend; it must raise `kind` with every needle in its message.
  auto expect_error = [](const char* what, const NodePtr& root, ErrorKind kind,
                         std::initializer_list<const char*> needles) {
    CapturedTrace t = capture_trace({root});
    try {
      run_cpu(t.trace);
      BOOST_FAIL(what << " did not raise");
    } catch (const lt::Error& e) {
      BOOST_CHECK(e.kind() == kind);
      std::string m = e.what();
      for (const char* n : needles) BOOST_CHECK_MESSAGE(m.find(n) != std::string::npos, m);
    }
  };
  // Indices computed by a pending op: known values would raise at the op already (check_known_index).
  auto pending = [](const NodePtr& index) { return ops::add(index, ops::scalar_int(0, DType::Int64)); };
  NodePtr x = random_input(DType::Float32, {5, 6}, -5, 5, 41);
  NodePtr bad = pending(input(DType::Int64, {5, 1}, {0, 1, 6, 2, 3}));
  expect_error("gather with index 6", ops::gather(x, 1, bad), ErrorKind::Runtime, {"gather", "6"});
  NodePtr neg = pending(input(DType::Int64, {1, 6}, {0, 1, -1, 2, 3, 4}));
  expect_error("scatter_add with index -1", ops::scatter_add(x, 0, neg, random_input(DType::Float32, {1, 6})),
               ErrorKind::Runtime, {"scatter_add"});
  expect_error("index_select with index 5", ops::exp(ops::index_select(x, 0, pending(input(DType::Int64, {2}, {1, 5})))),
               ErrorKind::Index, {"5"});
}

BOOST_AUTO_TEST_CASE(matmul_matches_reference) {
  for (DType d : {DType::Float32, DType::Float64, DType::Int64, DType::Int32}) {
    NodePtr a = random_input(d, {7, 13}, -3, 3, 51), b = random_input(d, {13, 5}, -3, 3, 52);
    check_against_reference({ops::matmul(a, b)});
    NodePtr bt = random_input(d, {5, 13}, -3, 3, 53);
    check_against_reference({ops::matmul(a, ops::transpose(bt, 0, 1))});
    NodePtr ba = random_input(d, {3, 4, 6}, -3, 3, 54), bb = random_input(d, {3, 6, 2}, -3, 3, 55);
    check_against_reference({ops::add(ops::matmul(ops::exp(ops::cast(ba, DType::Float64)), ops::cast(bb, DType::Float64)),
                                      ops::scalar(1.0, DType::Float64))});
  }
  NodePtr a = random_input(DType::Float32, {64, 1023}, -1, 1, 56), b = random_input(DType::Float32, {1023, 33}, -1, 1, 57);
  check_against_reference({ops::matmul(a, b)}, "", 10.0);
}

BOOST_AUTO_TEST_CASE(cumsum_iota_and_rand_match_reference) {
  for (DType d : kAll) {
    NodePtr x = random_input(d, {4, 9}, -5, 5, 61);
    check_against_reference({ops::cumsum(x, 1), ops::cumsum(x, 0)});
  }
  check_against_reference({ops::iota({3, 4}, 1), ops::arange(0, 10, 1)});
  check_against_reference({ops::rand({5, 7}, 42, 3), ops::rand({3, 3}, 7, 0, DType::Float64)});
}

BOOST_AUTO_TEST_CASE(composites_match_reference) {
  for (DType d : kFloats)
    for (Shape s : {Shape{1, 1}, Shape{7, 1023}, Shape{3, 5, 16}}) {
      NodePtr x = random_input(d, s, -4, 4, 71);
      check_against_reference({ops::softmax(x, -1)});
      check_against_reference({ops::log_softmax(x, -1)});
      check_against_reference({ops::softmax(x, 0)});
      check_against_reference({ops::layer_norm(x, {s.back()}, nullptr, nullptr)});
      check_against_reference({ops::var(x, {-1}), ops::mean(x), ops::logsumexp(x, {-1})});
      check_against_reference({ops::gelu(x), ops::silu(x), ops::gelu(x, true)});
    }
}

// A Rows kernel whose last phase stores a value an earlier phase computed
// (softmax's exp(x - max)) parks it in the output row and reloads it
// (jit/cpu/codegen.cpp, plan_stashes). Covers rows that take the stash, rows
// too long for it (> 256 KiB), extra outputs, several stores per kernel and
// values whose earlier phase is not the one right before the store.
BOOST_AUTO_TEST_CASE(values_stashed_between_row_phases_match_reference) {
  for (DType d : kFloats) {
    for (Shape s : {Shape{5, 300}, Shape{2, 70001}, Shape{3, 4, 33}}) {
      NodePtr x = random_input(d, s, -30, 30, 101);
      NodePtr e = ops::exp(ops::sub(x, ops::amax(x, {-1}, true)));
      NodePtr sum = ops::sum(e, {-1}, true);
      check_against_reference({ops::softmax(x, -1)});
      check_against_reference({ops::div(e, sum), ops::mul(e, ops::scalar(2.0, d))});
      check_against_reference({ops::add(ops::div(e, sum), ops::transpose(ops::softmax(ops::transpose(x, 0, 1), -1), 0, 1))});
      // Third phase re-reads e after a second reduction over it.
      NodePtr sq = ops::sum(ops::mul(e, e), {-1}, true);
      check_against_reference({ops::div(ops::mul(e, sum), sq)});
    }
  }
}

// A value several phases need is stashed by the first phase that computes it
// and reloaded by every later one: layer_norm(gelu(x)) evaluates erf in its
// mean phase only (it did in the mean and the variance phases). Counted in
// the kernel's IR before optimisation (vectorisation copies bodies), where
// the kernel calls erf's math function (defined in its module, inlined after
// vectorising) once per evaluation: the mean phase's two copies of its
// body (its sum's whole chunks of cpu::row_lanes() and its last chunk),
// where recomputing would call it in the variance phase's two as well.
BOOST_AUTO_TEST_CASE(a_value_every_phase_needs_is_computed_once_per_element) {
  const std::string kErfCall = "call float @lt_m_erf_f32(";
  for (Shape s : {Shape{6, 77}, Shape{3, 1000}}) {
    NodePtr x = random_input(DType::Float32, s, -3, 3, 111);
    NodePtr y = ops::layer_norm(ops::gelu(x), {s.back()}, nullptr, nullptr);
    BOOST_TEST(check_against_reference({y}) == 1u);
    Plan plan = schedule(capture_trace({y}).trace, fusion_policy("default"));
    BOOST_TEST_REQUIRE(plan.kernels.size() == 1u);
    BOOST_TEST(plan.kernels[0].num_phases == 3);
    std::string ir = cpu::kernel_llvm_ir(plan.kernels[0], /*optimized=*/false);
    size_t sites = 0;
    for (size_t at = ir.find(kErfCall); at != std::string::npos; at = ir.find(kErfCall, at + 1)) ++sites;
    BOOST_TEST(sites == 2u, "erf is called " << sites << " times");
  }
}

// sin/cos (both types) and float64 exp take their integer quadrant or
// exponent from the low bits of n + 1.5 * 2^52, not a float-to-int
// conversion: AVX2 has none from double vectors, so LLVM scalarised them
// (fptosi.sat on <8 x double>: 32 compares, min/max and conversions per
// vector; sin of 4M floats ran 40% slower). Their values are checked by
// test_cpu_math; the optimised IR must have no such conversion left.
BOOST_AUTO_TEST_CASE(trig_and_double_exp_kernels_convert_no_float_to_int) {
  for (DType d : kFloats)
    for (NodePtr (*f)(const NodePtr&) : {ops::sin, ops::cos, ops::exp}) {
      if (f == ops::exp && d == DType::Float32) continue;  // vcvttps2dq is one instruction
      NodePtr x = random_input(d, {4099}, -50, 50, 131);
      NodePtr y = f(x);
      BOOST_TEST(check_against_reference({y}) == 1u);
      Plan plan = schedule(capture_trace({y}).trace, fusion_policy("default"));
      BOOST_TEST_REQUIRE(plan.kernels.size() == 1u);
      std::string ir = cpu::kernel_llvm_ir(plan.kernels[0], /*optimized=*/true);
      BOOST_TEST(ir.find("fptosi") == std::string::npos, dtype_name(d) << ": a float-to-int conversion is left");
    }
}

// AVX-512 hosts (cpu::avx512_math()): a full-tier kernel defines the math
// functions in its own module, the vectoriser calls their 512-bit variants,
// and they are inlined afterwards, so the kernel holds vscalef (exp) and
// vpermi2ps (float32 erf) and no call. The widths the vectoriser may pick
// for mixed float32/float64 kernels (16 or 8 lanes; narrower variants widen
// to 512 bits) and scalar remainders all match the reference. Other hosts:
// none of it.
BOOST_AUTO_TEST_CASE(avx512_math_is_inlined_into_full_tier_kernels) {
  struct Case {
    DType d;
    NodePtr (*f)(const NodePtr&);
    const char* marker;
  };
  for (Case c : {Case{DType::Float32, ops::exp, "llvm.x86.avx512.mask.scalef.ps.512"},
                 Case{DType::Float32, ops::exp, "llvm.x86.avx512.permvar.sf.512"},  // 2^(j/16) table
                 Case{DType::Float64, ops::exp, "llvm.x86.avx512.mask.scalef.pd.512"},
                 Case{DType::Float32, ops::erf, "llvm.x86.avx512.vpermi2var.ps.512"},
                 Case{DType::Float32, ops::sigmoid, "llvm.x86.avx512.mask.scalef.ps.512"}}) {
    NodePtr x = random_input(c.d, {4099}, -9, 9, 133);
    NodePtr y = c.f(x);
    BOOST_TEST(check_against_reference({y}) == 1u);
    Plan plan = schedule(capture_trace({y}).trace, fusion_policy("default"));
    BOOST_TEST_REQUIRE(plan.kernels.size() == 1u);
    std::string ir = cpu::kernel_llvm_ir(plan.kernels[0], /*optimized=*/true, cpu::Tier::Full);
    BOOST_TEST(ir.find("@lt_m_") == std::string::npos, "a math function is left in the full-tier kernel");
    BOOST_TEST((ir.find(c.marker) != std::string::npos) == cpu::avx512_math(), c.marker << " in the kernel: " << !cpu::avx512_math());
  }
  // float32 erf and exp in one kernel with float64 work: other vector widths.
  NodePtr f = random_input(DType::Float32, {1027}, -5, 5, 134);
  NodePtr g = random_input(DType::Float64, {1027}, -5, 5, 135);
  NodePtr mixed = ops::add(ops::add(ops::erf(f), ops::exp(f)), ops::cast(ops::exp(g), DType::Float32));
  BOOST_TEST(check_against_reference({mixed}) == 1u);
  Plan plan = schedule(capture_trace({mixed}).trace, fusion_policy("default"));
  BOOST_TEST_REQUIRE(plan.kernels.size() == 1u);
  std::string ir = cpu::kernel_llvm_ir(plan.kernels[0], /*optimized=*/true, cpu::Tier::Full);
  BOOST_TEST(ir.find("@lt_m_") == std::string::npos, "a math function is left in the mixed kernel");
}

// Short rows with transcendentals fold their remainder into one masked
// vector iteration on AVX-512 hosts (cpu::fold_row_tails()); rows without
// them keep the scalar remainder, which is cheaper there (a max: its order
// does not matter, so its loop is the vectoriser's). Float sums and products
// accumulate in cpu::row_lanes() lanes, the row's last chunk masked: their
// lanes stay in registers (no array left in the optimised kernel). Row
// lengths around the vector width, the lane counts and the short-row limit
// all match the reference.
BOOST_AUTO_TEST_CASE(short_rows_with_transcendentals_fold_their_remainder) {
  for (int64_t inner : {1, 7, 15, 16, 17, 63, 64, 65, 77, 255, 256, 257, 1000}) {
    NodePtr x = random_input(DType::Float32, {9, inner}, -4, 4, 136);
    NodePtr w = random_input(DType::Float32, {inner}, -1, 1, 137);
    NodePtr sm = ops::softmax(x, -1);
    NodePtr ln = ops::layer_norm(ops::gelu(x), {inner}, w, nullptr);
    NodePtr plain = ops::layer_norm(x, {inner}, w, nullptr);
    NodePtr max_exp = ops::amax(ops::exp(x), {-1}, false);
    NodePtr max_plain = ops::amax(x, {-1}, false);
    for (const NodePtr& y : {sm, ln, plain, max_exp, max_plain}) check_against_reference({y});
    if (inner != 77 && inner != 1000) continue;
    auto ir_of = [](const NodePtr& y) {
      Plan plan = schedule(capture_trace({y}).trace, fusion_policy("default"));
      std::string ir;
      for (const Kernel& k : plan.kernels) ir += cpu::kernel_llvm_ir(k, /*optimized=*/true, cpu::Tier::Full);
      return ir;
    };
    auto masked = [&](const NodePtr& y) { return ir_of(y).find("llvm.masked.load") != std::string::npos; };
    // Narrower vectors run a transcendental body's 64 lanes as a loop too
    // long to unroll, the lanes then in memory (cheap beside the body).
    for (const NodePtr& y : {sm, ln, plain}) {
      if (y != plain && cpu::target_vector_bits() < 512) continue;
      BOOST_TEST(ir_of(y).find("alloca [") == std::string::npos,
                 inner << (y == sm ? " softmax" : y == ln ? " layer_norm(gelu)" : " layer_norm"));
    }
    if (inner != 77) continue;
    BOOST_TEST(masked(max_exp) == cpu::fold_row_tails());
    BOOST_TEST(!masked(max_plain));
  }
}

// Flat elementwise kernels run blocks of cpu::kTailBlock elements, the last
// block of a range overlapping the one before (no scalar remainder loop);
// launch_kernel gives them ranges of whole blocks. Sizes around the block,
// serial and parallel launches, integers (bit-exact) and floats, a random op
// (recomputed elements must draw the same numbers), and the kernels that must
// not take the path.
BOOST_AUTO_TEST_CASE(overlapped_tail_blocks_match_reference) {
  const int64_t b = cpu::kTailBlock;
  for (int64_t n : {b, b + 1, 2 * b - 1, 1000 + b, (int64_t{1} << 16) + 17, (int64_t{1} << 20) + 3}) {
    NodePtr f = random_input(DType::Float32, {n}, -3, 3, 121);
    NodePtr i = random_input(DType::Int32, {n}, -1000, 1000, 122);
    NodePtr y = ops::add(ops::mul(ops::gelu(f), ops::scalar(2.0, DType::Float32)), ops::exp(ops::neg(f)));
    NodePtr z = ops::add(ops::mul(i, i), ops::scalar(7, DType::Int32));
    check_against_reference({y});
    check_against_reference({z});
    check_against_reference({ops::add(ops::rand({n}, 5, 0), f)});
    Plan plan = schedule(capture_trace({z}).trace, fusion_policy("default"));
    BOOST_TEST_REQUIRE(plan.kernels.size() == 1u);
    BOOST_TEST(cpu::kernel_overlaps_tail(plan.kernels[0]));
  }
  auto overlaps = [](const NodePtr& p) {
    Plan plan = schedule(capture_trace({p}).trace, fusion_policy("default"));
    return plan.kernels.size() == 1u && cpu::kernel_overlaps_tail(plan.kernels[0]);
  };
  NodePtr small = random_input(DType::Float32, {b - 1}, -3, 3, 123);
  BOOST_TEST(!overlaps(ops::exp(small)));  // shorter than a block: the plain loop
  NodePtr big = random_input(DType::Float32, {int64_t{7} << 20}, -3, 3, 124);
  BOOST_TEST(!overlaps(ops::exp(big)));  // 28 MiB out: streaming stores
  NodePtr m = random_input(DType::Float32, {40, 30}, -3, 3, 125);
  BOOST_TEST(!overlaps(ops::exp(ops::transpose(m, 0, 1))));  // not a flat domain
}

BOOST_AUTO_TEST_CASE(every_fusion_policy_computes_the_same_values) {
  NodePtr x = random_input(DType::Float32, {9, 33}, -4, 4, 81);
  NodePtr w = random_input(DType::Float32, {33}, -1, 1, 82);
  for (std::string p : {"default", "none", "elementwise"}) {
    check_against_reference({ops::softmax(x, -1)}, p);
    check_against_reference({ops::layer_norm(x, {33}, w, nullptr), ops::sum(ops::exp(x))}, p);
  }
}

BOOST_AUTO_TEST_CASE(large_elementwise_program_matches_reference) {
  int64_t n = (int64_t{1} << 24) + 3;
  NodePtr x = random_input(DType::Float32, {n}, -3, 3, 91);
  NodePtr y = ops::add(ops::mul(ops::gelu(ops::add(ops::mul(x, ops::scalar(0.5, DType::Float32)), ops::scalar(1.0, DType::Float32))),
                               ops::sigmoid(x)),
                       ops::mul(x, ops::scalar(0.5, DType::Float32)));
  BOOST_CHECK_EQUAL(check_against_reference({y}), 1u);
}

// Elementwise kernels writing >= 24 MiB use non-temporal stores in a main loop
// that starts at a 64-byte-aligned linear index (jit/cpu/codegen.cpp,
// "Streaming stores"). Rows of 1601 elements put the peel at a different
// place in every row; float64 outputs peel too.
BOOST_AUTO_TEST_CASE(streaming_store_kernels_match_reference) {
  NodePtr x = random_input(DType::Float32, {4099, 1601}, -3, 3, 92);
  NodePtr b = random_input(DType::Float32, {1601}, -1, 1, 93);
  NodePtr y = ops::add(ops::mul(x, x), b);
  BOOST_CHECK_EQUAL(check_against_reference({y}), 1u);
  check_against_reference({ops::cast(ops::sub(x, b), DType::Float64)});
  check_against_reference({ops::tanh(ops::slice(x, 1, 3, 1601, 1))});
}

// The same kernel launched on buffers that are not 64-byte aligned (lt's
// allocator never makes those, a caller of launch_kernel may): the scalar
// loop covers the range and the values are the same.
BOOST_AUTO_TEST_CASE(streaming_store_kernels_accept_unaligned_buffers) {
  int64_t n = (int64_t{6} << 20) + 5;  // 24 MiB + 20 bytes of float32 output
  BufferPtr in = random_buffer(DType::Float32, n, -3, 3, 94);
  NodePtr x = make_input(in, {n});
  NodePtr y = ops::add(ops::mul(x, x), x);
  CapturedTrace ct = capture_trace({y});
  std::vector<BufferPtr> want = evaluate_reference(ct.trace);
  Plan plan = schedule(ct.trace, fusion_policy("default"));
  BOOST_REQUIRE_EQUAL(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  BOOST_REQUIRE_EQUAL(k.buffers.size(), 2u);
  cpu::KernelFn fn = cpu::load_kernel_object(cpu::compile_kernel_object(k));
  // aligned_alloc wants a size that is a multiple of the alignment (ASan's allocator returns null otherwise)
  size_t store_bytes = ((n + 64) * sizeof(float) + 63) & ~size_t{63};
  auto* store = static_cast<float*>(std::aligned_alloc(64, store_bytes));
  BOOST_REQUIRE(store != nullptr);
  const std::vector<double> w = values(want[0]);
  for (int shift : {0, 1, 3, 8}) {
    float* out = store + shift;
    std::fill(out, out + n, -1.0f);
    void* bufs[2];
    bufs[k.buffers[0].written ? 0 : 1] = out;
    bufs[k.buffers[0].written ? 1 : 0] = in->data();
    cpu::launch_kernel(k, fn, bufs, nullptr);
    size_t bad = 0;
    for (int64_t i = 0; i < n; ++i)
      if (std::fabs(out[i] - w[i]) > 2e-5 * std::max(1.0, std::fabs(w[i]))) ++bad;
    BOOST_CHECK_MESSAGE(bad == 0, "shift " << shift << ": " << bad << " values differ");
  }
  std::free(store);
}

BOOST_AUTO_TEST_CASE(a_failed_kernel_load_is_undone_and_the_kernels_still_load) {
  // An object that does not define the symbol it is loaded for (as a corrupt
  // cache entry or a JIT out of mappings would fail): the load raises a clear
  // error and is removed again, so neither kernel is left half-defined.
  auto kernel_of = [](NodePtr y) {
    Plan plan = schedule(capture_trace({y}).trace, fusion_policy("default"));
    BOOST_REQUIRE_EQUAL(plan.kernels.size(), 1u);
    return plan.kernels[0];
  };
  BufferPtr in = random_buffer(DType::Float32, 13, -3, 3, 95);
  NodePtr x = make_input(in, {13});
  Kernel ka = kernel_of(ops::add(ops::mul(x, x), x));
  Kernel kb = kernel_of(ops::sub(x, ops::mul(x, ops::mul(x, x))));
  cpu::ObjectCode a = cpu::compile_kernel_object(ka), b = cpu::compile_kernel_object(kb);
  BOOST_REQUIRE(a.symbol != b.symbol);
  cpu::ObjectCode forged{a.symbol, b.bytes};
  std::string e;
  try {
    cpu::load_kernel_entry(forged);
  } catch (const Error& err) {
    e = err.what();
  }
  BOOST_TEST(e.find("cpu jit: cannot link kernel " + a.symbol) != std::string::npos, e);
  BOOST_TEST(e.find("kernel objects loaded") != std::string::npos, e);
  cpu::KernelFn fb = cpu::load_kernel_object(b);  // b's symbol was not left defined by the forged load
  cpu::KernelFn fa = cpu::load_kernel_object(a);
  BOOST_REQUIRE(fa && fb && fa != fb);
  for (auto [k, fn, c] : {std::tuple{&ka, fa, 0}, std::tuple{&kb, fb, 1}}) {
    std::vector<float> out(13, -1.0f);
    void* bufs[2];
    bufs[k->buffers[0].written ? 0 : 1] = out.data();
    bufs[k->buffers[0].written ? 1 : 0] = in->data();
    cpu::launch_kernel(*k, fn, bufs, nullptr);
    for (int i = 0; i < 13; ++i) {
      float v = in->as<float>()[i];
      BOOST_TEST(out[i] == (c == 0 ? v * v + v : v - v * v * v), boost::test_tools::tolerance(1e-5f));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_kernel_object_nobody_holds_is_unloaded_and_can_be_loaded_again) {
  BufferPtr in = random_buffer(DType::Float32, 11, -3, 3, 96);
  NodePtr x = make_input(in, {11});
  Plan plan = schedule(capture_trace({ops::mul(ops::add(x, x), ops::sub(x, ops::exp(x)))}).trace, fusion_policy("default"));
  BOOST_REQUIRE_EQUAL(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  cpu::ObjectCode obj = cpu::compile_kernel_object(k);
  int64_t unloaded = counter_value("jit_objects_unloaded");
  size_t before = cpu::loaded_kernel_objects();
  cpu::KernelEntry a = cpu::load_kernel_entry(obj);
  cpu::KernelEntry b = cpu::load_kernel_entry(obj);  // still held: the same loaded code
  BOOST_TEST(a.fn == b.fn);
  BOOST_TEST(cpu::loaded_kernel_objects() == before + 1);
  a = cpu::KernelEntry();
  BOOST_TEST(cpu::loaded_kernel_objects() == before + 1);  // b still holds it
  b = cpu::KernelEntry();
  BOOST_TEST(cpu::loaded_kernel_objects() == before);
  BOOST_TEST(counter_value("jit_objects_unloaded") - unloaded == 1);
  cpu::KernelEntry c = cpu::load_kernel_entry(obj);  // its symbol is free to define again
  BOOST_REQUIRE(c.fn);
  std::vector<float> out(11, -1.0f);
  void* bufs[2];
  bufs[k.buffers[0].written ? 0 : 1] = out.data();
  bufs[k.buffers[0].written ? 1 : 0] = in->data();
  cpu::launch_kernel(k, c, bufs, nullptr);
  for (int i = 0; i < 11; ++i) {
    float v = in->as<float>()[i];
    BOOST_TEST(out[i] == (v + v) * (v - std::exp(v)), boost::test_tools::tolerance(1e-5f));
  }
}

BOOST_AUTO_TEST_CASE(the_precompiled_philox_variants_give_the_reference_words_in_every_lane) {
  // Kernels call lt_philox_word and its vector variants (jit/cpu/random.h)
  // instead of emitting Philox's rounds; each lane must be the reference's
  // word, including blocks whose counters cross a multiple of 2^32.
  const uint64_t seeds[] = {0, 1, 0x123456789abcdefull, ~0ull};
  const uint64_t counters[] = {0, 7, 1000003, 0xfffffff0ull, 0xfffffffdull, 0x1fffffffeull, ~0ull - 20};
  std::vector<std::pair<int, std::string>> variants = cpu::philox_vector_variants();
  BOOST_TEST_MESSAGE("philox variants on this host: " << variants.size());
  for (uint64_t seed : seeds)
    for (uint64_t counter : counters)
      for (uint32_t word = 0; word < 4; ++word) {
        for (uint64_t i = 0; i < 16; ++i) {
          uint32_t want[4];
          philox4x32(seed, counter + i, want);
          BOOST_TEST(cpu::lt_philox_word(seed, counter + i, word) == want[word]);
        }
        for (const auto& [lanes, name] : variants) {
          uint32_t got[16];
          cpu::philox_words_via_variant(lanes, seed, counter, word, got);
          for (int i = 0; i < lanes; ++i) {
            uint32_t want[4];
            philox4x32(seed, counter + static_cast<uint64_t>(i), want);
            BOOST_TEST(got[i] == want[word], name << " lane " << i << " seed " << seed << " counter " << counter);
          }
        }
      }
}

BOOST_AUTO_TEST_CASE(a_random_kernel_calls_the_vector_philox_and_matches_the_reference) {
  if (cpu::philox_vector_variants().empty()) return;  // not x86-64: the rounds are inline
  NodePtr r = ops::rand({4099}, 77, 5, DType::Float32);
  NodePtr y = ops::add(ops::mul(r, ops::scalar(2.0, DType::Float32)), ops::randn({4099}, 78, 0, DType::Float32));
  Plan plan = schedule(capture_trace({y}).trace, fusion_policy("default"));
  BOOST_REQUIRE_EQUAL(plan.kernels.size(), 1u);
  std::string ir = cpu::kernel_llvm_ir(plan.kernels[0]);
  bool vector_call = ir.find("call <8 x i32> @lt_philox_word_n8") != std::string::npos ||
                     ir.find("call <16 x i32> @lt_philox_word_n16") != std::string::npos ||
                     ir.find("call <4 x i32> @lt_philox_word_n4") != std::string::npos;
  BOOST_TEST(vector_call, "the vectorised loop should call a vector variant");
  check_against_reference({y});
}

BOOST_AUTO_TEST_CASE(kernels_compiled_on_several_threads_at_once_are_the_ones_compiled_alone) {
  // Each thread optimises and emits with its own TargetMachine; a race there
  // would show as different (or broken) objects. No speedup is asserted.
  BufferPtr in = random_buffer(DType::Float32, 4 * 37, -2, 2, 97);
  NodePtr x = make_input(in, {4, 37});
  std::vector<NodePtr> programs = {
      ops::exp(ops::mul(x, x)),        ops::softmax(x, -1),          ops::tanh(ops::add(x, ops::erf(x))),
      ops::sum(ops::sin(x), {1}, false), ops::log1p(ops::abs(x)),    ops::layer_norm(x, {37}, nullptr, nullptr),
      ops::rand({4, 37}, 5, 0, DType::Float32)};
  std::vector<Kernel> kernels;
  for (const NodePtr& p : programs)
    for (const Kernel& k : schedule(capture_trace({p}).trace, fusion_policy("default")).kernels) kernels.push_back(k);
  std::vector<std::string> alone;
  for (const Kernel& k : kernels) alone.push_back(cpu::compile_kernel_object(k).bytes);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::string> together(kernels.size());
    cpu::compile_in_parallel(kernels.size(), [&](size_t i) { together[i] = cpu::compile_kernel_object(kernels[i]).bytes; });
    std::vector<std::thread> threads;  // and on plain threads, all at once
    std::vector<std::string> raw(kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i)
      threads.emplace_back([&, i] { raw[i] = cpu::compile_kernel_object(kernels[i]).bytes; });
    for (std::thread& t : threads) t.join();
    for (size_t i = 0; i < kernels.size(); ++i) {
      BOOST_TEST(together[i] == alone[i], "kernel " << kernels[i].name << " (compile_in_parallel)");
      BOOST_TEST(raw[i] == alone[i], "kernel " << kernels[i].name << " (threads)");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_matmul_kernel_loaded_where_another_was_unloaded_runs_as_itself) {
  // After an unload the JIT may map the next object at the same address, so
  // a new matmul kernel's entry can equal the old one's: whatever the
  // launcher cached for that address must not be used for it.
  struct Case {
    int64_t m, k, n;
    BufferPtr a, b;
    Plan plan;
    cpu::ObjectCode obj;
  };
  auto make = [](int64_t m, int64_t k, int64_t n) {
    Case c{m, k, n, random_buffer(DType::Float32, m * k, -1, 1, static_cast<uint32_t>(m)),
           random_buffer(DType::Float32, k * n, -1, 1, static_cast<uint32_t>(n)), Plan(), {}};
    CapturedTrace ct = capture_trace({ops::matmul(make_input(c.a, {m, k}), make_input(c.b, {k, n}))});
    c.plan = schedule(ct.trace, fusion_policy("default"));
    BOOST_REQUIRE_EQUAL(c.plan.kernels.size(), 1u);
    BOOST_REQUIRE(c.plan.kernels[0].kind == KernelKind::MatMul);
    c.obj = cpu::compile_kernel_object(c.plan.kernels[0]);
    return c;
  };
  auto run = [](const Case& c, const cpu::KernelEntry& e) {  // wrong elements
    const Kernel& k = c.plan.kernels[0];
    std::vector<BufferPtr> bound(c.plan.buffers.size());
    BufferPtr out;
    for (size_t i = 0; i < c.plan.buffers.size(); ++i) {
      const PlanBuffer& pb = c.plan.buffers[i];
      if (pb.role == PlanBuffer::Role::Param) bound[i] = pb.index == 0 ? c.a : c.b;
      else bound[i] = make_buffer(pb.dtype, std::max<int64_t>(pb.numel, 1));
      if (pb.role == PlanBuffer::Role::Output) out = bound[i];
    }
    std::vector<void*> ptrs;
    for (const KernelBuffer& kb : k.buffers) ptrs.push_back(kb.plan_buffer >= 0 ? bound[kb.plan_buffer]->data() : nullptr);
    cpu::launch_kernel(k, e, ptrs.data(), nullptr);
    int bad = 0;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double s = 0;
        for (int64_t r = 0; r < c.k; ++r) s += double(c.a->as<float>()[i * c.k + r]) * double(c.b->as<float>()[r * c.n + j]);
        bad += std::abs(out->as<float>()[i * c.n + j] - s) > 1e-4 * (1 + std::abs(s));
      }
    return bad;
  };
  Case c1 = make(6, 5, 7), c2 = make(9, 4, 3);
  int reused = 0;
  for (int round = 0; round < 12; ++round) {
    cpu::KernelFn f1;
    {
      cpu::KernelEntry e1 = cpu::load_kernel_entry(c1.obj);
      f1 = e1.fn;
      BOOST_TEST(run(c1, e1) == 0);
    }  // unloaded here
    cpu::KernelEntry e2 = cpu::load_kernel_entry(c2.obj);
    reused += e2.fn == f1;
    BOOST_TEST(run(c2, e2) == 0);
  }
  BOOST_TEST_MESSAGE("the second kernel was loaded at the first one's address in " << reused << " of 12 rounds");
}

// Rows of a few elements (a max pool's window) with max/min/argmax/argmin
// run as one elementwise kernel, the row unrolled (scheduler/short_rows.cpp):
// the same values as the reference, ties (the first index), NaN (the first
// NaN wins), infinities and signed zeros included; a row of 10 stays a Rows
// kernel.
BOOST_AUTO_TEST_CASE(short_rows_of_max_and_argmax_unroll_into_elementwise_kernels) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::BFloat16})
    for (int64_t L : {2, 3, 4, 9, 10}) {
      const int64_t rows = 37;
      std::mt19937 gen(static_cast<uint32_t>(L * 7 + static_cast<int>(dt)));
      std::uniform_int_distribution<int> pick(-2, 2), special(0, 11);
      std::vector<double> v(static_cast<size_t>(rows * L));
      for (double& e : v) {
        e = pick(gen);  // few distinct values: ties in most rows
        if (dt == DType::Int32) continue;
        switch (special(gen)) {
          case 0: e = nan; break;
          case 1: e = -inf; break;
          case 2: e = inf; break;
          case 3: e = -0.0; break;
          default: break;
        }
      }
      NodePtr x = make_input(buffer_of(dt, v), {rows, L});
      std::vector<NodePtr> roots = {ops::argmax(x, 1), ops::argmin(x, 1), ops::amax(x, {1}), ops::amin(x, {1})};
      BOOST_TEST_CONTEXT(dtype_name(dt) << " rows of " << L) {
        check_against_reference(roots);
        CapturedTrace ct = capture_trace({ops::argmax(x, 1)});
        std::shared_ptr<const Plan> plan = cpu_plan_for(ct.trace);
        BOOST_TEST_REQUIRE(plan->kernels.size() == 1u);
        BOOST_TEST((plan->kernels[0].kind == (L <= 9 ? KernelKind::Elementwise : KernelKind::Rows)));
      }
    }
}

// x.gather(1, x.argmax(1, keepdim)) (a max pool's values) is simplified into
// x.amax(1, keepdim): no Gather is left, and the values are those of the
// gather, NaN and ties included.
BOOST_AUTO_TEST_CASE(gathering_at_the_argmax_is_the_max) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v;
  for (int i = 0; i < 40 * 6; ++i) v.push_back(i % 7 == 3 ? nan : static_cast<double>((i * 5) % 4));
  NodePtr x = make_input(buffer_of(DType::Float32, v), {40, 6});
  for (bool is_max : {true, false}) {
    NodePtr arg = is_max ? ops::argmax(x, 1, true) : ops::argmin(x, 1, true);
    NodePtr y = ops::gather(x, 1, arg);
    check_against_reference({y});
    CapturedTrace ct = capture_trace({y});
    std::shared_ptr<const Plan> plan = cpu_plan_for(ct.trace);
    bool gathers = false, reduces = false;
    for (const TraceNode& n : plan->simplified.nodes) {
      gathers = gathers || n.op == Op::Gather;
      reduces = reduces || n.op == (is_max ? Op::ReduceMax : Op::ReduceMin);
    }
    BOOST_TEST(!gathers);
    BOOST_TEST(reduces);
  }
}

// An elementwise kernel with per-channel float arithmetic (a BatchNorm's
// apply: rstd = 1 / sqrt(var + eps) per channel) runs as a Rows kernel over
// [N, C] whose per-channel values are row-level (scheduler/row_invariants.cpp),
// with the reference's values; a plain elementwise kernel stays one, and so
// does one of too few rows.
BOOST_AUTO_TEST_CASE(per_channel_arithmetic_of_an_elementwise_kernel_runs_once_per_row) {
  NodePtr x = random_input(DType::Float32, {8, 6, 9, 10}, -2, 2, 501);  // 48 rows of 90
  NodePtr mean = random_input(DType::Float32, {1, 6, 1, 1}, -1, 1, 502);
  NodePtr var = random_input(DType::Float32, {1, 6, 1, 1}, 0.1, 2, 503);
  NodePtr gamma = random_input(DType::Float32, {1, 6, 1, 1}, 0.5, 1.5, 504);
  NodePtr rstd = ops::div(ops::scalar(1.0, DType::Float32), ops::sqrt(ops::add(var, ops::scalar(1e-5, DType::Float32))));
  NodePtr y = ops::relu(ops::mul(ops::mul(ops::sub(x, mean), rstd), gamma));
  check_against_reference({y});
  CapturedTrace ct = capture_trace({y});
  std::shared_ptr<const Plan> plan = cpu_plan_for(ct.trace);
  BOOST_TEST_REQUIRE(plan->kernels.size() == 1u);
  const Kernel& k = plan->kernels[0];
  BOOST_TEST((k.kind == KernelKind::Rows));
  BOOST_TEST(k.outer_rank == 2);
  int row_level_float = 0;
  for (const KOp& o : k.ops) row_level_float += !o.elem && o.code == KOpCode::Compute && is_floating(o.dtype);
  BOOST_TEST(row_level_float >= 2);  // the sqrt and the division at least
  CapturedTrace plain = capture_trace({ops::relu(ops::mul(x, ops::scalar(2.0, DType::Float32)))});
  BOOST_TEST((cpu_plan_for(plain.trace)->kernels[0].kind == KernelKind::Elementwise));
  // Too few rows to spread over the threads (a launch does not split a row): elementwise.
  NodePtr few = ops::mul(ops::sub(ops::slice(x, 0, 0, 2), mean), rstd);
  check_against_reference({few});
  CapturedTrace few_rows = capture_trace({few});
  BOOST_TEST((cpu_plan_for(few_rows.trace)->kernels[0].kind == KernelKind::Elementwise));
}
