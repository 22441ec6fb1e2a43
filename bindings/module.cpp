// bindings/module.cpp — the lazytensor._C extension module.
#include "bindings/api_table.h"
#include "bindings/py_tensor.h"

namespace ltpy {
namespace {

void translate(const lt::Error& e) {
  switch (e.kind()) {
    case lt::ErrorKind::Index: PyErr_SetString(PyExc_IndexError, e.what()); return;
    case lt::ErrorKind::Type: PyErr_SetString(PyExc_TypeError, e.what()); return;
    case lt::ErrorKind::Value: PyErr_SetString(PyExc_ValueError, e.what()); return;
    case lt::ErrorKind::NotImplemented: PyErr_SetString(PyExc_NotImplementedError, e.what()); return;
    case lt::ErrorKind::Runtime: PyErr_SetString(PyExc_RuntimeError, e.what()); return;
  }
}

}  // namespace
}  // namespace ltpy

PYBIND11_MODULE(_C, m) {
  namespace py = pybind11;
  m.doc() = "lazytensor C++ core: the Tensor type, ops, creation functions and runtime controls";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lt::Error& e) {
      ltpy::translate(e);
    }
  });
  py::class_<ltpy::PyTensor> cls(m, "Tensor");
  ltpy::bind_functions(m);
  m.attr("_set_tensor_type")(cls);
  ltpy::bind_tensor(m, cls);
  ltpy::bind_api_table(m);
  ltpy::bind_trace_lab(m);
}
