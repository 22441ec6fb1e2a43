// lab/lab.cpp — the fusion lab's operations (see lab.h).
#include "lab/lab.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>

#include "ir/counters.h"
#include "ir/error.h"
#include "lab/compare.h"
#include "scheduler/cost.h"
#include "scheduler/plan.h"
#include "ir/evaluator.h"
#include "trace/dump.h"
#include "trace/text.h"
#if LT_HAVE_CPU_JIT
#include "runtime/cpu_backend.h"
#endif

namespace lt::lab {
namespace {

Backend& backend_named(const std::string& name) {
  if (name == "reference") return reference_backend();
#if LT_HAVE_CPU_JIT
  if (name == "cpu") return cpu_backend();
#endif
  fail(ErrorKind::Value, "lab: backend '", name, "' is not available in this build");
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

std::string dot_escape(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '"' ? std::string("\\\"") : std::string(1, c);
  return o;
}

}  // namespace

Trace load(const std::string& path) {
  bool bound = false;
  Trace t = read_trace_dump(path, &bound);
  if (bound) return t;
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (const TraceNode& n : t.nodes) {
    if (n.op != Op::Input) continue;
    BufferPtr b = make_buffer(n.dtype, shape_numel(n.shape));
    // Bools alternate, integers are 0, floats uniform in [-1, 1), each converted to the input's dtype.
    std::vector<double> values(b->numel());
    for (int64_t i = 0; i < b->numel(); ++i) {
      values[i] = n.dtype == DType::Bool ? static_cast<double>(i % 2) : is_integral(n.dtype) ? 0.0 : uni(rng);
    }
    convert_elements_reference(values.data(), DType::Float64, b->numel(), b->data(), n.dtype);
    t.params[n.param] = b;
  }
  return t;
}

std::string show(const Trace& t) {
  int computed = 0;
  for (const TraceNode& n : t.nodes) computed += n.op != Op::Input && n.op != Op::Scalar;
  return cat(print_trace(t), "# ", t.nodes.size(), " nodes (", computed, " computed), ", t.num_params(), " params, ",
             t.scalars.size(), " scalars, ", t.outputs.size(), " outputs\n");
}

std::string plan_table(const Trace& t, const std::string& policy) {
  Plan plan = schedule(t, fusion_policy(policy));
  std::string s = cat("policy ", plan.policy, ": ", plan.kernels.size(), " kernels over ", plan.nodes_after_simplify,
                      " nodes (after simplification)\n\n",
                      "| # | kernel | kind | domain | nodes | bytes read | bytes written | FLOPs |\n"
                      "|---|---|---|---|---|---|---|---|\n");
  static const char* kinds[] = {"elementwise", "rows", "matmul"};
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const Kernel& k = plan.kernels[i];
    KernelCost c = kernel_cost(k);
    s += cat("| ", i, " | ", k.name, " | ", kinds[static_cast<int>(k.kind)], " | ", shape_str(k.domain), " | ",
             k.trace_nodes.size(), " | ", c.bytes_read, " | ", c.bytes_written, " | ", c.flops, " |\n");
  }
  KernelCost total = plan_cost(plan);
  s += cat("| | total | | | | ", total.bytes_read, " | ", total.bytes_written, " | ", total.flops, " |\n");
  return s;
}

Measured measure(const Trace& t, const std::string& backend_name, const std::string& policy, int repeat) {
  Backend& backend = backend_named(backend_name);
  Measured m;
  m.policy = policy;
  Plan plan = schedule(t, fusion_policy(policy));
  KernelCost cost = plan_cost(plan);
  m.kernels = plan.kernels.size();
  m.model_bytes = cost.bytes_read + cost.bytes_written;
  m.model_flops = cost.flops;
  RunOptions opt;
  opt.fusion = policy;
  int64_t c0 = counter_value("compile_ms");
  auto t0 = std::chrono::steady_clock::now();
  backend.run(t, opt);  // the first run compiles on a miss
  double first = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  m.compile_ms = static_cast<double>(counter_value("compile_ms") - c0);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto s = std::chrono::steady_clock::now();
    backend.run(t, opt);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(times.begin(), times.end());
  m.run_ms = times.empty() ? first : times[times.size() / 2];
  if (auto bad = compare(t, backend, policy)) m.mismatch = *bad;
  return m;
}

std::string compare_table(const std::vector<Measured>& rows) {
  std::string s =
      "| policy | kernels | model bytes | model FLOPs | compile ms | run ms | model GB/s at run ms | matches reference |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const Measured& m : rows) {
    char nums[160];
    std::snprintf(nums, sizeof nums, "%.0f | %.3f | %.2f", m.compile_ms, m.run_ms,
                  static_cast<double>(m.model_bytes) / (std::max(m.run_ms, 1e-6) * 1e6));
    s += cat("| ", m.policy, " | ", m.kernels, " | ", human_bytes(static_cast<double>(m.model_bytes)), " | ",
             m.model_flops, " | ", nums, " | ", m.mismatch.empty() ? "yes" : m.mismatch, " |\n");
  }
  return s;
}

std::string dot(const Trace& t, const std::string& policy, size_t* kernels) {
  Plan plan = schedule(t, fusion_policy(policy));
  if (kernels) *kernels = plan.kernels.size();
  const Trace& s = plan.simplified;
  std::string d = "digraph trace {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  std::vector<int> owner(s.nodes.size(), -1);
  for (size_t k = 0; k < plan.kernels.size(); ++k)
    for (int32_t n : plan.kernels[k].trace_nodes)
      if (owner[n] < 0) owner[n] = static_cast<int>(k);
  auto label = [&](size_t i) {
    const TraceNode& n = s.nodes[i];
    return dot_escape(cat("%", i, " ", op_name(n.op), "\\n", dtype_name(n.dtype), shape_str(n.shape)));
  };
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    KernelCost c = kernel_cost(plan.kernels[k]);
    d += cat("  subgraph cluster_k", k, " {\n    label=\"", dot_escape(plan.kernels[k].name), "\\n",
             c.bytes_read + c.bytes_written, " B, ", c.flops, " FLOP\";\n    style=rounded; color=blue;\n");
    // An empty cluster is dropped by graphviz: give every kernel a node.
    d += cat("    k", k, " [label=\"", dot_escape(plan.kernels[k].name), "\", shape=note];\n");
    for (size_t i = 0; i < s.nodes.size(); ++i)
      if (owner[i] == static_cast<int>(k)) d += cat("    n", i, " [label=\"", label(i), "\"];\n");
    d += "  }\n";
  }
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (owner[i] >= 0) continue;
    const TraceNode& n = s.nodes[i];
    const char* shape = n.op == Op::Input ? "ellipse" : n.op == Op::Scalar ? "plaintext" : "box";
    d += cat("  n", i, " [label=\"", label(i), "\", shape=", shape, "];\n");
  }
  for (size_t i = 0; i < s.nodes.size(); ++i)
    for (int32_t in : s.nodes[i].inputs) d += cat("  n", in, " -> n", i, ";\n");
  d += "}\n";
  return d;
}

void write_picture(const std::string& dot_text, const std::string& out) {
  bool svg = out.size() > 4 && out.substr(out.size() - 4) == ".svg";
  std::string dot_path = svg ? out.substr(0, out.size() - 4) + ".dot" : out;
  std::ofstream(dot_path) << dot_text;
  if (!svg) return;
  std::string cmd = "dot -Tsvg '" + dot_path + "' -o '" + out + "'";
  if (std::system(cmd.c_str()) != 0) {
    fail(ErrorKind::Runtime, "lab: graphviz `dot` failed or is missing (install graphviz); wrote ", dot_path, " only");
  }
}

}  // namespace lt::lab
