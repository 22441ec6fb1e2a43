// ir/conv.cpp — convolution geometry (ir/conv.h).
#include "ir/conv.h"

#include "ir/error.h"

namespace lt {

namespace {
int64_t product(absl::Span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}
Shape join(int64_t a, int64_t b, absl::Span<const int64_t> rest) {
  Shape s{a, b};
  s.insert(s.end(), rest.begin(), rest.end());
  return s;
}
}  // namespace

int64_t ConvGeometry::in_numel() const { return product(in); }
int64_t ConvGeometry::out_numel() const { return product(out); }
int64_t ConvGeometry::kernel_numel() const { return product(kernel); }
Shape ConvGeometry::x_shape() const { return join(N, C, in); }
Shape ConvGeometry::w_shape() const { return join(O, cg(), kernel); }
Shape ConvGeometry::y_shape() const { return join(N, O, out); }

Attrs conv_attrs(int64_t groups, absl::Span<const int64_t> stride, absl::Span<const int64_t> pad,
                 absl::Span<const int64_t> dilation) {
  Attrs a{static_cast<int64_t>(stride.size()), groups};
  a.insert(a.end(), stride.begin(), stride.end());
  a.insert(a.end(), pad.begin(), pad.end());
  a.insert(a.end(), dilation.begin(), dilation.end());
  return a;
}

ConvGeometry conv_geometry(Op op, const Attrs& attrs, const Shape& a, const Shape& b, const Shape& y) {
  std::string_view name = op_name(op);
  if (!is_conv_op(op)) fail(ErrorKind::Runtime, "conv_geometry: ", name, " is not a convolution");
  if (attrs.size() < 2 || attrs[0] < 1 || static_cast<int64_t>(attrs.size()) != 2 + 3 * attrs[0])
    fail(ErrorKind::Runtime, name, ": expected attrs [nd, groups, stride[nd], pad[nd], dilation[nd]]");
  ConvGeometry g;
  g.nd = static_cast<int>(attrs[0]);
  g.groups = attrs[1];
  const size_t rank = static_cast<size_t>(g.nd) + 2;
  for (int j = 0; j < g.nd; ++j) {
    g.stride.push_back(attrs[2 + j]);
    g.pad.push_back(attrs[2 + g.nd + j]);
    g.dilation.push_back(attrs[2 + 2 * g.nd + j]);
  }
  const Shape *x = &a, *w = &b, *yy = &y;  // Conv
  if (op == Op::ConvInputGrad) x = &y, w = &b, yy = &a;
  if (op == Op::ConvWeightGrad) x = &a, w = &y, yy = &b;
  if (x->size() != rank || w->size() != rank || yy->size() != rank)
    fail(ErrorKind::Runtime, name, ": expected input, weight and output of rank ", rank, ", got ", shape_str(*x), ", ",
         shape_str(*w), " and ", shape_str(*yy));
  g.N = (*x)[0], g.C = (*x)[1], g.O = (*w)[0];
  g.in.assign(x->begin() + 2, x->end());
  g.kernel.assign(w->begin() + 2, w->end());
  g.out.assign(yy->begin() + 2, yy->end());
  bool ok = g.groups > 0 && g.C % g.groups == 0 && g.O % g.groups == 0 && (*w)[1] * g.groups == g.C &&
            (*yy)[0] == g.N && (*yy)[1] == g.O;
  for (int j = 0; j < g.nd; ++j) ok = ok && g.stride[j] > 0 && g.dilation[j] > 0 && g.pad[j] >= 0;
  if (!ok)
    fail(ErrorKind::Runtime, name, ": inconsistent geometry: input ", shape_str(*x), ", weight ", shape_str(*w),
         ", output ", shape_str(*yy), ", groups ", g.groups);
  return g;
}

}  // namespace lt
