// autograd/autograd.h — reverse mode as an IR-to-IR transform.
//
// Gradients are new lazy nodes built with ir/builder.h, so forward, backward
// and the optimizer step land in one trace and fuse together.
#pragma once

#include <functional>
#include <vector>

#include "absl/types/span.h"
#include "ir/node.h"

namespace lt {

/// autograd/'s state in a node (ir/node.h, AutogradState): `released` is set
/// on every node a backward pass without retain_graph went through; a later
/// backward that needs one raises, and a released node drops its inputs once
/// realised. Read and written where a backward runs; set before realize()
/// can read it on a sync's thread, as both run under lazy/'s locks.
inline AutogradState& autograd_state(const Node& n) { return n.autograd_; }

}  // namespace lt

namespace lt::autograd {

/// Gradient nodes of sum_i <roots[i], root_grads[i]> with respect to each node
/// in `wrt` (null where no path leads there). Walks only nodes whose
/// requires_grad is set, and does not look past a Detach (a leaf); a wrt node
/// that feeds another gets its total derivative. Unless
/// `retain_graph`, marks every node it went through as released (a later
/// backward through them raises) and lets realised nodes drop their inputs.
///
/// `check_saved`, when set, receives every value the walk's derivative rules
/// will read (saved_values in derivatives.h) before anything is built; it
/// throws to refuse the call (lazy/ raises for values changed in place since).
///
/// `create_graph` builds the gradient nodes with grad mode on (so they can be
/// differentiated again) and implies retain_graph.
using SavedValueCheck = std::function<void(absl::Span<const Node* const> saved)>;
std::vector<NodePtr> gradients(absl::Span<const NodePtr> roots, absl::Span<const NodePtr> root_grads,
                               absl::Span<const NodePtr> wrt, bool retain_graph,
                               const SavedValueCheck& check_saved = nullptr, bool create_graph = false);

}  // namespace lt::autograd
