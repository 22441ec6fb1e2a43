// The fusion lab's acceptance: dumped training steps (test/data/traces) replay
// under every built-in policy with the reference evaluator's results, the
// default policy moves fewer bytes than `none`, and `lt-trace dot` draws one
// cluster per kernel.
#define BOOST_TEST_MODULE fusion_lab
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "ir/error.h"
#include "scheduler/cost.h"
#include "scheduler/fusion.h"
#include "lab/lab.h"

using namespace lt;

static const char* kDumps[] = {"mlp_step", "transformer_step"};

static std::string dump(const char* name) { return std::string(LT_SOURCE_DIR) + "/test/data/traces/" + name + ".trace"; }

// Runs a command; returns its exit status and fills `out`.
static int run_tool(const std::string& args, std::string* out) {
  std::string cmd = std::string(LT_TRACE_TOOL) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  BOOST_REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

BOOST_AUTO_TEST_CASE(dumped_steps_replay_with_reference_results_under_every_builtin_policy) {
  for (const char* d : kDumps) {
    for (const char* policy : {"default", "none", "elementwise"}) {
      std::string out;
      int rc = run_tool(cat("run ", dump(d), " --fusion ", policy, " --repeat 1"), &out);
      BOOST_TEST(rc == 0, d << " under " << policy << ": " << out);
      BOOST_TEST(out.find("matches the reference evaluator") != std::string::npos, out);
    }
  }
}

BOOST_AUTO_TEST_CASE(default_policy_moves_fewer_bytes_than_none_on_the_mlp_step) {
  Trace t = lab::load(dump("mlp_step"));
  KernelCost def = plan_cost(schedule(t, fusion_policy("default")));
  KernelCost none = plan_cost(schedule(t, fusion_policy("none")));
  BOOST_TEST(def.bytes_read + def.bytes_written < none.bytes_read + none.bytes_written);
  std::string out;
  BOOST_TEST(run_tool(cat("compare ", dump("mlp_step"), " --fusion default --fusion none --fusion elementwise --repeat 1"),
                      &out) == 0, out);
  for (const char* policy : {"| default |", "| none |", "| elementwise |"}) BOOST_TEST(out.find(policy) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(dot_draws_one_cluster_per_kernel) {
  std::string svg = std::string(LT_BINARY_DIR) + "/fusion_lab_mlp.svg";
  std::remove(svg.c_str());
  std::string out;
  BOOST_REQUIRE(run_tool(cat("dot ", dump("mlp_step"), " -o ", svg), &out) == 0);
  size_t kernels = schedule(lab::load(dump("mlp_step")), fusion_policy("default")).kernels.size();
  std::ifstream in(svg);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t clusters = 0;
  for (size_t pos = 0; (pos = text.find("class=\"cluster\"", pos)) != std::string::npos; ++pos) ++clusters;
  BOOST_TEST(kernels > 1);
  BOOST_TEST(clusters == kernels);
}
