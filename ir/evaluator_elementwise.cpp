// ir/evaluator_elementwise.cpp — the reference evaluator's elementwise ops.
//
// Unary, binary, Where and Cast: flat loops over inputs of the output's shape;
// a rank-0 Scalar input (ir/ops.h) is read with stride 0. The
// semantic choices (NaN rules, integer pow/div, casts) are listed at the top
// of ir/evaluator.cpp.
#include "ir/evaluator_impl.h"

namespace lt::eval_detail {

/// y[i] = store(f(x[i])) over buffers of possibly different dtypes.
/// Index step through an elementwise input: 0 for a broadcast rank-0 scalar.
inline int64_t step_of(const Buffer& in, const Buffer& out) { return in.numel() == out.numel() ? 1 : 0; }

template <typename InE, typename OutS, typename F>
void map1(const Buffer& a, Buffer& out, F f) {
  using S = typename InE::Storage;
  using C = typename InE::Compute;
  const S* x = a.as<S>();
  OutS* y = out.as<OutS>();
  const int64_t sx = step_of(a, out);
  for (int64_t i = 0, n = out.numel(); i < n; ++i) y[i] = store<OutS>(f(static_cast<C>(x[i * sx])));
}

template <typename InE, typename OutS, typename F>
void map2(const Buffer& a, const Buffer& b, Buffer& out, F f) {
  using S = typename InE::Storage;
  using C = typename InE::Compute;
  const S* x = a.as<S>();
  const S* z = b.as<S>();
  OutS* y = out.as<OutS>();
  const int64_t sx = step_of(a, out), sz = step_of(b, out);
  for (int64_t i = 0, n = out.numel(); i < n; ++i)
    y[i] = store<OutS>(f(static_cast<C>(x[i * sx]), static_cast<C>(z[i * sz])));
}

BufferPtr Evaluator::eval_unary() {
  const TraceNode& n = node();
  const Op op = n.op;
  BufferPtr out = output();
  const Buffer& a = in(0);
  if (op == Op::LogicalNot || op == Op::IsNan) {
    check(n.dtype == DType::Bool, "predicate output must be bool");
    visit_dtype(a.dtype(), [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      if (op == Op::LogicalNot)
        map1<E, uint8_t>(a, *out, [](C x) -> int64_t { return x == 0; });
      else
        map1<E, uint8_t>(a, *out, [](C x) -> int64_t { return is_nan(x); });
    });
    return out;
  }
  check(a.dtype() == n.dtype, "unary input dtype differs from the output's");
  visit_dtype(n.dtype, [&](auto e) {
    using E = decltype(e);
    using S = typename E::Storage;
    if constexpr (std::is_same_v<typename E::Compute, double>) {
      switch (op) {
        case Op::Neg:
          return map1<E, S>(a, *out, [](double x) { return -x; });
        case Op::Abs:
          return map1<E, S>(a, *out, [](double x) { return std::fabs(x); });
        case Op::Exp:
          return map1<E, S>(a, *out, [](double x) { return std::exp(x); });
        case Op::Log:
          return map1<E, S>(a, *out, [](double x) { return std::log(x); });
        case Op::Log1p:
          return map1<E, S>(a, *out, [](double x) { return std::log1p(x); });
        case Op::Expm1:
          return map1<E, S>(a, *out, [](double x) { return std::expm1(x); });
        case Op::Sqrt:
          return map1<E, S>(a, *out, [](double x) { return std::sqrt(x); });
        case Op::Sin:
          return map1<E, S>(a, *out, [](double x) { return std::sin(x); });
        case Op::Cos:
          return map1<E, S>(a, *out, [](double x) { return std::cos(x); });
        case Op::Tanh:
          return map1<E, S>(a, *out, [](double x) { return std::tanh(x); });
        case Op::Erf:
          return map1<E, S>(a, *out, [](double x) { return std::erf(x); });
        case Op::Floor:
          return map1<E, S>(a, *out, [](double x) { return std::floor(x); });
        case Op::Ceil:
          return map1<E, S>(a, *out, [](double x) { return std::ceil(x); });
        case Op::Round:
          return map1<E, S>(a, *out, [](double x) { return std::nearbyint(x); });
        case Op::Sign:
          return map1<E, S>(a, *out, [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; });
        default:
          break;
      }
    } else {
      switch (op) {
        case Op::Neg:
          return map1<E, S>(a, *out, [](int64_t x) { return wrap_sub(0, x); });
        case Op::Abs:
          return map1<E, S>(a, *out, [](int64_t x) { return x < 0 ? wrap_sub(0, x) : x; });
        case Op::Sign:
          return map1<E, S>(a, *out, [](int64_t x) -> int64_t { return (x > 0) - (x < 0); });
        case Op::Floor:
        case Op::Ceil:
        case Op::Round:
          return map1<E, S>(a, *out, [](int64_t x) { return x; });
        default:
          error(ErrorKind::Type, "not defined for integer or bool dtypes");
      }
    }
    error(ErrorKind::NotImplemented, "no reference implementation");
  });
  return out;
}

BufferPtr Evaluator::eval_cast() {
  BufferPtr out = output();
  const Buffer& a = in(0);
  visit_dtype(a.dtype(), [&](auto in_e) {
    using InE = decltype(in_e);
    visit_dtype(node().dtype, [&](auto out_e) {
      using OutS = typename decltype(out_e)::Storage;
      map1<InE, OutS>(a, *out, [](auto x) { return x; });
    });
  });
  return out;
}

BufferPtr Evaluator::eval_binary() {
  const TraceNode& n = node();
  const Op op = n.op;
  const Buffer& a = in(0);
  const Buffer& b = in(1);
  check(a.dtype() == b.dtype(), "binary inputs have different dtypes");
  BufferPtr out = output();
  if (is_predicate(op)) {
    check(n.dtype == DType::Bool, "predicate output must be bool");
    visit_dtype(a.dtype(), [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      auto pred = [&](auto f) { map2<E, uint8_t>(a, b, *out, [f](C x, C y) -> int64_t { return f(x, y); }); };
      switch (op) {
        case Op::Eq:
          return pred([](C x, C y) { return x == y; });
        case Op::Ne:
          return pred([](C x, C y) { return x != y; });
        case Op::Lt:
          return pred([](C x, C y) { return x < y; });
        case Op::Le:
          return pred([](C x, C y) { return x <= y; });
        case Op::Gt:
          return pred([](C x, C y) { return x > y; });
        case Op::Ge:
          return pred([](C x, C y) { return x >= y; });
        case Op::LogicalAnd:
          return pred([](C x, C y) { return x != 0 && y != 0; });
        case Op::LogicalOr:
          return pred([](C x, C y) { return x != 0 || y != 0; });
        default:
          error(ErrorKind::NotImplemented, "no reference implementation");
      }
    });
    return out;
  }
  check(a.dtype() == n.dtype, "binary input dtype differs from the output's");
  visit_dtype(n.dtype, [&](auto e) {
    using E = decltype(e);
    using S = typename E::Storage;
    if constexpr (std::is_same_v<typename E::Compute, double>) {
      constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
      switch (op) {
        case Op::Add:
          return map2<E, S>(a, b, *out, [](double x, double y) { return x + y; });
        case Op::Sub:
          return map2<E, S>(a, b, *out, [](double x, double y) { return x - y; });
        case Op::Mul:
          return map2<E, S>(a, b, *out, [](double x, double y) { return x * y; });
        case Op::Div:
          return map2<E, S>(a, b, *out, [](double x, double y) { return x / y; });
        case Op::Pow:
          return map2<E, S>(a, b, *out, [](double x, double y) { return std::pow(x, y); });
        case Op::Maximum:
          return map2<E, S>(a, b, *out,
                            [](double x, double y) { return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y); });
        case Op::Minimum:
          return map2<E, S>(a, b, *out,
                            [](double x, double y) { return std::isnan(x) || std::isnan(y) ? kNaN : std::min(x, y); });
        default:
          break;
      }
    } else {
      switch (op) {
        case Op::Add:
          return map2<E, S>(a, b, *out, wrap_add);
        case Op::Sub:
          return map2<E, S>(a, b, *out, wrap_sub);
        case Op::Mul:
          return map2<E, S>(a, b, *out, wrap_mul);
        case Op::Div:
          return map2<E, S>(a, b, *out, int_div);
        case Op::Pow:
          return map2<E, S>(a, b, *out, int_pow);
        case Op::Maximum:
          return map2<E, S>(a, b, *out, [](int64_t x, int64_t y) { return std::max(x, y); });
        case Op::Minimum:
          return map2<E, S>(a, b, *out, [](int64_t x, int64_t y) { return std::min(x, y); });
        default:
          break;
      }
    }
    error(ErrorKind::NotImplemented, "no reference implementation");
  });
  return out;
}

BufferPtr Evaluator::eval_where() {
  const TraceNode& n = node();
  const Buffer& cond = in(0);
  const Buffer& a = in(1);
  const Buffer& b = in(2);
  check(a.dtype() == n.dtype && b.dtype() == n.dtype, "where branches must have the output's dtype");
  BufferPtr out = output();
  visit_dtype(cond.dtype(), [&](auto ce) {
    using CS = typename decltype(ce)::Storage;
    const CS* c = cond.as<CS>();
    visit_dtype(n.dtype, [&](auto e) {
      using S = typename decltype(e)::Storage;
      const S* x = a.as<S>();
      const S* z = b.as<S>();
      S* y = out->as<S>();
      const int64_t sc = step_of(cond, *out), sx = step_of(a, *out), sz = step_of(b, *out);
      for (int64_t i = 0, m = out->numel(); i < m; ++i) y[i] = c[i * sc] != 0 ? x[i * sx] : z[i * sz];
    });
  });
  return out;
}

}  // namespace lt::eval_detail
