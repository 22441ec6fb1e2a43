// Accuracy of the JIT's polynomial transcendentals (jit/cpu/math.cpp): the
// maximum relative error against the reference evaluator (double libm,
// rounded to the dtype) over dense sweeps. Bounds are in docs/cpu-jit.md.
#define BOOST_TEST_MODULE cpu_math
#include "jit_test_util.h"

using namespace lt;
using namespace lt::test;

namespace {
double max_rel_error(NodePtr (*f)(const NodePtr&), DType d, double lo, double hi) {
  const int64_t n = 200001;
  std::vector<double> xs(n);
  for (int64_t i = 0; i < n; ++i) xs[i] = lo + (hi - lo) * static_cast<double>(i) / (n - 1);
  CapturedTrace ct = capture_trace({f(input(d, {n}, xs))});
  auto want = values(evaluate_reference(ct.trace)[0]);
  auto got = values(run_cpu(ct.trace)[0]);
  double worst = 0;
  double tiny = d == DType::Float32 ? 1e-30 : 1e-300;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    double e = std::fabs(got[i] - want[i]) / std::max(std::fabs(want[i]), tiny);
    worst = std::max(worst, e);
  }
  return worst;
}
}  // namespace

BOOST_AUTO_TEST_CASE(transcendentals_stay_within_documented_relative_error) {
  struct F {
    const char* name;
    NodePtr (*f)(const NodePtr&);
    double lo, hi, bound32, bound64;
  };
  F fs[] = {{"exp", ops::exp, -80, 80, 4e-7, 1e-15},       {"log", ops::log, 1e-30, 1e30, 4e-7, 1e-15},
            {"log1p", ops::log1p, -0.99, 100, 4e-7, 1e-15}, {"expm1", ops::expm1, -10, 10, 4e-7, 1e-15},
            {"tanh", ops::tanh, -10, 10, 4e-7, 1e-15},      {"erf", ops::erf, -6, 6, 4e-7, 1e-15},
            {"sin", ops::sin, -100, 100, 4e-7, 1e-15},      {"cos", ops::cos, -100, 100, 4e-7, 1e-15}};
  for (const F& f : fs)
    for (DType d : {DType::Float32, DType::Float64}) {
      double e = max_rel_error(f.f, d, f.lo, f.hi);
      std::printf("%-6s %s max relative error %.3g\n", f.name, d == DType::Float32 ? "f32" : "f64", e);
      BOOST_CHECK_MESSAGE(e <= (d == DType::Float32 ? f.bound32 : f.bound64), f.name << " " << dtype_name(d) << " error " << e);
    }
}

BOOST_AUTO_TEST_CASE(signed_zeros_and_specials_come_out_as_libm_gives_them) {
  // sin(-0) is -0 (IEEE, libm, torch): 1/sin(x) then has the right infinity.
  // The polynomial path's range reduction used to give +0.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> xs = {-0.0, 0.0, -1e-300, 1e-300, -inf, inf, nan};
  for (DType d : {DType::Float32, DType::Float64})
    for (NodePtr (*f)(const NodePtr&) : {ops::sin, ops::cos, ops::tanh, ops::erf, ops::expm1, ops::log1p}) {
      CapturedTrace ct = capture_trace({f(input(d, {static_cast<int64_t>(xs.size())}, xs))});
      auto want = values(evaluate_reference(ct.trace)[0]);
      auto got = values(run_cpu(ct.trace)[0]);
      for (size_t i = 0; i < xs.size(); ++i) {
        bool same = (std::isnan(want[i]) && std::isnan(got[i])) ||
                    (got[i] == want[i] && std::signbit(got[i]) == std::signbit(want[i]));
        BOOST_CHECK_MESSAGE(same, dtype_name(d) << " f(" << xs[i] << "): got " << got[i] << ", want " << want[i]);
      }
    }
}

// The same inputs, and subnormals, range ends and the split points of the
// AVX-512 forms (log's mantissa at 0.75 and 1.5, erf's clamp), repeated to
// 16 x 5 + 3 elements so that the vectorised loop computes them as well as
// the scalar remainder: specials must come out as the reference gives them
// (NaN, infinities, signed zeros) and the rest within the sweep bounds.
BOOST_AUTO_TEST_CASE(specials_and_subnormals_on_the_vector_path) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> base = {-0.0, 0.0,  1e-40,  -1e-40, 1e-310, 1.17549435e-38, 2.2250738585072014e-308,
                                    0.75, 1.5,  1.4999999, 0.7499999, 2.0, 3.99,  4.5,   -3.99, 88.7,   -103.5,
                                    709.0, -745.0, 1e30, -1e30, inf, -inf, nan, -1.0, 1.0};
  std::vector<double> xs;
  while (xs.size() < 83) xs.insert(xs.end(), base.begin(), base.end());
  xs.resize(83);
  for (DType d : {DType::Float32, DType::Float64})
    for (NodePtr (*f)(const NodePtr&) :
         {ops::exp, ops::log, ops::log1p, ops::expm1, ops::tanh, ops::erf, ops::sin, ops::cos}) {
      CapturedTrace ct = capture_trace({f(input(d, {static_cast<int64_t>(xs.size())}, xs))});
      auto want = values(evaluate_reference(ct.trace)[0]);
      auto got = values(run_cpu(ct.trace)[0]);
      double bound = d == DType::Float32 ? 4e-7 : 1e-15;
      int reported = 0;
      for (size_t i = 0; i < xs.size() && reported < 3; ++i) {
        bool ok;
        if (std::isnan(want[i]) || std::isinf(want[i]) || want[i] == 0)
          ok = (std::isnan(want[i]) && std::isnan(got[i])) ||
               (got[i] == want[i] && std::signbit(got[i]) == std::signbit(want[i]));
        else  // subnormal results: absolute error of a subnormal ulp
          ok = std::fabs(got[i] - want[i]) <=
               std::max(bound * std::fabs(want[i]), d == DType::Float32 ? 1.5e-45 : 5e-324);
        BOOST_CHECK_MESSAGE(ok, dtype_name(d) << " " << op_name(ct.trace.nodes[ct.trace.outputs[0]].op) << " element " << i << " f(" << xs[i]
                                              << "): got " << got[i] << ", want " << want[i]);
        reported += !ok;
      }
    }
}

// sin/cos far from 0: the polynomial path up to 2^28 (two-part pi/2
// reduction), libm beyond (math.cpp, trig_large_arguments). Relative error
// where |sin| >= 1e-3 (near its zeros the reference itself is the rounding
// of a tiny value), both sides of the switch, both types.
BOOST_AUTO_TEST_CASE(sin_and_cos_of_large_arguments_stay_accurate) {
  const int64_t n = 20001;
  for (auto [lo, hi] : {std::pair{1e3, 268435455.0}, std::pair{268435456.0, 1e15}}) {
    std::vector<double> xs(n);
    for (int64_t i = 0; i < n; ++i) xs[i] = (i % 2 ? -1 : 1) * lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
    for (DType d : {DType::Float32, DType::Float64})
      for (NodePtr (*f)(const NodePtr&) : {ops::sin, ops::cos}) {
        CapturedTrace ct = capture_trace({f(input(d, {n}, xs))});
        auto want = values(evaluate_reference(ct.trace)[0]);
        auto got = values(run_cpu(ct.trace)[0]);
        double worst = 0;
        for (int64_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(got[i] - want[i]) / std::max(std::fabs(want[i]), 1e-3));
        BOOST_TEST_MESSAGE(dtype_name(d) << " [" << lo << ", " << hi << "] worst " << worst);
        BOOST_CHECK_MESSAGE(worst <= (d == DType::Float32 ? 4e-7 : 1e-15),
                            dtype_name(d) << " on [" << lo << ", " << hi << "]: relative error " << worst);
      }
  }
}

// Vector lanes and scalars compute the same values: 256 elements run
// vectorised, each of them alone (one element: a scalar loop) must match.
// log1p once differed (its log took the AVX-512 form in vectors and the
// generic one in scalars).
BOOST_AUTO_TEST_CASE(vector_lanes_and_scalars_agree) {
  const int n = 256;
  for (auto [lo, hi] : {std::pair{-0.9, 60.0}, std::pair{0.001, 60.0}}) {
    std::vector<double> xs(n);
    for (int i = 0; i < n; ++i) xs[i] = lo + (hi - lo) * ((i * 37) % n) / n;
    for (DType d : {DType::Float32, DType::Float64})
      for (NodePtr (*f)(const NodePtr&) :
           {ops::exp, ops::log, ops::log1p, ops::expm1, ops::tanh, ops::erf, ops::sin, ops::cos}) {
        if (f == ops::log && lo < 0) continue;
        auto vec = values(run_cpu(capture_trace({f(input(d, {n}, xs))}).trace)[0]);
        int differ = 0;
        for (int i = 0; i < n; ++i) {
          double one = values(run_cpu(capture_trace({f(input(d, {1}, {xs[i]}))}).trace)[0])[0];
          differ += !(one == vec[i] || (std::isnan(one) && std::isnan(vec[i])));
        }
        BOOST_CHECK_MESSAGE(differ == 0, dtype_name(d) << " " << op_name(capture_trace({f(input(d, {1}, {1.0}))}).trace.nodes.back().op)
                                                       << ": " << differ << " of " << n << " differ");
      }
  }
}
