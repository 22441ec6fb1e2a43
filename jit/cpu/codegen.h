// jit/cpu/codegen.h — kernel IR -> LLVM IR (internal to jit/cpu).
#pragma once

#include <string>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "scheduler/kernel.h"

namespace lt::cpu {

/// Adds `symbol` (the KernelArgs entry, see jit.h) to `module`.
void generate_kernel(const Kernel& kernel, llvm::Module& module, const std::string& symbol);

/// Vectorisable polynomial transcendentals (jit/cpu/math.cpp): exp, log,
/// log1p, expm1, tanh, erf, sin, cos on float or double values (scalar or
/// vector). Returns nullptr for ops it does not provide.
llvm::Value* emit_transcendental(llvm::IRBuilder<>& b, Op op, llvm::Value* x);

}  // namespace lt::cpu
