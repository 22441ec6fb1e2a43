// tools/fuzz/main.cpp — lt-fuzz: run the differential fuzzer from the command line.
//
//   lt-fuzz [--seed S] [--count N | --seconds T] [--backend cpu|reference]
//           [--policy P]... [--dump DIR]
// Prints one line per mismatch (shrunk, optionally dumped) and a summary;
// exits 1 when any program mismatched.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/fuzz/fuzz.h"
#if LT_HAVE_CPU_JIT
#include "cache/cpu_backend.h"
#endif

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t count = 1000;
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
    else if (!std::strcmp(argv[i], "--dump")) dump = next();
    else {
      std::fprintf(stderr, "usage: lt-fuzz [--seed S] [--count N | --seconds T] [--backend cpu|reference] "
                           "[--policy P]... [--dump DIR]\n");
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
  lt::fuzz::Stats s = lt::fuzz::run(seed, count, seconds, *backend, policies, dump);
  for (const std::string& f : s.failures) std::printf("%s\n", f.c_str());
  std::printf("%lld programs, %lld runs, %lld mismatches\n", static_cast<long long>(s.programs),
              static_cast<long long>(s.runs), static_cast<long long>(s.mismatches));
  return s.mismatches ? 1 : 0;
}
