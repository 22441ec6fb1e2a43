// autograd/derivatives.cpp — one derivative rule per primitive op.
//
// Rules are written with the builder (ir/builder.h), so a gradient is more
// lazy IR that lands in the same trace as the forward pass and fuses with it.
// Each rule receives y (the primitive node, whose inputs obey the primitive
// conventions of ir/ops.h: elementwise operands share y's shape and dtype, or
// are rank-0 Scalar nodes, which never require grad) and
// g, the gradient of y. Composites (softmax, layer_norm, losses, ...) need no
// rules: they are differentiated through their decomposition.
//
// Conventions follow PyTorch's derivatives.yaml where a choice exists:
// ties of maximum/minimum split the gradient in half, ties of amax/amin split
// it evenly, pow's exponent gradient is 0 where the base is 0 and the exponent
// >= 0, abs has gradient 0 at 0, and rounding ops have gradient 0.
#include "autograd/derivatives.h"

#include <algorithm>
#include <cmath>

#include "ir/builder.h"
#include "ir/error.h"

namespace lt::autograd {
namespace {

NodePtr constant(const NodePtr& like, double v) { return ops::scalar(v, like->dtype, /*wrapped=*/false); }
NodePtr zeros_like(const NodePtr& x) { return ops::zeros(x->shape, x->dtype); }

/// A Slice primitive over every dim (identity when it selects everything).
NodePtr slice_box(const NodePtr& x, const Shape& starts, const Shape& sizes) {
  if (sizes == x->shape) return x;
  Attrs attrs;
  for (int64_t i = 0; i < x->ndim(); ++i) {
    attrs.push_back(starts[i]);
    attrs.push_back(1);
  }
  return ops::primitive(Op::Slice, x->dtype, sizes, std::move(attrs), {x});
}

/// ops::pad takes torch order (last dim first); this takes per-dim lo/hi.
NodePtr pad_dims(const NodePtr& x, const Shape& lo, const Shape& hi) {
  std::vector<int64_t> pads;
  for (int64_t i = x->ndim() - 1; i >= 0; --i) {
    pads.push_back(lo[i]);
    pads.push_back(hi[i]);
  }
  return ops::pad(x, pads, 0.0);
}

// Expand: sum over the stretched dims (this is also broadcasting's rule,
// since the builder turns broadcasting into explicit Expand nodes).
NodePtr expand_backward(const NodePtr& x, const NodePtr& g) {
  Dims dims;
  if (x->ndim() == 0 && g->ndim() > 0) {  // a rank-0 input expanded directly
    for (int64_t i = 0; i < g->ndim(); ++i) dims.push_back(i);
    return ops::sum(g, dims, /*keepdim=*/false);
  }
  for (int64_t i = 0; i < x->ndim(); ++i)
    if (x->shape[i] != g->shape[i]) dims.push_back(i);
  if (dims.empty()) return g;
  return ops::sum(g, dims, /*keepdim=*/true);
}

// Slice with steps: spread each strided dim by interleaving zeros (reshape to
// [.., m, 1, ..], pad to [.., m, step, ..], merge to m*step and trim the
// trailing step-1 zeros), then pad every dim back to the input's extent. All
// movement ops, so a backend turns the whole thing into one index expression.
NodePtr slice_backward(const NodePtr& x, const Node& y, const NodePtr& g) {
  if (y.numel() == 0) return zeros_like(x);
  int64_t n = x->ndim();
  NodePtr r = g;
  for (int64_t d = 0; d < n; ++d) {
    int64_t step = y.attrs[2 * d + 1], m = y.shape[d];
    if (step == 1 || m == 1) continue;
    Shape split = r->shape;
    split.insert(split.begin() + d + 1, 1);
    r = ops::reshape(r, split);
    Shape lo(n + 1, 0), hi(n + 1, 0);
    hi[d + 1] = step - 1;
    r = pad_dims(r, lo, hi);
    Shape merged = y.shape;
    for (int64_t k = 0; k < n; ++k) merged[k] = r->shape[k < d ? k : k + 1];
    merged[d] = m * step;
    r = ops::reshape(r, merged);
    r = ops::narrow(r, d, 0, (m - 1) * step + 1);
  }
  Shape lo(n), hi(n);
  for (int64_t d = 0; d < n; ++d) {
    lo[d] = y.attrs[2 * d];
    hi[d] = x->shape[d] - lo[d] - r->shape[d];
  }
  return pad_dims(r, lo, hi);
}

// amax/amin: the gradient is shared evenly among the elements equal to the
// extreme (torch.amax); y and g keep the reduced dims with size 1.
NodePtr extreme_backward(const NodePtr& x, const NodePtr& y, const NodePtr& g) {
  Dims dims(y->attrs.begin(), y->attrs.end());
  NodePtr hit = ops::eq(x, y);
  NodePtr count = ops::sum(ops::cast(hit, x->dtype), dims, /*keepdim=*/true);
  return ops::where(hit, ops::div(g, count), constant(x, 0.0));
}

// prod: d/dx_i = prod of the others. Without zeros that is y / x_i; a zero
// element gets the product of the non-zeros when it is the only zero, else 0.
NodePtr prod_backward(const NodePtr& x, const NodePtr& y, const NodePtr& g) {
  Dims dims(y->attrs.begin(), y->attrs.end());
  NodePtr zero = constant(x, 0.0), one = constant(x, 1.0);
  NodePtr is_zero = ops::eq(x, zero);
  NodePtr zero_count = ops::sum(ops::cast(is_zero, x->dtype), dims, /*keepdim=*/true);
  NodePtr others_if_zero = ops::prod(ops::where(is_zero, one, x), dims, /*keepdim=*/true);
  NodePtr at_zero = ops::where(ops::eq(zero_count, one), others_if_zero, zero);
  return ops::mul(g, ops::where(is_zero, at_zero, ops::div(y, x)));
}

NodePtr pow_base_backward(const NodePtr& a, const NodePtr& b, const NodePtr& g) {
  NodePtr dy = ops::mul(ops::mul(g, b), ops::pow(a, ops::sub(b, constant(b, 1.0))));
  return ops::where(ops::eq(b, constant(b, 0.0)), constant(a, 0.0), dy);
}

NodePtr pow_exponent_backward(const NodePtr& a, const NodePtr& b, const NodePtr& y, const NodePtr& g) {
  NodePtr base_zero = ops::logical_and(ops::eq(a, constant(a, 0.0)), ops::ge(b, constant(b, 0.0)));
  return ops::mul(g, ops::where(base_zero, constant(a, 0.0), ops::mul(y, ops::log(a))));
}

// maximum/minimum: the loser gets 0, a tie gives each side half.
void extreme2_backward(bool is_max, const NodePtr& a, const NodePtr& b, const NodePtr& g, absl::Span<const bool> wanted,
                       NodeList& out) {
  NodePtr shared = ops::where(ops::eq(a, b), ops::div(g, constant(g, 2.0)), g);
  NodePtr zero = constant(g, 0.0);
  if (wanted[0]) out[0] = ops::where(is_max ? ops::lt(a, b) : ops::gt(a, b), zero, shared);
  if (wanted[1]) out[1] = ops::where(is_max ? ops::gt(a, b) : ops::lt(a, b), zero, shared);
}

// Gather: scatter g back (ScatterAdd into zeros). When the index picks one
// element per line along the axis and spans every other dim (nll_loss,
// cross_entropy, take_along_dim with one index), no two outputs hit the same
// element, and the scatter is the elementwise where(iota == index, g, 0):
// it fuses with its neighbours instead of needing a kernel of its own.
NodePtr gather_backward(const NodePtr& x, const Node& y, const NodePtr& index, const NodePtr& g) {
  int64_t axis = y.attrs[0];
  bool one_per_line = index->shape[axis] == 1;
  for (int64_t d = 0; d < x->ndim() && one_per_line; ++d) one_per_line = d == axis || index->shape[d] == x->shape[d];
  if (!one_per_line) return ops::scatter_add(zeros_like(x), axis, index, g);
  NodePtr hit = ops::eq(ops::iota(x->shape, axis), index);
  return ops::where(hit, g, constant(g, 0.0));
}

NodePtr matmul_transpose(const NodePtr& x) { return ops::transpose(x, -1, -2); }

/// A convolution primitive of `op` with y's attrs and the given result shape
/// (the shape of the forward operand this gradient is for).
NodePtr conv_primitive(Op op, const NodePtr& a, const NodePtr& b, const Attrs& attrs, const Shape& shape) {
  return ops::primitive(op, a->dtype, shape, attrs, {a, b});
}
/// The spatial sizes of a convolution operand [N, C, *spatial].
Shape spatial(const NodePtr& x) { return Shape(x->shape.begin() + 2, x->shape.end()); }

}  // namespace

NodeList input_gradients(const NodePtr& y, const NodePtr& g, absl::Span<const bool> wanted) {
  const NodeList& in = y->inputs;
  NodeList out(in.size());
  const NodePtr& x = in.empty() ? y : in[0];
  auto set0 = [&](auto&& rule) {
    if (wanted[0]) out[0] = rule();
  };
  switch (y->op) {
    // ---- no gradient: sources, predicates, index results, detach ----
    case Op::Input:
    case Op::Scalar:
    case Op::Iota:
    case Op::RandUniform:
    case Op::LogicalNot:
    case Op::IsNan:
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::LogicalAnd:
    case Op::LogicalOr:
    case Op::ArgMax:
    case Op::ArgMin:
    case Op::BitwiseAnd:
    case Op::BitwiseOr:
    case Op::BitwiseXor:
    case Op::BitwiseNot:
    case Op::ShiftLeft:
    case Op::ShiftRight:
    case Op::Detach:
      break;

    // ---- unary ----
    case Op::Neg: set0([&] { return ops::neg(g); }); break;
    case Op::Abs: set0([&] { return ops::mul(g, ops::sign(x)); }); break;
    case Op::Exp: set0([&] { return ops::mul(g, y); }); break;
    case Op::Log: set0([&] { return ops::div(g, x); }); break;
    case Op::Log1p: set0([&] { return ops::div(g, ops::add(x, constant(x, 1.0))); }); break;
    case Op::Expm1: set0([&] { return ops::mul(g, ops::add(y, constant(y, 1.0))); }); break;
    case Op::Sqrt: set0([&] { return ops::div(g, ops::mul(y, constant(y, 2.0))); }); break;
    case Op::Sin: set0([&] { return ops::mul(g, ops::cos(x)); }); break;
    case Op::Cos: set0([&] { return ops::neg(ops::mul(g, ops::sin(x))); }); break;
    case Op::Tanh: set0([&] { return ops::mul(g, ops::sub(constant(y, 1.0), ops::mul(y, y))); }); break;
    case Op::Sigmoid: set0([&] { return ops::mul(g, ops::mul(y, ops::sub(constant(y, 1.0), y))); }); break;
    case Op::Erf:
      set0([&] {
        NodePtr density = ops::exp(ops::neg(ops::mul(x, x)));
        return ops::mul(g, ops::mul(density, constant(x, 2.0 / std::sqrt(M_PI))));
      });
      break;
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
    case Op::Sign: set0([&] { return zeros_like(x); }); break;
    case Op::Cast: set0([&] { return ops::cast(g, x->dtype); }); break;

    // ---- binary ----
    case Op::Add:
      if (wanted[0]) out[0] = g;
      if (wanted[1]) out[1] = g;
      break;
    case Op::Sub:
      if (wanted[0]) out[0] = g;
      if (wanted[1]) out[1] = ops::neg(g);
      break;
    case Op::Mul:
      if (wanted[0]) out[0] = ops::mul(g, in[1]);
      if (wanted[1]) out[1] = ops::mul(g, in[0]);
      break;
    case Op::Div:
      if (wanted[0]) out[0] = ops::div(g, in[1]);
      if (wanted[1]) out[1] = ops::neg(ops::div(ops::mul(g, in[0]), ops::mul(in[1], in[1])));
      break;
    case Op::Pow:
      if (wanted[0]) out[0] = pow_base_backward(in[0], in[1], g);
      if (wanted[1]) out[1] = pow_exponent_backward(in[0], in[1], y, g);
      break;
    case Op::Maximum: extreme2_backward(true, in[0], in[1], g, wanted, out); break;
    case Op::Minimum: extreme2_backward(false, in[0], in[1], g, wanted, out); break;
    case Op::Where:
      if (wanted[1]) out[1] = ops::where(in[0], g, constant(g, 0.0));
      if (wanted[2]) out[2] = ops::where(in[0], constant(g, 0.0), g);
      break;

    // ---- reductions and scans ----
    case Op::ReduceSum: set0([&] { return ops::expand(g, x->shape); }); break;
    case Op::ReduceProd: set0([&] { return prod_backward(x, y, g); }); break;
    case Op::ReduceMax:
    case Op::ReduceMin: set0([&] { return extreme_backward(x, y, g); }); break;
    case Op::CumSum:
      set0([&] {
        int64_t axis = y->attrs[0];
        return ops::flip(ops::cumsum(ops::flip(g, {axis}), axis), {axis});
      });
      break;

    // ---- movement ----
    case Op::Reshape: set0([&] { return ops::reshape(g, x->shape); }); break;
    case Op::Permute:
      set0([&] {
        Dims inverse(y->attrs.size());
        for (size_t i = 0; i < y->attrs.size(); ++i) inverse[y->attrs[i]] = static_cast<int64_t>(i);
        return ops::permute(g, inverse);
      });
      break;
    case Op::Expand: set0([&] { return expand_backward(x, g); }); break;
    case Op::Slice: set0([&] { return slice_backward(x, *y, g); }); break;
    case Op::Flip: set0([&] { return ops::flip(g, Dims(y->attrs.begin(), y->attrs.end())); }); break;
    case Op::Pad:
      set0([&] {
        Shape starts(x->ndim());
        for (int64_t d = 0; d < x->ndim(); ++d) starts[d] = y->attrs[2 * d];
        return slice_box(g, starts, x->shape);
      });
      break;
    case Op::Concat: {
      int64_t axis = y->attrs[0], offset = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        Shape starts(y->ndim(), 0);
        starts[axis] = offset;
        if (wanted[i]) out[i] = slice_box(g, starts, in[i]->shape);
        offset += in[i]->shape[axis];
      }
      break;
    }

    // ---- indexing ----
    case Op::Gather: set0([&] { return gather_backward(x, *y, in[1], g); }); break;
    case Op::ScatterAdd:
      if (wanted[0]) out[0] = g;
      if (wanted[2]) out[2] = ops::gather(g, y->attrs[0], in[1]);
      break;

    // ---- matmul: [B.., M, K] x [B.., K, N] with equal batch dims ----
    case Op::MatMul:
      if (wanted[0]) out[0] = ops::matmul(g, matmul_transpose(in[1]));
      if (wanted[1]) out[1] = ops::matmul(matmul_transpose(in[0]), g);
      break;

    // ---- convolutions (ir/conv.h): each is linear in both operands, and the
    // adjoint of one in an operand is another of the three ----
    // The input gradients go through ops::conv_input_grad, which splits a
    // strided one into stride-1 phases (ir/builder_nn.cpp).
    case Op::Conv:  // (x, w) -> y
      if (wanted[0]) out[0] = ops::conv_input_grad(g, in[1], y->attrs, spatial(in[0]));
      if (wanted[1]) out[1] = conv_primitive(Op::ConvWeightGrad, in[0], g, y->attrs, in[1]->shape);
      break;
    case Op::ConvInputGrad:  // (dy, w) -> dx
      if (wanted[0]) out[0] = conv_primitive(Op::Conv, g, in[1], y->attrs, in[0]->shape);
      if (wanted[1]) out[1] = conv_primitive(Op::ConvWeightGrad, g, in[0], y->attrs, in[1]->shape);
      break;
    case Op::ConvWeightGrad:  // (x, dy) -> dw
      if (wanted[0]) out[0] = ops::conv_input_grad(in[1], g, y->attrs, spatial(in[0]));
      if (wanted[1]) out[1] = conv_primitive(Op::Conv, in[0], g, y->attrs, in[1]->shape);
      break;

    case Op::NumOps:
      fail(ErrorKind::Runtime, "autograd: invalid op");
  }
  return out;
}

// What input_gradients reads besides g, shapes and attributes (PyTorch saves
// sizes, not tensors, for those) is the `saves` column of ir/ops.def: a rule
// above that reads an input or y must have it listed there.
NodeList saved_values(const NodePtr& y, absl::Span<const bool> wanted) {
  const NodeList& in = y->inputs;
  NodeList out;
  if (y->saves_output) out.push_back(y);
  auto save = [&](const NodePtr& n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  const SavedValues& saves = op_info(y->op).saves;
  for (size_t k = 0; k < wanted.size() && k < 3; ++k) {
    if (!wanted[k]) continue;
    uint8_t mask = saves.when_wanted[k];
    for (size_t i = 0; i < 3 && i < in.size(); ++i)
      if (mask & (SavedValues::kIn0 << i)) save(in[i]);
    if (mask & SavedValues::kOut) save(y);
  }
  return out;
}

}  // namespace lt::autograd
