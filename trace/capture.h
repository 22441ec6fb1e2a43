// trace/capture.h — pending graph -> canonical Trace.
//
// Capture walks from the roots depth-first, inputs in order, and numbers nodes
// in post-order: the numbering depends only on structure, never on pointer
// values or allocation order. Materialised nodes (inputs and realised values)
// become Input nodes numbered by first use and de-duplicated by buffer, so two
// uses of one buffer are one parameter (the aliasing pattern is structure).
// Scalar nodes become runtime scalars. The trace hash is computed here.
#pragma once

#include <vector>

#include "absl/types/span.h"
#include "ir/node.h"
#include "ir/trace.h"

namespace lt {

struct CapturedTrace {
  Trace trace;
  /// For each trace node, the graph node it came from (null for none).
  std::vector<NodePtr> origin;
};

/// Captures the graph behind `roots` (which need not be pending).
CapturedTrace capture_trace(absl::Span<const NodePtr> roots);

/// The structural hash of a trace (ops, dtypes, shapes, attrs, wiring,
/// parameter aliasing, outputs). Equal for a trace and its printed-and-parsed copy.
Hash128 hash_trace(const Trace& trace);

}  // namespace lt
