// ir/buffer.cpp — the caching host allocator.
#include "ir/buffer.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "ir/error.h"

namespace lt {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHugePage = size_t{2} << 20;
// Blocks of at least this size are placed on 2 MiB boundaries and advised as
// transparent huge pages: 512x fewer first-touch faults.
constexpr size_t kHugeThreshold = size_t{4} << 20;
// Cached bytes above this are returned to the system.
constexpr int64_t kMaxCachedBytes = int64_t{4} << 30;

size_t round_capacity(size_t bytes) {
  if (bytes < 4096) return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  // Round to 1/8 steps of the power of two, so a block serves requests of
  // nearby sizes without wasting more than 12.5%.
  size_t p = 4096;
  while (p * 2 <= bytes) p *= 2;
  size_t step = p / 8;
  return (bytes + step - 1) / step * step;
}

struct Pool {
  std::mutex mu;
  std::multimap<size_t, void*> free_blocks;  // capacity -> block
  AllocatorStats stats;

  void* take(size_t capacity) {
    std::lock_guard<std::mutex> lock(mu);
    ++stats.allocations;
    auto it = free_blocks.find(capacity);
    void* p = nullptr;
    if (it != free_blocks.end()) {
      p = it->second;
      free_blocks.erase(it);
      stats.bytes_cached -= static_cast<int64_t>(capacity);
      ++stats.cache_hits;
    }
    stats.bytes_in_use += static_cast<int64_t>(capacity);
    if (stats.bytes_in_use > stats.peak_bytes_in_use) stats.peak_bytes_in_use = stats.bytes_in_use;
    return p;
  }
  void give(void* p, size_t capacity) {
    std::lock_guard<std::mutex> lock(mu);
    stats.bytes_in_use -= static_cast<int64_t>(capacity);
    if (stats.bytes_cached + static_cast<int64_t>(capacity) > kMaxCachedBytes) {
      std::free(p);
      return;
    }
    free_blocks.emplace(capacity, p);
    stats.bytes_cached += static_cast<int64_t>(capacity);
  }
  void untrack(size_t capacity) {
    std::lock_guard<std::mutex> lock(mu);
    stats.bytes_in_use -= static_cast<int64_t>(capacity);
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // leaked on purpose: buffers may die during static destruction
  return *p;
}

void* system_alloc(size_t capacity) {
  size_t align = capacity >= kHugeThreshold ? kHugePage : kAlignment;
  // posix_memalign, not aligned_alloc: C11's aligned_alloc wants the size to
  // be a multiple of the alignment (4.5 MiB is not one of 2 MiB). glibc lets
  // it pass; ASan's allocator (and the standard) return null (found by make test-asan).
  void* p = nullptr;
  if (posix_memalign(&p, align, capacity) != 0) p = nullptr;
  if (p && capacity >= kHugeThreshold) madvise(p, capacity, MADV_HUGEPAGE);
  return p;
}

}  // namespace

namespace {
std::atomic<uint64_t> next_buffer_id{1};
}  // namespace

Buffer::Buffer(DType dtype, int64_t numel)
    : numel_(numel), dtype_(dtype), id_(next_buffer_id.fetch_add(1, std::memory_order_relaxed)) {
  if (numel < 0) fail(ErrorKind::Runtime, "Buffer: negative element count ", numel);
  size_t bytes = static_cast<size_t>(numel) * dtype_size(dtype);
  if (numel > 0 && bytes / static_cast<size_t>(numel) != dtype_size(dtype)) {
    fail(ErrorKind::Runtime, "Buffer: allocation of ", numel, " elements of ", dtype_name(dtype), " overflows");
  }
  capacity_ = round_capacity(bytes == 0 ? kAlignment : bytes);
  data_ = pool().take(capacity_);
  if (!data_) data_ = system_alloc(capacity_);
  if (!data_) {
    pool().untrack(capacity_);
    fail(ErrorKind::Runtime, "Buffer: out of memory allocating ", bytes, " bytes (", numel, " elements of ",
         dtype_name(dtype), ")");
  }
}

Buffer::Buffer(std::shared_ptr<const Buffer> base, int64_t offset, int64_t numel)
    : capacity_(0), numel_(numel), dtype_(base->dtype_), id_(next_buffer_id.fetch_add(1, std::memory_order_relaxed)) {
  if (offset < 0 || numel < 0 || offset > base->numel_ - numel) {
    fail(ErrorKind::Runtime, "Buffer: a view of elements [", offset, ", ", offset + numel, ") of a buffer of ",
         base->numel_, " elements");
  }
  data_ = static_cast<char*>(const_cast<void*>(base->data_)) + static_cast<size_t>(offset) * dtype_size(dtype_);
  base_ = base->base_ ? base->base_ : std::move(base);  // a view of a view shares the owner
}

std::weak_ptr<const void> Buffer::lifetime() const {
  std::shared_ptr<const void> token = std::atomic_load(&lifetime_);
  if (!token) {
    auto fresh = std::make_shared<const char>('\0');
    std::shared_ptr<const void> expected;
    token = std::atomic_compare_exchange_strong(&lifetime_, &expected, std::shared_ptr<const void>(fresh))
                ? std::shared_ptr<const void>(fresh)
                : expected;
  }
  return token;
}

Buffer::~Buffer() {
  if (!base_) pool().give(data_, capacity_);
}

AllocatorStats allocator_stats() {
  std::lock_guard<std::mutex> lock(pool().mu);
  return pool().stats;
}

void allocator_release_cached() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  for (auto& [cap, block] : p.free_blocks) std::free(block);
  p.free_blocks.clear();
  p.stats.bytes_cached = 0;
}

}  // namespace lt
