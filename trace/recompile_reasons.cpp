// trace/recompile_reasons.cpp — structure signatures, trace diffs and the
// log of recent recompile reasons (design: recompile_reasons.h).
#include "trace/recompile_reasons.h"

#include <algorithm>
#include <limits>

#include "absl/types/span.h"
#include "ir/error.h"
#include "ir/ops.h"
#include "ir/shape.h"

namespace lt {

namespace counters {
Counter trace_cache_recompiles("trace_cache_recompiles");
}

namespace {

std::mutex& log_mutex() {
  static std::mutex* m = new std::mutex();
  return *m;
}
std::deque<std::string>& log() {
  static auto* l = new std::deque<std::string>();
  return *l;
}

void append_reason(const std::string& reason) {
  std::lock_guard<std::mutex> lock(log_mutex());
  log().push_back(reason);
  while (log().size() > kRecompileReasonsKept) log().pop_front();
}

// A remembered node, or a trace node seen the same way.
struct NodeView {
  Op op;
  DType dtype;
  absl::Span<const int64_t> dims;
  absl::Span<const int64_t> attrs;
};

constexpr uint64_t kMaxNdim = 0xFFFF, kMaxAttrs = 0xFFFFFF;

uint64_t header(Op op, DType dtype, size_t ndim, size_t nattrs) {
  return static_cast<uint64_t>(op) | static_cast<uint64_t>(dtype) << 16 | static_cast<uint64_t>(ndim) << 24 |
         static_cast<uint64_t>(nattrs) << 40;
}

NodeView view_of(const std::vector<int64_t>& words, uint32_t start) {
  auto h = static_cast<uint64_t>(words[start]);
  size_t ndim = (h >> 24) & kMaxNdim, nattrs = (h >> 40) & kMaxAttrs;
  const int64_t* p = words.data() + start + 1;
  return {static_cast<Op>(h & 0xFFFF), static_cast<DType>((h >> 16) & 0xFF), absl::MakeConstSpan(p, ndim),
          absl::MakeConstSpan(p + ndim, nattrs)};
}

NodeView view_of(const TraceNode& n) { return {n.op, n.dtype, n.shape, n.attrs}; }

std::string label(int32_t index, const TraceNode& n) {
  if (n.op == Op::Input) return cat("input ", n.param);
  if (n.op == Op::Scalar) return cat("scalar ", n.param);
  return cat("node ", index, " (", op_name(n.op), ")");
}

std::string typed_shape(DType dtype, absl::Span<const int64_t> dims) { return cat(dtype_name(dtype), shape_str(dims)); }

// What differs in node `index` (`now`) from the remembered `was`: dtype, then
// shape, then attributes, the parts joined by ", ".
// What differs in node `index` (`now`) from the remembered `was`. A node
// whose attributes changed (a reduction axis, a slice start) is described by
// them alone: its shape follows from them.
std::string describe(int32_t index, const TraceNode& node, const NodeView& was) {
  NodeView now = view_of(node);
  std::string what = label(index, node);
  std::vector<std::string> parts;
  bool attrs_differ = !std::equal(now.attrs.begin(), now.attrs.end(), was.attrs.begin(), was.attrs.end());
  if (attrs_differ) {
    std::vector<size_t> attrs;
    if (now.attrs.size() == was.attrs.size())
      for (size_t a = 0; a < now.attrs.size(); ++a)
        if (now.attrs[a] != was.attrs[a]) attrs.push_back(a);
    if (attrs.size() == 1)
      parts.push_back(cat(what, " attribute ", attrs[0], " was ", was.attrs[attrs[0]], ", now ", now.attrs[attrs[0]]));
    else
      parts.push_back(cat(what, " attributes were ", shape_str(was.attrs), ", now ", shape_str(now.attrs)));
  }
  if (now.dtype != was.dtype)
    parts.push_back(cat("dtype of ", what, " was ", dtype_name(was.dtype), ", now ", dtype_name(now.dtype)));
  if (!attrs_differ && !std::equal(now.dims.begin(), now.dims.end(), was.dims.begin(), was.dims.end())) {
    std::vector<size_t> dims;
    if (now.dims.size() == was.dims.size())
      for (size_t d = 0; d < now.dims.size(); ++d)
        if (now.dims[d] != was.dims[d]) dims.push_back(d);
    if (dims.size() == 1)
      parts.push_back(cat(what, " dim ", dims[0], " was ", was.dims[dims[0]], ", now ", now.dims[dims[0]], " (",
                          typed_shape(now.dtype, now.dims), ")"));
    else
      parts.push_back(
          cat(what, " shape was ", typed_shape(was.dtype, was.dims), ", now ", typed_shape(now.dtype, now.dims)));
  }
  std::string out;
  for (const std::string& p : parts) out += out.empty() ? p : ", " + p;
  return out;
}

bool same_values(const NodeView& a, const NodeView& b) {
  return a.dtype == b.dtype && std::equal(a.dims.begin(), a.dims.end(), b.dims.begin(), b.dims.end()) &&
         std::equal(a.attrs.begin(), a.attrs.end(), b.attrs.begin(), b.attrs.end());
}

constexpr size_t kDescribed = 2;  // root differences spelled out in one reason

struct Comparison {
  bool comparable = true;       ///< false on a signature collision (the ops differ)
  size_t roots = 0;             ///< nodes that differ although none of their inputs do
  size_t changed = 0;           ///< nodes that differ or have an input that does
  std::vector<uint32_t> shown;  ///< the root differences to describe, most telling first
};

// Which root differences a reason names first: the program's inputs (what a
// user changes), then computed nodes (a changed attribute or reshape), then
// scalars. A scalar takes its dtype from the op it feeds, so a scalar's
// difference counts only when nothing else differs at its root.
int rank_of(Op op) { return op == Op::Input ? 0 : op == Op::Scalar ? 2 : 1; }

}  // namespace

std::vector<std::string> recompile_reasons() {
  std::lock_guard<std::mutex> lock(log_mutex());
  return {log().begin(), log().end()};
}

void clear_recompile_reasons() {
  std::lock_guard<std::mutex> lock(log_mutex());
  log().clear();
}

Hash128 structure_signature(const Trace& trace) {
  StableHasher h;
  for (const TraceNode& n : trace.nodes) {
    h.add(static_cast<uint64_t>(n.op) << 32 | static_cast<uint64_t>(n.inputs.size()));
    for (int32_t in : n.inputs) h.add(static_cast<uint64_t>(static_cast<uint32_t>(in)));
    if (n.op == Op::Input || n.op == Op::Scalar) h.add(static_cast<uint64_t>(static_cast<int64_t>(n.param)));
  }
  h.add(~uint64_t{0}).add(trace.outputs.size());
  for (int32_t o : trace.outputs) h.add(static_cast<uint64_t>(o));
  return h.finish();
}

namespace {

Comparison compare(const Trace& trace, const std::vector<uint32_t>& starts, const std::vector<int64_t>& words) {
  Comparison c;
  size_t n = std::min(trace.nodes.size(), starts.size());
  std::vector<char> changed(n, 0);
  std::vector<uint32_t> by_rank[3];
  size_t scalar_roots = 0;
  for (size_t i = 0; i < n; ++i) {
    const TraceNode& node = trace.nodes[i];
    NodeView was = view_of(words, starts[i]);
    if (was.op != node.op) {
      c.comparable = false;
      return c;
    }
    bool differs = !same_values(view_of(node), was);
    bool inherited = std::any_of(node.inputs.begin(), node.inputs.end(),
                                 [&](int32_t in) { return in >= 0 && static_cast<size_t>(in) < i && changed[in]; });
    changed[i] = differs || inherited;
    c.changed += changed[i];
    if (!differs || inherited) continue;
    int rank = rank_of(node.op);
    ++(rank == 2 ? scalar_roots : c.roots);
    if (by_rank[rank].size() < kDescribed) by_rank[rank].push_back(static_cast<uint32_t>(i));
  }
  if (c.roots == 0)
    c.roots = scalar_roots;
  else
    by_rank[2].clear();
  for (const std::vector<uint32_t>& r : by_rank)
    for (uint32_t i : r)
      if (c.shown.size() < kDescribed) c.shown.push_back(i);
  return c;
}

}  // namespace

std::string RecompileExplainer::explain_miss(const Trace& trace, std::string_view policy) {
  Hash128 signature = structure_signature(trace);
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Remembered* nearest = nullptr;
    Comparison best;
    if (auto it = by_signature_.find(signature); it != by_signature_.end()) {
      for (auto r = it->second.rbegin(); r != it->second.rend(); ++r) {  // newest first: it wins ties
        if (r->num_nodes != trace.nodes.size()) continue;
        Comparison c = compare(trace, r->starts, r->words);
        if (!c.comparable) continue;
        c.roots += r->policy != policy;
        if (!nearest || c.roots < best.roots || (c.roots == best.roots && c.changed < best.changed)) {
          nearest = &*r;
          best = std::move(c);
        }
      }
    }
    if (!nearest) {
      reason = cat("new program (", trace.nodes.size(), " nodes", structure_hint(trace), ")");
    } else {
      counters::trace_cache_recompiles.add();
      std::vector<std::string> parts;
      if (nearest->policy != policy) parts.push_back(cat("fusion policy was ", nearest->policy, ", now ", policy));
      for (uint32_t i : best.shown)
        parts.push_back(describe(static_cast<int32_t>(i), trace.nodes[i], view_of(nearest->words, nearest->starts[i])));
      reason = "recompile: ";
      if (parts.empty() && nearest->starts.size() < nearest->num_nodes) {
        reason += cat("differs after node ", nearest->starts.size(), " of ", trace.nodes.size(),
                      " (only the first nodes of a trace are kept for recompile reasons)");
      } else if (parts.empty()) {
        reason +=
            cat("same trace as one compiled before (", trace.nodes.size(),
                " nodes): evicted from the trace cache since (LT_TRACE_CACHE_MAX), or compiling on another thread");
      } else {
        for (size_t i = 0; i < parts.size(); ++i) reason += (i ? "; " : "") + parts[i];
        if (best.roots > parts.size()) reason += cat("; and ", best.roots - parts.size(), " more");
      }
    }
    remember(signature, trace, policy);
  }
  append_reason(reason);
  return reason;
}

// The remembered traces compared with a new program; the newest are the
// likeliest relatives (a loop unrolled one step further than the last sync).
constexpr size_t kStructureCandidates = 8;

std::string RecompileExplainer::structure_hint(const Trace& trace) const {
  std::vector<const Remembered*> newest;
  for (const auto& [signature, traces] : by_signature_)
    for (const Remembered& r : traces) newest.push_back(&r);
  size_t k = std::min(newest.size(), kStructureCandidates);
  std::partial_sort(newest.begin(), newest.begin() + static_cast<std::ptrdiff_t>(k), newest.end(),
                    [](const Remembered* a, const Remembered* b) { return a->seq > b->seq; });
  const Remembered* best = nullptr;
  size_t best_prefix = 0;
  for (size_t c = 0; c < k; ++c) {
    const Remembered& r = *newest[c];
    size_t n = std::min(trace.nodes.size(), r.starts.size()), prefix = 0;
    while (prefix < n && view_of(r.words, r.starts[prefix]).op == trace.nodes[prefix].op) ++prefix;
    if (prefix > best_prefix) best = &r, best_prefix = prefix;
  }
  // A relative shares at least half of the shorter op sequence (and more than its first input).
  if (!best || best_prefix < 2 || 2 * best_prefix < std::min(trace.nodes.size(), best->num_nodes)) return "";
  size_t n = trace.nodes.size(), m = best->num_nodes;
  std::string shares = cat(" than the nearest cached trace, whose first ", best_prefix, " ops it shares");
  if (n != m) {
    size_t d = n > m ? n - m : m - n;
    return cat("; ", d, n > m ? " more node" : " fewer node", d == 1 ? "" : "s", shares);
  }
  if (best_prefix < n && best_prefix < best->starts.size())
    return cat("; node ", best_prefix, " is ", op_name(trace.nodes[best_prefix].op),
               " where the nearest cached trace has ", op_name(view_of(best->words, best->starts[best_prefix]).op));
  return "; the nearest cached trace has the same ops, wired differently";
}

void RecompileExplainer::remember(const Hash128& signature, const Trace& trace, std::string_view policy) {
  Remembered r{std::string(policy), ++seq_, trace.nodes.size(), {}, {}};
  for (const TraceNode& n : trace.nodes) {
    size_t need = 1 + n.shape.size() + n.attrs.size();
    if (r.words.size() + need > kWordsPerTrace || n.shape.size() > kMaxNdim || n.attrs.size() > kMaxAttrs) break;
    r.starts.push_back(static_cast<uint32_t>(r.words.size()));
    r.words.push_back(static_cast<int64_t>(header(n.op, n.dtype, n.shape.size(), n.attrs.size())));
    r.words.insert(r.words.end(), n.shape.begin(), n.shape.end());
    r.words.insert(r.words.end(), n.attrs.begin(), n.attrs.end());
  }
  r.words.shrink_to_fit();
  r.starts.shrink_to_fit();
  std::deque<Remembered>& same = by_signature_[signature];
  words_ += r.words.size();
  ++traces_;
  same.push_back(std::move(r));
  if (same.size() > kTracesPerSignature) {
    words_ -= same.front().words.size();
    --traces_;
    same.pop_front();
  }
  while (traces_ > 1 && (words_ > kWordBudget || traces_ > kMaxTraces)) drop_oldest();
}

// Linear in the traces remembered (at most kMaxTraces), on a miss only.
void RecompileExplainer::drop_oldest() {
  auto oldest = by_signature_.end();
  uint64_t seq = std::numeric_limits<uint64_t>::max();
  for (auto it = by_signature_.begin(); it != by_signature_.end(); ++it)
    if (!it->second.empty() && it->second.front().seq < seq) seq = it->second.front().seq, oldest = it;
  if (oldest == by_signature_.end()) return;
  words_ -= oldest->second.front().words.size();
  --traces_;
  oldest->second.pop_front();
  if (oldest->second.empty()) by_signature_.erase(oldest);
}

void RecompileExplainer::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  by_signature_.clear();
  words_ = traces_ = 0;
}

}  // namespace lt
