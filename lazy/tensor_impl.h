// lazy/tensor_impl.h — the slot behind an lt::Tensor handle.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ir/node.h"

namespace lt {

struct TensorImpl : std::enable_shared_from_this<TensorImpl> {
  explicit TensorImpl(NodePtr n);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  /// Points the slot at a new value (in-place ops, optimizer updates, sync).
  void rebind(NodePtr n);
  /// Replaces `node` (and, with `leaf`, leaf_requires_grad) under the
  /// registry lock: a sync or backward on another thread reads every live
  /// slot's node. Every write of `node` after construction goes through here.
  void set_node(NodePtr n, std::optional<bool> leaf = std::nullopt);

  NodePtr node;                        ///< current value (written only through set_node/rebind)
  bool leaf_requires_grad = false;     ///< a user-made leaf that requires grad (set by requires_grad_)
  std::shared_ptr<TensorImpl> grad;    ///< accumulated gradient, or null
  /// Values this leaf had before in-place updates (made under no_grad) that a
  /// recorded graph may still use: backward credits their gradients to this
  /// slot too. Expired entries are pruned at each rebind.
  std::vector<std::weak_ptr<Node>> earlier_leaf_nodes;
  uint64_t version = 0;                ///< bumped by every in-place change
  /// Position in the live-tensor registry (lazy/runtime.cpp).
  TensorImpl* prev_live = nullptr;
  TensorImpl* next_live = nullptr;
};

}  // namespace lt
