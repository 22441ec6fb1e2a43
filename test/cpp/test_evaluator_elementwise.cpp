// Reference evaluator: sources and elementwise primitives, every dtype.
#define BOOST_TEST_MODULE evaluator_elementwise
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "eval_test_util.h"
#include "ir/counters.h"
#include "ir/error.h"

using namespace lt;
using namespace lt::test;

namespace {

/// Evaluates a unary op on a [n] input of `dtype`.
std::vector<double> unary(Op op, DType dtype, const std::vector<double>& x, DType out_dtype) {
  NodePtr in = input(dtype, {static_cast<int64_t>(x.size())}, x);
  return values(eval(node(op, out_dtype, in->shape, {}, {in})));
}
std::vector<double> unary(Op op, DType dtype, const std::vector<double>& x) { return unary(op, dtype, x, dtype); }

std::vector<double> binary(Op op, DType dtype, const std::vector<double>& x, const std::vector<double>& y,
                           DType out_dtype) {
  Shape s{static_cast<int64_t>(x.size())};
  NodePtr a = input(dtype, s, x), b = input(dtype, s, y);
  return values(eval(node(op, out_dtype, s, {}, {a, b})));
}
std::vector<double> binary(Op op, DType dtype, const std::vector<double>& x, const std::vector<double>& y) {
  return binary(op, dtype, x, y, dtype);
}

/// f computed in double, rounded to dtype: the evaluator's contract for floats.
template <typename F>
std::vector<double> expected(DType dtype, const std::vector<double>& x, F f) {
  std::vector<double> out;
  for (double v : x) {
    double in = dtype == DType::Float32 ? static_cast<float>(v) : v;
    double r = f(in);
    out.push_back(dtype == DType::Float32 ? static_cast<float>(r) : r);
  }
  return out;
}

const std::vector<double> kSamples{-2.5, -1.0, -0.3, 0.0, 0.1, 0.7, 1.0, 3.25, 10.0};
const std::vector<double> kPositive{1e-6, 0.1, 0.5, 1.0, 2.0, 3.25, 100.0};

}  // namespace

BOOST_AUTO_TEST_CASE(input_returns_the_bound_buffer_contents_as_a_copy) {
  NodePtr in = input(DType::Float32, {3}, {1, 2, 3});
  BufferPtr out = eval(in);
  BOOST_TEST((values(out) == std::vector<double>{1, 2, 3}));
  BOOST_TEST(out.get() != in->buffer.get());  // the caller owns what it gets
}

BOOST_AUTO_TEST_CASE(scalar_takes_its_value_from_the_trace_and_its_dtype) {
  BOOST_TEST(values(eval(scalar(0.1, DType::Float32)))[0] == static_cast<double>(0.1f));
  BOOST_TEST(values(eval(scalar(0.1, DType::Float64)))[0] == 0.1);
  BOOST_TEST(values(eval(scalar(-7, DType::Int32)))[0] == -7);
  BOOST_TEST(values(eval(scalar(3, DType::Bool)))[0] == 1);
  NodePtr big = make_scalar(ScalarValue{0.0, INT64_MAX}, DType::Int64, false);
  BOOST_TEST(ints(eval(big))[0] == INT64_MAX);
}

BOOST_AUTO_TEST_CASE(scalar_values_are_runtime_parameters_of_the_trace) {
  NodePtr s = scalar(2.0, DType::Float64);
  NodePtr x = input(DType::Float64, {2}, {1, 2});
  NodePtr y = node(Op::Mul, DType::Float64, {2}, {},
                   {x, node(Op::Expand, DType::Float64, {2}, {}, {node(Op::Reshape, DType::Float64, {1}, {}, {s})})});
  CapturedTrace ct = capture_trace({y});
  ct.trace.scalars[0].f = 10.0;
  BOOST_TEST((values(evaluate_reference(ct.trace)[0]) == std::vector<double>{10, 20}));
}

BOOST_AUTO_TEST_CASE(iota_counts_along_its_axis) {
  BOOST_TEST((values(eval(node(Op::Iota, DType::Int64, {2, 3}, {1}, {}))) == std::vector<double>{0, 1, 2, 0, 1, 2}));
  BOOST_TEST((values(eval(node(Op::Iota, DType::Float32, {2, 3}, {0}, {}))) == std::vector<double>{0, 0, 0, 1, 1, 1}));
  BOOST_TEST(eval(node(Op::Iota, DType::Int64, {0, 3}, {0}, {}))->numel() == 0);
}

BOOST_AUTO_TEST_CASE(float_unary_ops_compute_in_double_and_round_to_the_dtype) {
  struct Case {
    Op op;
    double (*f)(double);
    const std::vector<double>* domain;
  };
  const Case cases[] = {
      {Op::Exp, [](double v) { return std::exp(v); }, &kSamples},
      {Op::Log, [](double v) { return std::log(v); }, &kPositive},
      {Op::Log1p, [](double v) { return std::log1p(v); }, &kPositive},
      {Op::Expm1, [](double v) { return std::expm1(v); }, &kSamples},
      {Op::Sqrt, [](double v) { return std::sqrt(v); }, &kPositive},
      {Op::Sin, [](double v) { return std::sin(v); }, &kSamples},
      {Op::Cos, [](double v) { return std::cos(v); }, &kSamples},
      {Op::Tanh, [](double v) { return std::tanh(v); }, &kSamples},
      {Op::Erf, [](double v) { return std::erf(v); }, &kSamples},
      {Op::Neg, [](double v) { return -v; }, &kSamples},
      {Op::Abs, [](double v) { return std::fabs(v); }, &kSamples},
      {Op::Floor, [](double v) { return std::floor(v); }, &kSamples},
      {Op::Ceil, [](double v) { return std::ceil(v); }, &kSamples},
      {Op::Detach, [](double v) { return v; }, &kSamples},
  };
  for (DType dt : {DType::Float32, DType::Float64}) {
    for (const Case& c : cases) {
      BOOST_TEST_CONTEXT(op_name(c.op) << " " << dtype_name(dt)) {
        BOOST_TEST(same(unary(c.op, dt, *c.domain), expected(dt, *c.domain, c.f)));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(log_of_zero_and_negative_follow_ieee) {
  auto r = unary(Op::Log, DType::Float32, {0.0, -1.0});
  BOOST_TEST(r[0] == -kInf);
  BOOST_TEST(std::isnan(r[1]));
}

BOOST_AUTO_TEST_CASE(round_is_half_to_even) {
  BOOST_TEST((unary(Op::Round, DType::Float32, {0.5, 1.5, 2.5, -0.5, -2.5, 2.6}) ==
              std::vector<double>{0, 2, 2, -0.0, -2, 3}));
}

BOOST_AUTO_TEST_CASE(sign_of_nan_is_zero_like_torch) {
  auto r = unary(Op::Sign, DType::Float64, {kNaN, -0.0, 2.0, -3.0, kInf});
  BOOST_TEST((r == std::vector<double>{0, 0, 1, -1, 1}));
  BOOST_TEST(!std::signbit(r[1]));
}

BOOST_AUTO_TEST_CASE(integer_unary_ops_are_exact_and_wrap) {
  for (DType dt : {DType::Int32, DType::Int64}) {
    BOOST_TEST((unary(Op::Neg, dt, {-3, 0, 5}) == std::vector<double>{3, 0, -5}));
    BOOST_TEST((unary(Op::Abs, dt, {-3, 0, 5}) == std::vector<double>{3, 0, 5}));
    BOOST_TEST((unary(Op::Sign, dt, {-3, 0, 5}) == std::vector<double>{-1, 0, 1}));
    BOOST_TEST((unary(Op::Floor, dt, {-3, 7}) == std::vector<double>{-3, 7}));
    BOOST_TEST((unary(Op::Round, dt, {-3, 7}) == std::vector<double>{-3, 7}));
  }
  NodePtr x = make_input(buffer_of_i64({INT64_MIN, INT64_MAX, (int64_t{1} << 53) + 1}), {3});
  BOOST_TEST((ints(eval(node(Op::Abs, DType::Int64, {3}, {}, {x}))) ==
              std::vector<int64_t>{INT64_MIN, INT64_MAX, (int64_t{1} << 53) + 1}));
  BOOST_TEST((ints(eval(node(Op::Neg, DType::Int64, {3}, {}, {x}))) ==
              std::vector<int64_t>{INT64_MIN, -INT64_MAX, -((int64_t{1} << 53) + 1)}));
}

BOOST_AUTO_TEST_CASE(transcendentals_on_integers_are_type_errors) {
  try {
    unary(Op::Exp, DType::Int64, {1});
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Type));
    BOOST_TEST(std::string(e.what()).find("exp") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(predicates_output_bool_and_treat_nonzero_as_true) {
  BOOST_TEST((unary(Op::IsNan, DType::Float32, {kNaN, 1.0, kInf}, DType::Bool) == std::vector<double>{1, 0, 0}));
  BOOST_TEST((unary(Op::IsNan, DType::Int64, {1, 0}, DType::Bool) == std::vector<double>{0, 0}));
  BOOST_TEST((unary(Op::LogicalNot, DType::Float32, {kNaN, 0.0, -2.0}, DType::Bool) == std::vector<double>{0, 1, 0}));
  BOOST_TEST((unary(Op::LogicalNot, DType::Int32, {0, 7}, DType::Bool) == std::vector<double>{1, 0}));
  BOOST_TEST((unary(Op::LogicalNot, DType::Bool, {0, 1}, DType::Bool) == std::vector<double>{1, 0}));
  BOOST_TEST((binary(Op::LogicalAnd, DType::Float64, {0, 1, 2, kNaN}, {1, 0, 3, 1}, DType::Bool) ==
              std::vector<double>{0, 0, 1, 1}));
  BOOST_TEST((binary(Op::LogicalOr, DType::Int64, {0, 0, 5}, {0, 4, 0}, DType::Bool) == std::vector<double>{0, 1, 1}));
  BOOST_TEST((binary(Op::LogicalAnd, DType::Bool, {0, 1, 1}, {1, 0, 1}, DType::Bool) == std::vector<double>{0, 0, 1}));
}

BOOST_AUTO_TEST_CASE(comparisons_with_nan_are_false_except_ne) {
  const std::vector<double> a{kNaN, 1, 1, 2}, b{kNaN, 1, 2, 1};
  for (DType dt : {DType::Float32, DType::Float64}) {
    BOOST_TEST((binary(Op::Eq, dt, a, b, DType::Bool) == std::vector<double>{0, 1, 0, 0}));
    BOOST_TEST((binary(Op::Ne, dt, a, b, DType::Bool) == std::vector<double>{1, 0, 1, 1}));
    BOOST_TEST((binary(Op::Lt, dt, a, b, DType::Bool) == std::vector<double>{0, 0, 1, 0}));
    BOOST_TEST((binary(Op::Le, dt, a, b, DType::Bool) == std::vector<double>{0, 1, 1, 0}));
    BOOST_TEST((binary(Op::Gt, dt, a, b, DType::Bool) == std::vector<double>{0, 0, 0, 1}));
    BOOST_TEST((binary(Op::Ge, dt, a, b, DType::Bool) == std::vector<double>{0, 1, 0, 1}));
  }
}

BOOST_AUTO_TEST_CASE(integer_comparisons_are_exact_beyond_double_precision) {
  int64_t big = (int64_t{1} << 53) + 1;
  NodePtr a = make_input(buffer_of_i64({big, big}), {2});
  NodePtr b = make_input(buffer_of_i64({big - 1, big}), {2});
  BOOST_TEST((ints(eval(node(Op::Eq, DType::Bool, {2}, {}, {a, b}))) == std::vector<int64_t>{0, 1}));
  BOOST_TEST((ints(eval(node(Op::Gt, DType::Bool, {2}, {}, {a, b}))) == std::vector<int64_t>{1, 0}));
  BOOST_TEST((binary(Op::Lt, DType::Bool, {0, 1}, {1, 1}, DType::Bool) == std::vector<double>{1, 0}));
}

BOOST_AUTO_TEST_CASE(float_arithmetic_rounds_once_per_primitive) {
  const std::vector<double> x{0.1, 1e30, -3.5, 7.0}, y{0.2, 3e30, 2.0, 0.0};
  for (DType dt : {DType::Float32, DType::Float64}) {
    auto exp2 = [&](auto f) {
      std::vector<double> out;
      for (size_t i = 0; i < x.size(); ++i) {
        double a = dt == DType::Float32 ? static_cast<float>(x[i]) : x[i];
        double b = dt == DType::Float32 ? static_cast<float>(y[i]) : y[i];
        double r = f(a, b);
        out.push_back(dt == DType::Float32 ? static_cast<float>(r) : r);
      }
      return out;
    };
    BOOST_TEST(same(binary(Op::Add, dt, x, y), exp2([](double a, double b) { return a + b; })));
    BOOST_TEST(same(binary(Op::Sub, dt, x, y), exp2([](double a, double b) { return a - b; })));
    BOOST_TEST(same(binary(Op::Mul, dt, x, y), exp2([](double a, double b) { return a * b; })));
    BOOST_TEST(same(binary(Op::Div, dt, x, y), exp2([](double a, double b) { return a / b; })));
    BOOST_TEST(same(binary(Op::Pow, dt, {2, 9, -8, 0}, {10, 0.5, 3, 0}), std::vector<double>{1024, 3, -512, 1}));
  }
  // 1e30f * 3e30f overflows float32 but not double: rounding happens once, at the end.
  BOOST_TEST(binary(Op::Mul, DType::Float32, {1e30}, {3e30})[0] == kInf);
  BOOST_TEST(binary(Op::Div, DType::Float64, {7.0}, {0.0})[0] == kInf);
}

BOOST_AUTO_TEST_CASE(maximum_and_minimum_propagate_nan) {
  BOOST_TEST(same(binary(Op::Maximum, DType::Float32, {kNaN, 1, 2, -0.5}, {1, kNaN, 1, 3}), {kNaN, kNaN, 2, 3}));
  BOOST_TEST(same(binary(Op::Minimum, DType::Float64, {kNaN, 1, 2, -0.5}, {1, kNaN, 1, 3}), {kNaN, kNaN, 1, -0.5}));
  BOOST_TEST((binary(Op::Maximum, DType::Int32, {-4, 5}, {3, 2}) == std::vector<double>{3, 5}));
  BOOST_TEST((binary(Op::Minimum, DType::Int64, {-4, 5}, {3, 2}) == std::vector<double>{-4, 2}));
}

BOOST_AUTO_TEST_CASE(integer_arithmetic_is_exact_and_wraps_on_overflow) {
  int64_t big = (int64_t{1} << 53) + 1;
  NodePtr a = make_input(buffer_of_i64({big, INT64_MAX, INT64_MIN, 3}), {4});
  NodePtr b = make_input(buffer_of_i64({2, 1, 1, -5}), {4});
  BOOST_TEST((ints(eval(node(Op::Add, DType::Int64, {4}, {}, {a, b}))) ==
              std::vector<int64_t>{big + 2, INT64_MIN, INT64_MIN + 1, -2}));
  BOOST_TEST((ints(eval(node(Op::Sub, DType::Int64, {4}, {}, {a, b}))) ==
              std::vector<int64_t>{big - 2, INT64_MAX - 1, INT64_MAX, 8}));
  BOOST_TEST((ints(eval(node(Op::Mul, DType::Int64, {4}, {}, {a, b}))) ==
              std::vector<int64_t>{2 * big, INT64_MAX, INT64_MIN, -15}));
  BOOST_TEST((binary(Op::Add, DType::Int32, {2147483647, -5}, {1, 3}) == std::vector<double>{-2147483648.0, -2}));
  BOOST_TEST((binary(Op::Mul, DType::Int32, {65536, 7}, {65536, -6}) == std::vector<double>{0, -42}));
}

BOOST_AUTO_TEST_CASE(integer_pow_is_exact_and_negative_exponents_give_zero_except_unit_bases) {
  // torch.pow(tensor([2,-1,1,0,3,-2]), tensor([-1,-3,-2,0,3,3])) and 0 ** -1
  BOOST_TEST((binary(Op::Pow, DType::Int64, {2, -1, 1, 0, 3, -2, 0, -1}, {-1, -3, -2, 0, 3, 3, -1, -2}) ==
              std::vector<double>{0, -1, 1, 1, 27, -8, 0, 1}));
  NodePtr a = make_input(buffer_of_i64({3}), {1});
  NodePtr b = make_input(buffer_of_i64({39}), {1});
  int64_t p = 1;
  for (int i = 0; i < 39; ++i) p *= 3;  // 3^39 < 2^63: exact, beyond double precision
  BOOST_TEST(ints(eval(node(Op::Pow, DType::Int64, {1}, {}, {a, b})))[0] == p);
  BOOST_TEST((binary(Op::Pow, DType::Int32, {2, -3}, {31, 3}) == std::vector<double>{-2147483648.0, -27}));
}

BOOST_AUTO_TEST_CASE(integer_div_truncates_and_division_by_zero_gives_zero) {
  BOOST_TEST((binary(Op::Div, DType::Int64, {7, -7, 7, 5}, {2, 2, -2, 0}) == std::vector<double>{3, -3, -3, 0}));
  BOOST_TEST((binary(Op::Div, DType::Int32, {-2147483648.0}, {-1}) == std::vector<double>{-2147483648.0}));
}

BOOST_AUTO_TEST_CASE(bool_arithmetic_stores_nonzero_as_true) {
  BOOST_TEST((binary(Op::Add, DType::Bool, {0, 1, 1}, {0, 0, 1}) == std::vector<double>{0, 1, 1}));
  BOOST_TEST((binary(Op::Mul, DType::Bool, {0, 1, 1}, {1, 0, 1}) == std::vector<double>{0, 0, 1}));
  BOOST_TEST((binary(Op::Maximum, DType::Bool, {0, 1}, {0, 0}) == std::vector<double>{0, 1}));
}

BOOST_AUTO_TEST_CASE(where_selects_by_any_nonzero_condition) {
  for (DType cond_dt : {DType::Bool, DType::Float32, DType::Int64}) {
    for (DType dt : {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64}) {
      NodePtr c = input(cond_dt, {4}, {1, 0, 1, 0});
      NodePtr a = input(dt, {4}, {1, 1, 0, 1});
      NodePtr b = input(dt, {4}, {0, 0, 1, 1});
      BOOST_TEST((values(eval(node(Op::Where, dt, {4}, {}, {c, a, b}))) == std::vector<double>{1, 0, 0, 1}));
    }
  }
  NodePtr c = input(DType::Float64, {1}, {kNaN});
  BOOST_TEST(values(eval(node(Op::Where, DType::Int32, {1}, {},
                              {c, input(DType::Int32, {1}, {5}), input(DType::Int32, {1}, {6})})))[0] == 5);
}

BOOST_AUTO_TEST_CASE(cast_float_to_int_truncates_and_nan_gives_the_minimum) {
  // torch: tensor([-2.7, 2.7, nan]).to(int64) == [-2, 2, INT64_MIN]; 3e9 to int32 is INT32_MIN
  NodePtr x = input(DType::Float32, {5}, {-2.7, 2.7, kNaN, 3e9, -0.9});
  BOOST_TEST((ints(eval(node(Op::Cast, DType::Int64, {5}, {}, {x}))) ==
              std::vector<int64_t>{-2, 2, INT64_MIN, 3000000000, 0}));
  BOOST_TEST(
      (ints(eval(node(Op::Cast, DType::Int32, {5}, {}, {x}))) == std::vector<int64_t>{-2, 2, INT32_MIN, INT32_MIN, 0}));
  BOOST_TEST((values(eval(node(Op::Cast, DType::Bool, {5}, {}, {x}))) == std::vector<double>{1, 1, 1, 1, 1}));
  BOOST_TEST((unary(Op::Cast, DType::Float64, {0.0, -0.0, 0.5}, DType::Bool) == std::vector<double>{0, 0, 1}));
}

BOOST_AUTO_TEST_CASE(cast_between_integers_wraps_and_int_to_float_rounds_once) {
  NodePtr x =
      make_input(buffer_of_i64({(int64_t{1} << 32) + 5, -1, (int64_t{1} << 53) + 1, (int64_t{1} << 24) + 1}), {4});
  BOOST_TEST((ints(eval(node(Op::Cast, DType::Int32, {4}, {}, {x}))) == std::vector<int64_t>{5, -1, 1, (1 << 24) + 1}));
  std::vector<double> f32 = values(eval(node(Op::Cast, DType::Float32, {4}, {}, {x})));
  BOOST_TEST(f32[3] == 16777216.0);  // round to nearest even in float32
  BOOST_TEST(f32[2] == static_cast<double>(static_cast<float>((int64_t{1} << 53) + 1)));
  BOOST_TEST((unary(Op::Cast, DType::Bool, {0, 1}, DType::Float32) == std::vector<double>{0, 1}));
  BOOST_TEST((unary(Op::Cast, DType::Float64, {0.1}, DType::Float32)[0] == static_cast<double>(0.1f)));
  BOOST_TEST((unary(Op::Cast, DType::Float32, {0.1}, DType::Float64)[0] == static_cast<double>(0.1f)));
  BOOST_TEST((unary(Op::Cast, DType::Int32, {-3, 0, 4}, DType::Bool) == std::vector<double>{1, 0, 1}));
}

BOOST_AUTO_TEST_CASE(elementwise_ops_accept_size_zero_shapes) {
  NodePtr a = input(DType::Float32, {0, 3}, {});
  BufferPtr r = eval(node(Op::Add, DType::Float32, {0, 3}, {}, {a, a}));
  BOOST_TEST(r->numel() == 0);
  BOOST_TEST(eval(node(Op::Exp, DType::Float32, {0, 3}, {}, {a}))->numel() == 0);
}

BOOST_AUTO_TEST_CASE(counts_one_evaluated_node_per_computed_primitive) {
  NodePtr x = input(DType::Float32, {2}, {1, 2});
  NodePtr y = node(Op::Exp, DType::Float32, {2}, {}, {x});
  NodePtr z = node(Op::Add, DType::Float32, {2}, {}, {y, filled(1.0, DType::Float32, {2})});
  counters::nodes_evaluated.reset();
  eval(z);
  BOOST_TEST(counters::nodes_evaluated.get() == 4);  // exp, reshape, expand, add; not input or scalar
}

BOOST_AUTO_TEST_CASE(missing_or_mismatched_params_are_errors) {
  NodePtr x = input(DType::Float32, {2}, {1, 2});
  CapturedTrace ct = capture_trace({node(Op::Neg, DType::Float32, {2}, {}, {x})});
  Trace t = ct.trace;
  t.params[0] = nullptr;
  BOOST_CHECK_THROW(evaluate_reference(t), Error);
  t.params[0] = buffer_of(DType::Float64, {1, 2});
  BOOST_CHECK_THROW(evaluate_reference(t), Error);
  t.params[0] = buffer_of(DType::Float32, {1, 2, 3});
  BOOST_CHECK_THROW(evaluate_reference(t), Error);
}

BOOST_AUTO_TEST_CASE(intermediates_are_freed_after_their_last_use) {
  const int64_t n = 4 << 20;  // 16 MiB of float32 per value
  NodePtr x = make_input(make_buffer(DType::Float32, n), {n});
  std::fill(x->buffer->as<float>(), x->buffer->as<float>() + n, 1.0f);
  NodePtr v = x;
  for (int i = 0; i < 8; ++i) v = node(Op::Add, DType::Float32, {n}, {}, {v, x});
  CapturedTrace ct = capture_trace({v});
  const int64_t before = allocator_stats().bytes_in_use;
  std::vector<BufferPtr> out = evaluate_reference(ct.trace);
  BOOST_TEST(out[0]->as<float>()[n - 1] == 9.0f);
  // At most two values of the chain are alive at once (an input and the result being computed).
  BOOST_TEST(allocator_stats().peak_bytes_in_use - before <= 2 * (n * 4 + (n * 4) / 8));
}
