// scheduler/simplify.cpp — trace-level simplification before partitioning.
//
// What is removed here never reaches a kernel: identities (detach, casts to
// the same dtype, no-op views), chains of reshapes and permutes (collapsed into
// one), duplicate subexpressions (CSE by structure; scalars and inputs stay
// distinct by parameter slot) and nodes no output needs. Values of scalars are
// runtime parameters, so nothing is folded through them.
// Rewrites: x.gather(axis, x.argmax(axis)) is x.amax(axis) (below), and
// the transpose of a matmul nothing else reads, (AB)^T, is the
// matmul B^T A^T (the same dot products; also through a cast between them), so the product is stored in the
// layout its reader wants: autograd's weight gradient of x @ W.t() is
// (x^T g)^T, and the optimizer then read it transposed (16 GB/s instead of
// a contiguous stream).
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
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

// CSE by structure: nodes equal in op, dtype, shape, attrs, inputs and
// parameter slot. The set holds indices into the output trace and hashes the
// node itself, so a lookup builds no key (a per-node string key was most of
// simplify's time and memory at 100k nodes).
bool same_node(const TraceNode& a, const TraceNode& b) {
  return a.op == b.op && a.dtype == b.dtype && a.param == b.param && a.shape == b.shape && a.attrs == b.attrs &&
         a.inputs == b.inputs;
}

size_t node_hash(const TraceNode& n) {
  return absl::HashOf(static_cast<int>(n.op), static_cast<int>(n.dtype), n.param, absl::MakeSpan(n.shape),
                      absl::MakeSpan(n.attrs), absl::MakeSpan(n.inputs));
}

struct CseSet {
  const std::vector<TraceNode>* nodes;
  struct Hash {
    using is_transparent = void;
    const std::vector<TraceNode>* nodes;
    size_t operator()(int32_t id) const { return node_hash((*nodes)[id]); }
    size_t operator()(const TraceNode* n) const { return node_hash(*n); }
  };
  struct Eq {
    using is_transparent = void;
    const std::vector<TraceNode>* nodes;
    const TraceNode& at(int32_t id) const { return (*nodes)[id]; }
    const TraceNode& at(const TraceNode* n) const { return *n; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return same_node(at(a), at(b));
    }
  };
};

// Keeps only nodes reachable from the outputs, renumbered in order. When
// every node is live (the common case: capture keeps only what the roots
// need) the trace is moved through unchanged.
Trace compact(Trace t) {
  std::vector<char> live(t.nodes.size(), 0);
  for (int32_t o : t.outputs) live[o] = 1;
  size_t alive = 0;
  for (size_t i = t.nodes.size(); i-- > 0;)
    if (live[i]) {
      ++alive;
      for (int32_t in : t.nodes[i].inputs) live[in] = 1;
    }
  if (alive == t.nodes.size()) return t;
  std::vector<int32_t> map(t.nodes.size(), -1);
  std::vector<TraceNode> nodes;
  nodes.reserve(alive);
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    if (!live[i]) continue;
    TraceNode& n = t.nodes[i];
    for (int32_t& in : n.inputs) in = map[in];
    map[i] = static_cast<int32_t>(nodes.size());
    nodes.push_back(std::move(n));
  }
  t.nodes = std::move(nodes);
  for (int32_t& o : t.outputs) o = map[o];
  return t;
}

}  // namespace

static bool swaps_last_two(const Attrs& perm) {
  size_t r = perm.size();
  if (r < 2 || perm[r - 2] != static_cast<int64_t>(r - 1) || perm[r - 1] != static_cast<int64_t>(r - 2)) return false;
  for (size_t j = 0; j + 2 < r; ++j)
    if (perm[j] != static_cast<int64_t>(j)) return false;
  return true;
}

Trace simplify_trace(const Trace& trace) {
  Trace in = compact(trace);
  Trace out;
  out.params = std::move(in.params);
  out.scalars = std::move(in.scalars);
  out.hash = in.hash;
  out.nodes.reserve(in.nodes.size());
  std::vector<int32_t> map(in.nodes.size(), -1);
  absl::flat_hash_set<int32_t, CseSet::Hash, CseSet::Eq> seen(in.nodes.size(), CseSet::Hash{&out.nodes},
                                                               CseSet::Eq{&out.nodes});
  std::vector<int32_t> uses(in.nodes.size(), 0);
  std::vector<int32_t> first_input_of(in.nodes.size(), -1);  // read before the nodes are moved out
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    const TraceNode& node = in.nodes[i];
    for (int32_t x : node.inputs) ++uses[x];
    if (!node.inputs.empty()) first_input_of[i] = node.inputs[0];
  }
  for (int32_t o : in.outputs) ++uses[o];
  auto append = [&](TraceNode n) {
    if (auto it = seen.find(&n); it != seen.end()) return *it;
    int32_t id = static_cast<int32_t>(out.nodes.size());
    out.nodes.push_back(std::move(n));
    seen.insert(id);
    return id;
  };
  // A node into `out`: an identity is its input, view chains collapse
  // (reshape(reshape(x)) = reshape(x); permute(permute(x)) = one permute),
  // duplicates are CSE'd. Returns its index in `out`.
  auto place = [&](TraceNode n) -> int32_t {
    if (is_identity(n, out)) return n.inputs[0];
    if (!n.inputs.empty()) {
      const TraceNode& src = out.nodes[n.inputs[0]];
      if (n.op == Op::Reshape && src.op == Op::Reshape) {
        n.inputs[0] = src.inputs[0];
        if (out.nodes[n.inputs[0]].shape == n.shape) return n.inputs[0];
      } else if (n.op == Op::Permute && src.op == Op::Permute) {
        Attrs composed(n.attrs.size());
        for (size_t j = 0; j < n.attrs.size(); ++j) composed[j] = src.attrs[n.attrs[j]];
        n.attrs = composed;
        n.inputs[0] = src.inputs[0];
        if (is_identity(n, out)) return n.inputs[0];
      }
    }
    return append(std::move(n));
  };
  // x with its last two dims swapped.
  auto transposed = [&](int32_t x) {
    const TraceNode& src = out.nodes[x];
    TraceNode p;
    p.op = Op::Permute;
    p.dtype = src.dtype;
    p.shape = src.shape;
    std::swap(p.shape[p.shape.size() - 2], p.shape[p.shape.size() - 1]);
    for (size_t j = 0; j < src.shape.size(); ++j) p.attrs.push_back(static_cast<int64_t>(j));
    std::swap(p.attrs[p.attrs.size() - 2], p.attrs[p.attrs.size() - 1]);
    p.inputs = {x};
    return place(std::move(p));
  };
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    const int32_t first_input = in.nodes[i].inputs.empty() ? -1 : in.nodes[i].inputs[0];
    // Each node is read once, in order; only an earlier node's op (an enum,
    // which a move leaves as it was) is looked at after that.
    TraceNode n = std::move(in.nodes[i]);
    for (int32_t& x : n.inputs) x = map[x];
    if (n.op == Op::Permute && swaps_last_two(n.attrs) && in.nodes[first_input].op == Op::MatMul &&
        uses[first_input] == 1) {
      const TraceNode& mm = out.nodes[n.inputs[0]];
      int32_t a = mm.inputs[0], b = mm.inputs[1];
      TraceNode r = mm;
      r.shape = n.shape;
      r.inputs = {transposed(b), transposed(a)};
      map[i] = append(std::move(r));
      continue;
    }
    // The same through a cast, (cast(AB))^T = cast(B^T A^T): under autocast
    // the weight gradient is a bfloat16 product cast back to the weight's
    // float32 (the optimizer read it transposed at 18 GB/s instead of 70).
    if (n.op == Op::Permute && swaps_last_two(n.attrs) && in.nodes[first_input].op == Op::Cast &&
        uses[first_input] == 1) {
      const int32_t mm_in = first_input_of[first_input];
      if (mm_in >= 0 && in.nodes[mm_in].op == Op::MatMul && uses[mm_in] == 1 && map[mm_in] != n.inputs[0]) {
        TraceNode c = out.nodes[n.inputs[0]];
        const TraceNode& mm = out.nodes[map[mm_in]];
        int32_t a = mm.inputs[0], b = mm.inputs[1];
        TraceNode r = mm;
        r.shape = n.shape;
        r.inputs = {transposed(b), transposed(a)};
        c.shape = n.shape;
        c.inputs = {append(std::move(r))};
        map[i] = place(std::move(c));
        continue;
      }
    }
    // x.gather(axis, x.argmax(axis, keepdim)) is x.amax(axis, keepdim): the
    // value at the first maximum (a max pool's values, bindings'
    // _functional_pooling.py), computed beside the argmax from the same
    // reads instead of gathered by a kernel of its own. The first of equal
    // values and the first NaN, as ArgMax takes them; the index is in
    // range, so the gather's check has nothing to report. The same for min.
    if (n.op == Op::Gather && n.inputs.size() == 2 && !n.attrs.empty()) {
      const TraceNode& arg = out.nodes[n.inputs[1]];
      if ((arg.op == Op::ArgMax || arg.op == Op::ArgMin) && arg.inputs.size() == 1 && arg.inputs[0] == n.inputs[0] &&
          arg.attrs.size() == 1 && arg.attrs[0] == n.attrs[0] && arg.shape == n.shape &&
          out.nodes[n.inputs[0]].dtype == n.dtype) {
        TraceNode r;
        r.op = arg.op == Op::ArgMax ? Op::ReduceMax : Op::ReduceMin;
        r.dtype = n.dtype;
        r.shape = n.shape;
        r.attrs = {n.attrs[0]};
        r.inputs = {n.inputs[0]};
        map[i] = place(std::move(r));
        continue;
      }
    }
    map[i] = place(std::move(n));
  }
  for (int32_t o : in.outputs) out.outputs.push_back(map[o]);
  return compact(std::move(out));
}

}  // namespace lt
