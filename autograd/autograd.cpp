// autograd/autograd.cpp — reverse mode: one walk over the recorded graph.
//
// gradients() finds the nodes between the roots and the `wrt` nodes (only
// nodes that require grad, never past a Detach), orders them
// topologically, and walks them once in reverse, summing the contributions
// each node receives and turning its gradient into contributions to its
// inputs with the per-primitive rules (derivatives.cpp). Nothing is computed:
// the result is lazy IR that the next sync runs together with the forward
// pass and whatever consumes the gradients (an optimizer step).
//
// A wrt node may feed another (grad(out, [a, b]) with b = a * 2): the walk
// goes on through it, so each wrt node gets its total derivative, as in
// PyTorch. A leaf is a Detach marked requires_grad, where the walk stops.
//
// create_graph builds the gradient nodes with grad mode on: they require grad
// where their inputs do, and a later backward differentiates them again.
//
// Determinism matters for the trace cache: the same program must build the
// same gradient graph every step, so contributions are summed in the order of
// the walk (which follows input order), never in hash-map order.
//
// Release: unless retain_graph, every node the walk went through is marked
// released (AutogradState, autograd.h). A later walk that needs one raises (PyTorch's "backward
// through the graph a second time"), and a released node that is or becomes
// realised drops its inputs, so the graph behind a training step's loss is
// freed at the sync that computes it (memory stays flat across steps).
#include "autograd/autograd.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "autograd/derivatives.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace lt::autograd {
namespace {

/// Nodes from the roots down to (and including) the wrt nodes, in topological
/// order (inputs before users), restricted to nodes with a path to a wrt node.
struct GraphSlice {
  std::vector<NodePtr> order;
  absl::flat_hash_set<const Node*> on_path;  ///< reaches a wrt node
};

bool stops_walk(const Node& n) { return n.op == Op::Detach; }

GraphSlice slice_graph(absl::Span<const NodePtr> roots, const absl::flat_hash_set<const Node*>& wrt) {
  GraphSlice s;
  absl::flat_hash_set<const Node*> visited;
  struct Frame {
    NodePtr node;
    size_t next_input;
  };
  std::vector<Frame> stack;
  for (const NodePtr& root : roots) {
    if (!is_differentiable(*root) || !visited.insert(root.get()).second) continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const Node& n = *f.node;
      if (!stops_walk(n) && f.next_input < n.inputs.size()) {
        const NodePtr& in = n.inputs[f.next_input++];
        if (is_differentiable(*in) && visited.insert(in.get()).second) stack.push_back({in, 0});
        continue;
      }
      // Post-order: every input is finished, so on_path is known for them.
      // A released node that dropped its inputs may have led to a wrt node:
      // keep it, so the check below reports it instead of a silent no-gradient.
      bool reaches = wrt.contains(&n) || (autograd_state(n).released.load(std::memory_order_relaxed) && n.inputs.empty());
      if (!stops_walk(n)) {
        for (const NodePtr& in : n.inputs) reaches |= s.on_path.contains(in.get());
      }
      if (reaches) {
        s.on_path.insert(&n);
        s.order.push_back(f.node);
      }
      stack.pop_back();
    }
  }
  return s;
}

[[noreturn]] void fail_released(const Node& n) {
  fail(ErrorKind::Runtime,
       "Trying to backward through the graph a second time (or directly access saved tensors after they have "
       "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
       "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
       "you need to access saved tensors after calling backward. (The released node is ",
       n.describe(), ".)");
}

void accumulate(absl::flat_hash_map<const Node*, NodePtr>& grads, const Node& n, NodePtr contribution) {
  if (contribution->shape != n.shape) {
    fail(ErrorKind::Runtime, "autograd internal error: the gradient for ", n.describe(), " has shape ",
         shape_str(contribution->shape));
  }
  if (contribution->dtype != n.dtype) contribution = ops::cast(contribution, n.dtype);
  NodePtr& slot = grads[&n];
  slot = slot ? ops::add(slot, contribution) : std::move(contribution);
}

/// Every value a rule of the reverse pass will read (deduplicated, walk order).
std::vector<const Node*> saved_in_slice(const GraphSlice& slice) {
  std::vector<const Node*> saved;
  absl::flat_hash_set<const Node*> seen;
  for (const NodePtr& y : slice.order) {
    if (stops_walk(*y)) continue;
    absl::InlinedVector<bool, 3> wanted(y->inputs.size());
    for (size_t i = 0; i < wanted.size(); ++i) wanted[i] = slice.on_path.contains(y->inputs[i].get());
    for (const NodePtr& n : saved_values(y, wanted))
      if (seen.insert(n.get()).second) saved.push_back(n.get());
  }
  return saved;
}

}  // namespace

std::vector<NodePtr> gradients(absl::Span<const NodePtr> roots, absl::Span<const NodePtr> root_grads,
                               absl::Span<const NodePtr> wrt, bool retain_graph,
                               const SavedValueCheck& check_saved, bool create_graph) {
  if (roots.size() != root_grads.size()) {
    fail(ErrorKind::Runtime, "gradients: got ", root_grads.size(), " root gradients for ", roots.size(), " roots");
  }
  GradModeGuard grad_mode(create_graph);  // without create_graph, gradient nodes are not differentiated again
  absl::flat_hash_set<const Node*> wrt_set;
  for (const NodePtr& w : wrt) wrt_set.insert(w.get());
  GraphSlice slice = slice_graph(roots, wrt_set);

  // Check before building anything, so a failed call changes nothing.
  for (const NodePtr& n : slice.order) {
    if (autograd_state(*n).released.load(std::memory_order_relaxed) && !wrt_set.contains(n.get())) fail_released(*n);
  }
  if (check_saved) check_saved(saved_in_slice(slice));

  absl::flat_hash_map<const Node*, NodePtr> grads;
  absl::flat_hash_map<const Node*, NodePtr> wrt_grads;  // complete when the walk reaches the node
  for (size_t i = 0; i < roots.size(); ++i) {
    if (slice.on_path.contains(roots[i].get())) accumulate(grads, *roots[i], root_grads[i]);
  }
  for (auto it = slice.order.rbegin(); it != slice.order.rend(); ++it) {
    const NodePtr& y = *it;
    auto found = grads.find(y.get());
    if (found == grads.end()) continue;
    NodePtr g = std::move(found->second);
    grads.erase(found);
    if (wrt_set.contains(y.get())) wrt_grads[y.get()] = g;
    if (stops_walk(*y) || y->inputs.empty()) continue;
    absl::InlinedVector<bool, 3> wanted(y->inputs.size());
    for (size_t i = 0; i < wanted.size(); ++i) wanted[i] = slice.on_path.contains(y->inputs[i].get());
    NodeList contributions = input_gradients(y, g, wanted);
    for (size_t i = 0; i < contributions.size(); ++i) {
      if (contributions[i]) accumulate(grads, *y->inputs[i], std::move(contributions[i]));
    }
  }

  std::vector<NodePtr> out;
  out.reserve(wrt.size());
  for (const NodePtr& w : wrt) {
    auto found = wrt_grads.find(w.get());
    out.push_back(found == wrt_grads.end() ? nullptr : found->second);
  }

  if (!retain_graph && !create_graph) {
    for (const NodePtr& n : slice.order) {
      if (wrt_set.contains(n.get())) continue;
      autograd_state(*n).released.store(true, std::memory_order_relaxed);
      if (n->is_materialized()) n->inputs.clear();  // `slice.order` keeps the inputs alive for this loop
    }
  }
  return out;
}

}  // namespace lt::autograd
