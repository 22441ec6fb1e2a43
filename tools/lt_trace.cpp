// tools/lt_trace.cpp — lt-trace: the fusion lab's command-line tool.
//
//   lt-trace show FILE
//   lt-trace plan FILE [--fusion POLICY]
//   lt-trace run FILE [--fusion POLICY] [--backend cpu|reference] [--repeat N]
//   lt-trace compare FILE --fusion A --fusion B ... [--repeat N]
//   lt-trace dot FILE [--fusion POLICY] [-o OUT.svg|OUT.dot]
//
// FILE is a trace dump (LT_DUMP_DIR; docs/trace-format.md). Inputs come from
// FILE's `.inputs` side file when present (LT_DUMP_INPUTS=1 writes it), else
// they are seeded: floats uniform in [-1, 1), integers 0 (always a valid
// index), bools alternating. Results are checked against the reference
// evaluator with the fuzzer's tolerances.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ir/counters.h"
#include "ir/error.h"
#include "scheduler/cost.h"
#include "scheduler/plan.h"
#include "tools/fuzz/fuzz.h"
#include "trace/dump.h"
#include "trace/text.h"
#if LT_HAVE_CPU_JIT
#include "cache/cpu_backend.h"
#endif

namespace {

using namespace lt;

struct Args {
  std::string command, file, backend = "cpu", out;
  std::vector<std::string> policies;
  int repeat = 5;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: lt-trace show FILE\n"
               "       lt-trace plan FILE [--fusion POLICY]\n"
               "       lt-trace run FILE [--fusion POLICY] [--backend cpu|reference] [--repeat N]\n"
               "       lt-trace compare FILE --fusion A --fusion B ... [--repeat N]\n"
               "       lt-trace dot FILE [--fusion POLICY] [-o OUT.svg|OUT.dot]\n"
               "policies: ");
  for (const std::string& p : fusion_policy_names()) std::fprintf(stderr, "%s ", p.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  if (argc < 3) usage();
  Args a;
  a.command = argv[1];
  a.file = argv[2];
  for (int i = 3; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (s == "--fusion") a.policies.push_back(next());
    else if (s == "--backend") a.backend = next();
    else if (s == "--repeat") a.repeat = std::max(1, std::atoi(next().c_str()));
    else if (s == "-o") a.out = next();
    else usage();
  }
  if (a.policies.empty()) a.policies.push_back("default");
  return a;
}

Trace load(const std::string& path) {
  bool bound = false;
  Trace t = read_trace_dump(path, &bound);
  if (bound) return t;
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (const TraceNode& n : t.nodes) {
    if (n.op != Op::Input) continue;
    BufferPtr b = make_buffer(n.dtype, shape_numel(n.shape));
    for (int64_t i = 0; i < b->numel(); ++i) {
      switch (n.dtype) {
        case DType::Bool: b->as<uint8_t>()[i] = i % 2; break;
        case DType::Int32: b->as<int32_t>()[i] = 0; break;
        case DType::Int64: b->as<int64_t>()[i] = 0; break;
        case DType::Float32: b->as<float>()[i] = static_cast<float>(uni(rng)); break;
        case DType::Float64: b->as<double>()[i] = uni(rng); break;
      }
    }
    t.params[n.param] = b;
  }
  return t;
}

Backend& backend_named(const std::string& name) {
  if (name == "reference") return reference_backend();
#if LT_HAVE_CPU_JIT
  if (name == "cpu") return cpu_backend();
#endif
  fail(ErrorKind::Value, "lt-trace: backend '", name, "' is not available in this build (have: reference",
#if LT_HAVE_CPU_JIT
       ", cpu",
#endif
       ")");
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

int cmd_show(const Args& a) {
  Trace t = load(a.file);
  int computed = 0;
  for (const TraceNode& n : t.nodes) computed += n.op != Op::Input && n.op != Op::Scalar;
  std::printf("%s", print_trace(t).c_str());
  std::printf("# %zu nodes (%d computed), %d params, %zu scalars, %zu outputs\n", t.nodes.size(), computed,
              t.num_params(), t.scalars.size(), t.outputs.size());
  return 0;
}

int cmd_plan(const Args& a) {
  Trace t = load(a.file);
  Plan plan = schedule(t, fusion_policy(a.policies[0]));
  std::printf("policy %s: %zu kernels over %d nodes (after simplification)\n\n", plan.policy.c_str(),
              plan.kernels.size(), plan.nodes_after_simplify);
  std::printf("| # | kernel | kind | domain | nodes | bytes read | bytes written | FLOPs |\n|---|---|---|---|---|---|---|---|\n");
  static const char* kinds[] = {"elementwise", "rows", "matmul"};
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const Kernel& k = plan.kernels[i];
    KernelCost c = kernel_cost(k);
    std::printf("| %zu | %s | %s | %s | %zu | %lld | %lld | %lld |\n", i, k.name.c_str(),
                kinds[static_cast<int>(k.kind)], shape_str(k.domain).c_str(), k.trace_nodes.size(),
                static_cast<long long>(c.bytes_read), static_cast<long long>(c.bytes_written),
                static_cast<long long>(c.flops));
  }
  KernelCost total = plan_cost(plan);
  std::printf("| | total | | | | %lld | %lld | %lld |\n", static_cast<long long>(total.bytes_read),
              static_cast<long long>(total.bytes_written), static_cast<long long>(total.flops));
  return 0;
}

struct Measured {
  double run_ms = 0;
  double compile_ms = 0;
  std::string mismatch;
};

Measured measure(const Trace& t, Backend& backend, const std::string& policy, int repeat) {
  Measured m;
  RunOptions opt;
  opt.fusion = policy;
  int64_t c0 = counter_value("compile_ms");
  auto t0 = std::chrono::steady_clock::now();
  backend.run(t, opt);  // first run: compiles on a miss
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
  if (auto bad = fuzz::compare(t, backend, policy)) m.mismatch = *bad;
  return m;
}

int cmd_run(const Args& a) {
  Trace t = load(a.file);
  Backend& b = backend_named(a.backend);
  Measured m = measure(t, b, a.policies[0], a.repeat);
  std::printf("backend %s, policy %s: run %.3f ms (median of %d), compile %.0f ms, %s\n", std::string(b.name()).c_str(),
              a.policies[0].c_str(), m.run_ms, a.repeat, m.compile_ms,
              m.mismatch.empty() ? "matches the reference evaluator" : ("MISMATCH: " + m.mismatch).c_str());
  return m.mismatch.empty() ? 0 : 1;
}

int cmd_compare(const Args& a) {
  Trace t = load(a.file);
  Backend& b = backend_named(a.backend);
  std::printf("| policy | kernels | model bytes | model FLOPs | compile ms | run ms | model GB/s at run ms | matches reference |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  bool ok = true;
  for (const std::string& p : a.policies) {
    Plan plan = schedule(t, fusion_policy(p));
    KernelCost c = plan_cost(plan);
    Measured m = measure(t, b, p, a.repeat);
    double bytes = static_cast<double>(c.bytes_read + c.bytes_written);
    std::printf("| %s | %zu | %s | %lld | %.0f | %.3f | %.2f | %s |\n", p.c_str(), plan.kernels.size(),
                human_bytes(bytes).c_str(), static_cast<long long>(c.flops), m.compile_ms, m.run_ms,
                bytes / (m.run_ms * 1e6), m.mismatch.empty() ? "yes" : m.mismatch.c_str());
    ok &= m.mismatch.empty();
  }
  return ok ? 0 : 1;
}

std::string dot_escape(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '"' ? std::string("\\\"") : std::string(1, c);
  return o;
}

int cmd_dot(const Args& a) {
  Trace t = load(a.file);
  Plan plan = schedule(t, fusion_policy(a.policies[0]));
  const Trace& s = plan.simplified;
  std::string dot = "digraph trace {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
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
    dot += cat("  subgraph cluster_k", k, " {\n    label=\"", dot_escape(plan.kernels[k].name), "\\n",
               c.bytes_read + c.bytes_written, " B, ", c.flops, " FLOP\";\n    style=rounded; color=blue;\n");
    for (size_t i = 0; i < s.nodes.size(); ++i)
      if (owner[i] == static_cast<int>(k)) dot += cat("    n", i, " [label=\"", label(i), "\"];\n");
    dot += "  }\n";
  }
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (owner[i] >= 0) continue;
    const TraceNode& n = s.nodes[i];
    const char* shape = n.op == Op::Input ? "ellipse" : n.op == Op::Scalar ? "plaintext" : "box";
    dot += cat("  n", i, " [label=\"", label(i), "\", shape=", shape, "];\n");
  }
  for (size_t i = 0; i < s.nodes.size(); ++i)
    for (int32_t in : s.nodes[i].inputs) dot += cat("  n", in, " -> n", i, ";\n");
  dot += "}\n";
  std::string out = a.out.empty() ? a.file + ".svg" : a.out;
  bool svg = out.size() > 4 && out.substr(out.size() - 4) == ".svg";
  std::string dot_path = svg ? out.substr(0, out.size() - 4) + ".dot" : out;
  std::ofstream(dot_path) << dot;
  if (svg) {
    std::string cmd = "dot -Tsvg '" + dot_path + "' -o '" + out + "'";
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "lt-trace: graphviz `dot` failed or is missing; wrote %s only\n", dot_path.c_str());
      return 1;
    }
  }
  std::printf("wrote %s (%zu kernels as clusters)\n", out.c_str(), plan.kernels.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  try {
    if (a.command == "show") return cmd_show(a);
    if (a.command == "plan") return cmd_plan(a);
    if (a.command == "run") return cmd_run(a);
    if (a.command == "compare") return cmd_compare(a);
    if (a.command == "dot") return cmd_dot(a);
  } catch (const lt::Error& e) {
    std::fprintf(stderr, "lt-trace: %s\n", e.what());
    return 1;
  }
  usage();
}
