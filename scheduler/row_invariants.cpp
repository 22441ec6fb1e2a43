// scheduler/row_invariants.cpp — elementwise kernels whose per-channel arithmetic is hoisted into rows.
//
// A BatchNorm's apply and backward in training are elementwise over
// [N, C, H, W] but compute per channel values on the way: rstd =
// 1 / sqrt(var / n + eps), its derivative's divisions, a folded scale. An
// Elementwise kernel evaluates every op per element (its loop runs over the
// flattened domain, so the channel is not a loop of its own the compiler
// could hoist from), and those divisions and square roots cost more than
// the memory traffic: the CNN step of bench/python_cnn_step.py ran such a
// kernel at 14 GB/s. As a Rows kernel over rows [N, C] whose ops that read
// only the row's coordinates are row-level, they run once per row of H * W
// elements. No reduction, so the values are the same bits.
#include <algorithm>

#include "scheduler/kernel.h"

namespace lt {

namespace {

// Rows at least this long, so the row's fixed cost stays small, and at
// least this many, so the launch still spreads them over the threads (a
// launch does not split a row).
constexpr int64_t kMinRow = 64, kMinRows = 32;
// Hoisted float ops (per element before) that make the rewrite worth it.
constexpr int kMinHoisted = 2;

}  // namespace

bool hoist_row_invariants(Kernel* kernel) {
  const Kernel& k = *kernel;
  if (k.kind != KernelKind::Elementwise || k.serial || k.symbolic_domain() || k.domain.size() < 2) return false;
  const int r = static_cast<int>(k.domain.size());
  // Per op: the highest loop axis it reads (-1: none).
  std::vector<int> axis(k.ops.size(), -1);
  for (size_t id = 0; id < k.ops.size(); ++id) {
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Random || o.code == KOpCode::AccumStore || o.code == KOpCode::CheckIndex ||
        o.code == KOpCode::Scan || o.code == KOpCode::Reduce)
      return false;
    if (o.code == KOpCode::Coord) axis[id] = static_cast<int>(o.imm);
    for (int j = 0; j < o.num_inputs; ++j) axis[id] = std::max(axis[id], axis[o.inputs[j]]);
  }
  // The row split that hoists the most float arithmetic, rows long enough.
  int best_rank = 0, best = 0;
  int64_t inner = 1;
  for (int rank = r - 1; rank >= 1; --rank) {
    inner *= k.domain[rank];
    int64_t rows = 1;
    for (int a = 0; a < rank; ++a) rows *= k.domain[a];
    if (inner < kMinRow || rows < kMinRows) continue;
    int hoisted = 0;
    for (size_t id = 0; id < k.ops.size(); ++id) {
      const KOp& o = k.ops[id];
      hoisted += o.code == KOpCode::Compute && is_floating(o.dtype) && axis[id] >= 0 && axis[id] < rank;
    }
    if (hoisted > best) best = hoisted, best_rank = rank;
  }
  if (best < kMinHoisted) return false;
  // Every store stays per element, and nothing read once per row is a
  // buffer the kernel writes (it would be read before the row's stores).
  for (size_t id = 0; id < k.ops.size(); ++id) {
    const KOp& o = k.ops[id];
    if (is_effect(o.code) && axis[id] < best_rank) return false;
    if (o.code == KOpCode::Load && axis[id] < best_rank && o.imm >= 0 && k.buffers[o.imm].written) return false;
  }

  Kernel out = k;
  out.kind = KernelKind::Rows;
  out.outer_rank = best_rank;
  out.num_phases = 1;
  for (size_t id = 0; id < out.ops.size(); ++id) {
    out.ops[id].elem = axis[id] >= best_rank;
    out.ops[id].phase = 0;
  }
  *kernel = std::move(out);
  return true;
}

}  // namespace lt
