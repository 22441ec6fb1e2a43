// Values of the elementwise ops against hand-written double loops: every
// accepted dtype, broadcasting across ranks, size-0 and size-1 dims, inputs
// reaching the op through views, tensor-scalar forms on both sides and
// PyTorch type promotion (results checked with torch 1.13).
#define BOOST_TEST_MODULE ops_elementwise
#include "ops_test_util.h"

using namespace opt;
using lt::Scalar;

namespace {

const std::vector<Shape> kUnaryShapes{{2, 3, 4}, {}, {5}, {0, 3}, {1, 3, 1}};

using UnaryOp = std::function<Tensor(const Tensor&)>;
using Ref1 = std::function<double(double)>;

/// op(x) == ref(x) for every dtype in `dtypes`, every shape and every view;
/// `out` maps the input dtype to the result dtype; `gen` makes inputs.
void check_unary(const UnaryOp& op, const Ref1& ref, const std::vector<DType>& dtypes,
                 const std::function<DType(DType)>& out, const std::function<Host(Shape, DType)>& gen,
                 std::optional<Tol> tol = std::nullopt) {
  uint32_t seed = 1;
  for (DType dt : dtypes) {
    for (const Shape& s : kUnaryShapes) {
      Host in = round_to(gen(s, dt), dt);
      for (Via via : kAllVias) {
        Tensor x = make_via(in, dt, via);
        expect_values(op(x), map(in, ref), out(dt), tol,
                      std::string(lt::dtype_name(dt)) + " " + shape_text(s) + " via " + via_name(via));
      }
      ++seed;
    }
  }
}

DType same(DType d) { return d; }
DType floating(DType d) { return lt::is_floating(d) ? d : DType::Float32; }
Host gen_any(Shape s, DType dt) {
  if (dt == DType::Bool) return random_ints(s, 3, 0, 2);
  if (!lt::is_floating(dt)) return random_ints(s, 4, -9, 10);
  return random_host(s, 5, -4, 4);
}
Host gen_positive(Shape s, DType dt) {
  if (dt == DType::Bool) return random_ints(s, 6, 0, 2);
  if (!lt::is_floating(dt)) return random_ints(s, 7, 1, 20);
  return random_host(s, 8, 0.015625, 6);
}
Host gen_small(Shape s, DType dt) {
  if (!lt::is_floating(dt)) return random_ints(s, 9, -3, 4);
  return random_host(s, 10, -2, 2);
}

double sigmoid_ref(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

// ---- unary: floating results (integer inputs promote to float32) ----

BOOST_AUTO_TEST_CASE(exp_log_log1p_expm1_match_libm_and_promote_integers_to_float32) {
  check_unary([](const Tensor& x) { return lt::exp(x); }, [](double v) { return std::exp(v); }, kAllDTypes, floating,
              gen_small);
  check_unary([](const Tensor& x) { return lt::log(x); }, [](double v) { return std::log(v); }, kNumeric, floating,
              gen_positive);
  check_unary([](const Tensor& x) { return lt::log1p(x); }, [](double v) { return std::log1p(v); }, kNumeric,
              floating, gen_positive);
  check_unary([](const Tensor& x) { return lt::expm1(x); }, [](double v) { return std::expm1(v); }, kNumeric,
              floating, gen_small);
}

BOOST_AUTO_TEST_CASE(log_of_zero_and_negative_gives_minus_inf_and_nan) {
  Tensor x = make({4}, {0, -1, 1, kInf}, DType::Float32);
  expect_values(lt::log(x), host({4}, {-kInf, kNaN, 0, kInf}), DType::Float32);
  expect_values(lt::log1p(make({2}, {-1, -2}, DType::Float64)), host({2}, {-kInf, kNaN}), DType::Float64);
}

BOOST_AUTO_TEST_CASE(sqrt_and_rsqrt_match_libm) {
  check_unary([](const Tensor& x) { return lt::sqrt(x); }, [](double v) { return std::sqrt(v); }, kAllDTypes,
              floating, gen_positive);
  check_unary([](const Tensor& x) { return lt::rsqrt(x); }, [](double v) { return 1.0 / std::sqrt(v); }, kNumeric,
              floating, gen_positive);
  expect_values(lt::rsqrt(make({3}, {0, -1, 4}, DType::Float32)), host({3}, {kInf, kNaN, 0.5}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(sin_cos_tanh_erf_match_libm) {
  check_unary([](const Tensor& x) { return lt::sin(x); }, [](double v) { return std::sin(v); }, kNumeric, floating,
              gen_any);
  check_unary([](const Tensor& x) { return lt::cos(x); }, [](double v) { return std::cos(v); }, kNumeric, floating,
              gen_any);
  check_unary([](const Tensor& x) { return lt::tanh(x); }, [](double v) { return std::tanh(v); }, kNumeric, floating,
              gen_any);
  check_unary([](const Tensor& x) { return lt::erf(x); }, [](double v) { return std::erf(v); }, kNumeric, floating,
              gen_any);
}

BOOST_AUTO_TEST_CASE(sigmoid_and_silu_match_their_definitions) {
  check_unary([](const Tensor& x) { return lt::sigmoid(x); }, sigmoid_ref, kAllDTypes, floating, gen_any);
  check_unary([](const Tensor& x) { return lt::silu(x); }, [](double v) { return v * sigmoid_ref(v); }, kNumeric,
              floating, gen_any);
  // Saturation: no NaN from exp overflow.
  expect_values(lt::sigmoid(make({3}, {-200, 200, 0}, DType::Float32)), host({3}, {0, 1, 0.5}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(gelu_erf_and_tanh_forms_match_their_formulas) {
  check_unary([](const Tensor& x) { return lt::gelu(x); },
              [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, kNumeric, floating, gen_any);
  check_unary([](const Tensor& x) { return lt::gelu(x, true); },
              [](double v) {
                return 0.5 * v * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
              },
              kNumeric, floating, gen_any);
  // torch.nn.functional.gelu(torch.tensor([-3., 0., 4.])) = [-0.0040, 0.0000, 3.9999]
  expect_values(lt::gelu(make({3}, {-3, 0, 4}, DType::Float32)), host({3}, {-0.0040496, 0, 3.9998734}),
                DType::Float32, Tol{1e-4, 1e-6});
}

BOOST_AUTO_TEST_CASE(softplus_uses_beta_and_returns_x_past_the_threshold) {
  check_unary([](const Tensor& x) { return lt::softplus(x); }, [](double v) { return std::log1p(std::exp(v)); },
              kNumeric, floating, gen_any);
  auto ref = [](double v) { return 2 * v > 5 ? v : std::log1p(std::exp(2 * v)) / 2; };
  check_unary([](const Tensor& x) { return lt::softplus(x, 2.0, 5.0); }, ref, kFloats, floating, gen_any);
  // torch: softplus([1, 30, -2], beta=2, threshold=5) = [1.0635, 30, 0.0090750]
  expect_values(lt::softplus(make({3}, {1, 30, -2}, DType::Float32), 2, 5), host({3}, {1.0634640, 30, 0.0090750}),
                DType::Float32, Tol{1e-5, 1e-6});
}

BOOST_AUTO_TEST_CASE(reciprocal_promotes_integers_and_divides_by_zero_to_inf) {
  check_unary([](const Tensor& x) { return lt::reciprocal(x); }, [](double v) { return 1.0 / v; }, kAllDTypes,
              floating, gen_positive);
  expect_values(lt::reciprocal(make({3}, {0, -0.0, -4}, DType::Float32)), host({3}, {kInf, -kInf, -0.25}),
                DType::Float32);
  expect_values(lt::reciprocal(make({2}, {0, 2}, DType::Int32)), host({2}, {kInf, 0.5}), DType::Float32);
}

// ---- unary: dtype-preserving ----

BOOST_AUTO_TEST_CASE(neg_and_abs_keep_numeric_dtypes) {
  check_unary([](const Tensor& x) { return lt::neg(x); }, [](double v) { return -v; }, kNumeric, same, gen_any);
  check_unary([](const Tensor& x) { return lt::abs(x); }, [](double v) { return std::fabs(v); }, kNumeric, same,
              gen_any);
  BOOST_TEST(raises([] { lt::neg(make({2}, {1, 0}, DType::Bool)); }));
}

BOOST_AUTO_TEST_CASE(relu_keeps_dtype_and_nan) {
  check_unary([](const Tensor& x) { return lt::relu(x); }, [](double v) { return v > 0 ? v : 0.0; }, kNumeric, same,
              gen_any);
  expect_values(lt::relu(make({3}, {kNaN, -kInf, kInf}, DType::Float32)), host({3}, {kNaN, 0, kInf}), DType::Float32);
  BOOST_TEST(raises([] { lt::relu(make({2}, {1, 0}, DType::Bool)); }));
}

BOOST_AUTO_TEST_CASE(floor_ceil_are_identity_on_integers) {
  check_unary([](const Tensor& x) { return lt::floor(x); }, [](double v) { return std::floor(v); }, kNumeric, same,
              gen_any);
  check_unary([](const Tensor& x) { return lt::ceil(x); }, [](double v) { return std::ceil(v); }, kNumeric, same,
              gen_any);
}

BOOST_AUTO_TEST_CASE(round_is_half_to_even) {
  // torch.round([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.6]) = [0, 2, 2, -0, -2, -2, 0, 3]
  Host in = host({8}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.6});
  for (DType dt : kFloats) {
    for (Via via : kAllVias) {
      Tensor r = lt::round(make_via(round_to(in, dt), dt, via));
      expect_values(r, host({8}, {0, 2, 2, -0.0, -2, -2, 0, 3}), dt, std::nullopt, via_name(via));
    }
  }
  check_unary([](const Tensor& x) { return lt::round(x); }, [](double v) { return std::nearbyint(v); }, kNumeric,
              same, gen_any);
}

BOOST_AUTO_TEST_CASE(sign_gives_minus_one_zero_one_and_zero_for_nan) {
  auto ref = [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; };
  check_unary([](const Tensor& x) { return lt::sign(x); }, ref, kNumeric, same, gen_any);
  expect_values(lt::sign(make({4}, {-2, 0, 3, kNaN}, DType::Float32)), host({4}, {-1, 0, 1, 0}), DType::Float32);
  expect_values(lt::sign(make({2}, {1, 0}, DType::Bool)), host({2}, {1, 0}), DType::Bool);
}

BOOST_AUTO_TEST_CASE(logical_not_isnan_isfinite_give_bool_for_every_dtype) {
  check_unary([](const Tensor& x) { return lt::logical_not(x); }, [](double v) { return v == 0 ? 1.0 : 0.0; },
              kAllDTypes, [](DType) { return DType::Bool; }, gen_any);
  check_unary([](const Tensor& x) { return lt::isnan(x); }, [](double) { return 0.0; }, kAllDTypes,
              [](DType) { return DType::Bool; }, gen_any);
  check_unary([](const Tensor& x) { return lt::isfinite(x); }, [](double) { return 1.0; }, kAllDTypes,
              [](DType) { return DType::Bool; }, gen_any);
  for (DType dt : kFloats) {
    Tensor x = make({5}, {kNaN, kInf, -kInf, 0, -3.5}, dt);
    expect_values(lt::isnan(x), host({5}, {1, 0, 0, 0, 0}), DType::Bool);
    expect_values(lt::isfinite(x), host({5}, {0, 0, 0, 1, 1}), DType::Bool);
    expect_values(lt::logical_not(x), host({5}, {0, 0, 0, 1, 0}), DType::Bool);  // NaN is true
  }
}

BOOST_AUTO_TEST_CASE(cast_between_every_pair_of_dtypes) {
  // Values every dtype can hold, so the conversion is a plain C++ conversion.
  Host in = host({2, 3}, {0, 1, 3, -2, 7, 1});
  for (DType from : kAllDTypes) {
    Host src = round_to(in, from);
    for (DType to : kAllDTypes) {
      for (Via via : kAllVias) {
        expect_values(lt::cast(make_via(src, from, via), to), round_to(src, to), to, std::nullopt,
                      std::string(lt::dtype_name(from)) + "->" + std::string(lt::dtype_name(to)) + " " + via_name(via));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(cast_float_to_int_truncates_toward_zero_and_to_bool_tests_nonzero) {
  // torch.tensor([2.7, -2.7, 0.5, -0.5]).to(torch.int32) = [2, -2, 0, 0]; .to(bool) of [0.5, 0, nan] = [T, F, T]
  Tensor f = make({4}, {2.7, -2.7, 0.5, -0.5}, DType::Float32);
  expect_values(lt::cast(f, DType::Int32), host({4}, {2, -2, 0, 0}), DType::Int32);
  expect_values(lt::cast(f, DType::Int64), host({4}, {2, -2, 0, 0}), DType::Int64);
  expect_values(lt::cast(make({3}, {0.5, 0, kNaN}, DType::Float64), DType::Bool), host({3}, {1, 0, 1}), DType::Bool);
  expect_values(lt::cast(make({3}, {-5, 0, 2}, DType::Int64), DType::Bool), host({3}, {1, 0, 1}), DType::Bool);
  // int64 -> int32 wraps.
  expect_i64(lt::cast(make_i64({2}, {(int64_t{1} << 32) + 5, -(int64_t{1} << 31) - 1}), DType::Int32), {5, 2147483647},
             {2}, DType::Int32);
}

// ---- binary ----

namespace {

using BinaryOp = std::function<Tensor(const Tensor&, const Tensor&)>;
using Ref2 = std::function<double(double, double)>;

struct ShapePair {
  Shape a, b;
};
const std::vector<ShapePair> kBroadcastPairs{
    {{2, 3, 4}, {2, 3, 4}},  // equal
    {{2, 3, 4}, {4}},        // rank 3 with rank 1
    {{3, 1}, {1, 4}},        // both stretch
    {{2, 1, 4}, {3, 1}},     // rank 3 with rank 2, size-1 dims both sides
    {{}, {2, 3}},            // 0-dim tensor with a matrix
    {{2, 3}, {}},
    {{0, 3}, {1, 3}},  // size 0
    {{1}, {0}},
    {{1, 1}, {1}},  // all size 1
    {{4, 1, 2}, {1, 5, 1}},
};

/// op(a, b) == ref elementwise with broadcasting, for both operands of each dtype in `dtypes`,
/// every broadcast pair and views on each side.
void check_binary(const BinaryOp& op, const Ref2& ref, const std::vector<DType>& dtypes,
                  const std::function<DType(DType)>& out, const std::function<Host(Shape, DType)>& gen_a,
                  const std::function<Host(Shape, DType)>& gen_b, std::optional<Tol> tol = std::nullopt) {
  for (DType dt : dtypes) {
    for (const ShapePair& sp : kBroadcastPairs) {
      Host a = round_to(gen_a(sp.a, dt), dt), b = round_to(gen_b(sp.b, dt), dt);
      Host want = zip(a, b, ref);
      for (size_t k = 0; k < kAllVias.size(); ++k) {
        Via va = kAllVias[k], vb = kAllVias[(k + 2) % kAllVias.size()];
        Tensor r = op(make_via(a, dt, va), make_via(b, dt, vb));
        expect_values(r, want, out(dt), tol,
                      std::string(lt::dtype_name(dt)) + " " + shape_text(sp.a) + " op " + shape_text(sp.b) + " via " +
                          via_name(va) + "/" + via_name(vb));
      }
    }
  }
}

/// t op s and s op t for a scalar s (a wrapped number: the tensor's dtype wins within its category).
void check_scalar_forms(const std::function<Tensor(const Tensor&, Scalar)>& op_ts,
                        const std::function<Tensor(Scalar, const Tensor&)>& op_st, const Ref2& ref, DType dt,
                        double s, DType out, const Host& in) {
  Host t = round_to(in, dt);
  Scalar sc = lt::is_floating(dt) ? Scalar(s) : Scalar(static_cast<int64_t>(s));
  for (Via via : {Via::Contiguous, Via::Transpose, Via::StepSlice}) {
    Tensor x = make_via(t, dt, via);
    expect_values(op_ts(x, sc), map(t, [&](double v) { return ref(v, s); }), out, std::nullopt,
                  std::string("tensor op scalar ") + std::string(lt::dtype_name(dt)) + " " + via_name(via));
    expect_values(op_st(sc, x), map(t, [&](double v) { return ref(s, v); }), out, std::nullopt,
                  std::string("scalar op tensor ") + std::string(lt::dtype_name(dt)) + " " + via_name(via));
  }
}

Host gen_nonzero(Shape s, DType dt) {
  if (!lt::is_floating(dt)) return map(random_ints(s, 11, 1, 7), [](double v) { return v > 3 ? 3 - v : v; });
  return map(random_host(s, 12, 0.25, 4), [](double v) { return v > 2 ? 2 - v : v; });
}
Host gen_exponent(Shape s, DType dt) {
  if (!lt::is_floating(dt)) return random_ints(s, 13, 0, 5);
  return random_host(s, 14, -2, 2.5);
}
Host gen_b(Shape s, DType dt) {
  if (dt == DType::Bool) return random_ints(s, 15, 0, 2);
  if (!lt::is_floating(dt)) return random_ints(s, 16, -9, 10);
  return random_host(s, 17, -4, 4);
}

}  // namespace

#define LT_OP2(fn) [](const Tensor& a, const Tensor& b) { return lt::fn(a, b); }
#define LT_OPTS(fn) [](const Tensor& a, Scalar b) { return lt::fn(a, b); }
#define LT_OPST(fn) [](Scalar a, const Tensor& b) { return lt::fn(a, b); }

BOOST_AUTO_TEST_CASE(add_sub_mul_broadcast_across_ranks_for_numeric_dtypes) {
  check_binary(LT_OP2(add), [](double a, double b) { return a + b; }, kNumeric, same, gen_any, gen_b);
  check_binary(LT_OP2(sub), [](double a, double b) { return a - b; }, kNumeric, same, gen_any, gen_b);
  check_binary(LT_OP2(mul), [](double a, double b) { return a * b; }, kNumeric, same, gen_any, gen_b);
}

BOOST_AUTO_TEST_CASE(operators_match_the_named_functions) {
  Tensor a = make({2, 2}, {1, 2, 3, 4}, DType::Float32), b = make({2}, {10, 20}, DType::Float32);
  expect_values(a + b, host({2, 2}, {11, 22, 13, 24}), DType::Float32);
  expect_values(a - b, host({2, 2}, {-9, -18, -7, -16}), DType::Float32);
  expect_values(a * b, host({2, 2}, {10, 40, 30, 80}), DType::Float32);
  expect_values(a / b, host({2, 2}, {0.1, 0.1, 0.3, 0.2}), DType::Float32);
  expect_values(-a, host({2, 2}, {-1, -2, -3, -4}), DType::Float32);
  expect_values(2.0 - a, host({2, 2}, {1, 0, -1, -2}), DType::Float32);
  expect_values(a / 2, host({2, 2}, {0.5, 1, 1.5, 2}), DType::Float32);
  expect_values(a < b, host({2, 2}, {1, 1, 1, 1}), DType::Bool);
  expect_values(a == a, host({2, 2}, {1, 1, 1, 1}), DType::Bool);
  expect_values((a > b) || (a >= a), host({2, 2}, {1, 1, 1, 1}), DType::Bool);
  expect_values(!(a <= b) && (a != b), host({2, 2}, {0, 0, 0, 0}), DType::Bool);
}

BOOST_AUTO_TEST_CASE(bool_add_is_or_and_bool_mul_is_and) {
  // torch: [T,F,T,F] + [T,T,F,F] = [T,T,T,F]; * = [T,F,F,F]
  Tensor a = make({4}, {1, 0, 1, 0}, DType::Bool), b = make({4}, {1, 1, 0, 0}, DType::Bool);
  expect_values(lt::add(a, b), host({4}, {1, 1, 1, 0}), DType::Bool);
  expect_values(lt::mul(a, b), host({4}, {1, 0, 0, 0}), DType::Bool);
  check_binary(LT_OP2(add), [](double a, double b) { return a + b != 0; }, {DType::Bool}, same, gen_any, gen_b);
  check_binary(LT_OP2(mul), [](double a, double b) { return a * b; }, {DType::Bool}, same, gen_any, gen_b);
  BOOST_TEST(raises([&] { lt::sub(a, b); }));
  // bool + 1 is int64, bool + 1.5 is float32 (torch)
  expect_values(lt::add(a, Scalar(1)), host({4}, {2, 1, 2, 1}), DType::Int64);
  expect_values(lt::add(a, Scalar(1.5)), host({4}, {2.5, 1.5, 2.5, 1.5}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(div_is_true_division_and_integers_give_float32) {
  check_binary(LT_OP2(div), [](double a, double b) { return a / b; }, kFloats, same, gen_any, gen_nonzero);
  check_binary(LT_OP2(div), [](double a, double b) { return a / b; }, kInts, floating, gen_any, gen_nonzero);
  // torch: tensor([7, -7]) / tensor([2, 2]) = [3.5, -3.5] (float32); bool / bool = float32
  expect_values(lt::div(make({2}, {7, -7}, DType::Int64), make({2}, {2, 2}, DType::Int64)), host({2}, {3.5, -3.5}),
                DType::Float32);
  expect_values(lt::div(make({4}, {1, 0, 1, 0}, DType::Bool), make({4}, {1, 1, 0, 0}, DType::Bool)),
                host({4}, {1, 0, kInf, kNaN}), DType::Float32);
  expect_values(lt::div(make({3}, {1, -1, 0}, DType::Float32), 0.0), host({3}, {kInf, -kInf, kNaN}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(pow_on_floats_and_exact_integer_powers) {
  Host pos = random_host({2, 3, 4}, 20, 0.25, 3);
  check_binary(LT_OP2(pow), [](double a, double b) { return std::pow(a, b); }, kFloats, same,
               [](Shape s, DType) { return random_host(s, 21, 0.25, 3); }, gen_exponent, Tol{2e-5, 1e-6});
  check_binary(LT_OP2(pow), [](double a, double b) { return std::pow(a, b); }, kInts, same, gen_small, gen_exponent);
  // torch.pow(tensor([2, 3, -2]), 3) = [8, 27, -8]; pow(2, tensor([1, 2, 3])) = [2, 4, 8]
  expect_values(lt::pow(make({3}, {2, 3, -2}, DType::Int64), Scalar(3)), host({3}, {8, 27, -8}), DType::Int64);
  expect_values(lt::pow(Scalar(2), make({3}, {1, 2, 3}, DType::Int64)), host({3}, {2, 4, 8}), DType::Int64);
  // int ** 2.5 and 2.5 ** int promote to float32
  expect_values(lt::pow(make({2}, {4, 9}, DType::Int32), Scalar(2.5)), host({2}, {32, 243}), DType::Float32);
  expect_values(lt::pow(Scalar(2.5), make({2}, {0, 2}, DType::Int32)), host({2}, {1, 6.25}), DType::Float32);
  // negative base with an integral float exponent; 0 ** 0 = 1
  expect_values(lt::pow(make({3}, {-2, 0, -3}, DType::Float64), make({3}, {3, 0, 2}, DType::Float64)),
                host({3}, {-8, 1, 9}), DType::Float64);
  // int64 wraps exactly: 3 ** 40 mod 2^64
  int64_t p = 1;
  for (int i = 0; i < 40; ++i) p = static_cast<int64_t>(static_cast<uint64_t>(p) * 3u);
  expect_i64(lt::pow(make_i64({1}, {3}), Scalar(40)), {p}, {1});
}

BOOST_AUTO_TEST_CASE(maximum_minimum_broadcast_and_propagate_nan) {
  check_binary(LT_OP2(maximum), [](double a, double b) { return std::max(a, b); }, kAllDTypes, same, gen_any, gen_b);
  check_binary(LT_OP2(minimum), [](double a, double b) { return std::min(a, b); }, kAllDTypes, same, gen_any, gen_b);
  Tensor a = make({3}, {kNaN, 1, 2}, DType::Float32), b = make({3}, {0, kNaN, 3}, DType::Float32);
  expect_values(lt::maximum(a, b), host({3}, {kNaN, kNaN, 3}), DType::Float32);
  expect_values(lt::minimum(a, b), host({3}, {kNaN, kNaN, 2}), DType::Float32);
  // torch.maximum(tensor([1, 2, 3]), tensor([2.5])) = [2.5, 2.5, 3.0]
  expect_values(lt::maximum(make({3}, {1, 2, 3}, DType::Int64), make({1}, {2.5}, DType::Float32)),
                host({3}, {2.5, 2.5, 3}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(comparisons_give_bool_for_every_dtype_and_broadcast) {
  auto b = [](DType) { return DType::Bool; };
  check_binary(LT_OP2(eq), [](double x, double y) { return x == y; }, kAllDTypes, b, gen_small, gen_small);
  check_binary(LT_OP2(ne), [](double x, double y) { return x != y; }, kAllDTypes, b, gen_small, gen_small);
  check_binary(LT_OP2(lt), [](double x, double y) { return x < y; }, kAllDTypes, b, gen_any, gen_b);
  check_binary(LT_OP2(le), [](double x, double y) { return x <= y; }, kAllDTypes, b, gen_small, gen_small);
  check_binary(LT_OP2(gt), [](double x, double y) { return x > y; }, kAllDTypes, b, gen_any, gen_b);
  check_binary(LT_OP2(ge), [](double x, double y) { return x >= y; }, kAllDTypes, b, gen_small, gen_small);
}

BOOST_AUTO_TEST_CASE(comparisons_with_nan_are_false_except_ne) {
  Tensor a = make({2}, {kNaN, 1}, DType::Float64), n = make({1}, {kNaN}, DType::Float64);
  expect_values(lt::eq(a, n), host({2}, {0, 0}), DType::Bool);
  expect_values(lt::ne(a, n), host({2}, {1, 1}), DType::Bool);
  expect_values(lt::lt(a, n), host({2}, {0, 0}), DType::Bool);
  expect_values(lt::le(a, n), host({2}, {0, 0}), DType::Bool);
  expect_values(lt::gt(a, n), host({2}, {0, 0}), DType::Bool);
  expect_values(lt::ge(a, n), host({2}, {0, 0}), DType::Bool);
}

BOOST_AUTO_TEST_CASE(comparison_of_int_tensor_with_float_scalar_compares_in_float) {
  // torch: tensor([1, 5]) < 2.5 = [True, False]; tensor([2, 3]) == 2.5 = [False, False]
  Tensor t = make({2}, {1, 5}, DType::Int64);
  expect_values(lt::lt(t, Scalar(2.5)), host({2}, {1, 0}), DType::Bool);
  expect_values(lt::eq(make({2}, {2, 3}, DType::Int32), Scalar(2.5)), host({2}, {0, 0}), DType::Bool);
  expect_values(lt::gt(Scalar(2.5), t), host({2}, {1, 0}), DType::Bool);
}

BOOST_AUTO_TEST_CASE(logical_and_or_treat_nonzero_and_nan_as_true) {
  auto b = [](DType) { return DType::Bool; };
  auto truth = [](double v) { return v != 0; };
  check_binary(LT_OP2(logical_and), [&](double x, double y) { return truth(x) && truth(y); }, kAllDTypes, b, gen_small,
               gen_small);
  check_binary(LT_OP2(logical_or), [&](double x, double y) { return truth(x) || truth(y); }, kAllDTypes, b, gen_small,
               gen_small);
  // torch.logical_and(tensor([nan, 0., 1.]), tensor([1, 1, 0])) = [True, False, False]
  expect_values(lt::logical_and(make({3}, {kNaN, 0, 1}, DType::Float32), make({3}, {1, 1, 0}, DType::Int64)),
                host({3}, {1, 0, 0}), DType::Bool);
  expect_values(lt::logical_or(make({3}, {kNaN, 0, 0}, DType::Float32), Scalar(0)), host({3}, {1, 0, 0}), DType::Bool);
}

BOOST_AUTO_TEST_CASE(tensor_scalar_forms_on_both_sides_keep_the_tensor_dtype) {
  Host in = host({2, 3}, {1, -2, 3, 4, -5, 6});
  for (DType dt : kNumeric) {
    check_scalar_forms(LT_OPTS(add), LT_OPST(add), [](double a, double b) { return a + b; }, dt, 3, dt, in);
    check_scalar_forms(LT_OPTS(sub), LT_OPST(sub), [](double a, double b) { return a - b; }, dt, 3, dt, in);
    check_scalar_forms(LT_OPTS(mul), LT_OPST(mul), [](double a, double b) { return a * b; }, dt, -2, dt, in);
    check_scalar_forms(LT_OPTS(div), LT_OPST(div), [](double a, double b) { return a / b; }, dt, 4, floating(dt), in);
    check_scalar_forms(LT_OPTS(maximum), LT_OPST(maximum), [](double a, double b) { return std::max(a, b); }, dt, 2,
                       dt, in);
    check_scalar_forms(LT_OPTS(minimum), LT_OPST(minimum), [](double a, double b) { return std::min(a, b); }, dt, 2,
                       dt, in);
    check_scalar_forms(LT_OPTS(lt), LT_OPST(lt), [](double a, double b) { return a < b; }, dt, 3, DType::Bool, in);
    check_scalar_forms(LT_OPTS(ge), LT_OPST(ge), [](double a, double b) { return a >= b; }, dt, 3, DType::Bool, in);
    check_scalar_forms(LT_OPTS(eq), LT_OPST(eq), [](double a, double b) { return a == b; }, dt, 3, DType::Bool, in);
    check_scalar_forms(LT_OPTS(ne), LT_OPST(ne), [](double a, double b) { return a != b; }, dt, 3, DType::Bool, in);
    check_scalar_forms(LT_OPTS(le), LT_OPST(le), [](double a, double b) { return a <= b; }, dt, 3, DType::Bool, in);
    check_scalar_forms(LT_OPTS(gt), LT_OPST(gt), [](double a, double b) { return a > b; }, dt, 3, DType::Bool, in);
  }
  Host small = host({2, 2}, {1, 2, 3, 0});
  for (DType dt : kNumeric) {
    check_scalar_forms(LT_OPTS(pow), LT_OPST(pow), [](double a, double b) { return std::pow(a, b); }, dt, 2, dt,
                       small);
  }
}

BOOST_AUTO_TEST_CASE(int_tensor_plus_float_scalar_gives_float32) {
  // torch: tensor([1, 2, 3], dtype=int32) + 2.5 = float32 [3.5, 4.5, 5.5]
  for (DType dt : kInts) {
    Tensor t = make({3}, {1, 2, 3}, dt);
    expect_values(t + 2.5, host({3}, {3.5, 4.5, 5.5}), DType::Float32);
    expect_values(2.5 * t, host({3}, {2.5, 5, 7.5}), DType::Float32);
    expect_values(lt::sub(Scalar(0.5), t), host({3}, {-0.5, -1.5, -2.5}), DType::Float32);
  }
  // A double scalar does not widen a float32 tensor.
  expect_values(make({1}, {1}, DType::Float32) + 2.5, host({1}, {3.5}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(int32_tensor_plus_int64_zero_dim_tensor_stays_int32) {
  // torch: tensor([1, 2], int32) + tensor(5) (int64 0-dim) -> int32
  Tensor t = make({2}, {1, 2}, DType::Int32);
  Tensor z = lt::scalar_tensor(5, DType::Int64);
  expect_values(t + z, host({2}, {6, 7}), DType::Int32);
  expect_values(z * t, host({2}, {5, 10}), DType::Int32);
  // ... but a 0-dim float64 tensor of a higher category gives its own dtype: float64
  expect_values(t * lt::scalar_tensor(2.5, DType::Float64), host({2}, {2.5, 5}), DType::Float64);
  // float32 tensor + int64 0-dim stays float32; float32 [1] + float64 [1] (both with dims) is float64
  expect_values(make({1}, {1}, DType::Float32) + z, host({1}, {6}), DType::Float32);
  expect_values(make({1}, {1}, DType::Float32) + make({1}, {2}, DType::Float64), host({1}, {3}), DType::Float64);
  // int32 [n] + int64 [n] -> int64; int32 + True -> int32
  expect_values(t + make({2}, {1, 1}, DType::Int64), host({2}, {2, 3}), DType::Int64);
  expect_values(t + Scalar(true), host({2}, {2, 3}), DType::Int32);
}

BOOST_AUTO_TEST_CASE(int32_plus_out_of_range_int_scalar_wraps) {
  // torch: tensor([1, 2], int32) + 2**40 = [1, 2] (int32)
  expect_values(make({2}, {1, 2}, DType::Int32) + Scalar(int64_t{1} << 40), host({2}, {1, 2}), DType::Int32);
}

BOOST_AUTO_TEST_CASE(mixed_dtype_binary_ops_promote_like_torch) {
  struct Case {
    DType a, b, want;
  };
  std::vector<Case> cases{{DType::Bool, DType::Int32, DType::Int32},      {DType::Int32, DType::Int64, DType::Int64},
                          {DType::Int64, DType::Float32, DType::Float32}, {DType::Int32, DType::Float64, DType::Float64},
                          {DType::Float32, DType::Float64, DType::Float64}, {DType::Bool, DType::Float32, DType::Float32}};
  Host a = host({2, 2}, {1, 0, 3, 2}), b = host({2}, {2, 1});
  for (const Case& c : cases) {
    expect_values(lt::add(make(a, c.a), make(b, c.b)),
                  zip(round_to(a, c.a), b, [](double x, double y) { return x + y; }), c.want);
    expect_values(lt::mul(make(b, c.b), make(a, c.a)),
                  zip(b, round_to(a, c.a), [](double x, double y) { return x * y; }), c.want);
    expect_values(lt::maximum(make(a, c.a), make(b, c.b)),
                  zip(round_to(a, c.a), b, [](double x, double y) { return std::max(x, y); }), c.want);
  }
}

BOOST_AUTO_TEST_CASE(clamp_with_scalar_and_tensor_bounds) {
  Host in = random_host({3, 4}, 30, -4, 4);
  for (DType dt : kNumeric) {
    Host x = round_to(in, dt);
    for (Via via : kAllVias) {
      Tensor t = make_via(x, dt, via);
      expect_values(lt::clamp(t, Scalar(-1), Scalar(2)), map(x, [](double v) { return std::clamp(v, -1.0, 2.0); }), dt);
      expect_values(lt::clamp(t, Scalar(0), std::nullopt), map(x, [](double v) { return std::max(v, 0.0); }), dt);
      expect_values(lt::clamp(t, std::nullopt, Scalar(1)), map(x, [](double v) { return std::min(v, 1.0); }), dt);
    }
    // tensor bounds broadcast: per-column min, scalar-shaped max
    Host lo = host({4}, {-3, -2, 0, 1}), hi = host({1}, {2});
    Host want = zip(zip(x, lo, [](double v, double l) { return std::max(v, l); }), hi,
                    [](double v, double h) { return std::min(v, h); });
    expect_values(lt::clamp(make(x, dt), make(lo, dt), make(hi, dt)), want, dt);
    expect_values(lt::clamp(make(x, dt), make(lo, dt), Tensor()), zip(x, lo, [](double v, double l) {
                    return std::max(v, l);
                  }),
                  dt);
  }
  // torch: tensor([1, 2, 3]).clamp(min=1.5) = float32 [1.5, 2, 3]
  expect_values(lt::clamp(make({3}, {1, 2, 3}, DType::Int64), Scalar(1.5), std::nullopt), host({3}, {1.5, 2, 3}),
                DType::Float32);
  BOOST_TEST(raises([] { lt::clamp(make({1}, {1}, DType::Float32), std::nullopt, std::nullopt); }));
}

BOOST_AUTO_TEST_CASE(where_broadcasts_condition_and_branches_and_promotes) {
  Host c = random_ints({2, 1, 4}, 40, 0, 2), a = random_host({3, 1}, 41), b = random_host({4}, 42);
  Host want = generate({2, 3, 4}, [&](const std::vector<int64_t>& i) {
    return bcast_at(c, i) != 0 ? bcast_at(a, i) : bcast_at(b, i);
  });
  for (DType dt : kAllDTypes) {
    Host ar = round_to(a, dt), br = round_to(b, dt);
    Host w = generate({2, 3, 4}, [&](const std::vector<int64_t>& i) {
      return bcast_at(c, i) != 0 ? bcast_at(ar, i) : bcast_at(br, i);
    });
    for (Via via : kAllVias) {
      expect_values(lt::where(make_via(c, DType::Bool, via), make_via(ar, dt, via), make(br, dt)), w, dt,
                    std::nullopt, std::string(lt::dtype_name(dt)) + " " + via_name(via));
    }
  }
  // A non-bool condition counts nonzero as true.
  expect_values(lt::where(make({3}, {0, 2, kNaN}, DType::Float32), Scalar(1), make({3}, {7, 8, 9}, DType::Int64)),
                host({3}, {7, 1, 1}), DType::Int64);
  // torch.where(cond, int64 tensor, 2.5) is float32; f32 vs f64 branches give f64
  Tensor cond = make({3}, {1, 0, 1}, DType::Bool);
  expect_values(lt::where(cond, make({3}, {1, 2, 3}, DType::Int64), Scalar(2.5)), host({3}, {1, 2.5, 3}),
                DType::Float32);
  expect_values(lt::where(cond, Scalar(-1), make({3}, {1, 2, 3}, DType::Int32)), host({3}, {-1, 2, -1}),
                DType::Int32);
  expect_values(lt::where(cond, make({3}, {1, 2, 3}, DType::Float32), make({3}, {4, 5, 6}, DType::Float64)),
                host({3}, {1, 5, 3}), DType::Float64);
}

BOOST_AUTO_TEST_CASE(elementwise_on_expanded_inputs_reads_the_broadcast_value) {
  Host row = host({1, 4}, {1, 2, 3, 4}), col = host({3, 1}, {10, 20, 30});
  for (DType dt : kNumeric) {
    Tensor r = lt::expand(make(row, dt), {3, 4});
    Tensor c = lt::expand(make(col, dt), {3, 4});
    expect_values(r + c, zip(row, col, [](double a, double b) { return a + b; }), dt);
    expect_values(lt::mul(r, lt::transpose(lt::expand(make(host({4, 1}, {1, 2, 3, 4}), dt), {4, 3}), 0, 1)),
                  expand_host(map(row, [](double v) { return v * v; }), {3, 4}), dt);
    expect_values(lt::neg(lt::expand(make(host({}, {5}), dt), {2, 3})), host({2, 3}, {-5, -5, -5, -5, -5, -5}), dt);
  }
}

BOOST_AUTO_TEST_CASE(incompatible_broadcast_shapes_raise) {
  BOOST_TEST(raises([] { lt::add(lt::zeros({2, 3}), lt::zeros({4})); }));
  BOOST_TEST(raises([] { lt::where(lt::zeros({2}, DType::Bool), lt::zeros({3}), lt::zeros({2})); }));
}

BOOST_AUTO_TEST_CASE(cast_of_nan_and_out_of_range_floats_to_int_gives_the_minimum) {
  // torch on x86: tensor([nan, 1e10, -1e10, 2.5]).to(int32) = [INT32_MIN x3, 2]; to(int64) of [nan, 1e19, -1e19] = INT64_MIN x3
  for (DType from : kFloats) {
    expect_i64(lt::cast(make({4}, {kNaN, 1e10, -1e10, 2.5}, from), DType::Int32),
               {INT32_MIN, INT32_MIN, INT32_MIN, 2}, {4}, DType::Int32);
    expect_i64(lt::cast(make({3}, {kNaN, 1e19, -1e19}, from), DType::Int64), {INT64_MIN, INT64_MIN, INT64_MIN}, {3});
  }
}

BOOST_AUTO_TEST_CASE(integer_pow_with_negative_exponents_follows_torch) {
  // torch.pow(tensor([2, -1, 1, 0, -1]), tensor([-1, -3, -2, 2, -2])) = [0, -1, 1, 0, 1]
  expect_values(lt::pow(make({5}, {2, -1, 1, 0, -1}, DType::Int64), make({5}, {-1, -3, -2, 2, -2}, DType::Int64)),
                host({5}, {0, -1, 1, 0, 1}), DType::Int64);
  expect_values(lt::pow(make({2}, {3, -2}, DType::Int32), make({2}, {0, 0}, DType::Int32)), host({2}, {1, 1}),
                DType::Int32);
}

BOOST_AUTO_TEST_CASE(elementwise_ops_leave_their_materialised_inputs_unchanged) {
  Tensor x = make({2, 3}, {1, 2, 3, 4, 5, 6}, DType::Float32);
  Tensor y = make({2, 3}, {6, 5, 4, 3, 2, 1}, DType::Float32);
  Tensor r = lt::exp(lt::neg(x)) + lt::mul(y, 2.0) - lt::reshape(x, {3, 2}).t();
  (void)r.to_vector<float>();
  expect_values(x, host({2, 3}, {1, 2, 3, 4, 5, 6}), DType::Float32);
  expect_values(y, host({2, 3}, {6, 5, 4, 3, 2, 1}), DType::Float32);
  Tensor twice = x + x;  // the same buffer on both sides
  expect_values(twice, host({2, 3}, {2, 4, 6, 8, 10, 12}), DType::Float32);
  expect_values(x, host({2, 3}, {1, 2, 3, 4, 5, 6}), DType::Float32);
}
