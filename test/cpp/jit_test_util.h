// Helpers for the CPU JIT tests: random inputs, running a trace on the cpu
// backend and on the reference evaluator, and comparing the two.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "cache/cpu_backend.h"
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

/// Compares cpu against the reference for every output; returns the plan's kernel count.
inline size_t check_against_reference(const std::vector<NodePtr>& roots, const std::string& policy = "",
                                      double rtol_scale = 1.0) {
  CapturedTrace ct = capture_trace(roots);
  std::vector<BufferPtr> want = evaluate_reference(ct.trace);
  std::vector<BufferPtr> got = run_cpu(ct.trace, policy);
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
    double rtol = rtol_for(d) * rtol_scale;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::isnan(w[i]) && std::isnan(g[i])) continue;
      if (w[i] == g[i]) continue;
      double err = std::fabs(w[i] - g[i]);
      if (err <= rtol * std::max(1.0, std::fabs(w[i]))) continue;
      if (!bad++) first = i;
    }
    BOOST_CHECK_MESSAGE(bad == 0, "output " << o << " (" << dtype_name(d) << "): " << bad << " of " << w.size()
                                            << " differ; first at " << first << ": want " << w[first] << " got "
                                            << g[first]);
  }
  return cpu_plan_for(ct.trace, RunOptions{policy})->kernels.size();
}

inline size_t kernel_count(const std::vector<NodePtr>& roots, const std::string& policy = "") {
  CapturedTrace ct = capture_trace(roots);
  return schedule(ct.trace, fusion_policy(policy)).kernels.size();
}

}  // namespace lt::test
