// jit/cpu/conv_pack.h — im2col panels for convolution MatMul kernels.
//
// A convolution is a MatMul kernel whose operand reads the input through the
// convolution's index relation (scheduler/kernel.h, MatMulConv). Evaluating
// that operand's DAG per element (div/mod of the column into output
// positions, bounds checks, a select) ran at 1-3 GB/s; these routines write
// the same panels a row at a time instead: a row of the implicit im2col
// matrix is runs of contiguous input (or strided, for a strided convolution)
// between zeros whose extent is computed once per row, then cut into the
// panels. Nothing but the panels is written (no im2col buffer), and the
// rhs panels only a KC block at a time, in cache (ConvRhsPacker).
#pragma once

#include <cstdint>
#include <memory>

#include "scheduler/kernel.h"

namespace lt::cpu {

/// Whether operand `lhs` of MatMul kernel `k` is packed here: the kernel
/// is a float32/float64 convolution whose MatMulConv describes the operand
/// (the rhs of every convolution; the lhs of a weight gradient).
bool conv_packs(const Kernel& k, bool lhs);

/// Packs a weight gradient's lhs (dy) from `buffers` (the kernel's) into
/// R-row panels [batch][P][K][R] at `dst` (`batch` 1 when it does not
/// depend on the batch: one group), the layout jit/cpu/matmul.cpp's driver
/// reads. Only real rows are written.
void pack_conv_lhs(const Kernel& k, int64_t R, int64_t batch, void* const* buffers, void* dst);

/// Pixels per block of the weight gradient's dot products.
constexpr int64_t kDotBlock = 512;
/// Whether a weight gradient runs as dot products of rows (float32, AVX-512
/// hosts, dy contiguous along its pixels): both operands are contiguous
/// along the summed pixels, so nothing is transposed. The driver
/// (jit/cpu/matmul.cpp) then splits the units below across threads and runs
/// the epilogue on the summed product.
bool conv_weight_grad_dots(const Kernel& k);
/// Units of work per group: (batch element, block of kDotBlock pixels).
int64_t conv_weight_grad_units(const Kernel& k);
/// Adds group b's product over units [u0, u1) into out [M][N] (row-major).
void conv_weight_grad_dots(const Kernel& k, void* const* buffers, int64_t b, int64_t u0, int64_t u1, float* out);

/// The rhs, packed a block at a time where it is used: the driver packs the
/// rows [k0, k1) and columns [n0, n1) a tile needs for one KC block into a
/// per-thread buffer right before the micro-kernels read them, so the im2col
/// panels stay in cache and never exist whole.
class ConvRhsPacker {
 public:
  ConvRhsPacker(const Kernel& k, void* const* buffers);
  ~ConvRhsPacker();
  /// Batch b, rows [k0, k1), columns [n0, n1) into R-column panels
  /// [q][k1 - k0][R] at `dst` (only real columns written).
  void block(int64_t R, int64_t b, int64_t k0, int64_t k1, int64_t n0, int64_t n1, void* dst) const;

 private:
  struct State;
  template <typename T>
  void block_of(int64_t R, int64_t b, int64_t k0, int64_t k1, int64_t n0, int64_t n1, T* dst) const;
  const Kernel& k_;
  std::unique_ptr<State> s_;
  bool f64_ = false;
};

}  // namespace lt::cpu
