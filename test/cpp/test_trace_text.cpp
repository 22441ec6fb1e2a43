// Trace text format (trace/text.h): exact round trips and helpful parse errors.
#define BOOST_TEST_MODULE trace_text
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>

#include "eval_test_util.h"
#include "ir/error.h"
#include "trace/text.h"

using namespace lt;
using namespace lt::test;

namespace {

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// A trace using attrs, aliasing, several outputs and scalars of every dtype.
CapturedTrace sample_trace() {
  NodePtr x = input(DType::Float32, {2, 3}, {1, -2, 3, 4, 5, -6});
  NodePtr w = input(DType::Float32, {3, 2}, {1, 2, 3, 4, 5, 6});
  NodePtr mm = node(Op::MatMul, DType::Float32, {2, 2}, {}, {x, w});
  NodePtr t = node(Op::Permute, DType::Float32, {2, 2}, {1, 0}, {mm});
  NodePtr scaled = node(Op::Mul, DType::Float32, {2, 2}, {}, {t, filled(0.1, DType::Float32, {2, 2})});
  NodePtr sum = node(Op::ReduceSum, DType::Float32, {2, 1}, {1}, {scaled});
  NodePtr aliased = node(Op::Add, DType::Float32, {2, 3}, {}, {x, x});
  NodePtr padded = node(Op::Pad, DType::Float32, {3, 4}, {1, 0, 0, 1}, {aliased, scalar(-0.0, DType::Float32)});
  NodePtr idx = node(Op::ArgMax, DType::Int64, {3, 1}, {1}, {padded});
  NodePtr big =
      node(Op::Add, DType::Int64, {3, 1}, {}, {idx, filled(static_cast<double>(1LL << 40), DType::Int64, {3, 1})});
  NodePtr r = node(Op::RandUniform, DType::Float64, {4}, {2}, {scalar(7, DType::Int64), scalar(3, DType::Int64)});
  NodePtr flag =
      node(Op::LogicalAnd, DType::Bool, {4}, {},
           {node(Op::Lt, DType::Bool, {4}, {}, {r, filled(0.5, DType::Float64, {4})}), filled(1, DType::Bool, {4})});
  return capture_trace({sum, big, flag, r});
}

std::string expect_parse_error(const std::string& text) {
  try {
    parse_trace(text);
  } catch (const Error& e) {
    return e.what();
  }
  BOOST_FAIL("expected a parse error");
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(round_trip_gives_the_same_hash_and_the_same_text) {
  CapturedTrace ct = sample_trace();
  std::string text = print_trace(ct.trace);
  Trace parsed = parse_trace(text);
  BOOST_TEST((parsed.hash == ct.trace.hash));
  BOOST_TEST(print_trace(parsed) == text);
  BOOST_TEST(parsed.nodes.size() == ct.trace.nodes.size());
  BOOST_TEST((parsed.outputs == ct.trace.outputs));
  BOOST_TEST(parsed.params.size() == ct.trace.params.size());
  for (const BufferPtr& p : parsed.params) BOOST_TEST(!p);
}

BOOST_AUTO_TEST_CASE(parsed_trace_computes_the_same_results_once_params_are_bound) {
  CapturedTrace ct = sample_trace();
  Trace parsed = parse_trace(print_trace(ct.trace));
  parsed.params = ct.trace.params;
  std::vector<BufferPtr> want = evaluate_reference(ct.trace), got = evaluate_reference(parsed);
  BOOST_TEST_REQUIRE(want.size() == got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST((got[i]->dtype() == want[i]->dtype()));
    BOOST_TEST_REQUIRE(got[i]->nbytes() == want[i]->nbytes());
    BOOST_TEST(std::memcmp(got[i]->data(), want[i]->data(), want[i]->nbytes()) == 0);
  }
}

BOOST_AUTO_TEST_CASE(printed_form_is_readable) {
  NodePtr x = input(DType::Float32, {4, 3}, std::vector<double>(12, 1.0));
  NodePtr y = node(Op::Add, DType::Float32, {4, 3}, {},
                   {x, node(Op::Expand, DType::Float32, {4, 3}, {},
                            {node(Op::Reshape, DType::Float32, {1, 1}, {}, {scalar(0.5, DType::Float32)})})});
  CapturedTrace ct = capture_trace({y});
  std::string want = "lazytensor-trace v2\nhash " + ct.trace.hash.hex() +
                     "\n"
                     "%0 = input f32[4, 3] param=0\n"
                     "%1 = scalar f32[] attrs=[0] value=0.5\n"
                     "%2 = reshape f32[1, 1] %1\n"
                     "%3 = expand f32[4, 3] %2\n"
                     "%4 = add f32[4, 3] %0, %3\n"
                     "outputs %4\n";
  BOOST_TEST(print_trace(ct.trace) == want);
}

BOOST_AUTO_TEST_CASE(a_scalar_operand_of_an_elementwise_op_prints_parses_and_runs) {
  // v2: the builder hands a Scalar to elementwise ops as a rank-0 operand.
  NodePtr x = input(DType::Float32, {2, 2}, {1, 2, 3, 4});
  NodePtr s = make_scalar(ScalarValue::of(0.5, DType::Float32), DType::Float32, true);
  NodePtr y = node(Op::Where, DType::Float32, {2, 2}, {},
                   {node(Op::Gt, DType::Bool, {2, 2}, {}, {x, scalar(2.5, DType::Float32)}), s,
                    node(Op::Mul, DType::Float32, {2, 2}, {}, {s, x})});
  CapturedTrace ct = capture_trace({y});
  std::string text = print_trace(ct.trace);
  BOOST_TEST(contains(text, "scalar f32[] attrs=[1] value=0.5\n"));
  BOOST_TEST(contains(text, "= mul f32[2, 2] %"));
  BOOST_TEST(!contains(text, "expand"));
  Trace parsed = parse_trace(text);
  BOOST_TEST((parsed.hash == ct.trace.hash));
  BOOST_TEST(print_trace(parsed) == text);
  parsed.params = ct.trace.params;
  BOOST_TEST((values(evaluate_reference(parsed)[0]) == std::vector<double>{0.5, 1, 0.5, 0.5}));
}

BOOST_AUTO_TEST_CASE(a_v1_trace_still_parses) {
  Trace t = parse_trace("lazytensor-trace v1\n%0 = input f64[2] param=0\n%1 = neg f64[2] %0\noutputs %1\n");
  BOOST_TEST(t.nodes.size() == 2u);
}

BOOST_AUTO_TEST_CASE(scalar_values_round_trip_bit_for_bit) {
  uint64_t payload_nan_bits = 0x7ff0000000000123ull;
  double payload_nan;
  std::memcpy(&payload_nan, &payload_nan_bits, sizeof payload_nan);
  const double floats[] = {0.1,   -0.0, 1.0 / 3.0, 5e-324,      1.7976931348623157e308,   kInf,
                           -kInf, kNaN, -kNaN,     payload_nan, static_cast<double>(0.1f)};
  for (double v : floats) {
    Trace t;
    t.nodes.push_back(TraceNode{Op::Scalar, DType::Float64, {}, {0}, {}, 0});
    t.scalars.push_back(ScalarValue{v, 0});
    t.outputs = {0};
    Trace parsed = parse_trace(print_trace(t));
    BOOST_TEST_CONTEXT(print_trace(t)) { BOOST_TEST(bits(parsed.scalars[0].f) == bits(v)); }
  }
  const int64_t ints[] = {INT64_MIN, INT64_MAX, 0, -1, (int64_t{1} << 53) + 1};
  for (int64_t v : ints) {
    Trace t;
    t.nodes.push_back(TraceNode{Op::Scalar, DType::Int64, {}, {0}, {}, 0});
    t.scalars.push_back(ScalarValue{0.0, v});
    t.outputs = {0};
    BOOST_TEST(parse_trace(print_trace(t)).scalars[0].i == v);
  }
}

BOOST_AUTO_TEST_CASE(out_of_order_scalar_params_round_trip) {
  Trace t;
  t.nodes.push_back(TraceNode{Op::Scalar, DType::Float32, {}, {0}, {}, 1});
  t.nodes.push_back(TraceNode{Op::Scalar, DType::Float32, {}, {0}, {}, 0});
  t.nodes.push_back(TraceNode{Op::Add, DType::Float32, {}, {}, {0, 1}, -1});
  t.scalars = {ScalarValue{2.0, 0}, ScalarValue{3.0, 0}};
  t.outputs = {2};
  t.hash = hash_trace(t);
  Trace parsed = parse_trace(print_trace(t));
  BOOST_TEST((parsed.hash == t.hash));
  BOOST_TEST(parsed.scalars[0].f == 2.0);
  BOOST_TEST(parsed.scalars[1].f == 3.0);
}

BOOST_AUTO_TEST_CASE(empty_and_size_zero_traces_round_trip) {
  NodePtr x = input(DType::Bool, {0, 5}, {});
  CapturedTrace ct = capture_trace({node(Op::LogicalNot, DType::Bool, {0, 5}, {}, {x})});
  Trace parsed = parse_trace(print_trace(ct.trace));
  BOOST_TEST((parsed.hash == ct.trace.hash));
  Trace empty;
  empty.hash = hash_trace(empty);
  BOOST_TEST((parse_trace(print_trace(empty)).hash == empty.hash));
}

BOOST_AUTO_TEST_CASE(comments_blank_lines_and_a_missing_hash_are_accepted) {
  Trace t = parse_trace(
      "# a hand-written trace\n"
      "lazytensor-trace v1\n"
      "\n"
      "%0 = input f64[3] param=0\n"
      "%1 = exp f64[3] %0   \n"
      "# done\n"
      "outputs %1, %0\n");
  BOOST_TEST(t.nodes.size() == 2u);
  BOOST_TEST(t.params.size() == 1u);
  t.params[0] = buffer_of(DType::Float64, {0, 1, 2});
  std::vector<BufferPtr> r = evaluate_reference(t);
  BOOST_TEST(values(r[0])[1] == std::exp(1.0));
  BOOST_TEST((values(r[1]) == std::vector<double>{0, 1, 2}));
}

BOOST_AUTO_TEST_CASE(parse_errors_name_the_line_and_what_was_expected) {
  const std::string head = "lazytensor-trace v1\n%0 = input f32[2] param=0\n";
  std::string e = expect_parse_error(head + "%1 = frobnicate f32[2] %0\noutputs %1\n");
  BOOST_TEST(contains(e, "line 3"));
  BOOST_TEST(contains(e, "frobnicate"));
  e = expect_parse_error(head + "%1 = neg f32[2] %5\noutputs %1\n");
  BOOST_TEST((contains(e, "line 3") && contains(e, "%5")));
  e = expect_parse_error(head + "%1 = add f32[2] %0\noutputs %1\n");
  BOOST_TEST((contains(e, "line 3") && contains(e, "2 inputs")));
  e = expect_parse_error(head + "%1 = neg f33[2] %0\noutputs %1\n");
  BOOST_TEST((contains(e, "line 3") && contains(e, "dtype")));
  e = expect_parse_error(head + "%1 = neg f32[2 %0\n");
  BOOST_TEST((contains(e, "line 3") && contains(e, "expected")));
  e = expect_parse_error(head);
  BOOST_TEST((contains(e, "line 3") && contains(e, "outputs")));
  e = expect_parse_error("lazytensor-trace v3\n");
  BOOST_TEST((contains(e, "line 1") && contains(e, "header")));
  e = expect_parse_error(head + "%2 = neg f32[2] %0\noutputs %2\n");
  BOOST_TEST((contains(e, "line 3") && contains(e, "%1")));
  e = expect_parse_error(head + "%1 = scalar f32[] value=abc\noutputs %1\n");
  BOOST_TEST((contains(e, "line 3") && contains(e, "abc")));
  e = expect_parse_error(head + "outputs %0\n%1 = neg f32[2] %0\n");
  BOOST_TEST(contains(e, "line 4"));
  e = expect_parse_error("lazytensor-trace v1\n%0 = input f32[2]\noutputs %0\n");
  BOOST_TEST((contains(e, "line 2") && contains(e, "param")));
}
