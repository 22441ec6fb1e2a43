// The fixed-seed differential fuzz budget of `make test`, and the replay of
// every shrunk failure kept in test/data/fuzz (each was a real bug).
#define BOOST_TEST_MODULE fuzz
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>

#include "ir/error.h"
#include "scheduler/fusion.h"
#include "scheduler/plan.h"
#include "tools/fuzz/fuzz.h"
#if LT_HAVE_CPU_JIT
#include "cache/cpu_backend.h"
#endif

using namespace lt;

static Backend& backend_under_test() {
#if LT_HAVE_CPU_JIT
  return cpu_backend();
#else
  return reference_backend();
#endif
}

BOOST_AUTO_TEST_CASE(fixed_seed_programs_match_the_reference_under_every_policy) {
  fuzz::Stats s = fuzz::run(/*first_seed=*/1, fuzz::fixed_seed_programs(), 0, backend_under_test(), fuzz::fuzz_policies());
  for (const std::string& f : s.failures) BOOST_TEST_MESSAGE(f);
  BOOST_TEST_MESSAGE(s.programs << " programs (" << s.gradient_programs << " with gradients), " << s.runs << " runs");
  BOOST_TEST(s.programs == fuzz::fixed_seed_programs());
  if (s.programs >= 20) BOOST_TEST(s.gradient_programs > 0);  // about a third are gradient programs
  BOOST_TEST(s.mismatches == 0);
}

static std::vector<std::filesystem::path> saved_cases() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(LT_SOURCE_DIR) / "test/data/fuzz"))
    if (entry.path().extension() == ".trace") out.push_back(entry.path());
  return out;
}

// Some saved failures read or wrote past an empty buffer, so whether they
// mismatch depends on memory contents; this checks their plans instead: a Rows
// kernel touches a buffer per row (outside its element loop) only when the
// buffer has elements (store_hoisted_out_of_an_empty_row wrote one per row).
BOOST_AUTO_TEST_CASE(no_saved_case_touches_an_empty_buffer_outside_an_element_loop) {
  int kernels = 0;
  for (const std::filesystem::path& path : saved_cases()) {
    Trace t = fuzz::read_case(path.string());
    for (const std::string& policy : fuzz::fuzz_policies()) {
      Plan plan;
      try {
        plan = schedule(t, fusion_policy(policy));
      } catch (const Error&) {
        continue;  // rejected at scheduling (replayed below)
      }
      for (const Kernel& k : plan.kernels) {
        if (k.kind != KernelKind::Rows || k.outer_size() == 0) continue;
        ++kernels;
        for (const KOp& o : k.ops) {
          bool touches = o.code == KOpCode::Load || o.code == KOpCode::Store || o.code == KOpCode::AccumStore;
          if (!touches || o.elem) continue;
          BOOST_TEST(k.buffers[o.imm].numel > 0, path.filename().string() << " under " << policy << ": " << k.name
                                                   << " touches empty buffer " << o.imm << " per row\n"
                                                   << print_kernel(k));
        }
      }
    }
  }
  BOOST_TEST(kernels > 0);
}

BOOST_AUTO_TEST_CASE(every_saved_failure_now_matches) {
  std::filesystem::path dir = std::filesystem::path(LT_SOURCE_DIR) / "test/data/fuzz";
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".trace") continue;
    Trace t = fuzz::read_case(entry.path().string());
    for (const std::string& policy : fuzz::fuzz_policies()) {
      auto m = fuzz::compare(t, backend_under_test(), policy);
      BOOST_TEST(!m.has_value(), entry.path().filename().string() << " under " << policy << ": " << m.value_or(""));
    }
    ++cases;
  }
  BOOST_TEST_MESSAGE(cases << " saved cases replayed");
}
