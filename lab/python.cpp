// lab/python.cpp — lazytensor._C._trace: the fusion lab from Python (lab/lab.h),
// and fusion policies written in Python. Compiled into the extension module by
// bindings/CMakeLists.txt; it needs pybind11 and the lab, nothing of bindings/.
//
// A Python policy is called by the scheduler with the GIL held (scheduling
// runs on the calling thread), once per node for `materialize`; it is meant
// for experiments and may be slow.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "lab/lab.h"
#include "scheduler/fusion.h"

namespace ltpy {
namespace {

namespace py = pybind11;

class PythonPolicy final : public lt::FusionPolicy {
 public:
  PythonPolicy(std::string name, py::object impl) : name_(std::move(name)), impl_(std::move(impl)) {}
  ~PythonPolicy() override {
    py::gil_scoped_acquire gil;
    impl_ = py::object();
  }
  std::string_view name() const override { return name_; }
  bool materialize(const lt::Trace& t, int32_t node) const override {
    py::gil_scoped_acquire gil;
    const lt::TraceNode& n = t.nodes[node];
    py::tuple shape(n.shape.size());
    for (size_t i = 0; i < n.shape.size(); ++i) shape[i] = n.shape[i];
    py::list inputs;
    for (int32_t in : n.inputs) inputs.append(in);
    py::dict info;
    info["index"] = node;
    info["op"] = std::string(lt::op_name(n.op));
    info["dtype"] = std::string(lt::dtype_name(n.dtype));
    info["shape"] = shape;
    info["inputs"] = inputs;
    return impl_.attr("materialize")(info).cast<bool>();
  }
  bool fuse_reduction_with_consumers() const override {
    py::gil_scoped_acquire gil;
    return impl_.attr("fuse_reduction_with_consumers")().cast<bool>();
  }
  bool materialize_shared(int kernels, int64_t cost, bool has_reduction) const override {
    py::gil_scoped_acquire gil;
    return impl_.attr("materialize_shared")(kernels, cost, has_reduction).cast<bool>();
  }
  bool materialize_repeated(int times, int64_t cost, bool has_gather) const override {
    py::gil_scoped_acquire gil;
    // A policy without this method (it is optional) gets the default.
    if (!py::hasattr(impl_, "materialize_repeated")) return FusionPolicy::materialize_repeated(times, cost, has_gather);
    return impl_.attr("materialize_repeated")(times, cost, has_gather).cast<bool>();
  }
  bool fuse_siblings() const override {
    py::gil_scoped_acquire gil;
    // A policy without this method (it is optional) gets the default.
    return !py::hasattr(impl_, "fuse_siblings") || impl_.attr("fuse_siblings")().cast<bool>();
  }

 private:
  std::string name_;
  py::object impl_;
};

py::dict to_dict(const lt::lab::Measured& m) {
  py::dict d;
  d["policy"] = m.policy;
  d["kernels"] = m.kernels;
  d["model_bytes"] = m.model_bytes;
  d["model_flops"] = m.model_flops;
  d["compile_ms"] = m.compile_ms;
  d["run_ms"] = m.run_ms;
  d["mismatch"] = m.mismatch;
  return d;
}

}  // namespace

void bind_trace_lab(py::module_& m) {
  py::module_ t = m.def_submodule("_trace", "the fusion lab (lab/lab.h)");
  py::class_<lt::Trace, std::shared_ptr<lt::Trace>>(t, "Trace")
      .def_property_readonly("hash", [](const lt::Trace& tr) { return tr.hash.hex(); })
      .def_property_readonly("num_nodes", [](const lt::Trace& tr) { return tr.nodes.size(); })
      .def("__str__", [](const lt::Trace& tr) { return lt::lab::show(tr); });
  t.def("load", [](const std::string& path) { return std::make_shared<lt::Trace>(lt::lab::load(path)); });
  t.def("plan_table", [](const lt::Trace& tr, const std::string& policy) { return lt::lab::plan_table(tr, policy); });
  t.def("measure", [](const lt::Trace& tr, const std::string& backend, const std::string& policy, int repeat) {
    return to_dict(lt::lab::measure(tr, backend, policy, repeat));
  });
  t.def("compare_table", [](const lt::Trace& tr, const std::vector<std::string>& policies, const std::string& backend,
                            int repeat) {
    std::vector<lt::lab::Measured> rows;
    for (const std::string& p : policies) rows.push_back(lt::lab::measure(tr, backend, p, repeat));
    return lt::lab::compare_table(rows);
  });
  t.def("dot", [](const lt::Trace& tr, const std::string& policy) { return lt::lab::dot(tr, policy); });
  t.def("write_picture", &lt::lab::write_picture);
  t.def("register_policy", [](const std::string& name, py::object impl) {
    lt::register_fusion_policy(std::make_shared<PythonPolicy>(name, std::move(impl)));
  });
  t.def("policy_names", &lt::fusion_policy_names);
}

}  // namespace ltpy
