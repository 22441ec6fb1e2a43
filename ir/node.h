// ir/node.h — lazy IR nodes.
//
// A node is an immutable record of one primitive op: op, dtype, shape,
// attributes and inputs, with its structural hash computed once at creation
// (O(1): it mixes the inputs' hashes). The only state of its own that changes
// after creation is realisation: when a sync computes a node, its value is
// stored in `buffer`, and a node that no gradient needs drops its inputs so
// the graph behind it is freed. Capture treats a realised node as a
// parameter. Beside that, trace/, lazy/ and autograd/ keep marks in each node
// (TraceState, LazyState, AutogradState below), each through its own accessor.
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

// ---- State the layers above ir/ keep in each node ----
//
// A sync's capture visits every pending node, a backward pass marks every node
// it goes through, and an in-place write marks the node it moves its storage
// off. A side table keyed by node would cost those walks a hash lookup per
// node, so the node holds their state: one struct per owning layer, declared
// here only so that Node can hold it. The owning layer's header defines the
// accessor and says what the fields mean; ir/ only lays them out. The one read
// in ir/ is realize()'s of AutogradState::released. Node::saves_output and
// Node::unchecked_index are ir/'s own although autograd/ and lazy/ read them:
// ir/ writes them (the builder, make_node, realize).
struct TraceState {
  uint64_t epoch = 0;
  int32_t index = -1;
};
struct LazyState {
  uint64_t storage_id = 0;
  uint64_t storage_version = 0;
  uint64_t replaced_at_version = 0;
};
struct AutogradState {
  /// Set by a backward pass that may not go through the node again; a
  /// released node keeps no inputs once realised (realize()).
  std::atomic<bool> released{false};
};
inline TraceState& trace_state(const Node& n);        ///< trace/capture.h
inline LazyState& lazy_state(const Node& n);          ///< lazy/tensor_impl.h
inline AutogradState& autograd_state(const Node& n);  ///< autograd/autograd.h

class Node {
 public:
  // Field order: the one-byte fields fill the first word, the pointer-aligned
  // fields follow, then trace/'s and lazy/'s state; the only padding is two
  // bytes in the first word and TraceState's four-byte tail (see the
  // static_assert below the class).

  Op op;
  DType dtype;
  bool requires_grad = false;  ///< make_node: a gradient flows through this node
  /// Set by the builder (builder_util.h, saving_output) for autograd/'s
  /// in-place check: PyTorch's backward for the composite whose output this
  /// is saves that output (relu, sigmoid, softmax, log_softmax), so the check
  /// treats the node as saved although our rules read other nodes.
  bool saves_output = false;
  /// make_node, realize: computing this node can fail on data. It, or a node
  /// it reads, gathers or scatters by an index whose values were not known
  /// when it was recorded (known ones are checked at the call), and it is not
  /// computed yet. lazy/ keeps an undo for an in-place write of such a value,
  /// so a sync that fails on it restores what the tensor held.
  std::atomic<bool> unchecked_index{false};

 private:
  friend AutogradState& autograd_state(const Node& n);
  mutable AutogradState autograd_;  ///< autograd/'s (written by backward)

 public:
  Shape shape;
  Attrs attrs;
  NodeList inputs;      ///< dropped by realize() when no backward needs them
  Hash128 hash;         ///< structural: op, attrs, dtype, shape, input hashes; never data
  ScalarValue scalar;   ///< Scalar nodes only; a runtime parameter, not hashed
  BufferPtr buffer;     ///< Input: its data; any other node: its value once realised

 private:
  friend TraceState& trace_state(const Node& n);
  friend LazyState& lazy_state(const Node& n);
  /// The layers' marks beside the node's value: written on nodes that are
  /// otherwise immutable, hence mutable.
  mutable TraceState trace_;  ///< trace/'s (capture's visit marks)
  mutable LazyState lazy_;    ///< lazy/'s (storage versions)

 public:
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
// 248 bytes on LP64. The fields take 242 (56 shape + 56 inputs + 40 attrs +
// 3*16 hash/scalar/buffer + 12 TraceState + 24 LazyState + six one-byte
// fields), the fewest multiple of 8 that holds them, so no order is smaller.
// A new field, or a reorder that opens a hole, fails here: place it on
// purpose and update this.
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
