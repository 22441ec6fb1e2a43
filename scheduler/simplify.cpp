// scheduler/simplify.cpp — trace-level simplification before partitioning.
//
// What is removed here never reaches a kernel: identities (detach, casts to
// the same dtype, no-op views), chains of reshapes and permutes (collapsed into
// one), duplicate subexpressions (CSE by structure; scalars and inputs stay
// distinct by parameter slot) and nodes no output needs. Values of scalars are
// runtime parameters, so nothing is folded through them.
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/error.h"
#include "scheduler/plan.h"

namespace lt {
namespace {

bool is_identity(const TraceNode& n, const Trace& t) {
  if (n.inputs.empty()) return false;
  const TraceNode& in = t.nodes[n.inputs[0]];
  switch (n.op) {
    case Op::Detach: return true;
    case Op::Cast: return in.dtype == n.dtype;
    case Op::Reshape:
    case Op::Expand: return in.shape == n.shape;
    case Op::Permute:
      for (size_t i = 0; i < n.attrs.size(); ++i)
        if (n.attrs[i] != static_cast<int64_t>(i)) return false;
      return true;
    case Op::Slice:
      if (in.shape != n.shape) return false;
      for (size_t i = 0; i < n.attrs.size(); i += 2)
        if (n.attrs[i] != 0 || (n.attrs[i + 1] != 1 && n.shape[i / 2] > 1)) return false;
      return true;
    case Op::Pad:
      for (int64_t a : n.attrs)
        if (a != 0) return false;
      return true;
    case Op::Flip: return n.attrs.empty();
    case Op::ReduceSum:
    case Op::ReduceProd:
    case Op::ReduceMax:
    case Op::ReduceMin: return n.attrs.empty() && n.dtype == in.dtype;
    default: return false;
  }
}

std::string cse_key(const TraceNode& n) {
  std::string k;
  auto put = [&](int64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(static_cast<int64_t>(n.op));
  put(static_cast<int64_t>(n.dtype));
  put(static_cast<int64_t>(n.shape.size()));
  for (int64_t d : n.shape) put(d);
  put(static_cast<int64_t>(n.attrs.size()));
  for (int64_t a : n.attrs) put(a);
  for (int32_t i : n.inputs) put(i);
  put(n.param);
  return k;
}

// Keeps only nodes reachable from the outputs, renumbered in order.
Trace compact(const Trace& t) {
  std::vector<char> live(t.nodes.size(), 0);
  for (int32_t o : t.outputs) live[o] = 1;
  for (size_t i = t.nodes.size(); i-- > 0;)
    if (live[i])
      for (int32_t in : t.nodes[i].inputs) live[in] = 1;
  Trace out;
  out.params = t.params;
  out.scalars = t.scalars;
  out.hash = t.hash;
  std::vector<int32_t> map(t.nodes.size(), -1);
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    if (!live[i]) continue;
    TraceNode n = t.nodes[i];
    for (int32_t& in : n.inputs) in = map[in];
    map[i] = static_cast<int32_t>(out.nodes.size());
    out.nodes.push_back(std::move(n));
  }
  for (int32_t o : t.outputs) out.outputs.push_back(map[o]);
  return out;
}

}  // namespace

Trace simplify_trace(const Trace& trace) {
  Trace in = compact(trace);
  Trace out;
  out.params = in.params;
  out.scalars = in.scalars;
  out.hash = in.hash;
  std::vector<int32_t> map(in.nodes.size(), -1);
  absl::flat_hash_map<std::string, int32_t> seen;
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    TraceNode n = in.nodes[i];
    for (int32_t& x : n.inputs) x = map[x];
    if (is_identity(n, out)) {
      map[i] = n.inputs[0];
      continue;
    }
    // Collapse view chains: reshape(reshape(x)) = reshape(x); permute(permute(x)) = one permute.
    if (!n.inputs.empty()) {
      const TraceNode& src = out.nodes[n.inputs[0]];
      if (n.op == Op::Reshape && src.op == Op::Reshape) {
        n.inputs[0] = src.inputs[0];
        if (out.nodes[n.inputs[0]].shape == n.shape) {
          map[i] = n.inputs[0];
          continue;
        }
      } else if (n.op == Op::Permute && src.op == Op::Permute) {
        Attrs composed(n.attrs.size());
        for (size_t j = 0; j < n.attrs.size(); ++j) composed[j] = src.attrs[n.attrs[j]];
        n.attrs = composed;
        n.inputs[0] = src.inputs[0];
        if (is_identity(n, out)) {
          map[i] = n.inputs[0];
          continue;
        }
      }
    }
    std::string key = cse_key(n);
    auto it = seen.find(key);
    if (it != seen.end()) {
      map[i] = it->second;
      continue;
    }
    int32_t id = static_cast<int32_t>(out.nodes.size());
    out.nodes.push_back(std::move(n));
    seen.emplace(std::move(key), id);
    map[i] = id;
  }
  for (int32_t o : in.outputs) out.outputs.push_back(map[o]);
  return compact(out);
}

}  // namespace lt
