// Recompile reasons: why a sync missed the trace cache, in one line
// (trace/recompile_reasons.h), through the cpu backend and the explainer alone.
#define BOOST_TEST_MODULE recompile_reasons
#include <boost/test/unit_test.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/cpu_backend.h"
#include "cache/trace_cache.h"
#include "lazy/lazytensor.h"
#include "lazy/runtime.h"
#include "trace/recompile_reasons.h"

using namespace lt;

namespace {

// Every case starts with empty trace caches and no reasons.
struct Fresh {
  Fresh() {
    cpu_clear_caches();
    clear_recompile_reasons();
  }
};

Tensor filled_tensor(Shape shape, DType dtype = DType::Float32) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  std::iota(v.begin(), v.end(), 0.0);
  for (double& x : v) x = x / static_cast<double>(v.size());
  if (dtype == DType::Float64) return Tensor::from_vector<double>(v, shape);
  return Tensor::from_vector<float>(std::vector<float>(v.begin(), v.end()), shape);
}

// Syncs `t` (its value is not the point here).
void run(const Tensor& t) {
  if (t.dtype() == DType::Float64)
    (void)t.to_vector<double>();
  else
    (void)t.to_vector<float>();
}

std::string last_reason() {
  std::vector<std::string> r = recompile_reasons();
  BOOST_REQUIRE(!r.empty());
  return r.back();
}

Tensor program(const Tensor& x) { return (exp(x) * 2.0).sum(); }

// A hand-built trace: input [n] through `ops` unary ops.
Trace chain(int ops, int64_t n, DType dtype = DType::Float32) {
  Trace t;
  t.nodes.push_back(TraceNode{Op::Input, dtype, {n}, {}, {}, 0});
  for (int i = 0; i < ops; ++i) t.nodes.push_back(TraceNode{Op::Exp, dtype, {n}, {}, {i}, -1});
  t.outputs = {ops};
  return t;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_first_sync_is_a_new_program_and_not_a_recompile, Fresh) {
  int64_t recompiles = counter_value("trace_cache_recompiles");
  Tensor x = filled_tensor({8, 64});
  run(program(x));
  std::string r = last_reason();
  BOOST_TEST(r.rfind("new program (", 0) == 0, r);
  BOOST_TEST(counter_value("trace_cache_recompiles") == recompiles);
}

BOOST_FIXTURE_TEST_CASE(a_program_run_at_a_second_size_names_the_input_dim_and_both_sizes, Fresh) {
  run(program(filled_tensor({8, 64})));
  int64_t recompiles = counter_value("trace_cache_recompiles");
  run(program(filled_tensor({8, 65})));
  BOOST_TEST(last_reason() == "recompile: input 0 dim 1 was 64, now 65 (f32[8, 65])");
  BOOST_TEST(counter_value("trace_cache_recompiles") == recompiles + 1);
  BOOST_TEST(recompile_reasons().size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(a_dtype_change_names_the_input_and_both_dtypes, Fresh) {
  run(program(filled_tensor({8, 4}, DType::Float32)));
  run(program(filled_tensor({8, 4}, DType::Float64)));
  BOOST_TEST(last_reason() == "recompile: dtype of input 0 was f32, now f64");
}

BOOST_FIXTURE_TEST_CASE(a_changed_slice_start_names_the_node_and_attribute, Fresh) {
  Tensor x = filled_tensor({4, 16});
  run(exp(x).slice(1, 3, 5).sum());
  run(exp(x).slice(1, 5, 7).sum());
  // attrs of a slice: (start, step) per dim, so dim 1's start is attribute 2.
  BOOST_TEST(last_reason() == "recompile: node 2 (slice) attribute 2 was 3, now 5");
}

BOOST_FIXTURE_TEST_CASE(a_changed_reduction_axis_names_the_reduction_and_not_its_shape, Fresh) {
  Tensor x = filled_tensor({6, 6});
  run(exp(x).sum({0}));
  run(exp(x).sum({1}));
  std::string r = last_reason();
  BOOST_TEST(r.find("(reduce_sum) attribute 0 was 0, now 1") != std::string::npos, r);
  BOOST_TEST(r.find("shape") == std::string::npos, r);
}

BOOST_FIXTURE_TEST_CASE(a_cache_hit_adds_no_reason_and_counts_no_recompile, Fresh) {
  run(program(filled_tensor({8, 64})));
  run(program(filled_tensor({8, 65})));
  std::vector<std::string> before = recompile_reasons();
  int64_t recompiles = counter_value("trace_cache_recompiles");
  int64_t hits = counter_value("trace_cache_hits");
  run(program(filled_tensor({8, 64})));
  run(program(filled_tensor({8, 65})));
  BOOST_TEST(counter_value("trace_cache_hits") >= hits + 2);
  BOOST_TEST(recompile_reasons() == before);
  BOOST_TEST(counter_value("trace_cache_recompiles") == recompiles);
}

BOOST_FIXTURE_TEST_CASE(an_evicted_trace_that_comes_back_says_so, Fresh) {
  size_t capacity = trace_cache_capacity();
  set_trace_cache_capacity(1);
  Tensor x = filled_tensor({8, 8});
  run(program(x));
  run(exp(exp(x)).sum());  // another program evicts the first
  run(program(x));
  set_trace_cache_capacity(capacity);
  std::string r = last_reason();
  BOOST_TEST(r.rfind("recompile: same trace as one compiled before", 0) == 0, r);
  BOOST_TEST(r.find("evicted") != std::string::npos, r);
}

BOOST_AUTO_TEST_CASE(the_nearest_remembered_trace_is_the_one_with_fewest_differences) {
  clear_recompile_reasons();
  RecompileExplainer e;
  Trace a = chain(3, 10), b = chain(3, 20), c = chain(3, 20, DType::Float64);
  BOOST_TEST(e.explain_miss(a, "default") == "new program (4 nodes)");
  BOOST_TEST(e.explain_miss(b, "default") == "recompile: input 0 dim 0 was 10, now 20 (f32[20])");
  // c differs from b in dtype only, from a in dtype and size: b is nearer.
  BOOST_TEST(e.explain_miss(c, "default") == "recompile: dtype of input 0 was f32, now f64");
  BOOST_TEST(e.explain_miss(c, "none") == "recompile: fusion policy was default, now none");
  BOOST_TEST(recompile_reasons().size() == 4u);
}

BOOST_AUTO_TEST_CASE(a_different_op_sequence_is_a_new_program) {
  RecompileExplainer e;
  e.explain_miss(chain(3, 10), "default");
  Trace other = chain(3, 10);
  other.nodes[2].op = Op::Neg;
  BOOST_TEST(e.explain_miss(other, "default") ==
             "new program (4 nodes; node 2 is neg where the nearest cached trace has exp)");
  BOOST_TEST(e.explain_miss(chain(1, 10), "none").rfind("new program (2 nodes", 0) == 0);
}

BOOST_AUTO_TEST_CASE(a_loop_unrolled_further_is_a_new_program_with_its_extra_nodes_counted) {
  RecompileExplainer e;
  e.explain_miss(chain(3, 10), "default");
  BOOST_TEST(e.explain_miss(chain(5, 10), "default") ==
             "new program (6 nodes; 2 more nodes than the nearest cached trace, whose first 4 ops it shares)");
  BOOST_TEST(e.explain_miss(chain(6, 10), "default") ==
             "new program (7 nodes; 1 more node than the nearest cached trace, whose first 6 ops it shares)");
}

BOOST_AUTO_TEST_CASE(the_explainer_forgets_the_oldest_traces_past_its_bound) {
  RecompileExplainer e;
  for (int ops = 1; ops <= static_cast<int>(RecompileExplainer::kMaxTraces) + 1; ++ops)
    e.explain_miss(chain(ops, 10), "default");
  // The first signature was dropped to stay within kMaxTraces; the newest is kept.
  BOOST_TEST(e.explain_miss(chain(1, 11), "default").rfind("new program (2 nodes", 0) == 0);
  BOOST_TEST(e.explain_miss(chain(RecompileExplainer::kMaxTraces + 1, 11), "default").rfind("recompile: ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(the_reasons_keep_only_the_most_recent_misses) {
  clear_recompile_reasons();
  RecompileExplainer e;
  for (int64_t n = 1; n <= static_cast<int64_t>(kRecompileReasonsKept) + 10; ++n)
    e.explain_miss(chain(2, n), "default");
  std::vector<std::string> r = recompile_reasons();
  BOOST_TEST(r.size() == kRecompileReasonsKept);
  BOOST_TEST(r.back() == cat("recompile: input 0 dim 0 was ", kRecompileReasonsKept + 9, ", now ",
                             kRecompileReasonsKept + 10, " (f32[", kRecompileReasonsKept + 10, "])"));
}

BOOST_AUTO_TEST_CASE(a_trace_longer_than_what_is_kept_still_gets_a_reason) {
  RecompileExplainer e;
  int ops = static_cast<int>(RecompileExplainer::kWordsPerTrace);  // 2 words per node: about half is kept
  Trace a = chain(ops, 10), b = a;
  b.nodes.back().shape = {11};  // differs only past the kept nodes
  e.explain_miss(a, "default");
  std::string r = e.explain_miss(b, "default");
  BOOST_TEST(r.rfind("recompile: differs after node ", 0) == 0, r);
}
