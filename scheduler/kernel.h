// scheduler/kernel.h — the backend-neutral kernel IR (what jit/cpu and jit/cuda consume).
//
// A Kernel is a loop nest over a `domain` (a shape) plus a DAG of scalar ops
// (`ops`, in topological order: inputs always have smaller ids). Every value is
// one element; there are no tensors inside a kernel. Movement ops never appear:
// the scheduler turned them into integer index arithmetic on loop coordinates,
// so a load is `Load(buffer, element_offset)` where the offset is an ordinary
// i64 expression in the same DAG. That keeps backends tiny: they print or emit
// each op once and never reason about strides, masks or views.
//
// Loop structure (the same on every backend):
//   Elementwise: domain dims are all "element" dims; the launch range
//     [begin, end) counts elements of the row-major domain; the last dim is
//     the inner (vectorised) loop. Every op is evaluated per element.
//   Rows: domain = outer dims [0, outer_rank) ++ inner dims. The launch range
//     counts rows (linear index over the outer dims). Per row, the kernel runs
//     `num_phases` inner loops in order. An op is either row-level (depends
//     only on outer coordinates, params and finished reductions: `elem` false)
//     or element-level (`elem` true, evaluated in inner loop `phase`).
//     A Reduce op accumulates its element-level input during loop `phase` and
//     is a row-level value afterwards: softmax is one Rows kernel with phases
//     max | sum(exp(x - max)) | store(exp(x - max) / sum), reading the row
//     again in each phase. The kernel IR stores no intermediates; a backend
//     may keep an expensive element value between phases in the output row
//     (the CPU codegen's "stash" keeps exp(x - max) there, docs/cpu-jit.md).
//     Row-level stores run after the last phase.
//   MatMul: domain = [batch, M, N, K], outer_rank 2 (rows = batch*M). `mm_lhs`
//     is the lhs element at coords (b, m, k) and `mm_rhs` the rhs element at
//     (b, k, n), both as op DAGs over Coord(0..3). The product P[b, m, n]
//     (accumulated in the output dtype) is read by the *epilogue*: the
//     kernel's Store ops, an elementwise DAG over Coord(0..2) in which
//     `Load(mm_acc, (b*M + m)*N + n)` is P at the element's own coordinates.
//     `mm_acc` is a virtual buffer (plan_buffer -1, bound to nothing): the
//     backend serves it from the output tile it just accumulated, so bias,
//     activation, scaling, residual adds and casts run on the tile while it
//     is in cache. A plain matmul's epilogue is Store(out, i, Load(mm_acc, i)).
//     `mm_lhs_view` / `mm_rhs_view` say, when the operand is a plain strided
//     view of a buffer, where element (b, row, col) lives:
//     buffer[base(b) + row*row_stride + col*col_stride], base an i64 DAG over
//     Coord(0) (the lhs's row is m and col k; the rhs's row is k and col n).
//     Backends choose loop order, tiling and packing.
//
// Errors: CheckIndex clamps a data-dependent index into range (so no access
// is ever out of bounds) and records the first bad value in the launch's error
// slot; the runtime raises lt::Error(Index) after the launch.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/hash.h"
#include "ir/node.h"
#include "ir/ops.h"
#include "ir/shape.h"

namespace lt {

enum class KOpCode : uint8_t {
  Coord,       ///< i64 loop coordinate of domain axis `imm`
  Const,       ///< literal: `imm` for bool/integers, `fimm` for floats
  Param,       ///< runtime scalar from the kernel's scalar slot `imm` (8-byte slot: double or int64): a trace
               ///< scalar, or an index argument (a slice start, a concat offset; see Kernel::index_args)
  Load,        ///< element of buffer `imm` at i64 offset input 0
  Store,       ///< buffer `imm`[input 0] = input 1; produces no value
  AccumStore,  ///< buffer `imm`[input 0] += input 1 (ScatterAdd; the kernel is `serial`)
  Compute,     ///< elementwise primitive `op` (Unary/Binary/Ternary ops of ir/ops.h) on inputs
  IndexDiv,    ///< i64 floor division of input 0 (>= 0) by the constant `imm` (> 0), or by input 1 (> 0, an i64
               ///< Param) when num_inputs is 2 (shape-generic kernels, scheduler/generic.h)
  IndexMod,    ///< i64 remainder of input 0 (>= 0) by the constant `imm` (> 0), or by input 1 as IndexDiv
  Reduce,      ///< `op` in {ReduceSum, ReduceProd, ReduceMax, ReduceMin, ArgMax, ArgMin} of input 0 over the inner dims
  Scan,        ///< running CumSum of input 0 along the inner loop (inner rank 1), inclusive
  Random,      ///< RandUniform value: inputs (seed i64, linear index i64), stream `imm`
  CheckIndex,  ///< input 0 (integer index) as i64 clamped into [0, imm); error when outside. imm2 = Op for the message
               ///< (| kCheckIndexRuntime: the error is ErrorKind::Runtime, else Index), fimm = axis
};

const char* kop_name(KOpCode code);

/// Ops a backend must evaluate even when no store reads their value: stores,
/// and CheckIndex, whose error report is a side effect (a gather from a
/// constant never reads its checked index, yet a bad index must still raise).
inline bool is_effect(KOpCode code) {
  return code == KOpCode::Store || code == KOpCode::AccumStore || code == KOpCode::CheckIndex;
}

/// CheckIndex imm2 flag: an index out of range raises ErrorKind::Runtime, as
/// PyTorch's gather, scatter_add and one_hot do (index_select, embedding,
/// index_add and nll_loss raise IndexError: no flag).
constexpr int64_t kCheckIndexRuntime = int64_t{1} << 16;
/// CheckIndex imm2 flag: the index is a class target of nll_loss / cross_entropy; out of range it raises
/// PyTorch's IndexError "Target N is out of bounds."
constexpr int64_t kCheckIndexTarget = int64_t{1} << 17;
/// The CheckIndex flags of a Gather or ScatterAdd node's attrs ({axis}, {axis, 1}: Runtime, {axis, 2}: target).
inline int64_t check_index_flags(const Attrs& attrs) {
  if (attrs.size() < 2) return 0;
  return attrs[1] == 1 ? kCheckIndexRuntime : attrs[1] == 2 ? kCheckIndexTarget : 0;
}
/// The Op and the error kind of a backend's error slot code (1 + imm2).
inline Op check_index_op(int64_t code) { return static_cast<Op>((code - 1) & (kCheckIndexRuntime - 1)); }
inline ErrorKind check_index_kind(int64_t code) {
  return ((code - 1) & kCheckIndexRuntime) ? ErrorKind::Runtime : ErrorKind::Index;
}
/// Raises the error a backend's error slot reports (code != 0).
[[noreturn]] inline void raise_bad_index(int64_t code, int64_t value, int64_t axis, int64_t bound) {
  if ((code - 1) & kCheckIndexTarget) fail_on_data(ErrorKind::Index, "Target ", value, " is out of bounds.");
  fail_on_data(check_index_kind(code), op_name(check_index_op(code)), ": index ", value,
               " is out of bounds for dimension ", axis, " with size ", bound);
}

/// One scalar op. 40 bytes; kernels hold a few hundred at most.
struct KOp {
  KOpCode code = KOpCode::Const;
  Op op = Op::Add;           ///< Compute / Reduce: the primitive
  DType dtype = DType::Int64;  ///< result type (Store: the stored value's type)
  bool elem = false;         ///< Rows kernels: evaluated per inner element (else per row)
  int16_t phase = 0;         ///< elem: inner loop index; row-level: phases that must finish first (Reduce: its loop)
  uint8_t num_inputs = 0;
  int32_t inputs[3] = {-1, -1, -1};
  int64_t imm = 0;
  int64_t imm2 = 0;
  double fimm = 0.0;
};

enum class KernelKind : uint8_t { Elementwise, Rows, MatMul };

/// Kernel::scalar_slots entry of a slot that holds Kernel::index_args[slot].
constexpr int32_t kIndexArgSlot = -1;

struct KernelBuffer {
  DType dtype;
  int64_t numel;
  bool written;         ///< the kernel stores into it
  int32_t plan_buffer;  ///< Plan buffer id (binding; not part of the kernel hash)
  bool generic_numel = false;  ///< shape-generic kernels: `numel` varies between launches (not hashed)
};

/// A matmul operand that is a plain strided view of one buffer (see MatMul above).
struct MatMulView {
  int32_t buffer = -1;  ///< kernel buffer; -1: not a strided view (use the element DAG)
  int32_t base = -1;    ///< op id of the i64 base offset (depends on Coord(0) at most)
  int64_t row_stride = 0, col_stride = 0;
  bool generic = false;  ///< shape-generic kernels: the strides vary between launches (not hashed)
  bool valid() const { return buffer >= 0; }
};

/// A tensor of rank <= 5 read from one kernel buffer with literal strides:
/// element (i0, .., i_{r-1}) at base + sum(i_j * strides[j]).
struct StridedSource {
  int32_t buffer = -1;
  int64_t base = 0;
  int64_t strides[5] = {0, 0, 0, 0, 0};
  bool valid() const { return buffer >= 0; }
};

/// MatMul kernels that are convolutions (ir/conv.h): the geometry and where
/// the operands read through the convolution's index relation live, so a
/// backend may pack them with a routine of its own (the CPU's im2col panel
/// packing, jit/cpu/conv_pack.cpp) instead of evaluating mm_lhs / mm_rhs per
/// element. The element DAGs stay authoritative: a backend that ignores this
/// computes the same values. `op` is MatMul for every other kernel.
struct MatMulConv {
  Op op = Op::MatMul;  ///< Conv, ConvInputGrad or ConvWeightGrad
  int32_t nd = 0;
  int64_t groups = 1, N = 0, C = 0, O = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  /// The operand read through the relation, [N, C or O, *spatial]: x for
  /// Conv and ConvWeightGrad (the rhs), dy for ConvInputGrad (the rhs).
  StridedSource rhs;
  /// ConvWeightGrad: dy [N, O, *out], the lhs.
  StridedSource lhs;
  bool valid() const { return op != Op::MatMul; }
};

struct Kernel {
  std::string name;  ///< e.g. "k3_rows_reduce_sum" (debug only; not hashed)
  KernelKind kind = KernelKind::Elementwise;
  Shape domain;
  int32_t outer_rank = 0;
  int32_t num_phases = 1;   ///< Rows: inner loops per row
  bool serial = false;      ///< must run on one thread in order (AccumStore)
  std::vector<KernelBuffer> buffers;
  std::vector<DType> scalar_types;    ///< kernel scalar slots
  std::vector<int32_t> scalar_slots;  ///< trace scalar index of each slot, or kIndexArgSlot (binding; not hashed)
  /// Per slot: the value of an index argument (binding; not hashed). Offsets
  /// that do not change the code (where a slice starts, where a concat piece
  /// goes) are runtime arguments, so kernels that differ only in them are one
  /// compiled kernel: L steps of `h = f(h, x[:, t:t+1])` compile once.
  std::vector<int64_t> index_args;
  /// Shape-generic kernels (scheduler/generic.h): per domain axis, the scalar
  /// slot (an index argument) that holds its extent at launch, or -1 where
  /// the extent is the literal `domain[axis]`. Empty: every extent is
  /// literal. `domain` keeps the extents of this launch either way (the
  /// launch ranges come from it); the hash leaves the symbolic ones out.
  std::vector<int32_t> domain_slots;
  /// Rows kernels: the innermost-run structure a backend would derive from
  /// literal extents and strides, pinned for a shape-generic kernel from the
  /// concrete kernel it was made from (jit/cpu/jit.h, pin_reduction_order),
  /// so both sum in one order: the lanes of float sums (0: the backend
  /// decides) and whether each inner dim is its own loop (-1: it decides).
  /// Hashed when set.
  int16_t pinned_lanes = 0;
  int8_t pinned_nest = -1;
  std::vector<KOp> ops;
  int32_t mm_lhs = -1, mm_rhs = -1;  ///< MatMul only: operand element DAGs
  int32_t mm_acc = -1;               ///< MatMul only: the virtual product buffer read by the epilogue
  MatMulView mm_lhs_view, mm_rhs_view;  ///< MatMul only: strided operand layout when known
  MatMulConv mm_conv;                   ///< MatMul only: the convolution it computes, if any
  /// Nodes of Plan::simplified this kernel computes (its root and what it
  /// inlined), for the fusion lab's pictures; not part of the hash.
  std::vector<int32_t> trace_nodes;

  int64_t outer_size() const;  ///< rows (Rows/MatMul) or elements (Elementwise)
  int64_t inner_size() const;  ///< product of the inner dims (Elementwise: last dim)
  /// Whether some domain extent is a runtime argument (domain_slots): the
  /// backends then take no path whose correctness depends on an extent.
  bool symbolic_domain() const;
  bool symbolic_axis(size_t axis) const { return axis < domain_slots.size() && domain_slots[axis] >= 0; }
  /// Structural hash: everything a backend compiles (not names or bindings).
  Hash128 hash() const;
  /// Bytes read and written once per launch (for GB/s in LT_DEBUG=2).
  int64_t bytes_moved() const;
};

/// A Rows kernel whose rows are a few literal elements (a max pool's window:
/// 2 to 9) and whose reductions do not depend on their order (max, min,
/// argmax, argmin) rewritten into an Elementwise kernel over its rows, each
/// row's elements unrolled and folded in index order by ir/evaluator.cpp's
/// rule (scheduler/short_rows.cpp); false, and `kernel` untouched, otherwise.
bool unroll_short_rows(Kernel* kernel);
/// An Elementwise kernel with float arithmetic on values of its leading
/// coordinates only (a BatchNorm's per-channel rstd and derivatives)
/// rewritten into a Rows kernel without reductions over rows of those
/// coordinates, that arithmetic row-level (scheduler/row_invariants.cpp):
/// it runs once per row instead of per element; the same values.
bool hoist_row_invariants(Kernel* kernel);

/// The 8-byte launch value of scalar slot `slot`: the bits of a trace scalar
/// (a double for floating slots, else an int64) or an index argument.
int64_t kernel_scalar_bits(const Kernel& kernel, size_t slot, absl::Span<const ScalarValue> scalars);

/// MatMul kernels: the CheckIndex ops no value reads (a gather whose gathered
/// value folded to a constant, e.g. one_hot's range check), grouped by where a
/// backend evaluates them. A check that reads Coord(3) (k) belongs to an
/// operand and runs where that operand's elements are read (the rhs's when it
/// also reads Coord(2), else the lhs's); any other runs in the epilogue at
/// (b, m, n). Checks that a value reads run with that value.
struct MatMulChecks {
  std::vector<int32_t> epilogue, lhs, rhs;
};
MatMulChecks matmul_unread_checks(const Kernel& kernel);

/// The i64 offset `id` as an affine function of the loop coordinates, when it
/// is one (built from Coord, Const, Add, Sub and Mul by a constant):
/// (*coeffs)[axis] multiplies Coord(axis) and (*coeffs)[rank] is the constant.
/// False for anything else (divisions, loads: gathers). An i64 Param (an
/// index argument) is a constant not known at compile time: allowed only when
/// `constant_known` is given, which is then set false and (*coeffs)[rank]
/// holds only the known part; a coordinate multiplied by one (a stride of a
/// shape-generic kernel) gets the coefficient kRuntimeStride.
constexpr int64_t kRuntimeStride = std::numeric_limits<int64_t>::min() / 2;
bool affine_offset(const Kernel& kernel, int32_t id, std::vector<int64_t>* coeffs, bool* constant_known = nullptr);

/// Rows kernels: the row-level values element-level op `id` reads, directly or
/// through other element-level ops. Calls `row(op)` once for each row-level op
/// reached that is not a Reduce (a reduction is finished by the loop that
/// accumulates it, before any phase that reads it). `seen` (one flag per op)
/// marks what was visited; reuse it across calls to visit each op once.
template <typename RowFn>
void for_each_row_dep(const Kernel& kernel, int32_t id, std::vector<char>& seen, RowFn&& row) {
  if (seen[id]) return;
  seen[id] = 1;
  const KOp& o = kernel.ops[id];
  if (!o.elem) {
    if (o.code != KOpCode::Reduce) row(id);
    return;
  }
  for (int i = 0; i < o.num_inputs; ++i) for_each_row_dep(kernel, o.inputs[i], seen, row);
}

/// 32 hex digits (Hash128::hex lives in ir/ but is not defined there yet).
std::string hash_hex(const Hash128& h);

/// Readable listing, one op per line: "  %4 = compute mul f32 (%2, %3) elem p1".
std::string print_kernel(const Kernel& kernel);

}  // namespace lt
