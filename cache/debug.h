// cache/debug.h — LT_DEBUG level and timing helpers shared by the kernel cache
// and the backends' executors (runtime/).
#pragma once

#include <chrono>
#include <cstdlib>

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

}  // namespace lt::cache_debug
