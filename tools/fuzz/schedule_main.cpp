// lt-schedule-fuzz: schedules the fuzzer's programs under every built-in
// fusion policy without running them. Built with the sanitizers by
// `make test-asan-schedule` (minutes, against ~80 for test-asan): the
// scheduler's planning (sibling groups, restarts, simplify rewrites) under
// AddressSanitizer + UndefinedBehaviorSanitizer on thousands of programs.
//   lt-schedule-fuzz [first_seed] [count]
#include <cstdio>
#include <cstdlib>

#include "ir/error.h"
#include "scheduler/fusion.h"
#include "scheduler/plan.h"
#include "tools/fuzz/fuzz.h"
#include "trace/capture.h"

int main(int argc, char** argv) {
  using namespace lt;
  long first = argc > 1 ? std::atol(argv[1]) : 1, count = argc > 2 ? std::atol(argv[2]) : 1000;
  long kernels = 0, raised = 0;
  for (long s = first; s < first + count; ++s) {
    Trace t = capture_trace(fuzz::generate(static_cast<uint64_t>(s)).roots).trace;
    for (const char* policy : {"default", "none", "elementwise"}) {
      try {
        kernels += static_cast<long>(schedule(t, fusion_policy(policy)).kernels.size());
      } catch (const Error&) {
        ++raised;  // what the reference raises too (a max over zero elements, ...): test_fuzz compares that
      }
    }
  }
  std::printf("%ld programs x 3 policies: %ld kernels, %ld plans raised\n", count, kernels, raised);
  return 0;
}
