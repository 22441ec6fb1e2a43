// trace/backend.h — what runs a trace: the interface every executor implements.
//
// lazy/ hands each captured trace to one Backend. The reference evaluator is
// always there ("reference"); runtime/ provides the compiled ones ("cpu" through
// LLVM, "cuda" through NVRTC) behind trace and kernel caches.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/trace.h"

namespace lt {

struct RunOptions {
  std::string fusion;  ///< fusion policy name; empty = LT_FUSION or "default"
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  /// Runs `trace` with its params and scalars; one buffer per output, in order.
  virtual std::vector<BufferPtr> run(const Trace& trace, const RunOptions& options) = 0;
  /// The cache-hit fast path of a sync: runs the trace with structural hash
  /// `hash` if this backend has already prepared it, with these runtime values
  /// (the trace's params and scalars), setting `outputs` and returning true.
  /// Returns false, doing nothing, when it has not; the caller then builds the
  /// full Trace and calls run().
  virtual bool run_cached(const Hash128& hash, const std::vector<BufferPtr>& params,
                          const std::vector<ScalarValue>& scalars, const RunOptions& options,
                          std::vector<BufferPtr>* outputs) {
    (void)hash, (void)params, (void)scalars, (void)options, (void)outputs;
    return false;
  }
};

/// The reference evaluator as a Backend.
Backend& reference_backend();

}  // namespace lt
