// lazy/runtime.h — the sync machinery behind lt::sync (internal to lazy/).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "ir/node.h"
#include "trace/backend.h"

namespace lt {

struct TensorImpl;

namespace runtime {

void register_live(TensorImpl* impl);
void unregister_live(TensorImpl* impl);
/// Calls f(impl) for each live tensor, under the registry lock.
void for_each_live(const std::function<void(TensorImpl*)>& f);

/// Runs f under the registry lock (TensorImpl::set_node, rebind).
void with_registry_lock(const std::function<void()>& f);
/// The buffer of `n`, syncing it first when pending. Under the sync lock: a
/// sync on another thread may be realising `n` at the same moment.
BufferPtr materialized_buffer(const NodePtr& n);
/// Runs f under the sync lock. Backward reads and releases graph inputs that
/// a sync on another thread may be realising (Node::realize clears inputs).
void with_sync_lock(const std::function<void()>& f);

/// Counts the slots holding writes that a sync may fail on
/// (TensorImpl::undo): syncs look for them only while there are any.
void count_undo_holder(int delta);
/// Computes `roots` (pending nodes), realising each in place. When that
/// fails on data, each live tensor whose in-place write failed gets back the
/// value it held before that write, and the error is raised.
void sync_nodes(absl::Span<const NodePtr> roots, const RunOptions& options = {});
/// Called after each recorded op: syncs everything when the pending graph is too large.
void maybe_auto_sync();
/// The backend named by LT_BACKEND ("cpu" by default when built, else "reference").
Backend& current_backend();
void set_backend(const std::string& name);
std::string backend_name();
/// Where each newly captured trace is written for the fusion lab (LT_DUMP_DIR
/// at start; "" turns dumping off). Each trace once per directory.
void set_dump_dir(const std::string& dir);
std::string dump_dir();

}  // namespace runtime
}  // namespace lt
