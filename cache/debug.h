// cache/debug.h — LT_DEBUG level and timing helpers shared by the kernel cache
// and the backends' executors (runtime/).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/trace.h"
#include "trace/recompile_reasons.h"

namespace lt::cache_debug {

using Clock = std::chrono::steady_clock;

inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// LT_DEBUG, read once per process (docs/cpu-jit.md lists what each level prints).
inline int debug_level() {
  static const int level = [] {
    const char* e = std::getenv("LT_DEBUG");
    return e ? std::atoi(e) : 0;
  }();
  return level;
}

/// Says why `trace` missed the trace cache (trace/recompile_reasons.h): the
/// reason goes to recompile_reasons() and, under LT_DEBUG>=1, to stderr as
/// one line before the miss's sync line. Called on a miss only.
inline void explain_miss(RecompileExplainer& explainer, const Trace& trace, std::string_view policy) {
  std::string reason = explainer.explain_miss(trace, policy);
  if (debug_level() >= 1) std::fprintf(stderr, "[lt] %s\n", reason.c_str());
}

}  // namespace lt::cache_debug
