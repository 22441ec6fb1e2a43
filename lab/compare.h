// lab/compare.h — a backend's results against the reference evaluator.
//
// The check behind the lab's "matches reference" column (lab::measure) and
// behind every run of the differential fuzzer (tools/fuzz), which shrinks
// what it finds with sub_trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/trace.h"
#include "trace/backend.h"

namespace lt::lab {

/// Runs `trace` on `backend` under `policy` and compares each output with the
/// reference evaluator: bit-exact for integer and bool, relative tolerance for
/// floats (docs/reliability.md), NaN equal to NaN, and an error on one side
/// must be an error on the other. A float mismatch that rounding explains
/// (every op right on its operands, to the tolerance) is not one. Empty when
/// they agree.
std::optional<std::string> compare(const Trace& trace, Backend& backend, const std::string& policy);

/// The trace's nodes as a graph again, with the `cut` ones (when given)
/// replaced by inputs holding `cut_values`.
std::vector<NodePtr> rebuild_nodes(const Trace& trace, const std::vector<BufferPtr>* cut_values = nullptr,
                                   const std::vector<bool>* cut = nullptr);
/// The sub-trace computing `root` (an index into `trace`), params shared;
/// captured anew, so capture canonicalises the sub-DAG.
Trace sub_trace(const Trace& trace, int32_t root, const std::vector<BufferPtr>* cut_values = nullptr,
                const std::vector<bool>* cut = nullptr);

}  // namespace lt::lab
