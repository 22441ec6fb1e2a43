// scheduler/plan.h — Trace -> Plan: fused kernels plus buffer bindings.
//
// A Plan is everything the runtime needs to run a trace without looking at it
// again: the kernels in launch order, which buffer each kernel argument binds
// to (a trace parameter, a fresh output, or a reusable temporary slot) and
// which buffer each trace output is. It depends only on the trace structure
// (never on data or scalar values), so it is cached by trace hash.
#pragma once

#include <string>
#include <vector>

#include "scheduler/fusion.h"
#include "scheduler/kernel.h"

namespace lt {

struct PlanBuffer {
  enum class Role : uint8_t { Param, Output, Temp };
  Role role;
  DType dtype;
  int64_t numel;
  int32_t index;  ///< Param: trace param index; Temp: slot in Plan::temp_slot_bytes; Output: unused
};

struct Plan {
  std::vector<PlanBuffer> buffers;
  std::vector<Kernel> kernels;          ///< in launch order
  std::vector<int32_t> outputs;         ///< plan buffer of each trace output
  std::vector<int64_t> temp_slot_bytes; ///< temporaries share these slots when lifetimes do not overlap
  std::string policy;
  int32_t nodes_after_simplify = 0;
  /// Times the scheduler built the kernels before the plan held (a pass that
  /// finds nodes to store plans again); independent of the trace's length.
  int32_t planning_passes = 0;
  /// The trace the kernels were built from (after simplify_trace; no params
  /// bound). Kernel::trace_nodes index it.
  Trace simplified;

  std::string print() const;
};

/// Kernels the plan compiles: kernels equal up to their runtime arguments
/// (scalars, index arguments) share one hash and one compiled object.
size_t distinct_kernels(const Plan& plan);

/// Schedules `trace` under `policy`. Pure: no compilation, no data access.
Plan schedule(const Trace& trace, const FusionPolicy& policy);

/// CSE, identity elimination, movement-chain collapsing and dead-node removal.
/// Params, scalars and outputs keep their meaning; the result computes the same values.
Trace simplify_trace(const Trace& trace);

}  // namespace lt
