// trace/capture.cpp — canonical capture and the trace hash.
#include "trace/capture.h"

#include "absl/container/flat_hash_map.h"
#include <algorithm>

#include "ir/counters.h"

namespace lt {

int32_t Trace::num_params() const {
  int32_t n = 0;
  for (const TraceNode& tn : nodes)
    if (tn.op == Op::Input) n = std::max(n, tn.param + 1);
  return n;
}

CapturedTrace capture_trace(absl::Span<const NodePtr> roots) {
  CapturedTrace out;
  Trace& t = out.trace;
  absl::flat_hash_map<const Node*, int32_t> index;       // graph node -> trace index
  absl::flat_hash_map<const Buffer*, int32_t> by_buffer;  // materialised buffer -> trace index

  struct Frame {
    const NodePtr* node;
    size_t next_input;
  };
  std::vector<Frame> stack;

  auto emit_leaf = [&](Node* n) -> int32_t {
    if (n->is_materialized()) {
      auto it = by_buffer.find(n->buffer.get());
      if (it != by_buffer.end()) return it->second;
      TraceNode tn{Op::Input, n->dtype, n->shape, {}, {}, static_cast<int32_t>(t.params.size())};
      t.params.push_back(n->buffer);
      t.nodes.push_back(std::move(tn));
      out.origin.push_back(nullptr);
      int32_t id = static_cast<int32_t>(t.nodes.size() - 1);
      by_buffer[n->buffer.get()] = id;
      return id;
    }
    // A Scalar node.
    TraceNode tn{Op::Scalar, n->dtype, n->shape, n->attrs, {}, static_cast<int32_t>(t.scalars.size())};
    t.scalars.push_back(n->scalar);
    t.nodes.push_back(std::move(tn));
    out.origin.push_back(nullptr);
    return static_cast<int32_t>(t.nodes.size() - 1);
  };

  for (const NodePtr& root : roots) {
    auto visit = [&](const NodePtr& p) -> bool {  // true when p already has an index
      Node* n = p.get();
      if (index.contains(n)) return true;
      if (n->is_materialized() || n->op == Op::Scalar) {
        index[n] = emit_leaf(n);
        return true;
      }
      stack.push_back({&p, 0});
      return false;
    };
    if (!visit(root)) {
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Node* cur = f.node->get();
        if (f.next_input < cur->inputs.size()) {
          const NodePtr& in = cur->inputs[f.next_input++];
          visit(in);
          continue;
        }
        const NodePtr& p = *f.node;
        stack.pop_back();
        TraceNode tn{p->op, p->dtype, p->shape, p->attrs, {}, -1};
        for (const NodePtr& in : p->inputs) tn.inputs.push_back(index.at(in.get()));
        t.nodes.push_back(std::move(tn));
        out.origin.push_back(p);
        index[p.get()] = static_cast<int32_t>(t.nodes.size() - 1);
      }
    }
    t.outputs.push_back(index.at(root.get()));
  }
  t.hash = hash_trace(t);
  counters::traces_captured.add();
  return out;
}

Hash128 hash_trace(const Trace& t) {
  StableHasher h;
  h.add(t.nodes.size());
  for (const TraceNode& n : t.nodes) {
    h.add(static_cast<uint64_t>(n.op)).add(static_cast<uint64_t>(n.dtype)).add(n.shape.size());
    for (int64_t d : n.shape) h.add(static_cast<uint64_t>(d));
    h.add(n.attrs.size());
    for (int64_t a : n.attrs) h.add(static_cast<uint64_t>(a));
    h.add(n.inputs.size());
    for (int32_t i : n.inputs) h.add(static_cast<uint64_t>(i));
    h.add(static_cast<uint64_t>(static_cast<int64_t>(n.param)));
  }
  h.add(t.outputs.size());
  for (int32_t o : t.outputs) h.add(static_cast<uint64_t>(o));
  return h.finish();
}

}  // namespace lt
