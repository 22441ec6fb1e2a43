// tools/fuzz/main.cpp — lt-fuzz: run the differential fuzzer from the command line.
//
//   lt-fuzz [--seed S] [--count N | --seconds T] [--backend cpu|reference]
//           [--policy P]... [--rotate-policies] [--max-ops K] [--progress N] [--dump DIR]
//           [--interpret-check]
// Prints one line per mismatch as it is found (shrunk, optionally dumped), a
// progress line every N programs (default 1000) and a summary; exits 1 when
// any program mismatched. --rotate-policies runs each program under one policy
// (seed modulo the number of policies) instead of all: the long runs' mode.
// --interpret-check also runs every kernel the interpreter takes through its
// compiled code and fails the program unless both wrote the same bits
// (LT_INTERPRET_CHECK=1, jit/cpu/interpreter.h).
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ir/counters.h"
#include "tools/fuzz/fuzz.h"
#if LT_HAVE_CPU_JIT
#include "runtime/cpu_backend.h"
#endif

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t count = 1000, progress_every = 1000;
  int max_ops = 24;
  bool rotate = false;
  double seconds = 0;
  std::string backend_name = "cpu", dump;
  std::vector<std::string> policies;
  for (int i = 1; i < argc; ++i) {
    auto next = [&] { return i + 1 < argc ? argv[++i] : ""; };
    if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(next(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--count")) count = std::strtoll(next(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::strtod(next(), nullptr);
    else if (!std::strcmp(argv[i], "--backend")) backend_name = next();
    else if (!std::strcmp(argv[i], "--policy")) policies.push_back(next());
    else if (!std::strcmp(argv[i], "--max-ops")) max_ops = std::atoi(next());
    else if (!std::strcmp(argv[i], "--progress")) progress_every = std::strtoll(next(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--dump")) dump = next();
    else if (!std::strcmp(argv[i], "--rotate-policies")) rotate = true;
    else if (!std::strcmp(argv[i], "--interpret-check")) ::setenv("LT_INTERPRET_CHECK", "1", 1);
    else {
      std::fprintf(stderr, "usage: lt-fuzz [--seed S] [--count N | --seconds T] [--backend cpu|reference] "
                           "[--policy P]... [--rotate-policies] [--max-ops K] [--progress N] [--dump DIR] "
                           "[--interpret-check]\n");
      return 2;
    }
  }
  if (policies.empty()) policies = {"default", "none", "elementwise"};
  lt::Backend* backend = &lt::reference_backend();
#if LT_HAVE_CPU_JIT
  if (backend_name == "cpu") backend = &lt::cpu_backend();
#else
  if (backend_name == "cpu") std::fprintf(stderr, "lt-fuzz: no CPU JIT in this build; fuzzing the reference backend\n");
#endif
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  size_t printed = 0;
  auto progress = [&](const lt::fuzz::Stats& s, uint64_t last_seed) {
    for (; printed < s.failures.size(); ++printed) std::printf("MISMATCH %s\n", s.failures[printed].c_str());
    if (progress_every > 0 && s.programs % progress_every == 0) {
      std::printf("progress: %lld programs (last seed %llu, %lld with gradients), %lld mismatches, %.0f s, %.1f programs/s\n",
                  static_cast<long long>(s.programs), static_cast<unsigned long long>(last_seed),
                  static_cast<long long>(s.gradient_programs), static_cast<long long>(s.mismatches), elapsed(),
                  s.programs / elapsed());
    }
    std::fflush(stdout);
  };
  lt::fuzz::Stats s = lt::fuzz::run(seed, count, seconds, *backend, policies, dump, max_ops, rotate, progress);
  std::printf("%lld programs (%lld with gradients), %lld runs, %lld mismatches in %.1f s (%.1f programs/s)\n",
              static_cast<long long>(s.programs), static_cast<long long>(s.gradient_programs),
              static_cast<long long>(s.runs), static_cast<long long>(s.mismatches), elapsed(), s.programs / elapsed());
  if (lt::counter_value("kernels_generic") > 0)  // how often the cpu backend ran shape-generic kernels (scheduler/generic.h)
    std::printf("%lld kernels rewritten to shape-generic forms\n",
                static_cast<long long>(lt::counter_value("kernels_generic")));
  if (lt::counter_value("kernels_interpreted") > 0)  // kernels that ran in the interpreter (jit/cpu/interpreter.h)
    std::printf("%lld kernels ran in the interpreter\n", static_cast<long long>(lt::counter_value("kernels_interpreted")));
  return s.mismatches ? 1 : 0;
}
