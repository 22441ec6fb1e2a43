// cache/kernel_cache.cpp — see kernel_cache.h for the file format and policy.
#include "cache/kernel_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "cache/debug.h"
#include "ir/counters.h"

namespace lt {

namespace counters {
Counter disk_loads("disk_loads");
Counter disk_stores("disk_stores");
Counter disk_rejects("disk_rejects");
Counter disk_write_errors("disk_write_errors");
Counter disk_evictions("disk_evictions");
}  // namespace counters

namespace {

constexpr const char* kSuffix = ".ltk";
constexpr const char* kTempMarker = ".tmp.";
constexpr int64_t kStaleTempSeconds = 3600;  // a temp file this old belongs to a dead writer
constexpr int kRescanEvery = 32;             // stores between directory scans

using cache_debug::debug_level;


// 64-bit hash of bytes, word at a time (murmur3-style). Every step is a
// bijection of the state for a fixed input word, so any change confined to one
// word (e.g. a flipped bit) always changes the result.
uint64_t hash64(const void* data, size_t n, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
  const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
  auto step = [&](uint64_t k) {
    k *= c1;
    k = rotl64(k, 31);
    k *= c2;
    h ^= k;
    h = rotl64(h, 27) * 5 + 0x52dce729;
  };
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t k;
    std::memcpy(&k, p + i, 8);
    step(k);
  }
  uint64_t tail = 0;
  for (size_t j = 0; i + j < n; ++j) tail |= static_cast<uint64_t>(p[i + j]) << (8 * j);
  step(tail);
  return fmix64(h);
}

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t get_le(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// mkdir -p; true when the directory exists afterwards.
bool make_dirs(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash))) return false;
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  return false;
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (w == 0) {
      errno = ENOSPC;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

/// Reads a whole file; nullopt when it cannot be opened (absent) — errno says why.
std::optional<std::string> read_file(const std::string& path) {
  // O_NONBLOCK: a FIFO left at a cache file's name must not block the process
  // (opening one for reading waits for a writer forever). Only regular files
  // are read: anything else (FIFO, device, directory) reads as empty, which
  // validation rejects, so /dev/zero behind a symlink cannot fill memory.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::string out;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return out;
  }
  if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;  // a read error leaves a short result, which validation rejects
    }
    if (r == 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  ::close(fd);
  return out;
}

uint64_t parse_bytes(const char* s, uint64_t fallback) {
  if (!s || !*s) return fallback;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || end == s) return fallback;
  switch (*end) {
    case 'k': case 'K': v <<= 10; ++end; break;
    case 'm': case 'M': v <<= 20; ++end; break;
    case 'g': case 'G': v <<= 30; ++end; break;
    default: break;
  }
  if (*end == 'i' || *end == 'I') ++end;
  if (*end == 'b' || *end == 'B') ++end;
  return *end ? fallback : static_cast<uint64_t>(v);
}

bool env_off(const char* v) {
  if (!v) return false;
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "0" || s == "off" || s == "false" || s == "no";
}

struct Entry {
  std::string path;
  uint64_t size;
  struct timespec mtime;
};

bool older(const Entry& a, const Entry& b) {
  if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec < b.mtime.tv_sec;
  if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec < b.mtime.tv_nsec;
  return a.path < b.path;
}

/// Cache files (and stale temp files, which it removes) in `dir`.
std::vector<Entry> list_entries(const std::string& dir) {
  std::vector<Entry> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  time_t now = std::time(nullptr);
  // fstatat relative to the open directory: a stat by full path walked the
  // path again per file, and a cache at its cap holds ~100k files (the scan
  // of a process's first store took most of a second of kernel time).
  const int dfd = ::dirfd(d);
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    bool temp = name.find(kTempMarker) != std::string_view::npos;
    if (!temp && !ends_with(name, kSuffix)) continue;
    struct stat st;
    if (::fstatat(dfd, e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;  // deleted meanwhile
    std::string path = dir + "/" + std::string(name);
    if (temp) {
      // A live writer's temp file is young; only a crashed writer leaves an old one.
      if (now - st.st_mtim.tv_sec > kStaleTempSeconds) ::unlink(path.c_str());
      continue;
    }
    out.push_back({std::move(path), static_cast<uint64_t>(st.st_size), st.st_mtim});
  }
  ::closedir(d);
  return out;
}

}  // namespace

KernelCacheConfig KernelCacheConfig::from_env() {
  KernelCacheConfig c;
  c.max_bytes = parse_bytes(std::getenv("LT_CACHE_MAX_BYTES"), c.max_bytes);
  if (env_off(std::getenv("LT_CACHE"))) return c;  // dir empty: disabled
  if (const char* d = std::getenv("LT_CACHE_DIR")) {
    c.dir = d;  // set but empty: disabled
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/') {
    c.dir = std::string(x) + "/lazytensor";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    c.dir = std::string(h) + "/.cache/lazytensor";
  }
  while (c.dir.size() > 1 && c.dir.back() == '/') c.dir.pop_back();
  return c;
}

KernelCache::KernelCache(KernelCacheConfig config) : config_(std::move(config)) {}

uint64_t KernelCache::checksum(const Hash128& key, std::string_view payload) {
  uint64_t seed = fmix64(key.lo ^ rotl64(key.hi, 32) ^ payload.size());
  return hash64(payload.data(), payload.size(), seed);
}

std::string KernelCache::encode(const Hash128& key, std::string_view payload, uint32_t version) {
  std::string s;
  s.reserve(kHeaderSize + payload.size());
  s.append(kMagic, sizeof kMagic);
  put_u32(s, version);
  put_u32(s, static_cast<uint32_t>(kHeaderSize));
  put_u64(s, key.lo);
  put_u64(s, key.hi);
  put_u64(s, payload.size());
  put_u64(s, checksum(key, payload));
  s.append(payload.data(), payload.size());
  return s;
}

std::string KernelCache::path_for(const Hash128& key) const {
  Hash128 name = StableHasher().add(key).add(kFormatVersion).add_string("lt-kernel-cache").finish();
  return config_.dir + "/" + name.hex() + kSuffix;
}

std::optional<std::string> KernelCache::load(const Hash128& key) {
  if (!enabled()) return std::nullopt;
  std::string path = path_for(key);
  std::optional<std::string> file = read_file(path);
  if (!file) return std::nullopt;  // absent (or unreadable): a plain miss
  const std::string& f = *file;
  const char* why = nullptr;
  if (f.size() < kHeaderSize) why = "truncated header";
  else if (std::memcmp(f.data(), kMagic, sizeof kMagic) != 0) why = "bad magic";
  else if (get_le(f.data() + 8, 4) != kFormatVersion) why = "wrong format version";
  else if (get_le(f.data() + 12, 4) != kHeaderSize) why = "bad header size";
  else if (get_le(f.data() + 16, 8) != key.lo || get_le(f.data() + 24, 8) != key.hi) why = "key mismatch";
  else if (get_le(f.data() + 32, 8) != f.size() - kHeaderSize) why = "payload size mismatch (truncated?)";
  else if (get_le(f.data() + 40, 8) != checksum(key, std::string_view(f).substr(kHeaderSize))) why = "checksum mismatch";
  if (why) {
    reject(key, why);
    return std::nullopt;
  }
  // LRU: a hit makes the file the most recently used. Failure (e.g. a
  // read-only directory, or the file evicted meanwhile) only costs LRU accuracy.
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  counters::disk_loads.add();
  return f.substr(kHeaderSize);
}

void KernelCache::reject(const Hash128& key, std::string_view why) {
  std::string path = path_for(key);
  counters::disk_rejects.add();
  // Removing is safe against a concurrent writer: its rename either happened
  // before (we remove a good file: a later miss recompiles) or after (its
  // file replaces whatever we saw).
  ::unlink(path.c_str());
  if (debug_level() >= 1)
    std::fprintf(stderr, "[lt] kernel cache: rejected %s (%.*s); rebuilding\n", path.c_str(), static_cast<int>(why.size()),
                 why.data());
}

void KernelCache::write_error(const std::string& what, int err) {
  counters::disk_write_errors.add();
  static std::atomic<bool> logged{false};
  if (debug_level() >= 1 && !logged.exchange(true))
    std::fprintf(stderr, "[lt] kernel cache: cannot write %s (%s); continuing without the disk cache for this kernel\n",
                 what.c_str(), std::strerror(err));
}

bool KernelCache::store(const Hash128& key, std::string_view bytes) {
  if (!enabled()) return false;
  if (!make_dirs(config_.dir)) {
    write_error(config_.dir, errno ? errno : ENOTDIR);
    return false;
  }
  std::string path = path_for(key);
  static std::atomic<uint64_t> seq{0};
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, "%s%ld.%llu", kTempMarker, static_cast<long>(::getpid()),
                static_cast<unsigned long long>(seq.fetch_add(1)));
  std::string tmp = path + suffix;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    write_error(tmp, errno);
    return false;
  }
  std::string file = encode(key, bytes);
  // Test hook: the disk is "full" after the temp file was created.
  const char* fault = std::getenv("LT_TEST_FAIL_CACHE_WRITE");
  bool full = fault && *fault && !env_off(fault);
  bool ok = !full && write_all(fd, file.data(), file.size());
  int err = ok ? 0 : full ? ENOSPC : errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;  // NFS and friends report ENOSPC at close
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    write_error(path, err);
    return false;
  }
  counters::disk_stores.add();
  maybe_evict(file.size());
  return true;
}

void KernelCache::maybe_evict(uint64_t written) {
  // Serialised with evict(): this store's file is already in place, so
  // either a scan before ours saw it (counted twice: an overestimate only
  // brings the next scan forward) or ours will.
  std::lock_guard<std::mutex> serial(evict_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    estimate_ += written;
    // Other processes write too, so the estimate is rescanned now and then.
    if (scanned_ && estimate_ <= config_.max_bytes && ++stores_since_scan_ < kRescanEvery) return;
  }
  evict_locked();
}

void KernelCache::evict() {
  std::lock_guard<std::mutex> serial(evict_mu_);
  evict_locked();
}

void KernelCache::evict_locked() {
  if (!enabled()) return;
  std::vector<Entry> entries = list_entries(config_.dir);
  uint64_t total = 0;
  for (const Entry& e : entries) total += e.size;
  if (total > config_.max_bytes) {
    // Evict down to 90% of the cap so that the next few writes do not each evict.
    uint64_t target = config_.max_bytes - config_.max_bytes / 10;
    std::sort(entries.begin(), entries.end(), older);
    for (const Entry& e : entries) {
      if (total <= target) break;
      // ENOENT: another process evicted it first; either way it is gone.
      if (::unlink(e.path.c_str()) == 0) counters::disk_evictions.add();
      total -= e.size;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  estimate_ = total;
  scanned_ = true;
  stores_since_scan_ = 0;
}

uint64_t KernelCache::disk_bytes() const {
  uint64_t total = 0;
  if (enabled())
    for (const Entry& e : list_entries(config_.dir)) total += e.size;
  return total;
}

namespace {
std::mutex global_mu;
std::shared_ptr<KernelCache>& global_cache() {
  static auto* c = new std::shared_ptr<KernelCache>();
  return *c;
}
}  // namespace

std::shared_ptr<KernelCache> kernel_cache() {
  std::lock_guard<std::mutex> lock(global_mu);
  auto& c = global_cache();
  if (!c) c = std::make_shared<KernelCache>(KernelCacheConfig::from_env());
  return c;
}

void set_kernel_cache_config(const KernelCacheConfig& config) {
  std::lock_guard<std::mutex> lock(global_mu);
  global_cache() = std::make_shared<KernelCache>(config);
}

}  // namespace lt
