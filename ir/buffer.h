// ir/buffer.h — host buffers: 64-byte aligned, recycled by a caching allocator.
//
// The allocator sits in ir/ (not lazy/, as DESIGN.md first drew it) because
// the reference evaluator and the JIT backends below lazy/ allocate outputs.
// Why it caches: on this machine the first touch of a fresh 4 KiB page costs
// ~11 us and glibc unmaps blocks >= 32 MiB on free, so a training step that
// allocates fresh outputs every sync would spend most of its time in page
// faults. Freed blocks go to size-bucketed free lists and are handed out again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/dtype.h"

namespace lt {

class Buffer {
 public:
  Buffer(DType dtype, int64_t numel);  ///< uninitialised; throws lt::Error when the allocation fails
  /// A view of `numel` elements of `base` from element `offset` on: no allocation, and `base`'s memory
  /// lives as long as the view (buffers are never written after they are filled, so sharing is safe).
  Buffer(std::shared_ptr<const Buffer> base, int64_t offset, int64_t numel);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  DType dtype() const { return dtype_; }
  int64_t numel() const { return numel_; }
  /// A process-unique serial, never reused (a recycled block gets a new one). A
  /// buffer is not written after it is filled, so (id, region) names fixed
  /// contents: caches of values derived from a buffer (the matmul's packed
  /// operands, jit/cpu/matmul.cpp) key on it, not on the address.
  uint64_t id() const { return id_; }
  /// A token that lives exactly as long as this buffer (made on first use):
  /// a cache of values derived from it watches the token to drop them once
  /// the buffer is gone.
  std::weak_ptr<const void> lifetime() const;
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }
  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* as() { return static_cast<T*>(data_); }
  template <typename T>
  const T* as() const { return static_cast<const T*>(data_); }

 private:
  void* data_;
  size_t capacity_;  ///< 0 for a view
  int64_t numel_;
  DType dtype_;
  uint64_t id_;
  std::shared_ptr<const Buffer> base_;
  mutable std::shared_ptr<const void> lifetime_;  ///< see lifetime(); set once, atomically  ///< the owner of the memory, for a view
};

using BufferPtr = std::shared_ptr<Buffer>;

inline BufferPtr make_buffer(DType dtype, int64_t numel) { return std::make_shared<Buffer>(dtype, numel); }

struct AllocatorStats {
  int64_t bytes_in_use = 0;      ///< held by live buffers
  int64_t bytes_cached = 0;      ///< in free lists, ready for reuse
  int64_t peak_bytes_in_use = 0;
  int64_t allocations = 0;       ///< Buffer constructions
  int64_t cache_hits = 0;        ///< of those, served from a free list
};
AllocatorStats allocator_stats();
/// Returns every cached block to the system.
void allocator_release_cached();

}  // namespace lt
