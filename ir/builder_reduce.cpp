// ir/builder_reduce.cpp — reductions and scans, and their composites (mean,
// var, std, logsumexp, all, any).
#include "ir/builder_util.h"

namespace lt::ops {
namespace detail {

NodePtr reduce_keep(Op op, const NodePtr& x, const Dims& dims, DType dtype) {
  if (dims.empty()) return cast(x, dtype);
  Shape out = x->shape;
  for (int64_t d : dims) out[d] = 1;
  Attrs attrs(dims.begin(), dims.end());
  return make_node(op, dtype, std::move(out), std::move(attrs), {cast(x, op == Op::ArgMax || op == Op::ArgMin ? x->dtype : dtype)});
}

NodePtr drop_dims(const NodePtr& x, const Dims& dims) {
  if (dims.empty()) return x;
  Shape out;
  size_t j = 0;
  for (int64_t i = 0; i < x->ndim(); ++i) {
    if (j < dims.size() && dims[j] == i) {
      ++j;
      continue;
    }
    out.push_back(x->shape[i]);
  }
  return reshape_exact(x, out);
}

}  // namespace detail

using namespace detail;

static NodePtr finish(const NodePtr& r, const Dims& dims, bool keepdim) { return keepdim ? r : drop_dims(r, dims); }

static DType accumulate_type(DType in, std::optional<DType> requested) {
  if (requested) return *requested;
  return is_floating(in) ? in : DType::Int64;
}

NodePtr sum(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim, std::optional<DType> dtype) {
  Dims d = normalize_dims("sum", dims, x->ndim());
  return finish(reduce_keep(Op::ReduceSum, x, d, accumulate_type(x->dtype, dtype)), d, keepdim);
}

NodePtr prod(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim, std::optional<DType> dtype) {
  Dims d = normalize_dims("prod", dims, x->ndim());
  return finish(reduce_keep(Op::ReduceProd, x, d, accumulate_type(x->dtype, dtype)), d, keepdim);
}

static int64_t reduced_count(const NodePtr& x, const Dims& d) {
  int64_t n = 1;
  for (int64_t i : d) n *= x->shape[i];
  return n;
}

NodePtr mean(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  if (!is_floating(x->dtype)) {
    fail(ErrorKind::Runtime, "mean: could not infer output dtype; input dtype ", dtype_name(x->dtype),
         " must be floating point");
  }
  // Float16/BFloat16: sum and divide in float32, round once (as torch; a
  // narrow sum would overflow where the mean does not).
  if (is_low_precision_float(x->dtype)) return cast(mean(cast(x, DType::Float32), dims, keepdim), x->dtype);
  Dims d = normalize_dims("mean", dims, x->ndim());
  NodePtr s = reduce_keep(Op::ReduceSum, x, d, x->dtype);
  NodePtr m = div(s, constant_like(s, static_cast<double>(reduced_count(x, d))));
  return finish(m, d, keepdim);
}

static NodePtr extreme(std::string_view name, Op op, const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  Dims d = normalize_dims(name, dims, x->ndim());
  for (int64_t i : d) {
    if (x->shape[i] == 0) {
      fail(ErrorKind::Index, name, ": expected reduction dim ", i, " of shape ", shape_str(x->shape),
           " to have non-zero size");
    }
  }
  if (x->ndim() == 0 && x->numel() == 0) fail(ErrorKind::Index, name, ": empty input");
  return finish(reduce_keep(op, x, d, x->dtype), d, keepdim);
}

NodePtr amax(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  return extreme("amax", Op::ReduceMax, x, dims, keepdim);
}
NodePtr amin(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  return extreme("amin", Op::ReduceMin, x, dims, keepdim);
}

static NodePtr arg_extreme(std::string_view name, Op op, const NodePtr& x, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    if (x->numel() == 0) {  // PyTorch: IndexError ("Expected reduction dim to be specified for input.numel() == 0")
      fail(ErrorKind::Index, name, ": expected a non-empty tensor (or a reduction dim), got shape ", shape_str(x->shape));
    }
    NodePtr flat = reshape_exact(x, Shape{x->numel()});
    NodePtr r = reduce_keep(op, flat, Dims{0}, DType::Int64);
    if (keepdim) return reshape_exact(r, Shape(x->shape.size(), 1));
    return reshape_exact(r, Shape{});
  }
  int64_t d = normalize_dim(name, *dim, x->ndim());
  if (x->ndim() == 0) return scalar_int(0, DType::Int64, false);
  if (x->shape[d] == 0) {
    fail(ErrorKind::Index, name, ": expected reduction dim ", d, " of shape ", shape_str(x->shape), " to have non-zero size");
  }
  return finish(reduce_keep(op, x, Dims{d}, DType::Int64), Dims{d}, keepdim);
}

NodePtr argmax(const NodePtr& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme("argmax", Op::ArgMax, x, dim, keepdim);
}
NodePtr argmin(const NodePtr& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme("argmin", Op::ArgMin, x, dim, keepdim);
}

NodePtr var(const NodePtr& x, absl::Span<const int64_t> dims, int64_t correction, bool keepdim) {
  if (!is_floating(x->dtype)) {
    fail(ErrorKind::Runtime, "var: input dtype ", dtype_name(x->dtype), " must be floating point");
  }
  if (is_low_precision_float(x->dtype)) return cast(var(cast(x, DType::Float32), dims, correction, keepdim), x->dtype);
  Dims d = normalize_dims("var", dims, x->ndim());
  int64_t n = reduced_count(x, d);
  NodePtr m = mean(x, d, /*keepdim=*/true);
  NodePtr diff = sub(x, m);
  NodePtr ss = reduce_keep(Op::ReduceSum, mul(diff, diff), d, x->dtype);
  NodePtr v = div(ss, constant_like(ss, static_cast<double>(std::max<int64_t>(n - correction, 0))));
  return finish(v, d, keepdim);
}

NodePtr std(const NodePtr& x, absl::Span<const int64_t> dims, int64_t correction, bool keepdim) {
  // PyTorch's gradient where the std is 0 (a constant row) is 0; sqrt's would be g / 0 times var's 0 = NaN.
  NodePtr v = var(x, dims, correction, keepdim);
  NodePtr zero = eq(v, constant_like(v, 0.0));
  return where(zero, constant_like(v, 0.0), sqrt(where(zero, constant_like(v, 1.0), v)));
}

NodePtr logsumexp(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  NodePtr f = is_floating(x->dtype) ? x : cast(x, kDefaultFloat);
  Dims d = normalize_dims("logsumexp", dims, f->ndim());
  if (f->numel() == 0) return finish(log(reduce_keep(Op::ReduceSum, exp(f), d, f->dtype)), d, keepdim);
  // Shift by the (detached) max; an infinite max shifts by 0 so -inf rows stay -inf.
  NodePtr m = detach(reduce_keep(Op::ReduceMax, f, d, f->dtype));
  NodePtr shift = where(isfinite(m), m, constant_like(m, 0.0));
  NodePtr s = reduce_keep(Op::ReduceSum, exp(sub(f, shift)), d, f->dtype);
  return finish(add(log(s), shift), d, keepdim);
}

NodePtr all(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  Dims d = normalize_dims("all", dims, x->ndim());
  NodePtr falses = reduce_keep(Op::ReduceSum, cast(logical_not(x), DType::Int64), d, DType::Int64);
  return finish(eq(falses, scalar_int(0, DType::Int64, false)), d, keepdim);
}

NodePtr any(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim) {
  Dims d = normalize_dims("any", dims, x->ndim());
  NodePtr trues = reduce_keep(Op::ReduceSum, cast(cast(x, DType::Bool), DType::Int64), d, DType::Int64);
  return finish(ne(trues, scalar_int(0, DType::Int64, false)), d, keepdim);
}

NodePtr cumsum(const NodePtr& x, int64_t dim, std::optional<DType> dtype) {
  int64_t d = normalize_dim("cumsum", dim, x->ndim());
  DType dt = accumulate_type(x->dtype, dtype);
  NodePtr c = cast(x, dt);
  if (c->ndim() == 0) return c;
  return make_node(Op::CumSum, dt, c->shape, {d}, {c});
}

}  // namespace lt::ops
