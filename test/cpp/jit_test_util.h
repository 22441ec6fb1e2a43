// Helpers for the CPU JIT tests: random inputs, running a trace on the cpu
// backend and on the reference evaluator, and comparing the two.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "runtime/cpu_backend.h"
#include "jit/cpu/jit.h"
#include "eval_test_util.h"
#include "ir/builder.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "scheduler/plan.h"

namespace lt::test {

/// Float tolerance of the JIT against the reference (docs/cpu-jit.md): float32
/// results may differ by a few ulp (polynomial transcendentals, FMA, float
/// accumulation in matmul/scatter); float64 by ~1e-13 relative.
inline double rtol_for(DType d) { return d == DType::Float32 ? 2e-5 : 1e-12; }

inline BufferPtr random_buffer(DType dtype, int64_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = dtype == DType::Float32 || dtype == DType::Float64 ? u(gen) : std::floor(u(gen));
  return buffer_of(dtype, v);
}

inline NodePtr random_input(DType dtype, Shape shape, double lo = -3, double hi = 3, uint32_t seed = 1) {
  BufferPtr b = random_buffer(dtype, shape_numel(shape), lo, hi, seed);
  return make_input(std::move(b), std::move(shape));
}

inline std::vector<BufferPtr> run_cpu(const Trace& t, const std::string& policy = "") {
  RunOptions o;
  o.fusion = policy;
  return cpu_backend().run(t, o);
}

/// How far a floating output may be from the reference: |want - got| <=
/// atol + rtol * max(floor, |want|).
struct Tolerance {
  double atol = 0, rtol = 0, floor = 0;
};

/// Checks every output of `got` against `want` (same dtypes and sizes):
/// integer and bool outputs bit-exact, floating ones within tol(dtype); NaN
/// matches NaN.
inline void check_outputs(const std::vector<BufferPtr>& want, const std::vector<BufferPtr>& got,
                          const std::function<Tolerance(DType)>& tol) {
  BOOST_REQUIRE_EQUAL(want.size(), got.size());
  for (size_t o = 0; o < want.size(); ++o) {
    BOOST_REQUIRE(want[o]->dtype() == got[o]->dtype());
    BOOST_REQUIRE_EQUAL(want[o]->numel(), got[o]->numel());
    DType d = want[o]->dtype();
    if (!is_floating(d)) {
      bool eq = std::memcmp(want[o]->data(), got[o]->data(), want[o]->nbytes()) == 0;
      BOOST_CHECK_MESSAGE(eq, "output " << o << " (" << dtype_name(d) << ") differs bit-wise");
      if (!eq) {
        auto w = ints(want[o]), g = ints(got[o]);
        for (size_t i = 0; i < w.size(); ++i)
          if (w[i] != g[i]) {
            BOOST_TEST_MESSAGE("first difference at " << i << ": want " << w[i] << " got " << g[i]);
            break;
          }
      }
      continue;
    }
    auto w = values(want[o]), g = values(got[o]);
    const Tolerance t = tol(d);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::isnan(w[i]) && std::isnan(g[i])) continue;
      if (w[i] == g[i]) continue;
      if (std::fabs(w[i] - g[i]) <= t.atol + t.rtol * std::max(t.floor, std::fabs(w[i]))) continue;
      if (!bad++) first = i;
    }
    if (bad)  // (w may be empty: w[first] only when something differs)
      BOOST_ERROR("output " << o << " (" << dtype_name(d) << "): " << bad << " of " << w.size() << " differ; first at "
                            << first << ": want " << w[first] << " got " << g[first] << " (atol " << t.atol
                            << ", rtol " << t.rtol << ")");
  }
}

/// Compares cpu against the reference for every output; returns the plan's kernel count.
inline size_t check_against_reference(const std::vector<NodePtr>& roots, const std::string& policy = "",
                                      double rtol_scale = 1.0) {
  CapturedTrace ct = capture_trace(roots);
  check_outputs(evaluate_reference(ct.trace), run_cpu(ct.trace, policy),
                [&](DType d) { return Tolerance{0, rtol_for(d) * rtol_scale, 1}; });
  return cpu_plan_for(ct.trace, RunOptions{policy})->kernels.size();
}

inline size_t kernel_count(const std::vector<NodePtr>& roots, const std::string& policy = "") {
  CapturedTrace ct = capture_trace(roots);
  return schedule(ct.trace, fusion_policy(policy)).kernels.size();
}

}  // namespace lt::test
