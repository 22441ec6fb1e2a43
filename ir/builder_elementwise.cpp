// ir/builder_elementwise.cpp — sources, casts and elementwise ops: broadcasting,
// PyTorch type promotion, and the decompositions of elementwise composites.
#include <cmath>

#include "absl/strings/str_join.h"
#include "ir/builder_util.h"

namespace lt::ops {
namespace detail {

std::string shapes_str(std::initializer_list<const NodePtr*> nodes) {
  std::vector<std::string> parts;
  for (const NodePtr* p : nodes) parts.push_back(shape_str((*p)->shape));
  return absl::StrJoin(parts, " and ");
}

NodePtr reshape_exact(const NodePtr& x, Shape shape) {
  if (x->shape == shape) return x;
  return make_node(Op::Reshape, x->dtype, std::move(shape), {}, {x});
}

NodePtr expand_to(const NodePtr& x, absl::Span<const int64_t> shape) {
  if (x->shape == Shape(shape.begin(), shape.end())) return x;
  NodePtr y = x;
  // A rank-0 input (a Python scalar) expands directly: one node instead of a
  // Reshape [] -> [1, ..] plus an Expand (the per-op recording cost matters).
  if (x->ndim() > 0 && x->ndim() < static_cast<int64_t>(shape.size())) {
    Shape s(shape.size() - x->shape.size(), 1);
    s.insert(s.end(), x->shape.begin(), x->shape.end());
    y = reshape_exact(x, s);
  }
  if (y->shape == Shape(shape.begin(), shape.end())) return y;
  return make_node(Op::Expand, y->dtype, Shape(shape.begin(), shape.end()), {}, {y});
}

NodePtr broadcast_operand(const NodePtr& x, absl::Span<const int64_t> shape) {
  if (x->op == Op::Scalar) return x;
  return expand_to(x, shape);
}

NodePtr elementwise(Op op, DType out_dtype, const NodePtr& a, const NodePtr& b, const NodePtr& c) {
  NodeList ins{a};
  if (b) ins.push_back(b);
  if (c) ins.push_back(c);
  // The operands have the output's shape, except Scalar operands (rank 0).
  const NodePtr* shaped = &a;
  if (a->op == Op::Scalar && b && b->op != Op::Scalar) shaped = &b;
  if ((*shaped)->op == Op::Scalar && c) shaped = &c;
  return make_node(op, out_dtype, (*shaped)->shape, {}, std::move(ins));
}

NodePtr constant_like(const NodePtr& x, double value) { return scalar(value, x->dtype, /*wrapped=*/false); }

}  // namespace detail

using namespace detail;

// ---- sources -------------------------------------------------------------------

NodePtr from_buffer(BufferPtr buffer, Shape shape) { return make_input(std::move(buffer), std::move(shape)); }

NodePtr scalar(double value, DType dtype, bool wrapped) {
  return make_scalar(ScalarValue::of(value, dtype), dtype, wrapped);
}

NodePtr scalar_int(int64_t value, DType dtype, bool wrapped) {
  if (is_floating(dtype)) return scalar(static_cast<double>(value), dtype, wrapped);
  ScalarValue v;
  switch (integer_bits(dtype)) {  // wraps to the dtype, as a cast would
    case 8: v.i = dtype == DType::UInt8 ? static_cast<int64_t>(static_cast<uint8_t>(value)) : static_cast<int8_t>(value); break;
    case 16: v.i = static_cast<int16_t>(value); break;
    case 32: v.i = static_cast<int32_t>(value); break;
    default: v.i = dtype == DType::Bool ? (value != 0) : value;
  }
  return make_scalar(v, dtype, wrapped);
}

static void check_shape(std::string_view op, absl::Span<const int64_t> shape) {
  for (int64_t d : shape) {
    if (d < 0) fail(ErrorKind::Runtime, op, ": negative dimension ", d, " in shape ", shape_str(shape));
  }
}

NodePtr full_like_node(const NodePtr& s, Shape shape) {
  check_shape("full", shape);
  return expand_to(s, shape);
}

NodePtr full(Shape shape, double value, DType dtype) {
  return full_like_node(scalar(value, dtype, /*wrapped=*/false), std::move(shape));
}
NodePtr zeros(Shape shape, DType dtype) { return full(std::move(shape), 0.0, dtype); }
NodePtr ones(Shape shape, DType dtype) { return full(std::move(shape), 1.0, dtype); }

NodePtr iota(Shape shape, int64_t axis) {
  check_shape("iota", shape);
  axis = normalize_dim("iota", axis, static_cast<int64_t>(shape.size()));
  return make_node(Op::Iota, DType::Int64, std::move(shape), {axis}, {});
}

NodePtr arange(double start, double end, double step, std::optional<DType> dtype) {
  if (step == 0) fail(ErrorKind::Runtime, "arange: step must be nonzero");
  if (!std::isfinite(start) || !std::isfinite(end)) {
    fail(ErrorKind::Runtime, "arange: unsupported range ", start, " -> ", end, " (expected finite bounds)");
  }
  if ((step > 0 && end < start) || (step < 0 && end > start)) {
    fail(ErrorKind::Runtime, "arange: upper bound ", end, " and lower bound ", start,
         " are inconsistent with step sign ", step);
  }
  bool integral = start == std::floor(start) && end == std::floor(end) && step == std::floor(step);
  DType dt = dtype.value_or(integral ? DType::Int64 : kDefaultFloat);
  int64_t n = static_cast<int64_t>(std::ceil((end - start) / step));
  NodePtr idx = iota(Shape{n}, 0);
  if (!is_floating(dt)) {
    NodePtr v = add(mul(idx, scalar_int(static_cast<int64_t>(step), DType::Int64, false)),
                    scalar_int(static_cast<int64_t>(start), DType::Int64, false));
    return cast(v, dt);
  }
  // Compute in float64 like PyTorch's CPU kernel, then round once.
  NodePtr v = add(mul(cast(idx, DType::Float64), scalar(step, DType::Float64, false)),
                  scalar(start, DType::Float64, false));
  return cast(v, dt);
}

// PyTorch 1.13's CPU kernel for an integer dtype truncates start and end to the
// dtype, then writes the first 2V-aligned part of the result V lanes at a time
// (V = 32 bytes / element size: AVX2's Vectorized<T>::arange): each vector's
// first element is the truncated half-formula value at its start, and lane k
// adds k * step to it before truncating; the tail is the plain formula. Its
// compiler contracts the half formula's a * b + c into one fused multiply-add
// (the lane sum is not fused), which decides the truncation where the product
// lands a hair below an integer, so std::fma there. So int32 and int64 results differ (linspace(5, -5, 20)), and both are
// matched. (Above 32768 steps torch splits the range across threads, which
// moves the vector boundaries; the single-thread layout is used at every size.)
// A constant computed here, on the host: the values depend only on the numbers.
static NodePtr integer_linspace(double start, double end, int64_t steps, DType dtype) {
  start = std::trunc(start);
  end = std::trunc(end);
  const double step = (end - start) / static_cast<double>(steps - 1);
  const int64_t lanes = std::max<int64_t>(1, 32 / static_cast<int64_t>(dtype_size(dtype)));
  const int64_t vector_end = steps / (2 * lanes) * (2 * lanes);
  auto half_formula = [&](int64_t i) {
    if (i < steps / 2) return std::fma(step, static_cast<double>(i), start);
    return std::fma(-step, static_cast<double>(steps - i - 1), end);
  };
  BufferPtr values = make_buffer(DType::Int64, steps);
  int64_t* out = values->as<int64_t>();
  for (int64_t i = 0; i < steps; ++i) {
    if (i >= vector_end) {
      out[i] = static_cast<int64_t>(half_formula(i));
      continue;
    }
    const int64_t first = i - i % lanes;
    const double base = std::trunc(half_formula(first));
    volatile double lane_offset = static_cast<double>(i - first) * step;  // a plain product: not fused here
    out[i] = static_cast<int64_t>(base + lane_offset);
  }
  return cast(make_input(std::move(values), Shape{steps}), dtype);
}

NodePtr linspace(double start, double end, int64_t steps, DType dtype) {
  if (steps < 0) fail(ErrorKind::Runtime, "linspace: number of steps must be non-negative, got ", steps);
  if (steps == 0) return zeros(Shape{0}, dtype);
  if (steps == 1) return full(Shape{1}, start, dtype);
  if (!is_floating(dtype) && dtype != DType::Bool) return integer_linspace(start, end, steps, dtype);
  double step = (end - start) / static_cast<double>(steps - 1);
  // PyTorch fills the first half from start and the second half from end.
  NodePtr i = cast(iota(Shape{steps}, 0), DType::Float64);
  NodePtr from_start = add(mul(i, scalar(step, DType::Float64, false)), scalar(start, DType::Float64, false));
  NodePtr back = sub(scalar(static_cast<double>(steps - 1), DType::Float64, false), i);
  NodePtr from_end = sub(scalar(end, DType::Float64, false), mul(back, scalar(step, DType::Float64, false)));
  NodePtr first_half = lt(i, scalar(static_cast<double>(steps / 2), DType::Float64, false));
  return cast(where(first_half, from_start, from_end), dtype);
}

NodePtr eye(int64_t n, std::optional<int64_t> m, DType dtype) {
  int64_t cols = m.value_or(n);
  if (n < 0 || cols < 0) fail(ErrorKind::Runtime, "eye: n and m must be non-negative, got ", n, " and ", cols);
  Shape s{n, cols};
  return cast(eq(iota(s, 0), iota(s, 1)), dtype);
}

static NodePtr uniform(Shape shape, int64_t seed, int64_t offset, int64_t stream, DType dtype) {
  check_shape("rand", shape);
  NodePtr seed_node = scalar_int(seed, DType::Int64, false);
  NodePtr offset_node = scalar_int(offset, DType::Int64, false);
  return make_node(Op::RandUniform, dtype, std::move(shape), {stream}, {seed_node, offset_node});
}

NodePtr rand(Shape shape, int64_t seed, int64_t offset, DType dtype) {
  if (!is_floating(dtype)) fail(ErrorKind::Type, "rand: expected a floating dtype, got ", dtype_name(dtype));
  return uniform(std::move(shape), seed, offset, 0, dtype);
}

NodePtr randn(Shape shape, int64_t seed, int64_t offset, DType dtype) {
  if (!is_floating(dtype)) fail(ErrorKind::Type, "randn: expected a floating dtype, got ", dtype_name(dtype));
  // Box-Muller on two independent words of the same Philox block.
  NodePtr u1 = uniform(shape, seed, offset, 0, dtype);
  NodePtr u2 = uniform(shape, seed, offset, 1, dtype);
  NodePtr radius = sqrt(mul(constant_like(u1, -2.0), log(sub(constant_like(u1, 1.0), u1))));
  NodePtr angle = mul(constant_like(u2, 2.0 * M_PI), u2);
  return mul(radius, cos(angle));
}

NodePtr randint(int64_t low, int64_t high, Shape shape, int64_t seed, int64_t offset, DType dtype) {
  if (high <= low) {
    fail(ErrorKind::Runtime, "randint: expected low < high, got low=", low, " high=", high);
  }
  NodePtr u = uniform(std::move(shape), seed, offset, 0, DType::Float64);
  NodePtr span = scalar(static_cast<double>(high - low), DType::Float64, false);
  NodePtr v = add(floor(mul(u, span)), scalar(static_cast<double>(low), DType::Float64, false));
  return cast(v, dtype);
}

// ---- unary -----------------------------------------------------------------------

NodePtr cast(const NodePtr& x, DType dtype) {
  if (x->dtype == dtype) return x;
  if (x->op == Op::Scalar) {  // fold: a cast scalar is a scalar of the new dtype
    NodePtr s = make_scalar(ScalarValue::of(x->scalar.as_double(x->dtype), dtype), dtype, !x->attrs.empty() && x->attrs[0]);
    if (!is_floating(x->dtype) && !is_floating(dtype)) {
      return scalar_int(dtype == DType::Bool ? x->scalar.i != 0 : x->scalar.i, dtype, !x->attrs.empty() && x->attrs[0]);
    }
    return s;
  }
  return make_node(Op::Cast, dtype, x->shape, {}, {x});
}

static NodePtr to_floating(const NodePtr& x) { return is_floating(x->dtype) ? x : cast(x, kDefaultFloat); }
static NodePtr float_unary(Op op, const NodePtr& x) {
  NodePtr f = to_floating(x);
  return elementwise(op, f->dtype, f);
}

NodePtr neg(const NodePtr& x) {
  if (x->dtype == DType::Bool) {
    fail(ErrorKind::Runtime, "neg: negation of a bool tensor ", shape_str(x->shape),
         " is not supported (expected a numeric dtype; use logical_not)");
  }
  return elementwise(Op::Neg, x->dtype, x);
}
NodePtr abs(const NodePtr& x) {
  if (x->dtype == DType::Bool) return x;
  return elementwise(Op::Abs, x->dtype, x);
}
NodePtr exp(const NodePtr& x) { return float_unary(Op::Exp, x); }
NodePtr log(const NodePtr& x) { return float_unary(Op::Log, x); }
NodePtr log1p(const NodePtr& x) { return float_unary(Op::Log1p, x); }
NodePtr expm1(const NodePtr& x) { return float_unary(Op::Expm1, x); }
NodePtr sqrt(const NodePtr& x) { return float_unary(Op::Sqrt, x); }
NodePtr rsqrt(const NodePtr& x) { return reciprocal(sqrt(x)); }
NodePtr sin(const NodePtr& x) { return float_unary(Op::Sin, x); }
NodePtr cos(const NodePtr& x) { return float_unary(Op::Cos, x); }
NodePtr tanh(const NodePtr& x) { return float_unary(Op::Tanh, x); }
NodePtr erf(const NodePtr& x) { return float_unary(Op::Erf, x); }
NodePtr floor(const NodePtr& x) { return is_floating(x->dtype) ? elementwise(Op::Floor, x->dtype, x) : x; }
NodePtr ceil(const NodePtr& x) { return is_floating(x->dtype) ? elementwise(Op::Ceil, x->dtype, x) : x; }
NodePtr round(const NodePtr& x) { return is_floating(x->dtype) ? elementwise(Op::Round, x->dtype, x) : x; }
NodePtr sign(const NodePtr& x) { return x->dtype == DType::Bool ? x : elementwise(Op::Sign, x->dtype, x); }
NodePtr reciprocal(const NodePtr& x) {
  NodePtr f = to_floating(x);
  return div(constant_like(f, 1.0), f);
}
NodePtr logical_not(const NodePtr& x) { return elementwise(Op::LogicalNot, DType::Bool, x); }
NodePtr isnan(const NodePtr& x) {
  if (!is_floating(x->dtype)) return expand_to(scalar_int(0, DType::Bool, false), x->shape);
  return elementwise(Op::IsNan, DType::Bool, x);
}
NodePtr isfinite(const NodePtr& x) {
  if (!is_floating(x->dtype)) return expand_to(scalar_int(1, DType::Bool, false), x->shape);
  return logical_not(isnan(sub(x, x)));  // inf - inf and nan - nan are nan
}
NodePtr detach(const NodePtr& x) { return make_node(Op::Detach, x->dtype, x->shape, {}, {x}); }

NodePtr sigmoid(const NodePtr& x) {
  return saving_output(float_unary(Op::Sigmoid, x));
}
NodePtr relu(const NodePtr& x) {
  // torch.relu is x where x < 0 is false: NaN and -0 are kept (1 / relu(-0)
  // is -inf), and its gradient is 0 at both zeros. where(x <= 0, ., x) gives
  // that gradient; below it, where(x < 0, 0, detach(x)) keeps the zero's sign
  // without letting a gradient through.
  if (x->dtype == DType::Bool) fail(ErrorKind::Runtime, "relu: not supported for bool tensors");
  NodePtr zero = constant_like(x, 0.0);
  NodePtr at_most_zero = is_floating(x->dtype) ? where(lt(x, zero), zero, detach(x)) : zero;
  return saving_output(where(le(x, zero), at_most_zero, x));
}
NodePtr gelu(const NodePtr& x, bool tanh_approximation) {
  NodePtr f = to_floating(x);
  NodePtr half_x = mul(constant_like(f, 0.5), f);
  if (!tanh_approximation) {
    return mul(half_x, add(constant_like(f, 1.0), erf(mul(f, constant_like(f, M_SQRT1_2)))));
  }
  NodePtr cube = mul(mul(f, f), f);
  NodePtr inner = mul(constant_like(f, std::sqrt(2.0 / M_PI)), add(f, mul(constant_like(f, 0.044715), cube)));
  return mul(half_x, add(constant_like(f, 1.0), tanh(inner)));
}
NodePtr silu(const NodePtr& x) {
  NodePtr f = to_floating(x);
  return mul(f, sigmoid(f));
}
NodePtr softplus(const NodePtr& x, double beta, double threshold) {
  NodePtr f = to_floating(x);
  NodePtr bx = mul(f, constant_like(f, beta));
  NodePtr linear = gt(bx, constant_like(f, threshold));
  // The discarded branch sees 0 where the linear one is taken: exp(bx) would
  // overflow there, and its gradient (0 * inf) would be NaN.
  NodePtr soft = div(log1p(exp(where(linear, constant_like(f, 0.0), bx))), constant_like(f, beta));
  return where(linear, f, soft);
}

// ---- binary and ternary ---------------------------------------------------------------

namespace {

struct Prepared {
  NodePtr a, b;
};

// Broadcasts and casts two operands to `dtype`.
Prepared prepare(std::string_view op, const NodePtr& a, const NodePtr& b, DType dtype) {
  Shape shape = broadcast_shapes(op, a->shape, b->shape);
  return {broadcast_operand(cast(a, dtype), shape), broadcast_operand(cast(b, dtype), shape)};
}

NodePtr arithmetic(Op op, const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  std::string_view name = op_name(op);
  if (dt == DType::Bool && (op == Op::Sub)) {
    fail(ErrorKind::Runtime, "sub: subtraction of bool tensors ", shapes_str({&a, &b}),
         " is not supported (expected numeric dtypes; use logical_xor)");
  }
  Prepared p = prepare(name, a, b, dt);
  return elementwise(op, dt, p.a, p.b);
}

NodePtr comparison(Op op, const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  Prepared p = prepare(op_name(op), a, b, dt);
  return elementwise(op, DType::Bool, p.a, p.b);
}

}  // namespace

NodePtr add(const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  if (dt == DType::Bool) return logical_or(a, b);  // bool + bool is "or" in PyTorch
  return arithmetic(Op::Add, a, b);
}
NodePtr sub(const NodePtr& a, const NodePtr& b) { return arithmetic(Op::Sub, a, b); }
NodePtr mul(const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  if (dt == DType::Bool) return logical_and(a, b);
  return arithmetic(Op::Mul, a, b);
}
NodePtr div(const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  if (!is_floating(dt)) dt = kDefaultFloat;
  Prepared p = prepare("div", a, b, dt);
  return elementwise(Op::Div, dt, p.a, p.b);
}
NodePtr pow(const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  if (dt == DType::Bool) dt = DType::Int64;
  Prepared p = prepare("pow", a, b, dt);
  return elementwise(Op::Pow, dt, p.a, p.b);
}
NodePtr maximum(const NodePtr& a, const NodePtr& b) { return arithmetic(Op::Maximum, a, b); }
NodePtr minimum(const NodePtr& a, const NodePtr& b) { return arithmetic(Op::Minimum, a, b); }
NodePtr eq(const NodePtr& a, const NodePtr& b) { return comparison(Op::Eq, a, b); }
NodePtr ne(const NodePtr& a, const NodePtr& b) { return comparison(Op::Ne, a, b); }
NodePtr lt(const NodePtr& a, const NodePtr& b) { return comparison(Op::Lt, a, b); }
NodePtr le(const NodePtr& a, const NodePtr& b) { return comparison(Op::Le, a, b); }
NodePtr gt(const NodePtr& a, const NodePtr& b) { return comparison(Op::Gt, a, b); }
NodePtr ge(const NodePtr& a, const NodePtr& b) { return comparison(Op::Ge, a, b); }
NodePtr logical_and(const NodePtr& a, const NodePtr& b) {
  Prepared p = prepare("logical_and", a, b, DType::Bool);
  return elementwise(Op::LogicalAnd, DType::Bool, p.a, p.b);
}
NodePtr logical_or(const NodePtr& a, const NodePtr& b) {
  Prepared p = prepare("logical_or", a, b, DType::Bool);
  return elementwise(Op::LogicalOr, DType::Bool, p.a, p.b);
}

NodePtr where(const NodePtr& cond, const NodePtr& a, const NodePtr& b) {
  DType dt = result_type_of({&a, &b});
  Shape shape = broadcast_shapes("where", broadcast_shapes("where", cond->shape, a->shape), b->shape);
  return elementwise(Op::Where, dt, broadcast_operand(cast(cond, DType::Bool), shape),
                     broadcast_operand(cast(a, dt), shape), broadcast_operand(cast(b, dt), shape));
}

NodePtr clamp(const NodePtr& x, const NodePtr& min, const NodePtr& max) {
  if (!min && !max) fail(ErrorKind::Runtime, "clamp: at least one of 'min' or 'max' must not be None");
  if (x->dtype == DType::Bool) fail(ErrorKind::Runtime, "clamp: not supported for bool tensors");
  // where, not maximum/minimum: at a bound the whole gradient flows to x (as
  // in PyTorch; maximum would split a tie in half). NaN in x stays NaN, and
  // min > max gives max, like min(max(x, min), max).
  NodePtr y = x;
  if (min) y = where(lt(y, min), min, y);
  if (max) y = where(gt(y, max), max, y);
  return y;
}

NodePtr apply_elementwise(Op op, const NodePtr& a, const NodePtr& b) {
  const OpInfo& info = op_info(op);
  DType dt = b ? result_type_of({&a, &b}) : a->dtype;
  switch (info.dtype_rule) {
    case DTypeRule::Float:
      if (!is_floating(dt)) dt = kDefaultFloat;
      break;
    case DTypeRule::Integer:
    case DTypeRule::IntegerOrBool: {
      bool bool_ok = info.dtype_rule == DTypeRule::IntegerOrBool;
      if (is_floating(dt) || (dt == DType::Bool && !bool_ok)) {
        fail(ErrorKind::Runtime, info.name, ": not implemented for ", dtype_name(dt), " tensors ",
             b ? shapes_str({&a, &b}) : shape_str(a->shape), " (expected integer", bool_ok ? " or bool" : "",
             " dtypes)");
      }
      break;
    }
    case DTypeRule::Same:
    case DTypeRule::Predicate:
      break;
    case DTypeRule::None:
    case DTypeRule::Cast:
      fail(ErrorKind::Runtime, info.name, ": not an elementwise op with a dtype rule");
  }
  DType out = info.dtype_rule == DTypeRule::Predicate ? DType::Bool : dt;
  if (!b) return elementwise(op, out, cast(a, dt));
  Prepared p = prepare(info.name, a, b, dt);
  return elementwise(op, out, p.a, p.b);
}

#define LT_API_UNARY(fn, op, cxx, py) \
  NodePtr fn(const NodePtr& x) { return apply_elementwise(Op::op, x); }
#define LT_API_BINARY(fn, op, cxx, py) \
  NodePtr fn(const NodePtr& a, const NodePtr& b) { return apply_elementwise(Op::op, a, b); }
#include "ir/api.def"

NodePtr primitive(Op op, DType dtype, Shape shape, Attrs attrs, NodeList inputs) {
  const OpInfo& info = op_info(op);
  if (info.arity >= 0 && static_cast<int>(inputs.size()) != info.arity) {
    fail(ErrorKind::Runtime, info.name, ": expected ", info.arity, " inputs, got ", inputs.size());
  }
  return make_node(op, dtype, std::move(shape), std::move(attrs), std::move(inputs));
}

}  // namespace lt::ops
