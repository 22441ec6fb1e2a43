// cache/trace_cache.cpp — the trace-cache capacity knob (LT_TRACE_CACHE_MAX).
#include "cache/trace_cache.h"

#include <atomic>
#include <cstdlib>

#include "ir/error.h"

namespace lt {

namespace counters {
Counter trace_cache_evictions("trace_cache_evictions");
}

namespace {

size_t capacity_from_env() {
  const char* e = std::getenv("LT_TRACE_CACHE_MAX");
  if (!e || !*e) return 1024;
  char* end = nullptr;
  long long n = std::strtoll(e, &end, 10);
  if (end == e || *end != '\0' || n < 0)
    fail(ErrorKind::Value, "LT_TRACE_CACHE_MAX must be a count of traces (0 for no cap), got \"", e, "\"");
  return static_cast<size_t>(n);
}

std::atomic<size_t>& capacity() {
  static std::atomic<size_t> c{capacity_from_env()};
  return c;
}

}  // namespace

size_t trace_cache_capacity() { return capacity().load(std::memory_order_relaxed); }

void set_trace_cache_capacity(size_t n) { capacity().store(n, std::memory_order_relaxed); }

}  // namespace lt
