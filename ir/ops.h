// ir/ops.h — the table of primitive ops: the single source of truth.
//
// Every backend, the reference evaluator, autograd and the text format switch
// over this enum. Composite operations (softmax, gelu, layer_norm, ...) are
// not here: they are decompositions into these primitives (ir/builder.h).
//
// Conventions every primitive obeys, so backends stay simple:
// - elementwise inputs have exactly the output's shape and (except Where's
//   condition and Cast) its dtype: the builder inserts Expand and Cast nodes.
//   The one exception is a Scalar node: it is taken as a rank-0 operand
//   directly and broadcast (a tensor-scalar op records no Expand: Python's
//   per-op cost is counted in nodes). Any other rank-0 operand is expanded;
// - reductions keep the reduced dims with size 1 (keepdim); the builder
//   reshapes afterwards when keepdim is false;
// - movement ops never copy in a backend: they are index expressions.
#pragma once

#include <cstdint>
#include <string_view>

namespace lt {

enum class OpKind : uint8_t {
  Source,    ///< no tensor inputs: Input, Scalar, Iota, RandUniform (scalar inputs only)
  Unary,     ///< elementwise, one input
  Binary,    ///< elementwise, two inputs of equal dtype and shape (or rank-0 Scalar)
  Ternary,   ///< Where(cond, a, b)
  Reduce,    ///< attrs = reduced axes (sorted); output keeps them as size 1
  Scan,      ///< attrs = {axis}
  Movement,  ///< view-like: Reshape, Permute, Expand, Slice, Flip, Pad
  Concat,    ///< attrs = {axis}, n inputs
  Gather,    ///< Gather(x, index) attrs={axis}
  Scatter,   ///< ScatterAdd(self, index, src) attrs={axis}
  MatMul,    ///< [B.., M, K] x [B.., K, N] with equal batch dims
};

// X(enum name, text name, kind, arity (-1 = variadic))
#define LT_PRIMITIVE_OPS(X)                  \
  X(Input, "input", Source, 0)               \
  X(Scalar, "scalar", Source, 0)             \
  X(Iota, "iota", Source, 0)                 \
  X(RandUniform, "rand_uniform", Source, 2)  \
  X(Neg, "neg", Unary, 1)                    \
  X(Abs, "abs", Unary, 1)                    \
  X(Exp, "exp", Unary, 1)                    \
  X(Log, "log", Unary, 1)                    \
  X(Log1p, "log1p", Unary, 1)                \
  X(Expm1, "expm1", Unary, 1)                \
  X(Sqrt, "sqrt", Unary, 1)                  \
  X(Sin, "sin", Unary, 1)                    \
  X(Cos, "cos", Unary, 1)                    \
  X(Tanh, "tanh", Unary, 1)                  \
  X(Erf, "erf", Unary, 1)                    \
  X(Floor, "floor", Unary, 1)                \
  X(Ceil, "ceil", Unary, 1)                  \
  X(Round, "round", Unary, 1)                \
  X(Sign, "sign", Unary, 1)                  \
  X(LogicalNot, "logical_not", Unary, 1)     \
  X(IsNan, "isnan", Unary, 1)                \
  X(Cast, "cast", Unary, 1)                  \
  X(Detach, "detach", Unary, 1)              \
  X(Add, "add", Binary, 2)                   \
  X(Sub, "sub", Binary, 2)                   \
  X(Mul, "mul", Binary, 2)                   \
  X(Div, "div", Binary, 2)                   \
  X(Pow, "pow", Binary, 2)                   \
  X(Maximum, "maximum", Binary, 2)           \
  X(Minimum, "minimum", Binary, 2)           \
  X(Eq, "eq", Binary, 2)                     \
  X(Ne, "ne", Binary, 2)                     \
  X(Lt, "lt", Binary, 2)                     \
  X(Le, "le", Binary, 2)                     \
  X(Gt, "gt", Binary, 2)                     \
  X(Ge, "ge", Binary, 2)                     \
  X(LogicalAnd, "logical_and", Binary, 2)    \
  X(LogicalOr, "logical_or", Binary, 2)      \
  X(Where, "where", Ternary, 3)              \
  X(ReduceSum, "reduce_sum", Reduce, 1)      \
  X(ReduceProd, "reduce_prod", Reduce, 1)    \
  X(ReduceMax, "reduce_max", Reduce, 1)      \
  X(ReduceMin, "reduce_min", Reduce, 1)      \
  X(ArgMax, "argmax", Reduce, 1)             \
  X(ArgMin, "argmin", Reduce, 1)             \
  X(CumSum, "cumsum", Scan, 1)               \
  X(Reshape, "reshape", Movement, 1)         \
  X(Permute, "permute", Movement, 1)         \
  X(Expand, "expand", Movement, 1)           \
  X(Slice, "slice", Movement, 1)             \
  X(Flip, "flip", Movement, 1)               \
  X(Pad, "pad", Movement, 2)                 \
  X(Concat, "concat", Concat, -1)            \
  X(Gather, "gather", Gather, 2)             \
  X(ScatterAdd, "scatter_add", Scatter, 3)   \
  X(MatMul, "matmul", MatMul, 2)

enum class Op : uint8_t {
#define LT_OP_ENUM(name, text, kind, arity) name,
  LT_PRIMITIVE_OPS(LT_OP_ENUM)
#undef LT_OP_ENUM
      NumOps
};

struct OpInfo {
  std::string_view name;
  OpKind kind;
  int arity;
};

const OpInfo& op_info(Op op);
inline std::string_view op_name(Op op) { return op_info(op).name; }
inline OpKind op_kind(Op op) { return op_info(op).kind; }
bool parse_op(std::string_view name, Op* out);

inline bool is_elementwise(Op op) {
  OpKind k = op_kind(op);
  return k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Ternary;
}
/// Comparison and logical ops produce bool.
inline bool is_predicate(Op op) {
  return (op >= Op::Eq && op <= Op::LogicalOr) || op == Op::LogicalNot || op == Op::IsNan;
}

/*
 Attribute layouts (Node::attrs), one per op that has any:
   Iota          {axis}                      shape = output shape, value = index along axis (i64)
   RandUniform   {stream}                    inputs = (seed, offset), i64 scalars;
                                             value[i] = uniform_from_bits(philox4x32(seed, offset + i)[stream], dtype)
   Cast          {}                          output dtype is the node's dtype
   Reduce*       {axes...}                   sorted, output keeps them with size 1
   ArgMax/ArgMin {axis}                      first index of the extreme value; NaN counts as the extreme
   CumSum        {axis}
   Reshape       {}                          output shape is the node's shape
   Permute       {perm...}                   out dim i = in dim perm[i]
   Expand        {}                          input has equal rank; size-1 dims stretch
   Slice         {start0, step0, start1, step1, ...}   step > 0; output sizes in node shape
   Flip          {axes...}
   Pad           {lo0, hi0, lo1, hi1, ...}   input 1 = fill value scalar; lo/hi >= 0
   Concat        {axis}
   Gather        {axis}                      out[i] = x[i with i[axis] = index[i]]; index shape = out shape
   ScatterAdd    {axis}                      out = self; out[i with i[axis]=index[j]] += src[j] over j in index's shape
*/

}  // namespace lt
