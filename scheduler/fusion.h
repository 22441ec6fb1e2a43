// scheduler/fusion.h — pluggable fusion policies and their registry.
//
// The scheduler (scheduler/plan.h) does the mechanics: it emits one kernel per
// materialised node, inlining everything below it that is not materialised,
// and materialises more nodes when correctness demands it (a reduction used in
// another loop domain, a matmul operand). A policy only answers questions of
// taste, so fusion research can compare policies on the same dumped traces:
//   default      elementwise + movement fuse into consumers; reductions fuse
//                with producers and with consumers over the same rows
//                (softmax, layer_norm: one Rows kernel)
//   none         one kernel per primitive (movement still folds into loads;
//                no sibling kernels)
//   elementwise  elementwise fusion only; every reduction reads a buffer and
//                writes a buffer
// Chosen by RunOptions::fusion, else env LT_FUSION, else "default".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/trace.h"

namespace lt {

class FusionPolicy {
 public:
  virtual ~FusionPolicy() = default;
  virtual std::string_view name() const = 0;
  /// Nodes to materialise up front (beyond roots and what correctness forces).
  virtual bool materialize(const Trace& trace, int32_t node) const = 0;
  /// May a reduction's result be used (as a per-row value) inside a kernel
  /// whose root is another node?
  virtual bool fuse_reduction_with_consumers() const = 0;
  /// A node inlined into `kernels` different kernels is recomputed in each:
  /// return true to store it once instead. `cost` ~ arithmetic ops per
  /// element of its inlined expression; `has_reduction` when it contains one.
  virtual bool materialize_shared(int kernels, int64_t cost, bool has_reduction) const = 0;
  /// A node inlined `times` times into one kernel at different coordinates
  /// (the slices an im2col stacks, a stencil's taps) is computed `times`
  /// times per element there: return true to store it once. `cost` as above;
  /// `has_gather` when its expression holds a gather (a dependent load and an
  /// index check per evaluation). Default: 3+ times, and a gather or at least
  /// 24 ops of recomputation (docs/architecture.md, "Repeated inlining").
  virtual bool materialize_repeated(int times, int64_t cost, bool has_gather) const {
    return times >= 3 && (has_gather || cost * (times - 1) >= 24);
  }
  /// May trace outputs that no node reads, elementwise over the same shape (a
  /// backward's gradients, a sync's several results), run as one kernel that
  /// stores each? Their shared subexpressions are then computed once.
  virtual bool fuse_siblings() const { return true; }
};

/// Registers a policy under its name (replacing one of the same name).
void register_fusion_policy(std::shared_ptr<const FusionPolicy> policy);
/// The named policy; "" means env LT_FUSION, else "default". Throws for an unknown name.
const FusionPolicy& fusion_policy(std::string_view name);
std::vector<std::string> fusion_policy_names();

}  // namespace lt
