// trace/dump.h — trace dumps on disk: the text format plus, optionally, the
// input values in a side file, so a dumped program can be replayed exactly.
//
// `<stem>.trace` holds print_trace(); `<stem>.inputs` holds the raw bytes of
// the params in param order (row-major, each param's dtype, no header: the
// trace gives the shapes and dtypes).
#pragma once

#include <string>

#include "ir/trace.h"

namespace lt {

/// Writes `<stem>.trace` and, when `with_inputs` and all params are bound, `<stem>.inputs`.
void write_trace_dump(const Trace& trace, const std::string& stem, bool with_inputs);
/// Reads `path` (a .trace file); binds params from the side file when it exists.
/// Returns false in *inputs_bound when there is none.
Trace read_trace_dump(const std::string& path, bool* inputs_bound = nullptr);

}  // namespace lt
