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
