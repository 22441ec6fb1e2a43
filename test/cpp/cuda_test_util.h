// Helpers for the CUDA tests: the corpus's unique kernels, the toolkit's
// ptxas, and the skip used by tests that need a GPU.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "ir/error.h"
#include "jit/cuda/driver.h"
#include "kernel_corpus.h"
#include "scheduler/plan.h"
#include "trace/capture.h"

namespace lt::test {

/// Every distinct kernel (by structural hash) the corpus schedules, under its programs' policies.
inline std::vector<Kernel> corpus_kernels() {
  std::map<std::string, Kernel> unique;
  for (const CorpusProgram& p : kernel_corpus()) {
    CapturedTrace ct = capture_trace(p.roots);
    Plan plan = schedule(ct.trace, fusion_policy(p.policy));
    for (Kernel& k : plan.kernels) {
      k.name = p.name + "/" + k.name;
      unique.emplace(hash_hex(k.hash()), std::move(k));
    }
  }
  std::vector<Kernel> out;
  for (auto& [h, k] : unique) out.push_back(std::move(k));
  return out;
}

/// ptxas from $CUDA_HOME, /usr/local/cuda or PATH; empty when absent.
inline std::string find_ptxas() {
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(env);
    if (v && std::filesystem::exists(std::string(v) + "/bin/ptxas")) return std::string(v) + "/bin/ptxas";
  }
  if (std::filesystem::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (std::system("command -v ptxas >/dev/null 2>&1") == 0) return "ptxas";
  return "";
}

}  // namespace lt::test

/// Ends a test that needs a GPU, saying why, when none is present.
#define LT_REQUIRE_GPU_OR_SKIP()                                                                  \
  do {                                                                                            \
    if (!lt::cuda::device_available()) {                                                          \
      std::cerr << "skipped (no GPU): " << lt::cuda::device_unavailable_reason() << std::endl;    \
      BOOST_CHECK(true);                                                                          \
      return;                                                                                     \
    }                                                                                             \
  } while (0)
