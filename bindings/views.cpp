// bindings/views.cpp — views that see and make in-place writes, as in PyTorch.
//
// lt::Tensor has value semantics per slot: a movement op makes a new node and
// a new slot, so writing to one slot is invisible to another. PyTorch programs
// rely on aliasing (x[0] += 1, w.data.copy_(...), p.detach().zero_()), so a
// Python view keeps the root base slot and the steps that derive it. A write
// through the view computes the base's new value with write_back (pad + where:
// no scatter of data, all fusible) and rebinds the base slot; every view of that
// base notices the base version moved and re-derives on its next read.
#include <numeric>

#include "bindings/py_tensor.h"
#include "ir/builder.h"

namespace ltpy {

using lt::NodePtr;
namespace ops = lt::ops;

NodePtr apply_step(const ViewStep& s, const NodePtr& x) {
  switch (s.kind) {
    case ViewStep::Slice: return ops::slice(x, s.dim, s.start, s.stop, s.step);
    case ViewStep::Select: return ops::select(x, s.dim, s.start);
    case ViewStep::Reshape: return ops::reshape(x, s.shape);
    case ViewStep::Permute: return ops::permute(x, s.shape);
    case ViewStep::Expand: return ops::expand(x, s.shape);
    case ViewStep::Detach: return ops::detach(x);
  }
  return x;
}

void PyTensor::refresh() {
  NodePtr n = view->base.node();
  for (const ViewStep& s : view->steps) n = apply_step(s, n);
  t.impl()->set_node(std::move(n));
  ++t.impl()->version;
  view->seen_version = view->base.version();
}

PyTensor make_view(PyTensor& src, ViewStep step, NodePtr value) {
  const lt::Tensor& cur = src.get();
  PyTensor out(lt::Tensor(value ? std::move(value) : apply_step(step, cur.node())));
  auto info = std::make_shared<ViewInfo>();
  if (src.view) {
    info->base = src.view->base;
    info->steps.reserve(src.view->steps.size() + 1);
    info->steps = src.view->steps;
  } else {
    info->base = src.t;
  }
  info->steps.push_back(std::move(step));
  info->seen_version = info->base.version();
  out.view = std::move(info);
  return out;
}

// Places `x` (the slice's value) at positions start, start+step, ... of a dim
// of size `size`, zero/false elsewhere.
static NodePtr place_along(const NodePtr& x, int64_t dim, int64_t start, int64_t step, int64_t size) {
  int64_t nd = x->ndim();
  int64_t n = x->shape[dim];
  NodePtr y = x;
  int64_t len = n;
  if (step > 1) {
    y = ops::unsqueeze(y, dim + 1);
    std::vector<int64_t> pads(2 * (nd - dim), 0);
    pads[2 * (nd - dim - 1) + 1] = step - 1;  // the new dim dim+1 is at position nd - (dim+1) from the back
    y = ops::pad(y, pads, 0.0);
    std::vector<int64_t> merged(x->shape.begin(), x->shape.end());
    merged[dim] = n * step;
    y = ops::reshape(y, merged);
    len = n * step;
  }
  std::vector<int64_t> pads(2 * (nd - dim), 0);
  pads[2 * (nd - 1 - dim)] = start;
  pads[2 * (nd - 1 - dim) + 1] = size - start - len;
  return ops::pad(y, pads, 0.0);
}

static NodePtr invert_step(const ViewStep& s, const NodePtr& base, const NodePtr& updated) {
  switch (s.kind) {
    case ViewStep::Detach: return updated;
    case ViewStep::Reshape: return ops::reshape(updated, base->shape);
    case ViewStep::Permute: {
      std::vector<int64_t> inv(s.shape.size());
      for (size_t i = 0; i < s.shape.size(); ++i) inv[s.shape[i]] = static_cast<int64_t>(i);
      return ops::permute(updated, inv);
    }
    case ViewStep::Expand:
      lt::fail(lt::ErrorKind::Runtime,
               "unsupported operation: more than one element of the written-to tensor refers to a single memory "
               "location (an in-place write through expand); clone the tensor first");
    case ViewStep::Select:
    case ViewStep::Slice: {
      NodePtr u = s.kind == ViewStep::Select ? ops::unsqueeze(updated, s.dim) : updated;
      int64_t step = s.kind == ViewStep::Select ? 1 : s.step;
      if (u->numel() == 0) return base;
      NodePtr values = place_along(u, s.dim, s.start, step, base->shape[s.dim]);
      NodePtr mask = place_along(ops::ones(u->shape, lt::DType::Bool), s.dim, s.start, step, base->shape[s.dim]);
      return ops::where(mask, values, base);
    }
  }
  return updated;
}

NodePtr write_back(const NodePtr& base, const ViewStep* steps, size_t n, const NodePtr& value) {
  if (n == 0) {
    NodePtr v = value->shape == base->shape ? value : ops::expand(value, base->shape);
    return v->dtype == base->dtype ? v : ops::cast(v, base->dtype);
  }
  NodePtr inter = apply_step(steps[0], base);
  NodePtr updated = write_back(inter, steps + 1, n - 1, value);
  return invert_step(steps[0], base, updated);
}

static void check_result_type(const PyTensor& self, const lt::Tensor& value, const char* op) {
  const lt::Tensor& t = self.t;
  if (value.shape() != t.shape()) {
    lt::fail(lt::ErrorKind::Runtime, op, ": output with shape ", lt::shape_str(t.shape()),
             " doesn't match the broadcast shape ", lt::shape_str(value.shape()));
  }
  lt::DType have = t.dtype(), want = value.dtype();
  bool bad = (have == lt::DType::Bool && want != lt::DType::Bool) ||
             (lt::is_integral(have) && lt::is_floating(want));
  if (bad) {
    lt::fail(lt::ErrorKind::Runtime, op, ": result type ", lt::dtype_name(want),
             " can't be cast to the desired output type ", lt::dtype_name(have));
  }
}

static void write_through_view(PyTensor& self, const NodePtr& value) {
  ViewInfo& v = *self.view;
  bool detached = false;
  for (const ViewStep& s : v.steps) detached |= s.kind == ViewStep::Detach;
  NodePtr nb = write_back(v.base.node(), v.steps.data(), v.steps.size(), value);
  if (detached) {
    // Writes through .data / .detach() are invisible to autograd, as in PyTorch.
    lt::GradModeGuard no_grad(false);
    v.base.assign(lt::Tensor(nb));
  } else {
    v.base.assign(lt::Tensor(nb));
  }
  self.refresh();
}

void assign_cast(PyTensor& self, const NodePtr& value) {
  self.get();
  if (self.view) return write_through_view(self, value);
  self.t.assign(lt::Tensor(value));
}

void assign_inplace(PyTensor& self, const lt::Tensor& value, const char* op) {
  self.get();
  check_result_type(self, value, op);
  if (self.view) return write_through_view(self, value.node());
  self.t.assign(value);
}

}  // namespace ltpy
