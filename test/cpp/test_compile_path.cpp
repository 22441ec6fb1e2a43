// Structural tests of the compile path: what planning and compiling a program
// costs must not grow with how long the program runs. Each test builds the
// same program at two lengths and asserts that the planning passes, the
// distinct compiled kernels or the trace hash stay the same (counts, never
// times), and that the result still matches the reference evaluator.
#define BOOST_TEST_MODULE compile_path

#include "cache/kernel_cache.h"
#include "ir/counters.h"
#include "jit_test_util.h"
#include "scheduler/generic.h"
#include "trace/capture.h"

using namespace lt;
using namespace lt::test;

namespace {

NodePtr f32(double v) { return ops::scalar(v, DType::Float32); }

/// Ops of the plan's largest kernel: what one compile costs.
size_t largest_kernel(const Plan& plan) {
  size_t n = 0;
  for (const Kernel& k : plan.kernels) n = std::max(n, k.ops.size());
  return n;
}

Plan plan_of(const std::vector<NodePtr>& roots) {
  return schedule(capture_trace(roots).trace, fusion_policy("default"));
}

// h = tanh(h @ W + x[:, t:t+1]) over t, x pending (so its slices stay in the trace).
NodePtr slice_recurrence(int steps) {
  NodePtr x = ops::mul(random_input(DType::Float32, {4, steps}, -1, 1, 7), f32(0.5));
  NodePtr w = random_input(DType::Float32, {6, 6}, -0.3, 0.3, 8);
  NodePtr h = random_input(DType::Float32, {4, 6}, -1, 1, 9);
  for (int t = 0; t < steps; ++t) h = ops::tanh(ops::add(ops::matmul(h, w), ops::slice(x, 1, t, t + 1)));
  return h;
}

// An LSTM-style cell loop with no sync inside: c is carried from step to step.
std::vector<NodePtr> lstm_cells(int steps) {
  NodePtr x = random_input(DType::Float32, {3, 16}, -1, 1, 11);
  NodePtr wh = random_input(DType::Float32, {16, 4}, -0.3, 0.3, 12);
  NodePtr h = random_input(DType::Float32, {3, 4}, -1, 1, 13);
  NodePtr c = random_input(DType::Float32, {3, 4}, -1, 1, 14);
  for (int t = 0; t < steps; ++t) {
    NodePtr gates = ops::add(x, ops::matmul(h, ops::transpose(wh, 0, 1)));
    auto gate = [&](int k) { return ops::slice(gates, 1, 4 * k, 4 * k + 4); };
    c = ops::add(ops::mul(ops::sigmoid(gate(1)), c), ops::mul(ops::sigmoid(gate(0)), ops::tanh(gate(2))));
    h = ops::mul(ops::sigmoid(gate(3)), ops::tanh(c));
  }
  return {ops::sum(h)};
}

std::vector<NodePtr> pending_pieces(int n) {
  std::vector<NodePtr> pieces;
  NodePtr base = random_input(DType::Float32, {5}, -1, 1, 21);
  for (int i = 0; i < n; ++i) pieces.push_back(ops::mul(base, f32(i * 0.25)));
  return pieces;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_slice_recurrence_compiles_the_same_kernels_at_any_length) {
  Plan short_plan = plan_of({slice_recurrence(6)});
  Plan long_plan = plan_of({slice_recurrence(40)});
  BOOST_TEST(long_plan.kernels.size() > short_plan.kernels.size());
  BOOST_TEST(distinct_kernels(long_plan) == distinct_kernels(short_plan));
  check_against_reference({slice_recurrence(40)});
}

BOOST_AUTO_TEST_CASE(a_slice_start_is_an_index_argument_not_part_of_the_kernel) {
  NodePtr x = ops::exp(random_input(DType::Float32, {8, 16}, -1, 1, 3));
  Plan a = plan_of({ops::slice(x, 1, 3, 7)});
  Plan b = plan_of({ops::slice(x, 1, 9, 13)});
  BOOST_TEST_REQUIRE(a.kernels.size() == 1u);
  BOOST_TEST_REQUIRE(b.kernels.size() == 1u);
  BOOST_TEST((a.kernels[0].hash() == b.kernels[0].hash()));
  BOOST_TEST(a.kernels[0].index_args != b.kernels[0].index_args);
  check_against_reference({ops::slice(x, 1, 9, 13)});
  check_against_reference({ops::slice(x, 0, 5, 8)});
}

BOOST_AUTO_TEST_CASE(planning_a_recurrence_takes_the_same_passes_at_any_length) {
  Plan short_plan = plan_of(lstm_cells(5));
  Plan long_plan = plan_of(lstm_cells(60));
  BOOST_TEST(long_plan.planning_passes == short_plan.planning_passes);
  BOOST_TEST(long_plan.planning_passes <= 4);
  BOOST_TEST(distinct_kernels(long_plan) <= distinct_kernels(short_plan) + 1);
  check_against_reference(lstm_cells(60));
}

BOOST_AUTO_TEST_CASE(a_cat_of_many_pending_pieces_compiles_a_constant_number_of_kernels) {
  auto joined = [](int n) {
    std::vector<NodePtr> pieces = pending_pieces(n);
    return ops::mul(ops::cat(pieces, 0), f32(2.0));
  };
  Plan small = plan_of({joined(40)});
  Plan large = plan_of({joined(400)});
  BOOST_TEST(distinct_kernels(large) == distinct_kernels(small));
  BOOST_TEST(distinct_kernels(large) <= 4u);
  BOOST_TEST(largest_kernel(large) == largest_kernel(small));  // no select chain over every piece
  check_against_reference({joined(40)});
}

BOOST_AUTO_TEST_CASE(many_live_outputs_of_one_shape_are_several_identical_sibling_kernels) {
  // A sync of n pending pieces (a list about to be concatenated, kept alive).
  std::vector<NodePtr> small = pending_pieces(20), large = pending_pieces(200);
  Plan a = plan_of(small), b = plan_of(large);
  BOOST_TEST(b.kernels.size() > a.kernels.size());
  BOOST_TEST(distinct_kernels(b) <= 2u);
  for (const Kernel& k : b.kernels) BOOST_TEST(k.buffers.size() <= 17u);
  check_against_reference(large);
}

BOOST_AUTO_TEST_CASE(a_cat_of_materialised_pieces_is_joined_at_capture) {
  auto pieces = [](int n, int64_t len) {
    std::vector<NodePtr> v;
    for (int i = 0; i < n; ++i) v.push_back(random_input(DType::Float32, {2, len}, -1, 1, 30 + i));
    return v;
  };
  std::vector<NodePtr> many = pieces(60, 2), few = pieces(4, 30);
  NodePtr a = ops::cat(many, 1), b = ops::cat(few, 1);
  CapturedTrace ta = capture_trace({a}), tb = capture_trace({b});
  BOOST_TEST(ta.trace.nodes.size() == 1u);  // one input, no Concat
  BOOST_TEST(ta.trace.params.size() == 1u);
  BOOST_TEST((ta.trace.hash == tb.trace.hash));  // the same [2, 120] input either way
  std::vector<BufferPtr> got = run_cpu(ta.trace);
  const float* out = got[0]->as<float>();
  for (int i = 0; i < 60; ++i)
    for (int row = 0; row < 2; ++row)
      for (int j = 0; j < 2; ++j)
        BOOST_TEST(out[row * 120 + i * 2 + j] == many[i]->buffer->as<float>()[row * 2 + j]);
}

// Generation's sliding window: `idx = cat((idx, next))` each step and the
// model reads `idx[:, -T:]`. The concat of materialised pieces is joined and
// realised at capture, so the window is a view of data: once idx is longer
// than T every step is the same trace, whatever idx's length.
BOOST_AUTO_TEST_CASE(a_window_of_a_growing_concat_is_one_trace_at_every_length) {
  const int64_t T = 4;
  NodePtr idx = random_input(DType::Float32, {1, 1}, -1, 1, 40);
  std::vector<Hash128> hashes;
  std::vector<float> all{idx->buffer->as<float>()[0]};
  for (int step = 0; step < 9; ++step) {
    const int64_t len = idx->shape[1], w = std::min(len, T);
    NodePtr window = ops::slice(idx, 1, len - w, len);
    NodePtr next = ops::sum(ops::mul(window, f32(0.5)), {1}, true);  // [1, 1]
    CapturedTrace ct = capture_trace({next});
    hashes.push_back(ct.trace.hash);
    BOOST_TEST(idx->is_materialized());  // realised by the capture (step 0: an input already)
    BufferPtr got = run_cpu(ct.trace)[0];
    float want = 0;
    for (int64_t j = len - w; j < len; ++j) want += all[j] * 0.5f;
    BOOST_TEST(got->as<float>()[0] == want, boost::test_tools::tolerance(1e-6f));
    all.push_back(got->as<float>()[0]);
    idx = ops::cat({idx, make_input(got, {1, 1})}, 1);
  }
  for (size_t i = T; i + 1 < hashes.size(); ++i) BOOST_TEST((hashes[i] == hashes[i + 1]));
  BOOST_TEST(!(hashes[0] == hashes[1]));  // shorter windows are other traces
}

BOOST_AUTO_TEST_CASE(an_empty_cat_of_many_pieces_runs_and_feeds_its_readers) {
  // A fuzzer find: 40 empty pieces left the output a temporary no kernel owned.
  NodePtr x = ops::mul(random_input(DType::Float32, {3, 0, 2}, -1, 1, 41), f32(2.0));
  std::vector<NodePtr> pieces;
  for (int i = 0; i < 40; ++i) pieces.push_back(ops::slice(x, 0, i % 3, i % 3 + 1));
  NodePtr joined = ops::cat(pieces, 0);
  check_against_reference({joined});
  check_against_reference({ops::add(ops::sum(joined), f32(1.0)), ops::mul(joined, f32(3.0))});
}

namespace {

// A program whose kernels depend on n in every way a sequence length does:
// loop extents (rows of n), strides and div/mod constants (a transpose of
// [n, 6] read as [6, n]), a mean's 1/n, buffer sizes.
std::vector<NodePtr> length_program(int64_t n, uint32_t seed) {
  NodePtr x = random_input(DType::Float32, {3, n}, -2, 2, seed);
  NodePtr y = random_input(DType::Float32, {n, 6}, -1, 1, seed + 1);
  NodePtr s = ops::softmax(ops::mul(x, f32(1.5)), 1);
  NodePtr m = ops::mean(ops::tanh(x), {1});
  NodePtr t = ops::exp(ops::transpose(y, 0, 1));       // [6, n]
  NodePtr r = ops::sum(ops::mul(t, t), {1});            // [6]
  NodePtr flat = ops::reshape(ops::add(t, f32(0.25)), {-1});  // [6n]
  return {s, m, r, flat};
}

}  // namespace

BOOST_AUTO_TEST_CASE(kernels_that_recur_with_another_length_compile_once_more_then_never) {
  // Lengths no other test uses and that equal none of the program's other sizes.
  const int64_t lengths[] = {37, 41, 43, 47, 53, 59, 61, 97};
  int64_t compiled_after_second = 0;
  int64_t generic_before = counter_value("kernels_generic");
  // Kernels new to this process: compiled, or loaded from a disk cache that
  // an earlier run of the suite filled.
  auto fetched = [] { return counter_value("kernels_compiled") + counter_value("disk_loads"); };
  for (size_t i = 0; i < std::size(lengths); ++i) {
    int64_t compiled = fetched(), interpreted = counter_value("kernels_interpreted");
    check_against_reference(length_program(lengths[i], 100 + static_cast<uint32_t>(i)));
    int64_t now = fetched() - compiled;
    // First length: concrete kernels (small ones run in the interpreter); second: the shape-generic kernels.
    if (i == 0) BOOST_TEST(now + counter_value("kernels_interpreted") - interpreted > 0);
    if (i == 1) BOOST_TEST(now > 0);
    if (i > 1) compiled_after_second += now;
  }
  BOOST_TEST(compiled_after_second == 0);
  BOOST_TEST(counter_value("kernels_generic") > generic_before);
}

BOOST_AUTO_TEST_CASE(a_shape_generic_kernel_reads_its_extents_from_arguments) {
  // The kernel of length 37 and of 41 are one structure; the generic form of
  // the second keeps 41 in its launch domain and reads it from a slot.
  GenericKernels generic;
  Plan a = plan_of({ops::softmax(random_input(DType::Float32, {3, 37}, -1, 1, 5), 1)});
  Plan b = plan_of({ops::softmax(random_input(DType::Float32, {3, 41}, -1, 1, 6), 1)});
  Plan c = plan_of({ops::softmax(random_input(DType::Float32, {3, 43}, -1, 1, 7), 1)});
  BOOST_TEST_REQUIRE(a.kernels.size() == 1u);
  BOOST_TEST(!generic.generalize(&a.kernels[0]));  // the first of its structure stays concrete
  BOOST_TEST(generic.generalize(&b.kernels[0]));
  BOOST_TEST(generic.generalize(&c.kernels[0]));
  const Kernel& kb = b.kernels[0];
  BOOST_TEST(kb.symbolic_domain());
  BOOST_TEST(kb.domain.back() == 41);
  BOOST_TEST((kb.hash() == c.kernels[0].hash()));
  BOOST_TEST(!(kb.hash() == a.kernels[0].hash()));
  BOOST_TEST(kb.index_args != c.kernels[0].index_args);
  // A kernel of another structure (another row count, equal to nothing) is not rewritten.
  Plan d = plan_of({ops::sum(random_input(DType::Float32, {3, 41}, -1, 1, 8), {1})});
  BOOST_TEST(!generic.generalize(&d.kernels[0]));
}

BOOST_AUTO_TEST_CASE(a_structure_seen_first_with_two_sizes_in_one_plan_compiles_one_generic_kernel) {
  // Two softmaxes of other lengths in one sync: both take the generic form at
  // once (one compile), where kernel by kernel the first would compile
  // specialised and the second generic.
  GenericKernels generic;
  Plan p = plan_of({ops::softmax(random_input(DType::Float32, {5, 71}, -1, 1, 11), 1),
                    ops::softmax(random_input(DType::Float32, {5, 73}, -1, 1, 12), 1)});
  BOOST_TEST_REQUIRE(p.kernels.size() == 2u);
  BOOST_TEST(generic.generalize_plan(&p.kernels) == 2);
  BOOST_TEST(p.kernels[0].symbolic_domain());
  BOOST_TEST((p.kernels[0].hash() == p.kernels[1].hash()));
  // A third length later reuses the template; the structure is not fresh anymore.
  Plan q = plan_of({ops::softmax(random_input(DType::Float32, {5, 79}, -1, 1, 13), 1)});
  BOOST_TEST(generic.generalize_plan(&q.kernels) == 1);
  BOOST_TEST((q.kernels[0].hash() == p.kernels[0].hash()));
  // One size alone in a fresh plan stays concrete, as before.
  GenericKernels other;
  Plan r = plan_of({ops::softmax(random_input(DType::Float32, {5, 71}, -1, 1, 14), 1)});
  BOOST_TEST(other.generalize_plan(&r.kernels) == 0);
  BOOST_TEST(!r.kernels[0].symbolic_domain());
}

BOOST_AUTO_TEST_CASE(two_sizes_of_one_structure_in_one_sync_run_correctly_through_one_compile) {
  int64_t before = counter_value("kernels_compiled") + counter_value("disk_loads");
  check_against_reference({ops::softmax(ops::mul(random_input(DType::Float32, {7, 83}, -1, 1, 21), f32(1.25)), 1),
                           ops::softmax(ops::mul(random_input(DType::Float32, {7, 89}, -1, 1, 22), f32(1.25)), 1)});
  BOOST_TEST(counter_value("kernels_compiled") + counter_value("disk_loads") - before == 1);
}

BOOST_AUTO_TEST_CASE(other_sizes_of_a_structure_within_its_first_plan_stay_specialised) {
  // Two layers of one program (not tiny: 2^17 steps and more) keep their
  // concrete kernels; a later plan with a third size is a dimension that
  // changes between runs, and goes generic.
  GenericKernels generic;
  Plan p = plan_of({ops::softmax(random_input(DType::Float32, {256, 601}, -1, 1, 31), 1),
                    ops::softmax(random_input(DType::Float32, {256, 607}, -1, 1, 32), 1)});
  BOOST_TEST_REQUIRE(p.kernels.size() == 2u);
  BOOST_TEST(generic.generalize_plan(&p.kernels) == 0);
  BOOST_TEST(!p.kernels[0].symbolic_domain());
  BOOST_TEST(!p.kernels[1].symbolic_domain());
  Plan q = plan_of({ops::softmax(random_input(DType::Float32, {256, 613}, -1, 1, 33), 1)});
  BOOST_TEST(generic.generalize_plan(&q.kernels) == 1);
  BOOST_TEST(q.kernels[0].symbolic_domain());
}

namespace {
// Off the disk cache, where an earlier run of the suite stored the kernels' compiled code.
struct NoDiskCache {
  NoDiskCache() { set_kernel_cache_config({"", 0}); }
  ~NoDiskCache() { set_kernel_cache_config(KernelCacheConfig::from_env()); }
};
}  // namespace

namespace {
// Runs `t` (its plan's generic kernels hot at their sizes) until `kernels`
// of them have been promoted specialised: the first run's values match the
// reference, and every run, before and after, gives the first run's bits.
void runs_until_specialised(const Trace& t, int64_t kernels) {
  const int64_t specialised = counter_value("kernels_specialised");
  std::vector<BufferPtr> first = run_cpu(t);
  check_outputs(evaluate_reference(t), first, [](DType d) { return Tolerance{0, rtol_for(d), 1}; });
  auto same_bits = [&](const std::vector<BufferPtr>& again) {
    for (size_t o = 0; o < first.size(); ++o)
      BOOST_TEST(std::memcmp(again[o]->data(), first[o]->data(), first[o]->nbytes()) == 0);
  };
  for (int runs = 1; runs < 20000 && counter_value("kernels_specialised") - specialised < kernels; ++runs) {
    same_bits(run_cpu(t));
    cpu_wait_for_promotions();
  }
  BOOST_TEST(counter_value("kernels_specialised") - specialised == kernels);
  same_bits(run_cpu(t));  // the specialised code
}
}  // namespace

// A generic kernel that turns out hot at one size is promoted to the full
// tier as its concrete form: code specialised to that size (literal
// extents and strides), where that form sums in the same order. Two sizes of
// one generic kernel in one sync share its quick code but are promoted
// apart, each to its own sizes; every run gives the same bits.
BOOST_AUTO_TEST_CASE(a_hot_generic_kernel_is_promoted_to_code_specialised_to_its_size) {
  NoDiskCache no_disk_cache;
  // x - sum(x) along rows (long rows, no transcendentals: the concrete and
  // the generic kernel sum in the same 64 lanes) of float64 values, where
  // another summation order would show in the bits.
  auto row_sums = [](std::vector<int64_t> lengths) {
    std::vector<NodePtr> roots;
    for (size_t i = 0; i < lengths.size(); ++i) {
      NodePtr x = ops::mul(random_input(DType::Float64, {256, lengths[i]}, -1, 1, 40 + static_cast<uint32_t>(i)),
                           ops::scalar(1.5, DType::Float64));
      roots.push_back(ops::sub(x, ops::sum(x, {1}, true)));
    }
    return capture_trace(roots).trace;
  };
  (void)run_cpu(row_sums({617}));  // the structure's first size: concrete
  Trace t = row_sums({619, 631});  // a later plan with two other sizes: both generic
  BOOST_TEST_REQUIRE(cpu_plan_for(t)->kernels.size() == 2u);
  BOOST_TEST(cpu_plan_for(t)->kernels[0].symbolic_domain());
  BOOST_TEST((cpu_plan_for(t)->kernels[0].hash() == cpu_plan_for(t)->kernels[1].hash()));
  runs_until_specialised(t, 2);
}

// A BatchNorm's statistics (x - sum over (N, H, W) per channel) at other
// widths: the concrete kernel nests its inner loops and sums runs of W in
// 16 lanes, which a generic kernel, reading its strides from arguments,
// would not derive; its structure is pinned from the concrete kernel
// (Kernel::pinned_nest, pinned_lanes), so both sum alike and the hot
// generic kernel is specialised with the same bits.
BOOST_AUTO_TEST_CASE(a_generic_kernel_sums_as_its_concrete_form_and_is_specialised) {
  NoDiskCache no_disk_cache;
  auto stats = [](std::vector<int64_t> widths) {
    std::vector<NodePtr> roots;
    for (size_t i = 0; i < widths.size(); ++i) {
      NodePtr x = random_input(DType::Float64, {32, 8, 24, widths[i]}, -1, 1, 60 + static_cast<uint32_t>(i));
      roots.push_back(ops::sub(x, ops::sum(x, {0, 2, 3}, true)));
    }
    return capture_trace(roots).trace;
  };
  (void)run_cpu(stats({24}));
  Trace t = stats({26, 28});
  std::shared_ptr<const Plan> plan = cpu_plan_for(t);
  BOOST_TEST_REQUIRE(plan->kernels.size() == 4u);  // per width: the sums, then x - sums
  size_t pinned = 0;
  for (const Kernel& k : plan->kernels) {
    BOOST_TEST(k.symbolic_domain());
    if (k.kind != KernelKind::Rows) continue;
    BOOST_TEST(k.pinned_nest == 1);
    BOOST_TEST(k.pinned_lanes == 16);
    ++pinned;
  }
  BOOST_TEST(pinned == 2u);
  runs_until_specialised(t, 4);
}

// The interpreter tier (jit/cpu/interpreter.h): a new elementwise kernel runs
// interpreted, is compiled once its launches have taken LT_INTERPRET_UP_MS,
// and every run before and after computes the same bits.
BOOST_AUTO_TEST_CASE(a_cold_elementwise_kernel_runs_in_the_interpreter_then_compiles_with_the_same_bits) {
  if (!cpu_interpreter()) return;  // LT_INTERPRETER=0
  NoDiskCache no_disk_cache;
  NodePtr x = random_input(DType::Float32, {1 << 16}, -4, 4, 91);  // small enough to interpret (interpreted_cost_ns)
  NodePtr y = ops::add(ops::mul(ops::tanh(ops::mul(x, f32(1.0625))), f32(0.75)), ops::mul(x, f32(-0.1875)));
  Trace t = capture_trace({y}).trace;
  const int64_t interpreted = counter_value("kernels_interpreted"), compiled = counter_value("kernels_compiled"),
                tiered = counter_value("kernels_tiered_up");
  std::vector<BufferPtr> first = run_cpu(t);
  BOOST_TEST(counter_value("kernels_interpreted") - interpreted == 1);
  BOOST_TEST(counter_value("kernels_compiled") == compiled);  // nothing compiled for the first run
  BOOST_TEST(counter_value("kernels_tiered_up") == tiered);   // nor at its end
  check_outputs(evaluate_reference(t), first, [](DType d) { return Tolerance{0, rtol_for(d), 1}; });
  const size_t bytes = static_cast<size_t>(first[0]->numel()) * sizeof(float);
  int runs = 1;
  for (; runs < 200 && counter_value("kernels_tiered_up") == tiered; ++runs) {
    std::vector<BufferPtr> again = run_cpu(t);
    BOOST_TEST(std::memcmp(again[0]->data(), first[0]->data(), bytes) == 0);
  }
  BOOST_TEST(counter_value("kernels_tiered_up") - tiered == 1);
  BOOST_TEST(runs >= 2);  // not within the sync that first ran it
  std::vector<BufferPtr> compiled_run = run_cpu(t);  // now the quick tier's code
  BOOST_TEST(std::memcmp(compiled_run[0]->data(), first[0]->data(), bytes) == 0);
}

// Rows kernels in the interpreter: their float sums follow the lanes the
// kernel IR fixes (codegen.h, row_lanes), so a layer norm of a GELU (short
// rows, three phases, a stashed value), a softmax over long rows and a
// column sum (the interchanged loops) each run interpreted first and give
// the same bits once compiled.
BOOST_AUTO_TEST_CASE(a_cold_rows_kernel_runs_in_the_interpreter_then_compiles_with_the_same_bits) {
  if (!cpu_interpreter()) return;  // LT_INTERPRETER=0
  NoDiskCache no_disk_cache;
  NodePtr a = random_input(DType::Float32, {40, 77}, -3, 3, 92);
  NodePtr b = random_input(DType::Float32, {6, 1000}, -3, 3, 93);
  NodePtr c = random_input(DType::Float32, {300, 24}, -3, 3, 94);
  for (NodePtr y : {ops::layer_norm(ops::gelu(a), {77}, nullptr, nullptr), ops::softmax(b, -1), ops::sum(c, {0}, false)}) {
    Trace t = capture_trace({y}).trace;
    const int64_t interpreted = counter_value("kernels_interpreted"), tiered = counter_value("kernels_tiered_up");
    std::vector<BufferPtr> first = run_cpu(t);
    BOOST_TEST(counter_value("kernels_interpreted") - interpreted >= 1);
    check_outputs(evaluate_reference(t), first, [](DType d) { return Tolerance{1e-5, rtol_for(d), 2}; });
    const size_t bytes = static_cast<size_t>(first[0]->numel()) * sizeof(float);
    // Later tier-ups compile on the background worker: each run waits for
    // it, so a loaded machine makes this slower, not a failure.
    for (int runs = 1; runs < 200 && counter_value("kernels_tiered_up") == tiered; ++runs) {
      run_cpu(t);
      cpu_wait_for_promotions();
    }
    BOOST_TEST(counter_value("kernels_tiered_up") > tiered);
    std::vector<BufferPtr> compiled_run = run_cpu(t);
    BOOST_TEST(std::memcmp(compiled_run[0]->data(), first[0]->data(), bytes) == 0);
  }
}
