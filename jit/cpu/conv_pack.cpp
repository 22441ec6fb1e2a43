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

// Conv's rhs row: x[n, c, out*s + tap*d - p] over every output position.
template <typename T>
void conv_row(const Geo3& g, const T* chan, const int64_t t[3], T* row) {
  const int64_t off2 = t[2] * g.d[2] - g.p[2];
  // Output positions o2 with 0 <= o2*s + off2 < in.
  const int64_t lo = std::min(g.out[2], off2 >= 0 ? 0 : (-off2 + g.s[2] - 1) / g.s[2]);
  const int64_t hi = std::max(lo, std::min(g.out[2], floor_div(g.in[2] - 1 - off2, g.s[2]) + 1));
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
    const int64_t i0 = o0 * g.s[0] + t[0] * g.d[0] - g.p[0];
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1, row += g.out[2]) {
      const int64_t i1 = o1 * g.s[1] + t[1] * g.d[1] - g.p[1];
      if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1] || lo == hi) {
        std::fill(row, row + g.out[2], T(0));
        continue;
      }
      const T* sp = chan + i0 * g.st[0] + i1 * g.st[1];
      std::fill(row, row + lo, T(0));
      if (g.s[2] == 1 && g.st[2] == 1) {
        std::memcpy(row + lo, sp + lo + off2, static_cast<size_t>(hi - lo) * sizeof(T));
      } else {
        for (int64_t o2 = lo; o2 < hi; ++o2) row[o2] = sp[(o2 * g.s[2] + off2) * g.st[2]];
      }
      std::fill(row + hi, row + g.out[2], T(0));
    }
  }
}

// ConvInputGrad's rhs row: dy[n, o, (in + p - tap*d) / s] over every input
// position, where that is an output position.
template <typename T>
void input_grad_row(const Geo3& g, const T* chan, const int64_t t[3], T* row) {
  auto out_of = [&](int j, int64_t i, int64_t* q) {  // the output position input position i reads, if any
    const int64_t v = i + g.p[j] - t[j] * g.d[j];
    if (v < 0 || v % g.s[j] != 0 || v / g.s[j] >= g.out[j]) return false;
    *q = v / g.s[j];
    return true;
  };
  const int64_t off2 = g.p[2] - t[2] * g.d[2];  // v = i2 + off2
  for (int64_t i0 = 0; i0 < g.in[0]; ++i0) {
    int64_t q0 = 0;
    const bool ok0 = out_of(0, i0, &q0);
    for (int64_t i1 = 0; i1 < g.in[1]; ++i1, row += g.in[2]) {
      int64_t q1 = 0;
      if (!ok0 || !out_of(1, i1, &q1)) {
        std::fill(row, row + g.in[2], T(0));
        continue;
      }
      const T* sp = chan + q0 * g.st[0] + q1 * g.st[1];
      if (g.s[2] == 1) {
        const int64_t lo = std::min(g.in[2], std::max<int64_t>(0, -off2));
        const int64_t hi = std::max(lo, std::min(g.in[2], g.out[2] - off2));
        std::fill(row, row + lo, T(0));
        if (g.st[2] == 1) {
          std::memcpy(row + lo, sp + lo + off2, static_cast<size_t>(hi - lo) * sizeof(T));
        } else {
          for (int64_t i2 = lo; i2 < hi; ++i2) row[i2] = sp[(i2 + off2) * g.st[2]];
        }
        std::fill(row + hi, row + g.in[2], T(0));
      } else {
        std::fill(row, row + g.in[2], T(0));
        // v = i2 + off2 = q*s: the first q with i2 >= 0, then every s-th input position.
        for (int64_t q = std::max<int64_t>(0, (off2 <= 0 ? 0 : (off2 + g.s[2] - 1) / g.s[2])); q < g.out[2]; ++q) {
          const int64_t i2 = q * g.s[2] - off2;
          if (i2 >= g.in[2]) break;
          if (i2 >= 0) row[i2] = sp[q * g.st[2]];
        }
      }
    }
  }
}

// ConvWeightGrad's rhs: per column (ci, tap) its source offset from the
// row's origin and its displacement per dim; per row (n, out) one origin.
struct WeightGradColumns {
  std::vector<int64_t> off, disp[3];
  int64_t max_disp[3] = {0, 0, 0};
};

WeightGradColumns weight_grad_columns(const Geo3& g) {
  WeightGradColumns w;
  const int64_t N = g.Cg * g.Kk;
  w.off.resize(N);
  for (int j = 0; j < 3; ++j) w.disp[j].resize(N);
  for (int64_t col = 0; col < N; ++col) {
    int64_t t[3];
    unravel_tap(g, col % g.Kk, t);
    int64_t off = (col / g.Kk) * g.sc;
    for (int j = 0; j < 3; ++j) {
      w.disp[j][col] = t[j] * g.d[j];
      w.max_disp[j] = std::max(w.max_disp[j], w.disp[j][col]);
      off += w.disp[j][col] * g.st[j];
    }
    w.off[col] = off;
  }
  return w;
}

template <typename T>
void weight_grad_row(const Geo3& g, const WeightGradColumns& w, const T* src, int64_t n, int64_t gi, int64_t l,
                     T* row) {
  const int64_t o[3] = {l / (g.out[1] * g.out[2]), (l / g.out[2]) % g.out[1], l % g.out[2]};
  int64_t org[3];
  bool interior = true;
  const T* sp = src + g.base + n * g.sn + gi * g.Cg * g.sc;
  for (int j = 0; j < 3; ++j) {
    org[j] = o[j] * g.s[j] - g.p[j];
    interior = interior && org[j] >= 0 && org[j] + w.max_disp[j] < g.in[j];
    sp += org[j] * g.st[j];
  }
  const int64_t N = static_cast<int64_t>(w.off.size());
  if (interior) {
    for (int64_t col = 0; col < N; ++col) row[col] = sp[w.off[col]];
    return;
  }
  for (int64_t col = 0; col < N; ++col) {
    bool ok = true;
    for (int j = 0; j < 3; ++j) {
      const int64_t i = org[j] + w.disp[j][col];
      ok = ok && i >= 0 && i < g.in[j];
    }
    row[col] = ok ? sp[w.off[col]] : T(0);
  }
}

// Rows [r0, r1) of the rhs (r = b*K + k), each built then cut into panels.
template <typename T>
void pack_rhs_rows(const Kernel& k, const Geo3& g, const WeightGradColumns* wg, const T* src, int64_t R, T* dst,
                   int64_t r0, int64_t r1) {
  const MatMulConv& c = k.mm_conv;
  const int64_t N = k.domain[2], K = k.domain[3], Q = (N + R - 1) / R;
  thread_local std::vector<char> scratch;
  if (scratch.size() < static_cast<size_t>(N) * sizeof(T)) scratch.resize(static_cast<size_t>(N) * sizeof(T));
  T* row = reinterpret_cast<T*>(scratch.data());
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / K, kk = r % K;
    if (c.op == Op::ConvWeightGrad) {
      weight_grad_row(g, *wg, src, kk / g.L, b, kk % g.L, row);
    } else {
      const int64_t n = b / g.groups, gi = b % g.groups, ch = kk / g.Kk;
      int64_t t[3];
      unravel_tap(g, kk % g.Kk, t);
      const int64_t channel = c.op == Op::Conv ? gi * g.Cg + ch : gi * g.Og + ch;
      const T* chan = src + g.base + n * g.sn + channel * g.sc;
      if (c.op == Op::Conv)
        conv_row(g, chan, t, row);
      else
        input_grad_row(g, chan, t, row);
    }
    T* out = dst + (b * Q * K + kk) * R;
    for (int64_t q = 0; q < Q; ++q)
      std::memcpy(out + q * K * R, row + q * R, static_cast<size_t>(std::min(R, N - q * R)) * sizeof(T));
  }
}

// The weight gradient's lhs, dy[n, gi*Og + m, out], into MR-row panels
// [batch][P][K][MR]: per (batch, panel, n) the panel's rows of dy side by side.
template <typename T>
void pack_weight_grad_lhs(const Kernel& k, const Geo3& g, const T* src, int64_t R, int64_t batch, T* dst) {
  const int64_t M = k.domain[1], K = k.domain[3], P = (M + R - 1) / R, N = k.mm_conv.N;
  std::vector<int64_t> loff(static_cast<size_t>(g.L));
  for (int64_t l = 0; l < g.L; ++l)
    loff[l] = (l / (g.out[1] * g.out[2])) * g.st[0] + ((l / g.out[2]) % g.out[1]) * g.st[1] + (l % g.out[2]) * g.st[2];
  const int64_t tasks = batch * P * N;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, tasks, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, R * g.L))),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t t = range.begin(); t < range.end(); ++t) {
                        const int64_t b = t / (P * N), p = (t / N) % P, n = t % N;
                        T* out = dst + ((b * P + p) * K + n * g.L) * R;
                        const int64_t rows = std::min(R, M - p * R);
                        for (int64_t r = 0; r < rows; ++r) {
                          const T* sp = src + g.base + n * g.sn + (b * g.Og + p * R + r) * g.sc;
                          for (int64_t l = 0; l < g.L; ++l) out[l * R + r] = sp[loff[l]];
                        }
                      }
                    });
}

template <typename T>
void pack(const Kernel& k, bool lhs, int64_t R, int64_t batch, void* const* buffers, void* dst) {
  const MatMulConv& c = k.mm_conv;
  const StridedSource& s = lhs ? c.lhs : c.rhs;
  const Geo3 g = geo3(c, s);
  const T* src = static_cast<const T*>(buffers[s.buffer]);
  if (lhs) {
    pack_weight_grad_lhs(k, g, src, R, batch, static_cast<T*>(dst));
    return;
  }
  WeightGradColumns wg;
  if (c.op == Op::ConvWeightGrad) wg = weight_grad_columns(g);
  const int64_t N = k.domain[2], rows = batch * k.domain[3];
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, N))),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      pack_rhs_rows(k, g, &wg, src, R, static_cast<T*>(dst), range.begin(), range.end());
                    });
}

}  // namespace

bool conv_packs(const Kernel& k, bool lhs) {
  const MatMulConv& c = k.mm_conv;
  if (k.kind != KernelKind::MatMul || !c.valid() || k.mm_acc < 0) return false;
  const DType dt = k.buffers[k.mm_acc].dtype;
  if (dt != DType::Float32 && dt != DType::Float64) return false;
  const StridedSource& s = lhs ? c.lhs : c.rhs;
  if (!s.valid() || k.buffers[s.buffer].dtype != dt) return false;
  return !lhs || c.op == Op::ConvWeightGrad;
}

void pack_conv_operand(const Kernel& k, bool lhs, int64_t R, int64_t batch, void* const* buffers, void* dst) {
  if (k.buffers[k.mm_acc].dtype == DType::Float32)
    pack<float>(k, lhs, R, batch, buffers, dst);
  else
    pack<double>(k, lhs, R, batch, buffers, dst);
}

}  // namespace lt::cpu
