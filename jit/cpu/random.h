// jit/cpu/random.h — precompiled Philox4x32-10 that generated kernels call.
//
// Emitting Philox's ten rounds of 32x32->64-bit multiplies inline made a
// `rand` kernel take ~80-350 ms to compile (most of it instruction selection
// of the vectorised multiplies) against ~15-40 ms for other elementwise
// kernels. Kernels now call
//   uint32_t lt_philox_word(uint64_t seed, uint64_t counter, uint32_t word)
// (word `word` of Philox4x32-10 with key = seed, counter = (counter, 0)), and
// advertise vector variants through LLVM's vector-function ABI
// ("vector-function-abi-variant", counter linear with step 1): the loop
// vectoriser calls lt_philox_word_n4/_n8/_n16 on 4/8/16 consecutive counters
// instead. They are plain C++ (SSE2, AVX2, AVX-512F), registered with the
// JIT as absolute symbols, and give exactly the reference evaluator's words
// (philox4x32 in ir/evaluator.h; test_cpu_jit checks every lane).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lt::cpu {

/// The scalar entry: word `word & 3` of philox4x32(seed, counter).
extern "C" uint32_t lt_philox_word(uint64_t seed, uint64_t counter, uint32_t word);

/// Name and address of each precompiled function kernels may call, for the JIT's symbol table.
std::vector<std::pair<std::string, void*>> random_runtime_symbols();

/// The vector variants this host can run, as (lanes, symbol): 4 always, 8
/// with AVX2, 16 with AVX-512F.
std::vector<std::pair<int, std::string>> philox_vector_variants();

/// Word `word` of philox for counters counter .. counter+lanes-1, through the
/// vector variant for `lanes` (4, 8 or 16; must be in philox_vector_variants()). For tests.
void philox_words_via_variant(int lanes, uint64_t seed, uint64_t counter, uint32_t word, uint32_t* out);

}  // namespace lt::cpu
