// distributed/python.cpp — the extension lazytensor._distributed over the Gloo process group.
//
// A module of its own rather than part of _C: the data crosses as NumPy buffers
// (lazytensor.distributed materialises the tensor first), so nothing here needs
// the core's tensor types, `import lazytensor` does not load Gloo and its
// transports, and a build without libgloo-dev simply lacks this module
// (lazytensor.distributed.is_available() is then False). Every call releases
// the GIL while Gloo runs, so async_op work runs on a worker thread.
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "distributed/process_group.h"
#include "distributed/store.h"

namespace py = pybind11;
using lt::dist::DType;
using lt::dist::ProcessGroup;

namespace {

using Array = py::array;

DType dtype_of(const Array& a, const char* op) {
  py::dtype d = a.dtype();
  char k = d.kind();
  if (k == 'f' && d.itemsize() == 4) return DType::Float32;
  if (k == 'f' && d.itemsize() == 8) return DType::Float64;
  if (k == 'i' && d.itemsize() == 4) return DType::Int32;
  if (k == 'i' && d.itemsize() == 8) return DType::Int64;
  throw py::type_error(std::string("lazytensor.distributed.") + op + ": dtype " + std::string(py::str(d)) +
                       " is not supported (float32, float64, int32, int64)");
}

std::vector<int64_t> shape_of(const Array& a) { return std::vector<int64_t>(a.shape(), a.shape() + a.ndim()); }

void* writable(Array& a, const char* op) {
  if (!(a.flags() & py::array::c_style) || !a.writeable()) {
    throw py::value_error(std::string("lazytensor.distributed.") + op + ": needs a writable C-contiguous buffer");
  }
  return a.mutable_data();
}

/// A directory store for file:// (gloo's FileStore keeps one file per key in a directory).
std::shared_ptr<gloo::rendezvous::Store> file_store(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error("lazytensor.distributed: cannot create the file store directory " + dir + ": " +
                             std::strerror(errno));
  }
  return std::make_shared<gloo::rendezvous::FileStore>(dir);
}

}  // namespace

PYBIND11_MODULE(_distributed, m) {
  m.doc() = "lazytensor.distributed's Gloo backend: stores and a process group over host buffers";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  py::class_<gloo::rendezvous::Store, std::shared_ptr<gloo::rendezvous::Store>> store(m, "Store");
  store.def("set", [](gloo::rendezvous::Store& s, const std::string& k, py::bytes v) {
    std::string b = v;
    py::gil_scoped_release nogil;
    s.set(k, std::vector<char>(b.begin(), b.end()));
  });
  store.def("get", [](gloo::rendezvous::Store& s, const std::string& k) {
    std::vector<char> v;
    {
      py::gil_scoped_release nogil;
      v = s.get(k);
    }
    return py::bytes(v.data(), v.size());
  });
  py::class_<lt::dist::TcpStore, gloo::rendezvous::Store, std::shared_ptr<lt::dist::TcpStore>>(m, "TcpStore")
      .def(py::init([](const std::string& host, int port, bool is_master, double timeout_s) {
             py::gil_scoped_release nogil;
             return std::make_shared<lt::dist::TcpStore>(host, port, is_master,
                                                         std::chrono::milliseconds(int64_t(timeout_s * 1000)));
           }),
           py::arg("host"), py::arg("port"), py::arg("is_master"), py::arg("timeout"))
      .def_property_readonly("port", &lt::dist::TcpStore::port)
      .def("register_rank", [](lt::dist::TcpStore& s, int rank) {
        py::gil_scoped_release nogil;
        s.register_rank(rank);
      })
      .def("exited_ranks", [](lt::dist::TcpStore& s) {
        std::string r;
        {
          py::gil_scoped_release nogil;
          r = s.exited_ranks();
        }
        return r;
      })
      .def("add", [](lt::dist::TcpStore& s, const std::string& k, int64_t d) {
        py::gil_scoped_release nogil;
        return s.add(k, d);
      });
  m.def("FileStore", [](const std::string& dir) { return file_store(dir); });

  py::class_<ProcessGroup, std::shared_ptr<ProcessGroup>>(m, "ProcessGroup")
      .def(py::init([](std::shared_ptr<gloo::rendezvous::Store> s, const std::string& prefix, int rank, int size,
                       double timeout_s, const std::string& hostname, const std::string& iface) {
             py::gil_scoped_release nogil;
             return std::make_shared<ProcessGroup>(*s, prefix, rank, size,
                                                   std::chrono::milliseconds(int64_t(timeout_s * 1000)), hostname,
                                                   iface);
           }),
           py::arg("store"), py::arg("prefix"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
           py::arg("hostname"), py::arg("iface"))
      .def_property_readonly("rank", &ProcessGroup::rank)
      .def_property_readonly("size", &ProcessGroup::size)
      .def("all_reduce", [](ProcessGroup& g, Array a, int op) {
        void* p = writable(a, "all_reduce");
        DType d = dtype_of(a, "all_reduce");
        auto shape = shape_of(a);
        py::gil_scoped_release nogil;
        g.all_reduce(p, shape, d, lt::dist::ReduceOp(op));
      })
      .def("broadcast", [](ProcessGroup& g, Array a, int root) {
        void* p = writable(a, "broadcast");
        DType d = dtype_of(a, "broadcast");
        auto shape = shape_of(a);
        py::gil_scoped_release nogil;
        g.broadcast(p, shape, d, root);
      })
      .def("all_gather", [](ProcessGroup& g, Array in, Array out) {
        void* o = writable(out, "all_gather");
        DType d = dtype_of(in, "all_gather");
        auto shape = shape_of(in);
        const void* i = in.data();
        py::gil_scoped_release nogil;
        g.all_gather(i, o, shape, d);
      })
      .def("gather", [](ProcessGroup& g, Array in, Array out, int root) {
        void* o = g.rank() == root ? writable(out, "gather") : nullptr;
        DType d = dtype_of(in, "gather");
        auto shape = shape_of(in);
        const void* i = in.data();
        py::gil_scoped_release nogil;
        g.gather(i, o, shape, d, root);
      })
      .def("scatter", [](ProcessGroup& g, Array in, Array out, int root) {
        void* o = writable(out, "scatter");
        DType d = dtype_of(out, "scatter");
        auto shape = shape_of(out);
        const void* i = g.rank() == root ? in.data() : nullptr;
        py::gil_scoped_release nogil;
        g.scatter(i, o, shape, d, root);
      })
      .def("send", [](ProcessGroup& g, Array a, int dst, uint32_t tag) {
        DType d = dtype_of(a, "send");
        auto shape = shape_of(a);
        const void* p = a.data();
        py::gil_scoped_release nogil;
        g.send(p, shape, d, dst, tag);
      })
      .def("recv", [](ProcessGroup& g, Array a, int src, uint32_t tag) {
        void* p = writable(a, "recv");
        DType d = dtype_of(a, "recv");
        auto shape = shape_of(a);
        py::gil_scoped_release nogil;
        g.recv(p, shape, d, src, tag);
      })
      .def("barrier", [](ProcessGroup& g) {
        py::gil_scoped_release nogil;
        g.barrier();
      });
}
