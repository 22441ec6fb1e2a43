// bench/bench_compile.cpp — cost of the compile path per trace node (issue 21).
//
// For each program shape the issue names (an LSTM-style cell loop, the slice
// recurrence, wide fan-out, a deep elementwise chain, a many-way cat) the
// graph is built with the ir builder at sizes that give about 1k, 10k and 100k
// trace nodes, then captured (capture_trace), simplified (simplify_trace) and
// scheduled (schedule: simplify + partitioning into kernels; no codegen, no
// LLVM). It prints the median µs per trace node of each step, the ratio of
// the largest size's µs per node to the smallest's (flat = 1; the target is
// within 2x), and the number of kernels and of distinct kernels
// (Kernel::hash(): kernels equal up to their runtime arguments compile once).
//
//   bench_compile [--sizes 1000,10000,100000] [--only lstm,slice,...] [--budget-s S]
// A size whose previous (smaller) size took more than --budget-s seconds to
// schedule is skipped and printed as such: a superlinear pattern would
// otherwise run for minutes.
//
// A benchmark, not a test: it asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/node.h"
#include "scheduler/plan.h"
#include "trace/capture.h"

using Clock = std::chrono::steady_clock;
using namespace lt;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

NodePtr f32(double v) { return ops::scalar(v, DType::Float32); }

NodePtr random_input(Shape shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  int64_t n = shape_numel(shape);
  BufferPtr b = make_buffer(DType::Float32, n);
  for (int64_t i = 0; i < n; ++i) b->as<float>()[i] = u(gen);
  return make_input(std::move(b), std::move(shape));
}

// (a) gates = x + h @ Wh^T; i, f, g, o = 4 slices; c = σ(f)c + σ(i)tanh(g); h = σ(o)tanh(c).
std::vector<NodePtr> lstm_cells(int steps) {
  const int64_t batch = 8, hidden = 16;
  NodePtr x = random_input({batch, 4 * hidden}, 11);
  NodePtr wh = random_input({4 * hidden, hidden}, 12);
  NodePtr h = random_input({batch, hidden}, 13);
  NodePtr c = random_input({batch, hidden}, 14);
  for (int t = 0; t < steps; ++t) {
    NodePtr gates = ops::add(x, ops::matmul(h, ops::transpose(wh, 0, 1)));
    auto gate = [&](int k) { return ops::slice(gates, 1, k * hidden, (k + 1) * hidden); };
    c = ops::add(ops::mul(ops::sigmoid(gate(1)), c), ops::mul(ops::sigmoid(gate(0)), ops::tanh(gate(2))));
    h = ops::mul(ops::sigmoid(gate(3)), ops::tanh(c));
  }
  return {ops::sum(h)};
}

// (b) h = tanh(h @ W + x[:, t:t+1]) with x pending, so its slices stay in the trace.
std::vector<NodePtr> slice_recurrence(int steps) {
  NodePtr x = ops::mul(random_input({4, steps}, 7), f32(0.5));
  NodePtr w = random_input({6, 6}, 8);
  NodePtr h = random_input({4, 6}, 9);
  for (int t = 0; t < steps; ++t) h = ops::tanh(ops::add(ops::matmul(h, w), ops::slice(x, 1, t, t + 1)));
  return {h};
}

// (c) one tensor read by n independent elementwise chains, summed pairwise.
std::vector<NodePtr> wide_fan_out(int chains) {
  NodePtr x = random_input({64}, 21);
  std::vector<NodePtr> level;
  for (int i = 0; i < chains; ++i) level.push_back(ops::add(ops::tanh(ops::mul(x, f32(1.0 + i * 1e-3))), f32(i * 0.5)));
  while (level.size() > 1) {
    std::vector<NodePtr> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(ops::add(level[i], level[i + 1]));
    if (level.size() % 2) next.push_back(level.back());
    level = std::move(next);
  }
  return level;
}

// (d) n elementwise ops in one chain, no sync.
std::vector<NodePtr> deep_chain(int ops_count) {
  NodePtr y = random_input({64}, 31);
  for (int i = 0; i < ops_count; ++i) {
    switch (i % 4) {
      case 0: y = ops::tanh(y); break;
      case 1: y = ops::mul(y, f32(1.5)); break;
      case 2: y = ops::sigmoid(y); break;
      default: y = ops::add(y, f32(-0.25)); break;
    }
  }
  return {y};
}

// (e) cat of n pending pieces, then one op on the result.
std::vector<NodePtr> many_way_cat(int pieces) {
  NodePtr base = random_input({5}, 41);
  std::vector<NodePtr> v;
  for (int i = 0; i < pieces; ++i) v.push_back(ops::mul(base, f32(i * 0.25)));
  return {ops::mul(ops::cat(v, 0), f32(2.0))};
}

struct Pattern {
  const char* name;
  const char* what;
  std::function<std::vector<NodePtr>(int)> build;
};

struct Measure {
  int n = 0;
  size_t nodes = 0, nodes_simplified = 0, kernels = 0, distinct = 0;
  double build_s = 0, capture_s = 0, simplify_s = 0, schedule_s = 0;
  bool skipped = false;
};

// Medians over repeats until ~0.3 s has been spent (at least 1, at most 9).
Measure measure(const Pattern& p, int n) {
  Measure m;
  m.n = n;
  std::vector<double> build, capture, simplify, scheduled;
  auto t_start = Clock::now();
  for (int rep = 0; rep < 9 && (rep < 1 || seconds_since(t_start) < 0.3); ++rep) {
    auto t0 = Clock::now();
    std::vector<NodePtr> roots = p.build(n);
    build.push_back(seconds_since(t0));
    t0 = Clock::now();
    CapturedTrace c = capture_trace(roots);
    capture.push_back(seconds_since(t0));
    t0 = Clock::now();
    Trace simplified = simplify_trace(c.trace);
    simplify.push_back(seconds_since(t0));
    t0 = Clock::now();
    Plan plan = schedule(c.trace, fusion_policy("default"));
    scheduled.push_back(seconds_since(t0));
    m.nodes = c.trace.nodes.size();
    m.nodes_simplified = simplified.nodes.size();
    m.kernels = plan.kernels.size();
    m.distinct = distinct_kernels(plan);
  }
  m.build_s = median(build);
  m.capture_s = median(capture);
  m.simplify_s = median(simplify);
  m.schedule_s = median(scheduled);
  return m;
}

double us_per_node(double s, size_t nodes) { return nodes ? s * 1e6 / static_cast<double>(nodes) : 0.0; }

std::vector<int> parse_sizes(const char* s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> targets = {1000, 10000, 100000};
  std::string only;
  double budget_s = 10.0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) targets = parse_sizes(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = "," + std::string(argv[++i]) + ",";
    else if (!std::strcmp(argv[i], "--budget-s") && i + 1 < argc) budget_s = std::atof(argv[++i]);
  }
  std::vector<Pattern> patterns = {
      {"lstm", "(a) LSTM-style cell loop, n steps", lstm_cells},
      {"slice", "(b) h = tanh(h @ W + x[:, t:t+1]), x pending, n steps", slice_recurrence},
      {"fanout", "(c) one tensor read by n elementwise chains, pairwise sum tree", wide_fan_out},
      {"deep", "(d) chain of n elementwise ops", deep_chain},
      {"cat", "(e) cat of n pending pieces", many_way_cat},
  };

  std::printf("compile path cost per trace node: capture = capture_trace; simplify = simplify_trace;\n"
              "schedule = schedule(trace, fusion_policy(\"default\")), simplify included, no codegen;\n"
              "plan = schedule - simplify. Median µs per trace node (before simplify).\n\n");
  std::printf("| pattern | n | trace nodes | after simplify | build µs/node | capture µs/node | simplify µs/node | "
              "plan µs/node | schedule µs/node | kernels | distinct kernels |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  struct Summary {
    const char* name;
    Measure first, middle, last;
    bool complete;
  };
  std::vector<Summary> summaries;
  for (const Pattern& p : patterns) {
    if (!only.empty() && only.find("," + std::string(p.name) + ",") == std::string::npos) continue;
    // Nodes per unit of n, from a small build, so each size lands near its target.
    const int probe = 64;
    double per_unit = static_cast<double>(capture_trace(p.build(probe)).trace.nodes.size()) / probe;
    std::vector<Measure> rows;
    bool over_budget = false;
    for (int target : targets) {
      int n = std::max(1, static_cast<int>(target / per_unit + 0.5));
      if (over_budget) {
        std::printf("| %s | %d | ~%d | | | | | | skipped: the previous size took > %.0f s | | |\n", p.name, n, target,
                    budget_s);
        continue;
      }
      Measure m = measure(p, n);
      rows.push_back(m);
      over_budget = m.build_s + m.capture_s + m.schedule_s > budget_s;
      std::printf("| %s | %d | %zu | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %zu | %zu |\n", p.name, m.n, m.nodes,
                  m.nodes_simplified, us_per_node(m.build_s, m.nodes), us_per_node(m.capture_s, m.nodes),
                  us_per_node(m.simplify_s, m.nodes), us_per_node(m.schedule_s - m.simplify_s, m.nodes),
                  us_per_node(m.schedule_s, m.nodes), m.kernels, m.distinct);
      std::fflush(stdout);
    }
    if (!rows.empty()) summaries.push_back({p.name, rows.front(), rows[rows.size() / 2], rows.back(), rows.size() == targets.size()});
  }

  // The smallest size fits in cache and is timed in a warm loop; the middle
  // -> largest ratio isolates growth in the algorithm from that.
  std::printf("\nlargest / smallest size, µs per trace node (flat = 1.0; target <= 2.0); schedule also largest / middle;\n"
              "distinct kernels smallest -> largest:\n\n");
  std::printf("| pattern | sizes (nodes) | capture | simplify | plan | schedule | schedule, largest / middle | distinct kernels |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Summary& s : summaries) {
    auto ratio = [](const Measure& a, const Measure& b, auto seconds) {
      double x = us_per_node(seconds(a), a.nodes), y = us_per_node(seconds(b), b.nodes);
      return x > 0 ? y / x : 0.0;
    };
    auto capture = [](const Measure& m) { return m.capture_s; };
    auto simplify = [](const Measure& m) { return m.simplify_s; };
    auto plan = [](const Measure& m) { return m.schedule_s - m.simplify_s; };
    auto sched = [](const Measure& m) { return m.schedule_s; };
    std::printf("| %s | %zu -> %zu%s | %.2f | %.2f | %.2f | %.2f | %.2f | %zu -> %zu |\n", s.name, s.first.nodes,
                s.last.nodes, s.complete ? "" : " (largest skipped)", ratio(s.first, s.last, capture),
                ratio(s.first, s.last, simplify), ratio(s.first, s.last, plan), ratio(s.first, s.last, sched),
                ratio(s.middle, s.last, sched), s.first.distinct, s.last.distinct);
  }
  return 0;
}
