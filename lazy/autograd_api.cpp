// lazy/autograd_api.cpp — Tensor::backward and lt::grad over autograd/.
//
// backward() finds the leaves to fill by walking the live-tensor registry:
// every live tensor marked leaf_requires_grad whose node the loss reaches gets
// its gradient accumulated (lazily) into .grad.
//
// Saved values changed in place: every node a tensor holds records the
// tensor's storage and version (TensorImpl::rebind / adopt). Before building
// gradients, autograd hands over the values its rules will read; if the
// storage of one is still alive and its version moved on, the user changed
// that tensor in place after recording, and we raise as PyTorch does. The
// gradient itself would be right (nodes are immutable: the graph still holds
// the old value), but a program that fails under PyTorch must not silently
// run here. The check reads only node fields and the live-tensor registry:
// no IR, no trace change, nothing on the sync path.
#include "absl/container/flat_hash_map.h"
#include "autograd/autograd.h"
#include "lazy/runtime.h"
#include "lazy/tensor.h"
#include "lazy/tensor_impl.h"

namespace lt {

static std::string_view torch_dtype_name(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Int16: return "int16";
  }
  return "?";
}

static bool is_view_op(Op op) {
  return op == Op::Reshape || op == Op::Permute || op == Op::Expand || op == Op::Slice || op == Op::Detach;
}

/// The tensor values behind a saved node: the node itself when a tensor holds
/// it, and the nodes it views. A rule may read an internal view (linear reads
/// transpose(w): PyTorch would save a view sharing w's counter), and a Python
/// view's node is a movement op over its base's node of the same storage, so
/// a change of the base shows through it even when both tensors are gone.
/// Stops at a node of another storage (a C++ reshape is a copy).
static void values_behind(const Node* n, std::vector<const Node*>& out) {
  uint64_t storage = 0;
  while (true) {
    if (const uint64_t id = lazy_state(*n).storage_id; id != 0) {
      if (storage != 0 && id != storage) return;
      storage = id;
      out.push_back(n);
    }
    if (!is_view_op(n->op) || n->inputs.empty()) return;
    n = n->inputs[0].get();
  }
}

static void check_saved_versions(absl::Span<const Node* const> saved_nodes) {
  struct Storage {
    bool live = false;
    uint64_t version = 0;
  };
  std::vector<const Node*> saved;
  for (const Node* s : saved_nodes) values_behind(s, saved);
  if (saved.empty()) return;
  absl::flat_hash_map<uint64_t, Storage> storages;
  for (const Node* n : saved) storages.try_emplace(lazy_state(*n).storage_id);
  runtime::for_each_live([&](TensorImpl* t) {
    auto it = storages.find(t->storage_id);
    if (it == storages.end()) return;
    it->second.live = true;  // a Python view mirrors its base's version, never ahead of it
    it->second.version = std::max(it->second.version, t->version);
  });
  for (const Node* n : saved) {
    const LazyState& marks = lazy_state(*n);
    const Storage& s = storages.at(marks.storage_id);
    uint64_t now = s.live ? s.version : marks.replaced_at_version;  // a gone storage: its change that replaced n
    if (now == 0 || now == marks.storage_version) continue;
    fail(ErrorKind::Runtime,
         "one of the variables needed for gradient computation has been modified by an inplace operation: [",
         torch_dtype_name(n->dtype), " ", shape_str(n->shape), "] is at version ", now, "; expected version ",
         marks.storage_version,
         " instead. Hint: the in-place change happened after the operation that saved this value was recorded; "
         "clone() the value before changing it, or change it after backward.");
  }
}

static NodePtr seed_for(const Tensor& out, const Tensor& gradient, std::string_view op) {
  if (gradient.defined()) {
    if (gradient.shape() != out.shape()) {
      fail(ErrorKind::Runtime, op, ": grad_output of shape ", shape_str(gradient.shape()),
           " does not match the output shape ", shape_str(out.shape()));
    }
    return ops::cast(gradient.node(), out.dtype());
  }
  if (out.numel() != 1) {
    fail(ErrorKind::Runtime, op, ": grad can be implicitly created only for scalar outputs; the output has shape ",
         shape_str(out.shape()), " (pass a gradient of that shape)");
  }
  return ops::ones(out.shape(), out.dtype());
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  if (!requires_grad()) {
    fail(ErrorKind::Runtime, "backward: element 0 of tensors does not require grad and does not have a grad_fn");
  }
  NodePtr seed = seed_for(*this, gradient, "backward");
  // A leaf updated in place under no_grad after this graph was recorded
  // appears in it as an earlier node: credit that node's gradient to the slot
  // too (value semantics: the gradient is taken at the value the graph used).
  std::vector<std::shared_ptr<TensorImpl>> slots;  // slot of each entry of leaf_nodes
  std::vector<NodePtr> leaf_nodes;
  // Other threads' slots are read here too; their writes go through set_node/rebind under the same lock.
  runtime::for_each_live([&](TensorImpl* t) {
    if (!t->leaf_requires_grad || !t->node->requires_grad) return;
    auto held = t->weak_from_this().lock();  // null while being destroyed
    if (!held) return;
    slots.push_back(held);
    leaf_nodes.push_back(t->node);
    for (const std::weak_ptr<Node>& w : t->earlier_leaf_nodes) {
      if (NodePtr earlier = w.lock()) {
        slots.push_back(held);
        leaf_nodes.push_back(std::move(earlier));
      }
    }
  });
  std::vector<NodePtr> grads;
  runtime::with_sync_lock([&] {
    grads = autograd::gradients({node()}, {seed}, leaf_nodes, retain_graph, check_saved_versions, create_graph);
  });
  for (size_t i = 0; i < slots.size() && i < grads.size(); ++i) {
    if (!grads[i]) continue;
    TensorImpl* t = slots[i].get();
    GradModeGuard grad_mode(create_graph);  // with create_graph, .grad stays differentiable
    if (t->grad) {
      t->grad->rebind(ops::add(t->grad->node, grads[i]));
    } else {
      t->grad = std::make_shared<TensorImpl>(grads[i]);
    }
  }
  runtime::maybe_auto_sync();
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph, bool allow_unused,
                         bool create_graph) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size()) {
    fail(ErrorKind::Runtime, "grad: got ", grad_outputs.size(), " grad_outputs for ", outputs.size(), " outputs");
  }
  std::vector<NodePtr> roots, seeds, wrt;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].requires_grad()) {
      fail(ErrorKind::Runtime, "grad: element ", i, " of tensors does not require grad and does not have a grad_fn");
    }
    roots.push_back(outputs[i].node());
    seeds.push_back(seed_for(outputs[i], grad_outputs.empty() ? Tensor() : grad_outputs[i], "grad"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad()) {
      fail(ErrorKind::Runtime, "grad: one of the differentiated tensors (input ", i, ") does not require grad");
    }
    wrt.push_back(inputs[i].node());
  }
  std::vector<NodePtr> g;
  runtime::with_sync_lock([&] {
    g = autograd::gradients(roots, seeds, wrt, retain_graph, check_saved_versions, create_graph);
  });
  std::vector<Tensor> out;
  for (size_t i = 0; i < g.size(); ++i) {
    if (!g[i] && !allow_unused) {
      fail(ErrorKind::Runtime, "grad: one of the differentiated tensors (input ", i,
           ") appears to not have been used in the graph; set allow_unused=true if this is the desired behavior");
    }
    out.push_back(g[i] ? Tensor(g[i]) : Tensor());
  }
  return out;
}

}  // namespace lt
