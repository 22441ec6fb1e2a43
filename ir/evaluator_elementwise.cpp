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

namespace {

template <typename C>
constexpr bool kReal = std::is_same_v<C, double>;

/// out = f(a) in the output's dtype; f takes the compute type (double for
/// floating dtypes, int64 for integer and bool).
template <typename F>
void same1(const Buffer& a, Buffer& out, F f) {
  visit_dtype(out.dtype(), [&](auto e) { map1<decltype(e), typename decltype(e)::Storage>(a, out, f); });
}
template <typename F>
void same2(const Buffer& a, const Buffer& b, Buffer& out, F f) {
  visit_dtype(out.dtype(), [&](auto e) { map2<decltype(e), typename decltype(e)::Storage>(a, b, out, f); });
}
/// Bool out = f(a[, b]) computed in the operands' dtype.
template <typename F>
void pred1(const Buffer& a, Buffer& out, F f) {
  visit_dtype(a.dtype(), [&](auto e) { map1<decltype(e), uint8_t>(a, out, [f](auto x) -> int64_t { return f(x); }); });
}
template <typename F>
void pred2(const Buffer& a, const Buffer& b, Buffer& out, F f) {
  visit_dtype(a.dtype(), [&](auto e) {
    map2<decltype(e), uint8_t>(a, b, out, [f](auto x, auto y) -> int64_t { return f(x, y); });
  });
}

/// out = f(a) for integer dtypes (the dtype rule keeps floats out).
template <typename F>
void int1(const Buffer& a, Buffer& out, F f) {
  visit_dtype(out.dtype(), [&](auto e) {
    using E = decltype(e);
    if constexpr (!kReal<typename E::Compute>) map1<E, typename E::Storage>(a, out, f);
  });
}
/// out = f(a, b) for integer and bool dtypes (their dtype rule keeps floats out).
template <typename F>
void int2(const Buffer& a, const Buffer& b, Buffer& out, F f) {
  visit_dtype(out.dtype(), [&](auto e) {
    using E = decltype(e);
    if constexpr (!kReal<typename E::Compute>) map2<E, typename E::Storage>(a, b, out, f);
  });
}

}  // namespace

// One case per elementwise op (ir/ops.def), checked to cover them all
// (-Werror=switch). Generic lambdas see double for floating dtypes and int64
// for integer and bool.
BufferPtr Evaluator::eval_elementwise() {
  const TraceNode& n = node();
  const Op op = n.op;
  const Buffer& a = in(0);
  const Buffer* b = n.inputs.size() > 1 ? &in(1) : nullptr;
  if (b) check(a.dtype() == b->dtype(), "binary inputs have different dtypes");
  if (is_predicate(op)) {
    check(n.dtype == DType::Bool, "predicate output must be bool");
  } else {
    check(a.dtype() == n.dtype, "elementwise input dtype differs from the output's");
  }
  const DTypeRule rule = op_info(op).dtype_rule;
  if (rule == DTypeRule::Float && !is_floating(n.dtype)) error(ErrorKind::Type, "not defined for integer or bool dtypes");
  if ((rule == DTypeRule::Integer || rule == DTypeRule::IntegerOrBool) && is_floating(a.dtype())) {
    error(ErrorKind::Type, "not defined for floating dtypes");
  }
  BufferPtr out = output();
  Buffer& y = *out;
  // Float-rule ops: the check above leaves only floating dtypes.
  auto real1 = [&](double (*f)(double)) { same1(a, y, [f](auto x) { return f(static_cast<double>(x)); }); };
  switch (op) {
    case Op::Neg:
      same1(a, y, [](auto x) {
        if constexpr (kReal<decltype(x)>) return -x;
        else return wrap_sub(0, x);
      });
      break;
    case Op::Abs:
      same1(a, y, [](auto x) {
        if constexpr (kReal<decltype(x)>) return std::fabs(x);
        else return x < 0 ? wrap_sub(0, x) : x;
      });
      break;
    case Op::Exp: real1([](double x) { return std::exp(x); }); break;
    case Op::Log: real1([](double x) { return std::log(x); }); break;
    case Op::Log1p: real1([](double x) { return std::log1p(x); }); break;
    case Op::Expm1: real1([](double x) { return std::expm1(x); }); break;
    case Op::Sqrt: real1([](double x) { return std::sqrt(x); }); break;
    case Op::Sin: real1([](double x) { return std::sin(x); }); break;
    case Op::Cos: real1([](double x) { return std::cos(x); }); break;
    case Op::Tanh: real1([](double x) { return std::tanh(x); }); break;
    case Op::Sigmoid: real1([](double x) { return 1.0 / (1.0 + std::exp(-x)); }); break;
    case Op::Erf: real1([](double x) { return std::erf(x); }); break;
    case Op::Floor:
      same1(a, y, [](auto x) {
        if constexpr (kReal<decltype(x)>) return std::floor(x);
        else return x;
      });
      break;
    case Op::Ceil:
      same1(a, y, [](auto x) {
        if constexpr (kReal<decltype(x)>) return std::ceil(x);
        else return x;
      });
      break;
    case Op::Round:
      same1(a, y, [](auto x) {
        if constexpr (kReal<decltype(x)>) return std::nearbyint(x);
        else return x;
      });
      break;
    case Op::Sign:
      same1(a, y, [](auto x) {
        if constexpr (kReal<decltype(x)>) return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
        else return static_cast<int64_t>((x > 0) - (x < 0));
      });
      break;
    case Op::LogicalNot: pred1(a, y, [](auto x) { return x == 0; }); break;
    case Op::IsNan: pred1(a, y, [](auto x) { return is_nan(x); }); break;
    case Op::Add:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return x + z;
        else return wrap_add(x, z);
      });
      break;
    case Op::Sub:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return x - z;
        else return wrap_sub(x, z);
      });
      break;
    case Op::Mul:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return x * z;
        else return wrap_mul(x, z);
      });
      break;
    case Op::Div:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return x / z;
        else return int_div(x, z);
      });
      break;
    case Op::Pow:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return std::pow(x, z);
        else return int_pow(x, z);
      });
      break;
    case Op::Maximum:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return std::isnan(x) || std::isnan(z) ? std::nan("") : std::max(x, z);
        else return std::max(x, z);
      });
      break;
    case Op::Minimum:
      same2(a, *b, y, [](auto x, auto z) {
        if constexpr (kReal<decltype(x)>) return std::isnan(x) || std::isnan(z) ? std::nan("") : std::min(x, z);
        else return std::min(x, z);
      });
      break;
    case Op::Eq: pred2(a, *b, y, [](auto x, auto z) { return x == z; }); break;
    case Op::Ne: pred2(a, *b, y, [](auto x, auto z) { return x != z; }); break;
    case Op::Lt: pred2(a, *b, y, [](auto x, auto z) { return x < z; }); break;
    case Op::Le: pred2(a, *b, y, [](auto x, auto z) { return x <= z; }); break;
    case Op::Gt: pred2(a, *b, y, [](auto x, auto z) { return x > z; }); break;
    case Op::Ge: pred2(a, *b, y, [](auto x, auto z) { return x >= z; }); break;
    case Op::LogicalAnd: pred2(a, *b, y, [](auto x, auto z) { return x != 0 && z != 0; }); break;
    case Op::LogicalOr: pred2(a, *b, y, [](auto x, auto z) { return x != 0 || z != 0; }); break;
    case Op::BitwiseAnd: int2(a, *b, y, [](int64_t x, int64_t z) { return x & z; }); break;
    case Op::BitwiseOr: int2(a, *b, y, [](int64_t x, int64_t z) { return x | z; }); break;
    case Op::BitwiseXor: int2(a, *b, y, [](int64_t x, int64_t z) { return x ^ z; }); break;
    case Op::BitwiseNot:
      if (n.dtype == DType::Bool) pred1(a, y, [](auto x) { return x == 0; });
      else int1(a, y, [](int64_t x) { return ~x; });
      break;
    case Op::ShiftLeft:
      // In int64 for int32 too: the low 32 bits of x << s are the same, and
      // s in [32, 64) clears them as an out-of-range amount must.
      int2(a, *b, y, [](int64_t x, int64_t s) -> int64_t {
        return s < 0 || s >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << s);
      });
      break;
    case Op::ShiftRight:  // arithmetic; an out-of-range amount gives the sign
      int2(a, *b, y, [](int64_t x, int64_t s) -> int64_t { return s < 0 || s >= 64 ? (x < 0 ? -1 : 0) : x >> s; });
      break;
    case Op::Cast:
    case Op::Detach:
    case Op::Where:  // eval_cast, eval() and eval_where
    LT_NON_ELEMENTWISE_CASES:
      error(ErrorKind::NotImplemented, "no reference implementation");
  }
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

}  // namespace lt::eval_detail

namespace lt {
void convert_elements_reference(const void* src, DType dtype, int64_t n, void* dst, DType dst_dtype) {
  using namespace eval_detail;
  visit_dtype(dtype, [&](auto in_e) {
    using InE = decltype(in_e);
    using S = typename InE::Storage;
    using C = typename InE::Compute;
    const S* x = static_cast<const S*>(src);
    visit_dtype(dst_dtype, [&](auto out_e) {
      using OutS = typename decltype(out_e)::Storage;
      OutS* y = static_cast<OutS*>(dst);
      for (int64_t i = 0; i < n; ++i) y[i] = store<OutS>(static_cast<C>(x[i]));
    });
  });
}
}  // namespace lt

namespace lt::eval_detail {

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
