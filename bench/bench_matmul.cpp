// bench/bench_matmul.cpp — generated matmul vs BLAS (issue: matmul at BLAS speed).
//
// float32 square products at 512/1024/2048 against numpy's matmul (OpenBLAS),
// linear + bias + relu at 1024 against PyTorch eager's addmm + relu, and
// bfloat16 products at 1024/2048 against PyTorch's bfloat16 matmul (oneDNN:
// AMX or AVX-512 BF16 where the CPU has them) and against our own float32
// product of the same size (docs/matmul.md "bfloat16"), in matched pairs:
// each round runs the peer script (bench/matmul_peers.py, a
// fresh python process timing its own median) and then ours, so both see the
// same machine state; the table shows medians over rounds and the median of
// the per-round ratios.
//
//   bench_matmul [--rounds N] [--peers "python3 bench/matmul_peers.py"] [--no-peers] [--only NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lazy/lazytensor.h"

using Clock = std::chrono::steady_clock;
using lt::Tensor;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Warms `fn` for 150 ms first, as bench_cpu does: every kernel starts at the
// quick compile tier and is promoted to the full tier once its launches have
// taken LT_TIER_UP_MS (30) in all (docs/cpu-jit.md, "Tiers"), so a few
// launches of a 1.5 ms product timed mostly quick-tier code.
static double median_ms(const std::function<void()>& fn, int repeat) {
  const auto warm = Clock::now();
  do fn();
  while (std::chrono::duration<double, std::milli>(Clock::now() - warm).count() < 150.0);
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(t);
}

// Runs the peer script; parses "key value" lines.
static std::map<std::string, double> run_peers(const std::string& cmd, std::string* info) {
  std::map<std::string, double> out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    char key[256];
    double v;
    if (std::strncmp(line, "info ", 5) == 0) {
      *info = line + 5;
      continue;
    }
    if (std::sscanf(line, "%255s %lf", key, &v) == 2) out[key] = v;
  }
  pclose(p);
  return out;
}

int main(int argc, char** argv) {
  int rounds = 3;
  std::string peers = "python3 bench/matmul_peers.py";
  bool use_peers = true;
  std::string only;  // run only workloads whose name contains this
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--peers") && i + 1 < argc) peers = argv[++i];
    else if (!std::strcmp(argv[i], "--no-peers")) use_peers = false;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  struct Work {
    std::string name;
    double flops;
    std::function<void()> run;
    int repeat;
  };
  std::vector<Work> work;
  std::vector<Tensor> keep;
  for (int64_t n : {512, 1024, 2048}) {
    Tensor a = lt::randn({n, n}, 1), b = lt::randn({n, n}, 2);
    lt::sync({a, b});
    keep.push_back(a), keep.push_back(b);
    work.push_back({"matmul_" + std::to_string(n), 2.0 * n * n * n, [a, b] { lt::sync(lt::matmul(a, b)); },
                    n >= 2048 ? 5 : 11});
  }
  {
    int64_t n = 1024;
    Tensor x = lt::randn({n, n}, 3), w = lt::randn({n, n}, 4), bias = lt::randn({n}, 5);
    lt::sync({x, w, bias});
    work.push_back({"linear_bias_relu_1024", 2.0 * n * n * n,
                    [x, w, bias] { lt::sync(lt::linear(x, w, bias).relu()); }, 11});
  }
  for (int64_t n : {1024, 2048}) {
    Tensor a = lt::randn({n, n}, 6).to(lt::DType::BFloat16), b = lt::randn({n, n}, 7).to(lt::DType::BFloat16);
    lt::sync({a, b});
    keep.push_back(a), keep.push_back(b);
    work.push_back({"matmul_bf16_" + std::to_string(n), 2.0 * n * n * n, [a, b] { lt::sync(lt::matmul(a, b)); },
                    n >= 2048 ? 5 : 11});
  }
  if (!only.empty())
    work.erase(std::remove_if(work.begin(), work.end(), [&](const Work& w) { return w.name.find(only) == std::string::npos; }),
               work.end());
  std::map<std::string, std::vector<double>> ours, theirs, ratio, over_f32;
  std::string info;
  for (int r = 0; r < rounds; ++r) {
    std::map<std::string, double> p;
    if (use_peers) p = run_peers(peers, &info);
    for (Work& w : work) {
      double ms = median_ms(w.run, w.repeat);
      ours[w.name].push_back(ms);
      if (p.count(w.name)) {
        theirs[w.name].push_back(p[w.name]);
        ratio[w.name].push_back(p[w.name] / ms);
      }
    }
    // A bfloat16 product against our float32 one of the same size, this round.
    for (Work& w : work)
      if (w.name.rfind("matmul_bf16_", 0) == 0) {
        const std::string f32 = "matmul_" + w.name.substr(12);
        if (!ours[f32].empty()) over_f32[w.name].push_back(ours[f32].back() / ours[w.name].back());
      }
  }
  std::printf("peer: %s", info.empty() ? "(none)\n" : info.c_str());
  std::printf("%-24s %10s %9s %10s %9s %8s  %s\n", "workload", "ours ms", "GFLOP/s", "peer ms", "GFLOP/s", "speedup",
              "peer");
  for (Work& w : work) {
    double o = median(ours[w.name]), t = median(theirs[w.name]);
    const bool bf16 = w.name.rfind("matmul_bf16_", 0) == 0;
    const char* peer = bf16                             ? "torch bf16 matmul"
                       : w.name.rfind("matmul", 0) == 0 ? "numpy matmul"
                                                        : "torch addmm+relu";
    std::printf("%-24s %10.3f %9.1f %10.3f %9.1f %7.2fx  %s", w.name.c_str(), o, w.flops / (o * 1e6), t,
                t > 0 ? w.flops / (t * 1e6) : 0.0, median(ratio[w.name]), peer);
    if (bf16 && !over_f32[w.name].empty()) std::printf("; %.2fx our float32 matmul", median(over_f32[w.name]));
    std::printf("\n");
  }
  return 0;
}
