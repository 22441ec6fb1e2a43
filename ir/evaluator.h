// ir/evaluator.h — the reference evaluator: the definition of every op.
//
// Runs a trace primitive by primitive in plain C++. Floating values are
// computed in double and rounded to the node's dtype after every primitive
// (so a float32 result is what an exact float32 implementation would give,
// up to double rounding); reductions accumulate in double. Integer and bool
// values are exact. Slow on purpose: clarity first, it is the test oracle.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/buffer.h"
#include "ir/trace.h"

namespace lt {

/// Evaluates `trace` with its params and scalars; returns one buffer per output.
/// Data-dependent errors (an index out of range) throw lt::Error (IndexError).
std::vector<BufferPtr> evaluate_reference(const Trace& trace);

/// Converts n elements from `src` (dtype) to `dst` (dst_dtype) with the Cast
/// primitive's meaning (rounding, wrapping, float -> int as torch on x86).
void convert_elements_reference(const void* src, DType dtype, int64_t n, void* dst, DType dst_dtype);

/// Philox4x32-10: four 32-bit random words for (seed, counter). Shared by every
/// backend so random numbers do not depend on how a trace is fused or split.
void philox4x32(uint64_t seed, uint64_t counter, uint32_t out[4]);
/// The full Philox4x32-10 block function (Random123): philox4x32(seed, c) is
/// this with key = {seed lo, seed hi} and counter = {c lo, c hi, 0, 0}.
void philox4x32_block(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);
/// The uniform float in [0, 1) that RandUniform gives for one random word.
inline double uniform_from_bits(uint32_t bits, DType dtype) {
  return dtype == DType::Float64 ? static_cast<double>(bits) * (1.0 / 4294967296.0)
                                 : static_cast<double>(bits >> 8) * (1.0 / 16777216.0);
}

}  // namespace lt
