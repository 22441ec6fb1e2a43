// bindings/views.cpp — views that see and make in-place writes, as in PyTorch.
//
// lt::Tensor has value semantics per slot: a movement op makes a new node and
// a new slot, so writing to one slot is invisible to another. PyTorch programs
// rely on aliasing (x[0] += 1, w.data.copy_(...), p.detach().zero_()), so a
// Python view keeps the root base slot and the steps that derive it. A write
// through the view computes the base's new value with write_back (pad + where:
// no scatter of data, all fusible) and rebinds the base slot; every view of that
// base notices the base version moved and re-derives on its next read.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>

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
  // A view shares its base's storage: it mirrors the base's version, and its
  // new node belongs to the base's storage at that version.
  if (!view->own_version) t.impl()->version = view->base.version();
  t.impl()->mark_replaced();  // stale after a counted change: its old value is gone
  t.impl()->set_node(std::move(n));
  view->seen_rebinds = view->base.impl()->rebinds;
}

// ---- PyTorch's strides of a view ----
// Values live in fresh lazy nodes, so strides are what torch's would be: the
// base is contiguous and every step maps strides as torch's view op does.

namespace {

std::vector<int64_t> contiguous_strides(const lt::Shape& shape) {
  std::vector<int64_t> st(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

// torch's computeStride: the strides of `to` viewing memory laid out as
// (from, st), or nothing where torch's reshape would copy (then the result is
// a fresh contiguous tensor in torch).
std::optional<std::vector<int64_t>> reshape_strides(const lt::Shape& from, const std::vector<int64_t>& st,
                                                    const lt::Shape& to) {
  int64_t numel = std::accumulate(from.begin(), from.end(), int64_t{1}, std::multiplies<>());
  if (numel == 0 || from.empty()) return contiguous_strides(to);
  std::vector<int64_t> out(to.size());
  int64_t view_d = static_cast<int64_t>(to.size()) - 1, chunk = st.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
    tensor_numel *= from[d];
    if (d == 0 || (from[d - 1] != 1 && st[d - 1] != tensor_numel * chunk)) {
      while (view_d >= 0 && (view_numel < tensor_numel || to[view_d] == 1)) {
        out[view_d] = view_numel * chunk;
        view_numel *= to[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk = st[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

std::vector<int64_t> torch_strides(PyTensor& t, int64_t* storage_offset) {
  int64_t offset = 0;
  if (!t.view) {
    if (storage_offset) *storage_offset = 0;
    return contiguous_strides(t.get().shape());
  }
  lt::Shape shape = t.view->base.shape();
  std::vector<int64_t> st = contiguous_strides(shape);
  for (const ViewStep& s : t.view->steps) {
    switch (s.kind) {
      case ViewStep::Slice:
        offset += s.start * st[s.dim];
        shape[s.dim] = s.stop > s.start ? (s.stop - s.start + s.step - 1) / s.step : 0;
        st[s.dim] *= s.step;
        break;
      case ViewStep::Select:
        offset += s.start * st[s.dim];
        shape.erase(shape.begin() + s.dim);
        st.erase(st.begin() + s.dim);
        break;
      case ViewStep::Reshape: {
        lt::Shape to(s.shape.begin(), s.shape.end());
        auto r = reshape_strides(shape, st, to);
        shape = to;
        if (r) {
          st = std::move(*r);
        } else {  // torch copies here: a fresh tensor
          st = contiguous_strides(shape);
          offset = 0;
        }
        break;
      }
      case ViewStep::Permute: {
        lt::Shape ps(shape.size());
        std::vector<int64_t> pst(st.size());
        for (size_t i = 0; i < s.shape.size(); ++i) {
          ps[i] = shape[s.shape[i]];
          pst[i] = st[s.shape[i]];
        }
        shape = std::move(ps);
        st = std::move(pst);
        break;
      }
      case ViewStep::Expand: {
        size_t lead = s.shape.size() - shape.size();
        std::vector<int64_t> est(s.shape.size(), 0);
        for (size_t i = 0; i < shape.size(); ++i) est[lead + i] = shape[i] == s.shape[lead + i] ? st[i] : 0;
        shape.assign(s.shape.begin(), s.shape.end());
        st = std::move(est);
        break;
      }
      case ViewStep::Detach: break;
    }
  }
  if (storage_offset) *storage_offset = offset;
  return st;
}

bool torch_is_contiguous(PyTensor& t) {
  if (!t.view) return true;
  const lt::Shape& shape = t.get().shape();
  std::vector<int64_t> st = torch_strides(t, nullptr);
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return true;
    if (shape[i] == 1) continue;
    if (st[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

PyTensor make_view(PyTensor& src, ViewStep step, NodePtr value, bool own_version) {
  const lt::Tensor& cur = src.get();
  PyTensor out(lt::Tensor(value ? std::move(value) : apply_step(step, cur.node())));
  out.inference = src.inference;
  auto info = std::make_shared<ViewInfo>();
  if (src.view) {
    info->base = src.view->base;
    info->steps.reserve(src.view->steps.size() + 1);
    info->steps = src.view->steps;
  } else {
    info->base = src.t;
  }
  info->steps.push_back(std::move(step));
  info->seen_rebinds = info->base.impl()->rebinds;
  info->own_version = own_version || (src.view && src.view->own_version);
  if (info->own_version) {  // a fresh counter; its node is its own (constructor)
    out.view = std::move(info);
    return out;
  }
  // One storage, one version counter (as in PyTorch): an in-place change
  // through the view or the base shows in both versions.
  lt::TensorImpl& impl = *out.t.impl();
  const lt::TensorImpl& base = *info->base.impl();
  impl.storage_id = base.storage_id;
  impl.version = base.version;
  impl.adopt(*impl.node);
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

// `value` is a temporary: the base's storage takes the node written back
// when it is new or is value's own (a copy_ of another tensor's node is not).
static void write_through_view(PyTensor& self, const lt::Tensor& value) {
  ViewInfo& v = *self.view;
  bool detached = false;
  for (const ViewStep& s : v.steps) detached |= s.kind == ViewStep::Detach;
  NodePtr nb = write_back(v.base.node(), v.steps.data(), v.steps.size(), value.node());
  lt::Tensor written = nb == value.node() ? value : lt::Tensor(nb);
  if (v.own_version) {
    // Through .data: autograd neither sees the write nor counts it on the
    // base (the base's saved values keep their version, as in PyTorch); the
    // .data tensor's own counter moves. nb has the base's shape and dtype.
    lt::GradModeGuard no_grad(false);
    v.base.impl()->rebind(nb, written.impl()->storage_id, /*count_as_change=*/false);
    ++self.t.impl()->version;
  } else if (detached) {
    // Writes through .detach() are invisible to autograd, as in PyTorch (they
    // still bump the shared version counter).
    lt::GradModeGuard no_grad(false);
    v.base.assign(written, /*take_value=*/true);
  } else {
    v.base.assign(written, /*take_value=*/true);
  }
  self.refresh();
}

static void check_not_inference(const PyTensor& self) {
  if (self.inference && !inference_mode_enabled()) {
    lt::fail(lt::ErrorKind::Runtime,
             "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
             "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
  }
}

void assign_cast(PyTensor& self, const lt::Tensor& value) {
  check_not_inference(self);
  self.get();
  if (self.view) return write_through_view(self, value);
  self.t.assign(value, /*take_value=*/true);
}

void assign_cast(PyTensor& self, const NodePtr& value) { assign_cast(self, lt::Tensor(value)); }

void assign_inplace(PyTensor& self, const lt::Tensor& value, const char* op) {
  check_not_inference(self);
  self.get();
  check_result_type(self, value, op);
  if (self.view) return write_through_view(self, value);
  self.t.assign(value, /*take_value=*/true);
}

}  // namespace ltpy
