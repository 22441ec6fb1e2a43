// lab/lt_trace.cpp — lt-trace: the fusion lab's command-line tool.
//
//   lt-trace show FILE
//   lt-trace plan FILE [--fusion POLICY]
//   lt-trace run FILE [--fusion POLICY] [--backend cpu|reference] [--repeat N]
//   lt-trace compare FILE --fusion A --fusion B ... [--backend B] [--repeat N]
//   lt-trace dot FILE [--fusion POLICY] [-o OUT.svg|OUT.dot]
//
// FILE is a trace dump (LT_DUMP_DIR; docs/fusion-lab.md). See lab/lab.h for
// how inputs are bound and results checked.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir/error.h"
#include "scheduler/fusion.h"
#include "lab/lab.h"

namespace {

struct Args {
  std::string command, file, backend = "cpu", out;
  std::vector<std::string> policies;
  int repeat = 5;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: lt-trace show FILE\n"
               "       lt-trace plan FILE [--fusion POLICY]\n"
               "       lt-trace run FILE [--fusion POLICY] [--backend cpu|reference] [--repeat N]\n"
               "       lt-trace compare FILE --fusion A --fusion B ... [--backend B] [--repeat N]\n"
               "       lt-trace dot FILE [--fusion POLICY] [-o OUT.svg|OUT.dot]\n"
               "policies:");
  for (const std::string& p : lt::fusion_policy_names()) std::fprintf(stderr, " %s", p.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  if (argc < 3) usage();
  Args a;
  a.command = argv[1];
  a.file = argv[2];
  for (int i = 3; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (s == "--fusion") a.policies.push_back(next());
    else if (s == "--backend") a.backend = next();
    else if (s == "--repeat") a.repeat = std::max(1, std::atoi(next().c_str()));
    else if (s == "-o") a.out = next();
    else usage();
  }
  if (a.policies.empty()) a.policies.push_back("default");
  return a;
}

int run(const Args& a) {
  using namespace lt;
  Trace t = lab::load(a.file);
  if (a.command == "show") {
    std::printf("%s", lab::show(t).c_str());
    return 0;
  }
  if (a.command == "plan") {
    std::printf("%s", lab::plan_table(t, a.policies[0]).c_str());
    return 0;
  }
  if (a.command == "run") {
    lab::Measured m = lab::measure(t, a.backend, a.policies[0], a.repeat);
    std::printf("backend %s, policy %s: %zu kernels, run %.3f ms (median of %d), compile %.0f ms, %s\n",
                a.backend.c_str(), m.policy.c_str(), m.kernels, m.run_ms, a.repeat, m.compile_ms,
                m.mismatch.empty() ? "matches the reference evaluator" : ("MISMATCH: " + m.mismatch).c_str());
    return m.mismatch.empty() ? 0 : 1;
  }
  if (a.command == "compare") {
    std::vector<lab::Measured> rows;
    bool ok = true;
    for (const std::string& p : a.policies) {
      rows.push_back(lab::measure(t, a.backend, p, a.repeat));
      ok &= rows.back().mismatch.empty();
    }
    std::printf("%s", lab::compare_table(rows).c_str());
    return ok ? 0 : 1;
  }
  if (a.command == "dot") {
    size_t kernels = 0;
    std::string out = a.out.empty() ? a.file + ".svg" : a.out;
    lab::write_picture(lab::dot(t, a.policies[0], &kernels), out);
    std::printf("wrote %s (%zu kernels as clusters)\n", out.c_str(), kernels);
    return 0;
  }
  usage();
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  try {
    return run(a);
  } catch (const lt::Error& e) {
    std::fprintf(stderr, "lt-trace: %s\n", e.what());
    return 1;
  }
}
