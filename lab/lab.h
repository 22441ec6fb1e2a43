// lab/lab.h — the fusion lab: load dumped traces, plan them under a policy,
// replay, compare policies and draw them. Used by lt-trace (lab/lt_trace.cpp)
// and by the Python module lazytensor.trace (lab/python.cpp, so
// Python-registered policies appear in the same tables).
#pragma once

#include <string>
#include <vector>

#include "ir/trace.h"

namespace lt::lab {

/// Reads a dump; inputs come from its `.inputs` side file when present, else
/// they are seeded: floats uniform in [-1, 1), integers 0 (always a valid
/// index), bools alternating.
Trace load(const std::string& path);
/// The trace text plus a one-line summary.
std::string show(const Trace& trace);
/// A markdown table of the kernels a policy makes: bytes read/written, FLOPs, totals.
std::string plan_table(const Trace& trace, const std::string& policy);

struct Measured {
  std::string policy;
  size_t kernels = 0;
  int64_t model_bytes = 0;  ///< cost model: bytes read + written
  int64_t model_flops = 0;
  double compile_ms = 0;
  double run_ms = 0;  ///< median of `repeat` runs after the first
  std::string mismatch;  ///< empty when the result matches the reference evaluator
};

/// Runs `trace` on `backend` ("cpu", "reference") under `policy`.
Measured measure(const Trace& trace, const std::string& backend, const std::string& policy, int repeat);
/// One row per policy, as a markdown table.
std::string compare_table(const std::vector<Measured>& rows);
/// Graphviz DOT: the (simplified) trace with one cluster per kernel.
std::string dot(const Trace& trace, const std::string& policy, size_t* kernels = nullptr);
/// Writes DOT to `out` (.dot) or renders it with graphviz (`.svg`); throws when `dot` fails.
void write_picture(const std::string& dot_text, const std::string& out);

}  // namespace lt::lab
