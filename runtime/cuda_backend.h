// runtime/cuda_backend.h — the "cuda" Backend: trace cache + cubin cache + launch.
//
// Built only when the CUDA toolkit (NVRTC) was found (LT_HAVE_CUDA). Runs
// without a driver: every call that needs a device raises lt::Error
// "no CUDA device is available: <why>".
//
// run(): trace hash (+ fusion policy) -> Executable (plan + loaded kernels),
// exactly like the cpu backend; kernels come from a cubin cache keyed by
// (kernel IR hash, target arch, NVRTC version). Data movement is
// per sync: parameters are copied to the device, outputs copied back into
// host buffers (docs/cuda.md describes device-resident tensors, planned).
//
// A cubin-cache miss consults the disk cache (cache/kernel_cache.h) before
// NVRTC: one module image per NVRTC program, keyed by cuda_module_key().
//
// Counters: cuda_trace_cache_hits, cuda_trace_cache_misses,
// cuda_kernels_compiled, cuda_compile_ms, cuda_nvrtc_compiles (programs),
// cuda_disk_loads (module images read from disk), cuda_kernels_launched,
// cuda_bytes_to_device, cuda_bytes_to_host.
// LT_DEBUG: 1 one line per run; 2 adds per-kernel device time (events) and
// GB/s; 3 prints the plan on a miss; 4 prints each kernel's CUDA source.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/hash.h"
#include "scheduler/plan.h"
#include "trace/backend.h"

namespace lt {

Backend& cuda_backend();

/// Runs `trace` once, then its kernels `reps` more times on the same device
/// buffers; the median device time of each kernel (CUDA events), in plan order.
std::vector<double> cuda_kernel_times_ms(const Trace& trace, int reps, const RunOptions& options = {});

/// Disk-cache key of a module: hash(translation unit, target arch, NVRTC version).
Hash128 cuda_module_key(const std::string& translation_unit, const std::string& arch);

struct CudaModuleImage {
  std::string image;       ///< what cuModuleLoadData takes: cubin for "sm_XY", PTX for "compute_XY"
  bool from_disk = false;  ///< read from the disk cache, not compiled
  double compile_ms = 0;   ///< NVRTC time when compiled
};

/// The module image of `translation_unit` for `arch`: from the disk cache when
/// it holds a valid one, else compiled by NVRTC and stored. Needs no device.
CudaModuleImage cuda_module_image(const std::string& translation_unit, const std::string& label,
                                  const std::string& arch);

/// Drops the trace and cubin caches (loaded modules stay loaded).
void cuda_clear_caches();

}  // namespace lt
