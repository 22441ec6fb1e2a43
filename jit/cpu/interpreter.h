// jit/cpu/interpreter.h — runs Elementwise, Rows and MatMul kernels without compiling them.
//
// The first tier of the CPU JIT (docs/cpu-jit.md, "Tiers"). A cold sync
// compiles every kernel it has not seen, at ~2 ms of LLVM each, before any of
// them runs; a training step of a small model is 60 such compiles, most of its
// first step. Most of those kernels are elementwise (an optimizer's update, a
// residual add, an activation and the values its backward saves) and run in
// microseconds. The interpreter runs such a kernel straight from its kernel
// IR, a block of elements per op, so a first sync compiles only what the
// interpreter does not take; the runtime compiles an interpreted kernel once
// its launches have cost about what the compile would (runtime/cpu_backend.cpp,
// LT_INTERPRET_UP_MS).
//
// It computes the compiled code's values bit for bit, so a kernel that moves
// from the interpreter to compiled code in the middle of a run changes no
// result: every op is evaluated as jit/cpu/codegen.cpp lowers it (register
// types, rounding of narrow types after each op, the same integer and
// comparison semantics), transcendentals call the same math functions the
// quick tier calls, and random numbers come from the same Philox word. Rows
// kernels reduce in the order the kernel IR fixes (codegen.h, row_lanes:
// float sums and products in lanes combined pairwise, everything else in
// any order to the same value), which the interpreter follows. What it
// would not reproduce, it does not take (kernel_interpretable): split
// reductions of long rows, scans, float `pow` (LLVM rewrites some constant
// exponents). test_interpreter and lt-fuzz --interpret-check compare it
// with the compiled code bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jit/cpu/jit.h"
#include "scheduler/kernel.h"

namespace lt::cpu {

/// Whether the interpreter runs `kernel` (with the values its compiled code
/// computes): an Elementwise kernel without float pow, a Rows kernel of the
/// same ops without a scan, split entries or runtime extents, or a MatMul kernel
/// whose packing and epilogue sub-kernels are such kernels (the driver and
/// the micro-kernel are the compiled path's own, so the product is the same).
bool kernel_interpretable(const Kernel& kernel);

/// About how long one interpreted launch of `kernel` takes, in nanoseconds,
/// from its size and its ops (~1 ns per element, 10 more per transcendental;
/// a MatMul's packing and epilogue elements at 2 ns): the runtime
/// interprets a kernel only when this is below what it would wait before
/// compiling it (LT_INTERPRET_UP_MS), so a large kernel, which runs far
/// longer interpreted than it takes to compile, is compiled at once.
int64_t interpreted_cost_ns(const Kernel& kernel);

/// An Elementwise kernel prepared to run interpreted with one launch's
/// scalars (its literals and runtime scalars evaluated once), callable as
/// its compiled entry: run(args, begin, end) computes elements [begin, end)
/// of args->buffers (args->scalars is not read) and records index errors in
/// args->error. The MatMul driver runs its sub-kernels through it.
class InterpretedKernel {
 public:
  InterpretedKernel(Kernel kernel, const int64_t* scalars);
  ~InterpretedKernel();
  InterpretedKernel(const InterpretedKernel&) = delete;
  InterpretedKernel& operator=(const InterpretedKernel&) = delete;
  int32_t run(const KernelArgs* args, int64_t begin, int64_t end) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The math functions an interpreted `kernel` calls ("lt_m_exp_f32", ...; a
/// MatMul kernel's epilogue too): they must be loaded (load_math_function)
/// before it runs.
std::vector<std::string> interpreter_math_functions(const Kernel& kernel);

/// Runs the kernel over its whole domain, as launch_kernel runs a compiled
/// entry (the same ranges on the same threads), raising the error its index
/// checks record. `buffers`, `scalars` and `fixed` as for a compiled kernel (launch_kernel).
void launch_interpreted(const Kernel& kernel, void* const* buffers, const int64_t* scalars,
                        const Buffer* const* fixed = nullptr);

}  // namespace lt::cpu
