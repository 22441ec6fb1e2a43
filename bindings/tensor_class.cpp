// bindings/tensor_class.cpp — lazytensor.Tensor: operators and hot methods in C++.
//
// Binary operators take the other operand as a raw handle and dispatch by
// hand (tensor / Python number / NotImplemented) instead of pybind11 overload
// resolution, which would try and fail one signature per operand type. Most
// methods are also registered as module functions (torch.exp(x) == x.exp()).
#include <pybind11/stl.h>

#include "bindings/api_table.h"
#include "bindings/py_tensor.h"
#include "ir/builder.h"

namespace ltpy {

namespace {

using lt::Scalar;
using lt::Tensor;
namespace ops = lt::ops;
using api::def_api;
using api::def_api_inplace;

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

template <class F>
std::optional<Tensor> compute_binary(PyTensor& a, py::handle b, F&& f) {
  const Tensor& x = a.get();
  if (is_tensor(b)) return f(x, as_tensor(b).get());
  if (auto s = as_scalar(b)) return f(x, *s);
  return std::nullopt;
}

template <class F>
py::object op_binary(PyTensor& a, py::handle b, F&& f) {
  auto r = compute_binary(a, b, f);
  return r ? wrap(std::move(*r)) : not_implemented();
}

template <class F>
py::object op_rbinary(PyTensor& a, py::handle b, F&& f) {
  const Tensor& x = a.get();
  if (auto s = as_scalar(b)) return wrap(f(*s, x));
  if (is_tensor(b)) return wrap(f(as_tensor(b).get(), x));
  return not_implemented();
}

template <class F>
py::object op_inplace(py::object self, py::handle b, F&& f, const char* name) {
  PyTensor& s = self.cast<PyTensor&>();
  auto r = compute_binary(s, b, f);
  if (!r) return not_implemented();
  assign_inplace(s, *r, name);
  return self;
}

template <class F>
Tensor method_binary(PyTensor& a, py::handle b, F&& f, const char* name) {
  auto r = compute_binary(a, b, f);
  if (!r) {
    throw py::type_error(std::string(name) + "(): argument 'other' must be Tensor or Number, not " +
                         std::string(py::str(py::type::handle_of(b).attr("__name__"))));
  }
  return std::move(*r);
}

// A unary operator (~x): like torch, a dtype the op rejects is a TypeError here
// (the function form raises RuntimeError).
Tensor unary_operator(PyTensor& a, const char* spelled, lt::Op op, Tensor (*fn)(const Tensor&)) {
  const Tensor& x = a.get();
  lt::DTypeRule rule = lt::op_info(op).dtype_rule;
  bool integer_only = rule == lt::DTypeRule::Integer || rule == lt::DTypeRule::IntegerOrBool;
  if (integer_only && lt::is_floating(x.dtype())) {
    throw py::type_error(std::string(spelled) + " is only implemented on integer and Boolean-type tensors");
  }
  return fn(x);
}

lt::Tensor scaled(py::handle other, py::handle alpha, const char* op) {
  Tensor o = to_tensor_operand(other, op);
  if (alpha.is_none()) return o;
  auto s = as_scalar(alpha);
  if (!s) throw py::type_error(std::string(op) + "(): alpha must be a number");
  if (s->to_double() == 1.0) return o;
  return lt::mul(o, *s);
}

std::optional<Scalar> opt_scalar(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return as_scalar(h);
}

bool is_bool_operand(const Tensor& t) { return t.dtype() == lt::DType::Bool; }
bool is_bool_operand(const Scalar& s) { return s.dtype() == lt::DType::Bool; }

/// lt::sub with PyTorch's refusal of bool operands.
template <class A, class B>
Tensor checked_sub(const A& a, const B& b) {
  if (is_bool_operand(a) || is_bool_operand(b)) {
    lt::fail(lt::ErrorKind::Runtime, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
             "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  return lt::sub(a, b);
}

/// div with PyTorch's rounding_mode (None, "trunc", "floor"); the rounded forms are
/// lazytensor._pointwise._div_rounding.
Tensor div_rounding(PyTensor& a, py::handle b, py::handle mode, const char* name) {
  if (mode.is_none()) return method_binary(a, b, [](auto&& x, auto&& y) { return lt::div(x, y); }, name);
  std::string m = py::str(mode);
  if (m != "trunc" && m != "floor") {
    lt::fail(lt::ErrorKind::Runtime, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", m, "'");
  }
  py::object r = py::module_::import("lazytensor._pointwise").attr("_div_rounding")(py::cast(a), b, mode);
  return as_tensor(r).get();
}

// Leaked on purpose (see functions.cpp).
py::object& g_max_type = *new py::object();
py::object& g_min_type = *new py::object();
py::object& g_device = *new py::object();
py::object& g_grad_fn = *new py::object();

ViewStep slice_step(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  ViewStep s{ViewStep::Slice};
  s.dim = lt::normalize_dim("narrow", dim, x.ndim());
  int64_t size = x.shape()[s.dim];
  if (start < 0) start += size;
  if (start < 0 || length < 0 || start + length > size) {
    lt::fail(lt::ErrorKind::Runtime, "narrow(): start (", start, ") + length (", length, ") exceeds dimension size (",
             size, ").");
  }
  s.start = start;
  s.stop = start + length;
  return s;
}

py::object reshape_view(PyTensor& self, const std::vector<int64_t>& shape) {
  const Tensor& x = self.get();
  lt::NodePtr n = ops::reshape(x.node(), shape);
  if (n.get() == x.node().get() && self.view == nullptr) {
    // identity reshape: still a view of self
  }
  ViewStep s{ViewStep::Reshape};
  s.shape.assign(n->shape.begin(), n->shape.end());
  return py::cast(make_view(self, std::move(s), n));
}

py::object permute_view(PyTensor& self, std::vector<int64_t> perm) {
  const Tensor& x = self.get();
  if (static_cast<int64_t>(perm.size()) != x.ndim()) {
    lt::fail(lt::ErrorKind::Runtime, "permute(sparse_coo): number of dimensions in the tensor input does not match "
             "the length of the desired ordering of dimensions i.e. input.dim() = ", x.ndim(), " is not equal to len(dims) = ", perm.size());
  }
  for (auto& p : perm) p = lt::normalize_dim("permute", p, x.ndim());
  lt::NodePtr n = ops::permute(x.node(), perm);
  ViewStep s{ViewStep::Permute};
  s.shape = std::move(perm);
  return py::cast(make_view(self, std::move(s), n));
}

py::object transpose_view(PyTensor& self, int64_t a, int64_t b) {
  const Tensor& x = self.get();
  int64_t nd = x.ndim();
  if (nd == 0) {
    lt::normalize_dim("transpose", a, 1);
    lt::normalize_dim("transpose", b, 1);
    return reshape_view(self, {});
  }
  a = lt::normalize_dim("transpose", a, nd);
  b = lt::normalize_dim("transpose", b, nd);
  std::vector<int64_t> perm(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = i;
  std::swap(perm[a], perm[b]);
  return permute_view(self, perm);
}

py::list split_views(PyTensor& self, py::handle split, int64_t dim) {
  const Tensor& x = self.get();
  dim = lt::normalize_dim("split", dim, x.ndim());
  int64_t size = x.shape()[dim];
  std::vector<int64_t> sizes;
  if (PyLong_Check(split.ptr())) {
    int64_t k = split.cast<int64_t>();
    if (k <= 0 && size > 0) lt::fail(lt::ErrorKind::Runtime, "split expects split_size be non-negative, but got split_size=", k);
    for (int64_t s = 0; s < size; s += k) sizes.push_back(std::min(k, size - s));
    if (sizes.empty()) sizes.push_back(0);
  } else {
    sizes = to_int_list(split);
    int64_t total = 0;
    for (int64_t s : sizes) total += s;
    if (total != size) {
      lt::fail(lt::ErrorKind::Runtime, "split_with_sizes expects split_sizes to sum exactly to ", size,
               " (input tensor's size at dimension ", dim, "), but got split_sizes=", py::repr(split).cast<std::string>());
    }
  }
  py::list out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.append(py::cast(make_view(self, slice_step(x, dim, start, s))));
    start += s;
  }
  return out;
}

std::vector<int64_t> args_or_list(const py::args& a) { return shape_from_args(a, 0); }

py::object reduce_minmax(PyTensor& self, py::handle dim, bool keepdim, bool is_max) {
  const Tensor& x = self.get();
  if (dim.is_none()) {
    if (x.numel() == 0) {
      lt::fail(lt::ErrorKind::Runtime, is_max ? "max" : "min",
               "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    }
    return wrap(is_max ? lt::amax(x) : lt::amin(x));
  }
  if (is_tensor(dim)) return wrap(is_max ? lt::maximum(x, as_tensor(dim).get()) : lt::minimum(x, as_tensor(dim).get()));
  int64_t d = dim.cast<int64_t>();
  Tensor indices = is_max ? lt::argmax(x, d, keepdim) : lt::argmin(x, d, keepdim);
  // The values' gradient goes to the element at the index, as PyTorch's (amax shares it among ties):
  // gather there when a gradient can be wanted. The index is argmax's first NaN or first extreme, so the
  // value is amax's.
  Tensor values;
  if (x.requires_grad() && lt::grad_mode_enabled() && x.dim() > 0) {
    Tensor at = lt::gather(x, d, keepdim ? indices : indices.unsqueeze(d));
    values = keepdim ? at : at.squeeze(d);
  } else {
    values = is_max ? lt::amax(x, {d}, keepdim) : lt::amin(x, {d}, keepdim);
  }
  return (is_max ? g_max_type : g_min_type)(wrap(values), wrap(indices));
}

Tensor reduce_dtype(const Tensor& x, py::handle dtype) {
  if (dtype.is_none()) return x;
  return lt::cast(x, to_dtype(dtype));
}

void check_float_reduction(const Tensor& x, const char* op) {
  if (!lt::is_floating(x.dtype())) {
    lt::fail(lt::ErrorKind::Runtime, op, "(): could not infer output dtype. Input dtype must be either a floating point "
             "or complex dtype. Got: ", lt::dtype_name(x.dtype()));
  }
}

// PyTorch has no argmax/argmin kernel for bool (max(dim) and min(dim) on
// bool, which also return indices, do work there and here).
void check_not_bool(const Tensor& x, const char* op) {
  if (x.dtype() == lt::DType::Bool) lt::fail(lt::ErrorKind::Runtime, op, ": not implemented for 'Bool' (as in PyTorch)");
}

int64_t correction_of(py::handle unbiased, py::handle correction) {
  if (!correction.is_none()) return correction.cast<int64_t>();
  if (!unbiased.is_none()) return unbiased.cast<bool>() ? 1 : 0;
  return 1;
}

/// to(dtype), to(device), to(device, dtype), to(other), to(device=..., dtype=...), with the non_blocking /
/// copy flags. A device is a string, a device object or a CUDA ordinal; every one goes through the placement
/// check, so to("cuda") raises instead of returning the CPU tensor.
py::object to_impl(py::object self, py::args args, py::kwargs kw) {
  PyTensor& s = self.cast<PyTensor&>();
  std::optional<lt::DType> dtype;
  auto consider = [&](py::handle h) {
    if (is_tensor(h)) {
      check_placement(h.attr("device"));
      dtype = as_tensor(h).get().dtype();
      return;
    }
    if (h.is_none() || PyBool_Check(h.ptr())) return;  // non_blocking / copy flags
    if (PyUnicode_Check(h.ptr()) || PyLong_Check(h.ptr()) || (py::hasattr(h, "type") && py::hasattr(h, "index"))) {
      check_placement(h);
      return;
    }
    dtype = to_dtype(h);
  };
  for (auto h : args) consider(h);
  if (kw.contains("dtype")) consider(kw["dtype"]);
  if (kw.contains("device")) check_placement(kw["device"]);
  bool copy = kw.contains("copy") && kw["copy"].cast<bool>();
  const Tensor& x = s.get();
  if ((!dtype || *dtype == x.dtype()) && !copy) return self;
  return wrap(lt::cast(x, dtype.value_or(x.dtype())));
}

// ---- fast paths: CPython slots instead of pybind11 dispatch ----
//
// The per-op budget is under a microsecond, and pybind11's dispatcher (an
// argument vector, one caster per argument, a result cast) plus CPython's
// lookup of __add__ in the type dict cost a good part of it. The hottest
// operators therefore get C functions in the type's number slots, and the
// hottest unary functions a METH_FASTCALL entry; both compute exactly what the
// bound methods do (same helpers, NotImplemented for other operands) and
// translate C++ exceptions through pybind11's registered translators. The
// bound methods stay in the type dict (explicit a.__add__(b), subclasses).

PyObject* raise_current_exception() {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    if (py::detail::apply_exception_translators(py::detail::get_local_internals().registered_exception_translators))
      return nullptr;
    if (py::detail::apply_exception_translators(py::detail::get_internals().registered_exception_translators))
      return nullptr;
    PyErr_SetString(PyExc_SystemError, "lazytensor: exception escaped from the exception translators");
    return nullptr;
  }
}

template <class F>
PyObject* number_slot(PyObject* a, PyObject* b, F&& f) {
  try {
    py::object r;
    if (is_tensor(a)) r = op_binary(as_tensor(a), b, f);
    else if (is_tensor(b)) r = op_rbinary(as_tensor(b), a, f);  // reflected: `2.0 - t`
    else r = not_implemented();
    return r.release().ptr();
  } catch (...) {
    return raise_current_exception();
  }
}

PyObject* nb_add(PyObject* a, PyObject* b) { return number_slot(a, b, [](auto&& x, auto&& y) { return lt::add(x, y); }); }
PyObject* nb_sub(PyObject* a, PyObject* b) { return number_slot(a, b, [](auto&& x, auto&& y) { return checked_sub(x, y); }); }
PyObject* nb_mul(PyObject* a, PyObject* b) { return number_slot(a, b, [](auto&& x, auto&& y) { return lt::mul(x, y); }); }
PyObject* nb_div(PyObject* a, PyObject* b) { return number_slot(a, b, [](auto&& x, auto&& y) { return lt::div(x, y); }); }

/// A module function `name(tensor)` computed by `fn` when called with one
/// positional tensor; any other call goes to the pybind11 function it replaces.
template <Tensor (*fn)(const Tensor&)>
struct FastUnary {
  static inline PyObject* fallback = nullptr;
  static PyObject* call(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    if (nargs == 1 && kwnames == nullptr && is_tensor(args[0])) {
      try {
        return wrap(fn(as_tensor(args[0]).get())).release().ptr();
      } catch (...) {
        return raise_current_exception();
      }
    }
    return PyObject_Vectorcall(fallback, args, static_cast<size_t>(nargs), kwnames);
  }
  static void install(py::module_& m, const char* name) {
    static PyMethodDef def{name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&call)),
                           METH_FASTCALL | METH_KEYWORDS, nullptr};
    py::object old = m.attr(name);
    fallback = old.release().ptr();  // kept for the life of the process
    py::object f = py::reinterpret_steal<py::object>(PyCFunction_NewEx(&def, nullptr, m.attr("__name__").ptr()));
    if (!f) throw py::error_already_set();
    m.attr(name) = f;
  }
};

Tensor relu_fn(const Tensor& x) { return lt::relu(x); }
Tensor exp_fn(const Tensor& x) { return lt::exp(x); }
Tensor sigmoid_fn(const Tensor& x) { return lt::sigmoid(x); }
Tensor tanh_fn(const Tensor& x) { return lt::tanh(x); }

}  // namespace

void bind_tensor(py::module_& m, py::class_<PyTensor>& cls) {
  auto collections = py::module_::import("collections");
  g_max_type = collections.attr("namedtuple")("max", py::make_tuple("values", "indices"));
  g_min_type = collections.attr("namedtuple")("min", py::make_tuple("values", "indices"));
  m.attr("_max_type") = g_max_type;
  m.attr("_min_type") = g_min_type;
  m.def("_set_device_object", [](py::object d) { g_device = std::move(d); });
  m.def("_set_grad_fn_object", [](py::object d) { g_grad_fn = std::move(d); });

  cls.def(py::init([](py::args a, py::kwargs kw) {
    if (a.size() == 1 && is_tensor(a[0])) return PyTensor(Tensor(ops::detach(as_tensor(a[0]).get().node())));
    if (a.size() == 0) return PyTensor(lt::zeros({0}));
    bool ints = true;
    for (auto h : a) ints &= PyIndex_Check(h.ptr()) && !is_tensor(h);
    if (ints) {
      std::vector<int64_t> s = shape_from_args(a);
      return PyTensor(lt::zeros(lt::Shape(s.begin(), s.end())));
    }
    py::object t = py::module_::import("lazytensor").attr("tensor")(a[0], py::arg("dtype") = dtype_object(lt::DType::Float32));
    return PyTensor(as_tensor(t).get());
  }));

  // ---- operators ----
#define LT_BIN(pyname, fn)                                                                                  \
  cls.def(pyname, [](PyTensor& a, py::handle b) {                                                           \
    return op_binary(a, b, [](auto&& x, auto&& y) { return fn(x, y); });                                \
  }, py::is_operator());
#define LT_RBIN(pyname, fn)                                                                                 \
  cls.def(pyname, [](PyTensor& a, py::handle b) {                                                           \
    return op_rbinary(a, b, [](auto&& x, auto&& y) { return fn(x, y); });                               \
  }, py::is_operator());
#define LT_IBIN(pyname, fn, name)                                                                           \
  cls.def(pyname, [](py::object a, py::handle b) {                                                          \
    return op_inplace(a, b, [](auto&& x, auto&& y) { return fn(x, y); }, name);                         \
  }, py::is_operator());
  LT_BIN("__add__", lt::add) LT_RBIN("__radd__", lt::add) LT_IBIN("__iadd__", lt::add, "add_")
  LT_BIN("__sub__", checked_sub) LT_RBIN("__rsub__", checked_sub) LT_IBIN("__isub__", checked_sub, "sub_")
  LT_BIN("__mul__", lt::mul) LT_RBIN("__rmul__", lt::mul) LT_IBIN("__imul__", lt::mul, "mul_")
  LT_BIN("__truediv__", lt::div) LT_RBIN("__rtruediv__", lt::div) LT_IBIN("__itruediv__", lt::div, "div_")
  LT_BIN("__pow__", lt::pow) LT_RBIN("__rpow__", pow) LT_IBIN("__ipow__", pow, "pow_")
  LT_BIN("__eq__", lt::eq) LT_BIN("__ne__", lt::ne) LT_BIN("__lt__", lt::lt) LT_BIN("__le__", lt::le)
  LT_BIN("__gt__", lt::gt) LT_BIN("__ge__", lt::ge)
  // Functions that are one primitive each (ir/api.def): torch function,
  // method, in-place method and operators. Registered before the bool-only
  // operators below, so that these overloads are the ones tried first.
  py::list api_functions;
#define LT_API_UNARY(fn, op, cxx, pyop)                                                                  \
  cls.def(#fn, [](PyTensor& a) { return wrap(lt::fn(a.get())); });                                    \
  m.def(#fn, [](PyTensor& a) { return wrap(lt::fn(a.get())); });                                      \
  cls.def(#fn "_", [](py::object self) {                                                               \
    PyTensor& s = self.cast<PyTensor&>();                                                              \
    assign_inplace(s, lt::fn(s.get()), #fn "_");                                                       \
    return self;                                                                                       \
  });                                                                                                  \
  cls.def("__" pyop "__", [](PyTensor& a) { return wrap(unary_operator(a, #cxx " (operator." pyop ")", lt::Op::op, lt::fn)); }); \
  api_functions.append(#fn);
#define LT_API_BINARY(fn, op, cxx, pyop)                                                              \
  cls.def(#fn, [](PyTensor& a, py::handle b) {                                                      \
    return wrap(method_binary(a, b, [](auto&& x, auto&& y) { return lt::fn(x, y); }, #fn));         \
  });                                                                                               \
  m.def(#fn, [](PyTensor& a, py::handle b) {                                                        \
    return wrap(method_binary(a, b, [](auto&& x, auto&& y) { return lt::fn(x, y); }, #fn));         \
  });                                                                                               \
  cls.def(#fn "_", [](py::object self, py::handle b) {                                              \
    PyTensor& s = self.cast<PyTensor&>();                                                           \
    assign_inplace(s, method_binary(s, b, [](auto&& x, auto&& y) { return lt::fn(x, y); }, #fn "_"), \
                   #fn "_");                                                                        \
    return self;                                                                                    \
  });                                                                                               \
  LT_BIN("__" pyop "__", lt::fn) LT_RBIN("__r" pyop "__", lt::fn) LT_IBIN("__i" pyop "__", lt::fn, #fn "_") \
  api_functions.append(#fn);
#include "ir/api.def"
  m.attr("_elementwise_api") = api_functions;
#undef LT_BIN
#undef LT_RBIN
#undef LT_IBIN
  cls.def("__matmul__", [](PyTensor& a, py::handle b) -> py::object {
    if (!is_tensor(b)) return not_implemented();
    return wrap(lt::matmul(a.get(), as_tensor(b).get()));
  }, py::is_operator());
  cls.def("__rmatmul__", [](PyTensor& a, py::handle b) -> py::object {
    if (!is_tensor(b)) return not_implemented();
    return wrap(lt::matmul(as_tensor(b).get(), a.get()));
  }, py::is_operator());
  cls.def("__neg__", [](PyTensor& a) {
    if (a.get().dtype() == lt::DType::Bool) {
      lt::fail(lt::ErrorKind::Runtime, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
               "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
    return wrap(lt::neg(a.get()));
  });
  cls.def("__pos__", [](PyTensor& a) { return wrap(a.get()); });
  cls.def("__abs__", [](PyTensor& a) { return wrap(lt::abs(a.get())); });
  cls.def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()) >> 4; });
  cls.def("__getitem__", [](PyTensor& self, py::handle idx) { return getitem(self, idx); });
  cls.def("__setitem__", [](PyTensor& self, py::handle idx, py::handle v) { setitem(self, idx, v); });
  cls.def("__bool__", [](PyTensor& self) {
    const Tensor& x = self.get();
    if (x.numel() != 1) {
      lt::fail(lt::ErrorKind::Runtime, "Boolean value of Tensor with ", x.numel() == 0 ? "no values" : "more than one value",
               " is ambiguous");
    }
    return x.item<double>() != 0.0;
  });
  cls.def("__float__", [](PyTensor& self) {
    const Tensor& x = self.get();
    if (x.numel() != 1) lt::fail(lt::ErrorKind::Value, "only one element tensors can be converted to Python scalars");
    return x.item<double>();
  });
  cls.def("__int__", [](PyTensor& self) {
    const Tensor& x = self.get();
    if (x.numel() != 1) lt::fail(lt::ErrorKind::Value, "only one element tensors can be converted to Python scalars");
    return lt::is_floating(x.dtype()) ? static_cast<int64_t>(x.item<double>()) : x.item<int64_t>();
  });
  cls.def("__index__", [](PyTensor& self) {
    const Tensor& x = self.get();
    if (x.numel() != 1 || lt::is_floating(x.dtype())) {
      lt::fail(lt::ErrorKind::Type, "only integer tensors of a single element can be converted to an index");
    }
    return x.item<int64_t>();
  });
  cls.def("__len__", [](PyTensor& self) {
    const Tensor& x = self.get();
    if (x.ndim() == 0) lt::fail(lt::ErrorKind::Type, "len() of a 0-d tensor");
    return x.shape()[0];
  });

  // ---- properties ----
  cls.def_property_readonly("shape", [](PyTensor& s) { return make_size(s.get().shape()); });
  cls.def("size", [](PyTensor& s, py::handle dim) -> py::object {
    const Tensor& x = s.get();
    if (dim.is_none()) return make_size(x.shape());
    return py::int_(x.size(dim.cast<int64_t>()));
  }, py::arg("dim") = py::none());
  cls.def("dim", [](PyTensor& s) { return s.get().ndim(); });
  cls.def("ndimension", [](PyTensor& s) { return s.get().ndim(); });
  cls.def_property_readonly("ndim", [](PyTensor& s) { return s.get().ndim(); });
  cls.def("numel", [](PyTensor& s) { return s.get().numel(); });
  cls.def("nelement", [](PyTensor& s) { return s.get().numel(); });
  cls.def("element_size", [](PyTensor& s) { return lt::dtype_size(s.get().dtype()); });
  cls.def_property_readonly("dtype", [](PyTensor& s) { return dtype_object(s.get().dtype()); });
  cls.def_property_readonly("device", [](PyTensor&) { return g_device; });
  cls.def_property_readonly("is_cuda", [](PyTensor&) { return false; });
  cls.def("is_floating_point", [](PyTensor& s) { return lt::is_floating(s.get().dtype()); });
  // As torch's for the view's strides (torch_strides): a transposed view is not
  // contiguous; .contiguous() of one is a fresh tensor that no longer aliases.
  cls.def("is_contiguous", [](PyTensor& s, py::kwargs) { return torch_is_contiguous(s); });
  cls.def("contiguous", [](py::object self, py::kwargs) -> py::object {
    PyTensor& s = self.cast<PyTensor&>();
    if (torch_is_contiguous(s)) return self;
    return py::cast(PyTensor(s.get().clone()));
  });
  cls.def("stride", [](PyTensor& s, py::handle dim) -> py::object {
    std::vector<int64_t> st = torch_strides(s, nullptr);
    if (dim.is_none()) return py::tuple(py::cast(st));
    int64_t d = dim.cast<int64_t>(), n = static_cast<int64_t>(st.size());
    if (d < -n || d >= n) {
      throw py::index_error("stride: dimension " + std::to_string(d) + " out of range for a tensor of " +
                            std::to_string(n) + " dimensions");
    }
    return py::int_(st[d < 0 ? d + n : d]);
  }, py::arg("dim") = py::none());
  // Storage identity for checkpoints: a view and its root base (and .data / detach views of it) share one
  // key, and _storage_base returns the root base (self when not a view).
  cls.def("_storage_key", [](PyTensor& s) {
    return reinterpret_cast<uintptr_t>(s.view ? s.view->base.impl().get() : s.t.impl().get());
  });
  cls.def("_storage_base", [](py::object self) -> py::object {
    PyTensor& s = self.cast<PyTensor&>();
    if (!s.view) return self;
    return py::cast(PyTensor(s.view->base));
  });
  cls.def("storage_offset", [](PyTensor& s) {
    int64_t offset = 0;
    torch_strides(s, &offset);
    return offset;
  });
  cls.def_property("requires_grad", [](PyTensor& s) { return s.get().requires_grad(); },
                   [](PyTensor& s, bool v) { s.t.requires_grad_(v); });
  cls.def("requires_grad_", [](py::object self, bool v) {
    self.cast<PyTensor&>().t.requires_grad_(v);
    return self;
  }, py::arg("requires_grad") = true);
  cls.def_property_readonly("is_leaf", [](PyTensor& s) { return s.get().is_leaf(); });
  cls.def_property_readonly("grad_fn", [](PyTensor& s) -> py::object {
    const Tensor& x = s.get();
    if (!x.requires_grad() || x.is_leaf()) return py::none();
    return g_grad_fn ? g_grad_fn : py::none();
  });
  cls.def_property("grad", [](PyTensor& s) -> py::object {
    Tensor g = s.t.grad();
    if (!g.defined()) return py::none();
    return wrap(g);
  }, [](PyTensor& s, py::handle g) {
    if (g.is_none()) return s.t.set_grad(Tensor());
    const Tensor& gt = as_tensor(g).get();
    if (gt.dtype() != s.get().dtype()) {
      lt::fail(lt::ErrorKind::Runtime, "assigned grad has data of a different type");
    }
    s.t.set_grad(gt);
  });
  cls.def_property("data", [](PyTensor& s) { return make_view(s, ViewStep{ViewStep::Detach}, nullptr, /*own_version=*/true); },
                   [](PyTensor& s, PyTensor& v) {
                     lt::GradModeGuard no_grad(false);
                     const Tensor& src = v.get();
                     if (s.view) {
                       assign_cast(s, src.node());
                     } else {
                       s.t.impl()->rebind(ops::detach(src.node()));
                     }
                   });
  cls.def("backward", [](PyTensor& s, py::handle gradient, py::handle retain_graph, bool create_graph, py::handle inputs) {
    Tensor g = gradient.is_none() ? Tensor() : to_tensor_operand(gradient, "backward");
    bool retain = retain_graph.is_none() ? create_graph : retain_graph.cast<bool>();
    s.get().backward(g, retain, create_graph);
  }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
     py::arg("inputs") = py::none());
  cls.def("detach", [](PyTensor& s) { return make_view(s, ViewStep{ViewStep::Detach}); });
  cls.def("detach_", [](py::object self) {
    PyTensor& s = self.cast<PyTensor&>();
    s.get();
    s.t.impl()->set_node(ops::detach(s.t.node()), false);
    return self;
  });
  cls.def("clone", [](PyTensor& s, py::kwargs) { return PyTensor(s.get().clone()); });
  cls.def("item", [](PyTensor& s) -> py::object {
    const Tensor& x = s.get();
    if (x.numel() != 1) {
      // PyTorch 1.13 raises ValueError here ("only one element tensors can be converted to Python scalars").
      lt::fail(lt::ErrorKind::Value, "item: only one element tensors can be converted to Python scalars; got a Tensor with ",
               x.numel(), " elements (shape ", lt::shape_str(x.shape()), ")");
    }
    switch (x.dtype()) {
      case lt::DType::Bool: return py::bool_(x.item<bool>());
      case lt::DType::Int32:
      case lt::DType::Int64:
      case lt::DType::Int8:
      case lt::DType::UInt8:
      case lt::DType::Int16: return py::int_(x.item<int64_t>());
      default: return py::float_(x.item<double>());
    }
  });
  cls.def_property_readonly("_version", [](PyTensor& s) {  // a view mirrors its base's
    if (s.inference) lt::fail(lt::ErrorKind::Runtime, "Inference tensors do not track version counter.");
    s.get();
    return s.t.version();
  });
  cls.def("is_inference", [](PyTensor& s) { return s.inference; });
  cls.def("_is_view", [](PyTensor& s) { return s.view != nullptr; });

  // ---- conversions ----
  cls.def("to", &to_impl);
  cls.def("type", [](PyTensor& s, py::handle dtype, py::kwargs) -> py::object {
    const Tensor& x = s.get();
    if (dtype.is_none()) {
      switch (x.dtype()) {
        case lt::DType::Bool: return py::str("torch.BoolTensor");
        case lt::DType::Int32: return py::str("torch.IntTensor");
        case lt::DType::Int64: return py::str("torch.LongTensor");
        case lt::DType::Float32: return py::str("torch.FloatTensor");
        case lt::DType::Float64: return py::str("torch.DoubleTensor");
        case lt::DType::Float16: return py::str("torch.HalfTensor");
        case lt::DType::BFloat16: return py::str("torch.BFloat16Tensor");
        case lt::DType::Int8: return py::str("torch.CharTensor");
        case lt::DType::UInt8: return py::str("torch.ByteTensor");
        case lt::DType::Int16: return py::str("torch.ShortTensor");
      }
    }
    return wrap(lt::cast(x, to_dtype(dtype)));
  }, py::arg("dtype") = py::none());
#define LT_CAST(name, dt)                                                              \
  cls.def(name, [](py::object self, py::kwargs) -> py::object {                         \
    PyTensor& s = self.cast<PyTensor&>();                                              \
    if (s.get().dtype() == dt) return self;                                            \
    return wrap(lt::cast(s.get(), dt));                                                \
  });
  LT_CAST("float", lt::DType::Float32) LT_CAST("double", lt::DType::Float64) LT_CAST("long", lt::DType::Int64)
  LT_CAST("int", lt::DType::Int32) LT_CAST("bool", lt::DType::Bool)
  LT_CAST("half", lt::DType::Float16) LT_CAST("bfloat16", lt::DType::BFloat16) LT_CAST("byte", lt::DType::UInt8)
  LT_CAST("char", lt::DType::Int8) LT_CAST("short", lt::DType::Int16)
#undef LT_CAST
  cls.def("type_as", [](py::object self, PyTensor& o) -> py::object {
    PyTensor& s = self.cast<PyTensor&>();
    if (s.get().dtype() == o.get().dtype()) return self;
    return wrap(lt::cast(s.get(), o.get().dtype()));
  });

  // ---- binary methods (also module functions) ----
  // Method and module function; `extra` names the arguments after self/input.
  auto both = [&](const char* name, auto f, auto... extra) {
    cls.def(name, f, extra...);
    if constexpr (sizeof...(extra) == 0) m.def(name, f);
    else m.def(name, f, py::arg("input"), extra...);
  };
#define LT_BINM(name, fn)                                                                             \
  both(#name, [](PyTensor& a, py::handle b) {                                                         \
    return wrap(method_binary(a, b, [](auto&& x, auto&& y) { return lt::fn(x, y); }, #name));         \
  });
  LT_BINM(mul, mul) LT_BINM(multiply, mul) LT_BINM(maximum, maximum) LT_BINM(minimum, minimum) LT_BINM(eq, eq) LT_BINM(ne, ne)
  LT_BINM(lt, lt) LT_BINM(le, le) LT_BINM(gt, gt) LT_BINM(ge, ge) LT_BINM(greater, gt) LT_BINM(less, lt)
  LT_BINM(greater_equal, ge) LT_BINM(less_equal, le) LT_BINM(not_equal, ne) LT_BINM(logical_and, logical_and)
  LT_BINM(logical_or, logical_or)
#undef LT_BINM
  def_api<api::div>(m, cls, [](PyTensor& a, py::handle b, py::handle mode) { return wrap(div_rounding(a, b, mode, "div")); });
  def_api_inplace<api::div>(cls, [](py::object self, py::handle b, py::handle mode) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, div_rounding(s, b, mode, "div_"), "div_");
    return self;
  });
  def_api<api::true_divide>(m, cls, [](PyTensor& a, py::handle b) {
    return wrap(method_binary(a, b, [](auto&& x, auto&& y) { return lt::div(x, y); }, "true_divide"));
  });
  def_api_inplace<api::true_divide>(cls, [](py::object self, py::handle b) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, method_binary(s, b, [](auto&& x, auto&& y) { return lt::div(x, y); }, "true_divide_"), "true_divide_");
    return self;
  });
  def_api<api::pow>(m, cls, [](PyTensor& a, py::handle b) {
    return wrap(method_binary(a, b, [](auto&& x, auto&& y) { return lt::pow(x, y); }, "pow"));
  });
  def_api_inplace<api::pow>(cls, [](py::object self, py::handle b) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, method_binary(s, b, [](auto&& x, auto&& y) { return lt::pow(x, y); }, "pow_"), "pow_");
    return self;
  });
  both("add", [](PyTensor& a, py::handle b, py::handle alpha) {
    return wrap(lt::add(a.get(), scaled(b, alpha, "add")));
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
  both("sub", [](PyTensor& a, py::handle b, py::handle alpha) {
    return wrap(checked_sub(a.get(), scaled(b, alpha, "sub")));
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
  both("subtract", [](PyTensor& a, py::handle b, py::handle alpha) {
    return wrap(checked_sub(a.get(), scaled(b, alpha, "sub")));
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
  both("rsub", [](PyTensor& a, py::handle b, py::handle alpha) {
    return wrap(lt::sub(scaled(b, py::none(), "rsub"), alpha.is_none() ? a.get() : lt::mul(a.get(), *as_scalar(alpha))));
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
  def_api<api::matmul>(m, cls, [](PyTensor& a, PyTensor& b) { return wrap(lt::matmul(a.get(), b.get())); });
  both("mm", [](PyTensor& a, PyTensor& b) {
    if (a.get().ndim() != 2 || b.get().ndim() != 2) lt::fail(lt::ErrorKind::Runtime, "mm: both arguments must be 2-D");
    return wrap(lt::matmul(a.get(), b.get()));
  });
  both("bmm", [](PyTensor& a, PyTensor& b) {
    if (a.get().ndim() != 3 || b.get().ndim() != 3) lt::fail(lt::ErrorKind::Runtime, "bmm: both arguments must be 3-D");
    return wrap(lt::matmul(a.get(), b.get()));
  });
  both("dot", [](PyTensor& a, PyTensor& b) {
    if (a.get().ndim() != 1 || b.get().ndim() != 1) lt::fail(lt::ErrorKind::Runtime, "1D tensors expected, but got ", a.get().ndim(), "D and ", b.get().ndim(), "D tensors");
    return wrap(lt::matmul(a.get(), b.get()));
  });

  // ---- unary ----
#define LT_UN(name, fn) both(#name, [](PyTensor& a) { return wrap(lt::fn(a.get())); });
  LT_UN(neg, neg) LT_UN(negative, neg) LT_UN(abs, abs) LT_UN(exp, exp) LT_UN(log, log) LT_UN(log1p, log1p)
  LT_UN(expm1, expm1) LT_UN(sqrt, sqrt) LT_UN(rsqrt, rsqrt) LT_UN(sin, sin) LT_UN(cos, cos) LT_UN(tanh, tanh)
  LT_UN(erf, erf) LT_UN(sigmoid, sigmoid) LT_UN(relu, relu) LT_UN(floor, floor) LT_UN(ceil, ceil)
  LT_UN(round, round) LT_UN(sign, sign) LT_UN(reciprocal, reciprocal) LT_UN(logical_not, logical_not)
  LT_UN(isnan, isnan) LT_UN(isfinite, isfinite) LT_UN(silu, silu)
#undef LT_UN
  both("square", [](PyTensor& a) { return wrap(lt::mul(a.get(), a.get())); });
  both("gelu", [](PyTensor& a, const std::string& approximate) {
    if (approximate != "none" && approximate != "tanh") lt::fail(lt::ErrorKind::Runtime, "approximate argument must be either none or tanh.");
    return wrap(lt::gelu(a.get(), approximate == "tanh"));
  }, py::kw_only(), py::arg("approximate") = "none");
  both("softplus", [](PyTensor& a, double beta, double threshold) { return wrap(lt::softplus(a.get(), beta, threshold)); },
       py::arg("beta") = 1.0, py::arg("threshold") = 20.0);
  def_api<api::clamp>(m, cls, [](PyTensor& a, py::handle lo, py::handle hi) {
    if (lo.is_none() && hi.is_none()) lt::fail(lt::ErrorKind::Runtime, "torch.clamp: At least one of 'min' or 'max' must not be None");
    if (is_tensor(lo) || is_tensor(hi)) {
      return wrap(lt::clamp(a.get(), lo.is_none() ? Tensor() : to_tensor_operand(lo, "clamp"),
                            hi.is_none() ? Tensor() : to_tensor_operand(hi, "clamp")));
    }
    return wrap(lt::clamp(a.get(), opt_scalar(lo), opt_scalar(hi)));
  });
  def_api<api::clip>(m, cls, [](PyTensor& a, py::handle lo, py::handle hi) {
    return wrap(lt::clamp(a.get(), opt_scalar(lo), opt_scalar(hi)));
  });
  both("clamp_min", [](PyTensor& a, py::handle lo) { return wrap(lt::clamp(a.get(), opt_scalar(lo), std::nullopt)); });
  both("clamp_max", [](PyTensor& a, py::handle hi) { return wrap(lt::clamp(a.get(), std::nullopt, opt_scalar(hi))); });
  def_api<api::where_method>(m, cls, [](PyTensor& a, PyTensor& cond, py::handle other) {
    if (auto s = as_scalar(other)) return wrap(lt::where(cond.get(), a.get(), *s));
    return wrap(lt::where(cond.get(), a.get(), as_tensor(other).get()));
  });
  m.def("_where3", [](PyTensor& cond, py::handle a, py::handle b) {
    const Tensor& c = cond.get();
    if (c.dtype() != lt::DType::Bool) {
      lt::fail(lt::ErrorKind::Runtime, "where expected condition to be a boolean tensor, but got a tensor with dtype ",
               lt::dtype_name(c.dtype()));
    }
    if (is_tensor(a) && is_tensor(b)) return wrap(lt::where(c, as_tensor(a).get(), as_tensor(b).get()));
    if (is_tensor(a)) return wrap(lt::where(c, as_tensor(a).get(), *as_scalar(b)));
    if (is_tensor(b)) return wrap(lt::where(c, *as_scalar(a), as_tensor(b).get()));
    return wrap(lt::where(c, to_tensor_operand(a, "where"), to_tensor_operand(b, "where")));
  });

  // ---- reductions ----
  def_api<api::sum>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim, py::handle dtype) {
    return wrap(lt::sum(a.get(), to_dims(dim), keepdim, to_opt_dtype(dtype)));
  });
  def_api<api::prod>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim, py::handle dtype) {
    return wrap(lt::prod(a.get(), to_dims(dim), keepdim, to_opt_dtype(dtype)));
  });
  def_api<api::mean>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim, py::handle dtype) {
    Tensor x = reduce_dtype(a.get(), dtype);
    check_float_reduction(x, "mean");
    return wrap(lt::mean(x, to_dims(dim), keepdim));
  });
  def_api<api::amax>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) { return wrap(lt::amax(a.get(), to_dims(dim), keepdim)); });
  def_api<api::amin>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) { return wrap(lt::amin(a.get(), to_dims(dim), keepdim)); });
  def_api<api::max>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) { return reduce_minmax(a, dim, keepdim, true); });
  def_api<api::min>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) { return reduce_minmax(a, dim, keepdim, false); });
  def_api<api::argmax>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) {
    check_not_bool(a.get(), "argmax");
    return wrap(lt::argmax(a.get(), dim.is_none() ? std::nullopt : std::optional<int64_t>(dim.cast<int64_t>()), keepdim));
  });
  def_api<api::argmin>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) {
    check_not_bool(a.get(), "argmin");
    return wrap(lt::argmin(a.get(), dim.is_none() ? std::nullopt : std::optional<int64_t>(dim.cast<int64_t>()), keepdim));
  });
  def_api<api::var>(m, cls, [](PyTensor& a, py::handle dim, py::handle unbiased, bool keepdim, py::handle correction) {
    check_float_reduction(a.get(), "var");
    return wrap(lt::var(a.get(), to_dims(dim), correction_of(unbiased, correction), keepdim));
  });
  def_api<api::std>(m, cls, [](PyTensor& a, py::handle dim, py::handle unbiased, bool keepdim, py::handle correction) {
    check_float_reduction(a.get(), "std");
    return wrap(lt::std(a.get(), to_dims(dim), correction_of(unbiased, correction), keepdim));
  });
  def_api<api::logsumexp>(m, cls, [](PyTensor& a, py::handle dim, bool keepdim) {
    return wrap(lt::logsumexp(a.get(), to_dims(dim), keepdim));
  });
  both("all", [](PyTensor& a, py::handle dim, bool keepdim) { return wrap(lt::all(a.get(), to_dims(dim), keepdim)); },
       py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both("any", [](PyTensor& a, py::handle dim, bool keepdim) { return wrap(lt::any(a.get(), to_dims(dim), keepdim)); },
       py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_api<api::cumsum>(m, cls, [](PyTensor& a, int64_t dim, py::handle dtype) {
    return wrap(lt::cumsum(a.get(), dim, to_opt_dtype(dtype)));
  });
  def_api_inplace<api::cumsum>(cls, [](py::object self, int64_t dim, py::handle dtype) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, lt::cumsum(s.get(), dim, to_opt_dtype(dtype)), "cumsum_");
    return self;
  });
  def_api<api::softmax>(m, cls, [](PyTensor& a, int64_t dim, py::handle dtype) {
    return wrap(lt::softmax(reduce_dtype(a.get(), dtype), dim));
  });
  def_api<api::log_softmax>(m, cls, [](PyTensor& a, int64_t dim, py::handle dtype) {
    return wrap(lt::log_softmax(reduce_dtype(a.get(), dtype), dim));
  });

  // ---- movement (views) ----
  def_api<api::reshape_method>(m, cls, [](PyTensor& s, py::args a) { return reshape_view(s, args_or_list(a)); });
  def_api<api::reshape>(m, cls, [](PyTensor& s, py::handle shape) { return reshape_view(s, to_int_list(shape)); });
  def_api<api::view>(m, cls, [](PyTensor& s, py::args a) {
    if (a.size() == 1 && !PyIndex_Check(a[0].ptr()) && !PySequence_Check(a[0].ptr())) {
      lt::fail(lt::ErrorKind::NotImplemented, "view(dtype) is not supported by lazytensor");
    }
    return reshape_view(s, args_or_list(a));
  });
  cls.def("view_as", [](PyTensor& s, PyTensor& o) {
    auto sh = o.get().shape();
    return reshape_view(s, std::vector<int64_t>(sh.begin(), sh.end()));
  });
  cls.def("reshape_as", [](PyTensor& s, PyTensor& o) {
    auto sh = o.get().shape();
    return reshape_view(s, std::vector<int64_t>(sh.begin(), sh.end()));
  });
  def_api<api::flatten>(m, cls, [](PyTensor& s, int64_t start, int64_t end) {
    const Tensor& x = s.get();
    lt::NodePtr n = ops::flatten(x.node(), start, end);
    return reshape_view(s, std::vector<int64_t>(n->shape.begin(), n->shape.end()));
  });
  def_api<api::permute_method>(m, cls, [](PyTensor& s, py::args a) { return permute_view(s, args_or_list(a)); });
  def_api<api::permute>(m, cls, [](PyTensor& s, py::handle dims) { return permute_view(s, to_int_list(dims)); });
  def_api<api::transpose>(m, cls, [](PyTensor& s, int64_t a, int64_t b) { return transpose_view(s, a, b); });
  def_api<api::swapaxes>(m, cls, [](PyTensor& s, int64_t a, int64_t b) { return transpose_view(s, a, b); });
  both("t", [](PyTensor& s) {
    int64_t nd = s.get().ndim();
    if (nd > 2) lt::fail(lt::ErrorKind::Runtime, "t() expects a tensor with <= 2 dimensions, but self is ", nd, "D");
    if (nd < 2) return reshape_view(s, std::vector<int64_t>(s.get().shape().begin(), s.get().shape().end()));
    return transpose_view(s, 0, 1);
  });
  cls.def_property_readonly("T", [](PyTensor& s) {
    int64_t nd = s.get().ndim();
    std::vector<int64_t> perm(nd);
    for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
    return permute_view(s, perm);
  });
  cls.def_property_readonly("mT", [](PyTensor& s) { return transpose_view(s, -2, -1); });
  cls.def("expand", [](PyTensor& s, py::args a) {
    const Tensor& x = s.get();
    lt::NodePtr n = ops::expand(x.node(), args_or_list(a));
    ViewStep st{ViewStep::Expand};
    st.shape.assign(n->shape.begin(), n->shape.end());
    return make_view(s, std::move(st), n);
  });
  cls.def("expand_as", [](PyTensor& s, PyTensor& o) {
    const Tensor& x = s.get();
    auto sh = o.get().shape();
    lt::NodePtr n = ops::expand(x.node(), std::vector<int64_t>(sh.begin(), sh.end()));
    ViewStep st{ViewStep::Expand};
    st.shape.assign(n->shape.begin(), n->shape.end());
    return make_view(s, std::move(st), n);
  });
  def_api<api::squeeze>(m, cls, [](PyTensor& s, py::handle dim) {
    const Tensor& x = s.get();
    lt::NodePtr n = ops::squeeze(x.node(), dim.is_none() ? std::nullopt : std::optional<int64_t>(dim.cast<int64_t>()));
    return reshape_view(s, std::vector<int64_t>(n->shape.begin(), n->shape.end()));
  });
  def_api<api::unsqueeze>(m, cls, [](PyTensor& s, int64_t dim) {
    const Tensor& x = s.get();
    lt::NodePtr n = ops::unsqueeze(x.node(), dim);
    return reshape_view(s, std::vector<int64_t>(n->shape.begin(), n->shape.end()));
  });
  both("narrow", [](PyTensor& s, int64_t dim, int64_t start, int64_t length) {
    return make_view(s, slice_step(s.get(), dim, start, length));
  });
  both("select", [](PyTensor& s, int64_t dim, int64_t index) {
    const Tensor& x = s.get();
    ViewStep st{ViewStep::Select};
    st.dim = lt::normalize_dim("select", dim, x.ndim());
    int64_t size = x.shape()[st.dim];
    if (index < -size || index >= size) {
      lt::fail(lt::ErrorKind::Index, "select(): index ", index, " out of range for tensor of size ",
               lt::shape_str(x.shape()), " at dimension ", dim);
    }
    st.start = index < 0 ? index + size : index;
    return make_view(s, std::move(st));
  });
  both("unbind", [](PyTensor& s, int64_t dim) {
    const Tensor& x = s.get();
    dim = lt::normalize_dim("unbind", dim, x.ndim());
    py::list out;
    for (int64_t i = 0; i < x.shape()[dim]; ++i) {
      ViewStep st{ViewStep::Select};
      st.dim = dim;
      st.start = i;
      out.append(py::cast(make_view(s, std::move(st))));
    }
    return py::tuple(out);
  }, py::arg("dim") = 0);
  auto split = [](PyTensor& s, py::handle split, int64_t dim) { return py::tuple(split_views(s, split, dim)); };
  def_api<api::split>(m, cls, split);
  def_api<api::split_method>(m, cls, split);
  def_api<api::chunk>(m, cls, [](PyTensor& s, int64_t chunks, int64_t dim) {
    const Tensor& x = s.get();
    if (chunks <= 0) lt::fail(lt::ErrorKind::Runtime, "chunk expects `chunks` to be greater than 0, got: ", chunks);
    int64_t size = x.shape()[lt::normalize_dim("chunk", dim, x.ndim())];
    int64_t k = (size + chunks - 1) / chunks;
    return py::tuple(split_views(s, py::int_(std::max<int64_t>(k, 1)), dim));
  });
  def_api<api::flip>(m, cls, [](PyTensor& s, py::handle dims) { return wrap(lt::flip(s.get(), to_int_list(dims))); });
  both("tril", [](PyTensor& s, int64_t d) { return wrap(lt::tril(s.get(), d)); }, py::arg("diagonal") = 0);
  both("triu", [](PyTensor& s, int64_t d) { return wrap(lt::triu(s.get(), d)); }, py::arg("diagonal") = 0);

  // ---- indexing ops ----
  def_api<api::index_select>(m, cls, [](PyTensor& s, int64_t dim, PyTensor& idx) { return wrap(lt::index_select(s.get(), dim, idx.get())); });
  def_api<api::gather>(m, cls, [](PyTensor& s, int64_t dim, PyTensor& idx, bool sparse_grad) {
    if (sparse_grad) lt::fail(lt::ErrorKind::NotImplemented, "gather(sparse_grad=True): lazytensor has no sparse gradients");
    return wrap(lt::gather(s.get(), dim, idx.get()));
  });
  def_api<api::scatter_add>(m, cls, [](PyTensor& s, int64_t dim, PyTensor& idx, PyTensor& src) {
    return wrap(lt::scatter_add(s.get(), dim, idx.get(), src.get()));
  });
  both("index_add", [](PyTensor& s, int64_t dim, PyTensor& idx, PyTensor& src, double alpha) {
    return wrap(lt::index_add(s.get(), dim, idx.get(), src.get(), alpha));
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1.0);
  both("masked_fill", [](PyTensor& s, PyTensor& mask, py::handle value) {
    if (mask.get().dtype() != lt::DType::Bool) {
      lt::fail(lt::ErrorKind::Runtime, "masked_fill_ only supports boolean masks, but got mask with dtype ",
               lt::dtype_name(mask.get().dtype()));
    }
    if (auto v = as_scalar(value)) return wrap(lt::masked_fill(s.get(), mask.get(), *v));
    const Tensor& vt = as_tensor(value).get();
    if (vt.ndim() != 0) {
      lt::fail(lt::ErrorKind::Runtime, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
               vt.ndim(), " dimension(s).");
    }
    return wrap(lt::masked_fill(s.get(), mask.get(), vt));
  });

  // ---- in-place ----
  cls.def("_inplace", [](py::object self, PyTensor& value, const char* name) {
    assign_inplace(self.cast<PyTensor&>(), value.get(), name);
    return self;
  });
  cls.def("add_", [](py::object self, py::handle o, py::handle alpha) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, lt::add(s.get(), scaled(o, alpha, "add_")), "add_");
    return self;
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
  cls.def("sub_", [](py::object self, py::handle o, py::handle alpha) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, checked_sub(s.get(), scaled(o, alpha, "sub_")), "sub_");
    return self;
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
#define LT_INPL(name, fn)                                                                              \
  cls.def(#name, [](py::object self, py::handle o) {                                                   \
    PyTensor& s = self.cast<PyTensor&>();                                                              \
    assign_inplace(s, method_binary(s, o, [](auto&& x, auto&& y) { return lt::fn(x, y); }, #name), #name); \
    return self;                                                                                       \
  });
  LT_INPL(mul_, mul) LT_INPL(maximum_, maximum) LT_INPL(minimum_, minimum)
#undef LT_INPL
  cls.def("zero_", [](py::object self) {
    PyTensor& s = self.cast<PyTensor&>();
    const Tensor& x = s.get();
    assign_cast(s, ops::zeros(x.shape(), x.dtype()));
    return self;
  });
  cls.def("fill_", [](py::object self, py::handle v) {
    PyTensor& s = self.cast<PyTensor&>();
    const Tensor& x = s.get();
    lt::NodePtr val;
    if (is_tensor(v)) {
      const Tensor& vt = as_tensor(v).get();
      if (vt.ndim() != 0) lt::fail(lt::ErrorKind::Runtime, "fill_ only supports 0-dimension value tensor but got tensor with ", vt.ndim(), " dimensions.");
      val = vt.node();
    } else {
      auto sc = as_scalar(v);
      if (!sc) throw py::type_error("fill_(): argument 'value' must be Number");
      val = sc->node();
    }
    assign_cast(s, ops::full_like_node(ops::cast(val, x.dtype()), x.shape()));
    return self;
  });
  cls.def("copy_", [](py::object self, py::handle src, bool) {
    PyTensor& s = self.cast<PyTensor&>();
    const Tensor& x = s.get();
    Tensor v = to_tensor_operand(src, "copy_");
    lt::NodePtr n = v.node();
    if (n->shape != x.shape()) n = ops::expand(n, std::vector<int64_t>(x.shape().begin(), x.shape().end()));
    assign_cast(s, ops::cast(n, x.dtype()));
    return self;
  }, py::arg("src"), py::arg("non_blocking") = false);
  cls.def("clamp_", [](py::object self, py::handle lo, py::handle hi) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, lt::clamp(s.get(), opt_scalar(lo), opt_scalar(hi)), "clamp_");
    return self;
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
  cls.def("masked_fill_", [](py::object self, PyTensor& mask, py::handle value) {
    PyTensor& s = self.cast<PyTensor&>();
    Tensor r;
    if (auto v = as_scalar(value)) r = lt::masked_fill(s.get(), mask.get(), *v);
    else r = lt::masked_fill(s.get(), mask.get(), as_tensor(value).get());
    if (r.shape() != s.get().shape()) {
      lt::fail(lt::ErrorKind::Runtime, "masked_fill_: mask of shape ", lt::shape_str(mask.get().shape()),
               " must broadcast to the shape of self ", lt::shape_str(s.get().shape()));
    }
    assign_cast(s, r);
    return self;
  });
  cls.def("neg_", [](py::object self) {
    PyTensor& s = self.cast<PyTensor&>();
    assign_inplace(s, lt::neg(s.get()), "neg_");
    return self;
  });
  cls.def("_uniform_", [](py::object self, double lo, double hi) {
    PyTensor& s = self.cast<PyTensor&>();
    const Tensor& x = s.get();
    auto& g = default_generator();
    int64_t off = g.advance(x.numel());
    lt::DType dt = lt::is_floating(x.dtype()) ? x.dtype() : lt::DType::Float64;
    Tensor r = lt::add(lt::mul(lt::rand(x.shape(), g.seed, off, dt), Scalar(hi - lo)), Scalar(lo));
    assign_cast(s, lt::cast(r, x.dtype()));
    return self;
  });
  cls.def("_normal_", [](py::object self, double mean, double std) {
    PyTensor& s = self.cast<PyTensor&>();
    const Tensor& x = s.get();
    auto& g = default_generator();
    int64_t off = g.advance(x.numel());
    Tensor r = lt::add(lt::mul(lt::randn(x.shape(), g.seed, off, x.dtype()), Scalar(std)), Scalar(mean));
    assign_cast(s, r);
    return self;
  });

  // Fast paths (above): installed last, over what pybind11 set up.
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  type->tp_as_number->nb_add = nb_add;
  type->tp_as_number->nb_subtract = nb_sub;
  type->tp_as_number->nb_multiply = nb_mul;
  type->tp_as_number->nb_true_divide = nb_div;
  PyType_Modified(type);
  FastUnary<relu_fn>::install(m, "relu");
  FastUnary<exp_fn>::install(m, "exp");
  FastUnary<sigmoid_fn>::install(m, "sigmoid");
  FastUnary<tanh_fn>::install(m, "tanh");
}

}  // namespace ltpy
