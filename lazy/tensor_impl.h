// lazy/tensor_impl.h — the slot behind an lt::Tensor handle.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ir/node.h"

namespace lt {

/// lazy/'s state in a node (ir/node.h, LazyState): the tensor storage (a
/// TensorImpl's storage_id, 0 if none) whose value the node is, and that
/// storage's version when it took the node; `replaced_at_version` is the
/// storage's version when an in-place change moved it off the node (0:
/// never), so the check still sees a change after the storage is gone.
/// Autograd's in-place check (autograd_api.cpp) compares them with the
/// storage's current version to find a value saved for backward and changed
/// since. Not hashed, not traced. Written under the registry lock.
inline LazyState& lazy_state(const Node& n) { return n.lazy_; }

struct TensorImpl : std::enable_shared_from_this<TensorImpl> {
  explicit TensorImpl(NodePtr n);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  /// Points the slot at a new value (in-place ops, optimizer updates) and
  /// bumps the version. The slot's storage takes the new node (LazyState::storage_id)
  /// when the node belongs to no storage yet, or when `take_from` is the
  /// storage it belongs to (a temporary result handed over, as the Python
  /// in-place ops do); a node another tensor holds (copy_ of an equal dtype and
  /// shape) stays that tensor's.
  /// `count_as_change` false: a write PyTorch does not count (through .data).
  /// Runs under the registry lock: a sync or backward on another thread reads
  /// every live slot's node.
  void rebind(NodePtr n, uint64_t take_from = 0, bool count_as_change = true);
  /// Points the slot at `n` without an in-place change (detach_, requires_grad_,
  /// a Python view re-derived from its base, sync): no version bump. With
  /// `leaf`, also sets leaf_requires_grad. Under the registry lock; every write
  /// of `node` after construction goes through here or rebind.
  void set_node(NodePtr n, std::optional<bool> leaf = std::nullopt);
  /// Records on the current node, when it is this storage's, that an in-place
  /// change (now at `version`) moved the storage off it.
  void mark_replaced() const {
    if (!node) return;
    LazyState& s = lazy_state(*node);
    if (s.storage_id == storage_id && s.storage_version != version && s.replaced_at_version == 0)
      s.replaced_at_version = version;
  }
  /// Claims `n` for this slot's storage at its current version.
  void adopt(Node& n) const {
    lazy_state(n).storage_id = storage_id;
    lazy_state(n).storage_version = version;
  }

  /// What the slot held before an in-place write that a sync may still fail
  /// on (its value has Node::unchecked_index set).
  struct Undo {
    NodePtr node;                  ///< the value before the write
    uint64_t version;              ///< the storage's version before it
    uint64_t replaced_at_version;  ///< node's mark before the write moved the storage off it
  };
  /// Restores the value before the newest write in `undo` (the version too,
  /// as PyTorch's write that raises changes nothing) and drops that entry.
  /// Under the registry lock; returns the failed value, to be released outside it.
  NodePtr undo_write();
  /// Drops `undo` (its value was computed, or is no longer at risk). Under the
  /// registry lock; returns the entries, to be released outside it.
  std::vector<Undo> forget_writes();

  NodePtr node;                        ///< current value (written only through set_node/rebind)
  bool leaf_requires_grad = false;     ///< a user-made leaf that requires grad (set by requires_grad_)
  std::shared_ptr<TensorImpl> grad;    ///< accumulated gradient, or null
  /// Values this leaf had before in-place updates (made under no_grad) that a
  /// recorded graph may still use: backward credits their gradients to this
  /// slot too. Expired entries are pruned at each rebind.
  std::vector<std::weak_ptr<Node>> earlier_leaf_nodes;
  /// The storage's version counter: bumped by every in-place change. A Python
  /// view shares its base's storage_id and mirrors its version (bindings/).
  uint64_t version = 0;
  /// Bumped by every rebind, counted as a change or not: Python views
  /// re-derive their value when their base's moved.
  uint64_t rebinds = 0;
  /// Identifies the storage (unique, never reused; shared by a base and its
  /// Python views). Nodes record it to find their storage's version.
  uint64_t storage_id;
  /// Writes not computed yet that a sync may fail on, oldest first, each
  /// with what it replaced; emptied when a write that cannot fail replaces
  /// them or a sync computes the value. A sync that fails restores the value
  /// before the failing write (lazy/runtime.cpp). Under the registry lock.
  std::vector<Undo> undo;
  /// Position in the live-tensor registry (lazy/runtime.cpp).
  TensorImpl* prev_live = nullptr;
  TensorImpl* next_live = nullptr;
};

}  // namespace lt
