// jit/cpu/conv_pack.h — im2col panels for convolution MatMul kernels.
//
// A convolution is a MatMul kernel whose operand reads the input through the
// convolution's index relation (scheduler/kernel.h, MatMulConv). Evaluating
// that operand's DAG per element (div/mod of the column into output
// positions, bounds checks, a select) ran at 1-3 GB/s; these routines write
// the same panels a row at a time instead: a row of the implicit im2col
// matrix is runs of contiguous input (or strided, for a strided convolution)
// between zeros whose extent is computed once per row, then cut into the
// panels. Nothing but the panels is written (no im2col buffer).
#pragma once

#include <cstdint>

#include "scheduler/kernel.h"

namespace lt::cpu {

/// Whether operand `lhs` of MatMul kernel `k` is packed by pack_conv_operand:
/// the kernel is a float32/float64 convolution whose MatMulConv describes the
/// operand (the rhs of every convolution; the lhs of a weight gradient).
bool conv_packs(const Kernel& k, bool lhs);

/// Packs that operand from `buffers` (the kernel's) into `dst`: the rhs into
/// R-column panels [B][Q][K][R], the lhs into R-row panels [batch][P][K][R]
/// (`batch` 1 when the lhs does not depend on the batch), the layout
/// jit/cpu/matmul.cpp's driver reads. Only real rows and columns are written.
void pack_conv_operand(const Kernel& k, bool lhs, int64_t R, int64_t batch, void* const* buffers, void* dst);

}  // namespace lt::cpu
