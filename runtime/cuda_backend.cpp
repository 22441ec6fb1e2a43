// runtime/cuda_backend.cpp — trace cache, cubin cache and the launch loop for "cuda".
//
// Kernels missing from the in-memory cubin cache are compiled together, as one
// NVRTC program, because NVRTC's fixed cost per program dwarfs a kernel's own
// (docs/cuda.md). The disk cache (cache/kernel_cache.h, shared with the cpu
// backend) therefore stores one module image per such program, keyed by its
// translation unit (whose entries are named by the kernels' IR hashes, so the
// key covers the kernels and the code generator), the target architecture and
// the NVRTC version. A process that meets the same traces in the same order
// misses memory with the same kernel groups and loads every module from disk.
#include "runtime/cuda_backend.h"

#if LT_HAVE_CUDA

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "cache/debug.h"
#include "cache/kernel_cache.h"
#include "cache/trace_cache.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "jit/cuda/allocator.h"
#include "jit/cuda/codegen.h"
#include "jit/cuda/driver.h"
#include "jit/cuda/nvrtc.h"
#include "runtime/executable.h"
#include "trace/capture.h"

namespace lt {

namespace counters {
Counter cuda_trace_cache_hits("cuda_trace_cache_hits");
Counter cuda_trace_cache_misses("cuda_trace_cache_misses");
Counter cuda_kernels_compiled("cuda_kernels_compiled");
Counter cuda_compile_ms("cuda_compile_ms");
Counter cuda_kernels_launched("cuda_kernels_launched");
Counter cuda_bytes_to_device("cuda_bytes_to_device");
Counter cuda_bytes_to_host("cuda_bytes_to_host");
Counter cuda_nvrtc_compiles("cuda_nvrtc_compiles");
Counter cuda_disk_loads("cuda_disk_loads");
}  // namespace counters

namespace {

using cache_debug::Clock;
using cache_debug::ms_between;

using cache_debug::debug_level;

/// One kernel's function in a loaded module and its launch shape.
struct LoadedKernel {
  void* function = nullptr;
  int block = 256;    ///< threads per block
  int64_t items = 0;  ///< work items (the grid covers them); 0: nothing to launch
  int64_t items_per_block = 1;
};

using Executable = exec::Executable<LoadedKernel>;

class CudaBackend final : public exec::Executor<Executable> {
 public:
  std::string_view name() const override { return "cuda"; }
  std::vector<BufferPtr> run(const Trace& trace, const RunOptions& options) override { return run(trace, options, 0, nullptr); }
  /// With timed_reps > 0, launches the kernel sequence that many more times
  /// and appends each kernel's device time (events) per repetition to `times`.
  std::vector<BufferPtr> run(const Trace& trace, const RunOptions& options, int timed_reps, std::vector<std::vector<float>>* times);

  void clear() {
    clear_traces();
    std::lock_guard<std::mutex> lock(mu_);
    kernels_.clear();
  }

 private:
  std::shared_ptr<const Executable> executable(const Trace& trace, const RunOptions& options, bool* hit,
                                               double* compile_ms, int* compiled);
  std::vector<LoadedKernel> kernels(const std::vector<Kernel>& kernels, const std::string& label, double* compile_ms,
                                    int* compiled);

  std::mutex mu_;  // guards kernels_
  absl::flat_hash_map<Hash128, LoadedKernel> kernels_;
};

Hash128 cubin_key(const Kernel& k, const std::string& arch) {
  return StableHasher().add(k.hash()).add_string(arch).add_string(cuda::nvrtc_version()).finish();
}

}  // namespace

Hash128 cuda_module_key(const std::string& translation_unit, const std::string& arch) {
  return StableHasher()
      .add_string("cuda module")
      .add_string(translation_unit)
      .add_string(arch)
      .add_string(cuda::nvrtc_version())
      .finish();
}

CudaModuleImage cuda_module_image(const std::string& translation_unit, const std::string& label,
                                  const std::string& arch) {
  std::shared_ptr<KernelCache> disk = kernel_cache();
  Hash128 key = cuda_module_key(translation_unit, arch);
  CudaModuleImage out;
  if (std::optional<std::string> bytes = disk->load(key)) {
    counters::cuda_disk_loads.add();
    if (debug_level() >= 2)
      std::fprintf(stderr, "[lt] loaded %s from %s\n", label.c_str(), disk->path_for(key).c_str());
    out.image = std::move(*bytes);
    out.from_disk = true;
    return out;
  }
  cuda::CompiledModule m = cuda::nvrtc_compile(translation_unit, label, arch);
  counters::cuda_nvrtc_compiles.add();
  if (debug_level() >= 2)
    std::fprintf(stderr, "[lt] compiled %s for %s in %.2f ms (%zu bytes)\n", label.c_str(), arch.c_str(), m.compile_ms,
                 m.image.size());
  disk->store(key, m.image);  // failure is counted and logged; the module still loads from memory
  out.image = std::move(m.image);
  out.compile_ms = m.compile_ms;
  return out;
}

namespace {

// Compiles every kernel of `kernels` not cached yet as one NVRTC program (one
// module), and returns each kernel's launch information in order.
std::vector<LoadedKernel> CudaBackend::kernels(const std::vector<Kernel>& kernels, const std::string& label,
                                               double* compile_ms, int* compiled) {
  const std::string arch = cuda::device_arch();
  std::vector<LoadedKernel> out(kernels.size());
  std::vector<size_t> missing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < kernels.size(); ++i) {
      auto it = kernels_.find(cubin_key(kernels[i], arch));
      if (it != kernels_.end()) out[i] = it->second;
      else missing.push_back(i);
    }
  }
  if (missing.empty()) return out;
  std::vector<cuda::KernelSource> sources;
  for (size_t i : missing) sources.push_back(cuda::generate_cuda_kernel(kernels[i]));
  std::vector<const cuda::KernelSource*> parts;
  for (const cuda::KernelSource& src : sources) parts.push_back(&src);
  std::string tu = cuda::cuda_translation_unit(parts);
  if (debug_level() >= 4) std::fprintf(stderr, "[lt] cuda source of %s:\n%s\n", label.c_str(), tu.c_str());
  CudaModuleImage m = cuda_module_image(tu, label, arch);
  void* module = nullptr;
  if (m.from_disk) {
    try {
      module = cuda::load_module(m.image);
    } catch (const Error& e) {  // intact on disk but refused by this driver: rebuild it
      kernel_cache()->reject(cuda_module_key(tu, arch), e.what());
      m = cuda_module_image(tu, label, arch);
    }
  }
  if (!module) module = cuda::load_module(m.image);
  *compile_ms += m.compile_ms;
  counters::cuda_compile_ms.add(static_cast<int64_t>(m.compile_ms + 0.5));
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t j = 0; j < missing.size(); ++j) {
    const cuda::KernelSource& src = sources[j];
    LoadedKernel lk;
    lk.function = cuda::module_function(module, src.entry);
    lk.block = src.block;
    lk.items = src.items;
    lk.items_per_block = src.items_per_block;
    out[missing[j]] = lk;
    if (kernels_.emplace(cubin_key(kernels[missing[j]], arch), lk).second && !m.from_disk) {
      ++*compiled;
      counters::cuda_kernels_compiled.add();
    }
  }
  return out;
}

std::shared_ptr<const Executable> CudaBackend::executable(const Trace& trace, const RunOptions& options, bool* hit,
                                                          double* compile_ms, int* compiled) {
  const FusionPolicy& policy = fusion_policy(options.fusion);
  Hash128 key = exec::trace_key(exec::hash_of(trace), policy, "cuda");
  if (std::shared_ptr<const Executable> cached = traces_.find(key)) {
    *hit = true;
    return cached;
  }
  *hit = false;
  auto exe = std::make_shared<Executable>();
  exe->plan = plan_miss(trace, policy);
  exe->entries = kernels(exe->plan->kernels, "lt_trace_" + hash_hex(key), compile_ms, compiled);
  return traces_.insert(key, std::move(exe));
}

size_t nbytes(DType d, int64_t numel) { return static_cast<size_t>(numel) * dtype_size(d); }

std::vector<BufferPtr> CudaBackend::run(const Trace& trace, const RunOptions& options, int timed_reps,
                                        std::vector<std::vector<float>>* times) {
  cuda::require_device();
  bool hit = false;
  double compile_ms = 0;
  int compiled = 0;
  std::shared_ptr<const Executable> exe = executable(trace, options, &hit, &compile_ms, &compiled);
  (hit ? counters::cuda_trace_cache_hits : counters::cuda_trace_cache_misses).add();
  const Plan& plan = *exe->plan;
  auto t1 = Clock::now();

  // Device blocks: parameters uploaded, outputs fresh, temporaries by slot.
  std::vector<cuda::DeviceBlock> slots;
  for (int64_t bytes : plan.temp_slot_bytes) slots.emplace_back(static_cast<size_t>(bytes));
  std::vector<cuda::DeviceBlock> owned;
  owned.reserve(plan.buffers.size());
  std::vector<cuda::DevicePtr> ptr = exec::bind_plan_buffers<cuda::DevicePtr>(
      plan, trace.params, "cuda",
      [&](const PlanBuffer&, const BufferPtr& p) {
        owned.emplace_back(p->nbytes());
        cuda::copy_to_device(owned.back().ptr(), p->data(), p->nbytes());
        counters::cuda_bytes_to_device.add(static_cast<int64_t>(p->nbytes()));
        return owned.back().ptr();
      },
      [&](const PlanBuffer& b) {
        owned.emplace_back(nbytes(b.dtype, b.numel));
        return owned.back().ptr();
      },
      [&](int32_t slot) { return slots[slot].ptr(); });
  cuda::DeviceBlock error_slot(sizeof(cuda::ErrorSlot));
  cuda::fill_zero(error_slot.ptr(), sizeof(cuda::ErrorSlot));

  const cuda::DeviceInfo& dev = cuda::device_info();
  std::vector<void*> params;
  if (times) times->assign(plan.kernels.size(), {});
  for (int rep = 0; rep <= timed_reps; ++rep) {
    exec::launch_kernels(
        plan, ptr, trace.scalars, [&](size_t ki, const Kernel& k, cuda::DevicePtr* args, int64_t* scalars) {
          const LoadedKernel& lk = exe->entries[ki];
          if (lk.items <= 0) return;
          cuda::DevicePtr err = error_slot.ptr();
          int64_t n = lk.items;
          params.clear();
          for (size_t a = 0; a < k.buffers.size(); ++a) params.push_back(&args[a]);
          for (size_t s = 0; s < k.scalar_types.size(); ++s) params.push_back(&scalars[s]);
          params.push_back(&err);
          params.push_back(&n);
          int64_t blocks_needed = (lk.items + lk.items_per_block - 1) / lk.items_per_block;
          int64_t resident = std::max(1, dev.sm_count) * std::max(1, 2048 / lk.block);
          unsigned grid = static_cast<unsigned>(std::clamp<int64_t>(blocks_needed, 1, resident));
          if (rep > 0) {
            cuda::Event start, stop;
            start.record();
            cuda::launch(lk.function, grid, static_cast<unsigned>(lk.block), 0, params.data());
            stop.record();
            (*times)[ki].push_back(stop.elapsed_ms_since(start));
          } else if (debug_level() >= 2) {
            cuda::Event start, stop;
            start.record();
            cuda::launch(lk.function, grid, static_cast<unsigned>(lk.block), 0, params.data());
            stop.record();
            float ms = stop.elapsed_ms_since(start);
            std::fprintf(stderr, "[lt]   %-40s %9.3f ms %8.2f GB/s grid=%u block=%d\n", k.name.c_str(), ms,
                         ms > 0 ? static_cast<double>(k.bytes_moved()) / (ms * 1e6) : 0.0, grid, lk.block);
          } else {
            cuda::launch(lk.function, grid, static_cast<unsigned>(lk.block), 0, params.data());
          }
          counters::cuda_kernels_launched.add();
        });
  }
  std::vector<BufferPtr> outputs;
  for (int32_t b : plan.outputs) {
    const PlanBuffer& pb = plan.buffers[b];
    BufferPtr host = make_buffer(pb.dtype, pb.numel);
    cuda::copy_to_host(host->data(), ptr[b], host->nbytes());
    counters::cuda_bytes_to_host.add(static_cast<int64_t>(host->nbytes()));
    outputs.push_back(std::move(host));
  }
  cuda::ErrorSlot err;
  cuda::copy_to_host(&err, error_slot.ptr(), sizeof err);
  cuda::synchronize();
  if (err.code != 0) {
    raise_bad_index(err.code, err.value, err.axis, err.bound);
  }
  if (debug_level() >= 1) {
    std::fprintf(stderr,
                 "[lt] sync trace=%s %s backend=cuda policy=%s kernels=%zu compiled=%d compile_ms=%.2f run_ms=%.3f\n",
                 hash_hex(exec::hash_of(trace)).c_str(), hit ? "hit" : "miss", plan.policy.c_str(), plan.kernels.size(),
                 compiled, compile_ms, ms_between(t1, Clock::now()));
  }
  return outputs;
}

CudaBackend& backend() {
  static CudaBackend* b = new CudaBackend();
  return *b;
}

}  // namespace

Backend& cuda_backend() { return backend(); }

std::vector<double> cuda_kernel_times_ms(const Trace& trace, int reps, const RunOptions& options) {
  std::vector<std::vector<float>> times;
  backend().run(trace, options, std::max(1, reps), &times);
  std::vector<double> medians;
  for (std::vector<float>& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t.empty() ? 0.0 : t[t.size() / 2]);
  }
  return medians;
}
void cuda_clear_caches() { backend().clear(); }

}  // namespace lt

#endif  // LT_HAVE_CUDA
