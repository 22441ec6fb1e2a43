// ir/trace.h — a captured program in canonical form (plain data).
//
// Built by trace/capture.h from pending nodes, or parsed from text
// (trace/text.h). Nodes are in topological order; inputs refer to earlier
// indices. Materialised values enter as Input nodes numbered by first use
// (their `param` indexes `params`); a buffer used twice is one Input node, so
// the aliasing pattern is part of the structure. Scalar nodes index `scalars`.
// `hash` covers structure only (ops, dtypes, shapes, attrs, wiring, aliasing),
// never buffer contents or scalar values.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "ir/buffer.h"
#include "ir/hash.h"
#include "ir/node.h"

namespace lt {

struct TraceNode {
  Op op;
  DType dtype;
  Shape shape;
  Attrs attrs;
  absl::InlinedVector<int32_t, 3> inputs;  ///< indices of earlier trace nodes
  int32_t param = -1;                       ///< Input: index into params; Scalar: into scalars
};

struct Trace {
  std::vector<TraceNode> nodes;
  std::vector<int32_t> outputs;      ///< node indices, in the order roots were given
  std::vector<BufferPtr> params;     ///< runtime buffers of the Input nodes (may be empty for a parsed trace)
  std::vector<ScalarValue> scalars;  ///< runtime values of the Scalar nodes
  Hash128 hash;                      ///< structural hash (trace/hash.h)

  int32_t num_params() const;
};

}  // namespace lt
