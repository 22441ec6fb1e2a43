// The fixed-seed differential fuzz budget of `make test`, and the replay of
// every shrunk failure kept in test/data/fuzz (each was a real bug).
#define BOOST_TEST_MODULE fuzz
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>

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
