// scheduler/generic.h — shape-generic kernels: one compiled kernel for every size of a recurring trace.
//
// A trace that recurs with one dimension grown (generation's sequence
// length, the last smaller batch of an epoch) is planned again at its new
// size, and the planner is linear and cheap; what costs is compiling its
// kernels again, although they differ from the last ones only in integers:
// loop extents, strides, div/mod constants, buffer sizes, a mean's 1/n.
//
// GenericKernels learns which integers vary by comparing kernels of one
// *structure* (everything but those integers, hashed on the kernel's
// const-split form, where each use of a literal, and of index arithmetic
// over coordinates and literals, has its own ops, so that a length that
// happens to equal a head size does not merge `m * T` and `h * 32` into one
// op and change the structure). The first kernel of a
// structure compiles as it is, with every literal folded in. When a kernel
// of the same structure arrives with other values, the positions that
// differ become runtime arguments (index-argument scalar slots, as slice
// offsets already are): a varying extent becomes a `domain_slots` entry, a
// varying literal a Param op, a varying div/mod constant an IndexDiv/IndexMod
// by a Param, a varying buffer size `generic_numel`. That generic kernel is
// compiled once; every later kernel of the structure whose other positions
// hold the template's values is rewritten to it (its own values bound as
// arguments) and hits the kernel cache. This is torch.compile's "automatic
// dynamic shapes" (static first, dynamic after the first size change) at the
// level of kernels, with no symbolic shapes in the planner.
//
// Correctness does not depend on which positions vary: a rewritten kernel is
// the same op DAG as the concrete one with some literals read from slots,
// and the backends (jit/cpu) take no path whose correctness depends on a
// runtime extent (Kernel::symbolic_domain); a MatMul kernel's driver reads
// its sizes and operand strides from the launched kernel (jit/cpu/matmul.cpp).
// Integers the code depends on more deeply (a CheckIndex bound, a Random
// stream, bool and int32 literals) are part of the structure: a kernel that
// differs there compiles as it is.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "scheduler/kernel.h"

namespace lt {

/// The integers of a kernel that may vary between sizes, in a fixed order,
/// and the hash of everything else.
struct KernelSignature {
  enum class Kind : uint8_t { Extent, Numel, IntConst, FloatConst, Divisor, ViewStride };
  Hash128 structure;
  std::vector<int64_t> values;  ///< FloatConst: the double's bits
  std::vector<Kind> kinds;
};

/// The kernel with one Const op per use (inputs, matmul operand roots and
/// view bases), and one copy of each integer index expression over
/// coordinates and literals per use; the values computed are unchanged.
Kernel const_split(const Kernel& kernel);
/// Signature of a const-split kernel.
KernelSignature kernel_signature(const Kernel& split);
/// `split` with the positions in `vary` read from new index-argument slots
/// (their values from `split`). False when a varying extent or divisor is
/// not positive (the empty-domain paths are chosen at compile time).
bool make_generic(const Kernel& split, const KernelSignature& sig, const std::vector<char>& vary, Kernel* out);

/// The process-wide memory of kernel structures (the CPU backend holds one).
class GenericKernels {
 public:
  /// Rewrites `kernel` into its shape-generic form when a kernel of the same
  /// structure with other values was seen before; true when it did.
  bool generalize(Kernel* kernel);
  /// generalize() over a plan's kernels, with two more rules for a structure
  /// first seen in this plan. When it occurs here with two or more sets of
  /// values and every occurrence is tiny (below kPlanGenericSteps, not a
  /// matmul), all of them, the first included, take the generic form at
  /// once: one compile instead of a specialised one and a generic one.
  /// Otherwise its other sizes in this plan (other layers of one program)
  /// stay specialised for up to kSpecialisedSizes sizes, as large kernels
  /// do; a later plan with another size (a dimension that changes between
  /// runs) goes generic as usual. Returns the kernels rewritten. With
  /// `originals`, each rewritten kernel's concrete form is moved there (at
  /// its index; the vector is sized to the plan, other entries left empty):
  /// what a backend compiles when that kernel turns out hot at this size.
  /// Tiny kernels (below kPlanGenericSteps), whose launch is mostly
  /// overhead, are left empty: specialising them would not repay the compile.
  int generalize_plan(std::vector<Kernel>* kernels, std::vector<Kernel>* originals = nullptr);
  /// Kernels rewritten so far (for tests and LT_DEBUG).
  int64_t rewritten() const;
  void clear();

 private:
  struct Template {
    std::vector<int64_t> values;  ///< the first kernel's
    std::vector<char> vary;       ///< positions that are runtime arguments; all 0 until generic
    bool generic = false;
    std::vector<Hash128> specialised;  ///< other sizes compiled as they are (large kernels, see below)
  };
  /// Kernels of at least this many loop steps (product of the domain's
  /// extents; a matmul's multiply-adds) run long enough that a specialised
  /// compile pays for itself: they stay specialised for their first
  /// kSpecialisedSizes sizes (a benchmark's few sizes, a last smaller batch)
  /// and go generic only when the sizes keep changing. Smaller kernels, whose
  /// compile costs more than many launches, go generic at their second size.
  static constexpr int64_t kLargeKernelSteps = int64_t{1} << 20;
  static constexpr size_t kSpecialisedSizes = 4;
  /// generalize_plan's bound: kernels this small run for microseconds, so
  /// their compile is what they cost.
  static constexpr int64_t kPlanGenericSteps = int64_t{1} << 17;
  static constexpr size_t kMaxTemplates = 1 << 14;
  bool generalize(Kernel* kernel, absl::flat_hash_set<Hash128>* made_here, Kernel* original);
  mutable std::mutex mu_;
  absl::flat_hash_map<Hash128, Template> templates_;
  int64_t rewritten_ = 0;
};

}  // namespace lt
