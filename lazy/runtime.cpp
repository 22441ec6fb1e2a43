// lazy/runtime.cpp — live-tensor registry, sync, auto-sync and backend choice.
//
// Sync captures the pending graph behind the requested tensors as one trace.
// Intermediates that other live pending tensors also use are added as extra
// roots, so nothing is computed twice: the walk marks what the requested roots
// reach, then walks the other pending tensors and promotes every marked node
// they reach to a root.
//
// Failed in-place writes. PyTorch checks an index before it writes, so
// `x[idx] = v` with an index out of range raises and x keeps its value. Here
// a pending index is checked when the write is computed, after x was rebound.
// So a write whose value may fail on data (Node::unchecked_index) keeps what
// it replaced in the slot (TensorImpl::undo), and a sync that raises walks
// back each such tensor it reached: it computes the tensor's value alone
// and, while that fails, restores the value before the newest remaining
// write. x then reads what it held before the write that failed, and every
// tensor not built on the failed value stays valid. Only an error in the
// values (Error::on_data) restores: a write whose kernel failed to compile
// is kept and computes once the compiler works. A sync that succeeds drops
// the undo of every tensor it computed. Syncs of everything that do
// not raise (automatic ones) restore nothing: the failing tensor is marked
// and raises, and is restored, when it is itself synced. Only syncs that meet
// such a tensor pay: they look for them while any exist, and the retries run
// on the error path.
#include "lazy/runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/counters.h"
#include "lazy/tensor.h"
#include "lazy/tensor_impl.h"
#include "trace/capture.h"
#include "trace/dump.h"
#if LT_HAVE_CUDA
#include "runtime/cuda_backend.h"
#endif
#if LT_HAVE_CPU_JIT
#include "runtime/cpu_backend.h"
#endif

namespace lt {
namespace counters {
Counter failed_tensors("failed_tensors");  ///< tensors a sync of everything could not compute
}
namespace runtime {
namespace {

struct Registry {
  std::mutex mu;
  TensorImpl* head = nullptr;
  int64_t count = 0;
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

std::recursive_mutex& sync_mutex() {
  static std::recursive_mutex* m = new std::recursive_mutex();
  return *m;
}

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

std::atomic<int64_t> g_threshold{env_int("LT_SYNC_THRESHOLD", 50000)};
std::atomic<int64_t> g_undo_holders{0};  // live slots with a non-empty TensorImpl::undo
// Set while a sync must not restore failed writes: inside a sync of
// everything that does not raise, and inside the restoring itself.
thread_local bool t_keep_failed_writes = false;

class KeepFailedWrites {
 public:
  KeepFailedWrites() : prev_(t_keep_failed_writes) { t_keep_failed_writes = true; }
  ~KeepFailedWrites() { t_keep_failed_writes = prev_; }

 private:
  bool prev_;
};
// Live nodes right after the last sync: the growth since then approximates the
// pending graph (nodes that died unsynced do not count against it).
std::atomic<int64_t> g_live_at_last_sync{0};
thread_local bool t_in_auto_sync = false;

Backend* g_backend = nullptr;
std::string g_backend_name;

Backend& resolve_backend(const std::string& name) {
  if (name == "reference") return reference_backend();
#if LT_HAVE_CUDA
  if (name == "cuda") return cuda_backend();
#else
  if (name == "cuda") fail(ErrorKind::Runtime, "LT_BACKEND=cuda: this build has no CUDA backend (the CUDA toolkit was not found)");
#endif
#if LT_HAVE_CPU_JIT
  if (name == "cpu" || name.empty()) return cpu_backend();
#else
  if (name.empty()) return reference_backend();
  if (name == "cpu") fail(ErrorKind::Runtime, "LT_BACKEND=cpu: this build has no CPU JIT (LLVM 19 was not found)");
#endif
  fail(ErrorKind::Value, "LT_BACKEND: unknown backend '", name, "' (expected cpu, cuda or reference)");
}

// The dump directory: LT_DUMP_DIR at start, then set_dump_dir() (Python's
// lt.debug.set_dump_dir); each trace is written once per directory.
struct DumpState {
  std::mutex mu;
  std::string dir;
  absl::flat_hash_set<Hash128> written;
  absl::flat_hash_set<std::string> warned;  // directories a dump could not be written to
  std::atomic<bool> on{false};
  DumpState() {
    const char* e = std::getenv("LT_DUMP_DIR");
    dir = e ? e : "";
    on = !dir.empty();
  }
};
DumpState& dump_state() {
  static DumpState* s = new DumpState;  // never destroyed: syncs may run during exit
  return *s;
}
bool dumping() { return dump_state().on.load(std::memory_order_relaxed); }

void dump_trace(const Trace& trace) {
  if (!dumping()) return;
  DumpState& st = dump_state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.dir.empty() || !st.written.insert(trace.hash).second) return;
  const std::string dir = st.dir;
  static const bool with_inputs = [] {
    const char* v = std::getenv("LT_DUMP_INPUTS");
    return v && *v && std::string(v) != "0";
  }();
  // Observability never breaks a program: a missing directory is created, and a
  // dump that cannot be written warns once per directory; the sync goes on.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  try {
    write_trace_dump(trace, cat(dir, "/", trace.hash.hex()), with_inputs);
  } catch (const Error& e) {
    if (st.warned.insert(dir).second) {
      std::fprintf(stderr, "lazytensor: warning: LT_DUMP_DIR=%s: %s%s%s; traces are not dumped there\n", dir.c_str(),
                   e.what(), ec ? ": " : "", ec ? ec.message().c_str() : "");
    }
  }
}

}  // namespace

void register_live(TensorImpl* impl) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  impl->next_live = r.head;
  if (r.head) r.head->prev_live = impl;
  r.head = impl;
  ++r.count;
}

void unregister_live(TensorImpl* impl) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (impl->prev_live) impl->prev_live->next_live = impl->next_live;
  else r.head = impl->next_live;
  if (impl->next_live) impl->next_live->prev_live = impl->prev_live;
  --r.count;
}

void for_each_live(const std::function<void(TensorImpl*)>& f) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (TensorImpl* t = r.head; t; t = t->next_live) f(t);
}

void with_registry_lock(const std::function<void()>& f) {
  std::lock_guard<std::mutex> lock(registry().mu);
  f();
}

void with_sync_lock(const std::function<void()>& f) {
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  f();
}

BufferPtr materialized_buffer(const NodePtr& n) {
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  if (n->is_pending()) sync_nodes({n});
  return n->buffer;
}

// Tensors whose computation failed in a sync of everything (lt::sync() or an
// automatic sync). They stay pending, raise their error again whenever they
// are synced themselves (the failing kernel runs again), and are left out of
// later syncs of everything, so one bad tensor does not fail unrelated work
// for as long as it is alive. Held weakly; guarded by the sync lock.
static absl::flat_hash_map<const Node*, std::weak_ptr<Node>> g_failed;

static bool failed_before(const NodePtr& n) {
  auto it = g_failed.find(n.get());
  if (it == g_failed.end()) return false;
  if (it->second.lock() == n) return true;
  g_failed.erase(it);  // a dead node's address, reused
  return false;
}

static std::vector<NodePtr> live_pending_nodes(bool skip_failed = false) {
  // is_pending() reads a buffer that a sync on another thread may be writing:
  // hold the sync lock (lock order everywhere: sync, then registry).
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  std::vector<NodePtr> out;
  for_each_live([&](TensorImpl* t) {
    if (t->node && t->node->is_pending()) out.push_back(t->node);
  });
  if (skip_failed) {
    absl::erase_if(g_failed, [](const auto& kv) { return kv.second.expired(); });
    out.erase(std::remove_if(out.begin(), out.end(), failed_before), out.end());
  }
  return out;
}

void count_undo_holder(int delta) { g_undo_holders.fetch_add(delta, std::memory_order_relaxed); }

using SlotList = std::vector<std::shared_ptr<TensorImpl>>;

// The live tensors with writes a sync may fail on whose value `capture` reached.
static SlotList reached_writers(const TraceCapture& capture) {
  SlotList out;
  if (g_undo_holders.load(std::memory_order_relaxed) == 0) return out;
  for_each_live([&](TensorImpl* t) {
    if (t->undo.empty() || capture.index_of(t->node.get()) < 0) return;
    if (auto held = t->weak_from_this().lock()) out.push_back(std::move(held));  // null while being destroyed
  });
  return out;
}

// After a successful sync: the writers whose value it computed need no undo.
static void forget_computed_writes(const SlotList& writers) {
  std::vector<TensorImpl::Undo> dropped;  // released outside the lock
  with_registry_lock([&] {
    for (const auto& t : writers) {
      if (t->node->is_pending()) continue;
      for (TensorImpl::Undo& u : t->forget_writes()) dropped.push_back(std::move(u));
    }
  });
}

// After a sync of `failed` raised: walks back each writer it reached to the
// value before its write that fails (see the top of the file).
static void restore_failed_writes(const SlotList& writers, absl::Span<const NodePtr> failed) {
  KeepFailedWrites keep;  // the retries below restore nothing themselves
  for (const auto& t : writers) {
    // A writer that was the whole failed sync is known to fail: no retry.
    bool fails = failed.size() == 1 && failed[0] == t->node;
    for (;;) {
      NodePtr value;
      with_registry_lock([&] {
        if (!t->undo.empty() && t->node->is_pending()) value = t->node;
      });
      if (!value) break;
      if (!fails) {
        try {
          sync_nodes({value});
          break;
        } catch (const Error& e) {
          if (!e.on_data()) break;  // not this write's values: keep it
        }
      }
      fails = false;
      NodePtr failed_value;
      with_registry_lock([&] { failed_value = t->undo_write(); });
    }
  }
  forget_computed_writes(writers);
}

void sync_nodes(absl::Span<const NodePtr> requested, const RunOptions& options) {
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  std::vector<NodePtr> roots;
  absl::flat_hash_set<const Node*> marked;
  for (const NodePtr& n : requested) {
    if (n->is_pending() && marked.insert(n.get()).second) roots.push_back(n);
  }
  if (roots.empty()) return;
  std::vector<NodePtr> others = live_pending_nodes();
  // The capture marks everything the requested roots reach; then every marked
  // node another live pending tensor reaches is promoted to an extra output.
  // Not a view (reshape, permute, expand, slice, flip, pad) of a pending
  // node inside another tensor's graph, though: the walk goes on to what it
  // views. A view costs nothing to recompute, and stored it is a copy (an
  // Adam step promoted each weight expanded over the batch for a batched
  // matmul: 16 copies of it). A live tensor that is itself a view is stored.
  TraceCapture capture(roots);
  absl::flat_hash_set<const Node*> seen;  // visited outside the trace, and views inside it
  std::vector<const NodePtr*> work;
  for (const NodePtr& other : others) {
    work.assign(1, &other);
    while (!work.empty()) {
      const NodePtr& p = *work.back();
      work.pop_back();
      if (int32_t index = capture.index_of(p.get()); index >= 0) {
        bool view_of_pending = &p != &other && op_kind(p->op) == OpKind::Movement && !p->inputs.empty() &&
                               p->inputs[0]->is_pending();
        if (view_of_pending && !marked.contains(p.get())) {
          if (seen.insert(p.get()).second) work.push_back(&p->inputs[0]);
          continue;
        }
        if (marked.insert(p.get()).second) {
          roots.push_back(p);
          capture.add_output(index);
        }
        continue;
      }
      if (!seen.insert(p.get()).second) continue;
      for (const NodePtr& in : p->inputs)
        if (in->is_pending()) work.push_back(&in);
    }
  }
  SlotList writers = reached_writers(capture);
  capture.seal();
  counters::syncs.add();
  Backend& backend = current_backend();
  std::vector<BufferPtr> outputs;
  try {
    if (dumping() || !backend.run_cached(capture.hash(), capture.params(), capture.scalars(), options, &outputs)) {
      Trace trace = capture.trace();
      dump_trace(trace);
      outputs = backend.run(trace, options);
    }
  } catch (const Error& e) {
    // Only an error in the values: a write whose kernel failed to compile computes once the compiler works.
    if (e.on_data() && !writers.empty() && !t_keep_failed_writes) restore_failed_writes(writers, roots);
    throw;
  }
  for (size_t i = 0; i < roots.size(); ++i) roots[i]->realize(std::move(outputs[i]));
  if (!writers.empty()) forget_computed_writes(writers);
  g_live_at_last_sync.store(counters::nodes_live.get(), std::memory_order_relaxed);
}

// Syncs `roots`; when that fails, syncs halves of them, down to single
// tensors, so that everything that can be computed is, and each tensor that
// cannot is marked failed. The first error is kept in `first`. Only the error
// path pays for the extra traces (about 2 log2(n) per failing tensor).
static void sync_isolating(absl::Span<const NodePtr> roots, std::optional<Error>* first) {
  if (roots.empty()) return;
  try {
    sync_nodes(roots);
    return;
  } catch (const Error& e) {
    if (roots.size() == 1) {
      g_failed[roots[0].get()] = roots[0];
      counters::failed_tensors.add();
      if (!*first) *first = e;
      return;
    }
  }
  size_t half = roots.size() / 2;
  sync_isolating(roots.subspan(0, half), first);
  sync_isolating(roots.subspan(half), first);  // those realised meanwhile are skipped
}

// `leading`: these roots first, in the order given (sync_step()).
static void sync_everything(bool raise, absl::Span<const NodePtr> leading = {}) {
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  std::optional<KeepFailedWrites> keep;
  if (!raise) keep.emplace();
  std::vector<NodePtr> roots;
  absl::flat_hash_set<const Node*> listed;
  for (const NodePtr& n : leading)
    if (n->is_pending() && !failed_before(n) && listed.insert(n.get()).second) roots.push_back(n);
  for (NodePtr& n : live_pending_nodes(/*skip_failed=*/true))
    if (listed.insert(n.get()).second) roots.push_back(std::move(n));
  std::optional<Error> first;
  sync_isolating(roots, &first);
  if (first && raise) throw Error(*first);
}

void maybe_auto_sync() {
  int64_t pending = counters::nodes_live.get() - g_live_at_last_sync.load(std::memory_order_relaxed);
  if (pending < g_threshold.load(std::memory_order_relaxed) || t_in_auto_sync) return;
  t_in_auto_sync = true;
  try {
    counters::auto_syncs.add();
    // Never raises another tensor's error into the op that crossed the
    // threshold: a failing tensor is marked and raises when it is synced.
    sync_everything(/*raise=*/false);
  } catch (...) {
    t_in_auto_sync = false;
    throw;
  }
  t_in_auto_sync = false;
  g_live_at_last_sync.store(counters::nodes_live.get(), std::memory_order_relaxed);
}

Backend& current_backend() {
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  if (!g_backend) {
    const char* env = std::getenv("LT_BACKEND");
    g_backend_name = env ? env : "";
    g_backend = &resolve_backend(g_backend_name);
  }
  return *g_backend;
}

void set_backend(const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(sync_mutex());
  g_backend = &resolve_backend(name);
  g_backend_name = name;
}

std::string backend_name() { return std::string(current_backend().name()); }

void set_dump_dir(const std::string& dir) {
  DumpState& st = dump_state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (dir != st.dir) st.written.clear();
  st.dir = dir;
  st.on = !dir.empty();
}

std::string dump_dir() {
  DumpState& st = dump_state();
  std::lock_guard<std::mutex> lock(st.mu);
  return st.dir;
}

}  // namespace runtime

void sync(absl::Span<const Tensor> tensors) {
  std::vector<NodePtr> nodes;
  for (const Tensor& t : tensors)
    if (t.defined()) nodes.push_back(t.node());
  runtime::sync_nodes(nodes);
}

void sync() { runtime::sync_everything(/*raise=*/true); }
void sync_step(absl::Span<const Tensor> own) {
  std::vector<NodePtr> nodes;
  for (const Tensor& t : own)
    if (t.defined()) nodes.push_back(t.node());
  runtime::sync_everything(/*raise=*/false, nodes);
  runtime::sync_nodes(nodes);  // a failed one of `own` computes again, and raises
}

void set_sync_threshold(int64_t nodes) { runtime::g_threshold.store(nodes); }
int64_t sync_threshold() { return runtime::g_threshold.load(); }
int64_t pending_tensor_count() { return static_cast<int64_t>(runtime::live_pending_nodes().size()); }

}  // namespace lt
