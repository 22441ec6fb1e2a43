// bindings/api_table.cpp — ir/api_functions.def as data for Python, and the
// keyword shim that gives every form of a row its aliases and out=.
#include "bindings/api_table.h"

#include <cstring>

namespace ltpy {

namespace {

struct ArgInfo {
  const char* name;
  const char* default_value;  // nullptr: required; "*" as name: keyword-only from here
};

py::dict row_dict(const char* name, const char* fns, const char* first, const char* methods, const char* inplace,
                  int flags, std::vector<ArgInfo> args) {
  using api::LT_NUMPY, api::LT_OUT, api::LT_PYTHON, api::LT_VARARGS, api::words;
  py::dict d;
  auto list = [](const char* s) {
    py::list l;
    for (const auto& w : words(s)) l.append(w);
    return l;
  };
  d["name"] = name;
  d["functions"] = list(fns);
  d["first"] = first;
  d["methods"] = list(methods);
  d["inplace"] = list(inplace);
  d["numpy"] = (flags & LT_NUMPY) != 0;
  d["out"] = (flags & LT_OUT) != 0;
  d["python"] = (flags & LT_PYTHON) != 0;
  d["varargs"] = (flags & LT_VARARGS) != 0;
  const char* autocast = api::autocast_class(flags);
  d["autocast"] = autocast ? py::object(py::str(autocast)) : py::object(py::none());
  py::list a;
  bool kwonly = false;
  for (const auto& arg : args) {
    if (std::strcmp(arg.name, "*") == 0) {
      kwonly = true;
      continue;
    }
    py::dict e;
    e["name"] = arg.name;
    e["default"] = arg.default_value ? py::object(py::str(arg.default_value)) : py::object(py::none());
    e["kwonly"] = kwonly;
    a.append(e);
  }
  d["args"] = a;
  return d;
}

py::list api_table() {
  using api::LT_NUMPY, api::LT_OUT, api::LT_PYTHON, api::LT_VARARGS;
  using api::LT_AUTOCAST_LOWER, api::LT_AUTOCAST_FP32, api::LT_AUTOCAST_PROMOTE;
  py::list rows;
#define LT_REQ(n) ArgInfo{#n, nullptr}
#define LT_OPT(n, d) ArgInfo{#n, #d}
#define LT_KW ArgInfo{"*", nullptr}
#define LT_API_FUNCTION(id, fns, first, methods, inplace, flags, ...) \
  rows.append(row_dict(#id, fns, first, methods, inplace, flags, {__VA_ARGS__}));
#include "ir/api_functions.def"
  return rows;
}

// ---- the keyword shim ----
//
// _api_alias(fn, aliases, out, varargs, write_out, name) is fn called with the
// alias keywords renamed (aliases: {alias: name}), `out=` taken off and the
// result written into it by write_out(name, result, out), and the keyword
// `varargs` passed as the first positional argument after self. A call
// without keywords goes straight to fn (one vectorcall).

PyObject* shim_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* fn = PyTuple_GET_ITEM(self, 0);
  if (kwnames == nullptr || PyTuple_GET_SIZE(kwnames) == 0) return PyObject_Vectorcall(fn, args, nargs, nullptr);
  try {
    PyObject* aliases = PyTuple_GET_ITEM(self, 1);
    PyObject* out_name = PyTuple_GET_ITEM(self, 2);
    PyObject* var_name = PyTuple_GET_ITEM(self, 3);
    Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    auto eq = [](PyObject* a, PyObject* b) { return b != Py_None && PyUnicode_Compare(a, b) == 0; };
    bool touched = false;
    for (Py_ssize_t i = 0; i < nk && !touched; ++i) {
      PyObject* k = PyTuple_GET_ITEM(kwnames, i);
      touched = PyDict_GetItem(aliases, k) != nullptr || eq(k, out_name) || eq(k, var_name);
    }
    if (!touched) return PyObject_Vectorcall(fn, args, nargs, kwnames);

    std::vector<PyObject*> pos(args, args + nargs), vals;
    py::list names;
    py::object out;
    for (Py_ssize_t i = 0; i < nk; ++i) {
      PyObject* k = PyTuple_GET_ITEM(kwnames, i);
      PyObject* v = args[nargs + i];
      if (eq(k, out_name)) {
        out = py::reinterpret_borrow<py::object>(v);
        continue;
      }
      PyObject* canon = PyDict_GetItem(aliases, k);
      if (canon == nullptr) canon = k;
      if (eq(canon, var_name)) {
        if (nargs != 1) {
          throw py::type_error(std::string(py::str(PyTuple_GET_ITEM(self, 5))) + "() got multiple values for argument '" +
                               py::str(canon).cast<std::string>() + "'");
        }
        pos.push_back(v);
        continue;
      }
      if (names.contains(py::handle(canon))) {
        throw py::type_error(std::string(py::str(PyTuple_GET_ITEM(self, 5))) + "() got multiple values for argument '" +
                             py::str(canon).cast<std::string>() + "'");
      }
      names.append(py::handle(canon));
      vals.push_back(v);
    }
    size_t np = pos.size();
    pos.insert(pos.end(), vals.begin(), vals.end());
    py::tuple kw(names);
    PyObject* r = PyObject_Vectorcall(fn, pos.data(), np, vals.empty() ? nullptr : kw.ptr());
    if (r == nullptr || !out) return r;
    py::object result = py::reinterpret_steal<py::object>(r);
    return PyTuple_GET_ITEM(self, 4) == Py_None
               ? result.release().ptr()
               : py::handle(PyTuple_GET_ITEM(self, 4))(py::handle(PyTuple_GET_ITEM(self, 5)), result, out).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (py::builtin_exception& e) {
    e.set_error();
    return nullptr;
  }
}

// ---- the autocast shim ----
//
// _autocast_shim(fn, run, policy) is fn called straight through (one
// vectorcall) while CPU autocast is off on this thread, and run(fn, policy,
// args, kwargs) (amp/_op_policy.py) while it is on. The per-thread flag lives
// here, so the common case (autocast off) is a thread-local read in C++
// instead of a Python frame with *args/**kwargs packing per op (about 2 us
// per op before: 22 wrapped ops per generated token of bench/python_compile_path.py's GPT).
// It has a __dict__ (functools.wraps, autocast_policy) and binds as a method
// when it is a class attribute (Tensor.matmul), as a Python function does.

thread_local bool t_autocast_cpu = false;

struct AutocastShim {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* fn;
  PyObject* run;
  PyObject* policy;
  PyObject* dict;
};

PyObject* autocast_shim_call(PyObject* self_, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<AutocastShim*>(self_);
  if (!t_autocast_cpu) return PyObject_Vectorcall(self->fn, args, nargsf, kwnames);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* tuple = PyTuple_New(nargs);
  if (!tuple) return nullptr;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(tuple, i, args[i]);
  }
  PyObject* kwargs = PyDict_New();
  if (!kwargs) {
    Py_DECREF(tuple);
    return nullptr;
  }
  for (Py_ssize_t i = 0, nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0; i < nk; ++i) {
    if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) {
      Py_DECREF(tuple);
      Py_DECREF(kwargs);
      return nullptr;
    }
  }
  PyObject* call[4] = {self->fn, self->policy, tuple, kwargs};
  PyObject* r = PyObject_Vectorcall(self->run, call, 4, nullptr);
  Py_DECREF(tuple);
  Py_DECREF(kwargs);
  return r;
}

int autocast_shim_traverse(PyObject* self_, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<AutocastShim*>(self_);
  Py_VISIT(self->fn);
  Py_VISIT(self->run);
  Py_VISIT(self->policy);
  Py_VISIT(self->dict);
  return 0;
}

int autocast_shim_clear(PyObject* self_) {
  auto* self = reinterpret_cast<AutocastShim*>(self_);
  Py_CLEAR(self->fn);
  Py_CLEAR(self->run);
  Py_CLEAR(self->policy);
  Py_CLEAR(self->dict);
  return 0;
}

void autocast_shim_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  autocast_shim_clear(self);
  Py_TYPE(self)->tp_free(self);
}

PyObject* autocast_shim_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyGetSetDef autocast_shim_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject autocast_shim_type = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "lazytensor._C.autocast_function";
  t.tp_basicsize = sizeof(AutocastShim);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR;
  t.tp_doc = "A function wrapped for autocast (amp/_op_policy.py).";
  t.tp_vectorcall_offset = offsetof(AutocastShim, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_dictoffset = offsetof(AutocastShim, dict);
  t.tp_traverse = autocast_shim_traverse;
  t.tp_clear = autocast_shim_clear;
  t.tp_dealloc = autocast_shim_dealloc;
  t.tp_descr_get = autocast_shim_get;
  t.tp_getattro = PyObject_GenericGetAttr;
  t.tp_setattro = PyObject_GenericSetAttr;
  t.tp_getset = autocast_shim_getset;
  return t;
}();

}  // namespace

void bind_api_table(py::module_& m) {
  if (PyType_Ready(&autocast_shim_type) < 0) throw py::error_already_set();
  m.def("_autocast_shim", [](py::object fn, py::object run, py::object policy) {
    auto* self = PyObject_GC_New(AutocastShim, &autocast_shim_type);
    if (!self) throw py::error_already_set();
    self->vectorcall = autocast_shim_call;
    self->fn = fn.release().ptr();
    self->run = run.release().ptr();
    self->policy = policy.release().ptr();
    self->dict = nullptr;
    PyObject_GC_Track(self);
    return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(self));
  }, py::arg("fn"), py::arg("run"), py::arg("policy"),
     "fn, called straight through while CPU autocast is off on this thread, else as run(fn, policy, args, kwargs).");
  m.def("_autocast_cpu_enabled", [] { return t_autocast_cpu; }, "This thread's CPU autocast flag.");
  m.def("_set_autocast_cpu_enabled", [](bool on) { t_autocast_cpu = on; }, "Sets this thread's CPU autocast flag.");
  m.def("_api_table", &api_table, "The rows of ir/api_functions.def: names, forms, flags and arguments.");
  m.def("_api_alias", [](py::object fn, py::dict aliases, py::object out, py::object varargs, py::object write_out,
                         std::string name, bool method) -> py::object {
    auto* def = new PyMethodDef{api::keep(name), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&shim_call)),
                                METH_FASTCALL | METH_KEYWORDS, nullptr};
    py::object doc = py::getattr(fn, "__doc__", py::none());
    if (!doc.is_none()) def->ml_doc = api::keep(doc.cast<std::string>());
    py::tuple state = py::make_tuple(fn, aliases, out, varargs, write_out, name);
    py::object f = py::reinterpret_steal<py::object>(PyCFunction_NewEx(def, state.ptr(), nullptr));
    if (!f) throw py::error_already_set();
    if (!method) return f;
    py::object im = py::reinterpret_steal<py::object>(PyInstanceMethod_New(f.ptr()));
    if (!im) throw py::error_already_set();
    return im;
  }, py::arg("fn"), py::arg("aliases"), py::arg("out"), py::arg("varargs"), py::arg("write_out"), py::arg("name"),
     py::arg("method"));
}

}  // namespace ltpy
