// jit/cpu/jit.h — the CPU JIT: kernel IR -> LLVM IR -> object code -> callable.
//
// Compilation is split in two so the kernel cache (cache/) can keep objects on
// disk: compile_kernel_object() produces relocatable object bytes for the host
// (CPU name and features as -mcpu=native would pick), load_kernel_object()
// links those bytes into the process-wide ORC LLJIT and returns the entry.
//
// Entry ABI (C): int32_t k(const KernelArgs*, int64_t begin, int64_t end)
// runs rows (Rows / MatMul kernels) or elements (Elementwise kernels) in
// [begin, end) and returns non-zero when it recorded an error in args->error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "scheduler/kernel.h"

namespace lt::cpu {

/// First data-dependent error of a launch (written once, by compare-and-swap on `code`).
struct ErrorSlot {
  int64_t code = 0;   ///< 0: none; else 1 + the Op that failed (Gather, ScatterAdd)
  int64_t value = 0;  ///< the offending index
  int64_t bound = 0;  ///< size of the indexed dim
  int64_t axis = 0;
};

struct KernelArgs {
  void* const* buffers;    ///< one per Kernel::buffers entry
  const int64_t* scalars;  ///< one 8-byte slot per scalar: double bits for floats, int64 otherwise
  ErrorSlot* error;
};

using KernelFn = int32_t (*)(const KernelArgs*, int64_t, int64_t);

// Split reductions: a Rows kernel whose one loop only feeds reductions
// (sum, prod, max, min) — a full `x.sum()`, `mean`, `var`, or a few long rows —
// has too few rows to spread over threads. When its rows are long enough for
// launch_kernel to split (64k elements or more), its object also holds
//   int32_t <symbol>_part(const KernelArgs*, int64_t row, int64_t begin, int64_t end, void* out)
//     accumulating inner elements [begin, end) of `row` into out[0..R) (R =
//     the kernel's Reduce ops in op order, one 8-byte slot each, accumulator type)
//   int32_t <symbol>_finish(const KernelArgs*, int64_t row, const void* partials, int64_t nparts)
//     combining partials[p*R + i] for p in order and running the row's tail.
// launch_kernel cuts each row into fixed chunks that depend only on its
// length (not on the thread count), so results are deterministic.
using RowPartFn = int32_t (*)(const KernelArgs*, int64_t, int64_t, int64_t, void*);
using RowFinishFn = int32_t (*)(const KernelArgs*, int64_t, const void*, int64_t);
// Column splits: a column reduction (kernel_reduces_columns below) with few
// rows and long columns ([1M, 16].sum(0)) has too few row blocks for the
// threads. Its object then holds
//   int32_t <symbol>_cpart(const KernelArgs*, int64_t row_begin, int64_t row_end,
//                          int64_t inner_begin, int64_t inner_end, void* out, int64_t row_stride)
//     accumulating inner elements [inner_begin, inner_end) of rows
//     [row_begin, row_end) into out[row * row_stride + i] (8-byte slots, as _part)
// and the same <symbol>_finish; launch_kernel cuts the columns into the
// chunks split_chunk() gives a row of that length (deterministic).
using ColumnPartFn = int32_t (*)(const KernelArgs*, int64_t, int64_t, int64_t, int64_t, void*, int64_t);

/// A loaded kernel's entry points. `keep` owns the loaded object: the code
/// stays mapped while some copy of the entry holds it, and is unloaded (its
/// ORC ResourceTracker removed, its memory unmapped) when the last one goes.
/// The backends' executables hold entries; their trace caches are LRU-capped
/// (cache/trace_cache.h), so a long-running process keeps a bounded number of
/// kernel objects mapped (docs/cpu-jit.md, "Loaded kernels").
struct KernelEntry {
  KernelFn fn = nullptr;
  RowPartFn part = nullptr;      ///< set when kernel_splits_reduction()
  ColumnPartFn column_part = nullptr;  ///< set when kernel_splits_columns()
  RowFinishFn finish = nullptr;  ///< set with either
  /// kernel_reduces_columns() of the kernel, decided once by whoever loads
  /// it (launch_kernel then gives it whole row blocks; false: row ranges,
  /// the same values).
  bool reduces_columns = false;
  std::shared_ptr<const void> keep;  ///< the loaded object; empty for a bare KernelFn
};

/// Whether the kernel's object carries the split-reduction entries.
bool kernel_splits_reduction(const Kernel& kernel);

/// Column reductions (docs/cpu-jit.md, "Column reductions"): a one-phase Rows
/// kernel that only reduces, whose element loads are contiguous along the
/// rows (stride 1 in the last outer coordinate) and not along its inner
/// loop: `x.sum(0)` of a [N, C] matrix, a bias gradient. Row by row, each
/// row would read a column, one cache line per element. Such a kernel runs
/// its loops interchanged instead: for a segment of up to kColumnSegment
/// consecutive rows (within one line of the last outer dim) it keeps one
/// accumulator per row in a stack array, and the inner loop adds a vector
/// of rows per element step, reading along the lines. Each row still
/// accumulates its elements in order. launch_kernel gives such a kernel
/// ranges of whole kColumnBlock rows (a cache line of float32 rows).
constexpr int64_t kColumnSegment = 256, kColumnBlock = 16;
bool kernel_reduces_columns(const Kernel& kernel);
/// Whether a column reduction's object carries the column-split entries.
bool kernel_splits_columns(const Kernel& kernel);
/// Whether two kernels of one op DAG (a shape-generic kernel and its
/// concrete form, scheduler/generic.h) accumulate their float reductions in
/// the same order, so they compute the same bits: both or neither a column
/// reduction, and where a Rows kernel sums in lanes, the same lanes over the
/// same runs (codegen.h, row_lanes: a runtime-length run takes the long
/// lanes, a literal short one the short lanes).
bool kernels_reduce_alike(const Kernel& a, const Kernel& b);
/// Pins `generic`'s innermost-run structure (Kernel::pinned_lanes,
/// pinned_nest) to what `concrete`, the kernel it was rewritten from,
/// derives from its literal extents and strides, so that the two (and every
/// size sharing the pinned generic kernel) sum in one order.
void pin_reduction_order(Kernel* generic, const Kernel& concrete);

/// Overlapped tails: a flat Elementwise kernel of at least kTailBlock
/// elements that stores only into buffers it does not read (and is not big
/// enough for streaming stores) runs its range in blocks of kTailBlock, the
/// last block ending at the range's end and overlapping the one before, so
/// its vector loop needs no scalar remainder (docs/cpu-jit.md, "Compile
/// time"). launch_kernel gives such a kernel ranges of whole blocks (the last
/// range also takes the remainder), so no two threads store one element.
constexpr int64_t kTailBlock = 256;
bool kernel_overlaps_tail(const Kernel& kernel);

struct ObjectCode {
  std::string symbol;  ///< entry symbol inside the object
  std::string bytes;   ///< ELF relocatable object
};

struct CompileTimes {
  double codegen_ms = 0, optimize_ms = 0, emit_ms = 0;
};

/// "<cpu>;<features>;llvm-<version>[;math=avx512]": part of every kernel cache key.
const std::string& target_id();

/// Whether transcendentals use their AVX-512 forms (exp by vscalef, float32
/// erf by a vpermi2ps table; docs/cpu-jit.md "AVX-512 math"): the host has
/// AVX-512F and LT_JIT_AVX512_MATH is not 0. (Full-tier kernels define the
/// math functions in their own module and inline them after vectorising,
/// on every host.)
bool avx512_math();

/// Widest vector register of the code the JIT generates, in bits (512 with
/// AVX-512F, 256 with AVX, else 128): the host's, or LT_JIT_CPU's.
int target_vector_bits();

/// How bfloat16 matmuls multiply (docs/matmul.md "bfloat16"), all into
/// float32 sums of exact bfloat16 products: AMX tiles (tdpbf16ps) where the
/// target has AMX-BF16, vdpbf16ps where it has AVX-512 BF16, else operands
/// widened to float32 while they are packed. LT_MM_BF16=0 widens and
/// LT_MM_BF16=dp skips AMX.
enum class Bf16MatMul { Widen, Dot, Amx };
Bf16MatMul bf16_matmul();

/// Whether short row loops fold their remainder into a masked vector
/// iteration (`llvm.loop.vectorize.predicate.enable`): the host has AVX-512F
/// (cheap masked loads and stores) and LT_JIT_FOLD_ROW_TAILS is not 0.
bool fold_row_tails();

/// Compile tiers (docs/cpu-jit.md, "Tiers"). A kernel compiles first at
/// Quick: the IR pipeline of Full (so the same vectorised loops and the same
/// values), code generation at -O0, and transcendentals calling the
/// process's math functions (scalar, and vector variants the loop vectoriser
/// picks) instead of inlining their polynomials: a third of Full's compile
/// time, for code 1.1-1.8x slower. The runtime recompiles it at Full in the
/// background once it has run long enough (runtime/cpu_backend.cpp,
/// LT_TIER_UP_MS).
enum class Tier : uint8_t { Quick = 0, Full = 1 };
/// Every kernel has a quick tier (kernels with transcendentals only, before
/// code generation at -O0 made it pay for every kernel).
bool kernel_has_quick_tier(const Kernel& kernel);
/// The entry symbol a kernel compiles to (derived from its hash and tier).
std::string kernel_symbol(const Kernel& kernel, Tier tier = Tier::Full);
/// Generates, optimises and emits one kernel. Throws lt::Error when LLVM rejects it.
ObjectCode compile_kernel_object(const Kernel& kernel, CompileTimes* times = nullptr, Tier tier = Tier::Full);
/// The math functions a Quick object of `kernel` calls ("lt_m_exp_f32", ...),
/// which must be loaded before it is.
std::vector<std::string> kernel_math_functions(const Kernel& kernel);
/// One math function, its scalar entry (the object's symbol) and its vector
/// variants for this host's vector widths.
ObjectCode compile_math_function(const std::string& name);
/// Loads (and pins) a math function's object; whether one is loaded.
void load_math_function(const ObjectCode& object);
bool math_function_loaded(const std::string& name);
/// A process-wide function a kernel calls (a MatMul kernel's micro-kernel),
/// by symbol, with how to compile it. The backend links each before the
/// kernel's first launch, from its disk cache or compiled and stored
/// (runtime/cpu_backend.cpp; matmul.cpp implements these), so no launch compiles one and a warm start
/// compiles none; a launch whose function was not linked compiles it itself.
struct RuntimeFunction {
  std::string symbol;
  std::function<ObjectCode()> compile;
};
/// Those of a MatMul kernel; `interpreted`: those its interpreted launches
/// call (none where the micro-kernel compiled with the project serves them).
std::vector<RuntimeFunction> matmul_runtime_functions(const Kernel& kernel, bool interpreted = false);
bool runtime_function_loaded(const std::string& symbol);
/// Links a runtime function's object (pinned); a no-op when its symbol is linked.
void load_runtime_function(const ObjectCode& object);
/// Links an object into the JIT and returns its entry, pinned: it stays loaded
/// for the life of the process (runtime helpers, tests).
KernelFn load_kernel_object(const ObjectCode& object);
/// Links an object into the JIT (once per symbol while a previous load is still
/// held) and returns its entry, with the split-reduction entries when the
/// object has them. The object is unloaded when the last copy of the entry's
/// `keep` is released.
KernelEntry load_kernel_entry(const ObjectCode& object);
/// Kernel objects loaded now (pinned ones included).
size_t loaded_kernel_objects();
/// The entry symbol of the loaded object whose entry is `fn` (a kernel's
/// quick and full objects may both be loaded); throws when there is none.
std::string loaded_symbol(KernelFn fn);

/// Runs compile_one(0..n-1) on up to one thread per core (LT_COMPILE_THREADS
/// caps it; 1 compiles serially on the calling thread): each thread
/// generates, optimises and emits with its own LLVMContext and TargetMachine;
/// loading into the JIT is serialised. The first exception is rethrown once
/// every thread has finished its current kernel.
void compile_in_parallel(size_t n, const std::function<void(size_t)>& compile_one);
/// The threads compile_in_parallel uses (one per core, or LT_COMPILE_THREADS).
size_t compile_threads();
/// The optimised LLVM IR of a kernel, for LT_DEBUG=4.
std::string kernel_llvm_ir(const Kernel& kernel, bool optimized = true, Tier tier = Tier::Full);

/// Runs `fn` over [0, kernel.outer_size()) on TBB threads, serially when the
/// work is small or the kernel is `serial`. Throws lt::Error(Index) when the
/// kernel reported a bad index.
void launch_kernel(const Kernel& kernel, KernelFn fn, void* const* buffers, const int64_t* scalars);
/// Same; uses the split-reduction entries when they are set and the rows are few and long.
/// `fixed`: as launch_matmul's (matmul.h), read by MatMul kernels only.
void launch_kernel(const Kernel& kernel, const KernelEntry& entry, void* const* buffers, const int64_t* scalars,
                   const Buffer* const* fixed = nullptr);

}  // namespace lt::cpu
