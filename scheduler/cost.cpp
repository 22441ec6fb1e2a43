// scheduler/cost.cpp — bytes and FLOPs per kernel (see cost.h for the model).
#include "scheduler/cost.h"

namespace lt {

// Index arithmetic is i64 Compute; data arithmetic on i64 values cannot be told
// apart from it here, so i64 Computes count nothing (documented in cost.h).
static bool counts_as_flop(const KOp& o) {
  if (o.code == KOpCode::Reduce || o.code == KOpCode::Scan) return true;
  return o.code == KOpCode::Compute && o.dtype != DType::Int64;
}

KernelCost kernel_cost(const Kernel& k) {
  KernelCost c;
  for (const KernelBuffer& b : k.buffers) {
    int64_t bytes = b.numel * static_cast<int64_t>(dtype_size(b.dtype));
    (b.written ? c.bytes_written : c.bytes_read) += bytes;
  }
  if (k.kind == KernelKind::MatMul) {
    c.flops = 2 * k.domain[0] * k.domain[1] * k.domain[2] * k.domain[3];
    return c;
  }
  int64_t elements = shape_numel(k.domain);
  int64_t rows = k.kind == KernelKind::Rows ? k.outer_size() : elements;
  for (const KOp& o : k.ops) {
    if (!counts_as_flop(o)) continue;
    bool per_element = k.kind == KernelKind::Elementwise || o.elem || o.code == KOpCode::Reduce;
    c.flops += per_element ? elements : rows;
  }
  return c;
}

KernelCost plan_cost(const Plan& plan) {
  KernelCost total;
  for (const Kernel& k : plan.kernels) {
    KernelCost c = kernel_cost(k);
    total.bytes_read += c.bytes_read;
    total.bytes_written += c.bytes_written;
    total.flops += c.flops;
  }
  return total;
}

}  // namespace lt
