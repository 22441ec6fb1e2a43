// ir/ops.h — the registry of primitive ops (rows in ir/ops.def): the single
// source of truth for what each op is.
//
// Every backend, the reference evaluator, autograd and the text format switch
// over this enum; the cost models, the fuzzer and the "what backward saves"
// pass read the properties from op_info instead of listing ops. Composite operations (softmax, gelu, layer_norm, ...) are
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
  MatMul,    ///< products with their own kernel: MatMul ([B.., M, K] x [B.., K, N], equal batch dims) and the convolutions (ir/conv.h)
};

/// Which operand dtypes an elementwise op takes and which dtype it yields.
enum class DTypeRule : uint8_t {
  None,           ///< not elementwise: the builder sets the dtype
  Same,           ///< any dtype; the output has the operands' dtype
  Float,          ///< floating: the builder promotes integer operands to float32
  Predicate,      ///< any dtype in, bool out
  Integer,        ///< integer operands only (bool and floating raise)
  IntegerOrBool,  ///< integer or bool operands (floating raises)
  Cast,           ///< any dtype in; the output dtype is the node's
};

/// Per-element cost: the one weight scale of every cost model (op_cost).
enum class CostClass : uint8_t {
  Free,       ///< sources and views: index arithmetic only
  Cheap,      ///< about one instruction per element
  Expensive,  ///< transcendentals and pow: tens of instructions per element
  MatMul,     ///< its own kernel: never worth recomputing
};

/// What a derivative reads: one mask per input, for when that input's
/// gradient is wanted. Bits: the inputs 0..2 and the op's output.
struct SavedValues {
  static constexpr uint8_t kIn0 = 1, kIn1 = 2, kIn2 = 4, kOut = 8;
  uint8_t when_wanted[3] = {0, 0, 0};
};

#include "ir/ops.def"

enum class Op : uint8_t {
#define LT_OP_ENUM(name, ...) name,
  LT_PRIMITIVE_OPS(LT_OP_ENUM)
#undef LT_OP_ENUM
      NumOps
};
constexpr size_t kNumOps = static_cast<size_t>(Op::NumOps);

struct OpInfo {
  std::string_view name;
  OpKind kind;
  int arity;
  DTypeRule dtype_rule;
  CostClass cost;
  SavedValues saves;
  bool transcendental;  ///< a vectorisable math function (exp, log, tanh, erf, ...)
  bool interpreted;     ///< the CPU interpreter tier evaluates it (jit/cpu/interpreter.h)
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
inline bool is_predicate(Op op) { return op_info(op).dtype_rule == DTypeRule::Predicate; }
inline bool is_transcendental(Op op) { return op_info(op).transcendental; }
/// Weight of one evaluation per element, on the scale every cost model uses
/// (the fusion decision in scheduler/schedule.cpp, the CPU row-phase stash).
constexpr int64_t cost_weight(CostClass c) {
  switch (c) {
    case CostClass::Free: return 0;
    case CostClass::Cheap: return 1;
    case CostClass::Expensive: return 8;
    case CostClass::MatMul: return int64_t{1} << 20;
  }
  return 0;
}
inline int64_t op_cost(Op op) { return cost_weight(op_info(op).cost); }

/// `case Op::X:` for every op that is not elementwise (and NumOps). A switch
/// that lowers elementwise ops lists each of them, then these: with
/// -Werror=switch and no default, a new elementwise op without a case there
/// fails the build.
#define LT_NON_ELEMENTWISE_CASES LT_PRIMITIVE_OPS(LT_CASE_IF_NOT_ELEMENTWISE) case Op::NumOps
#define LT_CASE_IF_NOT_ELEMENTWISE(name, text, kind, ...) LT_CASE_IF_NOT_ELEMENTWISE_##kind(name)
#define LT_CASE_IF_NOT_ELEMENTWISE_Unary(name)
#define LT_CASE_IF_NOT_ELEMENTWISE_Binary(name)
#define LT_CASE_IF_NOT_ELEMENTWISE_Ternary(name)
#define LT_CASE_IF_NOT_ELEMENTWISE_Source(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_Reduce(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_Scan(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_Movement(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_Concat(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_Gather(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_Scatter(name) case Op::name:
#define LT_CASE_IF_NOT_ELEMENTWISE_MatMul(name) case Op::name:

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
