// cache/kernel_cache.h — the persistent (on-disk) kernel cache.
//
// An opaque store: key (Hash128, chosen by the backend: kernel or trace IR
// hash + target + compiler build) -> object bytes. It does not know what a
// kernel is, so it works for one object per kernel or one per trace.
//
// One file per key, `<dir>/<32 hex>.ltk`, named from hash(key, format version):
//   header (48 bytes, little-endian)
//     0  char[8]  magic "LTKOBJ\r\n"
//     8  u32      format version (kFormatVersion)
//    12  u32      header size (48)
//    16  u64 x2   key echo (lo, hi)
//    32  u64      payload size
//    40  u64      checksum: 64-bit hash of (key, payload size, payload bytes)
//   payload (object bytes)
// Files are written to a unique temp file in the same directory and renamed
// into place, so a reader sees a whole file or none. A file that fails any
// check (short, wrong magic/version/key/size, bad checksum) is removed and
// reported as a miss (counter disk_rejects); it is never used. After writes
// the directory is kept under max_bytes by deleting least recently used
// files (mtime, refreshed on every hit), tolerating files that another
// process deletes at the same time. Errors writing (unwritable or full
// directory) are counted (disk_write_errors), logged once under LT_DEBUG,
// and otherwise ignored: the caller keeps its in-memory result.
//
// Configuration (process-wide instance, read from the environment on first use):
//   LT_CACHE=0|off|false|no   disables the disk cache
//   LT_CACHE_DIR              directory; set but empty disables; default
//                             $XDG_CACHE_HOME/lazytensor, else ~/.cache/lazytensor
//   LT_CACHE_MAX_BYTES        size cap (bytes, optional K/M/G suffix); default 512M
// Test hook: LT_TEST_FAIL_CACHE_WRITE=1 makes every write fail as if the disk were full.
//
// Counters (ir/counters.h): disk_loads, disk_stores, disk_rejects,
// disk_write_errors, disk_evictions.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "ir/hash.h"

namespace lt {

struct KernelCacheConfig {
  std::string dir;                          ///< empty: disabled
  uint64_t max_bytes = 512ull << 20;        ///< size cap of the directory's cache files
  static KernelCacheConfig from_env();
};

class KernelCache {
 public:
  static constexpr uint32_t kFormatVersion = 1;
  static constexpr size_t kHeaderSize = 48;
  static constexpr char kMagic[8] = {'L', 'T', 'K', 'O', 'B', 'J', '\r', '\n'};

  explicit KernelCache(KernelCacheConfig config = {});

  bool enabled() const { return !config_.dir.empty(); }
  const KernelCacheConfig& config() const { return config_; }

  /// The object stored under `key`, or nullopt (absent, disabled, or rejected
  /// as invalid: then the file is removed and disk_rejects counted).
  std::optional<std::string> load(const Hash128& key);
  /// Publishes `bytes` under `key` (atomic rename), then evicts over the cap.
  /// Returns false (and counts disk_write_errors) when it could not write.
  bool store(const Hash128& key, std::string_view bytes);
  /// Removes the file of `key` after its contents proved unusable (counts a reject).
  void reject(const Hash128& key, std::string_view why);
  /// Deletes least recently used files until the directory is under the cap.
  void evict();
  /// Path of the file for `key`.
  std::string path_for(const Hash128& key) const;
  /// Total bytes of cache files in the directory now.
  uint64_t disk_bytes() const;

  /// Encodes a file (header + payload); exposed for tests.
  static std::string encode(const Hash128& key, std::string_view payload, uint32_t version = kFormatVersion);
  /// Checksum stored in the header.
  static uint64_t checksum(const Hash128& key, std::string_view payload);

 private:
  void write_error(const std::string& what, int err);
  void maybe_evict(uint64_t written);
  void evict_locked();  // evict(), evict_mu_ held

  KernelCacheConfig config_;
  // Held across a whole maybe_evict/evict (scan, unlinks, reset of the
  // estimate): a scan that ran while another thread's file was being
  // renamed in could otherwise reset the estimate without that file, and
  // the directory stayed over the cap (test_cache_disk, cap test, 1 run in
  // ~10 with parallel compiles).
  std::mutex evict_mu_;
  std::mutex mu_;            // guards the fields below
  uint64_t estimate_ = 0;    // approximate bytes in the directory
  bool scanned_ = false;     // estimate_ came from a scan
  int stores_since_scan_ = 0;
};

/// The process-wide disk cache (configured from the environment on first use).
std::shared_ptr<KernelCache> kernel_cache();
/// Replaces the process-wide disk cache (tests); callers holding the old one finish with it.
void set_kernel_cache_config(const KernelCacheConfig& config);

}  // namespace lt
