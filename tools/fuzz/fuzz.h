// tools/fuzz/fuzz.h — the differential trace fuzzer.
//
// A seeded generator builds random programs (random DAGs of ops over shapes
// with broadcasting, views and slices, reductions over random dims, odd and
// zero sizes, every dtype, random scalar values), captures each as a trace,
// runs it on a backend under each fusion policy and compares with the
// reference evaluator. A mismatch is shrunk to a small program (the smallest
// failing sub-DAG, with inputs cut to materialised values where the failure
// survives) and can be written as a trace dump plus input values.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/trace.h"
#include "trace/backend.h"

namespace lt::fuzz {

struct Program {
  uint64_t seed = 0;
  std::vector<NodePtr> roots;  ///< the forward roots, then (gradient programs) the loss and its gradients
  bool gradients = false;      ///< the roots include autograd gradient nodes
};

/// The fixed seeds of `make test`: test_fuzz compares programs 1..N with the
/// reference and test_cuda_codegen compiles every kernel they schedule.
/// N is `kFixedSeedPrograms` unless LT_FUZZ_PROGRAMS is set.
inline constexpr int64_t kFixedSeedPrograms = 500;  // about 2 minutes here; the same seeds are compiled with NVRTC by test_cuda_codegen
int64_t fixed_seed_programs();
/// The fusion policies every fixed-seed program runs under.
const std::vector<std::string>& fuzz_policies();

/// A random program; the same seed gives the same program.
Program generate(uint64_t seed, int max_ops = 24);

struct Mismatch {
  std::string what;  ///< first differing element, or the error text
  Trace trace;       ///< the (shrunk) failing trace, params bound
};

/// Runs `trace` on `backend` under `policy` and compares it with the reference
/// evaluator; empty when they agree. The fusion lab's check, lab::compare
/// (lab/compare.h: the tolerances and the mismatches that rounding explains).
std::optional<std::string> compare(const Trace& trace, Backend& backend, const std::string& policy);

/// Shrinks a failing trace to a smaller one that still fails.
Trace shrink(const Trace& trace, Backend& backend, const std::string& policy);

/// Writes `<dir>/<name>.trace` and `<dir>/<name>.inputs` (raw param bytes).
void write_case(const Trace& trace, const std::string& dir, const std::string& name);
/// Reads a case written by write_case, params bound.
Trace read_case(const std::string& trace_path);

struct Stats {
  int64_t programs = 0;
  int64_t runs = 0;  ///< program x policy
  int64_t mismatches = 0;
  int64_t gradient_programs = 0;      ///< programs whose roots include gradients
  std::vector<std::string> failures;  ///< one line each
};

/// Called after each program (seed just fuzzed); lt-fuzz prints progress and new failures with it.
using Progress = std::function<void(const Stats&, uint64_t seed)>;

/// Fuzzes seeds [first_seed, first_seed + count) (or until `seconds` pass, when > 0)
/// with programs of at most `max_ops` generator steps, each under every policy
/// or, when `rotate_policies`, under one (seed s: policies[s % size], 1/size the cost).
Stats run(uint64_t first_seed, int64_t count, double seconds, Backend& backend,
          const std::vector<std::string>& policies, const std::string& dump_dir = "", int max_ops = 24,
          bool rotate_policies = false, const Progress& progress = {});

}  // namespace lt::fuzz
