// autograd/autograd.cpp — placeholder until reverse mode lands.
#include "autograd/autograd.h"

#include "ir/error.h"

namespace lt::autograd {
std::vector<NodePtr> gradients(absl::Span<const NodePtr>, absl::Span<const NodePtr>, absl::Span<const NodePtr>, bool) {
  fail(ErrorKind::NotImplemented, "autograd::gradients is not implemented yet");
}
}  // namespace lt::autograd
