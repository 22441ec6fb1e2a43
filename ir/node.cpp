// ir/node.cpp — node creation, hashing and iterative destruction.
#include "ir/node.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/block_cache.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "ir/lowp.h"

namespace lt {

ScalarValue ScalarValue::of(double v, DType dtype) {
  ScalarValue s;
  if (is_floating(dtype)) {
    if (dtype == DType::Float32) s.f = static_cast<double>(static_cast<float>(v));
    else if (dtype == DType::Float16) s.f = round_to_half(static_cast<float>(v));
    else if (dtype == DType::BFloat16) s.f = round_to_bfloat16(static_cast<float>(v));
    else s.f = v;
  } else if (dtype == DType::Bool) {
    s.i = v != 0.0;
  } else {
    s.i = static_cast<int64_t>(v);
    if (dtype == DType::Int32) s.i = static_cast<int32_t>(s.i);
    if (dtype == DType::Int16) s.i = static_cast<int16_t>(s.i);
    if (dtype == DType::Int8) s.i = static_cast<int8_t>(s.i);
    if (dtype == DType::UInt8) s.i = static_cast<uint8_t>(s.i);
  }
  return s;
}

namespace {
thread_local bool t_grad_mode = true;

// Nodes (with their shared_ptr control block, one ~300-byte block) come from
// a per-thread free list: every recorded op makes one or more, and a sync
// frees the released graph in bulk (ir/block_cache.h).
template <class... Args>
NodePtr new_node(Args&&... args) {
  return std::allocate_shared<Node>(BlockCacheAllocator<Node>(), std::forward<Args>(args)...);
}

// ---- node hash ----
//
// Node::hash is read only by the hashes of the nodes built on it (the trace
// hash, which names traces and keys caches, is streamed by capture with
// StableHasher, trace/capture.cpp), but every recorded op pays for it. So it
// mixes each word with one multiply per lane and leaves the avalanche to
// finish(): ~5 cycles of latency per word instead of StableHasher's two fmix64.
class NodeHasher {
 public:
  void add(uint64_t v) {
    a_ = (a_ ^ v) * 0x9E3779B97F4A7C15ull;
    a_ ^= a_ >> 32;
    b_ = rotl(b_ + v, 23) * 0xC2B2AE3D27D4EB4Full;
  }
  void add(Hash128 h) {
    add(h.lo);
    add(h.hi);
  }
  Hash128 finish() const { return {fmix(a_ ^ rotl(b_, 17)), fmix(b_ + rotl(a_, 41) + 0x165667B19E3779F9ull)}; }

 private:
  static uint64_t rotl(uint64_t x, int r) { return rotl64(x, r); }
  static uint64_t fmix(uint64_t k) { return fmix64(k); }
  uint64_t a_ = 0x243F6A8885A308D3ull;
  uint64_t b_ = 0x13198A2E03707344ull;
};

// Destroying a long chain through shared_ptr recursion would overflow the
// stack (a 100k-op loop is a 100k-deep graph). Inputs of dying nodes are
// moved to this list and released one at a time by the outermost destructor.
thread_local std::vector<NodePtr>* t_dying = nullptr;
}  // namespace

bool grad_mode_enabled() { return t_grad_mode; }
void set_grad_mode(bool enabled) { t_grad_mode = enabled; }

Node::Node(Op op_, DType dtype_, Shape shape_, Attrs attrs_, NodeList inputs_)
    : op(op_), dtype(dtype_), shape(std::move(shape_)), attrs(std::move(attrs_)), inputs(std::move(inputs_)) {
  shape_numel(shape);  // raises for a shape whose element count overflows int64, before anything relies on it
  // Small fields share one header word (counts that do not fit escape to a
  // word of their own): every recorded op pays for this hash.
  constexpr uint64_t kMax16 = 0xFFFF, kMax12 = 0xFFF;
  uint64_t ndim = std::min<uint64_t>(shape.size(), kMax16), nattrs = std::min<uint64_t>(attrs.size(), kMax12),
           ninputs = std::min<uint64_t>(inputs.size(), kMax12);
  NodeHasher h;
  h.add(0x80 | static_cast<uint64_t>(op) << 8 | static_cast<uint64_t>(dtype) << 16 | ndim << 24 | nattrs << 40 |
        ninputs << 52);
  if (ndim == kMax16) h.add(shape.size());
  if (nattrs == kMax12) h.add(attrs.size());
  if (ninputs == kMax12) h.add(inputs.size());
  for (int64_t d : shape) h.add(static_cast<uint64_t>(d));
  for (int64_t a : attrs) h.add(static_cast<uint64_t>(a));
  for (const NodePtr& in : inputs) h.add(in->hash);
  hash = h.finish();
  counters::nodes_recorded.add();
  counters::nodes_live.add();
}

Node::~Node() {
  counters::nodes_live.add(-1);
  if (inputs.empty()) return;
  if (t_dying) {
    for (NodePtr& in : inputs) t_dying->push_back(std::move(in));
    return;
  }
  std::vector<NodePtr> dying;
  t_dying = &dying;
  for (NodePtr& in : inputs) dying.push_back(std::move(in));
  inputs.clear();
  while (!dying.empty()) {
    NodePtr n = std::move(dying.back());
    dying.pop_back();
    n.reset();  // may push more onto `dying`
  }
  t_dying = nullptr;
}

void Node::realize(BufferPtr value) {
  buffer = std::move(value);
  unchecked_index.store(false, std::memory_order_relaxed);  // computed: its indices were in range
  // The inputs matter only to a backward pass still to come: none passes a
  // Detach, and none may pass a node a backward pass has released.
  if (!requires_grad || op == Op::Detach || autograd_.released.load(std::memory_order_relaxed)) inputs.clear();
}

std::string Node::describe() const {
  std::vector<std::string> ins;
  for (const NodePtr& in : inputs) ins.push_back(cat(dtype_name(in->dtype), shape_str(in->shape)));
  return cat(dtype_name(dtype), shape_str(shape), " ", op_name(op), "(", absl::StrJoin(ins, ", "), ")");
}

// The values of `index` are known when it is materialised or a view of
// materialised data: the builder then checked them at the call.
static bool known_values(const Node* index) {
  while (op_kind(index->op) == OpKind::Movement && !index->inputs.empty()) index = index->inputs[0].get();
  return index->is_materialized() || index->op == Op::Scalar;
}

NodePtr make_node(Op op, DType dtype, Shape shape, Attrs attrs, NodeList inputs) {
  bool rg = false;
  // Only real numbers carry gradients: a comparison or an index never requires grad.
  if (t_grad_mode && op != Op::Detach && is_floating(dtype)) {
    for (const NodePtr& in : inputs) rg |= in->requires_grad;
  }
  bool unchecked = (op == Op::Gather || op == Op::ScatterAdd) && inputs.size() > 1 && !known_values(inputs[1].get());
  for (const NodePtr& in : inputs) unchecked |= in->unchecked_index.load(std::memory_order_relaxed);
  auto n = new_node(op, dtype, std::move(shape), std::move(attrs), std::move(inputs));
  n->requires_grad = rg;
  if (unchecked) n->unchecked_index.store(true, std::memory_order_relaxed);
  return n;
}

NodePtr make_input(BufferPtr buffer, Shape shape) {
  if (!buffer) fail(ErrorKind::Runtime, "input: null buffer");
  if (buffer->numel() != shape_numel(shape)) {
    fail(ErrorKind::Runtime, "input: buffer of ", buffer->numel(), " elements cannot have shape ", shape_str(shape));
  }
  DType dt = buffer->dtype();
  auto n = new_node(Op::Input, dt, std::move(shape), Attrs{}, NodeList{});
  n->buffer = std::move(buffer);
  return n;
}

NodePtr make_scalar(ScalarValue value, DType dtype, bool wrapped) {
  auto n = new_node(Op::Scalar, dtype, Shape{}, Attrs{wrapped ? 1 : 0}, NodeList{});
  n->scalar = value;
  return n;
}

}  // namespace lt
