// scheduler/schedule.cpp — partitioning a trace into fused kernels.
//
// Design (the one place it is written down):
// - A node is either materialised (it gets a buffer and a kernel computes it)
//   or inlined into every kernel that uses it. Materialised: trace outputs,
//   inputs, matmul / cumsum / scatter_add (they need their own loop shape),
//   matmul operands' computed bases, whatever the fusion policy asks for, and
//   whatever emission discovers it cannot inline (a reduction used in another
//   loop domain). Discovery restarts planning with the node added, so the
//   rules stay local and the loop ends (each restart adds a node).
// - Emitting node n "at coordinates c" (i64 expressions, one per dim of n)
//   inlines it: elementwise ops emit their inputs at c, movement ops rewrite c
//   (reshape unravels, permute reorders, expand pins to 0, slice scales and
//   offsets, flip mirrors, pad clamps and masks) and a materialised node is a
//   load at the row-major offset of c. Views never copy.
// - A reduction is inlined as a per-row value when the kernel's loop domain is
//   the reduction's (kept dims outer, reduced dims inner) and the consumer
//   reads it at the row's own coordinates. A root that only depends on rows
//   (sum -> reshape -> root) adopts the reduction's domain and stores per row.
// - After planning, a node inlined into several kernels, or several times
//   into one kernel at different coordinates, is materialised when the policy
//   says recomputing it costs more than storing it.
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/conv.h"
#include "ir/error.h"
#include "scheduler/kernel_builder.h"
#include "scheduler/plan.h"

namespace lt {
namespace {

/// Deepest inlined expression a kernel computes (in trace nodes); see bound_fused_depth.
constexpr int32_t kMaxFusedDepth = 512;
/// Largest inlined expression tree a kernel computes (trace nodes, a shared
/// subexpression counted once per path to it); see bound_fused_depth.
constexpr int64_t kMaxFusedTree = 4096;
constexpr int64_t kCostCap = int64_t{1} << 40;
/// A sibling kernel stores at most this many outputs: a sync of n live
/// tensors of one shape (the pieces of a list about to be concatenated) is
/// n/16 kernels of one structure, compiled once, not one kernel whose code
/// grows with n.
constexpr size_t kMaxSiblings = 16;
/// A concat of more pieces than this is stored piece by piece (build_concat_pieces);
/// up to it (a 5x5 im2col's 25 taps) the select chain in one kernel is cheaper
/// than a launch per piece.
constexpr size_t kConcatInlinePieces = 32;

struct NeedMaterialize {
  int32_t node;
};
struct DomainMismatch {  // a reduction whose loop domain differs from the kernel's
  int32_t node;
};
struct AbortAttempt {};
struct Regroup {  // these outputs cannot share a sibling kernel: build them alone
  std::vector<int32_t> nodes;
};

using Coords = absl::InlinedVector<int32_t, 6>;

struct Ctx {
  Kernel k;
  KernelBuilder kb{&k};
  int32_t root = -1;
  Shape logical;             ///< logical loop domain
  Coords lc;                 ///< coordinate expression of each logical axis
  int32_t outer_rank = -1;   ///< -1: no reduction inlined yet (elementwise)
  bool fixed = false;        ///< outer_rank may not change (second attempts)
  absl::flat_hash_map<int32_t, int32_t> buffer_of, scalar_of;
  absl::flat_hash_map<int64_t, int32_t> index_arg_of;  ///< index argument value -> kernel scalar slot
  absl::flat_hash_map<std::pair<int32_t, std::vector<int32_t>>, int32_t> memo;
  absl::flat_hash_map<int32_t, int> inlined;  ///< node -> times emitted (at distinct coordinates)
  int32_t epi_mm = -1;   ///< MatMul kernels: the matmul node whose product this kernel computes
  int32_t acc_buf = -1;  ///< MatMul kernels: kernel buffer of the virtual product (Kernel::mm_acc)
  Coords epi_co;         ///< MatMul kernels: coordinates of the product's element in epi_mm's own shape
  const absl::flat_hash_set<int32_t>* siblings = nullptr;  ///< sibling kernels: the outputs it stores
  Coords sibling_at;  ///< sibling kernels: the coordinates they are stored at
};

class Scheduler {
 public:
  Scheduler(const Trace& t, const FusionPolicy& p)
      : t_(t), policy_(p), mat_(t.nodes.size(), 0), alone_(t.nodes.size(), 0) {}
  Plan run();

 private:
  /// Builds every kernel; false when a kernel found nodes it cannot inline
  /// (they are marked; plan again). Every unit is tried, so one pass finds
  /// all such nodes of a long trace, not one per pass.
  bool build_all();
  void materialize_needed(int32_t node);
  void build_kernels_for(int32_t node);
  void build_elementwise(const std::vector<int32_t>& members);
  void build_concat_pieces(int32_t node);
  void push_kernel(Kernel k, int32_t root, size_t outputs = 1);
  Shape rows_domain(int32_t red, int32_t* outer_rank);
  std::vector<std::vector<int32_t>> sibling_units();
  void finish(Ctx& c);
  int32_t buffer_for_node(int32_t node);
  int32_t kbuf(Ctx& c, int32_t plan_buffer, bool written);
  int32_t emit(Ctx& c, int32_t node, const Coords& coords);
  int32_t emit_uncached(Ctx& c, int32_t node, const Coords& coords);
  bool note_inlined(int32_t node);
  std::pair<int64_t, bool> measure_now(int32_t node);
  std::vector<int32_t> inner_reductions(int32_t node);
  int32_t index_arg(Ctx& c, int64_t value, int64_t max);
  Coords unravel(Ctx& c, int32_t linear, absl::Span<const int64_t> shape);
  Coords map_view(Ctx& c, const TraceNode& n, const Coords& coords);
  using Body = std::function<void(Ctx&)>;
  Kernel make(int32_t root, const Shape& domain, int32_t outer_rank, bool collapse, const Body& body);
  Ctx attempt(int32_t root, const Shape& domain, int32_t outer_rank, bool fixed, bool collapse, const Body& body);
  void assign_temp_slots();
  Kernel matmul_kernel(int32_t root, int32_t mm, bool fold);
  void conv_operands(Ctx& c, const TraceNode& n, const ConvGeometry& g);
  int32_t guarded(Ctx& c, int32_t node, const Coords& co, int32_t valid);
  StridedSource strided_source(Ctx& c, int32_t node);
  void push_matmul(int32_t root, int32_t mm);
  int32_t epilogue_candidate(int32_t root);
  int32_t matmul_chain_end(int32_t mm);
  void bound_fused_depth();

  const Trace& t_;
  const FusionPolicy& policy_;
  std::vector<char> mat_;
  std::vector<char> alone_;  ///< outputs never put in a sibling kernel (Regroup)
  std::vector<int32_t> node_buffer_;
  Plan plan_;
  std::vector<absl::flat_hash_map<int32_t, int>> inlined_per_kernel_;
  std::vector<std::vector<int32_t>> consumers_;
  // Per planning pass: arithmetic per element of each node's inlined
  // expression (for the sharing decision), whether it holds a reduction or a
  // gather, and how many kernels built so far inline it (see note_inlined).
  std::vector<int64_t> cost_;
  std::vector<char> has_red_, has_gather_, has_matmul_;
  std::vector<int32_t> kernels_inlining_;
  std::vector<int32_t> stored_while_emitting_;  ///< by note_inlined, this pass
};

// Div/mod ops the kernel's effects depend on. Dead ones do not count: the
// collapsed attempt unravels every coordinate first, and when all accesses
// fold back to the linear index those unravelling ops are left unused.
int64_t count_divmod(const Kernel& k) {
  std::vector<char> live(k.ops.size(), 0);
  int64_t n = 0;
  for (size_t i = k.ops.size(); i-- > 0;) {
    const KOp& o = k.ops[i];
    if (!live[i] && !is_effect(o.code)) continue;
    live[i] = 1;
    n += o.code == KOpCode::IndexDiv || o.code == KOpCode::IndexMod;
    for (int j = 0; j < o.num_inputs; ++j) live[o.inputs[j]] = 1;
  }
  return n;
}

void assign_phases(Kernel& k) {
  auto avail = [&](const KOp& o) { return o.code == KOpCode::Reduce ? o.phase + 1 : o.phase; };
  int32_t phases = 1;
  for (KOp& o : k.ops) {
    if (k.kind != KernelKind::Rows) {
      o.elem = true;
      o.phase = 0;
      continue;
    }
    if (o.code == KOpCode::Coord) {
      o.elem = o.imm >= k.outer_rank;
      o.phase = 0;
      continue;
    }
    bool elem = false;
    int p = 0;
    for (int i = 0; i < o.num_inputs; ++i) {
      const KOp& in = k.ops[o.inputs[i]];
      elem |= in.elem;
      p = std::max(p, in.elem ? static_cast<int>(in.phase) : avail(in));
    }
    if (o.code == KOpCode::Reduce) elem = false;
    if (o.code == KOpCode::Scan) elem = true;
    o.elem = elem;
    o.phase = static_cast<int16_t>(p);
    if (elem || o.code == KOpCode::Reduce) phases = std::max(phases, p + 1);
  }
  k.num_phases = phases;
}

int32_t Scheduler::buffer_for_node(int32_t node) {
  if (node_buffer_[node] >= 0) return node_buffer_[node];
  const TraceNode& n = t_.nodes[node];
  bool is_output = std::find(t_.outputs.begin(), t_.outputs.end(), node) != t_.outputs.end();
  PlanBuffer b{is_output ? PlanBuffer::Role::Output : PlanBuffer::Role::Temp, n.dtype, shape_numel(n.shape), -1};
  node_buffer_[node] = static_cast<int32_t>(plan_.buffers.size());
  plan_.buffers.push_back(b);
  return node_buffer_[node];
}

int32_t Scheduler::kbuf(Ctx& c, int32_t pb, bool written) {
  auto it = c.buffer_of.find(pb);
  if (it != c.buffer_of.end()) {
    c.k.buffers[it->second].written |= written;
    return it->second;
  }
  int32_t id = static_cast<int32_t>(c.k.buffers.size());
  const PlanBuffer& b = plan_.buffers[pb];
  c.k.buffers.push_back({b.dtype, b.numel, written, pb});
  c.buffer_of[pb] = id;
  return id;
}

Coords Scheduler::unravel(Ctx& c, int32_t linear, absl::Span<const int64_t> shape) {
  Coords out(shape.size());
  int32_t rest = linear;
  for (size_t i = shape.size(); i-- > 0;) {
    out[i] = c.kb.mod(rest, shape[i]);
    rest = c.kb.div(rest, shape[i]);
  }
  return out;
}

// Coordinates of a movement node's input, given coordinates of the node (not Pad).
Coords Scheduler::map_view(Ctx& c, const TraceNode& n, const Coords& co) {
  const TraceNode& in = t_.nodes[n.inputs[0]];
  KernelBuilder& kb = c.kb;
  size_t r = in.shape.size();
  Coords ci(r, kb.iconst(0));
  switch (n.op) {
    case Op::Reshape: {
      if (shape_numel(in.shape) == 0) return ci;
      size_t i = 0, o = 0;
      const Shape &is = in.shape, &os = n.shape;
      while (i < is.size() || o < os.size()) {
        if (i < is.size() && is[i] == 1) { ++i; continue; }
        if (o < os.size() && os[o] == 1) { ++o; continue; }
        size_t gi = i, go = o;
        int64_t pi = is[i++], po = os[o++];
        while (pi != po) {
          if (pi < po) pi *= is[i++];
          else po *= os[o++];
        }
        int32_t lin = kb.linear(co.data() + go, absl::MakeConstSpan(os).subspan(go, o - go));
        Coords part = unravel(c, lin, absl::MakeConstSpan(is).subspan(gi, i - gi));
        for (size_t j = gi; j < i; ++j) ci[j] = part[j - gi];
      }
      return ci;
    }
    case Op::Permute:
      for (size_t i = 0; i < r; ++i) ci[n.attrs[i]] = co[i];
      return ci;
    case Op::Expand:
      for (size_t i = 0; i < r; ++i) ci[i] = in.shape[i] == 1 ? kb.iconst(0) : co[i];
      return ci;
    case Op::Slice:
      for (size_t i = 0; i < r; ++i) {
        int64_t start = n.attrs[2 * i], step = n.attrs[2 * i + 1];
        int64_t last_start = in.shape[i] - 1 - std::max<int64_t>(n.shape[i] - 1, 0) * step;
        ci[i] = kb.add(kb.muli(co[i], step), index_arg(c, start, last_start));
      }
      return ci;
    case Op::Flip:
      ci = co;
      for (int64_t a : n.attrs) ci[a] = kb.sub(kb.iconst(in.shape[a] - 1), co[a]);
      return ci;
    default: fail(ErrorKind::Runtime, "scheduler: not a view op: ", op_name(n.op));
  }
}

// Sharing is decided while a pass emits, not only after it: a node about to
// be inlined into one more kernel than before is stored from here on when the
// policy would store it at that count (the pass is then planned again). A
// value carried along a recurrence (an LSTM's cell state, read by its step and
// by the next) is otherwise inlined into every later step's kernel, and one
// pass over an n-step trace emits O(n^2) ops before the after-pass rule can
// store it. Only kernels built whole count, and only a pass that builds every
// kernel keeps these decisions. Not over a product: emitting it into a second
// kernel is what finds that the product must be stored (its epilogue chain's
// end, see materialize_needed), after which the node may be cheap. True when
// `node` is now materialised.
bool Scheduler::note_inlined(int32_t node) {
  const TraceNode& n = t_.nodes[node];
  OpKind k = op_kind(n.op);
  if (kernels_inlining_[node] == 0 || k == OpKind::Movement || has_matmul_[node]) return false;
  // Measured again from its inputs: one stored earlier in this pass (batch
  // norm's mean, read by every kernel that reads x - mean) no longer counts,
  // so x - mean is cheap arithmetic that its readers recompute, not a
  // reduction to store.
  auto [cost, red] = measure_now(node);
  if (!policy_.materialize_shared(kernels_inlining_[node] + 1, cost, red)) return false;
  // Shared because of reductions it inlines (x - mean before the mean is
  // stored): store those smaller reductions instead; the node is decided
  // again on its own arithmetic when it next reaches another kernel.
  if (red) {
    std::vector<int32_t> inner = inner_reductions(node);
    if (!inner.empty()) {
      for (int32_t r : inner) mat_[r] = 1, stored_while_emitting_.push_back(r);
      return false;
    }
  }
  mat_[node] = 1;
  stored_while_emitting_.push_back(node);
  return true;
}

// The reductions `node` inlines (through inputs not stored), when each has
// fewer elements than it; empty otherwise.
std::vector<int32_t> Scheduler::inner_reductions(int32_t node) {
  const int64_t numel = shape_numel(t_.nodes[node].shape);
  std::vector<int32_t> stack{node}, found;
  absl::flat_hash_set<int32_t> seen{node};
  while (!stack.empty()) {
    int32_t id = stack.back();
    stack.pop_back();
    const TraceNode& n = t_.nodes[id];
    if (id != node && op_kind(n.op) == OpKind::Reduce) {
      if (shape_numel(n.shape) >= numel) return {};
      found.push_back(id);
      continue;
    }
    for (int32_t in : n.inputs)
      if (!mat_[in] && seen.insert(in).second) stack.push_back(in);
  }
  return found;
}

// The cost and whether node's inlined expression holds a reduction, with
// the nodes stored so far (cost_ and has_red_ are the values at the start of
// the pass). A few dozen nodes deep: views and arithmetic; past that the
// pass's values stand.
std::pair<int64_t, bool> Scheduler::measure_now(int32_t node) {
  int budget = 32;
  auto measure = [&](auto&& self, int32_t id) -> std::pair<int64_t, bool> {
    const TraceNode& x = t_.nodes[id];
    if (--budget < 0 || op_kind(x.op) == OpKind::Reduce) return {cost_[id], has_red_[id]};
    int64_t cost = op_cost(x.op);
    bool red = false;
    for (int32_t in : x.inputs)
      if (!mat_[in]) {
        auto [c, r] = self(self, in);
        cost = std::min(cost + c, kCostCap), red = red || r;
      }
    return {cost, red};
  };
  return measure(measure, node);
}

// An offset that does not change the code (a slice's start, where a concat
// piece goes) as a runtime argument: kernels that differ only in it are one
// compiled kernel (Kernel::index_args). The value lies in [0, max]; that range
// is all index folding may use, so the code is right for every such value.
// Zero stays a literal: unsliced and whole-tensor reads keep their folding.
int32_t Scheduler::index_arg(Ctx& c, int64_t value, int64_t max) {
  if (value == 0 || max <= 0 || value < 0 || value > max) return c.kb.iconst(value);
  auto [it, fresh] = c.index_arg_of.try_emplace(value, static_cast<int32_t>(c.k.scalar_types.size()));
  if (fresh) {
    c.k.scalar_types.push_back(DType::Int64);
    c.k.scalar_slots.push_back(kIndexArgSlot);
    c.k.index_args.push_back(value);
  }
  return c.kb.index_param(it->second, {0, max});
}

int32_t Scheduler::emit(Ctx& c, int32_t node, const Coords& coords) {
  std::pair<int32_t, std::vector<int32_t>> key{node, std::vector<int32_t>(coords.begin(), coords.end())};
  auto it = c.memo.find(key);
  if (it != c.memo.end()) return it->second;
  int32_t v = emit_uncached(c, node, coords);
  c.memo.emplace(std::move(key), v);
  return v;
}

int32_t Scheduler::emit_uncached(Ctx& c, int32_t node, const Coords& co) {
  const TraceNode& n = t_.nodes[node];
  KernelBuilder& kb = c.kb;
  // A sibling kernel computes its outputs inline; one reading another reads
  // the value computed in the same iteration (emit's memo), so only at the
  // kernel's own coordinates.
  bool sibling = c.siblings && c.siblings->contains(node);
  if (sibling && node != c.root && !std::equal(co.begin(), co.end(), c.sibling_at.begin(), c.sibling_at.end()))
    throw Regroup{{node}};
  if (mat_[node] && node != c.root && !sibling && n.op != Op::Scalar) {
    int32_t pb = n.op == Op::Input ? node_buffer_[node] : buffer_for_node(node);
    if (n.op != Op::Input && pb < 0) fail(ErrorKind::Runtime, "scheduler: node used before its kernel");
    return kb.load(kbuf(c, pb, false), kb.linear(co.data(), n.shape), n.dtype);
  }
  if (n.op != Op::Input && n.op != Op::Scalar) {
    if (note_inlined(node)) return emit_uncached(c, node, co);  // stored from now on: a load
    ++c.inlined[node];
  }
  auto in = [&](int i) { return n.inputs[i]; };
  switch (op_kind(n.op)) {
    case OpKind::Source: {
      if (n.op == Op::Scalar) {
        auto [it, fresh] = c.scalar_of.try_emplace(n.param, static_cast<int32_t>(c.k.scalar_types.size()));
        if (fresh) {
          c.k.scalar_types.push_back(n.dtype);
          c.k.scalar_slots.push_back(n.param);
          c.k.index_args.push_back(0);
        }
        return kb.param(it->second, n.dtype);
      }
      if (n.op == Op::Iota) return kb.compute(Op::Cast, n.dtype, {co[n.attrs[0]]});
      if (n.op == Op::RandUniform) {
        auto scalar = [&](int i) {
          return kb.compute(Op::Cast, DType::Int64, {emit(c, in(i), Coords(t_.nodes[in(i)].shape.size(), kb.iconst(0)))});
        };
        int32_t counter = kb.linear(co.data(), n.shape);
        if (n.inputs.size() > 1) counter = kb.add(counter, scalar(1));  // (seed, offset)
        return kb.random(scalar(0), counter, n.attrs[0], n.dtype);
      }
      fail(ErrorKind::Runtime, "scheduler: unexpected source ", op_name(n.op));
    }
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Ternary: {
      int32_t a = emit(c, in(0), co);
      if (n.inputs.size() == 1) return kb.compute(n.op, n.dtype, {a});
      int32_t b = emit(c, in(1), co);
      if (n.inputs.size() == 2) return kb.compute(n.op, n.dtype, {a, b});
      return kb.compute(n.op, n.dtype, {a, b, emit(c, in(2), co)});
    }
    case OpKind::Movement: {
      if (n.op != Op::Pad) return emit(c, in(0), map_view(c, n, co));
      const TraceNode& x = t_.nodes[in(0)];
      int32_t fill = kb.compute(Op::Cast, n.dtype, {emit(c, in(1), Coords(t_.nodes[in(1)].shape.size(), kb.iconst(0)))});
      if (shape_numel(x.shape) == 0) return fill;
      Coords ci(co.size());
      int32_t valid = kb.iconst(1, DType::Bool);
      for (size_t i = 0; i < co.size(); ++i) {
        int64_t lo = n.attrs[2 * i];
        ci[i] = kb.clamp(kb.addi(co[i], -lo), 0, x.shape[i] - 1);
        int32_t ok = kb.compute(Op::LogicalAnd, DType::Bool,
                                {kb.compute(Op::Ge, DType::Bool, {co[i], kb.iconst(lo)}),
                                 kb.compute(Op::Lt, DType::Bool, {co[i], kb.iconst(lo + x.shape[i])})});
        valid = kb.compute(Op::LogicalAnd, DType::Bool, {valid, ok});
      }
      return kb.compute(Op::Where, n.dtype, {valid, emit(c, in(0), ci), fill});
    }
    case OpKind::Concat: {
      if (n.inputs.size() > kConcatInlinePieces) throw NeedMaterialize{node};  // its own kernels
      int64_t axis = n.attrs[0];
      int32_t v = -1;
      std::vector<int64_t> offsets;
      int64_t off = 0;
      for (int32_t x : n.inputs) offsets.push_back(off), off += t_.nodes[x].shape[axis];
      for (size_t j = n.inputs.size(); j-- > 0;) {
        int64_t size = t_.nodes[n.inputs[j]].shape[axis];
        if (size == 0) continue;
        Coords ci = co;
        ci[axis] = kb.clamp(kb.addi(co[axis], -offsets[j]), 0, size - 1);
        int32_t val = emit(c, n.inputs[j], ci);
        v = v < 0 ? val
                  : kb.compute(Op::Where, n.dtype,
                               {kb.compute(Op::Lt, DType::Bool, {co[axis], kb.iconst(offsets[j] + size)}), val, v});
      }
      return v < 0 ? kb.constant(0, n.dtype) : v;
    }
    case OpKind::Gather: {
      int64_t axis = n.attrs[0];
      const TraceNode& x = t_.nodes[in(0)];
      int32_t idx = kb.compute(Op::Cast, DType::Int64, {emit(c, in(1), co)});
      Coords ci = co;
      ci[axis] = kb.check_index(idx, x.shape[axis], Op::Gather, axis, check_index_flags(n.attrs));
      return emit(c, in(0), ci);
    }
    case OpKind::Reduce: {
      if (node != c.root && !policy_.fuse_reduction_with_consumers()) throw NeedMaterialize{node};
      const TraceNode& x = t_.nodes[in(0)];
      absl::InlinedVector<int64_t, 6> kept, axes(n.attrs.begin(), n.attrs.end());
      for (size_t i = 0; i < x.shape.size(); ++i)
        if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) == axes.end()) kept.push_back(i);
      Shape needed;
      for (int64_t a : kept) needed.push_back(x.shape[a]);
      for (int64_t a : axes) needed.push_back(x.shape[a]);
      int32_t r = static_cast<int32_t>(kept.size());
      bool no_identity = n.op == Op::ReduceMax || n.op == Op::ReduceMin || n.op == Op::ArgMax || n.op == Op::ArgMin;
      if (no_identity && shape_numel(x.shape) == 0 && shape_numel(n.shape) > 0)
        fail(ErrorKind::Runtime, op_name(n.op), ": cannot reduce over zero elements; the operation has no identity");
      if (c.logical != needed || (c.outer_rank >= 0 && c.outer_rank != r)) throw DomainMismatch{node};
      for (int32_t j = 0; j < r; ++j)
        if (co[kept[j]] != c.lc[j]) throw DomainMismatch{node};
      int64_t zero;
      for (int64_t a : axes)
        if (!kb.is_const(co[a], &zero) || zero != 0) throw DomainMismatch{node};
      if (c.outer_rank < 0) {
        if (c.fixed) throw AbortAttempt{};
        c.outer_rank = r;
      }
      Coords ci(x.shape.size());
      for (int32_t j = 0; j < r; ++j) ci[kept[j]] = c.lc[j];
      for (size_t i = 0; i < axes.size(); ++i) ci[axes[i]] = c.lc[r + i];
      int32_t v = emit(c, in(0), ci);
      DType acc = n.op == Op::ArgMax || n.op == Op::ArgMin ? x.dtype : n.dtype;
      return kb.reduce(n.op, n.dtype, kb.compute(Op::Cast, acc, {v}));
    }
    case OpKind::MatMul: {
      // Only as the product of this MatMul kernel, read at the element's own coordinates.
      if (node != c.epi_mm || co.size() != c.epi_co.size()) throw NeedMaterialize{node};
      for (size_t i = 0; i < co.size(); ++i)
        if (co[i] != c.epi_co[i]) throw NeedMaterialize{node};
      return kb.load(c.acc_buf, kb.linear(co.data(), n.shape), n.dtype);
    }
    default: throw NeedMaterialize{node};  // cumsum, scatter: their own kernels
  }
}

Ctx Scheduler::attempt(int32_t root, const Shape& domain, int32_t outer_rank, bool fixed, bool collapse,
                       const Body& body) {
  Ctx c;
  c.root = root;
  c.logical = domain;
  c.outer_rank = outer_rank;
  c.fixed = fixed;
  if (!collapse) {
    c.k.domain = domain;
    for (size_t i = 0; i < domain.size(); ++i) c.lc.push_back(c.kb.coord(static_cast<int>(i)));
  } else {
    // Rows: [prod(outer), prod(inner)]; elementwise: [numel]. Coordinates of
    // the logical axes are unravelled; contiguous accesses fold back.
    size_t split = outer_rank < 0 ? domain.size() : static_cast<size_t>(outer_rank);
    auto span = absl::MakeConstSpan(domain);
    int64_t outer = shape_numel(span.subspan(0, split)), inner = shape_numel(span.subspan(split));
    bool has_outer = outer_rank != 0, has_inner = outer_rank >= 0 && split < domain.size();
    if (has_outer) c.k.domain.push_back(outer);
    if (has_inner) c.k.domain.push_back(inner);
    if (outer_rank >= 0) c.outer_rank = has_outer ? 1 : 0;
    Coords a = has_outer ? unravel(c, c.kb.coord(0), span.subspan(0, split)) : Coords{};
    Coords b = has_inner ? unravel(c, c.kb.coord(has_outer ? 1 : 0), span.subspan(split)) : Coords{};
    c.lc = a;
    c.lc.insert(c.lc.end(), b.begin(), b.end());
    c.outer_rank = outer_rank;  // logical split for the reduction checks
  }
  body(c);
  c.k.outer_rank = c.outer_rank < 0 ? 0 : (collapse ? (c.outer_rank == 0 ? 0 : 1) : c.outer_rank);
  c.k.kind = c.outer_rank < 0 ? KernelKind::Elementwise : KernelKind::Rows;
  return c;
}

Kernel Scheduler::make(int32_t root, const Shape& domain, int32_t outer_rank, bool collapse, const Body& body) {
  Ctx first = attempt(root, domain, outer_rank, false, false, body);
  Kernel best = std::move(first.k);
  absl::flat_hash_map<int32_t, int> inlined = std::move(first.inlined);
  int32_t rank = first.outer_rank;
  if (collapse && domain.size() > 1 && (rank < 0 || static_cast<size_t>(rank) < domain.size())) {
    try {
      Ctx second = attempt(root, domain, rank, true, true, body);
      if (count_divmod(second.k) <= count_divmod(best)) {
        best = std::move(second.k);
        inlined = std::move(second.inlined);
      }
    } catch (const AbortAttempt&) {
    } catch (const DomainMismatch&) {
    } catch (const NeedMaterialize&) {
    } catch (const Regroup&) {
    }
  }
  assign_phases(best);
  inlined_per_kernel_.push_back(std::move(inlined));
  return best;
}

// The loop domain of reduction `red`: kept dims outer (`*outer_rank` of them),
// reduced dims inner.
Shape Scheduler::rows_domain(int32_t red, int32_t* outer_rank) {
  const TraceNode& n = t_.nodes[red];
  const TraceNode& x = t_.nodes[n.inputs[0]];
  Shape domain;
  *outer_rank = 0;
  for (size_t i = 0; i < x.shape.size(); ++i)
    if (std::find(n.attrs.begin(), n.attrs.end(), static_cast<int64_t>(i)) == n.attrs.end())
      domain.push_back(x.shape[i]), ++*outer_rank;
  for (int64_t a : n.attrs) domain.push_back(x.shape[a]);
  return domain;
}

void Scheduler::build_kernels_for(int32_t node) {
  const TraceNode& n = t_.nodes[node];
  int32_t out = buffer_for_node(node);
  auto push = [&](Kernel k) { push_kernel(std::move(k), node); };
  auto store_root = [&](Ctx& c, const Coords& co) {
    c.kb.store(kbuf(c, out, true), c.kb.linear(co.data(), n.shape), emit(c, node, co));
  };
  switch (op_kind(n.op)) {
    case OpKind::MatMul:
      push_matmul(node, node);
      return;
    case OpKind::Scan: {
      int64_t axis = n.attrs[0];
      Shape domain;
      absl::InlinedVector<int64_t, 6> order;
      for (size_t i = 0; i < n.shape.size(); ++i)
        if (static_cast<int64_t>(i) != axis) order.push_back(i), domain.push_back(n.shape[i]);
      order.push_back(axis), domain.push_back(n.shape[axis]);
      push(make(node, domain, static_cast<int32_t>(domain.size()) - 1, false, [&](Ctx& c) {
        Coords co(n.shape.size());
        for (size_t j = 0; j < order.size(); ++j) co[order[j]] = c.lc[j];
        int32_t v = c.kb.compute(Op::Cast, n.dtype, {emit(c, n.inputs[0], co)});
        c.kb.store(kbuf(c, out, true), c.kb.linear(co.data(), n.shape), c.kb.scan(n.dtype, v));
      }));
      return;
    }
    case OpKind::Scatter: {
      // out = self (a fused elementwise kernel), then a serial accumulate pass.
      push(make(node, n.shape, -1, true, [&](Ctx& c) {
        c.kb.store(kbuf(c, out, true), c.kb.linear(c.lc.data(), n.shape), emit(c, n.inputs[0], c.lc));
      }));
      const TraceNode& index = t_.nodes[n.inputs[1]];
      int64_t axis = n.attrs[0];
      if (axis < 0 || axis >= static_cast<int64_t>(n.shape.size()))  // ops::scatter_add never builds one
        fail(ErrorKind::Runtime, "scheduler: scatter_add axis ", axis, " out of range for shape ", shape_str(n.shape));
      Kernel k = make(node, index.shape, -1, false, [&](Ctx& c) {
        int32_t idx = c.kb.compute(Op::Cast, DType::Int64, {emit(c, n.inputs[1], c.lc)});
        Coords oc = c.lc;
        oc[axis] = c.kb.check_index(idx, n.shape[axis], Op::ScatterAdd, axis, check_index_flags(n.attrs));
        int32_t src = emit(c, n.inputs[2], c.lc);
        c.kb.store(kbuf(c, out, true), c.kb.linear(oc.data(), n.shape), src, true);
      });
      k.serial = true;
      push(std::move(k));
      return;
    }
    case OpKind::Reduce: {
      const TraceNode& x = t_.nodes[n.inputs[0]];
      Shape domain;
      Coords dummy;
      int32_t r = 0;
      for (size_t i = 0; i < x.shape.size(); ++i)
        if (n.shape[i] == x.shape[i] && std::find(n.attrs.begin(), n.attrs.end(), static_cast<int64_t>(i)) == n.attrs.end())
          domain.push_back(x.shape[i]), ++r;
      for (int64_t a : n.attrs) domain.push_back(x.shape[a]);
      push(make(node, domain, r, true, [&](Ctx& c) {
        Coords co(n.shape.size(), c.kb.iconst(0));
        int32_t j = 0;
        for (size_t i = 0; i < n.shape.size(); ++i)
          if (std::find(n.attrs.begin(), n.attrs.end(), static_cast<int64_t>(i)) == n.attrs.end()) co[i] = c.lc[j++];
        store_root(c, co);
      }));
      return;
    }
    case OpKind::Concat:
      if (n.inputs.size() > kConcatInlinePieces) return build_concat_pieces(node);
      break;
    default: break;
  }
  // An elementwise root over a matmul's product is that matmul's epilogue.
  if (int32_t mm = epilogue_candidate(node); mm >= 0) {
    push_matmul(node, mm);
    return;
  }
  build_elementwise({node});
}

// A concat of many pieces: one kernel per piece, storing it into its slice of
// the output, where it starts is an index argument. Inlined, a concat is a
// select chain over every piece per element: O(n) work per element and a
// kernel whose code grows with n (4000 lines of text, one piece each, took
// minutes to compile). Pieces of one shape are one compiled kernel.
void Scheduler::build_concat_pieces(int32_t node) {
  const TraceNode& n = t_.nodes[node];
  int64_t axis = n.attrs[0], offset = 0;
  int32_t out = buffer_for_node(node);
  if (shape_numel(n.shape) == 0) {  // no piece to copy: one empty kernel still owns the buffer (a temp slot)
    push_kernel(make(node, n.shape, -1, true, [&](Ctx& c) {
      c.kb.store(kbuf(c, out, true), c.kb.linear(c.lc.data(), n.shape), c.kb.constant(0, n.dtype));
    }), node);
    return;
  }
  for (int32_t piece : n.inputs) {
    const Shape& shape = t_.nodes[piece].shape;
    int64_t size = shape[axis];
    if (shape_numel(shape) > 0)
      push_kernel(make(node, shape, -1, true, [&](Ctx& c) {
        Coords at = c.lc;
        at[axis] = c.kb.add(c.lc[axis], index_arg(c, offset, n.shape[axis] - size));
        c.kb.store(kbuf(c, out, true), c.kb.linear(at.data(), n.shape), emit(c, piece, c.lc));
      }), node);
    offset += size;
  }
}

// "k<index>_<kind>_<root op>", and "_x<n>" for a sibling kernel storing n outputs.
void Scheduler::push_kernel(Kernel k, int32_t root, size_t outputs) {
  static const char* kinds[] = {"elementwise", "rows", "matmul"};
  unroll_short_rows(&k);
  hoist_row_invariants(&k);
  k.name = cat("k", plan_.kernels.size(), "_", kinds[static_cast<int>(k.kind)], "_", op_name(t_.nodes[root].op),
               outputs > 1 ? cat("_x", outputs) : std::string());
  plan_.kernels.push_back(std::move(k));
  if (inlined_per_kernel_.size() == plan_.kernels.size())
    for (auto [n, times] : inlined_per_kernel_.back()) ++kernels_inlining_[n];
}

// ---- matmul kernels -------------------------------------------------------------

// Does op `id` (transitively) read Coord(axis)?
bool reads_coord(const Kernel& k, int32_t id, int axis, std::vector<int8_t>& memo) {
  if (memo[id] >= 0) return memo[id];
  const KOp& o = k.ops[id];
  bool r = o.code == KOpCode::Coord && o.imm == axis;
  for (int i = 0; i < o.num_inputs && !r; ++i) r = reads_coord(k, o.inputs[i], axis, memo);
  memo[id] = r;
  return r;
}
bool reads_coord(const Kernel& k, int32_t id, int axis) {
  std::vector<int8_t> memo(k.ops.size(), -1);
  return reads_coord(k, id, axis, memo);
}

// offset = row*Coord(row_axis) + col*Coord(col_axis) + sum(terms) + constant,
// where every term depends on Coord(0) at most.
struct Affine {
  int64_t row = 0, col = 0, constant = 0;
  std::vector<std::pair<int32_t, int64_t>> terms;  // (op, multiplier)
};

bool affine(const Kernel& k, KernelBuilder& kb, int32_t id, int row_axis, int col_axis, int64_t scale, Affine& out) {
  const KOp& o = k.ops[id];
  int64_t c;
  if (o.code == KOpCode::Coord && (o.imm == row_axis || o.imm == col_axis)) {
    (o.imm == row_axis ? out.row : out.col) += scale;
    return true;
  }
  if (kb.is_const(id, &c)) {
    out.constant += scale * c;
    return true;
  }
  if (o.code == KOpCode::Compute && o.dtype == DType::Int64) {
    if (o.op == Op::Add) return affine(k, kb, o.inputs[0], row_axis, col_axis, scale, out) &&
                                affine(k, kb, o.inputs[1], row_axis, col_axis, scale, out);
    if (o.op == Op::Sub) return affine(k, kb, o.inputs[0], row_axis, col_axis, scale, out) &&
                                affine(k, kb, o.inputs[1], row_axis, col_axis, -scale, out);
    if (o.op == Op::Mul && kb.is_const(o.inputs[1], &c)) return affine(k, kb, o.inputs[0], row_axis, col_axis, scale * c, out);
    if (o.op == Op::Mul && kb.is_const(o.inputs[0], &c)) return affine(k, kb, o.inputs[1], row_axis, col_axis, scale * c, out);
  }
  for (int axis = 1; axis < 4; ++axis)
    if (reads_coord(k, id, axis)) return false;
  out.terms.push_back({id, scale});
  return true;
}

// The operand as (buffer, base(b), row stride, col stride) when it is a plain strided view.
// A bfloat16 operand widened to float32 (see build()) is the view of its bfloat16 load.
MatMulView strided_view(Kernel& k, KernelBuilder& kb, int32_t value, int row_axis, int col_axis) {
  if (const KOp& w = k.ops[value]; w.code == KOpCode::Compute && w.op == Op::Cast && w.dtype == DType::Float32 &&
                                   k.ops[w.inputs[0]].dtype == DType::BFloat16)
    value = w.inputs[0];
  const KOp& o = k.ops[value];
  if (o.code != KOpCode::Load) return {};
  Affine a;
  if (!affine(k, kb, o.inputs[0], row_axis, col_axis, 1, a)) return {};
  MatMulView v;
  v.buffer = static_cast<int32_t>(o.imm);
  v.row_stride = a.row;
  v.col_stride = a.col;
  int32_t base = kb.iconst(a.constant);
  for (auto [t, m] : a.terms) base = kb.add(base, kb.muli(t, m));
  v.base = base;
  return v;
}

// A not-yet-materialised matmul inside `root`'s expression with as many
// elements as `root`: the root may be its epilogue.
int32_t Scheduler::epilogue_candidate(int32_t root) {
  const TraceNode& r = t_.nodes[root];
  OpKind rk = op_kind(r.op);
  if (rk != OpKind::Unary && rk != OpKind::Binary && rk != OpKind::Ternary && rk != OpKind::Movement) return -1;
  std::vector<int32_t> stack{root};
  absl::flat_hash_set<int32_t> seen{root};
  while (!stack.empty()) {
    int32_t id = stack.back();
    stack.pop_back();
    const TraceNode& n = t_.nodes[id];
    if (op_kind(n.op) == OpKind::MatMul) {
      if (shape_numel(n.shape) == shape_numel(r.shape)) return id;
      continue;
    }
    OpKind k = op_kind(n.op);
    if (k != OpKind::Unary && k != OpKind::Binary && k != OpKind::Ternary && k != OpKind::Movement) continue;
    for (int32_t in : n.inputs)
      if (!mat_[in] && seen.insert(in).second) stack.push_back(in);
  }
  return -1;
}

void Scheduler::push_matmul(int32_t root, int32_t mm) {
  Kernel k;
  try {
    k = matmul_kernel(root, mm, false);
    // A batch-invariant rhs (x[B, T, K] @ w[K, N]): fold the batch into M.
    if (t_.nodes[mm].op == Op::MatMul && k.domain[0] > 1 && !reads_coord(k, k.mm_rhs, 0)) {
      inlined_per_kernel_.pop_back();
      k = matmul_kernel(root, mm, true);
    }
  } catch (const DomainMismatch&) {
    if (root == mm) throw;
    throw NeedMaterialize{mm};  // e.g. a reduction in the epilogue: the product gets its own kernel
  } catch (const AbortAttempt&) {
    if (root == mm) throw DomainMismatch{mm};
    throw NeedMaterialize{mm};
  }
  push_kernel(std::move(k), root);
}

// The element of `node` at `co` where `valid`, else 0 (`co` must be in range
// either way: the caller clamps it). A convolution's padding.
int32_t Scheduler::guarded(Ctx& c, int32_t node, const Coords& co, int32_t valid) {
  DType dt = t_.nodes[node].dtype;
  int64_t always;
  int32_t v = emit(c, node, co);
  if (c.kb.is_const(valid, &always) && always) return v;
  return c.kb.compute(Op::Where, dt, {valid, v, c.kb.constant(0, dt)});
}

// Where `node` lives when it is a view of one stored buffer with literal
// strides (a convolution's input or output gradient: stored, maybe permuted
// to channels-last): emitted alone at its own coordinates, it is one load at
// an affine offset. Invalid otherwise (padded, sliced at a runtime offset,
// widened from bfloat16: the element DAG packs those).
StridedSource Scheduler::strided_source(Ctx& c, int32_t node) {
  const TraceNode& n = t_.nodes[node];
  if (n.shape.size() > 5 || shape_numel(n.shape) == 0) return {};
  Ctx s;
  s.k.domain = n.shape;
  Coords co;
  for (size_t i = 0; i < n.shape.size(); ++i) co.push_back(s.kb.coord(static_cast<int>(i)));
  const KOp& o = s.k.ops[emit(s, node, co)];
  std::vector<int64_t> coeffs;
  if (o.code != KOpCode::Load || o.dtype != n.dtype || !affine_offset(s.k, o.inputs[0], &coeffs)) return {};
  StridedSource src;
  src.buffer = kbuf(c, s.k.buffers[o.imm].plan_buffer, false);
  src.base = coeffs[n.shape.size()];
  for (size_t i = 0; i < n.shape.size(); ++i) src.strides[i] = n.shape[i] == 1 ? 0 : coeffs[i];
  return src;
}

// A convolution as an implicit GEMM (ir/conv.h): domain [B, M, N, K] with the
// product [B, M, N] laid out as the node's own row-major shape, and operand
// DAGs that read the input through guarded loads, so no im2col buffer exists:
//   Conv            B = batch*groups, M = O/g,  N = out,     K = C/g * kernel
//   ConvInputGrad   B = batch*groups, M = C/g,  N = in,      K = O/g * kernel
//   ConvWeightGrad  B = groups,       M = O/g,  N = C/g * kernel, K = batch * out
void Scheduler::conv_operands(Ctx& c, const TraceNode& n, const ConvGeometry& g) {
  KernelBuilder& kb = c.kb;
  const int nd = g.nd;
  const int64_t Kk = g.kernel_numel(), L = g.out_numel();
  const int32_t b = kb.coord(0), m = kb.coord(1), col = kb.coord(2), k = kb.coord(3);
  auto spatial = [&](int32_t lin, const ConvGeometry::Dims& dims) {
    return unravel(c, lin, absl::MakeConstSpan(dims));
  };
  auto coords = [&](int32_t a, int32_t bb, const Coords& rest) {
    Coords co{a, bb};
    co.insert(co.end(), rest.begin(), rest.end());
    return co;
  };
  int32_t yes = kb.iconst(1, DType::Bool);
  auto all = [&](int32_t acc, int32_t cond) { return kb.compute(Op::LogicalAnd, DType::Bool, {acc, cond}); };
  // x at input positions out*s + kk*d - p, zero outside: (n, channel, out coords, tap coords).
  auto read_x = [&](int32_t xn, int32_t batch, int32_t ch, const Coords& out, const Coords& tap) {
    Coords in(nd);
    int32_t valid = yes;
    for (int j = 0; j < nd; ++j) {
      int32_t p = kb.addi(kb.add(kb.muli(out[j], g.stride[j]), kb.muli(tap[j], g.dilation[j])), -g.pad[j]);
      IndexRange r = kb.range(p);
      if (!(r.known() && r.lo >= 0))
        valid = all(valid, kb.compute(Op::Ge, DType::Bool, {p, kb.iconst(0)}));
      if (!(r.known() && r.hi < g.in[j]))
        valid = all(valid, kb.compute(Op::Lt, DType::Bool, {p, kb.iconst(g.in[j])}));
      in[j] = kb.clamp(p, 0, g.in[j] - 1);
    }
    return guarded(c, xn, coords(batch, ch, in), valid);
  };
  const int32_t x_or_dy = n.inputs[0], second = n.inputs[1];
  if (n.op == Op::Conv) {  // lhs w[gi*Og + m, k / Kk, kk], rhs x[bn, gi*Cg + k / Kk, in(col, kk)]
    int32_t bn = kb.div(b, g.groups), gi = kb.mod(b, g.groups), ci = kb.div(k, Kk);
    Coords tap = spatial(kb.mod(k, Kk), g.kernel);
    c.k.mm_lhs = emit(c, second, coords(kb.add(kb.muli(gi, g.og()), m), ci, tap));
    c.k.mm_rhs = read_x(x_or_dy, bn, kb.add(kb.muli(gi, g.cg()), ci), spatial(col, g.out), tap);
  } else if (n.op == Op::ConvWeightGrad) {  // lhs dy[k / L, gi*Og + m, k % L], rhs x[k / L, gi*Cg + col / Kk, in]
    int32_t gi = b, bn = kb.div(k, L);
    Coords out = spatial(kb.mod(k, L), g.out);
    c.k.mm_lhs = emit(c, second, coords(bn, kb.add(kb.muli(gi, g.og()), m), out));
    c.k.mm_rhs = read_x(x_or_dy, bn, kb.add(kb.muli(gi, g.cg()), kb.div(col, Kk)), out, spatial(kb.mod(col, Kk), g.kernel));
  } else {  // ConvInputGrad: lhs w[gi*Og + k / Kk, m, kk], rhs dy[bn, gi*Og + k / Kk, out] where in = out*s + kk*d - p
    int32_t bn = kb.div(b, g.groups), gi = kb.mod(b, g.groups), o = kb.add(kb.muli(gi, g.og()), kb.div(k, Kk));
    Coords tap = spatial(kb.mod(k, Kk), g.kernel), in = spatial(col, g.in), out(nd);
    c.k.mm_lhs = emit(c, second, coords(o, m, tap));
    int32_t valid = yes;
    for (int j = 0; j < nd; ++j) {
      // out*s = in + p - kk*d: in range and divisible by the stride.
      int32_t t = kb.sub(kb.addi(in[j], g.pad[j]), kb.muli(tap[j], g.dilation[j]));
      int64_t top = (g.out[j] - 1) * g.stride[j];
      IndexRange r = kb.range(t);
      if (!(r.known() && r.lo >= 0)) valid = all(valid, kb.compute(Op::Ge, DType::Bool, {t, kb.iconst(0)}));
      if (!(r.known() && r.hi <= top)) valid = all(valid, kb.compute(Op::Le, DType::Bool, {t, kb.iconst(top)}));
      int32_t tc = kb.clamp(t, 0, std::max<int64_t>(top, 0));
      if (g.stride[j] > 1)
        valid = all(valid, kb.compute(Op::Eq, DType::Bool, {kb.mod(tc, g.stride[j]), kb.iconst(0)}));
      out[j] = kb.div(tc, g.stride[j]);
    }
    c.k.mm_rhs = guarded(c, x_or_dy, coords(bn, o, out), valid);
  }
  (void)L;
}

Kernel Scheduler::matmul_kernel(int32_t root, int32_t mm, bool fold) {
  const TraceNode& n = t_.nodes[mm];
  if (is_conv_op(n.op)) {
    const ConvGeometry g =
        conv_geometry(n.op, n.attrs, t_.nodes[n.inputs[0]].shape, t_.nodes[n.inputs[1]].shape, n.shape);
    const int64_t Kk = g.kernel_numel();
    Shape domain = n.op == Op::Conv            ? Shape{g.N * g.groups, g.og(), g.out_numel(), g.cg() * Kk}
                   : n.op == Op::ConvInputGrad ? Shape{g.N * g.groups, g.cg(), g.in_numel(), g.og() * Kk}
                                               : Shape{g.groups, g.og(), g.cg() * Kk, g.N * g.out_numel()};
    Ctx c;
    c.root = root;
    c.k.kind = KernelKind::MatMul;
    c.k.outer_rank = 2;
    c.k.domain = domain;
    c.logical = domain;
    c.fixed = true;
    c.epi_mm = mm;
    c.acc_buf = c.k.mm_acc = static_cast<int32_t>(c.k.buffers.size());
    c.k.buffers.push_back({n.dtype, shape_numel(n.shape), false, -1});
    c.lc = {c.kb.coord(0), c.kb.coord(1), c.kb.coord(2)};
    int32_t lin = c.kb.linear(c.lc.data(), absl::MakeConstSpan(domain).subspan(0, 3));
    c.epi_co = unravel(c, lin, n.shape);
    const TraceNode& rn = t_.nodes[root];
    Coords rc = rn.shape == n.shape ? c.epi_co : unravel(c, lin, rn.shape);
    c.kb.store(kbuf(c, buffer_for_node(root), true), lin, emit(c, root, rc));
    conv_operands(c, n, g);
    MatMulConv& mc = c.k.mm_conv;
    mc.rhs = strided_source(c, n.inputs[0]);
    if (mc.rhs.valid()) {
      mc.op = n.op;
      mc.nd = g.nd;
      mc.groups = g.groups, mc.N = g.N, mc.C = g.C, mc.O = g.O;
      for (int j = 0; j < g.nd; ++j) {
        mc.in[j] = g.in[j], mc.out[j] = g.out[j], mc.kernel[j] = g.kernel[j];
        mc.stride[j] = g.stride[j], mc.pad[j] = g.pad[j], mc.dilation[j] = g.dilation[j];
      }
      if (n.op == Op::ConvWeightGrad) mc.lhs = strided_source(c, n.inputs[1]);
    }
    c.k.mm_lhs_view = strided_view(c.k, c.kb, c.k.mm_lhs, 1, 3);
    c.k.mm_rhs_view = strided_view(c.k, c.kb, c.k.mm_rhs, 3, 2);
    assign_phases(c.k);
    inlined_per_kernel_.push_back(std::move(c.inlined));
    return std::move(c.k);
  }
  const TraceNode& rn = t_.nodes[root];
  size_t r = n.shape.size();
  auto batch = absl::MakeConstSpan(n.shape).subspan(0, r - 2);
  int64_t B = shape_numel(batch), M = n.shape[r - 2], N = n.shape[r - 1], K = t_.nodes[n.inputs[0]].shape[r - 1];
  Ctx c;
  c.root = root;
  c.k.kind = KernelKind::MatMul;
  c.k.outer_rank = 2;
  c.k.domain = fold ? Shape{1, B * M, N, K} : Shape{B, M, N, K};
  c.logical = c.k.domain;  // never a reduction's domain: reductions cannot join an epilogue
  c.fixed = true;
  c.epi_mm = mm;
  c.acc_buf = c.k.mm_acc = static_cast<int32_t>(c.k.buffers.size());
  c.k.buffers.push_back({n.dtype, B * M * N, false, -1});
  Coords rows;  // batch coords ++ m
  if (fold) {
    Shape bm(batch.begin(), batch.end());
    bm.push_back(M);
    rows = unravel(c, c.kb.coord(1), bm);
  } else {
    rows = unravel(c, c.kb.coord(0), batch);
    rows.push_back(c.kb.coord(1));
  }
  c.lc = rows;
  c.lc.push_back(c.kb.coord(2));
  c.epi_co = c.lc;
  // Epilogue: the root at the product's element (same row-major position).
  int32_t out = buffer_for_node(root);
  int32_t lin = c.kb.linear(c.lc.data(), n.shape);
  Coords rc = rn.shape == n.shape ? c.lc : unravel(c, lin, rn.shape);
  c.kb.store(kbuf(c, out, true), lin, emit(c, root, rc));
  // Operands.
  Coords ac(rows.begin(), rows.end() - 1), bc = ac;
  ac.push_back(rows.back()), ac.push_back(c.kb.coord(3));
  bc.push_back(c.kb.coord(3)), bc.push_back(c.kb.coord(2));
  c.k.mm_lhs = emit(c, n.inputs[0], ac);
  c.k.mm_rhs = emit(c, n.inputs[1], bc);
  c.k.mm_lhs_view = strided_view(c.k, c.kb, c.k.mm_lhs, 1, 3);
  c.k.mm_rhs_view = strided_view(c.k, c.kb, c.k.mm_rhs, 3, 2);
  if (fold) {  // the view's base may only depend on Coord(0), which is 0 here
    if (c.k.mm_lhs_view.valid() && reads_coord(c.k, c.k.mm_lhs_view.base, 1)) c.k.mm_lhs_view = {};
  }
  assign_phases(c.k);
  inlined_per_kernel_.push_back(std::move(c.inlined));
  return std::move(c.k);
}

bool Scheduler::build_all() {
  plan_.kernels.clear();
  plan_.buffers.clear();
  inlined_per_kernel_.clear();
  node_buffer_.assign(t_.nodes.size(), -1);
  kernels_inlining_.assign(t_.nodes.size(), 0);
  stored_while_emitting_.clear();
  for (size_t i = 0; i < t_.nodes.size(); ++i) {
    const TraceNode& n = t_.nodes[i];
    if (n.op != Op::Input) continue;
    node_buffer_[i] = static_cast<int32_t>(plan_.buffers.size());
    plan_.buffers.push_back({PlanBuffer::Role::Param, n.dtype, shape_numel(n.shape), n.param});
  }
  // Kernels in trace order; sibling groups (sibling_units) where they close.
  std::vector<std::vector<int32_t>> units = sibling_units();
  bool complete = true;
  for (const std::vector<int32_t>& u : units) {
    try {
      if (u.size() == 1) {
        build_kernels_for(u[0]);
      } else {
        build_elementwise(u);
      }
    } catch (const DomainMismatch& e) {
      materialize_needed(e.node), complete = false;
    } catch (const NeedMaterialize& e) {
      materialize_needed(e.node), complete = false;
    } catch (const Regroup& e) {
      for (int32_t n : e.nodes) alone_[n] = 1;
      complete = false;
    }
  }
  if (!complete) {
    // What this pass stored while emitting only kept its emission linear: a
    // kernel that failed may read those nodes otherwise once it is planned
    // again, so the next pass decides them afresh.
    for (int32_t n : stored_while_emitting_) mat_[n] = 0;
    return false;
  }
  if (!stored_while_emitting_.empty()) return false;
  // A kernel that runs before a group's and reads a member (sibling_units
  // should have prevented it): that member alone. One walk over the kernels.
  absl::flat_hash_map<int32_t, std::pair<int32_t, int32_t>> member_of_buffer;  // buffer -> (group, member)
  std::vector<char> group_built;
  for (const std::vector<int32_t>& u : units) {
    if (u.size() < 2) continue;
    for (int32_t m : u) member_of_buffer[node_buffer_[m]] = {static_cast<int32_t>(group_built.size()), m};
    group_built.push_back(0);
  }
  if (!member_of_buffer.empty())
    for (const Kernel& k : plan_.kernels) {
      for (const KernelBuffer& b : k.buffers)
        if (auto it = member_of_buffer.find(b.plan_buffer); b.written && it != member_of_buffer.end())
          group_built[it->second.first] = 1;
      for (const KernelBuffer& b : k.buffers)
        if (auto it = member_of_buffer.find(b.plan_buffer); it != member_of_buffer.end() && !group_built[it->second.first])
          alone_[it->second.second] = 1, complete = false;
    }
  if (!complete) return false;
  plan_.outputs.clear();
  for (int32_t o : t_.outputs) plan_.outputs.push_back(node_buffer_[o]);
  return true;
}

// A node the last build found it could not inline. A product needed outside
// its epilogue: store the end of its elementwise chain instead when that is a
// different node (it keeps the epilogue).
void Scheduler::materialize_needed(int32_t node) {
  if (mat_[node]) fail(ErrorKind::Runtime, "scheduler: cannot place node %", node, " ", op_name(t_.nodes[node].op));
  int32_t x = op_kind(t_.nodes[node].op) == OpKind::MatMul ? matmul_chain_end(node) : node;
  mat_[mat_[x] ? node : x] = 1;
}

// The order kernels are built in: each materialised node alone, in trace
// order, except sibling groups (FusionPolicy::fuse_siblings): trace outputs
// whose kernel would be an elementwise (or rows) one over their own shape
// (not a reduction, scan, scatter, matmul or matmul epilogue) join the open
// group of their shape, which is one kernel storing every member: a
// backward's gradients, an optimizer's new parameters and moments, a sync's
// several results. What the members share is computed once, and a member
// another one reads is not stored and reloaded. A group is built (closed)
// right before the first kernel outside it that reads a member, so every
// reader runs after it; it is open from its first member on, and every
// member's inputs are built before that member. Emission checks the rest (a
// member read at other coordinates by another) and Regroup takes such members
// out.
std::vector<std::vector<int32_t>> Scheduler::sibling_units() {
  std::vector<std::vector<int32_t>> units;  // in build order: a group where it closes
  std::vector<char> is_output(t_.nodes.size(), 0);
  for (int32_t o : t_.outputs) is_output[o] = 1;
  std::map<Shape, std::vector<int32_t>> open;  // shape -> members so far
  std::vector<char> open_member(t_.nodes.size(), 0);
  std::vector<int32_t> seen(t_.nodes.size(), -1);  // DFS marks, by reader
  std::vector<int32_t> work;
  auto close = [&](const Shape& shape) {
    auto it = open.find(shape);
    for (int32_t m : it->second) open_member[m] = 0;
    units.push_back(std::move(it->second));
    open.erase(it);
  };
  for (size_t i = 0; i < t_.nodes.size(); ++i) {
    const TraceNode& n = t_.nodes[i];
    if (!mat_[i] || n.op == Op::Input) continue;
    OpKind k = op_kind(n.op);
    bool candidate = policy_.fuse_siblings() && is_output[i] && !alone_[i] && n.op != Op::Scalar &&
                     shape_numel(n.shape) > 0 && k != OpKind::MatMul && k != OpKind::Scan && k != OpKind::Scatter &&
                     !(k == OpKind::Concat && n.inputs.size() > kConcatInlinePieces) &&
                     k != OpKind::Reduce && epilogue_candidate(static_cast<int32_t>(i)) < 0;
    const Shape& shape = n.shape;
    // Close every other open group this node's kernel reads a member of (the
    // materialised nodes its inlined expression reaches): built before it.
    if (!open.empty()) {
      work.assign(n.inputs.begin(), n.inputs.end());
      while (!work.empty()) {
        int32_t x = work.back();
        work.pop_back();
        if (seen[x] == static_cast<int32_t>(i)) continue;
        seen[x] = static_cast<int32_t>(i);
        if (mat_[x]) {
          if (open_member[x] && (!candidate || t_.nodes[x].shape != shape)) close(t_.nodes[x].shape);
          continue;
        }
        for (int32_t in : t_.nodes[x].inputs) work.push_back(in);
      }
    }
    if (!candidate) {
      units.push_back({static_cast<int32_t>(i)});
      continue;
    }
    std::vector<int32_t>& group = open[shape];
    group.push_back(static_cast<int32_t>(i));
    open_member[i] = 1;
    if (group.size() == kMaxSiblings) close(shape);
  }
  while (!open.empty()) close(Shape(open.begin()->first));
  return units;
}

// Elementwise / movement / source / concat / gather roots: one kernel over
// their (common) shape storing each of them (a sibling group, or one root);
// when a reduction feeds them per row, over the reduction's domain (the sum
// in an optimizer's gradient is then computed once for the moments and the
// parameter); when it cannot, that reduction is stored (planning restarts).
void Scheduler::build_elementwise(const std::vector<int32_t>& members) {
  const TraceNode& last = t_.nodes[members.back()];
  std::vector<int32_t> outs;
  for (int32_t m : members) outs.push_back(buffer_for_node(m));
  absl::flat_hash_set<int32_t> set(members.begin(), members.end());
  Kernel k;
  try {
    k = make(members.back(), last.shape, -1, true, [&](Ctx& c) {
      c.siblings = &set;
      c.sibling_at = c.lc;
      for (size_t j = 0; j < members.size(); ++j)
        c.kb.store(kbuf(c, outs[j], true), c.kb.linear(c.lc.data(), last.shape), emit(c, members[j], c.lc));
    });
  } catch (const DomainMismatch& e) {
    if (shape_numel(t_.nodes[e.node].shape) != shape_numel(last.shape)) throw NeedMaterialize{e.node};
    int32_t r = 0;
    Shape domain = rows_domain(e.node, &r);
    try {
      k = make(members.back(), domain, r, true, [&](Ctx& c) {
        int32_t lin = c.kb.linear(c.lc.data(), absl::MakeConstSpan(domain).subspan(0, r));
        Coords co = unravel(c, lin, last.shape);
        c.siblings = &set;
        c.sibling_at = co;
        for (size_t j = 0; j < members.size(); ++j) c.kb.store(kbuf(c, outs[j], true), lin, emit(c, members[j], co));
      });
    } catch (const DomainMismatch& e2) {
      throw NeedMaterialize{e2.node};
    }
  }
  push_kernel(std::move(k), members.back(), members.size());
}

// The last node of the matmul's single-consumer elementwise chain (the matmul
// itself when none). The chain stops at a movement other than a reshape: past
// a transpose the product is read at other coordinates, so storing that end
// would not make an epilogue, only one more kernel (autograd's dW = (XᵀG)ᵀ).
int32_t Scheduler::matmul_chain_end(int32_t mm) {
  int32_t x = mm;
  while (consumers_[x].size() == 1 && !mat_[consumers_[x][0]]) {
    const TraceNode& c = t_.nodes[consumers_[x][0]];
    OpKind ck = op_kind(c.op);
    if (ck != OpKind::Unary && ck != OpKind::Binary && ck != OpKind::Ternary && ck != OpKind::Movement) break;
    if (ck == OpKind::Movement && c.op != Op::Reshape) break;
    x = consumers_[x][0];
  }
  while (x != mm && op_kind(t_.nodes[x].op) == OpKind::Movement) x = t_.nodes[x].inputs[0];
  return x;
}

Plan Scheduler::run() {
  cost_.assign(t_.nodes.size(), 0);
  has_red_.assign(t_.nodes.size(), 0);
  has_gather_.assign(t_.nodes.size(), 0);
  has_matmul_.assign(t_.nodes.size(), 0);
  consumers_.assign(t_.nodes.size(), {});
  for (size_t i = 0; i < t_.nodes.size(); ++i)
    for (int32_t in : t_.nodes[i].inputs)
      if (consumers_[in].empty() || consumers_[in].back() != static_cast<int32_t>(i)) consumers_[in].push_back(static_cast<int32_t>(i));
  for (size_t i = 0; i < t_.nodes.size(); ++i) {
    const TraceNode& n = t_.nodes[i];
    OpKind k = op_kind(n.op);
    mat_[i] |= n.op == Op::Input || k == OpKind::Scan || k == OpKind::Scatter ||
               (k == OpKind::Concat && n.inputs.size() > kConcatInlinePieces) ||
               policy_.materialize(t_, static_cast<int32_t>(i));
    // A matmul is computed by its own kernel; it may run its single
    // elementwise consumer chain as the epilogue (see push_matmul).
    if (k == OpKind::MatMul) {
      OpKind ck = consumers_[i].size() == 1 ? op_kind(t_.nodes[consumers_[i][0]].op) : OpKind::MatMul;
      if (ck != OpKind::Unary && ck != OpKind::Binary && ck != OpKind::Ternary && ck != OpKind::Movement) mat_[i] = 1;
    }
    // Its operands are stored, except the views and a bfloat16 / float16
    // operand's widening to float32 (ops::matmul): the packing reads the
    // 16-bit values itself (bfloat16 as pairs for vdpbf16ps, or widened; the
    // CUDA kernel stages them for tensor cores), so the operand is not
    // widened into a float32 copy first.
    if (k == OpKind::MatMul)
      for (int32_t in : n.inputs) {
        int32_t base = in;
        while (op_kind(t_.nodes[base].op) == OpKind::Movement) base = t_.nodes[base].inputs[0];
        const TraceNode& b = t_.nodes[base];
        if (b.op == Op::Cast && b.dtype == DType::Float32 && is_low_precision_float(t_.nodes[b.inputs[0]].dtype))
          for (base = t_.nodes[base].inputs[0]; op_kind(t_.nodes[base].op) == OpKind::Movement;)
            base = t_.nodes[base].inputs[0];
        if (t_.nodes[base].op != Op::Scalar) mat_[base] = 1;
      }
  }
  for (int32_t o : t_.outputs) mat_[o] = 1;
  bound_fused_depth();
  for (;;) {
    for (size_t i = 0; i < t_.nodes.size(); ++i) {
      const TraceNode& n = t_.nodes[i];
      OpKind k = op_kind(n.op);
      cost_[i] = op_cost(n.op);
      has_red_[i] = k == OpKind::Reduce;
      has_gather_[i] = k == OpKind::Gather;
      has_matmul_[i] = k == OpKind::MatMul;
      for (int32_t in : n.inputs)
        if (!mat_[in])
          cost_[i] += cost_[in], has_red_[i] |= has_red_[in], has_gather_[i] |= has_gather_[in],
              has_matmul_[i] |= has_matmul_[in];
      cost_[i] = std::min(cost_[i], kCostCap);  // shared subexpressions double it per level
    }
    ++plan_.planning_passes;
    if (!build_all()) continue;
    absl::flat_hash_map<int32_t, int> uses, repeats;
    for (const auto& s : inlined_per_kernel_)
      for (auto [n, times] : s) ++uses[n], repeats[n] = std::max(repeats[n], times);
    bool changed = false;
    for (auto [n, count] : uses) {
      if (mat_[n] || op_kind(t_.nodes[n].op) != OpKind::MatMul || count < 2) continue;
      // A product used by several kernels: store the end of its single-consumer
      // chain (e.g. h = x @ w + b used by relu and by backward), whose kernel
      // then runs the chain as the matmul's epilogue.
      mat_[matmul_chain_end(n)] = 1;
      changed = true;
    }
    // In trace order, each measured with the decisions before it (measure_now):
    // once a reduction is stored, what reads it may be cheap again.
    std::vector<std::pair<int32_t, int>> shared(uses.begin(), uses.end());
    std::sort(shared.begin(), shared.end());
    for (auto [n, count] : shared) {
      if (mat_[n] || op_kind(t_.nodes[n].op) == OpKind::Movement || op_kind(t_.nodes[n].op) == OpKind::MatMul) continue;
      auto [cost, red] = measure_now(n);
      if (policy_.materialize_shared(count, cost, red) ||
          (repeats[n] > 1 && policy_.materialize_repeated(repeats[n], cost_[n], has_gather_[n])))
        mat_[n] = 1, changed = true;
    }
    if (!changed) break;
  }
  assign_temp_slots();
  if (inlined_per_kernel_.size() == plan_.kernels.size()) {
    for (size_t k = 0; k < plan_.kernels.size(); ++k) {
      std::vector<int32_t>& nodes = plan_.kernels[k].trace_nodes;
      nodes.clear();
      for (auto [n, times] : inlined_per_kernel_[k]) nodes.push_back(n);
      std::sort(nodes.begin(), nodes.end());
    }
  }
  plan_.policy = std::string(policy_.name());
  plan_.nodes_after_simplify = static_cast<int32_t>(t_.nodes.size());
  return std::move(plan_);
}

// Emission recurses once per inlined node (and the backends walk a kernel's
// expression recursively too), so the depth of an inlined expression is bounded:
// a node that would sit deeper than kMaxFusedDepth is materialised, which cuts a
// 200k-op chain recorded without a sync into kernels of at most that depth
// (and, their structure being identical, one compiled kernel). The width is
// bounded the same way: a node whose inlined expression tree would exceed
// kMaxFusedTree nodes is materialised, so a reduction tree over 16k chains
// (one kernel of 100k ops, whose planning and LLVM compile grow faster than
// its size) becomes kernels of at most a few thousand ops, most of one
// structure. The tree size counts a shared subexpression once per path, an
// upper bound on the ops a kernel holds; only a node that is not an input to
// anything larger pays for it. Materialising only ever lowers both, so one
// pass before planning is enough.
void Scheduler::bound_fused_depth() {
  std::vector<int32_t> depth(t_.nodes.size(), 0);
  std::vector<int64_t> tree(t_.nodes.size(), 0);
  for (size_t i = 0; i < t_.nodes.size(); ++i) {
    const TraceNode& n = t_.nodes[i];
    if (n.op == Op::Input || n.op == Op::Scalar) continue;
    int32_t d = 0;
    int64_t size = 1;
    for (int32_t in : n.inputs)
      if (!mat_[in]) d = std::max(d, depth[in]), size = std::min(size + tree[in], kMaxFusedTree);
    depth[i] = d + 1;
    tree[i] = size;
    if (depth[i] >= kMaxFusedDepth || tree[i] >= kMaxFusedTree) mat_[i] = 1;
  }
}

void Scheduler::assign_temp_slots() {
  std::vector<int32_t> last_use(plan_.buffers.size(), -1), first_def(plan_.buffers.size(), -1);
  for (size_t k = 0; k < plan_.kernels.size(); ++k)
    for (const KernelBuffer& b : plan_.kernels[k].buffers) {
      if (b.plan_buffer < 0) continue;  // MatMul's virtual product
      last_use[b.plan_buffer] = static_cast<int32_t>(k);
      if (first_def[b.plan_buffer] < 0) first_def[b.plan_buffer] = static_cast<int32_t>(k);
    }
  // Temporaries by the kernel that first writes and last reads them: one walk
  // over the buffers, not one per kernel.
  std::vector<std::vector<int32_t>> defined_at(plan_.kernels.size()), freed_at(plan_.kernels.size());
  for (size_t b = 0; b < plan_.buffers.size(); ++b) {
    if (plan_.buffers[b].role != PlanBuffer::Role::Temp || first_def[b] < 0) continue;
    defined_at[first_def[b]].push_back(static_cast<int32_t>(b));
    freed_at[last_use[b]].push_back(static_cast<int32_t>(b));
  }
  std::vector<char> slot_free;
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    for (int32_t b : defined_at[k]) {
      PlanBuffer& pb = plan_.buffers[b];
      int64_t bytes = pb.numel * static_cast<int64_t>(dtype_size(pb.dtype));
      int32_t best = -1;
      for (size_t s = 0; s < slot_free.size(); ++s)
        if (slot_free[s] && plan_.temp_slot_bytes[s] >= bytes &&
            (best < 0 || plan_.temp_slot_bytes[s] < plan_.temp_slot_bytes[best]))
          best = static_cast<int32_t>(s);
      if (best < 0) {
        best = static_cast<int32_t>(slot_free.size());
        slot_free.push_back(0);
        plan_.temp_slot_bytes.push_back(bytes);
      }
      slot_free[best] = 0;
      pb.index = best;
    }
    for (int32_t b : freed_at[k]) slot_free[plan_.buffers[b].index] = 1;
  }
}

// The reference evaluates every node of a trace, so a max/min over zero
// elements raises even when no output element depends on it (the [1, 1] max
// inside log_softmax over an empty dim, consumed only by an empty output).
// Kernel emission never visits such a node, and simplification may drop it:
// check them all first (a fuzzer find, test/data/fuzz/empty_max_feeding_only_an_empty_output).
void check_reductions_have_elements(const Trace& trace) {
  for (const TraceNode& n : trace.nodes) {
    bool no_identity = n.op == Op::ReduceMax || n.op == Op::ReduceMin || n.op == Op::ArgMax || n.op == Op::ArgMin;
    if (no_identity && shape_numel(trace.nodes[n.inputs[0]].shape) == 0 && shape_numel(n.shape) > 0)
      fail(ErrorKind::Runtime, op_name(n.op), ": cannot reduce over zero elements; the operation has no identity");
  }
}

}  // namespace

Plan schedule(const Trace& trace, const FusionPolicy& policy) {
  check_reductions_have_elements(trace);
  Trace t = simplify_trace(trace);
  Plan plan = Scheduler(t, policy).run();
  plan.simplified = std::move(t);
  plan.simplified.params.clear();
  return plan;
}

size_t distinct_kernels(const Plan& plan) {
  absl::flat_hash_set<Hash128> hashes;
  for (const Kernel& k : plan.kernels) hashes.insert(k.hash());
  return hashes.size();
}

std::string Plan::print() const {
  std::string s = cat("plan policy=", policy, " kernels=", kernels.size(), " buffers=", buffers.size(),
                      " temp_slots=", temp_slot_bytes.size(), " passes=", planning_passes, "\n");
  static const char* roles[] = {"param", "output", "temp"};
  for (size_t i = 0; i < buffers.size(); ++i)
    absl::StrAppend(&s, "  b", i, " ", roles[static_cast<int>(buffers[i].role)], " ",
                    detail::to_alpha(dtype_name(buffers[i].dtype)), "[", buffers[i].numel, "] #", buffers[i].index, "\n");
  for (const Kernel& k : kernels) absl::StrAppend(&s, print_kernel(k));
  return s;
}

}  // namespace lt
