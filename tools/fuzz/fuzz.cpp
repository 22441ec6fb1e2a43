// tools/fuzz/fuzz.cpp — shrink, dump and the fuzzing loop (compare is the lab's, lab/compare.h).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "ir/error.h"
#include "ir/evaluator.h"
#include "lab/compare.h"
#include "tools/fuzz/fuzz.h"
#include "trace/capture.h"
#include "trace/dump.h"
#include "trace/text.h"

namespace lt::fuzz {

using lab::sub_trace;

std::optional<std::string> compare(const Trace& trace, Backend& backend, const std::string& policy) {
  return lab::compare(trace, backend, policy);
}

int64_t fixed_seed_programs() {
  const char* v = std::getenv("LT_FUZZ_PROGRAMS");
  return v && *v ? std::strtoll(v, nullptr, 10) : kFixedSeedPrograms;
}

const std::vector<std::string>& fuzz_policies() {
  static const std::vector<std::string> p = {"default", "none", "elementwise"};
  return p;
}

Trace shrink(const Trace& trace, Backend& backend, const std::string& policy) {
  auto fails = [&](const Trace& t) { return compare(t, backend, policy).has_value(); };
  // 1. The earliest computed node whose sub-DAG alone fails.
  Trace best = trace;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    Op op = trace.nodes[i].op;
    if (op == Op::Input || op == Op::Scalar) continue;
    Trace t = sub_trace(trace, static_cast<int32_t>(i));
    if (fails(t)) {
      best = std::move(t);
      break;
    }
  }
  // 2. Cut inputs of the root's operands to their reference values while it still fails.
  bool progress = true;
  while (progress && best.nodes.size() > 2) {
    progress = false;
    std::vector<BufferPtr> values;
    try {
      // Evaluate every node: make each an output of a copy of the trace.
      Trace all = best;
      all.outputs.clear();
      for (size_t i = 0; i < best.nodes.size(); ++i) all.outputs.push_back(static_cast<int32_t>(i));
      for (size_t i = 0; i < best.nodes.size(); ++i) {
        if (best.nodes[i].op == Op::Scalar) all.outputs[i] = -1;
      }
      all.outputs.erase(std::remove(all.outputs.begin(), all.outputs.end(), -1), all.outputs.end());
      std::vector<BufferPtr> out = evaluate_reference(all);
      values.assign(best.nodes.size(), nullptr);
      for (size_t k = 0; k < all.outputs.size(); ++k) values[all.outputs[k]] = out[k];
    } catch (const Error&) {
      break;
    }
    int32_t root = best.outputs[0];
    for (size_t i = 0; i + 1 < best.nodes.size() && !progress; ++i) {
      const TraceNode& tn = best.nodes[i];
      if (tn.op == Op::Input || tn.op == Op::Scalar || !values[i]) continue;
      std::vector<bool> cut(best.nodes.size(), false);
      cut[i] = true;
      Trace t = sub_trace(best, root, &values, &cut);
      if (t.nodes.size() < best.nodes.size() && fails(t)) {
        best = std::move(t);
        progress = true;
      }
    }
  }
  return best;
}

void write_case(const Trace& trace, const std::string& dir, const std::string& name) {
  std::filesystem::create_directories(dir);
  write_trace_dump(trace, dir + "/" + name, /*with_inputs=*/true);
}

Trace read_case(const std::string& trace_path) { return read_trace_dump(trace_path); }

Stats run(uint64_t first_seed, int64_t count, double seconds, Backend& backend,
          const std::vector<std::string>& policies, const std::string& dump_dir, int max_ops,
          bool rotate_policies, const Progress& progress) {
  Stats stats;
  auto start = std::chrono::steady_clock::now();
  for (uint64_t seed = first_seed;; ++seed) {
    if (seconds > 0) {
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed >= seconds) break;
    } else if (static_cast<int64_t>(seed - first_seed) >= count) {
      break;
    }
    Program p = generate(seed, max_ops);
    Trace trace = capture_trace(p.roots).trace;
    ++stats.programs;
    stats.gradient_programs += p.gradients;
    for (size_t pi = 0; pi < policies.size(); ++pi) {
      if (rotate_policies && pi != seed % policies.size()) continue;
      const std::string& policy = policies[pi];
      ++stats.runs;
      std::optional<std::string> m = compare(trace, backend, policy);
      if (!m) continue;
      ++stats.mismatches;
      Trace small = shrink(trace, backend, policy);
      std::string line = cat("seed ", seed, " policy ", policy.empty() ? "default" : policy, ": ", *m,
                             " (shrunk to ", small.nodes.size(), " nodes)");
      if (!dump_dir.empty()) {
        std::string name = cat("seed", seed, "_", policy.empty() ? "default" : policy);
        write_case(small, dump_dir, name);
        line += cat(" -> ", dump_dir, "/", name, ".trace");
      }
      stats.failures.push_back(line);
    }
    if (progress) progress(stats, seed);
  }
  return stats;
}

}  // namespace lt::fuzz
