// bindings/py_tensor.h — the Python Tensor object and argument conversions.
//
// lazytensor.Tensor is the pybind11 type over PyTensor: an lt::Tensor handle
// plus, for views, how to re-derive the view from its base. See docs/python.md
// ("Views and in-place ops") for the design; in short: a view remembers the
// root base slot and the chain of view steps; reading a view whose base has
// changed since it was derived re-derives it, and writing through a view
// rebinds the base to a new node built with pad/where from the update.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ir/block_cache.h"
#include "lazy/tensor.h"
#include "lazy/tensor_impl.h"

namespace ltpy {

namespace py = pybind11;

/// One step of a view chain, replayable on the base and invertible for writes.
struct ViewStep {
  enum Kind : uint8_t { Slice, Select, Reshape, Permute, Expand, Detach } kind;
  int64_t dim = 0;
  int64_t start = 0;  ///< Slice: normalised start; Select: normalised index
  int64_t stop = 0;   ///< Slice: normalised stop
  int64_t step = 1;   ///< Slice
  std::vector<int64_t> shape;  ///< Reshape/Expand: the view's shape; Permute: the permutation
};

struct ViewInfo {
  lt::Tensor base;              ///< the root base slot (never itself a view)
  std::vector<ViewStep> steps;  ///< base -> this view
  uint64_t seen_rebinds = 0;    ///< base's TensorImpl::rebinds when this view was last derived
  /// Made through .data: its own version counter (PyTorch: changes through
  /// .data are not tracked by autograd), and writes through it leave the
  /// base's version as it was. Without it the view shares the base's counter.
  bool own_version = false;
};

struct PyTensor {
  lt::Tensor t;
  std::shared_ptr<ViewInfo> view;  ///< null unless this tensor is a view
  /// Made in inference mode (torch.inference_mode): PyTorch's inference
  /// tensor, which refuses in-place writes outside that mode and has no
  /// version counter. A view has its source's flag.
  bool inference = false;

  PyTensor() = default;
  explicit PyTensor(lt::Tensor x) : t(std::move(x)) {}
  // One per op result (pybind11 holds it by pointer): from the per-thread block cache.
  static void* operator new(size_t size) {
    return size == sizeof(PyTensor) ? lt::BlockCache<sizeof(PyTensor)>::allocate() : ::operator new(size);
  }
  static void operator delete(void* p, size_t size) {
    if (size == sizeof(PyTensor)) return lt::BlockCache<sizeof(PyTensor)>::free(p);
    ::operator delete(p);
  }

  /// The current value: re-derives a view whose base changed.
  const lt::Tensor& get() {
    if (view && view->base.impl()->rebinds != view->seen_rebinds) refresh();
    return t;
  }
  void refresh();
};

// ---- views (views.cpp) ----
/// PyTorch's strides (and storage offset) for this tensor: a view's follow its
/// steps from a contiguous base; anything else is contiguous.
std::vector<int64_t> torch_strides(PyTensor& t, int64_t* storage_offset);
bool torch_is_contiguous(PyTensor& t);
lt::NodePtr apply_step(const ViewStep& s, const lt::NodePtr& x);
/// A new view of `src` whose value is `step` applied to src's current value.
PyTensor make_view(PyTensor& src, ViewStep step, lt::NodePtr value = nullptr, bool own_version = false);
/// New value of `base` after writing `value` into the sub-tensor that `steps` select.
lt::NodePtr write_back(const lt::NodePtr& base, const ViewStep* steps, size_t n, const lt::NodePtr& value);
/// In-place update: `value` is the new value of self (same shape; dtype checked).
void assign_inplace(PyTensor& self, const lt::Tensor& value, const char* op);
/// Same without the result-type check (copy_, setitem). `value` is a
/// temporary whose value becomes self's; a node that already belongs to
/// another tensor (copy_ of an equal dtype and shape) stays that tensor's, so a
/// later in-place change of self is no change of it (autograd's version check).
void assign_cast(PyTensor& self, const lt::Tensor& value);
void assign_cast(PyTensor& self, const lt::NodePtr& value);

// ---- indexing (indexing.cpp) ----
py::object getitem(PyTensor& self, py::handle index);
void setitem(PyTensor& self, py::handle index, py::handle value);

// ---- conversions (functions.cpp) ----
struct PyDType {
  lt::DType dtype;
};
py::object dtype_object(lt::DType d);
lt::DType to_dtype(py::handle h);
std::optional<lt::DType> to_opt_dtype(py::handle h);
bool is_tensor(py::handle h);
PyTensor& as_tensor(py::handle h);
/// A Python number (bool, int, float, numpy scalar) or nothing.
std::optional<lt::Scalar> as_scalar(py::handle h);
/// A tensor, or a number as a 0-dim wrapped scalar tensor; TypeError otherwise.
lt::Tensor to_tensor_operand(py::handle h, const char* op);
std::vector<int64_t> to_int_list(py::handle h);
/// Shape from f(2, 3) / f((2, 3)) / f([2, 3]) style arguments.
std::vector<int64_t> shape_from_args(const py::args& args, size_t first = 0);
/// Dim list: None -> {} (all), int -> {d}, sequence -> list.
std::vector<int64_t> to_dims(py::handle h);
/// A new Python tensor over `t`; an inference tensor in inference mode.
py::object wrap(lt::Tensor t);
/// torch.inference_mode's thread-local flag (its grad mode is lt's own).
bool inference_mode_enabled();
void set_inference_mode(bool on);
py::object make_size(const lt::Shape& s);
/// Raises (lazytensor._device.check_placement) unless `device` is None or names the CPU.
void check_placement(py::handle device);

void bind_tensor(py::module_& m, py::class_<PyTensor>& cls);
void bind_functions(py::module_& m);
void bind_trace_lab(py::module_& m);

/// The global generator: Philox seed and offset.
struct Generator {
  int64_t seed = 0x5eed;
  int64_t offset = 0;
  int64_t advance(int64_t n) {
    int64_t o = offset;
    offset += (n + 3) / 4 * 4;
    return o;
  }
};
Generator& default_generator();

}  // namespace ltpy
