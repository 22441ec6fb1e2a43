// trace/recompile_reasons.h — why a sync missed the trace cache, in one line.
//
// Like torch._dynamo's recompile reasons: a miss is either a new program, or
// a recompile of one the backend has compiled before with some dimension,
// dtype or attribute changed ("input 0 dim 1 was 64, now 65 (f32[8, 65])").
//
// Everything here runs on a miss only; a hit never reaches it (the hit path
// stays the capture walk plus one lookup, and builds no Trace). On a miss the
// backend hands the full Trace to its RecompileExplainer, which
//  1. computes the trace's structure signature: a hash of the op sequence,
//     the input wiring, the parameter and scalar slots and the outputs, but no
//     dtype, shape or attribute value. Traces that differ only in those share it;
//  2. compares the trace with each trace it remembers under that signature
//     (the last kTracesPerSignature) node by node, and picks the nearest:
//     fewest root differences (a node that differs although none of its
//     inputs do; a shape that only follows from a changed input is not one),
//     then fewest changed nodes, then the most recent;
//  3. reports the first root differences of the nearest, or "new program
//     (N nodes)" when no remembered trace has the signature (adding, when one
//     of the newest shares most of its op sequence, how many nodes more or
//     fewer it has: a loop unrolled further than at the last sync);
//  4. remembers a compact copy of the trace (per node: op, dtype, shape,
//     attrs; no wiring, which the signature covers) for later misses.
// Memory is bounded: each copy keeps at most kWordsPerTrace words (a longer
// trace keeps its first nodes; a difference past them is reported as such),
// and an explainer keeps at most kWordBudget words and kMaxTraces traces,
// dropping the oldest first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/counters.h"
#include "ir/hash.h"
#include "ir/trace.h"

namespace lt {

namespace counters {
/// Trace-cache misses that resemble a trace compiled before (same structure;
/// a dimension, dtype, attribute or fusion policy differs), as opposed to new programs.
extern Counter trace_cache_recompiles;
}  // namespace counters

/// Reasons kept by recompile_reasons().
constexpr size_t kRecompileReasonsKept = 64;

/// The reasons of the most recent trace-cache misses of every backend, one
/// string per miss, the most recent last (at most kRecompileReasonsKept):
/// "new program (12 nodes)" or "recompile: input 0 dim 1 was 64, now 65 (f32[8, 65])".
std::vector<std::string> recompile_reasons();
void clear_recompile_reasons();

/// A hash of the trace's ops, input wiring, parameter/scalar slots and
/// outputs: equal for traces that differ only in dtypes, shapes or attribute values.
Hash128 structure_signature(const Trace& trace);

/// One backend's memory of the traces it compiled, to explain its misses.
class RecompileExplainer {
 public:
  static constexpr size_t kTracesPerSignature = 4;
  static constexpr size_t kWordsPerTrace = size_t{1} << 16;  ///< 512 KiB of one trace's nodes
  static constexpr size_t kWordBudget = size_t{1} << 20;     ///< 8 MiB over all traces
  static constexpr size_t kMaxTraces = 256;

  /// Explains a miss of `trace` under fusion policy `policy`: returns the
  /// reason, appends it to recompile_reasons(), counts a recompile in
  /// counters::trace_cache_recompiles, and remembers the trace.
  std::string explain_miss(const Trace& trace, std::string_view policy);
  /// Forgets every trace (the backend's trace cache was cleared).
  void clear();

 private:
  struct Remembered {
    std::string policy;
    uint64_t seq;                  ///< when it was remembered (oldest dropped first)
    size_t num_nodes;              ///< nodes of the trace; only the first starts.size() are kept
    std::vector<uint32_t> starts;  ///< per kept node, its first word
    std::vector<int64_t> words;    ///< per kept node: header (op, dtype, ndim, nattrs), dims, attrs
  };
  /// For a new program: how it differs from the most alike of the newest
  /// remembered traces (", 12 more nodes than ..."), or "" when none is alike.
  std::string structure_hint(const Trace& trace) const;
  void remember(const Hash128& signature, const Trace& trace, std::string_view policy);
  void drop_oldest();

  std::mutex mu_;
  absl::flat_hash_map<Hash128, std::deque<Remembered>> by_signature_;
  size_t words_ = 0;
  size_t traces_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace lt
