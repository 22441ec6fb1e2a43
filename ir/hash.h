// ir/hash.h — a stable 128-bit structural hash.
//
// absl::Hash is seeded per process, so it cannot name a trace across runs or
// key an on-disk cache. Traces and kernels are hashed with this small
// two-lane mixer instead: stable across processes and builds, 128 bits wide so
// a collision is not a practical concern (DESIGN: "at least 128 bits").
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

namespace lt {

struct Hash128 {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const Hash128& o) const { return lo == o.lo && hi == o.hi; }
  bool operator!=(const Hash128& o) const { return !(*this == o); }
  std::string hex() const;  // 32 hex digits
  template <typename H>
  friend H AbslHashValue(H h, const Hash128& v) {
    return H::combine(std::move(h), v.lo, v.hi);
  }
  friend std::ostream& operator<<(std::ostream& os, const Hash128& h) { return os << h.hex(); }
};

inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/// murmur3's 64-bit finaliser: a bijection that mixes every input bit into every output bit.
inline uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

class StableHasher {
 public:
  StableHasher& add(uint64_t v) {
    a_ = mix(a_ ^ (v * 0x9E3779B97F4A7C15ull));
    b_ = mix(b_ + rotl(v, 29) * 0xC2B2AE3D27D4EB4Full + 0x165667B19E3779F9ull);
    ++n_;
    return *this;
  }
  StableHasher& add(Hash128 h) { return add(h.lo).add(h.hi); }
  StableHasher& add_double(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return add(bits);
  }
  StableHasher& add_string(std::string_view s) {
    add(s.size());
    uint64_t w = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      w = (w << 8) | static_cast<unsigned char>(s[i]);
      if (i % 8 == 7) add(w), w = 0;
    }
    return add(w);
  }
  StableHasher& add_bytes(const void* data, size_t size) {
    return add_string(std::string_view(static_cast<const char*>(data), size));
  }
  Hash128 finish() const {
    uint64_t lo = mix(a_ ^ rotl(b_, 17) ^ n_);
    uint64_t hi = mix(b_ + rotl(a_, 41) + n_ * 0x9E3779B97F4A7C15ull);
    return {lo, hi};
  }

 private:
  static uint64_t rotl(uint64_t x, int r) { return rotl64(x, r); }
  static uint64_t mix(uint64_t k) { return fmix64(k); }
  uint64_t a_ = 0x243F6A8885A308D3ull;
  uint64_t b_ = 0x13198A2E03707344ull;
  uint64_t n_ = 0;
};

}  // namespace lt
