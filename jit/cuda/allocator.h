// jit/cuda/allocator.h — a caching device allocator over cuMemAlloc.
//
// cuMemAlloc/cuMemFree synchronise the device and cost tens of microseconds,
// so freed blocks go to free lists keyed by their rounded size (512 B steps
// up to 1 MiB, 2 MiB steps above) and are handed out again. All work runs on
// one stream, so a block freed after queueing work that uses it can be reused
// by work queued later without waiting. When cuMemAlloc fails the cache is
// released and the allocation retried once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "jit/cuda/driver.h"

namespace lt::cuda {

struct DeviceAllocatorStats {
  int64_t bytes_in_use = 0;
  int64_t bytes_cached = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t allocations = 0;  ///< device_alloc calls
  int64_t cache_hits = 0;   ///< of those, served from a free list
};

/// A block of at least `bytes` (never 0: empty requests get a small block).
DevicePtr device_alloc(size_t bytes);
/// Returns a block from device_alloc(bytes) (same `bytes`) to the cache.
void device_free(DevicePtr ptr, size_t bytes);
DeviceAllocatorStats device_allocator_stats();
/// Frees every cached block.
void device_release_cached();

/// RAII owner of one cached block.
class DeviceBlock {
 public:
  DeviceBlock() = default;
  explicit DeviceBlock(size_t bytes) : ptr_(device_alloc(bytes)), bytes_(bytes) {}
  ~DeviceBlock() { reset(); }
  DeviceBlock(DeviceBlock&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = 0; }
  DeviceBlock& operator=(DeviceBlock&& o) noexcept {
    if (this != &o) reset(), ptr_ = o.ptr_, bytes_ = o.bytes_, o.ptr_ = 0;
    return *this;
  }
  void reset() {
    if (ptr_) device_free(ptr_, bytes_);
    ptr_ = 0;
  }
  DevicePtr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  DevicePtr ptr_ = 0;
  size_t bytes_ = 0;
};

}  // namespace lt::cuda
