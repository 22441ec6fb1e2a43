// bindings/functions.cpp — dtypes, argument conversions, creation functions,
// the global generator, grad mode and the debug counters of lazytensor._C.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "bindings/api_table.h"
#include "bindings/py_tensor.h"
#include "ir/counters.h"
#include "lazy/runtime.h"
#include "trace/recompile_reasons.h"

namespace ltpy {

// ---- dtypes ----

// Leaked on purpose: destroying Python objects after interpreter shutdown crashes.
static py::object* const g_dtypes = new py::object[lt::kNumDTypes];
static py::object& g_size_class = *new py::object();
static py::object& g_tensor_type = *new py::object();

py::object dtype_object(lt::DType d) { return g_dtypes[static_cast<int>(d)]; }

static const char* torch_dtype_name(lt::DType d) {
  switch (d) {
    case lt::DType::Bool: return "bool";
    case lt::DType::Int32: return "int32";
    case lt::DType::Int64: return "int64";
    case lt::DType::Float32: return "float32";
    case lt::DType::Float64: return "float64";
    case lt::DType::Float16: return "float16";
    case lt::DType::BFloat16: return "bfloat16";
    case lt::DType::Int8: return "int8";
    case lt::DType::UInt8: return "uint8";
    case lt::DType::Int16: return "int16";
  }
  return "?";
}

static std::optional<lt::DType> numpy_dtype(py::handle h) {
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(h));
  char kind = dt.kind();
  size_t size = dt.itemsize();
  if (kind == 'b') return lt::DType::Bool;
  if (kind == 'f') return size == 8 ? lt::DType::Float64 : size == 2 ? lt::DType::Float16 : lt::DType::Float32;
  if (kind == 'i' && size == 1) return lt::DType::Int8;
  if (kind == 'i' && size == 2) return lt::DType::Int16;
  if (kind == 'u' && size == 1) return lt::DType::UInt8;
  if (kind == 'i' || kind == 'u') return size == 8 || (kind == 'u' && size == 4) ? lt::DType::Int64 : lt::DType::Int32;
  return std::nullopt;
}

lt::DType to_dtype(py::handle h) {
  if (py::isinstance<PyDType>(h)) return h.cast<PyDType&>().dtype;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return lt::DType::Float64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return lt::DType::Int64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return lt::DType::Bool;
  if (PyUnicode_Check(h.ptr())) {
    std::string s = h.cast<std::string>();
    if (s.rfind("torch.", 0) == 0) s = s.substr(6);
    static const std::pair<const char*, lt::DType> names[] = {
        {"float32", lt::DType::Float32}, {"float", lt::DType::Float32}, {"float64", lt::DType::Float64},
        {"double", lt::DType::Float64}, {"int32", lt::DType::Int32},     {"int", lt::DType::Int32},
        {"int64", lt::DType::Int64},     {"long", lt::DType::Int64},     {"bool", lt::DType::Bool},
        {"float16", lt::DType::Float16}, {"half", lt::DType::Float16},   {"bfloat16", lt::DType::BFloat16},
        {"int8", lt::DType::Int8},       {"uint8", lt::DType::UInt8},    {"int16", lt::DType::Int16},
        {"short", lt::DType::Int16}};
    for (auto& [n, d] : names)
      if (s == n) return d;
  }
  try {
    if (auto d = numpy_dtype(h)) return *d;
  } catch (py::error_already_set&) {
  }
  throw py::type_error("unsupported dtype: " + std::string(py::repr(h)) +
                       " (lazytensor has bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)");
}

std::optional<lt::DType> to_opt_dtype(py::handle h) {
  if (!h || h.is_none()) return std::nullopt;
  return to_dtype(h);
}

// ---- operands ----

bool is_tensor(py::handle h) {
  PyTypeObject* t = Py_TYPE(h.ptr());
  return t == reinterpret_cast<PyTypeObject*>(g_tensor_type.ptr()) ||
         PyType_IsSubtype(t, reinterpret_cast<PyTypeObject*>(g_tensor_type.ptr()));
}

// wrap() and as_tensor() run for every operand and result of every op. Going
// through py::cast costs a std::type_index hash-map lookup (type name hashed
// and compared) per call; the Tensor type's pybind11 record is looked up once
// instead, and an exact Tensor's value pointer is read from its instance.
static const py::detail::type_info* tensor_type_info() {
  static const py::detail::type_info* info = py::detail::get_type_info(typeid(PyTensor), /*throw_if_missing=*/true);
  return info;
}

// pybind11's class_<PyTensor>::init_instance, which runs for every new Tensor
// object, starts with the same typeid lookup. This is that function (register
// the instance, construct the unique_ptr holder from an existing holder or
// the owned value) with the type_info looked up once; installed in the type's
// record at module init (bind_functions).
static void init_tensor_instance(py::detail::instance* inst, const void* holder_ptr) {
  using Holder = std::unique_ptr<PyTensor>;
  py::detail::value_and_holder v_h = inst->get_value_and_holder(tensor_type_info());
  if (!v_h.instance_registered()) {
    py::detail::register_instance(inst, v_h.value_ptr(), v_h.type);
    v_h.set_instance_registered();
  }
  if (holder_ptr) {
    new (std::addressof(v_h.holder<Holder>())) Holder(std::move(*const_cast<Holder*>(static_cast<const Holder*>(holder_ptr))));
    v_h.set_holder_constructed();
  } else if (inst->owned) {
    new (std::addressof(v_h.holder<Holder>())) Holder(v_h.value_ptr<PyTensor>());
    v_h.set_holder_constructed();
  }
}

PyTensor& as_tensor(py::handle h) {
  const py::detail::type_info* info = tensor_type_info();
  if (Py_TYPE(h.ptr()) == info->type) {
    auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
    if (void* v = inst->get_value_and_holder(info).value_ptr()) return *static_cast<PyTensor*>(v);
  }
  return h.cast<PyTensor&>();  // subclasses; an uninitialised instance raises here
}

std::optional<lt::Scalar> as_scalar(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return lt::Scalar(o == Py_True);
  if (PyFloat_Check(o)) return lt::Scalar(PyFloat_AS_DOUBLE(o));
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw py::value_error("integer value out of range for int64");
    return lt::Scalar(v);
  }
  if (is_tensor(h)) return std::nullopt;
  // numpy scalars and other numbers
  if (PyObject_HasAttrString(o, "dtype") && PyObject_HasAttrString(o, "item")) {
    py::object shape = py::reinterpret_borrow<py::object>(h).attr("shape");
    if (py::len(shape) == 0) return as_scalar(py::reinterpret_borrow<py::object>(h).attr("item")());
    return std::nullopt;
  }
  if (PyIndex_Check(o)) return lt::Scalar(static_cast<long long>(py::int_(py::reinterpret_borrow<py::object>(h))));
  if (PyNumber_Check(o) && PyObject_HasAttrString(o, "__float__")) {
    return lt::Scalar(PyFloat_AsDouble(o));
  }
  return std::nullopt;
}

lt::Tensor to_tensor_operand(py::handle h, const char* op) {
  if (is_tensor(h)) return as_tensor(h).get();
  if (auto s = as_scalar(h)) return lt::Tensor(s->node());
  throw py::type_error(std::string(op) + "(): expected a Tensor or a number, got " +
                       std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

std::vector<int64_t> to_int_list(py::handle h) {
  std::vector<int64_t> out;
  if (PyLong_Check(h.ptr())) return {h.cast<int64_t>()};
  if (is_tensor(h)) {
    const lt::Tensor& t = as_tensor(h).get();
    if (t.ndim() == 0) return {t.item<int64_t>()};
    return t.to_vector<int64_t>();
  }
  for (auto it : py::reinterpret_borrow<py::iterable>(h)) {
    if (is_tensor(it)) out.push_back(as_tensor(it).get().item<int64_t>());
    else out.push_back(py::reinterpret_borrow<py::object>(it).cast<int64_t>());
  }
  return out;
}

std::vector<int64_t> shape_from_args(const py::args& args, size_t first) {
  size_t n = args.size() - first;
  if (n == 1 && !PyLong_Check(args[first].ptr()) && !PyIndex_Check(args[first].ptr())) {
    return to_int_list(args[first]);
  }
  std::vector<int64_t> out;
  for (size_t i = first; i < args.size(); ++i) {
    if (!PyIndex_Check(args[i].ptr())) {
      throw py::type_error("size must be a tuple of ints, got " + std::string(py::repr(args[i])));
    }
    out.push_back(args[i].cast<int64_t>());
  }
  return out;
}

std::vector<int64_t> to_dims(py::handle h) {
  if (!h || h.is_none()) return {};
  return to_int_list(h);
}

static thread_local bool t_inference_mode = false;
bool inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode(bool on) { t_inference_mode = on; }

py::object wrap(lt::Tensor t) {
  // take_ownership of a fresh object: pybind11 adopts the pointer (no move
  // into a second allocation), as for a returned `new T`.
  auto* p = new PyTensor(std::move(t));
  p->inference = t_inference_mode;
  py::handle h = py::detail::type_caster_generic::cast(p, py::return_value_policy::take_ownership, py::handle(),
                                                       tensor_type_info(), nullptr, nullptr);
  if (!h) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(h);
}

py::object make_size(const lt::Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  if (!g_size_class) return t;
  return g_size_class(t);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

// ---- creation ----

namespace {

lt::Shape shape_arg(const py::args& args, const py::kwargs& kw, size_t first = 0) {
  std::vector<int64_t> s;
  if (args.size() > first) s = shape_from_args(args, first);
  else if (kw.contains("size")) s = to_int_list(kw["size"]);
  for (int64_t d : s)
    if (d < 0) lt::fail(lt::ErrorKind::Runtime, "Trying to create tensor with negative dimension ", d);
  return lt::Shape(s.begin(), s.end());
}

void check_device_kw(const py::kwargs& kw) {
  if (kw.contains("device")) check_placement(kw["device"]);
}

std::optional<lt::DType> kw_dtype(const py::kwargs& kw) {
  if (kw.contains("dtype")) return to_opt_dtype(kw["dtype"]);
  return std::nullopt;
}

py::object finish(lt::Tensor t, const py::kwargs& kw) {
  if (kw.contains("requires_grad") && kw["requires_grad"].cast<bool>()) t.requires_grad_(true);
  return wrap(std::move(t));
}

lt::Scalar scalar_arg(py::handle h, const char* what) {
  auto s = as_scalar(h);
  if (!s) throw py::type_error(std::string(what) + ": expected a number, got " + std::string(py::repr(h)));
  return *s;
}

}  // namespace

py::object& g_placement_check = *new py::object();  // leaked on purpose (top of the file)

void check_placement(py::handle device) {
  if (device.is_none()) return;
  if (!g_placement_check) lt::fail(lt::ErrorKind::Runtime, "lazytensor: device check used before the package loaded");
  g_placement_check(device);
}

static PyTensor from_numpy(py::array arr) {
  auto d = numpy_dtype(arr.dtype());
  if (!d) throw py::type_error("can't convert np.ndarray of type " + std::string(py::str(arr.dtype())) +
                               ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.");
  py::dtype want(torch_dtype_name(*d));  // numpy has every dtype numpy_dtype gives (not bfloat16)
  py::array c = py::array::ensure(arr.attr("astype")(want, py::arg("copy") = false), py::array::c_style);
  if (!c) throw py::error_already_set();
  lt::Shape shape(c.shape(), c.shape() + c.ndim());
  return PyTensor(lt::Tensor::from_data(c.data(), *d, shape));
}

static py::array to_numpy(PyTensor& self) {
  const lt::Tensor& t = self.get();
  if (t.dtype() == lt::DType::BFloat16) throw py::type_error("Got unsupported ScalarType BFloat16");  // as torch
  const char* np_name = torch_dtype_name(t.dtype());
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  py::array out(py::dtype(np_name), shape);
  if (t.numel()) t.copy_to(out.mutable_data(), static_cast<size_t>(out.nbytes()));
  return out;
}

void bind_functions(py::module_& m) {
  const_cast<py::detail::type_info*>(tensor_type_info())->init_instance = init_tensor_instance;
  // dtypes
  py::class_<PyDType> dt(m, "dtype");
  dt.def("__repr__", [](const PyDType& d) { return std::string("torch.") + torch_dtype_name(d.dtype); })
      .def("__str__", [](const PyDType& d) { return std::string("torch.") + torch_dtype_name(d.dtype); })
      .def_property_readonly("is_floating_point", [](const PyDType& d) { return lt::is_floating(d.dtype); })
      .def_property_readonly("is_complex", [](const PyDType&) { return false; })
      .def_property_readonly("is_signed",
                             [](const PyDType& d) { return d.dtype != lt::DType::Bool && d.dtype != lt::DType::UInt8; })
      .def_property_readonly("itemsize", [](const PyDType& d) { return lt::dtype_size(d.dtype); })
      .def_property_readonly("name", [](const PyDType& d) { return torch_dtype_name(d.dtype); })
      .def("__reduce__", [](const PyDType& d) { return std::string(torch_dtype_name(d.dtype)); });
  for (int i = 0; i < lt::kNumDTypes; ++i) {
    lt::DType d = static_cast<lt::DType>(i);
    g_dtypes[static_cast<int>(d)] = py::cast(PyDType{d});
    m.attr(torch_dtype_name(d)) = g_dtypes[static_cast<int>(d)];
  }
  m.attr("float") = dtype_object(lt::DType::Float32);
  m.attr("double") = dtype_object(lt::DType::Float64);
  m.attr("int") = dtype_object(lt::DType::Int32);
  m.attr("long") = dtype_object(lt::DType::Int64);
  m.attr("half") = dtype_object(lt::DType::Float16);
  m.attr("short") = dtype_object(lt::DType::Int16);
  m.attr("_dtype_for_numpy") = py::cpp_function([](py::handle h) -> py::object {
    auto d = numpy_dtype(h);
    return d ? dtype_object(*d) : py::none();
  });
  m.def("_numpy_name", [](py::handle h) { return std::string(torch_dtype_name(to_dtype(h))); });
  m.def("_to_dtype", [](py::handle h) { return dtype_object(to_dtype(h)); });
  m.def("promote_types", [](py::handle a, py::handle b) { return dtype_object(lt::promote_types(to_dtype(a), to_dtype(b))); });

  m.def("_set_size_class", [](py::object cls) { g_size_class = std::move(cls); });
  m.def("_set_tensor_type", [](py::object cls) { g_tensor_type = std::move(cls); });

  m.def("_set_placement_check", [](py::object f) { g_placement_check = std::move(f); });
  m.def("from_numpy", &from_numpy);
  m.def("_to_numpy", &to_numpy);
  // Raw element bits as an unsigned numpy array of the same width, and back:
  // how bfloat16 (no numpy type) travels through checkpoints.
  m.def("_bits_to_numpy", [](PyTensor& self) {
    const lt::Tensor& t = self.get();
    size_t es = lt::dtype_size(t.dtype());
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
    py::array out(py::dtype(es == 1 ? "uint8" : es == 2 ? "uint16" : es == 4 ? "uint32" : "uint64"), shape);
    if (t.numel()) t.copy_to(out.mutable_data(), static_cast<size_t>(out.nbytes()));
    return out;
  });
  m.def("_bits_from_numpy", [](py::array arr, py::handle dtype) {
    lt::DType d = to_dtype(dtype);
    if (static_cast<size_t>(arr.itemsize()) != lt::dtype_size(d))
      throw py::type_error("_bits_from_numpy: " + std::to_string(arr.itemsize()) + "-byte elements can't hold " +
                           torch_dtype_name(d));
    py::array c = py::array::ensure(arr, py::array::c_style);
    if (!c) throw py::error_already_set();
    lt::Shape shape(c.shape(), c.shape() + c.ndim());
    return PyTensor(lt::Tensor::from_data(c.data(), d, shape));
  });

  m.def("zeros", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    return finish(lt::zeros(shape_arg(a, kw), kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  });
  m.def("ones", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    return finish(lt::ones(shape_arg(a, kw), kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  });
  m.def("empty", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    return finish(lt::zeros(shape_arg(a, kw), kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  });
  m.def("full", [](py::handle size, py::handle value, py::kwargs kw) {
    check_device_kw(kw);
    std::vector<int64_t> s = to_int_list(size);
    return finish(lt::full(lt::Shape(s.begin(), s.end()), scalar_arg(value, "full"), kw_dtype(kw)), kw);
  }, py::arg("size"), py::arg("fill_value"));
  m.def("arange", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    std::vector<lt::Scalar> v;
    for (auto h : a) v.push_back(scalar_arg(h, "arange"));
    if (kw.contains("start")) v.insert(v.begin(), scalar_arg(kw["start"], "arange"));
    if (kw.contains("end")) v.push_back(scalar_arg(kw["end"], "arange"));
    if (kw.contains("step")) v.push_back(scalar_arg(kw["step"], "arange"));
    if (v.empty() || v.size() > 3) throw py::type_error("arange() takes 1 to 3 positional arguments");
    if (v.size() == 1) v.insert(v.begin(), lt::Scalar(0));
    if (v.size() == 2) v.push_back(lt::Scalar(1));
    if (v[2].to_double() == 0) lt::fail(lt::ErrorKind::Runtime, "arange: step must be nonzero");
    if ((v[1].to_double() - v[0].to_double()) * v[2].to_double() < 0) {
      lt::fail(lt::ErrorKind::Runtime, "arange: upper bound and larger bound inconsistent with step sign");
    }
    return finish(lt::arange(v[0], v[1], v[2], kw_dtype(kw)), kw);
  });
  m.def("linspace", [](double start, double end, int64_t steps, py::kwargs kw) {
    check_device_kw(kw);
    if (steps < 0) lt::fail(lt::ErrorKind::Runtime, "linspace: number of steps must be non-negative");
    return finish(lt::linspace(start, end, steps, kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  }, py::arg("start"), py::arg("end"), py::arg("steps"));
  m.def("eye", [](int64_t n, py::object m_, py::kwargs kw) {
    check_device_kw(kw);
    std::optional<int64_t> mm;
    if (!m_.is_none()) mm = m_.cast<int64_t>();
    if (n < 0) lt::fail(lt::ErrorKind::Runtime, "eye: n must be greater or equal to 0, got ", n);
    return finish(lt::eye(n, mm, kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  }, py::arg("n"), py::arg("m") = py::none());

  // random
  m.def("manual_seed", [](int64_t seed) {
    default_generator().seed = seed;
    default_generator().offset = 0;
  });
  m.def("initial_seed", []() { return default_generator().seed; });
  m.def("_generator_state", []() { return std::make_pair(default_generator().seed, default_generator().offset); });
  m.def("_set_generator_state", [](int64_t s, int64_t o) {
    default_generator().seed = s;
    default_generator().offset = o;
  });
  m.def("_advance_generator", [](int64_t n) { return default_generator().advance(n); });
  m.def("rand", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    lt::Shape s = shape_arg(a, kw);
    auto& g = default_generator();
    int64_t off = g.advance(lt::shape_numel(s));
    return finish(lt::rand(s, g.seed, off, kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  });
  m.def("randn", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    lt::Shape s = shape_arg(a, kw);
    auto& g = default_generator();
    int64_t off = g.advance(lt::shape_numel(s));
    return finish(lt::randn(s, g.seed, off, kw_dtype(kw).value_or(lt::kDefaultFloat)), kw);
  });
  m.def("randint", [](py::args a, py::kwargs kw) {
    check_device_kw(kw);
    int64_t low = 0, high;
    size_t i = 0;
    std::vector<int64_t> size;
    if (a.size() >= 3) {
      low = a[0].cast<int64_t>();
      high = a[1].cast<int64_t>();
      size = to_int_list(a[2]);
    } else if (a.size() == 2) {
      if (kw.contains("size")) {
        low = a[0].cast<int64_t>();
        high = a[1].cast<int64_t>();
        size = to_int_list(kw["size"]);
      } else {
        high = a[0].cast<int64_t>();
        size = to_int_list(a[1]);
      }
    } else {
      if (kw.contains("low")) low = kw["low"].cast<int64_t>();
      if (a.size() == 1) high = a[0].cast<int64_t>();
      else high = kw["high"].cast<int64_t>();
      size = to_int_list(kw["size"]);
    }
    (void)i;
    if (low >= high) lt::fail(lt::ErrorKind::Runtime, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
    lt::Shape s(size.begin(), size.end());
    auto& g = default_generator();
    int64_t off = g.advance(lt::shape_numel(s));
    return finish(lt::randint(low, high, s, g.seed, off, kw_dtype(kw).value_or(lt::DType::Int64)), kw);
  });

  // tensor lists
  api::def_api<api::cat>(m, [](py::iterable xs, int64_t dim) {
    // A Tensor is iterable (its rows): PyTorch refuses it here rather than concatenating them.
    if (py::isinstance<PyTensor>(xs))
      throw py::type_error("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor");
    std::vector<lt::Tensor> v;
    for (auto h : xs) v.push_back(as_tensor(h).get());
    if (v.empty()) lt::fail(lt::ErrorKind::Runtime, "cat(): expected a non-empty list of Tensors");
    return wrap(lt::cat(v, dim));
  });
  api::def_api<api::stack>(m, [](py::iterable xs, int64_t dim) {
    if (py::isinstance<PyTensor>(xs))
      throw py::type_error("stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor");
    std::vector<lt::Tensor> v;
    for (auto h : xs) v.push_back(as_tensor(h).get());
    if (v.empty()) lt::fail(lt::ErrorKind::Runtime, "stack expects a non-empty TensorList");
    return wrap(lt::stack(v, dim));
  });

  // An index whose values are known raises at the call (Python composites that transform the index first).
  m.def("_check_known_index", [](const std::string& op, py::handle index, int64_t dim, int64_t size, bool wrap,
                                 bool runtime_error) {
    lt::ops::check_known_index(op, runtime_error ? lt::ErrorKind::Runtime : lt::ErrorKind::Index,
                               as_tensor(index).get().node(), dim, size, wrap);
  });

  // grad mode
  m.def("is_grad_enabled", []() { return lt::grad_mode_enabled(); });
  m.def("_set_grad_enabled", [](bool on) { lt::set_grad_mode(on); });
  m.def("_set_inference_mode", [](bool on) { set_inference_mode(on); });
  m.def("is_inference_mode_enabled", []() { return inference_mode_enabled(); });
  m.def("_grad", [](py::list outputs, py::list inputs, py::object grad_outputs, bool retain_graph, bool allow_unused,
                    bool create_graph) {
    std::vector<lt::Tensor> outs, ins, gos;
    for (auto h : outputs) outs.push_back(as_tensor(h).get());
    for (auto h : inputs) ins.push_back(as_tensor(h).get());
    if (!grad_outputs.is_none()) {
      for (auto h : grad_outputs) gos.push_back(h.is_none() ? lt::Tensor() : as_tensor(h).get());
      bool any = false;
      for (auto& g : gos) any |= g.defined();
      if (!any) gos.clear();
    }
    std::vector<lt::Tensor> g = lt::grad(outs, ins, gos, retain_graph, allow_unused, create_graph);
    py::list out;
    for (auto& t : g) out.append(t.defined() ? wrap(t) : py::none());
    return out;
  }, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("retain_graph"), py::arg("allow_unused"),
     py::arg("create_graph") = false);

  // nn helpers behind lazytensor.nn.functional
  auto reduction_of = [](const std::string& r) {
    if (r == "none") return lt::Reduction::None;
    if (r == "sum") return lt::Reduction::Sum;
    if (r == "mean") return lt::Reduction::Mean;
    throw py::value_error(r + " is not a valid value for reduction");
  };
  auto opt_tensor = [](py::handle h) { return h.is_none() ? lt::Tensor() : as_tensor(h).get(); };
  m.def("_layer_norm", [opt_tensor](PyTensor& x, std::vector<int64_t> shape, py::handle w, py::handle b, double eps) {
    return wrap(lt::layer_norm(x.get(), shape, opt_tensor(w), opt_tensor(b), eps));
  });
  m.def("_embedding", [](PyTensor& w, PyTensor& idx) {
    const lt::Tensor& i = idx.get();
    if (lt::is_floating(i.dtype())) {
      lt::fail(lt::ErrorKind::Runtime, "Expected tensor for argument #1 'indices' to have one of the following scalar "
               "types: Long, Int; but got ", lt::dtype_name(i.dtype()), " instead");
    }
    return wrap(lt::embedding(w.get(), i));
  });
  m.def("_one_hot", [](PyTensor& idx, int64_t n) { return wrap(lt::one_hot(idx.get(), n)); });
  m.def("_conv", [opt_tensor](PyTensor& x, PyTensor& w, py::handle bias, std::vector<int64_t> stride,
                             std::vector<int64_t> pad_lo, std::vector<int64_t> pad_hi, std::vector<int64_t> dilation,
                             int64_t groups) {
    return wrap(lt::conv(x.get(), w.get(), opt_tensor(bias), stride, pad_lo, dilation, groups, pad_hi));
  });
  m.def("_conv_transpose", [opt_tensor](PyTensor& x, PyTensor& w, py::handle bias, std::vector<int64_t> stride,
                                        std::vector<int64_t> padding, std::vector<int64_t> output_padding,
                                        int64_t groups, std::vector<int64_t> dilation) {
    return wrap(lt::conv_transpose(x.get(), w.get(), opt_tensor(bias), stride, padding, output_padding, groups,
                                   dilation));
  });
  m.def("_pad", [](PyTensor& x, std::vector<int64_t> pads, double value) { return wrap(lt::pad(x.get(), pads, value)); });
  m.def("_cross_entropy", [reduction_of](PyTensor& x, PyTensor& t, const std::string& r, int64_t ignore) {
    return wrap(lt::cross_entropy(x.get(), t.get(), reduction_of(r), ignore));
  });
  m.def("_nll_loss", [reduction_of](PyTensor& x, PyTensor& t, const std::string& r, int64_t ignore) {
    return wrap(lt::nll_loss(x.get(), t.get(), reduction_of(r), ignore));
  });
  m.def("_class_target", [](PyTensor& t, int64_t n) { return wrap(lt::class_target(t.get(), n)); });

  // sync and debug
  m.def("sync", [](py::args tensors) {
    if (tensors.size() == 0) return lt::sync();
    std::vector<lt::Tensor> v;
    for (auto h : tensors) {
      if (is_tensor(h)) v.push_back(as_tensor(h).get());
      else for (auto x : h) v.push_back(as_tensor(x).get());
    }
    lt::sync(v);
  });
  m.def("_sync_step", [](py::iterable tensors) {
    std::vector<lt::Tensor> v;
    for (auto h : tensors) v.push_back(as_tensor(h).get());
    lt::sync_step(v);
  });
  m.def("counters", []() { return lt::counters_snapshot(); });
  m.def("counter", [](const std::string& name) { return lt::counter_value(name); });
  m.def("reset_counters", []() { lt::counters_reset(); });
  m.def("recompile_reasons", []() { return lt::recompile_reasons(); });
  m.def("clear_recompile_reasons", []() { lt::clear_recompile_reasons(); });
  m.def("set_sync_threshold", &lt::set_sync_threshold);
  m.def("sync_threshold", &lt::sync_threshold);
  m.def("pending_tensor_count", &lt::pending_tensor_count);
  m.def("backend", []() { return lt::runtime::backend_name(); });
  m.def("set_backend", [](const std::string& n) { lt::runtime::set_backend(n); });
  m.def("_set_dump_dir", &lt::runtime::set_dump_dir);
  m.def("_dump_dir", &lt::runtime::dump_dir);
  m.def("allocator_stats", []() {
    lt::AllocatorStats s = lt::allocator_stats();
    py::dict d;
    d["bytes_in_use"] = s.bytes_in_use;
    d["bytes_cached"] = s.bytes_cached;
    d["peak_bytes_in_use"] = s.peak_bytes_in_use;
    d["allocations"] = s.allocations;
    d["cache_hits"] = s.cache_hits;
    return d;
  });
}

}  // namespace ltpy
