// ir/block_cache.h — per-thread free lists for the objects every recorded op
// makes and a sync frees in bulk (nodes, tensor slots, Python tensors).
//
// glibc's per-thread cache keeps only 7 freed blocks per size, so a sync that
// frees a few hundred nodes sends most of them, and the next recording's
// allocations, through malloc's bins (~10% of the Python per-op cost). A
// BlockCache<Size> keeps up to kMaxBlocks freed blocks of one size per thread
// instead. A block freed on another thread than the one that allocated it
// simply joins that thread's list: all blocks of a cache have the same size
// and come from ::operator new.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

// Under AddressSanitizer the lists are off: a block parked in a list is not
// freed memory to ASan, so a use after free of a node would go unreported.
#if defined(__SANITIZE_ADDRESS__)
#define LT_BLOCK_CACHE_ENABLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LT_BLOCK_CACHE_ENABLED 0
#endif
#endif
#ifndef LT_BLOCK_CACHE_ENABLED
#define LT_BLOCK_CACHE_ENABLED 1
#endif

namespace lt {

template <size_t Size>
class BlockCache {
 public:
  static_assert(Size >= sizeof(void*));
  static constexpr int64_t kMaxBlocks = LT_BLOCK_CACHE_ENABLED ? 8192 : 0;

  static void* allocate() {
    if constexpr (kMaxBlocks == 0) return ::operator new(Size);
    State& s = state_;
    if (FreeBlock* b = s.head) {
      s.head = b->next;
      --s.count;
      return b;
    }
    if (!s.closed && !s.drain_registered) {
      s.drain_registered = true;
      thread_local Drain drain;  // empties the list when the thread exits
      (void)drain;
    }
    return ::operator new(Size);
  }

  static void free(void* p) {
    if constexpr (kMaxBlocks == 0) return ::operator delete(p);
    State& s = state_;
    if (s.closed || s.count >= kMaxBlocks) return ::operator delete(p);
    auto* b = static_cast<FreeBlock*>(p);
    b->next = s.head;
    s.head = b;
    ++s.count;
  }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  // Trivially destructible: still usable while the thread's other
  // thread_locals are destroyed (blocks they free then go to ::operator delete).
  struct State {
    FreeBlock* head = nullptr;
    int64_t count = 0;
    bool closed = false;
    bool drain_registered = false;
  };
  struct Drain {
    ~Drain() {
      State& s = state_;
      s.closed = true;
      while (FreeBlock* b = s.head) {
        s.head = b->next;
        ::operator delete(b);
      }
      s.count = 0;
    }
  };
  static thread_local State state_;
};

template <size_t Size>
thread_local typename BlockCache<Size>::State BlockCache<Size>::state_;

/// Allocator for std::allocate_shared: single objects come from BlockCache.
template <class T>
struct BlockCacheAllocator {
  using value_type = T;
  BlockCacheAllocator() = default;
  template <class U>
  BlockCacheAllocator(const BlockCacheAllocator<U>&) {}
  T* allocate(size_t n) {
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(BlockCache<sizeof(T)>::allocate());
  }
  void deallocate(T* p, size_t n) {
    if (n != 1) return ::operator delete(p);
    BlockCache<sizeof(T)>::free(p);
  }
  template <class U>
  bool operator==(const BlockCacheAllocator<U>&) const {
    return true;
  }
};

}  // namespace lt
