// trace/capture.h — pending graph -> canonical Trace.
//
// Capture walks from the roots depth-first, inputs in order, and numbers nodes
// in post-order: the numbering depends only on structure, never on pointer
// values or allocation order. Materialised nodes (inputs and realised values)
// become Input nodes numbered by first use and de-duplicated by buffer, so two
// uses of one buffer are one parameter (the aliasing pattern is structure).
// Scalar nodes become runtime scalars. A slice of materialised data that is
// one contiguous run of it (rows i..j, x[i]) becomes an Input viewing that run,
// so the trace does not depend on where the slice starts: a loop over batches
// x[i:i+b] is one trace. The trace hash is computed here.
//
// Capture is on the hot path of every sync (a cache hit still captures), so
// it hashes each node as it is numbered and keeps its visit marks in the nodes
// themselves (TraceState, below) instead of a hash map. Those marks belong to
// the capture in progress: captures take one process-wide lock for their
// duration (a TraceCapture holds it until it is destroyed).
#pragma once

#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "ir/hash.h"
#include "ir/node.h"
#include "ir/trace.h"

namespace lt {

/// trace/'s state in a node (ir/node.h, TraceState): `index` is the number
/// the capture `epoch` gave the node. Scratch of the capture in progress,
/// read and written only under the capture lock.
inline TraceState& trace_state(const Node& n) { return n.trace_; }

struct CapturedTrace {
  Trace trace;
};

/// A capture in progress: the walk from the roots is done at construction;
/// nodes it reached can then be added as extra outputs (lazy/ promotes
/// intermediates other live tensors still need) before seal(). The walk
/// records the canonical order, params, scalars and the hash, but builds no
/// TraceNodes: a sync that hits the trace cache needs only those, and trace()
/// builds the full Trace for a miss.
class TraceCapture {
 public:
  explicit TraceCapture(absl::Span<const NodePtr> roots);
  TraceCapture(const TraceCapture&) = delete;
  TraceCapture& operator=(const TraceCapture&) = delete;

  /// The trace index of `n`, or -1 when the walk from the roots did not reach
  /// it. Only before seal().
  int32_t index_of(const Node* n) const;
  /// Appends trace node `index` to the outputs. Only before seal().
  void add_output(int32_t index) { outputs_.push_back(index); }
  /// Ends the walk: hashes the outputs and releases the capture lock.
  void seal();

  const Hash128& hash() const { return hash_value_; }
  const std::vector<BufferPtr>& params() const { return params_; }
  const std::vector<ScalarValue>& scalars() const { return scalars_; }
  /// The full trace. After seal(); the captured nodes must still be alive and
  /// unchanged (call it before realising the outputs).
  Trace trace() const;

 private:
  struct Entry {
    const Node* node;
    Op op;              ///< Input for every materialised node
    int32_t param;      ///< Input / Scalar
    int32_t first_input;  ///< into inputs_
  };
  int32_t emit_leaf(Node* n);
  int32_t emit_input(Node* n, BufferPtr buffer);
  int32_t emit_node(Node* n);

  std::unique_lock<std::mutex> lock_;
  uint64_t epoch_;
  std::vector<Entry> entries_;     ///< one per trace node, in canonical order
  std::vector<int32_t> inputs_;    ///< trace inputs of computed nodes, concatenated
  std::vector<int32_t> outputs_;
  std::vector<BufferPtr> params_;
  std::vector<ScalarValue> scalars_;
  absl::flat_hash_map<const Buffer*, int32_t> by_buffer_;  ///< materialised buffer -> trace index
  StableHasher hash_;  ///< over the nodes, in order, as they are numbered
  Hash128 hash_value_;
};

/// Captures the graph behind `roots` (which need not be pending).
CapturedTrace capture_trace(absl::Span<const NodePtr> roots);

/// The structural hash of a trace (ops, dtypes, shapes, attrs, wiring,
/// parameter aliasing, outputs). Equal for a trace and its printed-and-parsed copy.
Hash128 hash_trace(const Trace& trace);

}  // namespace lt
