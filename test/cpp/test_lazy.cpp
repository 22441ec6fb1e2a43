// Laziness, sync semantics, hashing and record-time errors of the lazy API.
#define BOOST_TEST_MODULE lazy
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <memory>

#include "lazy/lazytensor.h"
#include "lazy/runtime.h"
#include "trace/capture.h"
#include "trace/text.h"

using namespace lt;

static Hash128 hash_of(const Tensor& t) { return capture_trace({t.node()}).trace.hash; }
static int64_t evaluated() { return counter_value("nodes_evaluated") + counter_value("kernels_launched"); }

BOOST_AUTO_TEST_CASE(ops_record_nodes_and_compute_nothing_before_sync) {
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  int64_t before = evaluated();
  int64_t recorded = counter_value("nodes_recorded");
  Tensor y = exp(x) * 2.0 + x.sum();
  BOOST_TEST(counter_value("nodes_recorded") > recorded);
  BOOST_TEST(evaluated() == before);
  BOOST_TEST(!y.is_materialized());
  std::vector<float> v = y.to_vector<float>();
  BOOST_TEST(evaluated() > before);
  BOOST_TEST(y.is_materialized());
  BOOST_TEST(v[0] == std::exp(1.0f) * 2 + 10, boost::test_tools::tolerance(1e-5f));
}

BOOST_AUTO_TEST_CASE(a_tensor_scalar_op_records_one_scalar_and_the_op) {
  // Nodes per op are the Python per-op cost (docs/performance-python.md): the
  // number is one Scalar node in the op's dtype, a rank-0 operand (no Expand).
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  int64_t recorded = counter_value("nodes_recorded");
  Tensor y = x * 1.5;
  BOOST_TEST(counter_value("nodes_recorded") - recorded == 2);
  const NodePtr& s = y.node()->inputs[1];
  BOOST_TEST((s->op == Op::Scalar && s->dtype == DType::Float32 && s->shape.empty()));
  recorded = counter_value("nodes_recorded");
  // where(y <= 0, where(y < 0, 0, detach(y)), y) with one shared zero: the
  // inner where keeps relu(-0) = -0, as torch.
  Tensor r = relu(y);
  BOOST_TEST(counter_value("nodes_recorded") - recorded == 6);
  BOOST_TEST((r.to_vector<float>() == std::vector<float>{1.5f, 3, 4.5f, 6}));
}

BOOST_AUTO_TEST_CASE(a_sync_evaluates_each_shared_node_once) {
  runtime::set_backend("reference");
  Tensor x = Tensor::from_vector<double>({1, 2, 3}, {3});
  Tensor shared = exp(x);  // 1 node
  Tensor a = shared + 1.0;  // add (the scalar is a rank-0 operand: no expand)
  Tensor b = shared * 2.0;
  int64_t computed = 0;  // computed nodes in the trace of {a, b}
  for (const TraceNode& n : capture_trace({a.node(), b.node()}).trace.nodes)
    computed += n.op != Op::Input && n.op != Op::Scalar;
  int64_t before = counter_value("nodes_evaluated");
  sync({a, b});
  BOOST_TEST(counter_value("nodes_evaluated") - before == computed);
  BOOST_TEST(computed == 3);  // exp; per output: the op (scalars are parameters, not computed)
  before = counter_value("nodes_evaluated");
  sync({a, b});
  BOOST_TEST(counter_value("nodes_evaluated") == before);  // nothing pending any more
}

BOOST_AUTO_TEST_CASE(syncing_a_subset_materialises_intermediates_other_tensors_share) {
  runtime::set_backend("reference");
  Tensor x = Tensor::from_vector<double>({1, 2, 3}, {3});
  Tensor t = exp(x);  // held by a live tensor
  Tensor u = t + 1.0;
  Tensor v = t * 2.0;
  sync(v);
  BOOST_TEST(t.is_materialized());  // shared with u, so computed once and kept
  int64_t before = counter_value("nodes_evaluated");
  sync(u);
  BOOST_TEST(counter_value("nodes_evaluated") - before == 1);  // the add; exp is not recomputed
  BOOST_TEST(u.to_vector<double>()[2] == std::exp(3.0) + 1.0, boost::test_tools::tolerance(1e-12));
}

// A view of a pending node that another tensor's graph needs is not stored
// (that would be a copy): what it views is, and the view is recomputed for
// free later. A live tensor that is itself a view is stored as before.
BOOST_AUTO_TEST_CASE(a_shared_view_is_not_stored_what_it_views_is) {
  runtime::set_backend("reference");
  Tensor x = Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor u, v;
  {
    Tensor w = transpose(exp(x), 0, 1);  // dies here: only u's and v's graphs hold it
    u = w * 2.0;
    v = w + 1.0;
  }
  Tensor kept_view = transpose(exp(x) * 3.0, 0, 1);  // a live view
  Tensor z = kept_view + 1.0;
  sync({v, z});
  NodePtr view = u.node()->inputs[0];
  BOOST_TEST((view->op == Op::Permute && view->is_pending()));
  BOOST_TEST(!view->inputs[0]->is_pending());  // exp(x), stored
  BOOST_TEST(kept_view.is_materialized());
  BOOST_TEST(u.to_vector<double>()[1] == 2.0 * std::exp(4.0), boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(sync_all_computes_every_live_pending_tensor) {
  Tensor a = ones({2}) * 3.0;
  Tensor b = zeros({3}) + 1.0;
  BOOST_TEST(pending_tensor_count() >= 2);
  lt::sync();  // qualified: POSIX has a global ::sync()
  BOOST_TEST(a.is_materialized());
  BOOST_TEST(b.is_materialized());
  BOOST_TEST(pending_tensor_count() == 0);
}

BOOST_AUTO_TEST_CASE(a_graph_past_the_threshold_syncs_itself) {
  int64_t old = sync_threshold();
  set_sync_threshold(200);
  int64_t autos = counter_value("auto_syncs");
  Tensor x = zeros({4});
  for (int i = 0; i < 1000; ++i) x = x + 1.0;
  set_sync_threshold(old);
  BOOST_TEST(counter_value("auto_syncs") > autos);
  BOOST_TEST(x.to_vector<float>()[0] == 1000.0f);
}

BOOST_AUTO_TEST_CASE(a_long_chain_is_destroyed_without_deep_recursion) {
  Tensor x = zeros({1});
  int64_t old = sync_threshold();
  set_sync_threshold(1 << 30);
  for (int i = 0; i < 200000; ++i) x = x + 1.0;
  set_sync_threshold(old);
  x = Tensor();  // drops a 600k-node graph
  BOOST_TEST(true);
}

// ---- hashing ----

BOOST_AUTO_TEST_CASE(new_data_and_new_scalars_keep_the_hash) {
  Tensor a = Tensor::from_vector<float>({1, 2, 3}, {3});
  Tensor b = Tensor::from_vector<float>({7, 8, 9}, {3});
  BOOST_TEST(hash_of(a * 2.0 + 1.0) == hash_of(b * 5.0 + -3.0));
  BOOST_TEST(hash_of(full({3}, 1.5)) == hash_of(full({3}, 2.5)));
}

BOOST_AUTO_TEST_CASE(shape_dtype_op_or_attribute_changes_change_the_hash) {
  Tensor a = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor c = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor d = Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  Hash128 base = hash_of(exp(a).sum({1}));
  BOOST_TEST(base != hash_of(exp(c).sum({1})));  // shape
  BOOST_TEST(base != hash_of(exp(d).sum({1})));  // dtype
  BOOST_TEST(base != hash_of(log(a).sum({1})));  // op
  BOOST_TEST(base != hash_of(exp(a).sum({0})));  // attribute
}

BOOST_AUTO_TEST_CASE(aliasing_of_inputs_is_part_of_the_hash) {
  Tensor a = Tensor::from_vector<float>({1, 2}, {2});
  Tensor b = Tensor::from_vector<float>({1, 2}, {2});
  BOOST_TEST(hash_of(a + a) != hash_of(a + b));
  Tensor c = Tensor::from_vector<float>({3, 4}, {2});
  BOOST_TEST(hash_of(a + c) == hash_of(a + b));
}

BOOST_AUTO_TEST_CASE(the_same_program_hashes_the_same_in_another_process) {
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = softmax(relu(x * 2.0 + 1.0), 1).sum({0});
  std::string mine = hash_of(y).hex();
  for (int run = 0; run < 2; ++run) {
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(LT_PROBE_HASH, "r"), pclose);
    BOOST_REQUIRE(p);
    char buf[64] = {0};
    BOOST_REQUIRE(fgets(buf, sizeof buf, p.get()));
    BOOST_TEST(std::string(buf, 32) == mine);
  }
}

BOOST_AUTO_TEST_CASE(print_then_parse_gives_the_same_hash_and_results) {
  runtime::set_backend("reference");
  Tensor x = Tensor::from_vector<float>({1, -2, 3, 4, -5, 6}, {2, 3});
  Tensor y = layer_norm(gelu(x.transpose(0, 1) * 0.5), {2}) + cumsum(x, 0).t();
  CapturedTrace cap = capture_trace({y.node()});
  std::string text = print_trace(cap.trace);
  Trace parsed = parse_trace(text);
  BOOST_TEST(parsed.hash == cap.trace.hash);
  BOOST_TEST(print_trace(parsed) == text);
  parsed.params = cap.trace.params;
  std::vector<BufferPtr> out = reference_backend().run(parsed, {});
  std::vector<float> expect = y.to_vector<float>();
  BOOST_REQUIRE(out[0]->numel() == static_cast<int64_t>(expect.size()));
  for (size_t i = 0; i < expect.size(); ++i) BOOST_TEST(out[0]->as<float>()[i] == expect[i]);
}

// ---- record-time errors ----

template <typename F>
static std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

static bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

BOOST_AUTO_TEST_CASE(bad_input_raises_at_record_time_naming_op_and_shapes) {
  Tensor a = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = Tensor::from_vector<float>({1, 2, 3, 4}, {4});
  Tensor keep = a * 2.0;  // pending, must survive the failures below
  std::string e = error_of([&] { add(a, b); });
  BOOST_TEST(contains(e, "add"));
  BOOST_TEST(contains(e, "[2, 3]"));
  BOOST_TEST(contains(e, "[4]"));
  e = error_of([&] { a.sum({2}); });
  BOOST_TEST(contains(e, "sum"));
  BOOST_TEST(contains(e, "range"));
  e = error_of([&] { a.reshape({4, 2}); });
  BOOST_TEST(contains(e, "reshape"));
  BOOST_TEST(contains(e, "[4, 2]"));
  e = error_of([&] { matmul(a, a); });
  BOOST_TEST(contains(e, "matmul"));
  BOOST_TEST(contains(e, "3 != 2"));
  e = error_of([&] { mean(Tensor::from_vector<int64_t>({1, 2}, {2})); });
  BOOST_TEST(contains(e, "mean"));
  BOOST_TEST(contains(e, "i64"));
  e = error_of([&] { narrow(a, 1, 2, 5); });
  BOOST_TEST(contains(e, "narrow"));
  e = error_of([&] { select(a, 0, 2); });
  BOOST_TEST(contains(e, "select"));
  BOOST_TEST(contains(e, "out of bounds"));
  e = error_of([&] { gather(a, 1, Tensor::from_vector<float>({0, 1}, {1, 2})); });
  BOOST_TEST(contains(e, "gather"));
  BOOST_TEST(contains(e, "int64"));
  std::vector<float> v = keep.to_vector<float>();
  BOOST_TEST(v[5] == 12.0f);
  BOOST_TEST((a + 1.0).to_vector<float>()[0] == 2.0f);
}

BOOST_AUTO_TEST_CASE(an_index_out_of_range_raises_at_sync_and_loses_nothing) {
  Tensor w = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  // Pending index values: known ones would raise at the op already.
  Tensor idx = Tensor::from_vector<int64_t>({0, 5}, {2}) + Tensor::from_vector<int64_t>({0}, {1});
  Tensor other = w * 3.0;
  Tensor bad = index_select(w, 0, idx);
  BOOST_CHECK_THROW(bad.to_vector<float>(), Error);
  BOOST_TEST(other.to_vector<float>()[3] == 12.0f);
  BOOST_CHECK_THROW(bad.to_vector<float>(), Error);  // still raises, never a wrong value
}

// ---- slices of data are inputs ----

static std::vector<float> iota_values(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

BOOST_AUTO_TEST_CASE(a_slice_of_data_is_one_trace_whatever_its_offset) {
  // A loop over batches x[i:i+b] (or samples x[i]) must not capture a new
  // trace, and compile new kernels, for every i.
  Tensor x = Tensor::from_vector<float>(iota_values(24), {8, 3});
  Hash128 h = hash_of(narrow(x, 0, 0, 2) * 2.0);
  for (int i = 1; i <= 6; ++i) BOOST_TEST(hash_of(narrow(x, 0, i, 2) * 2.0) == h);
  BOOST_TEST(hash_of(select(x, 0, 5) + 1.0) == hash_of(select(x, 0, 2) + 1.0));
  BOOST_TEST(hash_of(narrow(x, 0, 0, 2) * 2.0) != hash_of(narrow(x, 0, 0, 3) * 2.0));  // the size still counts
  // Not one run of the data (a column, every other row): copied into an input
  // at capture while small (up to 1 MiB), so x[:, t] in a loop is one trace too.
  BOOST_TEST(hash_of(narrow(x, 1, 0, 1) * 2.0) == hash_of(narrow(x, 1, 1, 1) * 2.0));
  BOOST_TEST(hash_of(slice(x, 0, 0, 4, 2) * 2.0) == hash_of(slice(x, 0, 1, 5, 2) * 2.0));
  BOOST_TEST(hash_of(select(x, 1, 2) * 2.0) == hash_of(select(x, 1, 0) * 2.0));
  // A large one stays in the trace (a kernel reads it in parallel), start and all.
  Tensor big = Tensor::from_vector<float>(std::vector<float>(1024 * 1024, 1.0f), {1024, 1024});
  BOOST_TEST(hash_of(narrow(big, 1, 0, 512) * 2.0) != hash_of(narrow(big, 1, 1, 512) * 2.0));
}
