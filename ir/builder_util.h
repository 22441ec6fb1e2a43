// ir/builder_util.h — helpers shared by the builder files (not installed API).
#pragma once

#include <string_view>

#include "ir/builder.h"
#include "ir/error.h"

namespace lt::ops::detail {

/// How a node takes part in type promotion.
inline OperandRank rank_of(const NodePtr& n) {
  if (n->op == Op::Scalar && !n->attrs.empty() && n->attrs[0] == 1) return OperandRank::Scalar;
  return n->shape.empty() ? OperandRank::ZeroDim : OperandRank::Tensor;
}

inline DType result_type_of(std::initializer_list<const NodePtr*> nodes) {
  PromotionOperand ops[4];
  size_t n = 0;
  for (const NodePtr* p : nodes) ops[n++] = {(*p)->dtype, rank_of(*p)};
  return result_type(ops, n);
}

/// Reshape to `ndim` dims by prepending 1s, then Expand to `shape` (no-op when equal).
NodePtr expand_to(const NodePtr& x, absl::Span<const int64_t> shape);
/// Reshape primitive without -1 handling (numel must match).
NodePtr reshape_exact(const NodePtr& x, Shape shape);
/// An elementwise operand broadcast to `shape`: a Scalar node as it is (the
/// primitives take rank-0 Scalar operands directly, ir/ops.h), else expand_to.
NodePtr broadcast_operand(const NodePtr& x, absl::Span<const int64_t> shape);
/// Elementwise primitive on operands already of the output's dtype and either
/// its shape or rank-0 Scalar nodes; the output has the shaped operands' shape.
NodePtr elementwise(Op op, DType out_dtype, const NodePtr& a, const NodePtr& b = nullptr, const NodePtr& c = nullptr);
/// Scalar node of x's dtype (not wrapped), used inside decompositions.
NodePtr constant_like(const NodePtr& x, double value);
/// Reduction primitive keeping dims; `dims` already normalised and sorted.
NodePtr reduce_keep(Op op, const NodePtr& x, const Dims& dims, DType dtype);
/// Drops the (size-1) dims listed in sorted `dims`.
NodePtr drop_dims(const NodePtr& x, const Dims& dims);
std::string shapes_str(std::initializer_list<const NodePtr*> nodes);
/// Marks the output of a composite whose PyTorch backward saves its result
/// (Node::saves_output), for autograd's in-place check. Changes no IR.
inline NodePtr saving_output(NodePtr n) {
  n->saves_output = true;
  return n;
}

}  // namespace lt::ops::detail
