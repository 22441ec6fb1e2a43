// jit/cpu/micro_kernels.cpp — the float32 and float64 matmul micro-kernels
// compiled ahead of time, for MatMul kernels that run in the interpreter.
//
// The generated micro-kernel (matmul.cpp, generate_ukr) is compiled once per
// machine, 7 ms here; a cold process's first matmul waited for it on the
// thread running the program. These are the same kernels written with
// intrinsics and compiled with the project: per k, one load of the NV B
// vectors, MR broadcasts of A and MR * NV fused multiply-adds into
// accumulators that start at zero, then C (+)= the accumulators. Each element
// therefore sees the same fused multiply-adds in the same order, and the
// same final add, as in the generated kernel: the same bits
// (LT_INTERPRET_CHECK compares every interpreted launch with the compiled
// one). Only the default tiles are here (matmul.cpp, blocking_for: 14 x 2
// and, for few rows, 8 x 2 vectors on AVX-512, 6 x 2 on AVX2); other
// shapes, integers and the bfloat16 paths use the generated kernel.
#include <immintrin.h>

#include <cstdint>

#include "ir/dtype.h"

namespace lt::cpu {

using MicroKernel = void (*)(int64_t, const void*, const void*, void*, int64_t, int64_t);

namespace {

// V: the vector type and its operations for one element type and width.
#define LT_UKR_BODY(V, ES, LOAD, LOADU, STOREU, ZERO, SET1, FMA, ADD)                                  \
  template <int MR, int NV>                                                                         \
  void ukr(int64_t kc, const void* a_, const void* b_, void* c_, int64_t ldc, int64_t accum) {      \
    using T = ES;                                                                                   \
    constexpr int VL = sizeof(V) / sizeof(T), NR = NV * VL;                                         \
    const T* A = static_cast<const T*>(a_);                                                         \
    const T* B = static_cast<const T*>(b_);                                                         \
    T* C = static_cast<T*>(c_);                                                                     \
    V acc[MR][NV];                                                                                  \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; ++i) _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) \
        acc[i][v] = ZERO();                                                                         \
    for (int64_t k = 0; k < kc; ++k) {                                                              \
      V b[NV];                                                                                      \
      _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) b[v] = LOAD(B + k * NR + v * VL);        \
      _Pragma("GCC unroll 16") for (int i = 0; i < MR; ++i) {                                       \
        const V a = SET1(A[k * MR + i]);                                                            \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) acc[i][v] = FMA(a, b[v], acc[i][v]);   \
      }                                                                                             \
    }                                                                                               \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; ++i) _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) { \
      T* c = C + i * ldc + v * VL;                                                                  \
      STOREU(c, accum ? ADD(acc[i][v], LOADU(c)) : acc[i][v]);                                      \
    }                                                                                               \
  }

// One ISA's float32 and float64 kernels: vector type V (V##d for double),
// intrinsics prefixed P (_mm256, _mm512), in namespaces ns_f32 and ns_f64.
#define LT_UKR_ISA(ns, V, P)                                                                            \
  namespace ns##_f32 {                                                                                  \
  LT_UKR_BODY(V, float, P##_load_ps, P##_loadu_ps, P##_storeu_ps, P##_setzero_ps, P##_set1_ps, P##_fmadd_ps, \
              P##_add_ps)                                                                               \
  }                                                                                                     \
  namespace ns##_f64 {                                                                                  \
  LT_UKR_BODY(V##d, double, P##_load_pd, P##_loadu_pd, P##_storeu_pd, P##_setzero_pd, P##_set1_pd,         \
              P##_fmadd_pd, P##_add_pd)                                                                 \
  }

#pragma GCC push_options
#pragma GCC target("avx2,fma")
LT_UKR_ISA(avx2, __m256, _mm256)
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
LT_UKR_ISA(avx512, __m512, _mm512)
#pragma GCC pop_options

#undef LT_UKR_ISA
#undef LT_UKR_BODY

}  // namespace

/// The ahead-of-time micro-kernel for an MR x NV tile of `vbytes`-byte
/// vectors of `dt`, or null when there is none (the caller then uses the
/// generated one). The caller picks vbytes from the host (target_vector_bits).
MicroKernel aot_micro_kernel(DType dt, int mr, int nv, int vbytes) {
  if (nv != 2) return nullptr;
  if (vbytes == 64 && mr == 14) {
    if (dt == DType::Float32) return &avx512_f32::ukr<14, 2>;
    if (dt == DType::Float64) return &avx512_f64::ukr<14, 2>;
  }
  if (vbytes == 64 && mr == 8) {  // products of few rows (matmul.cpp, blocking_for)
    if (dt == DType::Float32) return &avx512_f32::ukr<8, 2>;
    if (dt == DType::Float64) return &avx512_f64::ukr<8, 2>;
  }
  if (vbytes == 32 && mr == 6) {
    if (dt == DType::Float32) return &avx2_f32::ukr<6, 2>;
    if (dt == DType::Float64) return &avx2_f64::ukr<6, 2>;
  }
  return nullptr;
}

}  // namespace lt::cpu
