// The integer bitwise and shift primitives (ir/ops.def): the reference
// evaluator's values, the cpu backend against it, the C++ API and operators,
// dtype rules and the text format. Python differential tests against PyTorch:
// test/python/test_bitwise.py.
#define BOOST_TEST_MODULE bitwise
#include "ir/evaluator.h"
#include "jit_test_util.h"
#include "lazy/tensor.h"
#include "trace/capture.h"
#include "trace/text.h"

using namespace lt;
using namespace lt::test;

namespace {
const DType kIntegers[] = {DType::Int32, DType::Int64};
const int64_t kSizes[] = {0, 1, 7, 1023};

std::vector<double> reference(const NodePtr& root) {
  CapturedTrace ct = capture_trace({root});
  return values(evaluate_reference(ct.trace)[0]);
}

Tensor i64_tensor(const std::vector<int64_t>& v) { return Tensor::from_vector(v, {static_cast<int64_t>(v.size())}); }
Tensor i32_tensor(const std::vector<int32_t>& v) { return Tensor::from_vector(v, {static_cast<int64_t>(v.size())}); }
Tensor bool_tensor(const std::vector<bool>& v) { return Tensor::from_vector(v, {static_cast<int64_t>(v.size())}); }
}  // namespace

BOOST_AUTO_TEST_CASE(reference_and_or_xor_not_of_integers) {
  for (DType d : kIntegers) {
    NodePtr a = input(d, {4}, {12, -1, 0, -8}), b = input(d, {4}, {10, 5, 7, 3});
    BOOST_TEST((reference(ops::bitwise_and(a, b)) == std::vector<double>{8, 5, 0, 0}));
    BOOST_TEST((reference(ops::bitwise_or(a, b)) == std::vector<double>{14, -1, 7, -5}));
    BOOST_TEST((reference(ops::bitwise_xor(a, b)) == std::vector<double>{6, -6, 7, -5}));
    BOOST_TEST((reference(ops::bitwise_not(a)) == std::vector<double>{-13, 0, -1, 7}));
  }
}

BOOST_AUTO_TEST_CASE(reference_bitwise_ops_of_bools_are_logical) {
  NodePtr a = input(DType::Bool, {4}, {0, 0, 1, 1}), b = input(DType::Bool, {4}, {0, 1, 0, 1});
  BOOST_CHECK(ops::bitwise_and(a, b)->dtype == DType::Bool);
  BOOST_TEST((reference(ops::bitwise_and(a, b)) == std::vector<double>{0, 0, 0, 1}));
  BOOST_TEST((reference(ops::bitwise_or(a, b)) == std::vector<double>{0, 1, 1, 1}));
  BOOST_TEST((reference(ops::bitwise_xor(a, b)) == std::vector<double>{0, 1, 1, 0}));
  BOOST_TEST((reference(ops::bitwise_not(a)) == std::vector<double>{1, 1, 0, 0}));
}

BOOST_AUTO_TEST_CASE(reference_shifts_are_arithmetic_and_defined_out_of_range) {
  // In range as torch; an amount < 0 or >= the width gives 0 for << and the
  // sign for >> (torch 2's definition; torch 1.13 leaves it to the hardware).
  NodePtr a = input(DType::Int32, {6}, {5, -5, 1, -1, 3, -7}), s = input(DType::Int32, {6}, {1, 1, 31, 40, -1, 2});
  BOOST_TEST((reference(ops::bitwise_left_shift(a, s)) == std::vector<double>{10, -10, -2147483648.0, 0, 0, -28}));
  BOOST_TEST((reference(ops::bitwise_right_shift(a, s)) == std::vector<double>{2, -3, 0, -1, 0, -2}));
  NodePtr b = input(DType::Int64, {3}, {1, -1, 6}), t = input(DType::Int64, {3}, {63, 64, 1});
  BOOST_TEST((reference(ops::bitwise_left_shift(b, t)) == std::vector<double>{-9223372036854775808.0, 0, 12}));
  BOOST_TEST((reference(ops::bitwise_right_shift(b, t)) == std::vector<double>{0, -1, 3}));
}

BOOST_AUTO_TEST_CASE(cpu_matches_reference_for_every_integer_dtype_and_size) {
  for (DType d : {DType::Bool, DType::Int32, DType::Int64})
    for (int64_t n : kSizes) {
      NodePtr a = random_input(d, {n}, -100, 100, 3), b = random_input(d, {n}, -100, 100, 4);
      check_against_reference({ops::bitwise_and(a, b), ops::bitwise_or(a, b), ops::bitwise_xor(a, b),
                               ops::bitwise_not(a)});
      if (d == DType::Bool) continue;
      NodePtr s = random_input(d, {n}, -3, 70, 5);  // in and out of range
      check_against_reference({ops::bitwise_left_shift(a, s), ops::bitwise_right_shift(a, s)});
    }
}

BOOST_AUTO_TEST_CASE(cpu_matches_reference_broadcast_with_scalars_and_fused) {
  for (DType d : kIntegers) {
    NodePtr a = random_input(d, {5, 33}, -1000, 1000, 6), row = random_input(d, {33}, 0, 20, 7);
    NodePtr three = ops::scalar_int(3, DType::Int64);
    NodePtr y = ops::bitwise_xor(ops::bitwise_left_shift(a, three), ops::bitwise_right_shift(a, row));
    BOOST_TEST(check_against_reference({ops::sum(ops::bitwise_and(y, ops::bitwise_not(row)), {1})}) == 1u);
  }
}

BOOST_AUTO_TEST_CASE(dtype_rules_promote_and_reject_floats) {
  NodePtr i32 = input(DType::Int32, {2}, {1, 2}), i64 = input(DType::Int64, {2}, {1, 2});
  NodePtr f = input(DType::Float32, {2}, {1, 2}), b = input(DType::Bool, {2}, {0, 1});
  BOOST_CHECK(ops::bitwise_and(i32, i64)->dtype == DType::Int64);
  BOOST_CHECK(ops::bitwise_or(i32, ops::scalar_int(7, DType::Int64))->dtype == DType::Int32);  // a number ranks lower
  BOOST_CHECK(ops::bitwise_xor(b, i32)->dtype == DType::Int32);
  BOOST_CHECK_THROW(ops::bitwise_and(f, i32), Error);
  BOOST_CHECK_THROW(ops::bitwise_not(f), Error);
  BOOST_CHECK_THROW(ops::bitwise_left_shift(b, b), Error);  // shifts take integers only, as torch
  BOOST_CHECK_THROW(ops::bitwise_right_shift(i32, ops::scalar(1.5, DType::Float64)), Error);
}

BOOST_AUTO_TEST_CASE(tensor_functions_and_operators) {
  Tensor a = i64_tensor({12, -1, 0, -8}), b = i64_tensor({10, 5, 7, 3});
  BOOST_TEST((lt::bitwise_and(a, b).to_vector<int64_t>() == std::vector<int64_t>{8, 5, 0, 0}));
  BOOST_TEST(((a & b).to_vector<int64_t>() == std::vector<int64_t>{8, 5, 0, 0}));
  BOOST_TEST(((a | b).to_vector<int64_t>() == std::vector<int64_t>{14, -1, 7, -5}));
  BOOST_TEST(((a ^ b).to_vector<int64_t>() == std::vector<int64_t>{6, -6, 7, -5}));
  BOOST_TEST(((~a).to_vector<int64_t>() == std::vector<int64_t>{-13, 0, -1, 7}));
  BOOST_TEST(((a << 2).to_vector<int64_t>() == std::vector<int64_t>{48, -4, 0, -32}));
  BOOST_TEST(((a >> 2).to_vector<int64_t>() == std::vector<int64_t>{3, -1, 0, -2}));
  BOOST_TEST(((1 << i64_tensor({0, 3})).to_vector<int64_t>() == std::vector<int64_t>{1, 8}));
  BOOST_TEST(((6 & a).to_vector<int64_t>() == std::vector<int64_t>{4, 6, 0, 0}));
  Tensor c = i32_tensor({1, 2});
  BOOST_CHECK((c | 4).dtype() == DType::Int32);
  Tensor p = bool_tensor({true, false}), q = bool_tensor({true, true});
  BOOST_TEST(((p ^ q).to_vector<bool>() == std::vector<bool>{false, true}));
  BOOST_TEST(((~p).to_vector<bool>() == std::vector<bool>{false, true}));
  BOOST_CHECK_THROW(lt::bitwise_and(Tensor::from_vector(std::vector<float>{1.0f}, {1}), c), Error);
}

BOOST_AUTO_TEST_CASE(text_format_round_trips_bitwise_ops) {
  NodePtr a = input(DType::Int64, {3}, {1, 2, 3}), s = input(DType::Int64, {3}, {0, 1, 2});
  NodePtr y = ops::bitwise_or(ops::bitwise_left_shift(a, s),
                              ops::bitwise_xor(ops::bitwise_right_shift(a, s), ops::bitwise_not(ops::bitwise_and(a, s))));
  CapturedTrace ct = capture_trace({y});
  std::string text = print_trace(ct.trace);
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right"})
    BOOST_TEST(text.find(name) != std::string::npos, name);
  Trace back = parse_trace(text);
  BOOST_TEST(print_trace(back) == text);
  BOOST_CHECK(hash_trace(back) == hash_trace(ct.trace));
}
