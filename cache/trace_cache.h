// cache/trace_cache.h — a backend's in-memory trace cache: trace key ->
// executable (plan + loaded kernels), capped, least recently used out first.
//
// Each executable holds its kernels (cpu::KernelEntry::keep), so the cap also
// bounds the JIT code a long-running process keeps mapped: a kernel object is
// unloaded when the last executable using it is evicted. Without the cap a
// process that meets ~20k distinct traces runs out of memory mappings
// (vm.max_map_count; docs/cpu-jit.md, "Loaded kernels").
//
// The hit path is one lookup and a tick under a mutex. An evicted trace is
// just a miss the next time: it is scheduled again and its kernels come back
// from the disk cache (a load, not a compile) while that holds them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/counters.h"
#include "ir/hash.h"

namespace lt {

/// Traces each backend keeps: LT_TRACE_CACHE_MAX, default 1024 (PyTorch/XLA's
/// compilation cache keeps as many); 0 means no cap.
size_t trace_cache_capacity();
/// Overrides LT_TRACE_CACHE_MAX for this process; caches shrink at their next insert.
void set_trace_cache_capacity(size_t n);

namespace counters {
extern Counter trace_cache_evictions;  ///< executables dropped by the cap (all backends)
}

template <class Exe>
class TraceCache {
 public:
  /// The cached executable, marked as just used; null on a miss.
  std::shared_ptr<const Exe> find(const Hash128& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    it->second.used = ++clock_;
    return it->second.exe;
  }

  /// Caches `exe` under `key` (an entry that a concurrent miss put there first
  /// wins) and evicts the least recently used beyond the capacity. Returns
  /// the cached executable.
  std::shared_ptr<const Exe> insert(const Hash128& key, std::shared_ptr<const Exe> exe) {
    std::vector<std::shared_ptr<const Exe>> dropped;  // released after the lock: releasing may unload code
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.try_emplace(key, Entry{std::move(exe), 0}).first;
    it->second.used = ++clock_;
    std::shared_ptr<const Exe> out = it->second.exe;
    size_t cap = trace_cache_capacity();
    if (cap > 0 && map_.size() > cap) evict(map_.size() - cap, &dropped);
    return out;
  }

  void clear() {
    absl::flat_hash_map<Hash128, Entry> old;  // released after the lock
    std::lock_guard<std::mutex> lock(mu_);
    old.swap(map_);
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.size();
  }

 private:
  struct Entry {
    std::shared_ptr<const Exe> exe;
    uint64_t used;
  };

  // Drops the `n` entries used longest ago (the one just inserted is the newest).
  void evict(size_t n, std::vector<std::shared_ptr<const Exe>>* dropped) {
    std::vector<std::pair<uint64_t, Hash128>> order;
    order.reserve(map_.size());
    for (const auto& [key, e] : map_) order.emplace_back(e.used, key);
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n - 1), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < n; ++i) {
      auto it = map_.find(order[i].second);
      dropped->push_back(std::move(it->second.exe));
      map_.erase(it);
    }
    counters::trace_cache_evictions.add(static_cast<int64_t>(n));
  }

  std::mutex mu_;
  absl::flat_hash_map<Hash128, Entry> map_;
  uint64_t clock_ = 0;
};

}  // namespace lt
