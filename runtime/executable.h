// runtime/executable.h — the skeleton both compiled backends run a trace on.
//
// A backend caches one Executable per (trace hash, fusion policy): the plan
// and, per plan kernel, what launches it. Executor<Exe> holds that trace cache
// and the miss path both backends share (explain the miss, schedule, print
// the plan under LT_DEBUG>=3); bind_plan_buffers and launch_kernels are the run
// loop's common structure: bind every plan buffer by role, then per kernel
// gather its buffer arguments and scalar bits and hand them to the backend.
//
// What differs stays in the backends: how kernels are fetched (the cpu
// backend's tiers and pipelined first launch, the cuda backend's one NVRTC
// program per miss), where buffers live (host buffers; device blocks with
// per-sync copies) and how one kernel is launched. The hooks are template
// parameters, not virtual calls: a cache-hit sync of a 100-op trace costs a
// few microseconds (bench_cpu), and the skeleton adds neither an indirect
// call nor an allocation per kernel to it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cache/debug.h"
#include "cache/trace_cache.h"
#include "ir/buffer.h"
#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/hash.h"
#include "ir/trace.h"
#include "scheduler/fusion.h"
#include "scheduler/kernel.h"
#include "scheduler/plan.h"
#include "trace/backend.h"
#include "trace/capture.h"
#include "trace/recompile_reasons.h"

namespace lt::exec {

/// What a backend caches per trace. `Entry` is what launches one plan kernel
/// (a loaded function and its launch state).
template <class Entry>
struct Executable {
  std::shared_ptr<const Plan> plan;  ///< the scheduled trace
  std::vector<Entry> entries;        ///< per plan kernel, in plan order
};

/// The trace hash of `trace` (computed when capture did not stream one).
inline Hash128 hash_of(const Trace& trace) { return trace.hash == Hash128{} ? hash_trace(trace) : trace.hash; }

/// The trace-cache key: trace hash and fusion policy, and `tag` when not
/// empty (a backend whose keys must never equal another's).
inline Hash128 trace_key(const Hash128& trace_hash, const FusionPolicy& policy, std::string_view tag = {}) {
  StableHasher h;
  h.add(trace_hash).add_string(policy.name());
  if (!tag.empty()) h.add_string(tag);
  return h.finish();
}

/// The trace cache and the miss path of a backend whose executables are `Exe`.
template <class Exe>
class Executor : public Backend {
 protected:
  /// The plan of a trace that missed the trace cache: the miss is explained
  /// (trace/recompile_reasons.h: the reason goes to recompile_reasons() and,
  /// under LT_DEBUG>=1, to stderr before the miss's sync line), the trace
  /// scheduled, `rewrite(plan)` run (a backend's own plan passes), and the
  /// plan printed under LT_DEBUG>=3.
  template <class Rewrite>
  std::shared_ptr<const Plan> plan_miss(const Trace& trace, const FusionPolicy& policy, Rewrite&& rewrite) {
    std::string reason = explainer_.explain_miss(trace, policy.name());
    if (cache_debug::debug_level() >= 1) std::fprintf(stderr, "[lt] %s\n", reason.c_str());
    Plan plan = schedule(trace, policy);
    rewrite(plan);
    if (cache_debug::debug_level() >= 3) std::fprintf(stderr, "[lt] %s", plan.print().c_str());
    return std::make_shared<const Plan>(std::move(plan));
  }
  std::shared_ptr<const Plan> plan_miss(const Trace& trace, const FusionPolicy& policy) {
    return plan_miss(trace, policy, [](Plan&) {});
  }

  /// Forgets every cached trace and what explained their misses.
  void clear_traces() {
    traces_.clear();
    explainer_.clear();
  }

  TraceCache<Exe> traces_;

 private:
  RecompileExplainer explainer_;  // why a trace missed traces_ (only misses touch it)
};

/// The trace parameter that plan buffer `b` (a Param) binds, checked against
/// what the plan expects; `backend` names the backend in the error.
inline const BufferPtr& checked_param(const PlanBuffer& b, const std::vector<BufferPtr>& params,
                                      std::string_view backend) {
  if (b.index >= static_cast<int32_t>(params.size()) || !params[b.index])
    fail(ErrorKind::Runtime, backend, " backend: trace parameter ", b.index, " has no buffer");
  const BufferPtr& p = params[b.index];
  if (p->dtype() != b.dtype || p->numel() != b.numel)
    fail(ErrorKind::Runtime, backend, " backend: parameter ", b.index, " is ", dtype_name(p->dtype()), "[", p->numel(),
         "], expected ", dtype_name(b.dtype), "[", b.numel, "]");
  return p;
}

/// Binds every plan buffer by its role: `param(b, buffer)` for a parameter
/// (checked), `output(b)` for an output, `temp(slot)` for a temporary.
/// Returns what each plan buffer is bound to, in plan order.
template <class Ptr, class Param, class Output, class Temp>
std::vector<Ptr> bind_plan_buffers(const Plan& plan, const std::vector<BufferPtr>& params, std::string_view backend,
                                   Param&& param, Output&& output, Temp&& temp) {
  std::vector<Ptr> bound(plan.buffers.size());
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBuffer& b = plan.buffers[i];
    switch (b.role) {
      case PlanBuffer::Role::Param:
        bound[i] = param(b, checked_param(b, params, backend));
        break;
      case PlanBuffer::Role::Output:
        bound[i] = output(b);
        break;
      case PlanBuffer::Role::Temp:
        bound[i] = temp(b.index);
        break;
    }
  }
  return bound;
}

/// The run loop: for each plan kernel in order, its buffer arguments (what
/// `bound` holds for each kernel buffer, a null Ptr for one the plan does not
/// bind) and its scalar bits, handed to `launch(ki, kernel, args, scalar_bits)`
/// (`Ptr*` and `int64_t*`, valid for that call only).
template <class Ptr, class Launch>
void launch_kernels(const Plan& plan, const std::vector<Ptr>& bound, const std::vector<ScalarValue>& scalars,
                    Launch&& launch) {
  std::vector<Ptr> args;
  std::vector<int64_t> scalar_bits;
  for (size_t ki = 0; ki < plan.kernels.size(); ++ki) {
    const Kernel& k = plan.kernels[ki];
    args.clear();
    for (const KernelBuffer& kb : k.buffers) args.push_back(kb.plan_buffer >= 0 ? bound[kb.plan_buffer] : Ptr{});
    scalar_bits.clear();
    for (size_t s = 0; s < k.scalar_types.size(); ++s) scalar_bits.push_back(kernel_scalar_bits(k, s, scalars));
    launch(ki, k, args.data(), scalar_bits.data());
  }
}

}  // namespace lt::exec
