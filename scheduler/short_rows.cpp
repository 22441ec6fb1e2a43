// scheduler/short_rows.cpp — Rows kernels over a few literal elements per row, unrolled into elementwise kernels.
//
// A max pool is an argmax over each window's 4 or 9 elements (bindings'
// _functional_pooling.py): as a Rows kernel that is one row per output with a
// loop of 4 steps, and the row's fixed cost (the loop, its accumulator, the
// reduction's tail) dominates: 131072 rows of 4 took 0.73 ms, ~25 cycles per
// row, in the CNN step of bench/python_cnn_step.py. Unrolled, the row's
// elements are 4 values of one elementwise kernel over the outputs, folded by
// compare-and-select in index order, and the loop over outputs vectorises.
//
// Only reductions whose value does not depend on their order are unrolled
// (max, min, argmax, argmin): the fold follows ir/evaluator.cpp's rule
// exactly (a NaN wins and stays, the first of equal values is kept), so the
// values are the same bits as the Rows kernel's. Float sums keep their
// kernel-IR lane order (jit/cpu/codegen.h, row_lanes) and are left alone.
#include "scheduler/kernel.h"

namespace lt {

namespace {

// Rows of at most this many elements are unrolled: a 3x3 window's 9.
constexpr int64_t kMaxUnrolledRow = 9;

bool order_free(Op op) { return op == Op::ReduceMax || op == Op::ReduceMin || op == Op::ArgMax || op == Op::ArgMin; }

}  // namespace

bool unroll_short_rows(Kernel* kernel) {
  const Kernel& k = *kernel;
  if (k.kind != KernelKind::Rows || k.num_phases != 1 || k.serial || k.symbolic_domain() || k.outer_rank < 1 ||
      k.domain.size() != static_cast<size_t>(k.outer_rank) + 1)
    return false;
  const int64_t L = k.domain.back();
  if (L < 2 || L > kMaxUnrolledRow) return false;
  bool any_reduce = false;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::Scan || o.code == KOpCode::AccumStore) return false;
    if (o.code == KOpCode::Reduce) {
      if (!order_free(o.op)) return false;
      any_reduce = true;
    }
    if (o.elem && o.phase != 0) return false;
  }
  if (!any_reduce) return false;

  Kernel out = k;
  out.kind = KernelKind::Elementwise;
  out.domain.pop_back();
  out.outer_rank = 0;
  out.num_phases = 1;
  out.ops.clear();
  auto push = [&](KOp o) {
    o.elem = false;
    o.phase = 0;
    out.ops.push_back(o);
    return static_cast<int32_t>(out.ops.size()) - 1;
  };
  auto constant = [&](DType dtype, int64_t v) {
    KOp c;
    c.code = KOpCode::Const;
    c.dtype = dtype;
    c.imm = v;
    return push(c);
  };
  auto compute = [&](Op op, DType dtype, std::initializer_list<int32_t> in) {
    KOp c;
    c.code = KOpCode::Compute;
    c.op = op;
    c.dtype = dtype;
    c.num_inputs = static_cast<uint8_t>(in.size());
    int i = 0;
    for (int32_t v : in) c.inputs[i++] = v;
    return push(c);
  };
  // Per op: its one value (row-level) or its L values (element-level, one per element of the row).
  std::vector<int32_t> row(k.ops.size(), -1);
  std::vector<std::vector<int32_t>> elem(k.ops.size());
  const int64_t inner_axis = k.outer_rank;
  for (size_t id = 0; id < k.ops.size(); ++id) {
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Reduce) {
      // The evaluator's rule: v replaces the best unless the best is NaN, and
      // does when v is NaN or beyond it (strictly: the first of equals stays).
      // A row-level input (a broadcast along the row) is L equal values.
      const std::vector<int32_t> v =
          k.ops[o.inputs[0]].elem ? elem[o.inputs[0]] : std::vector<int32_t>(static_cast<size_t>(L), row[o.inputs[0]]);
      const DType vt = k.ops[o.inputs[0]].dtype;
      const bool is_arg = o.op == Op::ArgMax || o.op == Op::ArgMin;
      const Op beyond = o.op == Op::ReduceMax || o.op == Op::ArgMax ? Op::Gt : Op::Lt;
      int32_t best = v[0], index = is_arg ? constant(o.dtype, 0) : -1;
      for (int64_t i = 1; i < L; ++i) {
        int32_t best_is_number = compute(Op::Eq, DType::Bool, {best, best});
        int32_t v_is_nan = compute(Op::Ne, DType::Bool, {v[i], v[i]});
        int32_t take = compute(Op::LogicalAnd, DType::Bool,
                               {best_is_number, compute(Op::LogicalOr, DType::Bool,
                                                        {v_is_nan, compute(beyond, DType::Bool, {v[i], best})})});
        best = compute(Op::Where, vt, {take, v[i], best});
        if (is_arg) index = compute(Op::Where, o.dtype, {take, constant(o.dtype, i), index});
      }
      row[id] = is_arg ? index : best;
      continue;
    }
    if (!o.elem) {
      KOp c = o;
      for (int j = 0; j < o.num_inputs; ++j) c.inputs[j] = row[o.inputs[j]];
      row[id] = push(c);
      continue;
    }
    elem[id].resize(static_cast<size_t>(L));
    for (int64_t i = 0; i < L; ++i) {
      if (o.code == KOpCode::Coord && o.imm == inner_axis) {
        elem[id][i] = constant(DType::Int64, i);
        continue;
      }
      KOp c = o;
      for (int j = 0; j < o.num_inputs; ++j) {
        const int32_t in = o.inputs[j];
        c.inputs[j] = k.ops[in].elem ? elem[in][i] : row[in];
      }
      elem[id][i] = push(c);
    }
  }
  *kernel = std::move(out);
  return true;
}

}  // namespace lt
