// ir/builder_nn.cpp — indexing, matmul and the neural-network composites
// (softmax, log_softmax, layer_norm, losses, one_hot, embedding), convolutions.
#include <numeric>

#include "ir/builder_util.h"
#include "ir/conv.h"

namespace lt::ops {
using namespace detail;

static void check_index_dtype(std::string_view op, const NodePtr& index) {
  if (index->dtype != DType::Int64 && index->dtype != DType::Int32) {
    fail(ErrorKind::Runtime, op, ": expected an integer index tensor (int64 or int32), got ", dtype_name(index->dtype),
         " with shape ", shape_str(index->shape));
  }
}

void check_known_index(std::string_view op, ErrorKind kind, const NodePtr& index, int64_t dim, int64_t size,
                       bool wrap) {
  if (!index->is_materialized() || index->buffer->numel() != index->numel()) return;
  const int64_t lo = wrap ? -size : 0;
  auto scan = [&](const auto* v) {
    for (int64_t i = 0, n = index->numel(); i < n; ++i) {
      const int64_t x = static_cast<int64_t>(v[i]);
      if (x >= lo && x < size) continue;
      fail(kind, op, op.empty() ? "" : ": ", "index ", x, " is out of bounds for dimension ", dim, " with size ",
           size);
    }
  };
  if (index->dtype == DType::Int64) scan(index->buffer->as<int64_t>());
  if (index->dtype == DType::Int32) scan(index->buffer->as<int32_t>());
}

namespace {
// attrs of Gather / ScatterAdd: {axis}, or {axis, 1} when an index out of
// range found inside a kernel must raise ErrorKind::Runtime instead of
// Index: PyTorch raises RuntimeError for gather, scatter_add and one_hot
// but IndexError for index_select, embedding, index_add and nll_loss.
Attrs index_attrs(int64_t axis, ErrorKind on_bad_index) {
  if (on_bad_index == ErrorKind::Runtime) return {axis, 1};
  return {axis};
}

NodePtr gather_raising(const NodePtr& x, int64_t dim, const NodePtr& index, ErrorKind on_bad_index);
NodePtr scatter_add_raising(const NodePtr& x, int64_t dim, const NodePtr& index, const NodePtr& src,
                            ErrorKind on_bad_index);
}  // namespace

NodePtr gather(const NodePtr& x, int64_t dim, const NodePtr& index) {
  return gather_raising(x, dim, index, ErrorKind::Runtime);
}

NodePtr scatter_add(const NodePtr& x, int64_t dim, const NodePtr& index, const NodePtr& src) {
  return scatter_add_raising(x, dim, index, src, ErrorKind::Runtime);
}

namespace {
NodePtr gather_raising(const NodePtr& x, int64_t dim, const NodePtr& index, ErrorKind on_bad_index) {
  if (index->dtype != DType::Int64) {
    fail(ErrorKind::Runtime, "gather: expected dtype int64 for index, got ", dtype_name(index->dtype));
  }
  int64_t nd = std::max<int64_t>(x->ndim(), 1);
  int64_t d = normalize_dim("gather", dim, x->ndim());
  NodePtr xs = x->ndim() == 0 ? reshape_exact(x, Shape{1}) : x;
  NodePtr is = index->ndim() == 0 ? reshape_exact(index, Shape{1}) : index;
  if (is->ndim() != nd) {
    fail(ErrorKind::Runtime, "gather: index tensor must have the same number of dimensions as input tensor (input ",
         shape_str(x->shape), ", index ", shape_str(index->shape), ")");
  }
  for (int64_t i = 0; i < nd; ++i) {
    if (i != d && is->shape[i] > xs->shape[i]) {
      fail(ErrorKind::Runtime, "gather: size of index ", shape_str(index->shape), " at dim ", i,
           " must not exceed the input's ", shape_str(x->shape), " except at dim ", d);
    }
  }
  check_known_index("gather", on_bad_index, index, d, xs->shape[d]);
  NodePtr g = make_node(Op::Gather, x->dtype, is->shape, index_attrs(d, on_bad_index), {xs, is});
  return reshape_exact(g, index->shape);
}
}  // namespace

NodePtr index_select(const NodePtr& x, int64_t dim, const NodePtr& index) {
  check_index_dtype("index_select", index);
  if (index->ndim() > 1) {
    fail(ErrorKind::Index, "index_select: index must be 0-D or 1-D, got shape ", shape_str(index->shape));
  }
  if (x->ndim() == 0) {
    return reshape_exact(gather_raising(reshape_exact(x, Shape{1}), 0, cast(reshape(index, {-1}), DType::Int64),
                                        ErrorKind::Index),
                         index->shape);
  }
  int64_t d = normalize_dim("index_select", dim, x->ndim());
  check_known_index("index_select", ErrorKind::Index, index, d, x->shape[d]);
  int64_t n = index->numel();
  Shape out = x->shape;
  out[d] = n;
  Shape col(x->ndim(), 1);
  col[d] = n;
  NodePtr idx = expand_to(reshape_exact(cast(index, DType::Int64), col), out);
  return make_node(Op::Gather, x->dtype, out, {d}, {x, idx});
}

namespace {
NodePtr scatter_add_raising(const NodePtr& x, int64_t dim, const NodePtr& index, const NodePtr& src,
                            ErrorKind on_bad_index) {
  if (index->dtype != DType::Int64) {
    fail(ErrorKind::Runtime, "scatter_add: expected dtype int64 for index, got ", dtype_name(index->dtype));
  }
  if (src->dtype != x->dtype) {
    fail(ErrorKind::Runtime, "scatter_add: expected src dtype ", dtype_name(x->dtype), " to match self, got ",
         dtype_name(src->dtype));
  }
  int64_t d = normalize_dim("scatter_add", dim, x->ndim());
  if (x->ndim() == 0) {  // as PyTorch: a 0-d self (dim 0 or -1) is one element along dim 0
    auto one = [](const NodePtr& v) { return v->ndim() == 0 ? reshape_exact(v, Shape{1}) : v; };
    return reshape_exact(scatter_add_raising(one(x), 0, one(index), one(src), on_bad_index), Shape{});
  }
  if (index->ndim() != x->ndim() || src->ndim() != x->ndim()) {
    fail(ErrorKind::Runtime, "scatter_add: index ", shape_str(index->shape), ", src ", shape_str(src->shape),
         " and self ", shape_str(x->shape), " must have the same number of dimensions");
  }
  Shape starts(x->ndim(), 0), steps(x->ndim(), 1);
  for (int64_t i = 0; i < x->ndim(); ++i) {
    if (index->shape[i] > src->shape[i] || (i != d && index->shape[i] > x->shape[i])) {
      fail(ErrorKind::Runtime, "scatter_add: expected index ", shape_str(index->shape), " to be no larger than src ",
           shape_str(src->shape), " in every dim, and no larger than self ", shape_str(x->shape), " apart from dim ", d);
    }
  }
  check_known_index("scatter", on_bad_index, index, d, x->shape[d]);
  if (index->numel() == 0) return x;
  NodePtr s = src->shape == index->shape ? src : slice(src, 0, 0, index->shape[0]);
  for (int64_t i = 1; i < x->ndim() && s->shape != index->shape; ++i) s = slice(s, i, 0, index->shape[i]);
  return make_node(Op::ScatterAdd, x->dtype, x->shape, index_attrs(d, on_bad_index), {x, index, s});
}
}  // namespace

NodePtr index_add(const NodePtr& x, int64_t dim, const NodePtr& index, const NodePtr& src, double alpha) {
  check_index_dtype("index_add", index);
  if (index->ndim() > 1) fail(ErrorKind::Index, "index_add: index must be 0-D or 1-D, got ", shape_str(index->shape));
  int64_t d = normalize_dim("index_add", dim, x->ndim());
  check_known_index("index_add", ErrorKind::Index, index, d, x->ndim() == 0 ? 1 : x->shape[d]);
  Shape want = x->shape;
  if (x->ndim() > 0) want[d] = index->numel();
  if (src->shape != want && !(x->ndim() == 0 && src->numel() == 1)) {
    fail(ErrorKind::Runtime, "index_add: source ", shape_str(src->shape), " must have shape ", shape_str(want),
         " (self ", shape_str(x->shape), " with dim ", d, " replaced by the index length ", index->numel(), ")");
  }
  NodePtr xs = x->ndim() == 0 ? reshape_exact(x, Shape{1}) : x;
  NodePtr ss = reshape_exact(cast(alpha == 1.0 ? src : mul(src, scalar(alpha, src->dtype, true)), x->dtype),
                             x->ndim() == 0 ? Shape{1} : want);
  Shape col(xs->ndim(), 1);
  col[d] = index->numel();
  NodePtr idx = expand_to(reshape_exact(cast(index, DType::Int64), col), ss->shape);
  return reshape_exact(scatter_add_raising(xs, d, idx, ss, ErrorKind::Index), x->shape);
}

NodePtr masked_fill(const NodePtr& x, const NodePtr& mask, const NodePtr& value) {
  if (mask->dtype != DType::Bool) {
    fail(ErrorKind::Runtime, "masked_fill: expected a bool mask, got ", dtype_name(mask->dtype));
  }
  if (value->ndim() != 0) {
    fail(ErrorKind::Runtime, "masked_fill: only supports a 0-dimensional value, got shape ", shape_str(value->shape));
  }
  // Out of place, self and mask broadcast together, as in PyTorch
  // (expand_outplace); masked_fill_ then requires the result to keep self's
  // shape (lazy/tensor.cpp, inplace()).
  broadcast_shapes("masked_fill", x->shape, mask->shape);
  return where(mask, cast(value, x->dtype), x);
}

NodePtr matmul(const NodePtr& a, const NodePtr& b) {
  if (a->ndim() == 0 || b->ndim() == 0) {
    fail(ErrorKind::Runtime, "matmul: both arguments need at least 1 dimension, got shapes ", shapes_str({&a, &b}));
  }
  if (a->dtype != b->dtype) {
    fail(ErrorKind::Runtime, "matmul: expected both operands to have the same dtype, got ", dtype_name(a->dtype),
         " and ", dtype_name(b->dtype));
  }
  if (a->dtype == DType::Bool) fail(ErrorKind::Runtime, "matmul: not implemented for bool tensors");
  // Narrow dtypes multiply in a wide one and round (float16/bfloat16: float32
  // accumulation, one rounding, as torch's CPU kernels) or wrap (int8, uint8,
  // int16: the low bits of an int64 product are the narrow product's).
  if (is_low_precision_float(a->dtype)) return cast(matmul(cast(a, DType::Float32), cast(b, DType::Float32)), a->dtype);
  if (is_narrow_int(a->dtype)) return cast(matmul(cast(a, DType::Int64), cast(b, DType::Int64)), a->dtype);
  NodePtr x = a->ndim() == 1 ? unsqueeze(a, 0) : a;
  NodePtr y = b->ndim() == 1 ? unsqueeze(b, 1) : b;
  int64_t k1 = x->shape[x->ndim() - 1], k2 = y->shape[y->ndim() - 2];
  if (k1 != k2) {
    fail(ErrorKind::Runtime, "matmul: shapes ", shapes_str({&a, &b}), " cannot be multiplied (", k1, " != ", k2, ")");
  }
  Shape xb(x->shape.begin(), x->shape.end() - 2), yb(y->shape.begin(), y->shape.end() - 2);
  Shape batch = broadcast_shapes("matmul", xb, yb);
  int64_t m = x->shape[x->ndim() - 2], n = y->shape[y->ndim() - 1];
  Shape xs = batch, ys = batch, out = batch;
  xs.insert(xs.end(), {m, k1});
  ys.insert(ys.end(), {k1, n});
  out.insert(out.end(), {m, n});
  NodePtr r = make_node(Op::MatMul, a->dtype, out, {}, {expand_to(x, xs), expand_to(y, ys)});
  Shape final = batch;
  if (a->ndim() > 1) final.push_back(m);
  if (b->ndim() > 1) final.push_back(n);
  return reshape_exact(r, final);
}

NodePtr linear(const NodePtr& x, const NodePtr& weight, const NodePtr& bias) {
  if (weight->ndim() != 2 && weight->ndim() != 1) {
    fail(ErrorKind::Runtime, "linear: weight must be 1-D or 2-D, got shape ", shape_str(weight->shape));
  }
  NodePtr y = matmul(x, weight->ndim() == 2 ? transpose(weight, 0, 1) : weight);
  return bias ? add(y, bias) : y;
}

static NodePtr require_floating(std::string_view op, const NodePtr& x) {
  if (!is_floating(x->dtype)) {
    fail(ErrorKind::Runtime, op, ": expected a floating point input, got ", dtype_name(x->dtype), " with shape ",
         shape_str(x->shape));
  }
  return x;
}

NodePtr softmax(const NodePtr& x, int64_t dim) {
  require_floating("softmax", x);
  if (is_low_precision_float(x->dtype)) return cast(softmax(cast(x, DType::Float32), dim), x->dtype);  // as torch's CPU kernel
  int64_t d = normalize_dim("softmax", dim, x->ndim());
  if (x->ndim() == 0) return div(exp(x), exp(x));
  Dims dims{d};
  NodePtr m = detach(reduce_keep(Op::ReduceMax, x, dims, x->dtype));
  NodePtr e = exp(sub(x, m));
  return saving_output(div(e, reduce_keep(Op::ReduceSum, e, dims, x->dtype)));
}

NodePtr log_softmax(const NodePtr& x, int64_t dim) {
  require_floating("log_softmax", x);
  if (is_low_precision_float(x->dtype)) return cast(log_softmax(cast(x, DType::Float32), dim), x->dtype);
  int64_t d = normalize_dim("log_softmax", dim, x->ndim());
  if (x->ndim() == 0) return sub(x, x);
  Dims dims{d};
  NodePtr shifted = sub(x, detach(reduce_keep(Op::ReduceMax, x, dims, x->dtype)));
  return saving_output(sub(shifted, log(reduce_keep(Op::ReduceSum, exp(shifted), dims, x->dtype))));
}

NodePtr layer_norm(const NodePtr& x, absl::Span<const int64_t> normalized_shape, const NodePtr& weight,
                   const NodePtr& bias, double eps) {
  require_floating("layer_norm", x);
  if (is_low_precision_float(x->dtype)) {  // statistics in float32, one rounding (torch's CPU kernel)
    auto wide = [](const NodePtr& p) { return p ? cast(p, DType::Float32) : p; };
    return cast(layer_norm(wide(x), normalized_shape, wide(weight), wide(bias), eps), x->dtype);
  }
  int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool ok = k >= 1 && k <= x->ndim();
  for (int64_t i = 0; ok && i < k; ++i) ok = x->shape[x->ndim() - k + i] == normalized_shape[i];
  if (!ok) {
    fail(ErrorKind::Runtime, "layer_norm: input shape ", shape_str(x->shape),
         " does not end with normalized_shape ", shape_str(normalized_shape));
  }
  Shape ns(normalized_shape.begin(), normalized_shape.end());
  for (const NodePtr* p : {&weight, &bias}) {
    if (*p && (*p)->shape != ns) {
      fail(ErrorKind::Runtime, "layer_norm: expected weight and bias of shape ", shape_str(ns), ", got ",
           shape_str((*p)->shape));
    }
  }
  Dims dims;
  for (int64_t i = x->ndim() - k; i < x->ndim(); ++i) dims.push_back(i);
  NodePtr m = mean(x, dims, true);
  NodePtr centered = sub(x, m);
  NodePtr v = mean(mul(centered, centered), dims, true);
  NodePtr y = mul(centered, rsqrt(add(v, constant_like(v, eps))));
  if (weight) y = mul(y, weight);
  if (bias) y = add(y, bias);
  return y;
}

static NodePtr reduce_loss(const NodePtr& loss, Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Sum: return sum(loss);
    case Reduction::Mean: return mean(loss);
  }
  return loss;
}

/// Target checks shared by nll_loss and cross_entropy, named after the op the user called.
static void check_class_target(std::string_view op, const NodePtr& input, const NodePtr& target) {
  if (target->dtype != DType::Int64) {
    fail(ErrorKind::Runtime, op, ": expected target of dtype int64 (class indices), got ", dtype_name(target->dtype));
  }
  if (input->ndim() >= 2 && target->ndim() >= 1 && input->shape[0] != target->shape[0]) {  // PyTorch: ValueError
    fail(ErrorKind::Value, op, ": expected input batch_size (", input->shape[0], ") to match target batch_size (",
         target->shape[0], "); input ", shape_str(input->shape), ", target ", shape_str(target->shape));
  }
  int64_t cdim = input->ndim() >= 2 ? 1 : 0;
  Shape want = input->shape;
  if (!want.empty()) want.erase(want.begin() + cdim);
  if (input->ndim() == 0 || target->shape != want) {
    fail(ErrorKind::Runtime, op, ": expected target of shape ", shape_str(want), " for input of shape ",
         shape_str(input->shape), ", got ", shape_str(target->shape));
  }
}

NodePtr class_target(const NodePtr& target, int64_t num_classes) {
  if (target->dtype != DType::Int64) {
    fail(ErrorKind::Runtime, "class_target: expected int64 class indices, got ", dtype_name(target->dtype));
  }
  if (target->numel() == 0) return target;
  // A gather from iota(num_classes) is the identity on valid indices; its index check (attrs {0, 2}) is an
  // effect every backend keeps, so the loss and also a gradient alone (whose one-hot where(iota == target)
  // would turn a bad target into a silent zero row) raise.
  NodePtr flat = reshape_exact(target, Shape{target->numel()});
  NodePtr checked = make_node(Op::Gather, DType::Int64, flat->shape, {0, 2}, {iota(Shape{num_classes}, 0), flat});
  return reshape_exact(checked, target->shape);
}

NodePtr nll_loss(const NodePtr& log_probs, const NodePtr& target, Reduction reduction, int64_t ignore_index) {
  require_floating("nll_loss", log_probs);
  check_class_target("nll_loss", log_probs, target);
  int64_t cdim = log_probs->ndim() >= 2 ? 1 : 0;
  NodePtr ignore = scalar_int(ignore_index, DType::Int64, false);
  NodePtr valid = ne(target, ignore);
  NodePtr safe = class_target(where(valid, target, scalar_int(0, DType::Int64, false)), log_probs->shape[cdim]);
  NodePtr picked = squeeze(gather_raising(log_probs, cdim, unsqueeze(safe, cdim), ErrorKind::Index), cdim);
  NodePtr loss = where(valid, neg(picked), scalar(0.0, log_probs->dtype, false));
  if (reduction != Reduction::Mean) return reduce_loss(loss, reduction);
  return div(sum(loss), sum(cast(valid, log_probs->dtype)));
}

NodePtr cross_entropy(const NodePtr& logits, const NodePtr& target, Reduction reduction, int64_t ignore_index) {
  require_floating("cross_entropy", logits);
  if (logits->ndim() == 0) fail(ErrorKind::Runtime, "cross_entropy: expected input with at least 1 dim");
  check_class_target("cross_entropy", logits, target);
  int64_t cdim = logits->ndim() >= 2 ? 1 : 0;
  return nll_loss(log_softmax(logits, cdim), target, reduction, ignore_index);
}

NodePtr mse_loss(const NodePtr& input, const NodePtr& target, Reduction reduction) {
  NodePtr d = sub(input, target);
  return reduce_loss(mul(d, d), reduction);
}

NodePtr one_hot(const NodePtr& index, int64_t num_classes) {
  if (index->dtype != DType::Int64) {
    fail(ErrorKind::Runtime, "one_hot: is only applicable to index tensors of dtype int64, got ",
         dtype_name(index->dtype));
  }
  if (num_classes < 0) {
    fail(ErrorKind::Runtime, "one_hot: num_classes must be given (>= 0) at this level; got ", num_classes);
  }
  Shape out = index->shape;
  out.push_back(num_classes);
  NodePtr hot = cast(eq(unsqueeze(index, -1), iota(out, -1)), DType::Int64);
  if (index->numel() == 0 || num_classes == 0) return hot;
  // Gathering a row of ones at the indices raises at sync for an index outside
  // [0, num_classes), as torch.one_hot does, instead of giving a zero row.
  NodePtr checked = gather(ones(Shape{num_classes}, DType::Int64), 0, reshape(index, {-1}));
  return mul(hot, unsqueeze(reshape_exact(checked, index->shape), -1));
}

NodePtr embedding(const NodePtr& weight, const NodePtr& index) {
  check_index_dtype("embedding", index);
  if (weight->ndim() != 2) fail(ErrorKind::Runtime, "embedding: weight must be 2-D, got ", shape_str(weight->shape));
  check_known_index("embedding", ErrorKind::Index, index, 0, weight->shape[0]);
  NodePtr rows = index_select(weight, 0, reshape(index, {-1}));
  Shape out = index->shape;
  out.push_back(weight->shape[1]);
  return reshape_exact(rows, out);
}

// ---- convolutions (ir/conv.h) ----

namespace {
// The operands of a convolution primitive in a dtype it computes in: float32
// and float64 as they are, float16 / bfloat16 widened (the result is cast
// back by the caller); anything else raises naming `fn`.
DType conv_compute_dtype(std::string_view fn, const NodePtr& a, const NodePtr& b) {
  if (a->dtype != b->dtype || !is_floating(a->dtype))
    fail(ErrorKind::Runtime, fn, ": expected both operands to have the same floating point dtype, got ",
         dtype_name(a->dtype), " and ", dtype_name(b->dtype));
  return is_low_precision_float(a->dtype) ? DType::Float32 : a->dtype;
}

NodePtr conv_node(Op op, const NodePtr& a, const NodePtr& b, const Attrs& attrs, Shape shape) {
  DType dt = conv_compute_dtype(op_name(op), a, b);
  conv_geometry(op, attrs, a->shape, b->shape, shape);  // raises when they do not fit
  NodePtr r = make_node(op, dt, std::move(shape), attrs, {cast(a, dt), cast(b, dt)});
  return cast(r, a->dtype);
}
}  // namespace

NodePtr conv(const NodePtr& x, const NodePtr& w, absl::Span<const int64_t> stride, absl::Span<const int64_t> pad_lo,
             absl::Span<const int64_t> pad_hi, absl::Span<const int64_t> dilation, int64_t groups) {
  const size_t nd = x->ndim() < 3 ? 0 : x->ndim() - 2;
  if (nd == 0 || w->ndim() != x->ndim() || stride.size() != nd || pad_lo.size() != nd || pad_hi.size() != nd ||
      dilation.size() != nd)
    fail(ErrorKind::Runtime, "conv: expected input [N, C, *spatial] and weight [O, C/groups, *kernel] of the same rank "
         ">= 3 and one stride, padding and dilation per spatial dim, got input ", shape_str(x->shape), " and weight ",
         shape_str(w->shape));
  if (groups <= 0 || x->shape[1] % groups != 0 || w->shape[0] % groups != 0 || w->shape[1] * groups != x->shape[1])
    fail(ErrorKind::Runtime, "conv: given groups=", groups, " and weight ", shape_str(w->shape), ", expected input ",
         shape_str(x->shape), " to have ", w->shape[1] * groups, " channels and ", groups,
         " to divide the weight's dim 0");
  Shape out{x->shape[0], w->shape[0]};
  for (size_t j = 0; j < nd; ++j) {
    if (stride[j] <= 0 || dilation[j] <= 0 || pad_lo[j] < 0 || pad_hi[j] < 0)
      fail(ErrorKind::Runtime, "conv: stride and dilation must be positive and padding non-negative");
    int64_t padded = x->shape[2 + j] + pad_lo[j] + pad_hi[j], span = dilation[j] * (w->shape[2 + j] - 1) + 1;
    if (padded < span)
      fail(ErrorKind::Runtime, "conv: calculated padded input size per channel ", padded, " (dim ", j,
           ") is smaller than the dilated kernel size ", span, " (input ", shape_str(x->shape), ", weight ",
           shape_str(w->shape), ")");
    out.push_back((padded - span) / stride[j] + 1);
  }
  return conv_node(Op::Conv, x, w, conv_attrs(groups, stride, pad_lo, dilation), std::move(out));
}

namespace {
// The input gradient of a strided convolution as one stride-1 input gradient
// per phase of the stride. Input positions r + s*a (per dim) are reached only
// by the taps t with t*d = r + pad (mod s): t0, t0 + s/g, ... (g = gcd(s, d),
// t0 the smallest), through output positions a + e - m*d/g (m the tap's index
// among those, e = (r + pad - t0*d) / s): a stride-1 transposed convolution of
// dy with the weight's taps t0::(s/g), dilation d/g and leading padding e.
// The phases are interleaved (stack, permute, reshape, crop). One kernel with
// guarded loads multiplies the zeros between the strided positions: 4x the
// work at stride 2, and 0 * inf where PyTorch (col2im) has no term. Null when
// some phase would need a negative padding (a dilation larger than the
// padding allows): the caller then builds the single kernel.
NodePtr strided_input_grad(const NodePtr& dy, const NodePtr& w, const Attrs& attrs, absl::Span<const int64_t> in_size,
                           const Shape& shape) {
  const int64_t nd = attrs[0], groups = attrs[1];
  Shape phase_shape{shape[0], shape[1]}, grid{shape[0], shape[1]};
  int64_t phases = 1;
  for (int64_t j = 0; j < nd; ++j) {
    const int64_t s = attrs[2 + j];
    phase_shape.push_back((in_size[j] + s - 1) / s);
    grid.push_back(s);
    phases *= s;
  }
  std::vector<NodePtr> pieces;
  for (int64_t ph = 0; ph < phases; ++ph) {
    NodePtr wp = w;
    Shape lead(nd), ones(nd, 1), dil(nd);
    bool empty = false;
    for (int64_t j = nd, rest = ph; j-- > 0;) {
      const int64_t s = attrs[2 + j], pad = attrs[2 + nd + j], d = attrs[2 + 2 * nd + j], r = rest % s;
      rest /= s;
      const int64_t g = std::gcd(s, d), step = s / g;
      int64_t t0 = 0;
      while (t0 < step && (t0 * d - r - pad) % s != 0) ++t0;
      if (t0 == step || t0 >= w->shape[2 + j]) {
        empty = true;  // no tap reaches these positions: their gradient is 0
        continue;
      }
      if (r + pad - t0 * d < 0) return nullptr;
      wp = slice(wp, 2 + j, t0, std::nullopt, step);
      lead[j] = (r + pad - t0 * d) / s;
      dil[j] = d / g;
    }
    pieces.push_back(empty ? zeros(phase_shape, dy->dtype)
                           : conv_node(Op::ConvInputGrad, dy, wp, conv_attrs(groups, ones, lead, dil), phase_shape));
  }
  // [N, C, phases, *A] -> [N, C, s0, s1, .., A0, A1, ..] -> [N, C, A0, s0, A1, s1, ..] -> [N, C, A0*s0, ..], cropped.
  Shape split{shape[0], shape[1]};
  for (int64_t j = 0; j < nd; ++j) split.push_back(grid[2 + j]);
  for (int64_t j = 0; j < nd; ++j) split.push_back(phase_shape[2 + j]);
  Dims perm{0, 1};
  Shape merged{shape[0], shape[1]};
  for (int64_t j = 0; j < nd; ++j) {
    perm.push_back(2 + nd + j), perm.push_back(2 + j);
    merged.push_back(phase_shape[2 + j] * grid[2 + j]);
  }
  NodePtr out = reshape(permute(reshape(stack(pieces, 2), split), perm), merged);
  for (int64_t j = 0; j < nd; ++j)
    if (merged[2 + j] != in_size[j]) out = slice(out, 2 + j, 0, in_size[j]);
  return out;
}
}  // namespace

NodePtr conv_input_grad(const NodePtr& dy, const NodePtr& w, const Attrs& attrs, absl::Span<const int64_t> in_size) {
  int64_t groups = attrs.size() > 1 ? attrs[1] : 1;
  if (dy->ndim() < 3 || w->ndim() != dy->ndim() || in_size.size() + 2 != dy->ndim())
    fail(ErrorKind::Runtime, "conv_input_grad: expected dy [N, O, *out] and weight [O, C/groups, *kernel] of one "
         "rank and one input size per spatial dim, got ", shape_str(dy->shape), " and ", shape_str(w->shape));
  Shape shape{dy->shape[0], w->shape[1] * groups};
  shape.insert(shape.end(), in_size.begin(), in_size.end());
  conv_geometry(Op::ConvInputGrad, attrs, dy->shape, w->shape, shape);  // raises when they do not fit
  const int64_t nd = attrs[0];
  bool strided = false;
  for (int64_t j = 0; j < nd; ++j) strided |= attrs[2 + j] > 1;
  if (strided)
    if (NodePtr phased = strided_input_grad(dy, w, attrs, in_size, shape)) return phased;
  return conv_node(Op::ConvInputGrad, dy, w, attrs, std::move(shape));
}

NodePtr conv_weight_grad(const NodePtr& x, const NodePtr& dy, const Attrs& attrs,
                         absl::Span<const int64_t> kernel_size) {
  int64_t groups = attrs.size() > 1 ? attrs[1] : 1;
  if (x->ndim() < 3 || dy->ndim() != x->ndim() || kernel_size.size() + 2 != x->ndim() || groups <= 0)
    fail(ErrorKind::Runtime, "conv_weight_grad: expected x [N, C, *in] and dy [N, O, *out] of one rank and one "
         "kernel size per spatial dim, got ", shape_str(x->shape), " and ", shape_str(dy->shape));
  Shape shape{dy->shape[1], x->shape[1] / groups};
  shape.insert(shape.end(), kernel_size.begin(), kernel_size.end());
  return conv_node(Op::ConvWeightGrad, x, dy, attrs, std::move(shape));
}

}  // namespace lt::ops
