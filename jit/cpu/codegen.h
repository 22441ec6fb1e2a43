// jit/cpu/codegen.h — kernel IR -> LLVM IR (internal to jit/cpu).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "jit/cpu/jit.h"
#include "scheduler/kernel.h"

namespace lt::cpu {

/// Adds `symbol` (the KernelArgs entry, see jit.h) to `module`.
/// `math_calls`: transcendentals call the math functions (Tier::Quick).
void generate_kernel(const Kernel& kernel, llvm::Module& module, const std::string& symbol, bool math_calls = false);

/// Rows reductions whose value depends on the order of their adds (float
/// sums and products) accumulate each innermost run in L = row_lanes()
/// lanes: the run's whole chunks of L elements add element j into lane j,
/// the rest of the run goes into lanes 0, 1, ..., and after the row's last
/// run the lanes combine pairwise, halving (lane j op= lane j + h for h =
/// L / 2, ..., 1). The order is the kernel IR's, not the loop vectoriser's:
/// the same bits on every vector width, in both tiers and in the
/// interpreter (docs/cpu-jit.md, "Rows reductions"). Max, min, argmax and
/// integer reductions give one value in any order. L is 16 for runs shorter
/// than 256 (a row's fixed cost: its lanes' initialisation and tree), 32 for
/// longer runs of kernels with transcendentals (registers for their
/// polynomials: softmax of 4096-long rows ran ~10% slower with 64) and 64
/// for the other long or runtime-length runs (several vectors of adds in flight).
constexpr int64_t kRowLanesShort = 16, kRowLanesMath = 32, kRowLanesLong = 64;
int64_t row_lanes(const Kernel& kernel);
/// The type a reduction (or scan) accumulates in: float32 sums and products
/// in float64, float16/bfloat16 ones in float32, argmax/argmin the input's.
DType reduction_acc_type(const Kernel& kernel, const KOp& op);
bool reduces_in_lanes(const KOp& op);
/// A Rows kernel's innermost runs: one loop per inner dim (the runs are the
/// last dim's lines) or one linear loop over the inner dims (one run per row).
bool rows_nest_inner_loops(const Kernel& kernel);

/// Vectorisable polynomial transcendentals (jit/cpu/math.cpp): exp, log,
/// log1p, expm1, tanh, erf, sin, cos on float or double values (scalar or
/// vector). Returns nullptr for ops it does not provide.
llvm::Value* emit_transcendental(llvm::IRBuilder<>& b, Op op, llvm::Value* x);
/// A call to the math function for `op` on x's type (scalar), whose vector
/// variants the loop vectoriser uses; nullptr as emit_transcendental.
/// `define_here`: the function and its variants are defined in this module
/// (internal, marked kLateInline: optimize() inlines them after the loop
/// vectoriser), else declared (the separately compiled math functions).
llvm::Value* emit_math_call(llvm::IRBuilder<>& b, Op op, llvm::Value* x, bool define_here = false);
/// Function attribute of the math functions defined in a kernel's module.
inline constexpr const char* kLateInline = "lt-inline-late";
/// Functions math bodies call (lt_rt_sin/cos: libm for sin/cos of large
/// arguments), for the JIT to define by address.
std::vector<std::pair<std::string, void*>> math_runtime_symbols();
/// "lt_m_<op>_<f32|f64>"; false when `op` is not one of them.
std::string math_function_name(Op op, bool f64);
bool parse_math_function_name(const std::string& name, Op* op, bool* f64);
/// Defines the function `name` and its vector variants in `m`.
void generate_math_function(llvm::Module& m, const std::string& name);

}  // namespace lt::cpu
