// jit/cpu/random.cpp — precompiled Philox4x32-10 for generated kernels (random.h).
#include "jit/cpu/random.h"

#include <cstring>

#include "ir/error.h"
#include "ir/evaluator.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lt::cpu {

extern "C" uint32_t lt_philox_word(uint64_t seed, uint64_t counter, uint32_t word) {
  uint32_t out[4];
  philox4x32(seed, counter, out);
  return out[word & 3];
}

#if defined(__x86_64__)
namespace {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

// One vector width: V is the register type, the functions its operations.
// Every operation works inside 128-bit lanes, so the same sequence serves
// SSE2, AVX2 and AVX-512F: mul_epu32 multiplies the even 32-bit elements to
// 64 bits; the odd ones are shifted down first; unpack puts the low and high
// halves of the four products of each 128-bit lane back in element order.
#define LT_PHILOX_VARIANT(NAME, LANES, V, TARGET, SET1, MUL, SRLI64, UNPLO32, UNPHI32, UNPLO64, UNPHI64, XOR, ADD, \
                          SETR_IOTA)                                                                         \
  __attribute__((target(TARGET))) static inline void NAME##_mulhilo(V m, V x, V* hi, V* lo) {                     \
    V pe = MUL(x, m), po = MUL(SRLI64(x, 32), m);                                                                   \
    V t0 = UNPLO32(pe, po), t1 = UNPHI32(pe, po);                                                                   \
    *lo = UNPLO64(t0, t1);                                                                                          \
    *hi = UNPHI64(t0, t1);                                                                                          \
  }                                                                                                                 \
  extern "C" __attribute__((target(TARGET))) V NAME(uint64_t seed, uint64_t counter, uint32_t word) {              \
    uint32_t base = static_cast<uint32_t>(counter);                                                                 \
    if (base > UINT32_MAX - (LANES - 1)) { /* the block crosses 2^32: high words differ per lane */                \
      alignas(64) uint32_t w[LANES];                                                                                \
      for (int i = 0; i < LANES; ++i) w[i] = lt_philox_word(seed, counter + i, word);                               \
      V r;                                                                                                          \
      std::memcpy(&r, w, sizeof r);                                                                                 \
      return r;                                                                                                     \
    }                                                                                                               \
    V c0 = ADD(SET1(static_cast<int>(base)), SETR_IOTA);                                                            \
    V c1 = SET1(static_cast<int>(counter >> 32)), c2 = SET1(0), c3 = SET1(0);                                       \
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);                              \
    const V m0 = SET1(static_cast<int>(kMul0)), m1 = SET1(static_cast<int>(kMul1));                                 \
    for (int round = 0; round < 10; ++round) {                                                                      \
      V hi0, lo0, hi1, lo1;                                                                                         \
      NAME##_mulhilo(m0, c0, &hi0, &lo0);                                                                           \
      NAME##_mulhilo(m1, c2, &hi1, &lo1);                                                                           \
      c0 = XOR(XOR(hi1, c1), SET1(static_cast<int>(k0)));                                                           \
      c1 = lo1;                                                                                                     \
      c2 = XOR(XOR(hi0, c3), SET1(static_cast<int>(k1)));                                                           \
      c3 = lo0;                                                                                                     \
      k0 += kWeyl0;                                                                                                 \
      k1 += kWeyl1;                                                                                                 \
    }                                                                                                               \
    switch (word & 3) {                                                                                             \
      case 0: return c0;                                                                                            \
      case 1: return c1;                                                                                            \
      case 2: return c2;                                                                                            \
      default: return c3;                                                                                           \
    }                                                                                                               \
  }

LT_PHILOX_VARIANT(lt_philox_word_n4, 4, __m128i, "sse2", _mm_set1_epi32, _mm_mul_epu32, _mm_srli_epi64,
                  _mm_unpacklo_epi32, _mm_unpackhi_epi32, _mm_unpacklo_epi64, _mm_unpackhi_epi64, _mm_xor_si128,
                  _mm_add_epi32, _mm_setr_epi32(0, 1, 2, 3))
LT_PHILOX_VARIANT(lt_philox_word_n8, 8, __m256i, "avx2", _mm256_set1_epi32, _mm256_mul_epu32, _mm256_srli_epi64,
                  _mm256_unpacklo_epi32, _mm256_unpackhi_epi32, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64,
                  _mm256_xor_si256, _mm256_add_epi32, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
LT_PHILOX_VARIANT(lt_philox_word_n16, 16, __m512i, "avx512f", _mm512_set1_epi32, _mm512_mul_epu32, _mm512_srli_epi64,
                  _mm512_unpacklo_epi32, _mm512_unpackhi_epi32, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64,
                  _mm512_xor_si512, _mm512_add_epi32,
                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#undef LT_PHILOX_VARIANT

// Callers of the wider variants must share their target: a __m256i or __m512i
// comes back in a ymm or zmm register only between functions built for it.
void words_n4(uint64_t seed, uint64_t counter, uint32_t word, uint32_t* out) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), lt_philox_word_n4(seed, counter, word));
}
__attribute__((target("avx2"))) void words_n8(uint64_t seed, uint64_t counter, uint32_t word, uint32_t* out) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), lt_philox_word_n8(seed, counter, word));
}
__attribute__((target("avx512f"))) void words_n16(uint64_t seed, uint64_t counter, uint32_t word, uint32_t* out) {
  _mm512_storeu_si512(out, lt_philox_word_n16(seed, counter, word));
}

}  // namespace
#endif

std::vector<std::pair<std::string, void*>> random_runtime_symbols() {
  std::vector<std::pair<std::string, void*>> out = {{"lt_philox_word", reinterpret_cast<void*>(&lt_philox_word)}};
#if defined(__x86_64__)
  out.emplace_back("lt_philox_word_n4", reinterpret_cast<void*>(&lt_philox_word_n4));
  out.emplace_back("lt_philox_word_n8", reinterpret_cast<void*>(&lt_philox_word_n8));
  out.emplace_back("lt_philox_word_n16", reinterpret_cast<void*>(&lt_philox_word_n16));
#endif
  return out;
}

std::vector<std::pair<int, std::string>> philox_vector_variants() {
  std::vector<std::pair<int, std::string>> out;
#if defined(__x86_64__)
  __builtin_cpu_init();
  out.emplace_back(4, "lt_philox_word_n4");
  if (__builtin_cpu_supports("avx2")) out.emplace_back(8, "lt_philox_word_n8");
  if (__builtin_cpu_supports("avx512f")) out.emplace_back(16, "lt_philox_word_n16");
#endif
  return out;
}

void philox_words_via_variant(int lanes, uint64_t seed, uint64_t counter, uint32_t word, uint32_t* out) {
  bool ok = false;
  for (const auto& v : philox_vector_variants()) ok |= v.first == lanes;
  if (!ok) fail(ErrorKind::Value, "philox_words_via_variant: no ", lanes, "-lane variant on this host");
#if defined(__x86_64__)
  switch (lanes) {
    case 4: return words_n4(seed, counter, word, out);
    case 8: return words_n8(seed, counter, word, out);
    case 16: return words_n16(seed, counter, word, out);
  }
#endif
  (void)seed, (void)counter, (void)word, (void)out;
}

}  // namespace lt::cpu
