// test/shim/boost/test/unit_test.hpp — a tiny stand-in for Boost.Test.
//
// Used only where Boost is absent (a GPU machine with just CUDA, CMake and
// ninja: scripts/device-check), and only for the tests that restrict
// themselves to these macros (test_cuda_*). Output mimics Boost's closing
// line so ctest logs read the same. Not a general replacement.
#pragma once

#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace lt_shim {

struct Case {
  const char* name;
  void (*fn)();
};
inline std::vector<Case>& cases() {
  static std::vector<Case> c;
  return c;
}
inline int& failures() {
  static int f = 0;
  return f;
}
struct Register {
  Register(const char* name, void (*fn)()) { cases().push_back({name, fn}); }
};
struct Abort {};  // a failed REQUIRE ends the test case

inline void report(const char* file, int line, const std::string& what) {
  ++failures();
  std::cerr << file << "(" << line << "): error: " << what << std::endl;
}

inline int run_all() {
  int failed_cases = 0;
  for (const Case& c : cases()) {
    int before = failures();
    try {
      c.fn();
    } catch (const Abort&) {
    } catch (const std::exception& e) {
      report(__FILE__, __LINE__, std::string("uncaught exception in ") + c.name + ": " + e.what());
    }
    bool ok = failures() == before;
    failed_cases += !ok;
    std::cerr << (ok ? "[ ok ] " : "[FAIL] ") << c.name << std::endl;
  }
  if (failed_cases) {
    std::cerr << "*** " << failures() << " failures are detected in " << failed_cases << " of " << cases().size()
              << " test cases" << std::endl;
    return 1;
  }
  std::cerr << "*** No errors detected (" << cases().size() << " test cases)" << std::endl;
  return 0;
}

}  // namespace lt_shim

#define BOOST_AUTO_TEST_CASE(name)                                        \
  static void name();                                                     \
  static ::lt_shim::Register lt_shim_register_##name(#name, &name);       \
  static void name()

#define LT_SHIM_FAIL(msg_stream, fatal)                                   \
  do {                                                                    \
    std::ostringstream lt_shim_os;                                        \
    lt_shim_os << msg_stream;                                             \
    ::lt_shim::report(__FILE__, __LINE__, lt_shim_os.str());              \
    if (fatal) throw ::lt_shim::Abort();                                  \
  } while (0)

#define BOOST_CHECK_MESSAGE(cond, msg) \
  do {                                 \
    if (!(cond)) LT_SHIM_FAIL(msg, false); \
  } while (0)
#define BOOST_REQUIRE_MESSAGE(cond, msg) \
  do {                                   \
    if (!(cond)) LT_SHIM_FAIL(msg, true); \
  } while (0)
#define BOOST_CHECK(cond) BOOST_CHECK_MESSAGE(cond, "check " #cond " failed")
#define BOOST_TEST(cond) BOOST_CHECK(cond)
#define BOOST_REQUIRE(cond) BOOST_REQUIRE_MESSAGE(cond, "critical check " #cond " failed")
#define LT_SHIM_CMP(a, b, op, fatal)                                                                     \
  do {                                                                                                   \
    const auto& lt_a = (a);                                                                              \
    const auto& lt_b = (b);                                                                              \
    if (!(lt_a op lt_b)) LT_SHIM_FAIL(#a " " #op " " #b " failed [" << lt_a << " vs " << lt_b << "]", fatal); \
  } while (0)
#define BOOST_CHECK_EQUAL(a, b) LT_SHIM_CMP(a, b, ==, false)
#define BOOST_REQUIRE_EQUAL(a, b) LT_SHIM_CMP(a, b, ==, true)
#define BOOST_CHECK_GT(a, b) LT_SHIM_CMP(a, b, >, false)
#define BOOST_CHECK_GE(a, b) LT_SHIM_CMP(a, b, >=, false)
#define BOOST_CHECK_LT(a, b) LT_SHIM_CMP(a, b, <, false)
#define BOOST_ERROR(msg) LT_SHIM_FAIL(msg, false)
#define BOOST_FAIL(msg) LT_SHIM_FAIL(msg, true)
#define BOOST_TEST_MESSAGE(msg) (std::cerr << msg << std::endl)
#define BOOST_CHECK_THROW(expr, type)                                       \
  do {                                                                      \
    bool lt_thrown = false;                                                 \
    try {                                                                   \
      expr;                                                                 \
    } catch (const type&) {                                                 \
      lt_thrown = true;                                                     \
    }                                                                       \
    if (!lt_thrown) LT_SHIM_FAIL(#expr " did not throw " #type, false);     \
  } while (0)

#ifdef BOOST_TEST_MODULE
int main() { return ::lt_shim::run_all(); }
#endif
