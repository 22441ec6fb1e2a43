// trace/text.h — the trace text format: print and parse, round trip exact.
//
// Format (docs/trace-format.md has the grammar):
//   lazytensor-trace v2
//   hash 1f0c...            (informational; recomputed on parse)
//   %0 = input f32[4, 3] param=0
//   %1 = scalar f32[] attrs=[1] value=0.5
//   %2 = add f32[4, 3] %0, %1
//   outputs %2
// Scalar values are printed so a parsed trace computes the same results; they
// are not part of the hash. Floats print with 17 significant digits.
#pragma once

#include <string>
#include <string_view>

#include "ir/trace.h"

namespace lt {

std::string print_trace(const Trace& trace);
/// Parses text from print_trace. Input nodes get no buffers (params left
/// empty, sized to the number of params); throws lt::Error with a line number.
Trace parse_trace(std::string_view text);

}  // namespace lt
