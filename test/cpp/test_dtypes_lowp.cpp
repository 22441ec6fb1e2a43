// test/cpp/test_dtypes_lowp.cpp — float16, bfloat16, int8, uint8 and int16:
// the evaluator's casts and rounding at the edges, integer wraparound, and
// the CPU JIT against the evaluator (fused chains as few kernels as float32's).
#define BOOST_TEST_MODULE dtypes_lowp
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>

#include "ir/lowp.h"
#include "jit_test_util.h"

using namespace lt;
using namespace lt::test;

namespace {

/// Bits of a 2-byte buffer element.
uint16_t bits16(const BufferPtr& b, int64_t i) {
  uint16_t u;
  std::memcpy(&u, static_cast<const char*>(b->data()) + 2 * i, 2);
  return u;
}

BufferPtr cast_via_evaluator(DType from, DType to, const std::vector<double>& v) {
  NodePtr x = make_input(buffer_of(from, v), Shape{static_cast<int64_t>(v.size())});
  return eval(ops::cast(x, to));
}

BufferPtr cast_via_jit(DType from, DType to, const std::vector<double>& v) {
  NodePtr x = make_input(buffer_of(from, v), Shape{static_cast<int64_t>(v.size())});
  CapturedTrace ct = capture_trace({ops::cast(x, to)});
  return run_cpu(ct.trace)[0];
}

// The narrow floats' ulp at 1: results of transcendentals may land one ulp apart
// (float32 polynomial in the JIT, double in the reference).
Tolerance narrow_tolerance(DType d) {
  if (d == DType::Float16) return {1e-4, 1.0 / 1024, 1};
  if (d == DType::BFloat16) return {1e-3, 1.0 / 128, 1};
  return {0, rtol_for(d), 1};
}

std::vector<BufferPtr> jit_and_reference(const std::vector<NodePtr>& roots, std::vector<BufferPtr>* want,
                                         const std::string& policy = "") {
  CapturedTrace ct = capture_trace(roots);
  *want = evaluate_reference(ct.trace);
  return run_cpu(ct.trace, policy);
}

void check_bit_exact(const std::vector<NodePtr>& roots) {
  std::vector<BufferPtr> want;
  std::vector<BufferPtr> got = jit_and_reference(roots, &want);
  check_outputs(want, got, [](DType) { return Tolerance{0, 0, 0}; });
}

const DType kNarrowFloats[] = {DType::Float16, DType::BFloat16};
const DType kNarrowInts[] = {DType::Int8, DType::UInt8, DType::Int16};

}  // namespace

BOOST_AUTO_TEST_CASE(dtype_names_sizes_and_categories) {
  struct Row {
    DType d;
    const char* name;
    size_t size;
    bool floating, integral;
  };
  for (const Row& r : {Row{DType::Float16, "f16", 2, true, false}, Row{DType::BFloat16, "bf16", 2, true, false},
                       Row{DType::Int8, "i8", 1, false, true}, Row{DType::UInt8, "u8", 1, false, true},
                       Row{DType::Int16, "i16", 2, false, true}}) {
    BOOST_CHECK_EQUAL(dtype_name(r.d), r.name);
    BOOST_CHECK_EQUAL(dtype_size(r.d), r.size);
    BOOST_CHECK_EQUAL(is_floating(r.d), r.floating);
    BOOST_CHECK_EQUAL(is_integral(r.d), r.integral);
    DType parsed;
    BOOST_REQUIRE(parse_dtype(r.name, &parsed));
    BOOST_CHECK(parsed == r.d);
  }
}

BOOST_AUTO_TEST_CASE(promotion_follows_torch_promote_types) {
  using D = DType;
  BOOST_CHECK(promote_types(D::Float16, D::BFloat16) == D::Float32);
  BOOST_CHECK(promote_types(D::UInt8, D::Int8) == D::Int16);
  BOOST_CHECK(promote_types(D::UInt8, D::Int16) == D::Int16);
  BOOST_CHECK(promote_types(D::UInt8, D::Int32) == D::Int32);
  BOOST_CHECK(promote_types(D::Bool, D::UInt8) == D::UInt8);
  BOOST_CHECK(promote_types(D::Int64, D::Float16) == D::Float16);
  BOOST_CHECK(promote_types(D::Int64, D::BFloat16) == D::BFloat16);
  BOOST_CHECK(promote_types(D::BFloat16, D::Float64) == D::Float64);
  BOOST_CHECK(promote_types(D::Int8, D::Int16) == D::Int16);
  // A wrapped number of the same category does not widen a narrow tensor.
  PromotionOperand u8_int[] = {{D::UInt8, OperandRank::Tensor}, {D::Int64, OperandRank::Scalar}};
  BOOST_CHECK(result_type(u8_int, 2) == D::UInt8);
  PromotionOperand f16_float[] = {{D::Float16, OperandRank::Tensor}, {D::Float64, OperandRank::Scalar}};
  BOOST_CHECK(result_type(f16_float, 2) == D::Float16);
  PromotionOperand u8_float[] = {{D::UInt8, OperandRank::Tensor}, {D::Float64, OperandRank::Scalar}};
  BOOST_CHECK(result_type(u8_float, 2) == D::Float32);
}

BOOST_AUTO_TEST_CASE(float32_to_float16_rounds_to_nearest_even_at_the_edges) {
  const double t = std::ldexp(1.0, -24);  // the smallest float16 subnormal
  std::vector<double> in = {65504.0, 65519.0,         65520.0,         1e6,          -1e6,
                            t,       0.75 * t,        0.5 * t,         1.5 * t,      2.5 * t,
                            0.25 * t, 1 + std::ldexp(1, -11), 1 + 3 * std::ldexp(1, -11), -0.0, kInf,
                            -kInf,   kNaN,            std::ldexp(1, -14), 0.1};
  std::vector<uint16_t> want = {0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0xFC00, 0x0001, 0x0001, 0x0000, 0x0002, 0x0002,
                                0x0000, 0x3C00, 0x3C02, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0400, 0x2E66};
  BufferPtr e = cast_via_evaluator(DType::Float32, DType::Float16, in);
  BufferPtr j = cast_via_jit(DType::Float32, DType::Float16, in);
  for (size_t i = 0; i < in.size(); ++i) {
    BOOST_CHECK_MESSAGE(bits16(e, i) == want[i], "evaluator f16(" << in[i] << ") = " << std::hex << bits16(e, i));
    if (std::isnan(in[i])) BOOST_CHECK((bits16(j, i) & 0x7FFF) > 0x7C00);
    else BOOST_CHECK_MESSAGE(bits16(j, i) == want[i], "jit f16(" << in[i] << ") = " << std::hex << bits16(j, i));
  }
}

BOOST_AUTO_TEST_CASE(float32_to_bfloat16_rounds_to_nearest_even_at_the_edges) {
  std::vector<double> in = {1 + std::ldexp(1, -8), 1 + 3 * std::ldexp(1, -8), 1 + 1.5 * std::ldexp(1, -8),
                            3.4028234663852886e38, -3.4028234663852886e38, std::ldexp(1, -133), -0.0, kInf, kNaN, 0.1};
  std::vector<uint16_t> want = {0x3F80, 0x3F82, 0x3F81, 0x7F80, 0xFF80, 0x0001, 0x8000, 0x7F80, 0x7FC0, 0x3DCD};
  BufferPtr e = cast_via_evaluator(DType::Float32, DType::BFloat16, in);
  BufferPtr j = cast_via_jit(DType::Float32, DType::BFloat16, in);
  for (size_t i = 0; i < in.size(); ++i) {
    BOOST_CHECK_MESSAGE(bits16(e, i) == want[i], "evaluator bf16(" << in[i] << ") = " << std::hex << bits16(e, i));
    BOOST_CHECK_MESSAGE(bits16(j, i) == want[i], "jit bf16(" << in[i] << ") = " << std::hex << bits16(j, i));
  }
}

BOOST_AUTO_TEST_CASE(narrow_floats_widen_exactly) {
  // Every float16 bit pattern: half -> float -> half is the identity (NaNs stay NaN).
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = half_bits_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    BOOST_REQUIRE_EQUAL(float_to_half_bits(f), b);
    BOOST_REQUIRE_EQUAL(float_to_bfloat16_bits(bfloat16_bits_to_float(static_cast<uint16_t>(b))),
                        (b & 0x7FFF) > 0x7F80 ? 0x7FC0u : b);
  }
}

BOOST_AUTO_TEST_CASE(float_to_narrow_int_casts_go_through_int32_as_torch_on_x86) {
  std::vector<double> in = {300.0, -1.0, -129.0, 1e10, kNaN, kInf, -1e10, 255.9, 65543.0, -0.7};
  struct Row {
    DType d;
    std::vector<double> want;
  };
  for (const Row& r : {Row{DType::UInt8, {44, 255, 127, 0, 0, 0, 0, 255, 7, 0}},
                       Row{DType::Int8, {44, -1, 127, 0, 0, 0, 0, -1, 7, 0}},
                       Row{DType::Int16, {300, -1, -129, 0, 0, 0, 0, 255, 7, 0}}}) {
    BOOST_TEST_CONTEXT(dtype_name(r.d)) {
      BOOST_CHECK(same(values(cast_via_evaluator(DType::Float32, r.d, in)), r.want));
      BOOST_CHECK(same(values(cast_via_jit(DType::Float32, r.d, in)), r.want));
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_integer_arithmetic_wraps) {
  NodePtr u = input(DType::UInt8, {4}, {200, 255, 0, 17});
  NodePtr i8 = input(DType::Int8, {4}, {127, -128, 100, -7});
  NodePtr i16 = input(DType::Int16, {4}, {32767, -32768, 300, -3});
  std::vector<NodePtr> roots = {ops::add(u, u),  ops::sub(ops::scalar_int(0, DType::UInt8), u), ops::mul(u, u),
                                ops::add(i8, ops::scalar_int(1, DType::Int8)), ops::neg(i8), ops::abs(i8),
                                ops::mul(i16, i16), ops::add(i16, ops::scalar_int(1, DType::Int16)),
                                ops::maximum(u, ops::scalar_int(100, DType::UInt8)), ops::gt(u, ops::scalar_int(128, DType::UInt8)),
                                ops::bitwise_not(u), ops::bitwise_right_shift(u, ops::scalar_int(1, DType::UInt8))};
  std::vector<std::vector<double>> want = {{144, 254, 0, 34},          {56, 1, 0, 239},      {64, 1, 0, 33},
                                           {-128, -127, 101, -6},      {-127, -128, -100, 7}, {127, -128, 100, 7},
                                           {1, 0, 24464, 9},           {-32768, -32767, 301, -2},
                                           {200, 255, 100, 100},       {1, 1, 0, 0},
                                           {55, 0, 255, 238},          {100, 127, 0, 8}};
  std::vector<BufferPtr> ref = eval_all(roots);
  CapturedTrace ct = capture_trace(roots);
  std::vector<BufferPtr> jit = run_cpu(ct.trace);
  for (size_t k = 0; k < roots.size(); ++k) {
    BOOST_TEST_CONTEXT("root " << k) {
      BOOST_CHECK(same(values(ref[k]), want[k]));
      BOOST_CHECK(same(values(jit[k]), want[k]));
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_float_arithmetic_chain_matches_the_evaluator_bit_for_bit) {
  // +, -, *, / and sqrt round once per primitive in both (double rounding through float is exact).
  for (DType d : kNarrowFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = random_input(d, {1000}, -100, 100, 3), y = random_input(d, {1000}, 0.5, 4, 4);
      NodePtr z = ops::sub(ops::div(ops::add(ops::mul(x, y), x), y), ops::sqrt(y));
      check_bit_exact({z, ops::mul(x, ops::scalar(1e4, d))});  // the second overflows to inf in float16
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_float_chains_fuse_into_as_many_kernels_as_float32) {
  auto chain = [](DType d) {
    NodePtr x = random_input(d, {4096}, -3, 3, 5);
    return std::vector<NodePtr>{ops::tanh(ops::add(ops::mul(ops::exp(ops::neg(x)), x), ops::scalar(0.5, d)))};
  };
  size_t f32 = kernel_count(chain(DType::Float32));
  for (DType d : {DType::Float16, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16}) {
    if (is_narrow_int(d)) continue;  // exp of an integer casts to f32 first: another chain
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      BOOST_CHECK_EQUAL(kernel_count(chain(d)), f32);
      std::vector<BufferPtr> want;
      std::vector<BufferPtr> got = jit_and_reference(chain(d), &want);
      check_outputs(want, got, narrow_tolerance);
    }
  }
  for (DType d : kNarrowInts) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      auto int_chain = [](DType t) {
        NodePtr x = random_input(t, {4096}, -60, 60, 6);
        return std::vector<NodePtr>{ops::bitwise_xor(ops::add(ops::mul(x, x), ops::scalar_int(3, t)), x)};
      };
      BOOST_CHECK_EQUAL(kernel_count(int_chain(d)), kernel_count(int_chain(DType::Int32)));
      check_bit_exact(int_chain(d));
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_float_transcendentals_match_within_one_ulp) {
  for (DType d : kNarrowFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = random_input(d, {2000}, -4, 4, 7);
      NodePtr p = random_input(d, {2000}, 0.1, 8, 8);
      std::vector<NodePtr> roots = {ops::exp(x), ops::log(p), ops::tanh(x), ops::sigmoid(x), ops::erf(x), ops::sin(x),
                                    ops::pow(p, x), ops::gelu(x, false)};
      std::vector<BufferPtr> want;
      std::vector<BufferPtr> got = jit_and_reference(roots, &want);
      check_outputs(want, got, narrow_tolerance);
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_float_reductions_accumulate_wide) {
  for (DType d : kNarrowFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = random_input(d, {64, 300}, -2, 2, 9);
      NodePtr big = ops::full(Shape{20000}, 10.0, d);  // a float16 sum overflows; the mean must not
      std::vector<NodePtr> roots = {ops::sum(x, {1}, false), ops::mean(x, {0}, false), ops::amax(x, {1}, false),
                                    ops::mean(big, {0}, false), ops::softmax(x, 1), ops::var(x, {1}, 1, false)};
      std::vector<BufferPtr> want;
      std::vector<BufferPtr> got = jit_and_reference(roots, &want);
      check_outputs(want, got, narrow_tolerance);
      BOOST_CHECK_EQUAL(values(got[3])[0], 10.0);
      BOOST_CHECK(got[0]->dtype() == d && got[4]->dtype() == d);
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_matmul_widens_and_rounds_once) {
  for (DType d : kNarrowFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr a = random_input(d, {33, 70}, -1, 1, 10), b = random_input(d, {70, 17}, -1, 1, 11);
      std::vector<BufferPtr> want;
      std::vector<BufferPtr> got = jit_and_reference({ops::matmul(a, b)}, &want);
      BOOST_CHECK(got[0]->dtype() == d);
      check_outputs(want, got, narrow_tolerance);
    }
  }
  for (DType d : kNarrowInts) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr a = random_input(d, {9, 40}, -100, 100, 12), b = random_input(d, {40, 5}, -100, 100, 13);
      check_bit_exact({ops::matmul(a, b)});
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_values_through_views_and_indexing) {
  for (DType d : {DType::Float16, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16}) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = random_input(d, {6, 10}, -50, 50, 14);
      NodePtr idx = make_input(buffer_of(DType::Int64, {5, 0, 3}), Shape{3});
      std::vector<NodePtr> roots = {ops::permute(x, {1, 0}), ops::flip(x, {1}), ops::index_select(x, 0, idx),
                                    ops::cat({x, x}, 1), ops::where(ops::gt(x, ops::scalar_int(0, d)), x, ops::neg(x))};
      check_bit_exact(roots);
    }
  }
}

BOOST_AUTO_TEST_CASE(narrow_float_scatter_add_rounds_after_every_add_as_torch) {
  // torch.zeros(1, dtype=float16).scatter_add(0, zeros(3), [1000, 0.001, -1000]) is 0: each add rounds into
  // float16, which cannot hold 1000.001. The reference defines it so, and the backend (one AccumStore per
  // value, serial) agrees bit for bit; accumulating wide would give 0.001.
  for (DType d : kNarrowFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = make_input(buffer_of(d, {0.0}), Shape{1});
      NodePtr src = make_input(buffer_of(d, {1000.0, 0.001, -1000.0}), Shape{3});
      NodePtr index = make_input(buffer_of(DType::Int64, {0, 0, 0}), Shape{3});
      NodePtr y = ops::scatter_add(x, 0, index, src);
      std::vector<BufferPtr> want;
      std::vector<BufferPtr> got = jit_and_reference({y}, &want);
      BOOST_TEST(bits16(want[0], 0) == 0u);
      BOOST_TEST(bits16(got[0], 0) == 0u);
      // Large random scatters: the same bits too.
      NodePtr big = random_input(d, {7, 2}, -3, 3, 41);
      NodePtr big_src = random_input(d, {7, 6}, -500, 500, 42);
      NodePtr big_index = random_input(DType::Int64, {7, 6}, 0, 2, 43);
      check_bit_exact({ops::scatter_add(big, 1, big_index, big_src)});
    }
  }
}
