// jit/cuda/allocator.cpp — size-bucketed free lists of device blocks.
#include "jit/cuda/allocator.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace lt::cuda {
namespace {

size_t rounded(size_t bytes) {
  bytes = std::max<size_t>(bytes, 256);
  constexpr size_t kSmall = 512, kLarge = size_t{2} << 20;
  size_t step = bytes <= (size_t{1} << 20) ? kSmall : kLarge;
  return (bytes + step - 1) / step * step;
}

struct Cache {
  std::mutex mu;
  std::map<size_t, std::vector<DevicePtr>> free;
  DeviceAllocatorStats stats;

  void release_locked() {
    for (auto& [size, ptrs] : free)
      for (DevicePtr p : ptrs) raw_free(p);
    free.clear();
    stats.bytes_cached = 0;
  }
};

Cache& cache() {
  static Cache* c = new Cache();
  return *c;
}

}  // namespace

DevicePtr device_alloc(size_t bytes) {
  require_device();
  size_t size = rounded(bytes);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  ++c.stats.allocations;
  auto it = c.free.find(size);
  DevicePtr p = 0;
  if (it != c.free.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    c.stats.bytes_cached -= static_cast<int64_t>(size);
    ++c.stats.cache_hits;
  } else if (!try_raw_alloc(size, &p)) {
    c.release_locked();
    p = raw_alloc(size);
  }
  c.stats.bytes_in_use += static_cast<int64_t>(size);
  c.stats.peak_bytes_in_use = std::max(c.stats.peak_bytes_in_use, c.stats.bytes_in_use);
  return p;
}

void device_free(DevicePtr ptr, size_t bytes) {
  size_t size = rounded(bytes);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.free[size].push_back(ptr);
  c.stats.bytes_in_use -= static_cast<int64_t>(size);
  c.stats.bytes_cached += static_cast<int64_t>(size);
}

DeviceAllocatorStats device_allocator_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.stats;
}

void device_release_cached() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.free.empty()) return;
  c.release_locked();
}

}  // namespace lt::cuda
