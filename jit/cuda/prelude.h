// jit/cuda/prelude.h — the device helpers every generated kernel starts with.
//
// Kept header-free (NVRTC compiles without the runtime headers) and exact
// where the reference evaluator is exact: integer arithmetic wraps (done in
// unsigned types, never signed-overflow UB), integer division truncates and
// gives 0 for a zero divisor, float max/min propagate NaN and order -0 < +0,
// float -> int casts give INT_MIN
// for NaN and out-of-range values, and Philox is bit-identical to
// ir/evaluator's philox4x32. Reductions across a row use xor butterflies, so
// every lane of a row ends with the same value without a broadcast.
#pragma once

namespace lt::cuda {

inline constexpr const char* kPrelude = R"CUDA(
typedef unsigned long long lt_u64;
struct LtError { lt_u64 code; long long value, bound, axis; };
#define LT_NOIDX 0x7fffffffffffffffLL

#define LT_ARITH(name, op)                                                                  \
  __device__ __forceinline__ float name(float a, float b) { return a op b; }               \
  __device__ __forceinline__ double name(double a, double b) { return a op b; }            \
  __device__ __forceinline__ int name(int a, int b) { return (int)((unsigned)a op (unsigned)b); } \
  __device__ __forceinline__ long long name(long long a, long long b) { return (long long)((lt_u64)a op (lt_u64)b); }
LT_ARITH(lt_add, +)
LT_ARITH(lt_sub, -)
LT_ARITH(lt_mul, *)
__device__ __forceinline__ bool lt_add(bool a, bool b) { return a | b; }
__device__ __forceinline__ bool lt_sub(bool a, bool b) { return a ^ b; }
__device__ __forceinline__ bool lt_mul(bool a, bool b) { return a & b; }

template <class T> __device__ __forceinline__ T lt_neg(T a) { return lt_sub((T)0, a); }
__device__ __forceinline__ float lt_neg(float a) { return -a; }
__device__ __forceinline__ double lt_neg(double a) { return -a; }
__device__ __forceinline__ bool lt_neg(bool a) { return a; }

template <class T> __device__ __forceinline__ T lt_fmax(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class T> __device__ __forceinline__ T lt_fmin(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
__device__ __forceinline__ float lt_max(float a, float b) { return lt_fmax(a, b); }
__device__ __forceinline__ double lt_max(double a, double b) { return lt_fmax(a, b); }
__device__ __forceinline__ int lt_max(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ long long lt_max(long long a, long long b) { return a > b ? a : b; }
__device__ __forceinline__ bool lt_max(bool a, bool b) { return a | b; }
__device__ __forceinline__ float lt_min(float a, float b) { return lt_fmin(a, b); }
__device__ __forceinline__ double lt_min(double a, double b) { return lt_fmin(a, b); }
__device__ __forceinline__ int lt_min(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ long long lt_min(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ bool lt_min(bool a, bool b) { return a & b; }

struct LtSum { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return lt_add(a, b); } };
struct LtProd { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return lt_mul(a, b); } };
struct LtMax { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return lt_max(a, b); } };
struct LtMin { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return lt_min(a, b); } };

// float16 and bfloat16 as stored bits (ir/lowp.h has the same rules): round to
// nearest even, overflow to inf, subnormals kept, NaN stays NaN (bfloat16 NaN
// is 0x7FC0 as torch's). float16 uses the hardware conversion.
__device__ __forceinline__ float lt_f16_to_float(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short lt_float_to_f16(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ float lt_bf16_to_float(unsigned short h) { return __uint_as_float((unsigned)h << 16); }
__device__ __forceinline__ unsigned short lt_float_to_bf16(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ float lt_round_f16(float f) { return lt_f16_to_float(lt_float_to_f16(f)); }
__device__ __forceinline__ float lt_round_bf16(float f) { return lt_bf16_to_float(lt_float_to_bf16(f)); }

// Truncating division; x / 0 = 0 and INT_MIN / -1 wraps, never a trap.
template <class T> __device__ __forceinline__ T lt_div(T a, T b) {
  if (b == 0) return 0;
  if (b == -1) return lt_neg(a);
  return a / b;
}

// Float -> int truncates; NaN and out-of-range give the type's minimum (as x86 cvtt*, the reference).
template <class I, class F> __device__ __forceinline__ I lt_f2i(F x) {
  const F lim = sizeof(I) == 4 ? (F)2147483648.0 : (F)9223372036854775808.0;
  return (x >= -lim && x < lim) ? (I)x : (I)((lt_u64)1 << (sizeof(I) * 8 - 1));
}

template <class T> __device__ __forceinline__ T lt_ipow(T a, T c) {
  long long base = a, e = c, result = 1;
  lt_u64 bits = (lt_u64)e;
  for (int i = 0; i < 63; ++i) {
    if (bits & 1) result = lt_mul(result, base);
    base = lt_mul(base, base);
    bits >>= 1;
  }
  if (e < 0) result = a == 1 ? 1 : a == -1 ? ((e & 1) == 0 ? 1 : -1) : 0;
  return (T)result;
}

template <class T> __device__ __forceinline__ T lt_shfl_xor(T v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
template <> __device__ __forceinline__ bool lt_shfl_xor<bool>(bool v, int m) {
  return __shfl_xor_sync(0xffffffffu, (int)v, m) != 0;
}

// All-reduce over the TPR threads of a row (TPR a power of two; > 32 means
// the row is the whole block). `sm` holds 32 slots of 8 bytes.
template <int TPR, class T, class F> __device__ __forceinline__ T lt_allreduce(T v, F f, long long* sm) {
#pragma unroll
  for (int m = (TPR < 32 ? TPR : 32) / 2; m > 0; m >>= 1) v = f(v, lt_shfl_xor(v, m));
  if (TPR > 32) {
    T* s = reinterpret_cast<T*>(sm);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
    __syncthreads();
    v = s[0];
    for (int w = 1; w < TPR / 32; ++w) v = f(v, s[w]);
  }
  return v;
}

// ArgMax/ArgMin: the first index of the extreme; NaN counts as the extreme.
template <bool MAX, class T> __device__ __forceinline__ void lt_arg_update(T& av, long long& ai, T v, long long i) {
  if (i == LT_NOIDX) return;
  bool take;
  if (ai == LT_NOIDX) {
    take = true;
  } else {
    bool an = av != av, vn = v != v;
    if (an || vn) take = vn && (!an || i < ai);
    else if (MAX ? (v > av) : (v < av)) take = true;
    else take = v == av && i < ai;
  }
  if (take) av = v, ai = i;
}
template <bool MAX, int TPR, class T>
__device__ __forceinline__ void lt_arg_allreduce(T& v, long long& i, long long* sv, long long* si) {
#pragma unroll
  for (int m = (TPR < 32 ? TPR : 32) / 2; m > 0; m >>= 1) {
    T ov = lt_shfl_xor(v, m);
    long long oi = lt_shfl_xor(i, m);
    lt_arg_update<MAX>(v, i, ov, oi);
  }
  if (TPR > 32) {
    T* s = reinterpret_cast<T*>(sv);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v, si[threadIdx.x >> 5] = i;
    __syncthreads();
    v = s[0], i = si[0];
    for (int w = 1; w < TPR / 32; ++w) lt_arg_update<MAX>(v, i, s[w], si[w]);
  }
}

__device__ __forceinline__ long long lt_check_index(long long x, long long bound, lt_u64 code, long long axis,
                                                    LtError* err) {
  if ((lt_u64)x < (lt_u64)bound) return x;
  if (atomicCAS(&err->code, 0ull, code) == 0ull) err->value = x, err->bound = bound, err->axis = axis;
  return 0;
}

// Philox4x32-10, key = seed, counter = (index lo, index hi, 0, 0): ir/evaluator.cpp.
__device__ __forceinline__ unsigned lt_philox(long long seed, long long index, int stream) {
  unsigned c0 = (unsigned)index, c1 = (unsigned)((lt_u64)index >> 32), c2 = 0, c3 = 0;
  unsigned k0 = (unsigned)seed, k1 = (unsigned)((lt_u64)seed >> 32);
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    unsigned hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    unsigned hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    unsigned n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0, c1 = lo1, c2 = n2, c3 = lo0;
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  return stream == 0 ? c0 : stream == 1 ? c1 : stream == 2 ? c2 : c3;
}
__device__ __forceinline__ float lt_uniform_f32(unsigned bits) { return (float)(bits >> 8) * (1.0f / 16777216.0f); }
__device__ __forceinline__ double lt_uniform_f64(unsigned bits) { return (double)bits * (1.0 / 4294967296.0); }

__device__ __forceinline__ void lt_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void lt_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void lt_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void lt_atomic_add(long long* p, long long v) { atomicAdd((lt_u64*)p, (lt_u64)v); }
__device__ __forceinline__ void lt_atomic_add(unsigned char* p, bool v) { if (v) *(volatile unsigned char*)p = 1; }

// Tensor cores (sm_80 and newer): one warp's D = A B + D for a 16x16 A (row
// major) and a 16x8 B (column major) of 16-bit floats with float32 D, in the
// fragment layout of the PTX ISA's "Matrix Fragments for mma.m16n8k16"
// (g = lane / 4, t = lane % 4; each register holds two k-consecutive
// elements, the lower k in the low half):
//   a[0]: A[g][2t..2t+1]    a[1]: A[g+8][2t..]    a[2]: A[g][2t+8..]    a[3]: A[g+8][2t+8..]
//   b[0]: B[2t..2t+1][g]    b[1]: B[2t+8..][g]
//   d[0], d[1]: D[g][2t], D[g][2t+1]    d[2], d[3]: D[g+8][2t], D[g+8][2t+1]
// Each product of two bfloat16 or float16 values is exact in float32.
#define LT_MMA(name, type)                                                                         \
  __device__ __forceinline__ void name(float* d, const unsigned* a, const unsigned* b) {          \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." type "." type ".f32 "                  \
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"               \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));             \
  }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
LT_MMA(lt_mma_bf16, "bf16")
LT_MMA(lt_mma_f16, "f16")
#endif
)CUDA";

}  // namespace lt::cuda
