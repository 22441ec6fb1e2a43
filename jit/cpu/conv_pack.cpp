// jit/cpu/conv_pack.cpp — im2col panels for convolution MatMul kernels (conv_pack.h).
//
// The three convolutions (ir/conv.h) as the MatMul domain [B, M, N, K] the
// scheduler gives them (scheduler/schedule.cpp, conv_operands):
//   Conv            rhs (b = (n, gi), k = (ci, tap), col = out): x[n, gi*Cg + ci, out*s + tap*d - p]
//   ConvInputGrad   rhs (b = (n, gi), k = (oi, tap), col = in):  dy[n, gi*Og + oi, (in + p - tap*d) / s]
//   ConvWeightGrad  rhs (b = gi, k = (n, out), col = (ci, tap)): x[n, gi*Cg + ci, out*s + tap*d - p]
//                   lhs (b = gi, m = oi, k = (n, out)):          dy[n, gi*Og + oi, out]
// each zero where the position falls outside (padding, or a position a
// strided convolution skips). Rows (one (b, k) of the rhs) are built whole
// in a small per-thread buffer, then cut into the R-wide panels.
#include "jit/cpu/conv_pack.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <immintrin.h>

#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace lt::cpu {
namespace {

// The geometry with the spatial dims right-aligned into three (leading
// dims of extent 1), so every loop below is a fixed three-deep nest.
struct Geo3 {
  int64_t in[3], out[3], ker[3], s[3], p[3], d[3], st[3];  // st: the source's spatial strides
  int64_t sn, sc, base;                                      // the source's batch and channel strides, offset
  int64_t groups, Cg, Og, Kk, L;
};

Geo3 geo3(const MatMulConv& c, const StridedSource& src) {
  Geo3 g;
  const int lead = 3 - c.nd;
  for (int j = 0; j < 3; ++j) {
    const int i = j - lead;
    const bool real = i >= 0;
    g.in[j] = real ? c.in[i] : 1;
    g.out[j] = real ? c.out[i] : 1;
    g.ker[j] = real ? c.kernel[i] : 1;
    g.s[j] = real ? c.stride[i] : 1;
    g.p[j] = real ? c.pad[i] : 0;
    g.d[j] = real ? c.dilation[i] : 1;
    g.st[j] = real ? src.strides[2 + i] : 0;
  }
  g.sn = src.strides[0], g.sc = src.strides[1], g.base = src.base;
  g.groups = c.groups, g.Cg = c.C / c.groups, g.Og = c.O / c.groups;
  g.Kk = g.ker[0] * g.ker[1] * g.ker[2];
  g.L = g.out[0] * g.out[1] * g.out[2];
  return g;
}

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The tap's coordinates.
void unravel_tap(const Geo3& g, int64_t tap, int64_t t[3]) {
  t[2] = tap % g.ker[2];
  t[1] = (tap / g.ker[2]) % g.ker[1];
  t[0] = tap / (g.ker[2] * g.ker[1]);
}

// The segments of columns [c0, c1) of a row whose columns are positions in a
// `dims` grid (row-major): calls seg(p0, p1, j0, j1, dst) per run of the
// innermost dim (p0, p1 its outer coordinates, [j0, j1) its inner range),
// dst advancing through the row.
template <typename T, typename Seg>
void for_segments(const int64_t dims[3], int64_t c0, int64_t c1, T* dst, const Seg& seg) {
  for (int64_t c = c0; c < c1;) {
    const int64_t j = c % dims[2], rest = c / dims[2];
    const int64_t len = std::min(c1 - c, dims[2] - j);
    seg(rest / dims[1], rest % dims[1], j, j + len, dst);
    dst += len, c += len;
  }
}

// Columns [c0, c1) of a row over a plane of `rows` x W positions that reads
// a contiguous source plane of src_rows x W shifted by (a, b): column
// (r, j) is src[(r + a) * W + j + b], zero where that is outside the plane.
// One copy of the columns whose source index lies in the plane, then the
// columns that wrapped across a row edge zeroed: for a stride-1
// convolution with the input's width ("same" padding, the common case) a row
// is a shifted copy of the channel, and per-segment work was most of the
// packing time at 16x16.
template <typename T>
void shifted_plane(const T* src, int64_t src_rows, int64_t W, int64_t a, int64_t b, int64_t c0, int64_t c1, T* row) {
  const int64_t shift = a * W + b;
  const int64_t lo = std::clamp(-shift, c0, c1), hi = std::clamp(src_rows * W - shift, c0, c1);
  std::fill(row, row + (lo - c0), T(0));
  if (hi > lo) std::memcpy(row + (lo - c0), src + lo + shift, static_cast<size_t>(hi - lo) * sizeof(T));
  std::fill(row + (std::max(hi, lo) - c0), row + (c1 - c0), T(0));
  if (b == 0) return;
  const int64_t j0 = b < 0 ? 0 : W - b, j1 = b < 0 ? std::min(W, -b) : W;  // the wrapped columns of each row
  for (int64_t r = c0 / W; r * W < c1; ++r)
    for (int64_t c = std::max(c0, r * W + j0), e = std::min(c1, r * W + j1); c < e; ++c) row[c - c0] = T(0);
}

// dst[i] = src[i * step] for i < n (a strided convolution's row). Step 2,
// the common stride, deinterleaves 32 floats at a time on AVX-512 hosts.
template <typename T>
inline void strided_copy_of(const T* src, int64_t step, int64_t n, T* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i * step];
}
__attribute__((target("avx512f"))) void even_floats_avx512(const float* src, int64_t n, float* dst) {
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {  // reads src[2i .. 2i + 31]: inside the row, since src[2(n - 1)] is
    if (2 * i + 32 > 2 * n - 1) break;
    __m512 a = _mm512_loadu_ps(src + 2 * i), b = _mm512_loadu_ps(src + 2 * i + 16);
    _mm512_storeu_ps(dst + i, _mm512_permutex2var_ps(a, evens, b));
  }
  for (; i < n; ++i) dst[i] = src[2 * i];
}
void strided_copy(const float* src, int64_t step, int64_t n, float* dst) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (step == 2 && avx512)
    even_floats_avx512(src, n, dst);
  else
    strided_copy_of(src, step, n, dst);
}
void strided_copy(const double* src, int64_t step, int64_t n, double* dst) { strided_copy_of(src, step, n, dst); }

// Whether rows over a grid `cols` (the columns' positions) reading a source
// grid `src` through unit strides in the two inner dims take shifted_plane:
// same width, contiguous rows.
bool plane_shift(const Geo3& g, const int64_t cols[3], const int64_t src[3]) {
  return g.s[1] == 1 && g.s[2] == 1 && g.st[2] == 1 && g.st[1] == src[2] && cols[2] == src[2];
}

// Conv's rhs row: x[n, c, out*s + tap*d - p] over output positions [c0, c1).
template <typename T>
void conv_row(const Geo3& g, const T* chan, const int64_t t[3], int64_t c0, int64_t c1, T* row) {
  if (plane_shift(g, g.out, g.in)) {
    const int64_t plane = g.out[1] * g.out[2];
    for (int64_t c = c0; c < c1;) {
      const int64_t o0 = c / plane, e = std::min(c1, (o0 + 1) * plane);
      const int64_t i0 = o0 * g.s[0] + t[0] * g.d[0] - g.p[0];
      if (i0 < 0 || i0 >= g.in[0])
        std::fill(row + (c - c0), row + (e - c0), T(0));
      else
        shifted_plane(chan + i0 * g.st[0], g.in[1], g.in[2], t[1] * g.d[1] - g.p[1], t[2] * g.d[2] - g.p[2],
                      c - o0 * plane, e - o0 * plane, row + (c - c0));
      c = e;
    }
    return;
  }
  const int64_t off2 = t[2] * g.d[2] - g.p[2];
  // Output positions o2 with 0 <= o2*s + off2 < in.
  const int64_t lo = std::min(g.out[2], off2 >= 0 ? 0 : (-off2 + g.s[2] - 1) / g.s[2]);
  const int64_t hi = std::max(lo, std::min(g.out[2], floor_div(g.in[2] - 1 - off2, g.s[2]) + 1));
  for_segments(g.out, c0, c1, row, [&](int64_t o0, int64_t o1, int64_t j0, int64_t j1, T* r) {
    const int64_t i0 = o0 * g.s[0] + t[0] * g.d[0] - g.p[0], i1 = o1 * g.s[1] + t[1] * g.d[1] - g.p[1];
    const int64_t a = std::clamp(lo, j0, j1), b = std::clamp(hi, j0, j1);
    if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1] || a == b) {
      std::fill(r, r + (j1 - j0), T(0));
      return;
    }
    const T* sp = chan + i0 * g.st[0] + i1 * g.st[1];
    std::fill(r, r + (a - j0), T(0));
    if (g.s[2] == 1 && g.st[2] == 1) {
      std::memcpy(r + (a - j0), sp + a + off2, static_cast<size_t>(b - a) * sizeof(T));
    } else {
      strided_copy(sp + (a * g.s[2] + off2) * g.st[2], g.s[2] * g.st[2], b - a, r + (a - j0));
    }
    std::fill(r + (b - j0), r + (j1 - j0), T(0));
  });
}

// ConvInputGrad's rhs row: dy[n, o, (in + p - tap*d) / s] over input
// positions [c0, c1), where that is an output position (else zero).
template <typename T>
void input_grad_row(const Geo3& g, const T* chan, const int64_t t[3], int64_t c0, int64_t c1, T* row) {
  auto out_of = [&](int j, int64_t i, int64_t* q) {  // the output position input position i reads, if any
    const int64_t v = i + g.p[j] - t[j] * g.d[j];
    if (v < 0 || v % g.s[j] != 0 || v / g.s[j] >= g.out[j]) return false;
    *q = v / g.s[j];
    return true;
  };
  if (plane_shift(g, g.in, g.out)) {  // stride 1: (in + p - tap*d) is the output position
    const int64_t plane = g.in[1] * g.in[2];
    for (int64_t c = c0; c < c1;) {
      const int64_t i0 = c / plane, e = std::min(c1, (i0 + 1) * plane);
      int64_t q0 = 0;
      if (!out_of(0, i0, &q0))
        std::fill(row + (c - c0), row + (e - c0), T(0));
      else
        shifted_plane(chan + q0 * g.st[0], g.out[1], g.out[2], g.p[1] - t[1] * g.d[1], g.p[2] - t[2] * g.d[2],
                      c - i0 * plane, e - i0 * plane, row + (c - c0));
      c = e;
    }
    return;
  }
  const int64_t off2 = g.p[2] - t[2] * g.d[2];  // v = i2 + off2
  for_segments(g.in, c0, c1, row, [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* r) {
    int64_t q0 = 0, q1 = 0;
    std::fill(r, r + (j1 - j0), T(0));
    if (!out_of(0, i0, &q0) || !out_of(1, i1, &q1)) return;
    const T* sp = chan + q0 * g.st[0] + q1 * g.st[1];
    if (g.s[2] == 1) {  // i2 in [max(0, -off2), out - off2)
      const int64_t a = std::clamp(-off2, j0, j1), b = std::clamp(g.out[2] - off2, j0, j1);
      if (b <= a) return;
      if (g.st[2] == 1)
        std::memcpy(r + (a - j0), sp + a + off2, static_cast<size_t>(b - a) * sizeof(T));
      else
        for (int64_t i2 = a; i2 < b; ++i2) r[i2 - j0] = sp[(i2 + off2) * g.st[2]];
      return;
    }
    // v = i2 + off2 = q*s: every s-th input position from the first q with i2 >= j0.
    for (int64_t q = std::max<int64_t>(0, floor_div(j0 + off2 + g.s[2] - 1, g.s[2])); q < g.out[2]; ++q) {
      const int64_t i2 = q * g.s[2] - off2;
      if (i2 >= j1) break;
      r[i2 - j0] = sp[q * g.st[2]];
    }
  });
}

// out[i*R + c] = in[c*ld + i] for i < n, c < cols: a column-major block
// into panel rows, in 8 x 8 tiles (float32 on AVX2 hosts: in registers).
template <typename T>
inline void transpose_block(const T* in, int64_t ld, int64_t cols, int64_t n, T* out, int64_t R) {
  for (int64_t i0 = 0; i0 < n; i0 += 8) {
    const int64_t ie = std::min(n, i0 + 8);
    for (int64_t c0 = 0; c0 < cols; c0 += 8) {
      const int64_t ce = std::min(cols, c0 + 8);
      if (ie - i0 == 8 && ce - c0 == 8) {
        for (int64_t i = 0; i < 8; ++i)
          for (int64_t c = 0; c < 8; ++c) out[(i0 + i) * R + c0 + c] = in[(c0 + c) * ld + i0 + i];
        continue;
      }
      for (int64_t i = i0; i < ie; ++i)
        for (int64_t c = c0; c < ce; ++c) out[i * R + c] = in[c * ld + i];
    }
  }
}
// 8 x 8 float32 blocks transposed in ymm registers (unpack, shuffle, lane permute).
__attribute__((target("avx2"))) void transpose_f32_avx2(const float* in, int64_t ld, int64_t cols, int64_t n,
                                                         float* out, int64_t R) {
  const int64_t n8 = n / 8 * 8, c8 = cols / 8 * 8;
  for (int64_t i0 = 0; i0 < n8; i0 += 8) {
    for (int64_t c0 = 0; c0 < c8; c0 += 8) {
      const float* p = in + c0 * ld + i0;
      __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + ld), r2 = _mm256_loadu_ps(p + 2 * ld),
             r3 = _mm256_loadu_ps(p + 3 * ld), r4 = _mm256_loadu_ps(p + 4 * ld), r5 = _mm256_loadu_ps(p + 5 * ld),
             r6 = _mm256_loadu_ps(p + 6 * ld), r7 = _mm256_loadu_ps(p + 7 * ld);
      __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
             t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
             t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
      __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE),
             s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE),
             s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE),
             s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      float* q = out + i0 * R + c0;
      _mm256_storeu_ps(q, _mm256_permute2f128_ps(s0, s4, 0x20));
      _mm256_storeu_ps(q + R, _mm256_permute2f128_ps(s1, s5, 0x20));
      _mm256_storeu_ps(q + 2 * R, _mm256_permute2f128_ps(s2, s6, 0x20));
      _mm256_storeu_ps(q + 3 * R, _mm256_permute2f128_ps(s3, s7, 0x20));
      _mm256_storeu_ps(q + 4 * R, _mm256_permute2f128_ps(s0, s4, 0x31));
      _mm256_storeu_ps(q + 5 * R, _mm256_permute2f128_ps(s1, s5, 0x31));
      _mm256_storeu_ps(q + 6 * R, _mm256_permute2f128_ps(s2, s6, 0x31));
      _mm256_storeu_ps(q + 7 * R, _mm256_permute2f128_ps(s3, s7, 0x31));
    }
    for (int64_t i = i0; i < i0 + 8; ++i)
      for (int64_t c = c8; c < cols; ++c) out[i * R + c] = in[c * ld + i];
  }
  for (int64_t i = n8; i < n; ++i)
    for (int64_t c = 0; c < cols; ++c) out[i * R + c] = in[c * ld + i];
}
void transpose(const float* in, int64_t ld, int64_t cols, int64_t n, float* out, int64_t R) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2)
    transpose_f32_avx2(in, ld, cols, n, out, R);
  else
    transpose_block(in, ld, cols, n, out, R);
}
void transpose(const double* in, int64_t ld, int64_t cols, int64_t n, double* out, int64_t R) {
  transpose_block(in, ld, cols, n, out, R);
}

// The weight gradient's lhs, dy[n, gi*Og + m, out], into MR-row panels
// [batch][P][K][MR]: per (batch, panel, n) the panel's rows of dy side by side.
template <typename T>
void pack_weight_grad_lhs(const Kernel& k, const Geo3& g, const T* src, int64_t R, int64_t batch, T* dst) {
  const int64_t M = k.domain[1], K = k.domain[3], P = (M + R - 1) / R, N = k.mm_conv.N;
  std::vector<int64_t> loff(static_cast<size_t>(g.L));
  for (int64_t l = 0; l < g.L; ++l)
    loff[l] = (l / (g.out[1] * g.out[2])) * g.st[0] + ((l / g.out[2]) % g.out[1]) * g.st[1] + (l % g.out[2]) * g.st[2];
  bool contiguous = true;
  for (int64_t l = 0; l < g.L && contiguous; ++l) contiguous = loff[l] == l;
  const int64_t tasks = batch * P * N;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, tasks, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, R * g.L))),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t t = range.begin(); t < range.end(); ++t) {
                        const int64_t b = t / (P * N), p = (t / N) % P, n = t % N;
                        T* out = dst + ((b * P + p) * K + n * g.L) * R;
                        const int64_t rows = std::min(R, M - p * R);
                        std::vector<const T*> sp(static_cast<size_t>(rows));  // the panel's rows of dy
                        for (int64_t r = 0; r < rows; ++r) sp[r] = src + g.base + n * g.sn + (b * g.Og + p * R + r) * g.sc;
                        if (contiguous) {  // per position, the panel's rows side by side: contiguous stores
                          for (int64_t l = 0; l < g.L; ++l)
                            for (int64_t r = 0; r < rows; ++r) out[l * R + r] = sp[r][l];
                        } else {
                          for (int64_t l = 0; l < g.L; ++l)
                            for (int64_t r = 0; r < rows; ++r) out[l * R + r] = sp[r][loff[l]];
                        }
                      }
                    });
}

}  // namespace

struct ConvRhsPacker::State {
  Geo3 g;
  const void* src = nullptr;
};

ConvRhsPacker::ConvRhsPacker(const Kernel& k, void* const* buffers) : k_(k), s_(std::make_unique<State>()) {
  const MatMulConv& c = k.mm_conv;
  s_->g = geo3(c, c.rhs);
  s_->src = buffers[c.rhs.buffer];
  f64_ = k.buffers[k.mm_acc].dtype == DType::Float64;
}

ConvRhsPacker::~ConvRhsPacker() = default;

template <typename T>
void ConvRhsPacker::block_of(int64_t R, int64_t b, int64_t k0, int64_t k1, int64_t n0, int64_t n1, T* dst) const {
  const MatMulConv& c = k_.mm_conv;
  const Geo3& g = s_->g;
  const T* src = static_cast<const T*>(s_->src);
  const int64_t kc = k1 - k0, width = n1 - n0, Q = (width + R - 1) / R;
  thread_local std::vector<char> scratch;
  if (scratch.size() < static_cast<size_t>(width) * sizeof(T)) scratch.resize(static_cast<size_t>(width) * sizeof(T));
  T* row = reinterpret_cast<T*>(scratch.data());
  if (c.op == Op::ConvWeightGrad) {
    // Rows k = (n, out position) are gathers over (ci, tap); columns are conv
    // rows. Each column (ci, tap): its conv rows over the block's output
    // positions (contiguous, conv_row), stored down its panel.
    // One panel at a time: its columns' runs side by side, then transposed into it.
    thread_local std::vector<char> col_scratch;
    const size_t need = static_cast<size_t>(kc * R) * sizeof(T);
    if (col_scratch.size() < need) col_scratch.resize(need);
    T* runs = reinterpret_cast<T*>(col_scratch.data());
    for (int64_t q = 0; q < Q; ++q) {
      const int64_t c0 = n0 + q * R, c1 = std::min(n1, c0 + R);
      for (int64_t col = c0; col < c1; ++col) {
        const int64_t ci = col / g.Kk;
        int64_t t[3];
        unravel_tap(g, col % g.Kk, t);
        T* run = runs + (col - c0) * kc;
        for (int64_t kk = k0; kk < k1;) {  // per batch element n within the block
          const int64_t n = kk / g.L, l0 = kk % g.L, l1 = std::min(g.L, l0 + (k1 - kk));
          conv_row(g, src + g.base + n * g.sn + (b * g.Cg + ci) * g.sc, t, l0, l1, run + (kk - k0));
          kk += l1 - l0;
        }
      }
      transpose(runs, kc, c1 - c0, kc, dst + q * kc * R, R);
    }
    return;
  }
  for (int64_t kk = k0; kk < k1; ++kk) {
    const int64_t n = b / g.groups, gi = b % g.groups, ch = kk / g.Kk;
    int64_t t[3];
    unravel_tap(g, kk % g.Kk, t);
    const int64_t channel = c.op == Op::Conv ? gi * g.Cg + ch : gi * g.Og + ch;
    const T* chan = src + g.base + n * g.sn + channel * g.sc;
    if (c.op == Op::Conv)
      conv_row(g, chan, t, n0, n1, row);
    else
      input_grad_row(g, chan, t, n0, n1, row);
    T* out = dst + (kk - k0) * R;
    for (int64_t q = 0; q < Q; ++q)
      std::memcpy(out + q * kc * R, row + q * R, static_cast<size_t>(std::min(R, width - q * R)) * sizeof(T));
  }
}

void ConvRhsPacker::block(int64_t R, int64_t b, int64_t k0, int64_t k1, int64_t n0, int64_t n1, void* dst) const {
  if (f64_)
    block_of(R, b, k0, k1, n0, n1, static_cast<double*>(dst));
  else
    block_of(R, b, k0, k1, n0, n1, static_cast<float*>(dst));
}

// ---- the weight gradient as dot products ------------------------------------
//
// dw[o, (ci, tap)] = sum over (n, pixel) of dy[n, o, pixel] * x[n, ci, pixel*s + tap*d - p]:
// both operands are contiguous along the summed pixels (dy as stored; x as
// a conv row), so each output is a dot product of two rows and nothing is
// transposed. Per block of pixels the x rows of every (ci, tap) are built
// once (conv_row) and 4 x 4 outputs at a time accumulate in 16 vector
// registers along the pixels, reduced across lanes once per block.

namespace {

template <int MA, int NB>
__attribute__((target("avx512f,fma"))) void dot_tile(const float* const* a, const float* b, int64_t ldb, int64_t n,
                                                    float* c, int64_t ldc) {
  __m512 acc[MA][NB];
  for (int i = 0; i < MA; ++i)
    for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    __m512 bv[NB];
    for (int j = 0; j < NB; ++j) bv[j] = _mm512_loadu_ps(b + j * ldb + k);
    for (int i = 0; i < MA; ++i) {
      const __m512 av = _mm512_loadu_ps(a[i] + k);
      for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
  if (k < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - k)) - 1);
    __m512 bv[NB];
    for (int j = 0; j < NB; ++j) bv[j] = _mm512_maskz_loadu_ps(m, b + j * ldb + k);
    for (int i = 0; i < MA; ++i) {
      const __m512 av = _mm512_maskz_loadu_ps(m, a[i] + k);
      for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
  for (int i = 0; i < MA; ++i)
    for (int j = 0; j < NB; ++j) c[i * ldc + j] += _mm512_reduce_add_ps(acc[i][j]);
}

using DotTile = void (*)(const float* const*, const float*, int64_t, int64_t, float*, int64_t);
template <int MA>
DotTile dot_tile_of(int nb) {
  switch (nb) {
    case 1: return dot_tile<MA, 1>;
    case 2: return dot_tile<MA, 2>;
    case 3: return dot_tile<MA, 3>;
    default: return dot_tile<MA, 4>;
  }
}
DotTile dot_tile_for(int ma, int nb) {
  switch (ma) {
    case 1: return dot_tile_of<1>(nb);
    case 2: return dot_tile_of<2>(nb);
    case 3: return dot_tile_of<3>(nb);
    default: return dot_tile_of<4>(nb);
  }
}

}  // namespace

bool conv_weight_grad_dots(const Kernel& k) {
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  const MatMulConv& c = k.mm_conv;
  if (!avx512 || c.op != Op::ConvWeightGrad || !conv_packs(k, false) || !conv_packs(k, true) ||
      k.buffers[k.mm_acc].dtype != DType::Float32)
    return false;
  // dy's pixels contiguous, so its rows are read in place.
  int64_t expect = 1;
  for (int j = c.nd; j-- > 0;) {
    if (c.out[j] > 1 && c.lhs.strides[2 + j] != expect) return false;
    expect *= c.out[j];
  }
  return true;
}

int64_t conv_weight_grad_units(const Kernel& k) {
  const int64_t L = k.mm_conv.out[0] * k.mm_conv.out[1] * k.mm_conv.out[2];
  return k.mm_conv.N * ((L + kDotBlock - 1) / kDotBlock);
}

void conv_weight_grad_dots(const Kernel& k, void* const* buffers, int64_t b, int64_t u0, int64_t u1, float* out) {
  const MatMulConv& c = k.mm_conv;
  const Geo3 gx = geo3(c, c.rhs), gy = geo3(c, c.lhs);
  const int64_t M = k.domain[1], N = k.domain[2], L = gx.L, blocks = (L + kDotBlock - 1) / kDotBlock;
  const float* x = static_cast<const float*>(buffers[c.rhs.buffer]);
  const float* dy = static_cast<const float*>(buffers[c.lhs.buffer]);
  thread_local std::vector<float> rows;
  if (rows.size() < static_cast<size_t>(N * kDotBlock)) rows.resize(static_cast<size_t>(N * kDotBlock));
  std::vector<const float*> a(static_cast<size_t>(M));
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t n = u / blocks, l0 = (u % blocks) * kDotBlock, l1 = std::min(L, l0 + kDotBlock), len = l1 - l0;
    for (int64_t col = 0; col < N; ++col) {
      int64_t t[3];
      unravel_tap(gx, col % gx.Kk, t);
      conv_row(gx, x + gx.base + n * gx.sn + (b * gx.Cg + col / gx.Kk) * gx.sc, t, l0, l1, rows.data() + col * len);
    }
    for (int64_t m = 0; m < M; ++m) a[m] = dy + gy.base + n * gy.sn + (b * gy.Og + m) * gy.sc + l0;
    for (int64_t m0 = 0; m0 < M; m0 += 4) {
      const int ma = static_cast<int>(std::min<int64_t>(4, M - m0));
      for (int64_t n0 = 0; n0 < N; n0 += 4) {
        const int nb = static_cast<int>(std::min<int64_t>(4, N - n0));
        dot_tile_for(ma, nb)(a.data() + m0, rows.data() + n0 * len, len, len, out + m0 * N + n0, N);
      }
    }
  }
}

bool conv_packs(const Kernel& k, bool lhs) {
  const MatMulConv& c = k.mm_conv;
  if (k.kind != KernelKind::MatMul || !c.valid() || k.mm_acc < 0) return false;
  const DType dt = k.buffers[k.mm_acc].dtype;
  if (dt != DType::Float32 && dt != DType::Float64) return false;
  const StridedSource& s = lhs ? c.lhs : c.rhs;
  if (!s.valid() || k.buffers[s.buffer].dtype != dt) return false;
  return !lhs || c.op == Op::ConvWeightGrad;
}

void pack_conv_lhs(const Kernel& k, int64_t R, int64_t batch, void* const* buffers, void* dst) {
  const MatMulConv& c = k.mm_conv;
  const Geo3 g = geo3(c, c.lhs);
  if (k.buffers[k.mm_acc].dtype == DType::Float32)
    pack_weight_grad_lhs(k, g, static_cast<const float*>(buffers[c.lhs.buffer]), R, batch, static_cast<float*>(dst));
  else
    pack_weight_grad_lhs(k, g, static_cast<const double*>(buffers[c.lhs.buffer]), R, batch, static_cast<double*>(dst));
}

}  // namespace lt::cpu
