// scheduler/generic.cpp — see generic.h.
#include "scheduler/generic.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <functional>

namespace lt {
namespace {

using Kind = KernelSignature::Kind;

// Where each signature position lives: an axis, a buffer or an op id.
struct Position {
  Kind kind;
  int32_t where;
};

std::vector<Position> positions_of(const Kernel& k) {
  std::vector<Position> out;
  for (size_t a = 0; a < k.domain.size(); ++a) out.push_back({Kind::Extent, static_cast<int32_t>(a)});
  for (size_t b = 0; b < k.buffers.size(); ++b) out.push_back({Kind::Numel, static_cast<int32_t>(b)});
  // MatMul operand strides: 0, 1 the lhs's row and col stride, 2, 3 the rhs's.
  if (k.kind == KernelKind::MatMul)
    for (int32_t w = 0; w < 4; ++w)
      if ((w < 2 ? k.mm_lhs_view : k.mm_rhs_view).valid()) out.push_back({Kind::ViewStride, w});
  for (size_t id = 0; id < k.ops.size(); ++id) {
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Const && o.dtype == DType::Int64) out.push_back({Kind::IntConst, static_cast<int32_t>(id)});
    else if (o.code == KOpCode::Const && is_floating(o.dtype)) out.push_back({Kind::FloatConst, static_cast<int32_t>(id)});
    else if ((o.code == KOpCode::IndexDiv || o.code == KOpCode::IndexMod) && o.num_inputs == 1)
      out.push_back({Kind::Divisor, static_cast<int32_t>(id)});
  }
  return out;
}

int64_t double_bits(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

int64_t value_at(const Kernel& k, const Position& p) {
  switch (p.kind) {
    case Kind::Extent: return k.domain[p.where];
    case Kind::Numel: return k.buffers[p.where].numel;
    case Kind::FloatConst: return double_bits(k.ops[p.where].fimm);
    case Kind::IntConst:
    case Kind::Divisor: return k.ops[p.where].imm;
    case Kind::ViewStride: {
      const MatMulView& v = p.where < 2 ? k.mm_lhs_view : k.mm_rhs_view;
      return p.where % 2 ? v.col_stride : v.row_stride;
    }
  }
  return 0;
}

// Index-argument slot holding `bits` (of type `dtype`) at launch.
int32_t add_slot(Kernel* k, DType dtype, int64_t bits) {
  k->index_args.resize(k->scalar_types.size(), 0);
  k->scalar_types.push_back(dtype);
  k->scalar_slots.push_back(kIndexArgSlot);
  k->index_args.push_back(bits);
  return static_cast<int32_t>(k->scalar_types.size()) - 1;
}

}  // namespace

namespace {

// Integer index arithmetic over coordinates and literals: what the builder
// hash-conses across uses that merely coincide at one size (a length equal to
// a head size makes `h * 32` and `m * T` one op).
bool index_pure(const Kernel& k, int32_t id, std::vector<int8_t>& memo) {
  if (memo[id] >= 0) return memo[id];
  const KOp& o = k.ops[id];
  bool pure = o.code == KOpCode::Coord || o.code == KOpCode::Const || o.code == KOpCode::Param;
  if ((o.code == KOpCode::Compute && o.dtype == DType::Int64) || o.code == KOpCode::IndexDiv ||
      o.code == KOpCode::IndexMod) {
    pure = true;
    for (int i = 0; i < o.num_inputs; ++i) pure = pure && index_pure(k, o.inputs[i], memo);
  }
  memo[id] = pure;
  return pure;
}

// One pass of const_split; `trees`: index arithmetic trees of at most
// kMaxTree ops are copied per use too (else only literals; a larger or
// deeper index DAG stays shared: copying it per use could grow without
// bound). False when the copy outgrows `cap` ops.
constexpr int32_t kMaxTree = 32;

bool split_pass(const Kernel& k, bool trees, size_t cap, Kernel* out) {
  *out = k;
  out->ops.clear();
  out->ops.reserve(k.ops.size() + k.ops.size() / 2);
  std::vector<int8_t> memo(k.ops.size(), -1);
  std::vector<int32_t> tree(k.ops.size(), 0);  // ops in the tree under id (saturating at kMaxTree + 1)
  for (size_t id = 0; id < k.ops.size(); ++id) {
    int32_t n = 1;
    for (int i = 0; i < k.ops[id].num_inputs; ++i) n = std::min(kMaxTree + 1, n + tree[k.ops[id].inputs[i]]);
    tree[id] = n;
  }
  auto per_use = [&](int32_t id) {
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Const) return true;
    return trees && o.code != KOpCode::Coord && o.code != KOpCode::Param && tree[id] <= kMaxTree &&
           index_pure(k, id, memo);
  };
  std::vector<int32_t> map(k.ops.size(), -1);
  bool ok = true;
  std::function<int32_t(int32_t)> use = [&](int32_t id) -> int32_t {
    if (id < 0 || !per_use(id)) return id < 0 ? id : map[id];
    if (!ok) return 0;  // over the cap: the pass is abandoned
    KOp o = k.ops[id];
    for (int i = 0; i < o.num_inputs; ++i) o.inputs[i] = use(o.inputs[i]);
    if (out->ops.size() >= cap) ok = false;
    out->ops.push_back(o);
    return static_cast<int32_t>(out->ops.size()) - 1;
  };
  for (size_t id = 0; id < k.ops.size() && ok; ++id) {
    if (per_use(static_cast<int32_t>(id))) continue;  // emitted at each use
    KOp o = k.ops[id];
    for (int i = 0; i < o.num_inputs; ++i) o.inputs[i] = use(o.inputs[i]);
    out->ops.push_back(o);
    map[id] = static_cast<int32_t>(out->ops.size()) - 1;
  }
  out->mm_lhs = use(k.mm_lhs);
  out->mm_rhs = use(k.mm_rhs);
  out->mm_lhs_view.base = use(k.mm_lhs_view.base);
  out->mm_rhs_view.base = use(k.mm_rhs_view.base);
  return ok;
}

Hash128 values_key(const KernelSignature& sig) {
  StableHasher h;
  for (int64_t v : sig.values) h.add(static_cast<uint64_t>(v));
  return h.finish();
}

}  // namespace

Kernel const_split(const Kernel& k) {
  // Index trees are a few ops deep; the cap keeps a kernel that shares them
  // heavily from growing (it then splits only its literals).
  Kernel out;
  if (!split_pass(k, /*trees=*/true, 4 * k.ops.size() + 256, &out)) split_pass(k, /*trees=*/false, SIZE_MAX, &out);
  return out;
}

KernelSignature kernel_signature(const Kernel& split) {
  KernelSignature sig;
  std::vector<Position> pos = positions_of(split);
  Kernel shape = split;  // the structure: every position zeroed
  for (const Position& p : pos) {
    sig.values.push_back(value_at(split, p));
    sig.kinds.push_back(p.kind);
    switch (p.kind) {
      case Kind::Extent: shape.domain[p.where] = 0; break;
      case Kind::Numel: shape.buffers[p.where].numel = 0; break;
      case Kind::FloatConst: shape.ops[p.where].fimm = 0; break;
      case Kind::ViewStride: {
        MatMulView& v = p.where < 2 ? shape.mm_lhs_view : shape.mm_rhs_view;
        (p.where % 2 ? v.col_stride : v.row_stride) = 0;
        break;
      }
      default: shape.ops[p.where].imm = 0; break;
    }
  }
  sig.structure = shape.hash();
  return sig;
}

bool make_generic(const Kernel& split, const KernelSignature& sig, const std::vector<char>& vary, Kernel* out) {
  std::vector<Position> pos = positions_of(split);
  if (pos.size() != vary.size() || pos.size() != sig.values.size()) return false;
  Kernel g = split;
  std::vector<char> divisor(split.ops.size(), 0);
  for (size_t i = 0; i < pos.size(); ++i) {
    if (!vary[i]) continue;
    const Position& p = pos[i];
    switch (p.kind) {
      case Kind::Extent:
        // The empty-domain paths are chosen when the kernel is compiled.
        if (split.domain[p.where] <= 0) return false;
        g.domain_slots.resize(split.domain.size(), -1);
        g.domain_slots[p.where] = add_slot(&g, DType::Int64, split.domain[p.where]);
        break;
      case Kind::Numel: g.buffers[p.where].generic_numel = true; break;
      case Kind::IntConst:
      case Kind::FloatConst: {
        KOp& o = g.ops[p.where];
        int64_t bits = value_at(split, p);
        o.code = KOpCode::Param;
        o.imm = add_slot(&g, o.dtype, bits);
        o.fimm = 0;
        break;
      }
      case Kind::Divisor:
        if (split.ops[p.where].imm <= 0) return false;
        divisor[p.where] = 1;
        break;
      case Kind::ViewStride: (p.where < 2 ? g.mm_lhs_view : g.mm_rhs_view).generic = true; break;
    }
  }
  // Varying divisors: an i64 Param op inserted before each, the ids after it shifted.
  bool any_divisor = false;
  for (char d : divisor) any_divisor |= d != 0;
  if (any_divisor) {
    std::vector<KOp> ops;
    ops.reserve(g.ops.size() + 8);
    std::vector<int32_t> map(g.ops.size(), -1);
    for (size_t id = 0; id < g.ops.size(); ++id) {
      KOp o = g.ops[id];
      for (int i = 0; i < o.num_inputs; ++i) o.inputs[i] = map[o.inputs[i]];
      if (divisor[id]) {
        KOp param;
        param.code = KOpCode::Param;
        param.dtype = DType::Int64;
        param.imm = add_slot(&g, DType::Int64, o.imm);
        ops.push_back(param);
        o.num_inputs = 2;
        o.inputs[1] = static_cast<int32_t>(ops.size()) - 1;
        o.imm = 0;
      }
      ops.push_back(o);
      map[id] = static_cast<int32_t>(ops.size()) - 1;
    }
    auto remap = [&](int32_t id) { return id < 0 ? id : map[id]; };
    g.mm_lhs = remap(g.mm_lhs);
    g.mm_rhs = remap(g.mm_rhs);
    g.mm_lhs_view.base = remap(g.mm_lhs_view.base);
    g.mm_rhs_view.base = remap(g.mm_rhs_view.base);
    g.ops = std::move(ops);
  }
  *out = std::move(g);
  return true;
}

namespace {
// The product of a kernel's domain extents (saturating): its loop steps.
int64_t loop_steps(const Kernel& k) {
  int64_t steps = 1;
  for (int64_t d : k.domain) steps = d > 0 && steps > INT64_MAX / d ? INT64_MAX : steps * d;
  return steps;
}
}  // namespace

bool GenericKernels::generalize(Kernel* kernel) { return generalize(kernel, nullptr, nullptr); }

bool GenericKernels::generalize(Kernel* kernel, absl::flat_hash_set<Hash128>* made_here, Kernel* original) {
  // A convolution's packing reads its geometry (Kernel::mm_conv): another
  // image size is another kernel.
  if (kernel->symbolic_domain() || kernel->mm_conv.valid()) return false;
  Kernel split = const_split(*kernel);
  KernelSignature sig = kernel_signature(split);
  std::lock_guard<std::mutex> lock(mu_);
  // A process that plans ever new structures keeps a bounded memory of them
  // (forgetting one costs at most one more compile of its kernels).
  if (templates_.size() >= kMaxTemplates && !templates_.contains(sig.structure)) templates_.clear();
  auto [it, fresh] = templates_.try_emplace(sig.structure);
  Template& t = it->second;
  if (fresh) {
    t.values = sig.values;
    t.vary.assign(sig.values.size(), 0);
    if (made_here) made_here->insert(sig.structure);
    return false;
  }
  if (t.values.size() != sig.values.size()) return false;
  std::vector<char> vary = t.vary;
  bool first_values = true;  // the kernel the template was made from: compiled as it is
  for (size_t i = 0; i < vary.size(); ++i)
    if (sig.values[i] != t.values[i]) vary[i] = 1, first_values = false;
  if (first_values) return false;
  if (!t.generic) {
    const int64_t steps = loop_steps(*kernel);
    // Other sizes of a structure within the plan that made its template are
    // other layers of one program, not a dimension that changes between
    // runs: they stay specialised too (see generalize_plan).
    if (steps >= kLargeKernelSteps || (made_here && made_here->contains(sig.structure))) {
      Hash128 key = values_key(sig);
      if (std::find(t.specialised.begin(), t.specialised.end(), key) != t.specialised.end()) return false;
      if (t.specialised.size() + 1 < kSpecialisedSizes) {
        t.specialised.push_back(key);
        return false;
      }
    }
  } else if (!t.specialised.empty()) {
    // A size that was compiled as it is keeps its specialised kernel.
    Hash128 key = values_key(sig);
    if (std::find(t.specialised.begin(), t.specialised.end(), key) != t.specialised.end()) return false;
  }
  Kernel g;
  if (!make_generic(split, sig, vary, &g)) return false;
  t.vary = std::move(vary);
  t.generic = true;
  ++rewritten_;
  if (original) *original = std::move(*kernel);
  *kernel = std::move(g);
  return true;
}

int GenericKernels::generalize_plan(std::vector<Kernel>* kernels, std::vector<Kernel>* originals) {
  if (originals) originals->assign(kernels->size(), Kernel());
  struct Occurrence {
    size_t index;
    Kernel split;
    KernelSignature sig;
  };
  absl::flat_hash_map<Hash128, std::vector<Occurrence>> fresh;  // structures this plan sees first
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < kernels->size(); ++i) {
      const Kernel& k = (*kernels)[i];
      if (k.symbolic_domain()) continue;
      const int64_t steps = loop_steps(k);
      // Only kernels whose compile outweighs many launches: a matmul or a
      // larger kernel in generic form ran the CNN step 14% slower (min
      // kernel time of 60 steps, 40.0 against 34.9 ms).
      if (k.kind == KernelKind::MatMul || steps >= kPlanGenericSteps) continue;
      Kernel split = const_split(k);
      KernelSignature sig = kernel_signature(split);
      if (templates_.contains(sig.structure)) continue;
      fresh[sig.structure].push_back({i, std::move(split), std::move(sig)});
    }
  }
  std::vector<char> done(kernels->size(), 0);
  int rewritten = 0;
  for (auto& [structure, occ] : fresh) {
    const std::vector<int64_t>& first = occ[0].sig.values;
    std::vector<char> vary(first.size(), 0);
    bool same_arity = true;
    for (const Occurrence& o : occ) {
      if (o.sig.values.size() != first.size()) {
        same_arity = false;
        break;
      }
      for (size_t j = 0; j < first.size(); ++j) vary[j] |= o.sig.values[j] != first[j];
    }
    if (!same_arity || std::find(vary.begin(), vary.end(), 1) == vary.end()) continue;
    // A structure whose values cannot all take the generic form keeps the
    // ordinary rule (as do large occurrences, which were not collected).
    std::vector<Kernel> generic(occ.size());
    bool ok = true;
    for (size_t j = 0; j < occ.size() && ok; ++j) ok = make_generic(occ[j].split, occ[j].sig, vary, &generic[j]);
    if (!ok) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (templates_.size() >= kMaxTemplates) templates_.clear();
      Template& t = templates_[structure];
      t.values = first;
      t.vary = vary;
      t.generic = true;
      rewritten_ += static_cast<int64_t>(occ.size());
    }
    for (size_t j = 0; j < occ.size(); ++j) {
      (*kernels)[occ[j].index] = std::move(generic[j]);
      done[occ[j].index] = 1;
      ++rewritten;
    }
  }
  absl::flat_hash_set<Hash128> made_here;
  for (size_t i = 0; i < kernels->size(); ++i)
    if (!done[i] && generalize(&(*kernels)[i], &made_here, originals ? &(*originals)[i] : nullptr)) {
      ++rewritten;
      // A tiny kernel's launch is mostly overhead: specialised code would not repay its compile.
      if (originals && loop_steps((*originals)[i]) < kPlanGenericSteps) (*originals)[i] = Kernel();
    }
  return rewritten;
}

int64_t GenericKernels::rewritten() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rewritten_;
}

void GenericKernels::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  templates_.clear();
}

}  // namespace lt
