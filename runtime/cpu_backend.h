// runtime/cpu_backend.h — the "cpu" Backend: trace cache + kernel cache + launch.
//
// run(): trace hash (+ fusion policy) -> Executable (plan + loaded kernels).
// The hit path neither schedules nor compiles: it binds params and scalars,
// allocates outputs and temporaries, and launches. On a miss the trace is
// scheduled and each kernel is fetched from the kernel cache, keyed by
// (kernel IR hash, target CPU/features, LLVM version, JIT library build):
// memory first, then the disk cache (cache/kernel_cache.h, docs/cache.md),
// compiling on a miss and storing the object on disk. A kernel that fails to
// compile raises lt::Error naming it, with the kernel written to LT_DUMP_DIR
// (else the temp directory); nothing is cached, so the process stays usable.
// Test hook: LT_TEST_FAIL_COMPILE=1 (or a kernel-name substring) fails compiles.
//
// The trace cache keeps LT_TRACE_CACHE_MAX traces (default 1024), least
// recently used out first; a kernel is unloaded with the last executable that
// uses it (cache/trace_cache.h).
//
// Counters (ir/counters.h): trace_cache_hits, trace_cache_misses, trace_cache_evictions,
// kernels_compiled, compile_ms (total, rounded), kernels_launched; the disk
// cache adds disk_loads, disk_stores, disk_rejects, disk_write_errors, disk_evictions.
//
// LT_DEBUG (stderr): 1 one line per run (trace hash, hit/miss, kernels,
// compile ms, run ms); 2 adds one line per kernel (time, GB/s); 3 prints the
// plan on a miss; 4 prints each compiled kernel's optimised LLVM IR.
#pragma once

#include <memory>
#include <vector>

#include "scheduler/plan.h"
#include "trace/backend.h"

namespace lt {

Backend& cpu_backend();

/// The plan the cpu backend runs for `trace` (scheduling it when not cached).
std::shared_ptr<const Plan> cpu_plan_for(const Trace& trace, const RunOptions& options = {});

/// Drops the trace and kernel caches; kernels no executable still holds are unloaded.
void cpu_clear_caches();

/// Shape-generic kernels (scheduler/generic.h, docs/compile-path.md): on
/// unless LT_GENERIC_KERNELS=0; this overrides the variable for traces
/// planned from now on.
void cpu_set_generic_kernels(bool on);
bool cpu_generic_kernels();

/// The interpreter tier (jit/cpu/interpreter.h): on unless LT_INTERPRETER=0
/// or cpu_set_interpreter(false); off, every kernel compiles before its first
/// launch. Kernels already running interpreted keep their state.
void cpu_set_interpreter(bool on);
bool cpu_interpreter();

/// Returns once the promotions to the full tier started so far have been
/// published (they compile on a background thread; docs/cpu-jit.md "Tiers").
void cpu_wait_for_promotions();

/// Wall-clock time (ms) of each of the most recent kernel compiles (at most
/// 4096, oldest first): LLVM IR generation, optimisation, emission and
/// loading; a kernel loaded from the disk cache is not a compile.
std::vector<double> cpu_compile_times_ms();

}  // namespace lt
