// trace/capture.h — pending graph -> canonical Trace.
//
// Capture walks from the roots depth-first, inputs in order, and numbers nodes
// in post-order: the numbering depends only on structure, never on pointer
// values or allocation order. Materialised nodes (inputs and realised values)
// become Input nodes numbered by first use and de-duplicated by buffer, so two
// uses of one buffer are one parameter (the aliasing pattern is structure).
// Scalar nodes become runtime scalars. The trace hash is computed here.
//
// Capture is on the hot path of every sync (a cache hit still captures), so
// it hashes each node as it is numbered and keeps its visit marks in the nodes
// themselves (Node::capture_epoch / capture_index) instead of a hash map. Those
// marks belong to the capture in progress: captures take one process-wide
// lock for their duration (a TraceCapture holds it until it is destroyed).
#pragma once

#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "ir/hash.h"
#include "ir/node.h"
#include "ir/trace.h"

namespace lt {

struct CapturedTrace {
  Trace trace;
};

/// A capture in progress: the walk from the roots is done at construction;
/// nodes it reached can then be added as extra outputs (lazy/ promotes
/// intermediates other live tensors still need) before finish().
class TraceCapture {
 public:
  explicit TraceCapture(absl::Span<const NodePtr> roots);
  TraceCapture(const TraceCapture&) = delete;
  TraceCapture& operator=(const TraceCapture&) = delete;

  /// The trace index of `n`, or -1 when the walk from the roots did not reach it.
  int32_t index_of(const Node* n) const;
  /// Appends trace node `index` to the outputs.
  void add_output(int32_t index) { trace_.outputs.push_back(index); }
  /// The trace, hashed. Call once; releases the capture lock.
  Trace finish();

 private:
  int32_t emit_leaf(Node* n);
  int32_t emit_node(Node* n);

  std::unique_lock<std::mutex> lock_;
  uint64_t epoch_;
  Trace trace_;
  absl::flat_hash_map<const Buffer*, int32_t> by_buffer_;  ///< materialised buffer -> trace index
  StableHasher hash_;  ///< over the nodes, in order, as they are numbered
};

/// Captures the graph behind `roots` (which need not be pending).
CapturedTrace capture_trace(absl::Span<const NodePtr> roots);

/// The structural hash of a trace (ops, dtypes, shapes, attrs, wiring,
/// parameter aliasing, outputs). Equal for a trace and its printed-and-parsed copy.
Hash128 hash_trace(const Trace& trace);

}  // namespace lt
