// bench/probe_cpu.cpp — runs one benchmark workload a few times (for LT_DEBUG=2/4
// inspection of its kernels while tuning the JIT).
//   probe_cpu chain10|gelu_expr|sum|softmax|layer_norm [repeat]
//   probe_cpu gelu_1m|erf_1m|exp_1m|log_1m|sigmoid_1m|sin_4m|... [repeat]   (in-cache sizes, see main)
//   probe_cpu hitsync [repeat]   the bench's (d): record + cache-hit sync of a
//                                100-op trace on [32], median us (for perf record)
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <algorithm>
#include <vector>

#include "jit/cpu/jit.h"
#include "lazy/lazytensor.h"
#include "scheduler/plan.h"
#include "trace/capture.h"

static double tcpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Compile-only: the kernels of the bench's compile-time trace, each compiled
// `repeat` times; prints the median thread CPU ms per kernel, at the tier a
// first sync compiles (quick where the kernel has one, jit/cpu/jit.h;
// LT_PROBE_TIER=full for the full tier).
// "compile_tiny": one kernel of one add, for the fixed cost of a compile.
static int compile_probe(int repeat, bool tiny) {
  using namespace lt;
  // As bench_cpu's compile section: y pending, so the randn kernel is one of them.
  Tensor y = randn({1000, 77}, 10);
  if (tiny) lt::sync(y);
  // LT_PROBE_TINY=exp|log|cos|erf: that op instead of the add (its compile cost over the add's).
  std::string op = std::getenv("LT_PROBE_TINY") ? std::getenv("LT_PROBE_TINY") : "";
  Tensor t1 = op == "exp" ? exp(y) : op == "log" ? log(y) : op == "cos" ? cos(y) : op == "erf" ? erf(y) : y + 1.0;
  Tensor r = tiny ? t1 : layer_norm(gelu(y) * 2.0 + 1.0, {77}) + softmax(y, 0);
  NodePtr roots[] = {r.node(), y.node()};
  CapturedTrace ct = capture_trace({roots, tiny ? size_t{1} : size_t{2}});
  Plan plan = schedule(ct.trace, fusion_policy("default"));
  std::vector<double> all;
  const char* tier_env = std::getenv("LT_PROBE_TIER");
  cpu::Tier tier = tier_env && std::string(tier_env) == "full" ? cpu::Tier::Full : cpu::Tier::Quick;
  const char* only = std::getenv("LT_PROBE_ONLY");  // a kernel name prefix: compile just those
  for (const Kernel& k : plan.kernels) {
    if (only && k.name.rfind(only, 0) != 0) continue;
    if (const char* ir = std::getenv("LT_PROBE_IR"))  // "0": the generated LLVM IR, "1": optimised
      std::printf("%s\n", cpu::kernel_llvm_ir(k, std::string(ir) == "1", tier).c_str());
    std::vector<double> t;
    cpu::CompileTimes ct2;
    for (int i = 0; i < repeat; ++i) {
      double c0 = tcpu();
      cpu::ObjectCode obj = cpu::compile_kernel_object(k, &ct2, tier);
      if (const char* d = std::getenv("LT_PROBE_DUMP")) {
        FILE* f = std::fopen((std::string(d) + "/" + k.name + ".o").c_str(), "wb");
        if (f) std::fwrite(obj.bytes.data(), 1, obj.bytes.size(), f), std::fclose(f);
      }
      t.push_back(tcpu() - c0);
    }
    std::sort(t.begin(), t.end());
    all.push_back(t[t.size() / 2]);
    std::printf("%-32s %7.2f ms cpu (%s tier, ops %zu; last: ir %.2f opt %.2f emit %.2f ms)\n", k.name.c_str(),
                t[t.size() / 2], tier == cpu::Tier::Quick && cpu::kernel_has_quick_tier(k) ? "quick" : "full",
                k.ops.size(), ct2.codegen_ms, ct2.optimize_ms, ct2.emit_ms);
  }
  std::sort(all.begin(), all.end());
  std::printf("median per kernel %.2f ms cpu, %zu kernels\n", all[all.size() / 2], all.size());
  return 0;
}

// The bench's section (d): a 100-op trace on [32] tensors, recorded and
// synced `repeat` times (a cache hit after the first); median record and sync us.
static int hit_sync_probe(int repeat) {
  using namespace lt;
  Tensor small = rand({32}, 99);
  lt::sync(small);
  std::vector<double> record_us, sync_us;
  for (int i = 0; i < repeat + 20; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Tensor y = small;
    for (int j = 0; j < 50; ++j) y = y * 1.0001 + 0.5;
    auto t1 = std::chrono::steady_clock::now();
    lt::sync(y);
    auto t2 = std::chrono::steady_clock::now();
    if (i >= 20) {
      record_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      sync_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    }
  }
  std::sort(record_us.begin(), record_us.end());
  std::sort(sync_us.begin(), sync_us.end());
  std::printf("100-op trace on [32]: record %.2f us, cache-hit sync %.2f us (medians of %d)\n",
              record_us[record_us.size() / 2], sync_us[sync_us.size() / 2], repeat);
  return 0;
}

int main(int argc, char** argv) {
  using namespace lt;
  std::string w = argc > 1 ? argv[1] : "gelu_expr";
  int repeat = argc > 2 ? std::atoi(argv[2]) : 5;
  if (w == "compile" || w == "compile_tiny") return compile_probe(repeat, w == "compile_tiny");
  if (w == "hitsync") return hit_sync_probe(repeat);
  const int64_t n = int64_t{16} << 20;
  Tensor x = randn({n}, 1), s = randn({4096, 4096}, 2), l = randn({8192, 1024}, 3);
  Tensor wt = randn({1024}, 4), b = randn({1024}, 5);
  lt::sync({x, s, l, wt, b});
  for (int i = 0; i < repeat; ++i) {
    if (std::getenv("PROBE_AB")) {
      if (i % 2) setenv("LT_NO_SPLIT", "1", 1);
      else unsetenv("LT_NO_SPLIT");
    }
    auto t0 = std::chrono::steady_clock::now();
    timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    Tensor y;
    if (w == "chain10") {
      y = x * 1.5 + 0.25;
      y = maximum(y, x) - 0.5;
      y = minimum(y, x * 2.0);
      y = where(x > 0.0, y, y * 0.5);
      y = y + 1.0;
    } else if (w == "gelu_expr") {
      y = gelu(x * 1.5 + 0.25) * sigmoid(x) + 0.5 * x;
    } else if (w == "sum") {
      y = x.sum();
    } else if (w == "softmax") {
      y = softmax(s, -1);
    } else if (w == "layer_norm") {
      y = layer_norm(l, {1024}, wt, b);
    } else if (w == "gelu_1m") {  // not streaming: 1M + 3 elements
      static Tensor x1 = [] { Tensor t = randn({(1 << 20) + 3}, 8); lt::sync(t); return t; }();
      y = gelu(x1 * 1.5 + 0.25) * sigmoid(x1) + 0.5 * x1;
    } else if (w == "erf_1m" || w == "exp_1m" || w == "sigmoid_1m" || w == "log_1m") {  // one function on 1M + 3 cached floats
      static Tensor x1 = [] { Tensor t = randn({(1 << 20) + 3}, 8); lt::sync(t); return t; }();
      y = w == "erf_1m" ? erf(x1 * 1.5) : w == "exp_1m" ? exp(x1 * 1.5) : w == "log_1m" ? log(x1 * x1) : sigmoid(x1);
    } else if (w == "randn_77k") {
      y = randn({1001, 77}, 12);
    } else if (w == "sin_4m") {  // not streaming (16 MiB out)
      static Tensor x4 = [] { Tensor t = randn({4 << 20}, 9); lt::sync(t); return t; }();
      y = sin(x4 * 3.0);
    } else if (w == "layer_norm_77") {  // short rows: 2^17 rows of 77
      static Tensor l77 = [] { Tensor t = randn({1 << 17, 77}, 6); lt::sync(t); return t; }();
      y = layer_norm(l77, {77});
    } else if (w == "ln_gelu_77") {
      static Tensor g77 = [] { Tensor t = randn({1 << 17, 77}, 10); lt::sync(t); return t; }();
      y = layer_norm(gelu(g77), {77});
    } else if (w == "softmax_77") {
      static Tensor s77 = [] { Tensor t = randn({1 << 17, 77}, 7); lt::sync(t); return t; }();
      y = softmax(s77, -1);
    }
    lt::sync(y);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double cpu = (c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) * 1e-6;
    std::printf("%s %.3f ms wall %.3f ms cpu\n", w.c_str(), ms, cpu);
  }
  return 0;
}
