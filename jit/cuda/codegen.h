// jit/cuda/codegen.h — kernel IR -> one self-contained CUDA C++ translation unit.
//
// The source includes no header (NVRTC compiles it without the CUDA runtime
// headers), defines one `extern "C" __global__` entry and is a pure function of
// the kernel's structural hash, so the cubin cache can key on that hash.
//
// Entry ABI (one kernel parameter each, in this order):
//   T* buf0 .. buf{B-1}       device pointers (bool is 1 byte)
//   long long s0 .. s{S-1}    scalar slots: double bits for floats, int64 otherwise
//   LtError* error            first data-dependent error (ErrorSlot below)
//   long long n               work items: elements, rows or matmul tiles
// Every kernel is grid-stride over its work items, so any grid size is correct;
// the runtime picks one from KernelSource::block and the device's SM count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/kernel.h"

namespace lt::cuda {

/// Device layout of the error slot (same fields as the CPU backend's).
struct ErrorSlot {
  int64_t code = 0;   ///< 0: none; else 1 + the Op that failed
  int64_t value = 0;  ///< the offending index
  int64_t bound = 0;  ///< size of the indexed dim
  int64_t axis = 0;
};

struct KernelSource {
  std::string entry;        ///< extern "C" symbol
  std::string body;         ///< the kernel alone (needs kPrelude before it)
  std::string source;       ///< prelude + body: a complete translation unit
  int block = 256;          ///< threads per block
  int64_t items = 0;        ///< work items (the `n` argument)
  int64_t items_per_block;  ///< items one block handles per grid-stride step
};

/// Generates the CUDA source for `kernel`. Throws lt::Error for IR it cannot lower.
KernelSource generate_cuda_kernel(const Kernel& kernel);

/// One translation unit holding several kernels (the prelude once): NVRTC's
/// fixed cost per program (~0.3 s) dominates small kernels, so a trace's
/// missing kernels compile together. Duplicate entries are emitted once.
std::string cuda_translation_unit(const std::vector<const KernelSource*>& kernels);

}  // namespace lt::cuda
