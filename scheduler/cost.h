// scheduler/cost.h — the fusion lab's cost model: what a plan must move and compute.
//
// The model is deliberately simple so that the measured times show where it
// is wrong: each kernel reads each input buffer once and writes each output
// buffer once (an ideal cache), and every arithmetic op, comparison or
// transcendental evaluated per element counts as one FLOP (a matmul counts
// 2*M*N*K per batch). Index arithmetic, loads and stores count nothing; since
// index arithmetic is int64, int64 data arithmetic counts nothing either.
#pragma once

#include <cstdint>

#include "scheduler/plan.h"

namespace lt {

struct KernelCost {
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
};

KernelCost kernel_cost(const Kernel& kernel);
/// Sum over the plan's kernels.
KernelCost plan_cost(const Plan& plan);

}  // namespace lt
