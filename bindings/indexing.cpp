// bindings/indexing.cpp — __getitem__ / __setitem__ with NumPy/PyTorch rules.
//
// Basic indices (ints, slices, None, Ellipsis) make a view chain (views.cpp).
// Advanced indices (integer tensors or lists, boolean masks) follow NumPy:
// the indexed dims are moved to the front, flattened into one linear index and
// gathered with index_select; the broadcast index shape lands where the first
// indexed dim was when the indexed dims are adjacent, else in front. A boolean
// mask becomes integer indices, which needs its values: it syncs the mask
// (the result shape depends on the data) — except x[mask] = scalar, a where().
#include <numeric>

#include "bindings/py_tensor.h"
#include "ir/builder.h"

namespace ltpy {

using lt::NodePtr;
namespace ops = lt::ops;

namespace {

struct Parsed {
  std::vector<ViewStep> steps;           ///< basic part, applied first
  std::vector<std::pair<int64_t, lt::Tensor>> advanced;  ///< (dim in the viewed tensor, i64 index)
  bool has_bool_mask = false;
};

int64_t consumed_dims(py::handle h) {
  if (h.is_none() || h.ptr() == Py_Ellipsis || PyBool_Check(h.ptr())) return 0;
  if (is_tensor(h)) {
    const lt::Tensor& t = as_tensor(h).get();
    return t.dtype() == lt::DType::Bool ? std::max<int64_t>(t.ndim(), 0) : 1;
  }
  return 1;
}

lt::Tensor to_index_tensor(py::handle h) {
  if (is_tensor(h)) return as_tensor(h).get();
  // A list/tuple of ints (or bools): build through numpy-free conversion.
  py::list l = py::list(py::reinterpret_borrow<py::object>(h));
  bool all_bool = l.size() > 0;
  for (auto it : l) all_bool &= PyBool_Check(it.ptr());
  if (all_bool) {
    std::vector<bool> v;
    for (auto it : l) v.push_back(it.cast<bool>());
    return lt::Tensor::from_vector(v);
  }
  std::vector<int64_t> v;
  for (auto it : l) {
    if (is_tensor(it) || PyList_Check(it.ptr()) || PyTuple_Check(it.ptr())) {
      lt::fail(lt::ErrorKind::NotImplemented, "indexing with nested lists: pass an integer tensor");
    }
    v.push_back(it.cast<int64_t>());
  }
  return lt::Tensor::from_vector(v);
}

// Bool mask -> one i64 index tensor per mask dim (syncs the mask).
std::vector<lt::Tensor> mask_to_indices(const lt::Tensor& mask) {
  std::vector<uint8_t> m(mask.numel());
  mask.copy_to(m.data(), m.size());
  const lt::Shape& shape = mask.shape();
  int64_t nd = mask.ndim();
  std::vector<std::vector<int64_t>> idx(nd);
  lt::Shape strides = lt::contiguous_strides(shape);
  for (int64_t i = 0; i < static_cast<int64_t>(m.size()); ++i) {
    if (!m[i]) continue;
    for (int64_t d = 0; d < nd; ++d) idx[d].push_back((i / strides[d]) % shape[d]);
  }
  std::vector<lt::Tensor> out;
  for (auto& v : idx) out.push_back(lt::Tensor::from_vector(v));
  return out;
}

Parsed parse(const lt::Tensor& x, py::handle index) {
  std::vector<py::object> items;
  if (PyTuple_Check(index.ptr())) {
    for (auto it : py::reinterpret_borrow<py::tuple>(index)) items.push_back(py::reinterpret_borrow<py::object>(it));
  } else {
    items.push_back(py::reinterpret_borrow<py::object>(index));
  }
  int64_t used = 0, ellipses = 0;
  for (auto& it : items) {
    used += consumed_dims(it);
    ellipses += it.ptr() == Py_Ellipsis;
  }
  if (ellipses > 1) lt::fail(lt::ErrorKind::Index, "an index can only have a single ellipsis ('...')");
  if (used > x.ndim()) {
    lt::fail(lt::ErrorKind::Index, "too many indices for tensor of dimension ", x.ndim());
  }
  Parsed p;
  lt::Shape shape = x.shape();  // shape of the view built so far
  int64_t dim = 0;
  auto push = [&](ViewStep s) {
    switch (s.kind) {
      case ViewStep::Select: shape.erase(shape.begin() + s.dim); break;
      case ViewStep::Slice: shape[s.dim] = s.start >= s.stop ? 0 : (s.stop - s.start + s.step - 1) / s.step; break;
      case ViewStep::Reshape: shape.assign(s.shape.begin(), s.shape.end()); break;
      default: break;
    }
    p.steps.push_back(std::move(s));
  };
  auto unsqueeze_at = [&](int64_t d) {
    ViewStep s{ViewStep::Reshape};
    s.shape.assign(shape.begin(), shape.end());
    s.shape.insert(s.shape.begin() + d, 1);
    push(std::move(s));
  };
  for (auto& it : items) {
    PyObject* o = it.ptr();
    if (o == Py_Ellipsis) {
      dim += x.ndim() - used;
    } else if (o == Py_None) {
      unsqueeze_at(dim++);
    } else if (PyBool_Check(o)) {
      unsqueeze_at(dim);
      if (o == Py_False) {
        ViewStep s{ViewStep::Slice};
        s.dim = dim;
        s.start = 0;
        s.stop = 0;
        push(std::move(s));
      }
      ++dim;
    } else if (PySlice_Check(o)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw py::error_already_set();
      if (step <= 0) lt::fail(lt::ErrorKind::Value, "step must be greater than zero");
      PySlice_AdjustIndices(shape[dim], &start, &stop, step);
      if (!(start == 0 && stop == shape[dim] && step == 1)) {
        ViewStep s{ViewStep::Slice};
        s.dim = dim;
        s.start = start;
        s.stop = std::max<int64_t>(stop, start);
        s.step = step;
        push(std::move(s));
      }
      ++dim;
    } else if (is_tensor(it) || PyList_Check(o) || (PySequence_Check(o) && !PyUnicode_Check(o) && !PyIndex_Check(o))) {
      lt::Tensor t = to_index_tensor(it);
      if (t.dtype() == lt::DType::Bool) {
        for (int64_t k = 0; k < t.ndim(); ++k) {
          if (t.shape()[k] != shape[dim + k]) {
            lt::fail(lt::ErrorKind::Index, "The shape of the mask ", lt::shape_str(t.shape()), " at index ", k,
                     " does not match the shape of the indexed tensor ", lt::shape_str(shape), " at index ", dim + k);
          }
        }
        p.has_bool_mask = true;
        if (t.ndim() == 0) {  // x[True-tensor]: like None plus a mask on it
          unsqueeze_at(dim);
          std::vector<lt::Tensor> parts = mask_to_indices(lt::reshape(t, {1}));
          p.advanced.emplace_back(dim, parts[0]);
          ++dim;
          continue;
        }
        std::vector<lt::Tensor> parts = mask_to_indices(t);
        for (auto& part : parts) p.advanced.emplace_back(dim++, part);
      } else {
        if (lt::is_floating(t.dtype())) {
          lt::fail(lt::ErrorKind::Index, "tensors used as indices must be long, int, byte or bool tensors");
        }
        p.advanced.emplace_back(dim++, t);
      }
    } else if (PyIndex_Check(o)) {
      py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Index(o));
      if (!as_int) throw py::error_already_set();
      int64_t i = as_int.cast<int64_t>();
      int64_t size = shape[dim];
      if (i < -size || i >= size) {
        lt::fail(lt::ErrorKind::Index, "index ", i, " is out of bounds for dimension ", dim, " with size ", size);
      }
      ViewStep s{ViewStep::Select};
      s.dim = dim;
      s.start = i < 0 ? i + size : i;
      push(std::move(s));
    } else {
      lt::fail(lt::ErrorKind::Index,
               "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got ",
               std::string(py::str(py::type::handle_of(it).attr("__name__"))), ")");
    }
  }
  return p;
}

// Advanced-index plumbing shared by get and set.
struct Advanced {
  std::vector<int64_t> perm;     ///< moves the indexed dims to the front
  lt::Shape index_shape;         ///< broadcast shape of the indices
  lt::Shape rest;                ///< the non-indexed dims, in order
  NodePtr linear;                ///< flattened i64 linear index into the indexed dims
  int64_t indexed_numel = 1;     ///< product of the indexed dims' sizes
  bool adjacent = true;
  int64_t first = 0;
};

Advanced plan_advanced(const NodePtr& x, const std::vector<std::pair<int64_t, lt::Tensor>>& adv) {
  Advanced a;
  std::vector<bool> indexed(x->ndim(), false);
  for (size_t i = 0; i < adv.size(); ++i) {
    indexed[adv[i].first] = true;
    if (i > 0 && adv[i].first != adv[i - 1].first + 1) a.adjacent = false;
  }
  a.first = adv[0].first;
  for (auto& [d, t] : adv) a.perm.push_back(d);
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (!indexed[d]) {
      a.perm.push_back(d);
      a.rest.push_back(x->shape[d]);
    }
  }
  for (auto& [d, t] : adv) a.index_shape = lt::broadcast_shapes("index", a.index_shape, t.shape());
  NodePtr lin;
  for (auto& [d, t] : adv) {
    int64_t size = x->shape[d];
    // Known values raise here, before any tensor changes (getitem and setitem alike).
    ops::check_known_index("", lt::ErrorKind::Index, t.node(), d, size, /*wrap=*/true);
    NodePtr i = ops::cast(t.node(), lt::DType::Int64);
    // Negative indices count from the end.
    i = ops::where(ops::lt(i, ops::scalar_int(0, lt::DType::Int64)), ops::add(i, ops::scalar_int(size, lt::DType::Int64)), i);
    // Lazy values: the linear index below would let a bad index in one dim land on a valid
    // element of another, so check each dim at sync (a gather from iota(size) is the identity on
    // valid indices and raises IndexError in the kernel for the others).
    if (!t.node()->is_materialized() && t.numel() > 0) {
      NodePtr flat = ops::reshape(i, {t.numel()});
      i = ops::reshape(ops::index_select(ops::iota(lt::Shape{size}, 0), 0, flat),
                       std::vector<int64_t>(t.shape().begin(), t.shape().end()));
    }
    i = ops::expand(i, a.index_shape);
    lin = lin ? ops::add(ops::mul(lin, ops::scalar_int(size, lt::DType::Int64)), i) : i;
    a.indexed_numel *= size;
  }
  a.linear = ops::reshape(lin, {lt::shape_numel(a.index_shape)});
  return a;
}

NodePtr flat_front(const NodePtr& x, const Advanced& a) {
  std::vector<int64_t> s{a.indexed_numel};
  s.insert(s.end(), a.rest.begin(), a.rest.end());
  return ops::reshape(ops::permute(x, a.perm), s);
}

// Position of the index dims in the result: first indexed dim when adjacent, else 0.
int64_t result_pos(const Advanced& a) { return a.adjacent ? a.first : 0; }

NodePtr gather_advanced(const NodePtr& x, const Advanced& a) {
  NodePtr g = ops::index_select(flat_front(x, a), 0, a.linear);  // [N, rest...]
  std::vector<int64_t> s(a.index_shape.begin(), a.index_shape.end());
  s.insert(s.end(), a.rest.begin(), a.rest.end());
  g = ops::reshape(g, s);
  int64_t pos = result_pos(a), k = a.index_shape.size();
  if (pos == 0) return g;
  std::vector<int64_t> perm;
  int64_t nd = static_cast<int64_t>(s.size());
  for (int64_t i = 0; i < pos; ++i) perm.push_back(k + i);
  for (int64_t i = 0; i < k; ++i) perm.push_back(i);
  for (int64_t i = k + pos; i < nd; ++i) perm.push_back(i);
  return ops::permute(g, perm);
}

NodePtr put_advanced(const NodePtr& x, const Advanced& a, NodePtr value) {
  // value broadcasts to the gathered shape; bring it to [N, rest...].
  lt::Shape gshape(a.index_shape.begin(), a.index_shape.end());
  int64_t pos = result_pos(a), k = a.index_shape.size();
  lt::Shape res_shape;  // shape of x[index]
  for (int64_t i = 0; i < pos; ++i) res_shape.push_back(a.rest[i]);
  res_shape.insert(res_shape.end(), a.index_shape.begin(), a.index_shape.end());
  for (size_t i = pos; i < a.rest.size(); ++i) res_shape.push_back(a.rest[i]);
  NodePtr scalar_value = value->ndim() == 0 ? ops::cast(value, x->dtype) : nullptr;
  value = ops::expand(ops::cast(value, x->dtype), std::vector<int64_t>(res_shape.begin(), res_shape.end()));
  if (pos != 0) {
    std::vector<int64_t> perm;
    int64_t nd = res_shape.size();
    for (int64_t i = 0; i < k; ++i) perm.push_back(pos + i);
    for (int64_t i = 0; i < pos; ++i) perm.push_back(i);
    for (int64_t i = pos + k; i < nd; ++i) perm.push_back(i);
    value = ops::permute(value, perm);
  }
  std::vector<int64_t> vs{lt::shape_numel(a.index_shape)};
  vs.insert(vs.end(), a.rest.begin(), a.rest.end());
  value = ops::reshape(value, vs);
  NodePtr flat = flat_front(x, a);
  lt::Shape mshape(flat->ndim(), 1);
  mshape[0] = a.indexed_numel;
  NodePtr hits = ops::index_add(ops::zeros({a.indexed_numel}, lt::DType::Int32), 0, a.linear,
                                ops::ones({vs[0]}, lt::DType::Int32));
  NodePtr mask = ops::reshape(ops::gt(hits, ops::scalar_int(0, lt::DType::Int32)), mshape);
  NodePtr merged;
  if (scalar_value) {
    // x[idx] = number: duplicates in idx are harmless.
    merged = ops::where(mask, scalar_value, flat);
  } else {
    // Duplicate indices with tensor values sum (PyTorch leaves the winner undefined).
    NodePtr zeros = ops::zeros(flat->shape, x->dtype == lt::DType::Bool ? lt::DType::Int32 : x->dtype);
    NodePtr placed = ops::index_add(zeros, 0, a.linear, x->dtype == lt::DType::Bool ? ops::cast(value, lt::DType::Int32) : value);
    merged = ops::where(mask, ops::cast(placed, x->dtype), flat);
  }
  // Undo the flatten and the permutation.
  std::vector<int64_t> permuted_shape;
  for (int64_t d : a.perm) permuted_shape.push_back(x->shape[d]);
  NodePtr back = ops::reshape(merged, permuted_shape);
  std::vector<int64_t> inv(a.perm.size());
  for (size_t i = 0; i < a.perm.size(); ++i) inv[a.perm[i]] = static_cast<int64_t>(i);
  return ops::permute(back, inv);
}

NodePtr value_node(py::handle value, lt::DType dtype) {
  if (is_tensor(value)) return as_tensor(value).get().node();
  if (auto s = as_scalar(value)) {
    if (lt::is_floating(dtype)) return ops::scalar(s->to_double(), dtype, false);
    return ops::scalar_int(s->dtype() == lt::DType::Float64 ? static_cast<int64_t>(s->to_double()) : s->to_int(), dtype,
                           false);
  }
  return to_tensor_operand(py::module_::import("lazytensor").attr("tensor")(value), "setitem").node();
}

}  // namespace

py::object getitem(PyTensor& self, py::handle index) {
  const lt::Tensor& x = self.get();
  // Fast path: a single int or slice.
  Parsed p = parse(x, index);
  if (p.advanced.empty()) {
    if (p.steps.empty()) {  // x[...] or x[:] : a view of the whole tensor
      ViewStep s{ViewStep::Reshape};
      s.shape.assign(x.shape().begin(), x.shape().end());
      return py::cast(make_view(self, std::move(s)));
    }
    PyTensor v = make_view(self, p.steps[0]);
    for (size_t i = 1; i < p.steps.size(); ++i) v = make_view(v, p.steps[i]);
    return py::cast(std::move(v));
  }
  NodePtr n = x.node();
  for (auto& s : p.steps) n = apply_step(s, n);
  Advanced a = plan_advanced(n, p.advanced);
  return wrap(lt::Tensor(gather_advanced(n, a)));
}

void setitem(PyTensor& self, py::handle index, py::handle value) {
  const lt::Tensor& x = self.get();
  // x[mask] = value with a full-shape (or leading-dims) mask and a scalar value: no sync.
  if (is_tensor(index)) {
    const lt::Tensor& m = as_tensor(index).get();
    bool scalar_value = !is_tensor(value) || as_tensor(value).get().numel() == 1;
    if (m.dtype() == lt::DType::Bool && scalar_value && m.ndim() <= x.ndim() && m.ndim() > 0) {
      bool prefix = true;
      for (int64_t k = 0; k < m.ndim(); ++k) prefix &= m.shape()[k] == x.shape()[k];
      if (prefix) {
        NodePtr mask = m.node();
        lt::Shape ms = mask->shape;
        while (static_cast<int64_t>(ms.size()) < x.ndim()) ms.push_back(1);
        mask = ops::reshape(mask, std::vector<int64_t>(ms.begin(), ms.end()));
        NodePtr v = value_node(value, x.dtype());
        if (v->ndim() > 0) v = ops::reshape(v, {});
        assign_cast(self, ops::where(mask, ops::cast(v, x.dtype()), x.node()));
        return;
      }
    }
  }
  Parsed p = parse(x, index);
  NodePtr v = value_node(value, x.dtype());
  NodePtr base = x.node();
  if (p.advanced.empty()) {
    NodePtr target = base;
    for (auto& s : p.steps) target = apply_step(s, target);
    if (v->ndim() > target->ndim()) {  // PyTorch allows leading 1s on the value
      while (v->ndim() > target->ndim() && v->shape[0] == 1) v = ops::squeeze(v, 0);
    }
    v = ops::expand(v, std::vector<int64_t>(target->shape.begin(), target->shape.end()));
    assign_cast(self, write_back(base, p.steps.data(), p.steps.size(), v));
    return;
  }
  NodePtr inter = base;
  for (auto& s : p.steps) inter = apply_step(s, inter);
  Advanced a = plan_advanced(inter, p.advanced);
  NodePtr updated = put_advanced(inter, a, v);
  assign_cast(self, write_back(base, p.steps.data(), p.steps.size(), updated));
}

}  // namespace ltpy
