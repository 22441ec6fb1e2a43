// ir/lowp.h — float16 and bfloat16 as storage types, with the exact
// conversions every layer shares (evaluator, host copies, bindings, tests).
//
// float -> narrow rounds to nearest, ties to even, as c10::Half and
// c10::BFloat16 do: overflow gives inf, values below the smallest subnormal
// round to (signed) zero, NaN stays NaN (bfloat16 NaN is 0x7FC0 as torch's
// round_to_nearest_even; float16 NaN is sign | 0x7E00 as c10's).
// double -> narrow goes through float, as torch's conversions do; for the
// results of +, -, *, / and sqrt that double rounding is exact (24 >= 2p + 2).
#pragma once

#include <cstdint>
#include <cstring>

namespace lt {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline float bfloat16_bits_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

inline uint16_t float_to_half_bits(float f) {
  uint32_t u = float_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t mag = u & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN (c10's fp16_ieee_from_fp32_value)
  if (mag >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: inf
  if (mag < 0x38800000u) {  // below 2^-14: a half subnormal (or zero)
    if (mag < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to zero (2^-25 itself ties to 0)
    uint32_t exp = mag >> 23;
    uint32_t mant = (mag & 0x7FFFFFu) | 0x800000u;
    uint32_t shift = 126 - exp;  // value = mant * 2^(exp-150); half subnormal unit 2^-24
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to even.
  uint32_t h = ((mag >> 13) - (112u << 10));
  uint32_t rem = mag & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is right (up to inf)
  return static_cast<uint16_t>(sign | h);
}

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24, exact
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

/// IEEE binary16 as stored in buffers.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(float_to_half_bits(f)) {}
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  operator float() const { return half_bits_to_float(bits); }
};

/// bfloat16 (the top half of a float32) as stored in buffers.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(float_to_bfloat16_bits(f)) {}
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return bfloat16_bits_to_float(bits); }
};

/// Rounds a float to the nearest float16 / bfloat16 value, kept as float.
inline float round_to_half(float f) { return half_bits_to_float(float_to_half_bits(f)); }
inline float round_to_bfloat16(float f) { return bfloat16_bits_to_float(float_to_bfloat16_bits(f)); }

}  // namespace lt
