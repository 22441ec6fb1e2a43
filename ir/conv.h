// ir/conv.h — the geometry of the convolution primitives.
//
// Three primitives share one index relation. For a batch n, a group gi of
// `groups`, an output channel o = gi*Og + oi, an input channel c = gi*Cg + ci,
// an output position `out` and a kernel tap `kk` (each an nd-vector), the
// input position is
//     in[j] = out[j]*stride[j] + kk[j]*dilation[j] - pad[j]
// and a tap whose `in` lies outside [0, in_size) reads zero (padding). Then
//   Conv(x, w) -> y:             y[n, o, out]  += w[o, ci, kk] * x[n, c, in]
//   ConvInputGrad(dy, w) -> dx:  dx[n, c, in]  += w[o, ci, kk] * dy[n, o, out]
//   ConvWeightGrad(x, dy) -> dw: dw[o, ci, kk] += x[n, c, in]  * dy[n, o, out]
// (the input gradient is a transposed convolution, the weight gradient a
// correlation of the input with the output gradient). Each is the derivative
// of the others, so autograd is closed over the three (autograd/derivatives.cpp).
//
// Shapes: x [N, C, *in], w [O, C/groups, *kernel], y / dy [N, O, *out].
// attrs: [nd, groups, stride[nd], pad[nd], dilation[nd]], `pad` the leading
// padding of each dim. What else a shape needs (the trailing padding, a
// transposed convolution's output_padding) is in the node's shape: Conv's
// output size, ConvInputGrad's input size and ConvWeightGrad's kernel size
// are the node's own. The scheduler lowers each as an implicit GEMM (a MatMul
// kernel whose operand DAG reads the input through guarded loads;
// docs/convolution.md).
#pragma once

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "ir/node.h"
#include "ir/ops.h"
#include "ir/shape.h"

namespace lt {

struct ConvGeometry {
  using Dims = absl::InlinedVector<int64_t, 3>;
  int nd = 0;
  int64_t groups = 1;
  int64_t N = 0, C = 0, O = 0;  ///< batch, input channels, output channels
  Dims in, out, kernel;         ///< spatial sizes
  Dims stride, pad, dilation;   ///< per spatial dim; pad = leading padding
  int64_t cg() const { return C / groups; }
  int64_t og() const { return O / groups; }
  int64_t in_numel() const;
  int64_t out_numel() const;
  int64_t kernel_numel() const;
  /// The three shapes.
  Shape x_shape() const;
  Shape w_shape() const;
  Shape y_shape() const;
};

/// attrs of a convolution primitive.
Attrs conv_attrs(int64_t groups, absl::Span<const int64_t> stride, absl::Span<const int64_t> pad,
                 absl::Span<const int64_t> dilation);

/// Whether `op` is one of the three convolution primitives.
inline bool is_conv_op(Op op) { return op == Op::Conv || op == Op::ConvInputGrad || op == Op::ConvWeightGrad; }

/// The geometry of a convolution node from its attrs, its operands' shapes
/// (a, b in input order) and its own shape `y`. Raises ErrorKind::Runtime
/// naming the op when they do not fit together.
ConvGeometry conv_geometry(Op op, const Attrs& attrs, const Shape& a, const Shape& b, const Shape& y);

}  // namespace lt
