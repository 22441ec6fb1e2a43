// ir/node.h — lazy IR nodes.
//
// A node is an immutable record of one primitive op: op, dtype, shape,
// attributes and inputs, with its structural hash computed once at creation
// (O(1): it mixes the inputs' hashes). The only state that changes after
// creation is realisation: when a sync computes a node, its value is stored in
// `buffer`, and a node that no gradient needs drops its inputs so the graph
// behind it is freed. Capture treats a realised node as a parameter.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/inlined_vector.h"
#include "ir/buffer.h"
#include "ir/dtype.h"
#include "ir/hash.h"
#include "ir/ops.h"
#include "ir/shape.h"

namespace lt {

class Node;
using NodePtr = std::shared_ptr<Node>;
using Attrs = absl::InlinedVector<int64_t, 4>;
using NodeList = absl::InlinedVector<NodePtr, 3>;

/// Runtime value of a Scalar node: floats use f, integers and bool use i.
struct ScalarValue {
  double f = 0.0;
  int64_t i = 0;
  static ScalarValue of(double v, DType dtype);  ///< converts v to dtype's representation
  double as_double(DType dtype) const { return is_floating(dtype) ? f : static_cast<double>(i); }
};

class Node {
 public:
  // Field order: the one-byte fields and capture_index fill the first word,
  // the pointer-aligned fields follow, two atomic flags end the record, so the
  // only padding is the tail that rounds it to 8 (see the static_assert below
  // the class). Each field says which layer owns (writes) it.

  Op op;                       ///< ir/
  DType dtype;                 ///< ir/
  bool requires_grad = false;  ///< ir/ (make_node): a gradient flows through this node
  /// ir/ (builder_util.h), for autograd/'s in-place check: PyTorch's backward
  /// for the composite whose output this is saves that output (relu, sigmoid,
  /// softmax, log_softmax), so the check treats the node as saved although
  /// our rules read other nodes.
  bool saves_output = false;
  /// trace/ (capture.cpp): scratch read and written only under capture's
  /// lock, the number capture gave the node in the capture `capture_epoch`.
  int32_t capture_index = -1;
  Shape shape;          ///< ir/
  Attrs attrs;          ///< ir/
  NodeList inputs;      ///< ir/; dropped by realize() when no backward needs them
  Hash128 hash;         ///< ir/: structural: op, attrs, dtype, shape, input hashes; never data
  ScalarValue scalar;   ///< ir/: Scalar nodes only; a runtime parameter, not hashed
  BufferPtr buffer;     ///< ir/ (realize): Input: its data; any other node: its value once realised
  /// trace/ (capture.cpp): the capture that last numbered this node (see capture_index).
  uint64_t capture_epoch = 0;
  /// lazy/: the tensor storage (a TensorImpl's storage_id, 0 if none) whose
  /// value this node is, and that storage's version when it took the node.
  /// Autograd compares them with the storage's current version to detect an
  /// in-place change of a value saved for backward. Not hashed, not traced.
  uint64_t storage_id = 0;
  uint64_t storage_version = 0;  ///< lazy/ (see storage_id)
  /// lazy/: the storage's version when an in-place change moved it off this
  /// node (0: never). Lets the check see a change after the storage is gone.
  uint64_t replaced_at_version = 0;
  /// autograd/: set when a backward pass without retain_graph went through this node.
  std::atomic<bool> grad_released{false};
  /// ir/ (make_node, realize): computing this node can fail on data. It, or
  /// a node it reads, gathers or scatters by an index whose values were not
  /// known when it was recorded (known ones are checked at the call), and it
  /// is not computed yet. lazy/ keeps an undo for an in-place write of such a
  /// value, so a sync that fails on it restores what the tensor held.
  std::atomic<bool> unchecked_index{false};

  Node(Op op, DType dtype, Shape shape, Attrs attrs, NodeList inputs);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  int64_t numel() const { return shape_numel(shape); }
  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  /// True when the value is available without computing: an input or a realised node.
  bool is_materialized() const { return buffer != nullptr; }
  bool is_pending() const { return buffer == nullptr && op != Op::Scalar; }
  /// Stores the computed value; drops the inputs unless a backward pass may still need them
  /// (requires_grad, not a Detach, not released by a backward pass).
  void realize(BufferPtr value);
  /// One line: "f32[2, 3] add(#a1b2, #c3d4)" (for error messages and debugging).
  std::string describe() const;
};

// Every recorded op allocates one Node (with its shared_ptr control block, from
// ir/block_cache.h), and a big graph holds millions, so its size is a decision:
// 248 bytes on LP64: the fields take 242 (56 shape + 56 inputs + 40 attrs +
// 3*16 hash/scalar/buffer + 4*8 epoch/storage words + capture_index's 4 + six
// one-byte fields), rounded up to the alignment of 8, with no padding between
// fields (the old order had 15 bytes of holes and took 256). A new field, or a
// reorder that opens a hole, fails here: place it on purpose and update this.
static_assert(sizeof(void*) != 8 || sizeof(Node) == 248, "lt::Node's size changed: see the comment above");

/// Grad mode (a thread-local flag): when off, new nodes never require grad.
bool grad_mode_enabled();
void set_grad_mode(bool enabled);
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(grad_mode_enabled()) { set_grad_mode(enabled); }
  ~GradModeGuard() { set_grad_mode(prev_); }

 private:
  bool prev_;
};

/// Creates a node; requires_grad = grad mode && floating dtype && any input requires grad.
/// Shape/dtype rules are the caller's (ir/builder.h) responsibility.
NodePtr make_node(Op op, DType dtype, Shape shape, Attrs attrs, NodeList inputs);
/// A materialised input over `buffer` (numel must match shape).
NodePtr make_input(BufferPtr buffer, Shape shape);
/// A runtime scalar of shape []. `wrapped` marks a number from user code (it
/// ranks below tensors in type promotion); it is the Scalar node's one attr.
NodePtr make_scalar(ScalarValue value, DType dtype, bool wrapped);

}  // namespace lt
