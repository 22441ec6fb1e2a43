// The fixed-seed differential fuzz budget of `make test`, and the replay of
// every shrunk failure kept in test/data/fuzz (each was a real bug).
#define BOOST_TEST_MODULE fuzz
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "ir/builder.h"
#include "ir/error.h"
#include "ir/evaluator.h"
#include "scheduler/fusion.h"
#include "scheduler/plan.h"
#include "tools/fuzz/fuzz.h"
#include "trace/capture.h"
#if LT_HAVE_CPU_JIT
#include "runtime/cpu_backend.h"
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

// Backends for the check below: the reference evaluator with every runtime
// float scalar multiplied by `factor` (only in single-output traces when
// `single_output_only`, as a fused kernel that differs from the unfused ones).
namespace {
class ScaledScalars : public Backend {
 public:
  ScaledScalars(double factor, bool single_output_only) : factor_(factor), single_output_only_(single_output_only) {}
  std::string_view name() const override { return "scaled-scalars"; }
  std::vector<BufferPtr> run(const Trace& trace, const RunOptions&) override {
    Trace t = trace;
    if (!single_output_only_ || t.outputs.size() == 1)
      for (ScalarValue& s : t.scalars) s.f *= factor_;
    return evaluate_reference(t);
  }

 private:
  double factor_;
  bool single_output_only_;
};
}  // namespace

// (a - b s) / c with a = b, s = 1 and zeros in c: the reference gives 0/0 =
// NaN; a backend one ulp off in s gives -2^-52/0 = -inf. compare() accepts
// that (each op is right on its operands, the operands agree to tolerance:
// rounding explains it; the fuzzer reported such a case at seed 95179), but
// not a wrong op, nor a one-output run that differs from the same ops run
// with every node an output.
BOOST_AUTO_TEST_CASE(a_mismatch_only_rounding_explains_is_not_reported) {
  auto buffer = [](std::vector<double> v) {
    BufferPtr b = make_buffer(DType::Float64, static_cast<int64_t>(v.size()));
    for (size_t i = 0; i < v.size(); ++i) b->as<double>()[i] = v[i];
    return b;
  };
  NodePtr a = make_input(buffer({1, 2, 3, 4}), {4}), b = make_input(buffer({1, 2, 3, 4}), {4});
  NodePtr c = make_input(buffer({0, 0, 1, 0}), {4});
  NodePtr s = make_scalar(ScalarValue::of(1.0, DType::Float64), DType::Float64, false);
  NodePtr y = ops::div(ops::sub(a, ops::mul(b, s)), c);
  Trace t = capture_trace({y}).trace;
  BOOST_TEST_REQUIRE(t.scalars.size() == 1u);
  const double ulp = 1 + std::ldexp(1.0, -52);
  std::vector<BufferPtr> off = ScaledScalars(ulp, false).run(t, {});
  BOOST_TEST_REQUIRE(std::isinf(off[0]->as<double>()[0]));  // the premise: -inf where the reference has NaN
  BOOST_TEST_REQUIRE(std::isnan(evaluate_reference(t)[0]->as<double>()[0]));
  ScaledScalars rounding(ulp, false), wrong(2.0, false), fused_differs(ulp, true);
  BOOST_TEST(!fuzz::compare(t, rounding, "none").has_value());
  BOOST_TEST(fuzz::compare(t, wrong, "none").has_value());
  BOOST_TEST(fuzz::compare(t, fused_differs, "none").has_value());
}

// The reference evaluator with `delta` added to every float output element.
namespace {
class Offset : public Backend {
 public:
  explicit Offset(double delta) : delta_(delta) {}
  std::string_view name() const override { return "offset"; }
  std::vector<BufferPtr> run(const Trace& trace, const RunOptions&) override {
    std::vector<BufferPtr> out = evaluate_reference(trace);
    for (BufferPtr& b : out)
      if (b->dtype() == DType::Float32)
        for (int64_t i = 0; i < b->numel(); ++i) b->as<float>()[i] += static_cast<float>(delta_);
    return out;
  }

 private:
  double delta_;
};
}  // namespace

// A dot product whose terms cancel (2040 - 969 - 1071 = -1.8e-4): a float32
// backend may be off by ~K eps sum|terms| (7e-4 here: the JIT's FMAs give
// -7.2e-5), far beyond the output's scale. compare() allows that for sums
// (fuzz seed 205014), not more, and not for other ops.
BOOST_AUTO_TEST_CASE(a_sum_of_cancelling_terms_gets_its_rounding_bound) {
  auto buffer = [](std::vector<float> v) {
    BufferPtr b = make_buffer(DType::Float32, static_cast<int64_t>(v.size()));
    for (size_t i = 0; i < v.size(); ++i) b->as<float>()[i] = v[i];
    return b;
  };
  NodePtr a = make_input(buffer({-96.37737f, -96.37737f, -96.37737f}), {1, 3});
  NodePtr b = make_input(buffer({-21.165726f, 10.057031f, 11.108697f}), {3, 1});
  Trace dot = capture_trace({ops::matmul(a, b)}).trace;
  Trace add = capture_trace({ops::add(ops::reshape(a, {3}), ops::reshape(b, {3}))}).trace;
  Offset small(3e-4), big(1e-2), off_add(3e-1);
  BOOST_TEST(!fuzz::compare(dot, small, "default").has_value());
  BOOST_TEST(fuzz::compare(dot, big, "default").has_value());
  BOOST_TEST(fuzz::compare(add, off_add, "default").has_value());
  // The same terms added into one element by scatter_add (fuzz seed 508704).
  BufferPtr idx = make_buffer(DType::Int64, 3);
  for (int i = 0; i < 3; ++i) idx->as<int64_t>()[i] = 0;
  NodePtr terms = make_input(buffer({2039.897f, -969.2702f, -1070.627f}), {3});
  Trace scatter = capture_trace({ops::scatter_add(make_input(buffer({0.0f}), {1}), 0, make_input(idx, {3}), terms)}).trace;
  BOOST_TEST(!fuzz::compare(scatter, small, "default").has_value());
  BOOST_TEST(fuzz::compare(scatter, big, "default").has_value());
}

BOOST_AUTO_TEST_CASE(generated_programs_compute_in_every_narrow_dtype) {
  // The fixed seeds must exercise float16, bfloat16, int8, uint8 and int16 beyond their inputs:
  // elementwise ops and reductions whose result has the narrow dtype.
  const DType narrow[] = {DType::Float16, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16};
  int elementwise[5] = {0}, reductions[5] = {0};
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Trace t = capture_trace(fuzz::generate(seed).roots).trace;
    for (const TraceNode& n : t.nodes) {
      for (int k = 0; k < 5; ++k) {
        if (n.dtype != narrow[k]) continue;
        OpKind kind = op_info(n.op).kind;
        elementwise[k] += kind == OpKind::Unary || kind == OpKind::Binary || kind == OpKind::Ternary;
        reductions[k] += kind == OpKind::Reduce;
      }
    }
  }
  for (int k = 0; k < 5; ++k) {
    BOOST_TEST_CONTEXT(dtype_name(narrow[k])) {
      BOOST_TEST_MESSAGE(dtype_name(narrow[k]) << ": " << elementwise[k] << " elementwise, " << reductions[k] << " reductions");
      BOOST_CHECK_GT(elementwise[k], 20);
      BOOST_CHECK_GT(reductions[k], 0);  // integer sums are i64: only max/min keep a narrow int
    }
  }
}

// The fixed seeds exercise the three convolution primitives (generate.cpp,
// conv_step), forward and through autograd, and as MatMul kernels packed by conv_pack.
BOOST_AUTO_TEST_CASE(generated_programs_convolve) {
  int count[3] = {0, 0, 0}, in_gradient_programs = 0, conv_kernels = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    fuzz::Program p = fuzz::generate(seed);
    Trace t = capture_trace(p.roots).trace;
    bool any = false;
    for (const TraceNode& n : t.nodes) {
      int k = n.op == Op::Conv ? 0 : n.op == Op::ConvInputGrad ? 1 : n.op == Op::ConvWeightGrad ? 2 : -1;
      if (k < 0) continue;
      ++count[k];
      any = true;
    }
    in_gradient_programs += any && p.gradients;
    if (!any) continue;
    try {
      for (const Kernel& k : schedule(t, fusion_policy("default")).kernels) conv_kernels += k.mm_conv.valid();
    } catch (const Error&) {
      // A program that raises (its reference raises too: the fuzzer compares the errors).
    }
  }
  BOOST_TEST_MESSAGE("conv " << count[0] << ", conv_input_grad " << count[1] << ", conv_weight_grad " << count[2]
                             << ", in gradient programs " << in_gradient_programs << ", conv kernels " << conv_kernels);
  BOOST_TEST(count[0] > 10);
  BOOST_TEST(count[1] > 5);
  BOOST_TEST(count[2] > 5);
  BOOST_TEST(in_gradient_programs > 3);
  BOOST_TEST(conv_kernels > 10);
}
