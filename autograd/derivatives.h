// autograd/derivatives.h — the per-primitive derivative rules (internal to autograd/).
#pragma once

#include "ir/node.h"

namespace lt::autograd {

/// True when a gradient can flow into `n`: it requires grad and holds real
/// numbers (bool and integer values are never differentiable, as in PyTorch).
inline bool is_differentiable(const Node& n) { return n.requires_grad && is_floating(n.dtype); }

/// Gradient contributions to each input of `y` given `g`, the gradient of `y`
/// (same shape and dtype as `y`). Entry i is null when input i gets none;
/// entries are computed only for inputs where `wanted[i]` is set.
/// Every contribution has its input's shape and dtype.
NodeList input_gradients(const NodePtr& y, const NodePtr& g, absl::Span<const bool> wanted);

/// The values input_gradients(y, g, wanted) reads (inputs of y, or y itself):
/// what PyTorch calls the tensors saved for backward. Autograd checks that
/// none of them was changed in place since it was recorded. A composite output
/// marked saves_output counts as saved, as in PyTorch.
NodeList saved_values(const NodePtr& y, absl::Span<const bool> wanted);

}  // namespace lt::autograd
