// jit/cpu/codegen.cpp — emits one kernel as LLVM IR.
//
// Loop shapes follow scheduler/kernel.h. The entry loads the buffer pointers
// and calls an internal body whose pointer parameters are `noalias` (the plan
// never binds one buffer to two arguments), so after inlining the loop
// vectoriser needs no runtime alias checks. Reductions accumulate in allocas
// that mem2reg turns into loop phis; float sums are `reassoc` so the
// vectoriser may keep several vector accumulators; float32 sums and products
// accumulate in double, as the reference evaluator does.
//
// Streaming stores. A store normally pays a read-for-ownership: the line is
// read from memory before it is overwritten, so an elementwise kernel that
// reads one array and writes another moves 3 bytes per 2 it needs, while
// memcpy (non-temporal stores above a size threshold) moves 2. Elementwise
// kernels that write at least kStreamingStoreBytes, every store at the
// domain's row-major index, therefore split each inner chunk in two: a scalar
// peel up to a 64-byte-aligned linear index, then the main loop, entered with
// `llvm.assume` that the stored buffers are 64-byte aligned (checked at run
// time; buffers from lt's allocator always are — otherwise the scalar loop
// runs the whole chunk). The loop vectoriser vectorises the main loop as
// usual; AlignmentFromAssumptions proves its vector stores aligned, and
// compiler.cpp marks those `!nontemporal` after the pipeline
// (mark_streaming_stores). The vectoriser itself refuses `!nontemporal` on
// scalar stores it cannot prove aligned, hence this order. Each call ends with
// an sfence, so its stores are ordered before TBB hands the range back.
#include "jit/cpu/codegen.h"
#include "jit/cpu/jit.h"
#include "jit/cpu/random.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <vector>

#include "ir/error.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/TargetParser/Triple.h"

namespace lt::cpu {
namespace {

using llvm::Value;

class Codegen {
 public:
  Codegen(const Kernel& k, llvm::Module& m, bool math_calls)
      : k_(k), m_(m), ctx_(m.getContext()), b_(ctx_), math_calls_(math_calls) {}
  void run(const std::string& symbol);

 private:
  // Register (compute) type. Float16 and BFloat16 compute in float and are
  // rounded after every primitive (normalize); Int8, UInt8 and Int16 compute
  // in i32, sign- (UInt8: zero-) extended, and wrap after every primitive.
  // Comparisons, shifts, division and casts then need no per-dtype variants.
  llvm::Type* vtype(DType d) {
    switch (d) {
      case DType::Bool: return b_.getInt1Ty();
      case DType::Int32: return b_.getInt32Ty();
      case DType::Int64: return b_.getInt64Ty();
      case DType::Float32: return b_.getFloatTy();
      case DType::Float64: return b_.getDoubleTy();
      case DType::Float16:
      case DType::BFloat16: return b_.getFloatTy();
      case DType::Int8:
      case DType::UInt8:
      case DType::Int16: return b_.getInt32Ty();
    }
    return nullptr;
  }
  // Memory (buffer element) type. BFloat16 is moved as i16 and converted with
  // integer ops (no bf16 instructions on this target).
  llvm::Type* mtype(DType d) {
    switch (d) {
      case DType::Bool: return b_.getInt8Ty();
      case DType::Float16: return b_.getHalfTy();
      case DType::BFloat16: return b_.getInt16Ty();
      case DType::Int8:
      case DType::UInt8: return b_.getInt8Ty();
      case DType::Int16: return b_.getInt16Ty();
      default: return vtype(d);
    }
  }
  // A loaded element (mtype) as its register value (vtype), and back.
  Value* widen(Value* v, DType d);
  Value* narrow(Value* v, DType d);
  // Rounds (f16, bf16) or wraps (i8, u8, i16) a register value to its dtype; identity otherwise.
  Value* normalize(Value* v, DType d);
  Value* i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }
  // Extent of domain axis `a`: a literal, or the scalar slot of a shape-generic kernel.
  Value* extent(size_t a) const { return extents_[a]; }
  // Product of the extents of axes [first, last).
  Value* extent_product(size_t first, size_t last) {
    Value* n = i64(1);
    for (size_t a = first; a < last; ++a) n = b_.CreateMul(n, extent(a));
    return n;
  }

  Value* get(int32_t id);
  Value* get_row(int32_t id);
  Value* gen(int32_t id);
  Value* gen_compute(const KOp& o);
  Value* cast(Value* v, DType from, DType to);
  Value* to_bool(Value* v, DType from) { return cast(v, from, DType::Bool); }
  Value* intrinsic(llvm::Intrinsic::ID id, Value* a, Value* c = nullptr);
  Value* gen_random(Value* seed, Value* counter, int64_t stream, DType dtype);
  Value* uniform_from_word(Value* bits, DType dtype);
  Value* gen_check_index(const KOp& o, Value* idx);
  void collect_row_deps(int32_t id, std::vector<char>& seen);

  // Stashes (Rows kernels): an expensive element value that phase `from`
  // computes first and later phases up to `to` (which stores into `buffer`
  // at `offset`) would recompute is stored there in `from` and reloaded in
  // the phases after it (see plan_stashes).
  struct Stash {
    int32_t value, buffer, offset, from, to;
  };
  std::vector<Stash> plan_stashes() const;
  void elem_deps(int32_t id, std::vector<char>& seen) const;
  bool is_row_major_offset(int32_t id) const;

  // Loops: returns the induction variable; body runs with the builder inside.
  struct Loop {
    llvm::BasicBlock *header, *body, *exit;
    llvm::PHINode* iv;
    int64_t step;
  };
  Loop begin_loop(Value* start, Value* end, const char* name, int64_t step = 1);
  // interleave > 0 forces that interleave count; < 0 keeps the loop scalar.
  // fold_tail > 0: the vectoriser runs the remainder as a masked vector
  // iteration instead of a scalar loop (row loops, see fold_row_tail); < 0:
  // it may not (a loop shorter than a vector then stays scalar).
  // unroll_vectorized: the vectorised loop is unrolled whole (Rows lane
  // loops: their accumulators then stay in registers).
  void end_loop(Loop& l, int interleave = 0, int fold_tail = 0, bool unroll_vectorized = false);
  // Ends a loop whose induction variable advances by `next` (a value of the body).
  void end_loop_at(Loop& l, Value* next);
  // Emits the element DAG's effects for inner coordinate iv.
  void gen_elements(Value* iv);
  bool streams_stores() const;
  // Elementwise loop bodies with a transcendental get kTranscendentalInterleave.
  bool interleaves_body() const;

  void gen_elementwise(Value* begin, Value* end);
  void gen_rows(Value* begin, Value* end);
  // `out` null: rows [begin, end) whole. Else the column-split part: inner
  // elements [inner_begin, inner_end) only, each row's accumulators stored
  // raw at out[row * row_stride + i] (8-byte slots) instead of finished.
  void gen_rows_columns(Value* begin, Value* end, Value* inner_begin = nullptr, Value* inner_end = nullptr,
                        Value* out = nullptr, Value* row_stride = nullptr);
  void gen_split_part(Value* row, Value* begin, Value* end, Value* out);
  void gen_split_finish(Value* row, Value* partials, Value* nparts);
  // Rows kernels: the row-level effects (stores, index checks) of the current row.
  void gen_row_effects();
  // A split part's partial: reduction `id`'s raw accumulator at `acc` into the 8-byte `slot`.
  void store_partial(int32_t id, Value* acc, Value* slot);
  std::vector<int32_t> split_reduces() const;
  // Creates the internal body `name` with noalias buffer params followed by
  // (scalars, error, extra...), sets bufs_/scalars_/err_ and the insert point.
  llvm::Function* begin_body(const std::string& name, const std::vector<llvm::Type*>& extra);
  // The external entry `symbol`(const KernelArgs*, extra...) that unpacks the args and calls `body`.
  void make_entry(const std::string& symbol, llvm::Function* body, const std::vector<llvm::Type*>& extra);
  void reset_state();
  void set_coords_from(Value* linear, size_t first, size_t last);

  // Reductions
  struct Acc {
    llvm::AllocaInst* value = nullptr;
    llvm::AllocaInst* index = nullptr;
    DType acc_type;
  };
  DType acc_type(const KOp& o) const;
  // `slot`: the accumulator's memory (default: the reduction's own alloca).
  void init_acc(int32_t id, Value* slot = nullptr);
  // The value a reduction's accumulator starts at (its identity; max: -inf, ...).
  Value* acc_identity(int32_t id);
  void update_acc(int32_t id, Value* x, Value* inner_index, bool raw = false, Value* slot = nullptr);
  Value* finish_acc(int32_t id, Value* slot = nullptr);
  llvm::AllocaInst* entry_alloca(llvm::Type* t);

  const Kernel& k_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  bool math_calls_;
  llvm::Function* fn_ = nullptr;
  std::vector<Value*> bufs_;
  Value* scalars_ = nullptr;
  Value* err_ = nullptr;
  std::vector<Value*> coords_;
  std::vector<Value*> extents_;  // per domain axis, set by begin_body
  std::vector<Value*> row_, elem_;
  std::vector<Acc> acc_;
};

llvm::AllocaInst* Codegen::entry_alloca(llvm::Type* t) {
  llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  return eb.CreateAlloca(t);
}

Value* Codegen::intrinsic(llvm::Intrinsic::ID id, Value* a, Value* c) {
  if (c) return b_.CreateBinaryIntrinsic(id, a, c);
  return b_.CreateUnaryIntrinsic(id, a);
}

Codegen::Loop Codegen::begin_loop(Value* start, Value* end, const char* name, int64_t step) {
  Loop l;
  l.step = step;
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  l.header = llvm::BasicBlock::Create(ctx_, std::string(name) + ".head", fn_);
  l.body = llvm::BasicBlock::Create(ctx_, std::string(name) + ".body", fn_);
  l.exit = llvm::BasicBlock::Create(ctx_, std::string(name) + ".exit", fn_);
  b_.CreateBr(l.header);
  b_.SetInsertPoint(l.header);
  l.iv = b_.CreatePHI(b_.getInt64Ty(), 2, name);
  l.iv->addIncoming(start, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(l.iv, end), l.body, l.exit);
  b_.SetInsertPoint(l.body);
  return l;
}

void Codegen::end_loop(Loop& l, int interleave, int fold_tail, bool unroll_vectorized) {
  Value* next = b_.CreateAdd(l.iv, i64(l.step), "", true, true);
  l.iv->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* br = b_.CreateBr(l.header);
  std::vector<llvm::Metadata*> ops = {nullptr};
  if (interleave != 0) {
    // Several vector accumulators hide the add latency of a reduction; a
    // streaming store peel of < 16 iterations is not worth a vector loop.
    llvm::Metadata* count[] = {
        llvm::MDString::get(ctx_, interleave > 0 ? "llvm.loop.interleave.count" : "llvm.loop.vectorize.enable"),
        llvm::ConstantAsMetadata::get(interleave > 0 ? b_.getInt32(interleave) : b_.getFalse())};
    ops.push_back(llvm::MDNode::get(ctx_, count));
  }
  if (fold_tail != 0) {
    llvm::Metadata* fold[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.predicate.enable"),
                              llvm::ConstantAsMetadata::get(fold_tail > 0 ? b_.getTrue() : b_.getFalse())};
    ops.push_back(llvm::MDNode::get(ctx_, fold));
  }
  if (unroll_vectorized) {
    llvm::Metadata* full[] = {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")};
    llvm::Metadata* follow[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.followup_vectorized"),
                                llvm::MDNode::get(ctx_, full)};
    ops.push_back(llvm::MDNode::get(ctx_, follow));
  }
  if (ops.size() > 1) {
    llvm::MDNode* md = llvm::MDNode::getDistinct(ctx_, ops);
    md->replaceOperandWith(0, md);
    br->setMetadata(llvm::LLVMContext::MD_loop, md);
  }
  b_.SetInsertPoint(l.exit);
}

void Codegen::end_loop_at(Loop& l, Value* next) {
  l.iv->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(l.header);
  b_.SetInsertPoint(l.exit);
}

Value* Codegen::widen(Value* v, DType d) {
  switch (d) {
    case DType::Bool: return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    case DType::Float16: return b_.CreateFPExt(v, b_.getFloatTy());
    case DType::BFloat16:
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    case DType::Int8:
    case DType::Int16: return b_.CreateSExt(v, b_.getInt32Ty());
    case DType::UInt8: return b_.CreateZExt(v, b_.getInt32Ty());
    default: return v;
  }
}

Value* Codegen::narrow(Value* v, DType d) {
  switch (d) {
    case DType::Bool: return b_.CreateZExt(v, b_.getInt8Ty());
    case DType::Float16: return b_.CreateFPTrunc(v, b_.getHalfTy());
    case DType::BFloat16:  // already rounded (normalize): the top half is exact
      return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), b_.getInt16Ty());
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16: return b_.CreateTrunc(v, mtype(d));
    default: return v;
  }
}

Value* Codegen::normalize(Value* v, DType d) {
  switch (d) {
    case DType::Float16:  // F16C's vcvtps2ph rounds to nearest even, keeps NaN/inf, makes subnormals
      return b_.CreateFPExt(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getFloatTy());
    case DType::BFloat16: {
      // Round to nearest even on the bits (ir/lowp.h's float_to_bfloat16_bits): add 0x7FFF plus
      // the kept lsb, clear the low half; NaN becomes 0x7FC0 as torch's.
      llvm::Type* i32 = v->getType()->getWithNewType(b_.getInt32Ty());
      Value* u = b_.CreateBitCast(v, i32);
      // The lsb as a compare, so AVX-512 tests it into a mask and picks the
      // bias 0x7FFF or 0x8000 by it (vptestnmd, vpblendmd, vpaddd): with the
      // clear and the NaN select 6 instructions per rounding instead of 7.
      Value* odd =
          b_.CreateICmpNE(b_.CreateAnd(u, llvm::ConstantInt::get(i32, 0x10000)), llvm::ConstantInt::get(i32, 0));
      Value* biased = b_.CreateAdd(u, llvm::ConstantInt::get(i32, 0x7FFF));
      Value* r = b_.CreateSelect(odd, b_.CreateAdd(biased, llvm::ConstantInt::get(i32, 1)), biased);
      r = b_.CreateAnd(r, llvm::ConstantInt::get(i32, 0xFFFF0000u));
      Value* nan = b_.CreateFCmpUNO(v, v);
      r = b_.CreateSelect(nan, llvm::ConstantInt::get(i32, 0x7FC00000u), r);
      return b_.CreateBitCast(r, v->getType());
    }
    case DType::Int8:
    case DType::Int16: return b_.CreateSExt(b_.CreateTrunc(v, v->getType()->getWithNewType(mtype(d))), v->getType());
    case DType::UInt8: return b_.CreateZExt(b_.CreateTrunc(v, v->getType()->getWithNewType(mtype(d))), v->getType());
    default: return v;
  }
}

Value* Codegen::cast(Value* v, DType from, DType to) {
  if (from == to) return v;
  if (is_low_precision_float(to) || is_narrow_int(to)) {
    // Into the register type first (f64 -> float: through float as torch,
    // never a direct double -> half libcall), then round or wrap.
    DType wide = is_narrow_int(to) ? DType::Int32 : DType::Float32;
    return normalize(cast(v, from, wide), to);
  }
  if (from == DType::Float16 || from == DType::BFloat16) from = DType::Float32;  // same registers
  if (is_narrow_int(from)) from = DType::Int32;  // sign- or zero-extended: exact in i32
  if (from == to) return v;
  llvm::Type* t = vtype(to);
  if (to == DType::Bool) {
    if (is_floating(from)) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from == DType::Bool) return is_floating(to) ? b_.CreateUIToFP(v, t) : b_.CreateZExt(v, t);
  if (is_floating(from) && is_floating(to)) return b_.CreateFPCast(v, t);
  if (is_floating(from)) {
    // Truncation; NaN and out-of-range give the type's minimum (x86 cvtt*, as the reference).
    unsigned bits = t->getIntegerBitWidth();
    double lim = std::ldexp(1.0, static_cast<int>(bits) - 1);
    Value* in_range = b_.CreateAnd(b_.CreateFCmpOGE(v, llvm::ConstantFP::get(v->getType(), -lim)),
                                   b_.CreateFCmpOLT(v, llvm::ConstantFP::get(v->getType(), lim)));
    return b_.CreateSelect(in_range, b_.CreateFPToSI(v, t), llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits)));
  }
  if (is_floating(to)) return b_.CreateSIToFP(v, t);
  return b_.CreateSExtOrTrunc(v, t);
}

Value* Codegen::get(int32_t id) {
  const KOp& o = k_.ops[id];
  if (k_.kind == KernelKind::Rows && !o.elem) return get_row(id);
  if (elem_[id]) return elem_[id];
  return elem_[id] = gen(id);
}

Value* Codegen::get_row(int32_t id) {
  if (row_[id]) return row_[id];
  const KOp& o = k_.ops[id];
  if (o.code == KOpCode::Reduce) fail(ErrorKind::Runtime, "cpu codegen: reduction %", id, " used before its loop");
  for (int i = 0; i < o.num_inputs; ++i) get_row(o.inputs[i]);
  return row_[id] = gen(id);
}

void Codegen::collect_row_deps(int32_t id, std::vector<char>& seen) {
  for_each_row_dep(k_, id, seen, [&](int32_t r) { get_row(r); });
}

// Marks the element-level ops phase code must evaluate for `id`.
void Codegen::elem_deps(int32_t id, std::vector<char>& seen) const {
  const KOp& o = k_.ops[id];
  if (seen[id] || !o.elem) return;
  seen[id] = 1;
  for (int i = 0; i < o.num_inputs; ++i) elem_deps(o.inputs[i], seen);
}

// True when `id` is the row-major linear index of the domain (sum of
// Coord(axis) * stride(axis), built from Coord, Const, Add, Sub and Mul):
// an offset that visits each element of its buffer once, rows disjoint.
bool Codegen::is_row_major_offset(int32_t id) const {
  if (k_.symbolic_domain()) return false;  // its strides are runtime values
  size_t r = k_.domain.size();
  std::vector<int64_t> f;
  if (!affine_offset(k_, id, &f) || f[r] != 0) return false;
  int64_t stride = 1;
  for (size_t i = r; i-- > 0;) {
    if (k_.domain[i] > 1 && f[i] != stride) return false;
    stride *= k_.domain[i];
  }
  return true;
}

// Softmax's last phase stores exp(x - max) / sum, and its sum phase already
// computed exp(x - max): a second exp per element made the kernel compute
// bound. When a later phase stores into a buffer laid out like the domain
// (row-major offset, written by that one store and never read), an earlier
// phase can park the shared value in the output row itself and the later
// phase reloads it. The row stays in cache between the phases (bounded below),
// so the extra traffic is an L1/L2 store and load, far cheaper than the
// recomputation. Only values worth it are stashed: ones whose element-level
// DAG holds a transcendental or several divides. The first phase that
// computes the value stashes it and every later phase reloads it: a
// layer_norm of gelu(x) computes erf once per element, not three times
// (and compiles one copy of it instead of three).
std::vector<Codegen::Stash> Codegen::plan_stashes() const {
  std::vector<Stash> out;
  if (k_.kind != KernelKind::Rows || k_.num_phases < 2 || k_.inner_size() == 0 || k_.symbolic_domain()) return out;
  size_t n = k_.ops.size();
  std::vector<int> stores(k_.buffers.size(), 0), loads(k_.buffers.size(), 0);
  for (const KOp& o : k_.ops) {
    if (o.code == KOpCode::Load) ++loads[o.imm];
    if (o.code == KOpCode::Store) ++stores[o.imm];
    if (o.code == KOpCode::AccumStore) stores[o.imm] += 2;  // read-modify-write: never a stash
  }
  // Element ops each phase evaluates.
  std::vector<std::vector<char>> in_phase(k_.num_phases, std::vector<char>(n, 0));
  for (size_t id = 0; id < n; ++id) {
    const KOp& o = k_.ops[id];
    if (o.code == KOpCode::Reduce) elem_deps(o.inputs[0], in_phase[o.phase]);
    else if (o.elem && (is_effect(o.code) || o.code == KOpCode::Scan))
      for (int i = 0; i < o.num_inputs; ++i) elem_deps(o.inputs[i], in_phase[o.phase]);
  }
  // On the registry's scale (op_cost): one expensive op is worth a stash;
  // Philox's ten integer rounds count as two.
  constexpr int64_t kMinCost = cost_weight(CostClass::Expensive);
  auto op_cost = [&](const KOp& o) -> int64_t {
    if (o.code != KOpCode::Compute) return o.code == KOpCode::Random ? 2 * kMinCost : 0;
    return lt::op_cost(o.op);
  };
  constexpr int64_t kMaxRowBytes = 256 << 10;  // stays in L2 between phases
  for (size_t sid = 0; sid < n; ++sid) {
    const KOp& s = k_.ops[sid];
    if (s.code != KOpCode::Store || !s.elem || s.phase == 0) continue;
    const KernelBuffer& buf = k_.buffers[s.imm];
    if (stores[s.imm] != 1 || loads[s.imm] != 0 || buf.numel != shape_numel(k_.domain)) continue;
    if (!is_floating(buf.dtype) || buf.dtype != s.dtype) continue;
    if (is_low_precision_float(buf.dtype)) continue;  // registers are float, the buffer narrower
    if (k_.inner_size() * static_cast<int64_t>(dtype_size(buf.dtype)) > kMaxRowBytes) continue;
    if (!is_row_major_offset(s.inputs[0])) continue;
    std::vector<char> need(n, 0);
    elem_deps(s.inputs[1], need);
    int best = -1, best_saved = 0, from = -1;
    for (size_t x = 0; x < n; ++x) {
      const KOp& o = k_.ops[x];
      if (!need[x] || o.dtype != s.dtype || o.code == KOpCode::Load) continue;
      int p = 0;  // the first phase that evaluates it: every later one reloads it
      while (p < s.phase && !in_phase[p][x]) ++p;
      if (p == s.phase) continue;
      std::vector<char> sub(n, 0);
      elem_deps(static_cast<int32_t>(x), sub);
      int cost = 0;
      for (size_t y = 0; y < n; ++y)
        if (sub[y]) cost += op_cost(k_.ops[y]);
      // What reloading saves: one evaluation in each later phase that needs it.
      int saved = cost;
      for (int q = p + 1; q < s.phase; ++q) saved += in_phase[q][x] ? cost : 0;
      if (cost >= kMinCost && saved > best_saved) best = static_cast<int>(x), best_saved = saved, from = p;
    }
    if (best >= 0) out.push_back({best, static_cast<int32_t>(s.imm), s.inputs[0], from, s.phase});
  }
  return out;
}

DType Codegen::acc_type(const KOp& o) const { return reduction_acc_type(k_, o); }

void Codegen::init_acc(int32_t id, Value* slot) {
  const KOp& o = k_.ops[id];
  Acc& a = acc_[id];
  a.acc_type = acc_type(o);
  llvm::Type* t = vtype(a.acc_type);
  if (!slot && !a.value) a.value = entry_alloca(t);
  if (!slot) slot = a.value;
  b_.CreateStore(acc_identity(id), slot);
  if (o.op == Op::ArgMax || o.op == Op::ArgMin) {
    if (!a.index) a.index = entry_alloca(b_.getInt64Ty());
    b_.CreateStore(i64(0), a.index);
  }
}

Value* Codegen::acc_identity(int32_t id) {
  const KOp& o = k_.ops[id];
  DType at = acc_type(o);
  llvm::Type* t = vtype(at);
  Value* init;
  bool is_max = o.op == Op::ReduceMax || o.op == Op::ArgMax;
  bool is_min = o.op == Op::ReduceMin || o.op == Op::ArgMin;
  if (is_max || is_min) {
    if (is_floating(at)) {
      init = llvm::ConstantFP::getInfinity(t, is_max);
    } else if (at == DType::Bool) {
      init = b_.getInt1(is_min);
    } else {
      unsigned bits = t->getIntegerBitWidth();
      init = is_max ? llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits))
                    : llvm::ConstantInt::get(t, llvm::APInt::getSignedMaxValue(bits));
    }
  } else if (o.op == Op::ReduceProd) {
    init = is_floating(at) ? llvm::ConstantFP::get(t, 1.0) : llvm::ConstantInt::get(t, 1);
  } else {
    init = is_floating(at) ? llvm::ConstantFP::get(t, 0.0) : llvm::ConstantInt::get(t, 0);
  }
  return init;
}

void Codegen::update_acc(int32_t id, Value* x, Value* inner_index, bool raw, Value* slot) {
  const KOp& o = k_.ops[id];
  Acc& a = acc_[id];
  DType in_t = k_.ops[o.inputs[0]].dtype;
  llvm::Type* t = vtype(a.acc_type);
  if (!slot) slot = a.value;
  Value* cur = b_.CreateLoad(t, slot);
  bool fp = is_floating(a.acc_type);
  if (o.op == Op::ArgMax || o.op == Op::ArgMin) {
    // First index of the extreme; NaN counts as the extreme (first NaN wins).
    Value* better;
    if (fp) {
      Value* cmp = o.op == Op::ArgMax ? b_.CreateFCmpOGT(x, cur) : b_.CreateFCmpOLT(x, cur);
      Value* x_nan = b_.CreateFCmpUNO(x, x);
      Value* cur_nan = b_.CreateFCmpUNO(cur, cur);
      better = b_.CreateAnd(b_.CreateOr(cmp, x_nan), b_.CreateNot(cur_nan));
    } else if (a.acc_type == DType::Bool) {
      better = o.op == Op::ArgMax ? b_.CreateICmpUGT(x, cur) : b_.CreateICmpULT(x, cur);
    } else {
      better = o.op == Op::ArgMax ? b_.CreateICmpSGT(x, cur) : b_.CreateICmpSLT(x, cur);
    }
    // The first element always initialises (handles all -inf / all NaN rows).
    better = b_.CreateOr(better, b_.CreateICmpEQ(inner_index, i64(0)));
    b_.CreateStore(b_.CreateSelect(better, x, cur), a.value);
    b_.CreateStore(b_.CreateSelect(better, inner_index, b_.CreateLoad(b_.getInt64Ty(), a.index)), a.index);
    return;
  }
  if (!raw) x = cast(x, in_t, a.acc_type);
  Value* r;
  // A scalar accumulator lets the loop vectoriser reorder its adds (its
  // lanes, then a tree); one in memory (a lane of a row's accumulators, a
  // column's) adds in the order the kernel IR gives.
  llvm::FastMathFlags fmf;
  if (slot == a.value) fmf.setAllowReassoc();
  switch (o.op) {
    case Op::ReduceSum:
      if (fp) {
        r = b_.CreateFAdd(cur, x);
        llvm::cast<llvm::Instruction>(r)->setFastMathFlags(fmf);
      } else {
        r = a.acc_type == DType::Bool ? b_.CreateOr(cur, x) : b_.CreateAdd(cur, x);
      }
      break;
    case Op::ReduceProd:
      if (fp) {
        r = b_.CreateFMul(cur, x);
        llvm::cast<llvm::Instruction>(r)->setFastMathFlags(fmf);
      } else {
        r = a.acc_type == DType::Bool ? b_.CreateAnd(cur, x) : b_.CreateMul(cur, x);
      }
      break;
    case Op::ReduceMax:
      r = fp ? intrinsic(llvm::Intrinsic::maximum, cur, x)
              : a.acc_type == DType::Bool ? b_.CreateOr(cur, x) : intrinsic(llvm::Intrinsic::smax, cur, x);
      break;
    case Op::ReduceMin:
      r = fp ? intrinsic(llvm::Intrinsic::minimum, cur, x)
              : a.acc_type == DType::Bool ? b_.CreateAnd(cur, x) : intrinsic(llvm::Intrinsic::smin, cur, x);
      break;
    default: fail(ErrorKind::Runtime, "cpu codegen: reduction ", op_name(o.op));
  }
  b_.CreateStore(r, slot);
}

Value* Codegen::finish_acc(int32_t id, Value* slot) {
  const KOp& o = k_.ops[id];
  Acc& a = acc_[id];
  if (o.op == Op::ArgMax || o.op == Op::ArgMin) return cast(b_.CreateLoad(b_.getInt64Ty(), a.index), DType::Int64, o.dtype);
  return cast(b_.CreateLoad(vtype(a.acc_type), slot ? slot : a.value), a.acc_type, o.dtype);
}

Value* Codegen::gen_check_index(const KOp& o, Value* idx) {
  Value* ok = b_.CreateICmpULT(idx, i64(o.imm));
  llvm::BasicBlock* bad = llvm::BasicBlock::Create(ctx_, "bad_index", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "index_ok", fn_);
  b_.CreateCondBr(ok, cont, bad, llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(bad);
  Value* code = i64(o.imm2 + 1);
  auto* cx = b_.CreateAtomicCmpXchg(err_, i64(0), code, llvm::MaybeAlign(8), llvm::AtomicOrdering::Monotonic,
                                    llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock* record = llvm::BasicBlock::Create(ctx_, "record", fn_);
  b_.CreateCondBr(b_.CreateExtractValue(cx, 1), record, cont);
  b_.SetInsertPoint(record);
  b_.CreateStore(idx, b_.CreateConstGEP1_64(b_.getInt64Ty(), err_, 1));
  b_.CreateStore(i64(o.imm), b_.CreateConstGEP1_64(b_.getInt64Ty(), err_, 2));
  b_.CreateStore(i64(static_cast<int64_t>(o.fimm)), b_.CreateConstGEP1_64(b_.getInt64Ty(), err_, 3));
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
  return b_.CreateSelect(ok, idx, i64(0));
}

// Philox4x32-10 (Salmon et al. 2011), key = seed, counter = (index, 0).
// On x86-64 a call to the precompiled lt_philox_word, whose vector variants
// the loop vectoriser uses on consecutive counters (jit/cpu/random.h): the
// inline rounds below cost ~5-10x the compile time of the rest of a kernel.
// Elsewhere (and with LT_JIT_INLINE_PHILOX=1, to compare) the rounds inline.
Value* Codegen::gen_random(Value* seed, Value* counter, int64_t stream, DType dtype) {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* i64t = b_.getInt64Ty();
  // The host's variants that the target's vectors hold (LT_JIT_CPU may be narrower).
  static const std::vector<std::pair<int, std::string>> variants = [] {
    std::vector<std::pair<int, std::string>> v;
    for (const auto& lv : philox_vector_variants())
      if (lv.first * 32 <= target_vector_bits()) v.push_back(lv);
    return v;
  }();
  static const bool inline_rounds = std::getenv("LT_JIT_INLINE_PHILOX") != nullptr;
  if (!variants.empty() && !inline_rounds) {
    llvm::FunctionCallee fn = m_.getOrInsertFunction("lt_philox_word", llvm::FunctionType::get(i32, {i64t, i64t, i32}, false));
    auto* f = llvm::cast<llvm::Function>(fn.getCallee());
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
    std::string abi;
    for (const auto& [lanes, name] : variants) {
      // Declares the variant: <lanes x i32> name(i64 seed, i64 first counter, i32 word).
      m_.getOrInsertFunction(name, llvm::FunctionType::get(llvm::FixedVectorType::get(i32, lanes), {i64t, i64t, i32}, false));
      abi += cat(abi.empty() ? "" : ",", "_ZGV_LLVM_N", lanes, "ulu_lt_philox_word(", name, ")");
    }
    llvm::CallInst* bits = b_.CreateCall(fn, {seed, counter, b_.getInt32(static_cast<uint32_t>(stream & 3))});
    bits->addFnAttr(llvm::Attribute::get(ctx_, "vector-function-abi-variant", abi));
    return uniform_from_word(bits, dtype);
  }
  Value* c[4] = {b_.CreateTrunc(counter, i32), b_.CreateTrunc(b_.CreateLShr(counter, 32), i32), b_.getInt32(0),
                 b_.getInt32(0)};
  Value* k0 = b_.CreateTrunc(seed, i32);
  Value* k1 = b_.CreateTrunc(b_.CreateLShr(seed, 32), i32);
  auto mulhilo = [&](uint32_t m, Value* x, Value** hi, Value** lo) {
    Value* p = b_.CreateMul(b_.CreateZExt(x, i64t), b_.getInt64(m));
    *lo = b_.CreateTrunc(p, i32);
    *hi = b_.CreateTrunc(b_.CreateLShr(p, 32), i32);
  };
  for (int round = 0; round < 10; ++round) {
    Value *hi0, *lo0, *hi1, *lo1;
    mulhilo(0xD2511F53u, c[0], &hi0, &lo0);
    mulhilo(0xCD9E8D57u, c[2], &hi1, &lo1);
    Value* n0 = b_.CreateXor(b_.CreateXor(hi1, c[1]), k0);
    Value* n2 = b_.CreateXor(b_.CreateXor(hi0, c[3]), k1);
    c[0] = n0, c[1] = lo1, c[2] = n2, c[3] = lo0;
    k0 = b_.CreateAdd(k0, b_.getInt32(0x9E3779B9u));
    k1 = b_.CreateAdd(k1, b_.getInt32(0xBB67AE85u));
  }
  return uniform_from_word(c[stream & 3], dtype);
}

// The uniform in [0, 1) of one random word, as ir/evaluator.h's uniform_from_bits.
Value* Codegen::uniform_from_word(Value* bits, DType dtype) {
  if (dtype == DType::Float64)
    return b_.CreateFMul(b_.CreateUIToFP(bits, b_.getDoubleTy()), llvm::ConstantFP::get(b_.getDoubleTy(), 1.0 / 4294967296.0));
  Value* top = b_.CreateLShr(bits, 8);
  return b_.CreateFMul(b_.CreateUIToFP(top, b_.getFloatTy()), llvm::ConstantFP::get(b_.getFloatTy(), 1.0 / 16777216.0));
}

Value* Codegen::gen(int32_t id) {
  const KOp& o = k_.ops[id];
  auto in = [&](int i) { return get(o.inputs[i]); };
  switch (o.code) {
    case KOpCode::Coord: return coords_[o.imm];
    case KOpCode::Const:
      if (is_floating(o.dtype)) return normalize(llvm::ConstantFP::get(vtype(o.dtype), o.fimm), o.dtype);
      return normalize(llvm::ConstantInt::get(vtype(o.dtype), static_cast<uint64_t>(o.imm), true), o.dtype);
    case KOpCode::Param: {
      Value* slot = b_.CreateConstGEP1_64(b_.getInt64Ty(), scalars_, o.imm);
      if (is_floating(o.dtype))
        return normalize(b_.CreateFPCast(b_.CreateLoad(b_.getDoubleTy(), slot), vtype(o.dtype)), o.dtype);
      Value* v = b_.CreateLoad(b_.getInt64Ty(), slot);
      return o.dtype == DType::Bool ? b_.CreateICmpNE(v, i64(0)) : normalize(b_.CreateTrunc(v, vtype(o.dtype)), o.dtype);
    }
    case KOpCode::Load: {
      Value* p = b_.CreateGEP(mtype(o.dtype), bufs_[o.imm], in(0));
      return widen(b_.CreateLoad(mtype(o.dtype), p), o.dtype);
    }
    case KOpCode::Store:
    case KOpCode::AccumStore: {
      Value* p = b_.CreateGEP(mtype(o.dtype), bufs_[o.imm], in(0));
      Value* v = in(1);
      if (o.code == KOpCode::AccumStore) {
        Value* old = widen(b_.CreateLoad(mtype(o.dtype), p), o.dtype);
        if (o.dtype == DType::Bool) v = b_.CreateOr(old, v);
        else v = normalize(is_floating(o.dtype) ? b_.CreateFAdd(old, v) : b_.CreateAdd(old, v), o.dtype);
      }
      b_.CreateStore(narrow(v, o.dtype), p);
      return nullptr;
    }
    case KOpCode::IndexDiv: return b_.CreateUDiv(in(0), o.num_inputs == 2 ? in(1) : i64(o.imm));
    case KOpCode::IndexMod: return b_.CreateURem(in(0), o.num_inputs == 2 ? in(1) : i64(o.imm));
    case KOpCode::Compute: {
      Value* v = gen_compute(o);
      return o.op == Op::Cast ? v : normalize(v, o.dtype);  // a cast normalizes itself
    }
    case KOpCode::Random: return normalize(gen_random(in(0), in(1), o.imm, o.dtype), o.dtype);
    case KOpCode::CheckIndex: return gen_check_index(o, in(0));
    case KOpCode::Reduce:
    case KOpCode::Scan: fail(ErrorKind::Runtime, "cpu codegen: ", kop_name(o.code), " emitted out of its loop");
  }
  return nullptr;
}

Value* Codegen::gen_compute(const KOp& o) {
  DType in_t = k_.ops[o.inputs[0]].dtype;
  Value* a = get(o.inputs[0]);
  Value* c = o.num_inputs > 1 ? get(o.inputs[1]) : nullptr;
  bool fp = is_floating(in_t);
  bool is_bool = in_t == DType::Bool;
  llvm::Type* t = a->getType();
  switch (o.op) {
    case Op::Cast: return cast(a, in_t, o.dtype);
    case Op::Detach: return a;
    case Op::Neg: return fp ? b_.CreateFNeg(a) : is_bool ? a : b_.CreateNeg(a);
    case Op::Abs:
      if (fp) return intrinsic(llvm::Intrinsic::fabs, a);
      if (is_bool) return a;
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, b_.getFalse());
    case Op::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, a);
    case Op::Floor: return fp ? intrinsic(llvm::Intrinsic::floor, a) : a;
    case Op::Ceil: return fp ? intrinsic(llvm::Intrinsic::ceil, a) : a;
    case Op::Round: return fp ? intrinsic(llvm::Intrinsic::roundeven, a) : a;
    case Op::Exp:
    case Op::Log:
    case Op::Log1p:
    case Op::Expm1:
    case Op::Tanh:
    case Op::Erf:
    case Op::Sin:
    case Op::Cos: {  // the registry's transcendentals
      // Calls whose vector variants the vectoriser picks: external ones at
      // the quick tier; at the full tier defined in this module and inlined
      // after vectorising (compiler.cpp, inline_late), since their vector
      // bodies hold what a vectorised scalar body cannot: AVX-512
      // instructions, and the branch to libm for sin/cos of large arguments
      // (math.cpp).
      Value* v = emit_math_call(b_, o.op, a, /*define_here=*/!math_calls_);
      if (!v) fail(ErrorKind::NotImplemented, "cpu codegen: ", op_name(o.op));
      return v;
    }
    case Op::Sigmoid: {  // 1 / (1 + exp(-x)) over the exp above
      Value* e = emit_math_call(b_, Op::Exp, b_.CreateFNeg(a), /*define_here=*/!math_calls_);
      if (!e) fail(ErrorKind::NotImplemented, "cpu codegen: ", op_name(o.op));
      Value* one = llvm::ConstantFP::get(t, 1.0);
      return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
    }
    case Op::Sign:
      if (is_bool) return a;
      if (fp) {  // NaN -> 0, -0 -> +0 (torch.sign)
        Value* zero = llvm::ConstantFP::get(t, 0.0);
        return b_.CreateSelect(b_.CreateFCmpOGT(a, zero), llvm::ConstantFP::get(t, 1.0),
                               b_.CreateSelect(b_.CreateFCmpOLT(a, zero), llvm::ConstantFP::get(t, -1.0), zero));
      }
      return b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(a, llvm::ConstantInt::get(t, 0)), t),
                          b_.CreateZExt(b_.CreateICmpSLT(a, llvm::ConstantInt::get(t, 0)), t));
    case Op::LogicalNot: return b_.CreateNot(to_bool(a, in_t));
    case Op::IsNan: return fp ? b_.CreateFCmpUNO(a, a) : b_.getFalse();
    case Op::Add: return fp ? b_.CreateFAdd(a, c) : is_bool ? b_.CreateOr(a, c) : b_.CreateAdd(a, c);
    case Op::Sub: return fp ? b_.CreateFSub(a, c) : is_bool ? b_.CreateXor(a, c) : b_.CreateSub(a, c);
    case Op::Mul: return fp ? b_.CreateFMul(a, c) : is_bool ? b_.CreateAnd(a, c) : b_.CreateMul(a, c);
    case Op::Div: {
      if (fp) return b_.CreateFDiv(a, c);
      if (is_bool) return b_.CreateAnd(a, c);
      // Truncating division; x / 0 = 0 and INT_MIN / -1 wraps, never a trap.
      Value* zero = llvm::ConstantInt::get(t, 0);
      Value* is_zero = b_.CreateICmpEQ(c, zero);
      Value* minus1 = b_.CreateICmpEQ(c, llvm::ConstantInt::get(t, -1, true));
      Value* safe = b_.CreateSelect(b_.CreateOr(is_zero, minus1), llvm::ConstantInt::get(t, 1), c);
      Value* q = b_.CreateSDiv(a, safe);
      q = b_.CreateSelect(minus1, b_.CreateNeg(a), q);
      return b_.CreateSelect(is_zero, zero, q);
    }
    case Op::Pow: {
      if (fp) return intrinsic(llvm::Intrinsic::pow, a, c);
      if (is_bool) return b_.CreateOr(a, b_.CreateNot(c));
      // Integer power by squaring (exponent < 0 gives 0 unless the base is +-1).
      Value* base = b_.CreateSExt(a, b_.getInt64Ty());
      Value* e = b_.CreateSExt(c, b_.getInt64Ty());
      Value* result = i64(1);
      Value* ee = e;
      for (int i = 0; i < 63; ++i) {
        Value* bit = b_.CreateICmpNE(b_.CreateAnd(ee, i64(1)), i64(0));
        result = b_.CreateSelect(bit, b_.CreateMul(result, base), result);
        base = b_.CreateMul(base, base);
        ee = b_.CreateLShr(ee, 1);
      }
      Value* a64 = b_.CreateSExt(a, b_.getInt64Ty());
      Value* neg_result = b_.CreateSelect(b_.CreateICmpEQ(a64, i64(1)), i64(1),
                                          b_.CreateSelect(b_.CreateICmpEQ(a64, i64(-1)),
                                                          b_.CreateSelect(b_.CreateICmpEQ(b_.CreateAnd(e, i64(1)), i64(0)), i64(1), i64(-1)),
                                                          i64(0)));
      result = b_.CreateSelect(b_.CreateICmpSLT(e, i64(0)), neg_result, result);
      return b_.CreateTrunc(result, t);
    }
    case Op::Maximum:
      if (fp) return intrinsic(llvm::Intrinsic::maximum, a, c);
      return is_bool ? b_.CreateOr(a, c) : intrinsic(llvm::Intrinsic::smax, a, c);
    case Op::Minimum:
      if (fp) return intrinsic(llvm::Intrinsic::minimum, a, c);
      return is_bool ? b_.CreateAnd(a, c) : intrinsic(llvm::Intrinsic::smin, a, c);
    case Op::Eq: return fp ? b_.CreateFCmpOEQ(a, c) : b_.CreateICmpEQ(a, c);
    case Op::Ne: return fp ? b_.CreateFCmpUNE(a, c) : b_.CreateICmpNE(a, c);
    case Op::Lt: return fp ? b_.CreateFCmpOLT(a, c) : is_bool ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c);
    case Op::Le: return fp ? b_.CreateFCmpOLE(a, c) : is_bool ? b_.CreateICmpULE(a, c) : b_.CreateICmpSLE(a, c);
    case Op::Gt: return fp ? b_.CreateFCmpOGT(a, c) : is_bool ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c);
    case Op::Ge: return fp ? b_.CreateFCmpOGE(a, c) : is_bool ? b_.CreateICmpUGE(a, c) : b_.CreateICmpSGE(a, c);
    case Op::LogicalAnd: return b_.CreateAnd(to_bool(a, in_t), to_bool(c, k_.ops[o.inputs[1]].dtype));
    case Op::LogicalOr: return b_.CreateOr(to_bool(a, in_t), to_bool(c, k_.ops[o.inputs[1]].dtype));
    case Op::BitwiseAnd: return b_.CreateAnd(a, c);
    case Op::BitwiseOr: return b_.CreateOr(a, c);
    case Op::BitwiseXor: return b_.CreateXor(a, c);
    case Op::BitwiseNot: return b_.CreateNot(a);  // bools are i1 here
    case Op::ShiftLeft: {  // an amount < 0 or >= the width gives 0 (the evaluator's rule)
      Value* in_range = b_.CreateICmpULT(c, llvm::ConstantInt::get(t, t->getScalarSizeInBits()));
      Value* amount = b_.CreateSelect(in_range, c, llvm::ConstantInt::get(t, 0));
      return b_.CreateSelect(in_range, b_.CreateShl(a, amount), llvm::ConstantInt::get(t, 0));
    }
    case Op::ShiftRight: {  // arithmetic; an amount < 0 or >= the width gives the sign
      unsigned bits = t->getScalarSizeInBits();
      Value* in_range = b_.CreateICmpULT(c, llvm::ConstantInt::get(t, bits));
      return b_.CreateAShr(a, b_.CreateSelect(in_range, c, llvm::ConstantInt::get(t, bits - 1)));
    }
    case Op::Where: return b_.CreateSelect(to_bool(a, in_t), c, get(o.inputs[2]));
    LT_NON_ELEMENTWISE_CASES: break;
  }
  fail(ErrorKind::NotImplemented, "cpu codegen: compute ", op_name(o.op));
}

// Sets coords_[first, last) by unravelling `linear` over domain[first, last).
void Codegen::set_coords_from(Value* linear, size_t first, size_t last) {
  Value* rest = linear;
  for (size_t i = last; i-- > first;) {
    if (i == first) {
      coords_[i] = rest;
      break;
    }
    coords_[i] = b_.CreateURem(rest, extent(i));
    rest = b_.CreateUDiv(rest, extent(i));
  }
}

// A loop body with a transcendental is ~20-100 vector ops per element group
// with long dependency chains (polynomial, divide). The vectoriser does not
// interleave bodies that large, and the out-of-order window then holds about
// one group: gelu(x*a + b)*sigmoid(x) + 0.5x ran at ~36 ms CPU per 16M
// elements, 26 with 4 groups interleaved (docs/performance.md).
// Elementwise kernels only (Rows loops with a reduction are interleaved
// anyway). Not with Philox (`randn`'s Box-Muller has log and cos): its ten
// integer rounds doubled the compile time (145 -> 300 ms) when interleaved.
bool Codegen::interleaves_body() const {
  bool any = false;
  for (const KOp& o : k_.ops) {
    if (o.code == KOpCode::Random) return false;
    if (o.code == KOpCode::Compute && is_transcendental(o.op)) any = true;
  }
  return any;
}

void Codegen::gen_elements(Value* iv) {
  if (!k_.domain.empty()) coords_[k_.domain.size() - 1] = iv;
  std::fill(elem_.begin(), elem_.end(), nullptr);
  for (size_t id = 0; id < k_.ops.size(); ++id)
    if (is_effect(k_.ops[id].code)) get(static_cast<int32_t>(id));
}

// Output large enough that it would leave the cache before a consumer reads
// it anyway: 3/4 of this machine's 32 MiB L3, glibc memcpy's own threshold
// for non-temporal stores on it.
constexpr int64_t kStreamingStoreBytes = int64_t{24} << 20;
// Interleaved copies of a large body cost compile time (~+25% emit time for
// gelu_expr); only kernels big enough to run on several threads get them.
constexpr int kTranscendentalInterleave = 4;
// Rows shorter than this keep one vector accumulator per reduction (gen_rows).
constexpr int64_t kShortRow = 256;
constexpr int64_t kInterleaveMinElements = int64_t{1} << 16;
// Lanes of a Rows reduction's accumulator that fill one vector register
// (a power of two dividing L).
int64_t lane_piece(int64_t L, DType acc) {
  int64_t w = std::max<int64_t>(1, target_vector_bits() / (8 * static_cast<int64_t>(dtype_size(acc))));
  return std::min(w, L);
}

}  // namespace

// See jit.h. A recomputed element writes what it wrote before only when no
// buffer the kernel stores into is also read, and every store is a plain
// Store; large outputs take the streaming-store loops instead (their main
// loop must start on a cache line).
bool kernel_overlaps_tail(const Kernel& k) {
  if (k.kind != KernelKind::Elementwise || k.serial || k.domain.size() != 1 || k.domain[0] < kTailBlock) return false;
  if (k.symbolic_domain()) return false;  // needs a domain of at least one block
  std::vector<char> loaded(k.buffers.size(), 0), stored(k.buffers.size(), 0);
  int64_t bytes = 0;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::AccumStore) return false;
    if (o.code == KOpCode::Load && o.imm >= 0) loaded[o.imm] = 1;
    if (o.code == KOpCode::Store) {
      stored[o.imm] = 1;
      bytes += k.domain[0] * static_cast<int64_t>(dtype_size(k.buffers[o.imm].dtype));
    }
  }
  for (size_t b = 0; b < loaded.size(); ++b)
    if (loaded[b] && stored[b]) return false;
  return bytes < kStreamingStoreBytes;
}

namespace {

// Whether this Elementwise kernel gets streaming stores (see the file header):
// x86 host, plain stores only, each at the domain's row-major index, of 4- or
// 8-byte elements (so a linear index that is a multiple of 16 is 64-byte
// aligned in every stored buffer), writing at least kStreamingStoreBytes.
bool Codegen::streams_stores() const {
  if (k_.kind != KernelKind::Elementwise || k_.serial || k_.symbolic_domain()) return false;
  if (!llvm::Triple(m_.getTargetTriple()).isX86()) return false;
  int64_t bytes = 0, numel = shape_numel(k_.domain);
  for (const KOp& o : k_.ops) {
    if (o.code == KOpCode::AccumStore || o.code == KOpCode::CheckIndex) return false;
    if (o.code != KOpCode::Store) continue;
    size_t size = dtype_size(k_.buffers[o.imm].dtype);
    if (o.dtype == DType::Bool || size < 4 || !is_row_major_offset(o.inputs[0])) return false;
    bytes += numel * static_cast<int64_t>(size);
  }
  return bytes >= kStreamingStoreBytes;
}

void Codegen::gen_elementwise(Value* begin, Value* end) {
  // Chunks of the innermost dim: [pos, pos + n) stays inside one row.
  size_t r = k_.domain.size();
  Value* inner = r ? extent(r - 1) : i64(1);
  bool streaming = streams_stores();
  int interleave = interleaves_body() && shape_numel(k_.domain) >= kInterleaveMinElements ? kTranscendentalInterleave : 0;
  constexpr int64_t kLine = 64, kPeel = kLine / 4;  // elements of 4 bytes per cache line
  Value* aligned = nullptr;
  std::vector<Value*> stored;
  if (streaming) {
    Value* low = i64(0);
    for (const KOp& o : k_.ops)
      if (o.code == KOpCode::Store) {
        stored.push_back(bufs_[o.imm]);
        low = b_.CreateOr(low, b_.CreatePtrToInt(bufs_[o.imm], b_.getInt64Ty()));
      }
    aligned = b_.CreateICmpEQ(b_.CreateAnd(low, i64(kLine - 1)), i64(0));
  }
  Loop chunk = begin_loop(begin, end, "chunk");
  Value* pos = chunk.iv;
  Value* row = b_.CreateUDiv(pos, inner);
  Value* row_start = b_.CreateMul(row, inner);
  Value* i0 = b_.CreateSub(pos, row_start);
  Value* i1 = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, inner, b_.CreateAdd(i0, b_.CreateSub(end, pos)));
  if (r > 1) set_coords_from(row, 0, r - 1);
  if (!streaming && kernel_overlaps_tail(k_)) {
    // Blocks of kTailBlock elements, the last one ending at i1 and
    // overlapping the one before it: each block's loop has a constant trip
    // count, so the vectoriser adds no scalar remainder loop (a scalar copy of
    // the whole body: for randn, of its log and cos). Recomputed elements
    // write the values they wrote before (kernel_overlaps_tail). A range
    // shorter than a block reaches back before `begin` (never before 0: the
    // domain holds at least one block); launch_kernel hands out ranges of
    // whole blocks, so no two threads store the same element.
    Value* last = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b_.CreateSub(i1, i64(kTailBlock)), i64(0));
    Loop blocks = begin_loop(i0, i1, "block", kTailBlock);
    Value* start = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, blocks.iv, last);
    Loop l = begin_loop(i64(0), i64(kTailBlock), "i");  // a constant trip count, whatever SCEV knows of `start`
    gen_elements(b_.CreateAdd(start, l.iv, "", /*HasNUW=*/true, /*HasNSW=*/true));
    end_loop(l, interleave);
    end_loop(blocks);
  } else if (!streaming) {
    Loop l = begin_loop(i0, i1, "i");
    gen_elements(l.iv);
    end_loop(l, interleave);
  } else {
    // Main loop from the first inner index whose linear index is a multiple
    // of kPeel (all of [i0, i1) when a stored buffer is not line-aligned).
    // The main loop starts at `a` itself (not the select), so that SCEV sees
    // its start as a multiple of kPeel.
    Value* a = b_.CreateSub(b_.CreateAnd(b_.CreateAdd(pos, i64(kPeel - 1)), i64(-kPeel)), row_start);
    Value* peel_end = b_.CreateSelect(aligned, b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, i1), i1);
    Loop peel = begin_loop(i0, peel_end, "peel");
    gen_elements(peel.iv);
    end_loop(peel, /*interleave=*/-1);
    llvm::BasicBlock* main_pre = llvm::BasicBlock::Create(ctx_, "stream.pre", fn_);
    llvm::BasicBlock* main_done = llvm::BasicBlock::Create(ctx_, "stream.done", fn_);
    b_.CreateCondBr(aligned, main_pre, main_done);
    b_.SetInsertPoint(main_pre);
    for (Value* p : stored) b_.CreateAlignmentAssumption(m_.getDataLayout(), p, kLine);
    Loop l = begin_loop(a, i1, "stream");
    gen_elements(l.iv);
    end_loop(l, interleave);
    b_.CreateBr(main_done);
    b_.SetInsertPoint(main_done);
  }
  end_loop_at(chunk, b_.CreateAdd(pos, b_.CreateSub(i1, i0)));
  if (streaming) {
    b_.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
    m_.getOrInsertNamedMetadata("lt.streaming_stores");
  }
}

void Codegen::gen_rows(Value* begin, Value* end) {
  size_t r = k_.domain.size(), outer = static_cast<size_t>(k_.outer_rank);
  int64_t inner = k_.inner_size();
  std::vector<Stash> stashes = plan_stashes();
  Loop rows = begin_loop(begin, end, "row");
  if (outer) set_coords_from(rows.iv, 0, outer);
  std::fill(row_.begin(), row_.end(), nullptr);
  for (int p = 0; p < k_.num_phases; ++p) {
    std::vector<int32_t> roots, reduces;
    for (size_t id = 0; id < k_.ops.size(); ++id) {
      const KOp& o = k_.ops[id];
      if (o.code == KOpCode::Reduce && o.phase == p) reduces.push_back(static_cast<int32_t>(id));
      if (o.elem && o.phase == p &&
          (is_effect(o.code) || o.code == KOpCode::Scan))
        roots.push_back(static_cast<int32_t>(id));
    }
    if (roots.empty() && reduces.empty()) continue;
    if (inner == 0) {
      // An empty row: reductions give their identity, and nothing the loop
      // body would have read (row-level index loads included) is touched.
      for (int32_t id : reduces) init_acc(id);
      for (int32_t id : reduces) row_[id] = finish_acc(id);
      continue;
    }
    std::vector<char> seen(k_.ops.size(), 0);
    for (int32_t id : roots) collect_row_deps(id, seen);
    for (int32_t id : reduces) collect_row_deps(k_.ops[id].inputs[0], seen);
    // A stash's offset (and the stashed value) are evaluated in this phase's
    // loop too: their row-level inputs must be emitted before it, or a later
    // phase would reuse a value defined inside this loop's body.
    for (const Stash& st : stashes) {
      if (p < st.from || p > st.to) continue;
      collect_row_deps(st.offset, seen);
      if (st.from == p) collect_row_deps(st.value, seen);
    }
    // Float sums and products accumulate in row_lanes() lanes in an order
    // the kernel IR fixes (codegen.h, docs/cpu-jit.md "Rows reductions"); the other reductions'
    // values do not depend on their order and keep one accumulator that
    // the loop vectoriser spreads over its lanes.
    const int64_t L = row_lanes(k_);
    std::vector<int32_t> lane_reduces;
    std::vector<llvm::AllocaInst*> lanes(k_.ops.size(), nullptr);
    for (int32_t id : reduces) {
      init_acc(id);
      if (!reduces_in_lanes(k_.ops[id])) continue;
      lane_reduces.push_back(id);
      // Every lane starts at the identity.
      llvm::Type* t = vtype(acc_[id].acc_type);
      lanes[id] = entry_alloca(llvm::ArrayType::get(t, L));
      // In pieces of one vector register, so SROA gives each piece its own
      // register (one access of the whole array made it one <L x T> value).
      const int64_t W = lane_piece(L, acc_[id].acc_type);
      for (int64_t q = 0; q < L; q += W)
        b_.CreateAlignedStore(b_.CreateVectorSplat(static_cast<unsigned>(W), acc_identity(id)),
                              b_.CreateConstGEP1_64(t, lanes[id], static_cast<uint64_t>(q)), lanes[id]->getAlign());
    }
    for (int32_t id : roots)
      if (k_.ops[id].code == KOpCode::Scan) init_acc(id);
    // Inner dims that the loads do not walk as one run (x.sum((0, 2)) of
    // [N, C, HW]: rows of C, inner (N, HW)) get one loop each, the last
    // innermost: unravelling one linear loop index by division hid the
    // contiguous runs from the vectoriser (gathers: 1.0 ms against torch's
    // 0.28 for [64, 64, 1024]). One linear loop where the last dim is short.
    const bool nested = rows_nest_inner_loops(k_);
    std::vector<Loop> nest;
    if (nested)
      for (size_t a = outer; a + 1 < r; ++a) {
        nest.push_back(begin_loop(i64(0), extent(a), "inner.outer"));
        coords_[a] = nest.back().iv;
      }
    Value* run_len = nested ? extent(r - 1) : k_.symbolic_domain() ? extent_product(outer, r) : i64(inner);
    auto stash_slot = [&](const Stash& st) {
      return b_.CreateGEP(mtype(k_.buffers[st.buffer].dtype), bufs_[st.buffer], get(st.offset));
    };
    // One element of the innermost run: `pos` its index in the run, `lane`
    // its accumulator lane. With `guard` (the last chunk of a run) only a
    // lane where it holds runs the element; the others add the identity,
    // which leaves their sums and products as they are (bit for bit: a lane
    // starts at +0 or 1 and is never -0), so the chunk is L lanes like the
    // others and its accumulators stay in registers.
    auto body = [&](Value* pos, Value* lane, Value* guard = nullptr) {
      llvm::BasicBlock *head = nullptr, *join = nullptr;
      if (guard) {
        head = b_.GetInsertBlock();
        llvm::BasicBlock* run_it = llvm::BasicBlock::Create(ctx_, "tail.elem", fn_);
        join = llvm::BasicBlock::Create(ctx_, "tail.join", fn_);
        b_.CreateCondBr(guard, run_it, join);
        b_.SetInsertPoint(run_it);
      }
      Value* iv = pos;
      if (nested) {
        coords_[r - 1] = pos;
        iv = coords_[outer];
        for (size_t a = outer + 1; a < r; ++a) iv = b_.CreateAdd(b_.CreateMul(iv, extent(a)), coords_[a]);
      } else if (r > outer) {
        set_coords_from(iv, outer, r);
      }
      std::fill(elem_.begin(), elem_.end(), nullptr);
      for (const Stash& st : stashes)
        if (p > st.from && p <= st.to) elem_[st.value] = b_.CreateLoad(vtype(k_.ops[st.value].dtype), stash_slot(st));
      std::vector<Value*> lane_x(k_.ops.size(), nullptr);
      for (int32_t id : reduces) {
        if (lanes[id]) lane_x[id] = cast(get(k_.ops[id].inputs[0]), k_.ops[k_.ops[id].inputs[0]].dtype, acc_[id].acc_type);
        else update_acc(id, get(k_.ops[id].inputs[0]), iv);
      }
      for (int32_t id : roots) {
        const KOp& o = k_.ops[id];
        if (o.code != KOpCode::Scan) continue;
        Acc& a = acc_[id];
        Value* x = cast(get(o.inputs[0]), k_.ops[o.inputs[0]].dtype, a.acc_type);
        Value* cur = b_.CreateLoad(vtype(a.acc_type), a.value);
        Value* s = is_floating(a.acc_type) ? b_.CreateFAdd(cur, x) : b_.CreateAdd(cur, x);
        b_.CreateStore(s, a.value);
        elem_[id] = cast(s, a.acc_type, o.dtype);
      }
      for (int32_t id : roots) get(id);
      for (const Stash& st : stashes)
        if (st.from == p) b_.CreateStore(get(st.value), stash_slot(st));
      if (guard) {
        llvm::BasicBlock* ran = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        for (int32_t id : lane_reduces) {
          llvm::PHINode* x = b_.CreatePHI(vtype(acc_[id].acc_type), 2);
          x->addIncoming(lane_x[id], ran);
          x->addIncoming(acc_identity(id), head);
          lane_x[id] = x;
        }
      }
      for (int32_t id : lane_reduces)
        update_acc(id, lane_x[id], iv, /*raw=*/true, b_.CreateGEP(vtype(acc_[id].acc_type), lanes[id], lane));
    };
    // Order-free reductions get 4 vector accumulators (latency of the
    // adds), except in short rows: 77 elements run 4 iterations of 4 x 4
    // lanes and a scalar tail of 13, for 4 copies of the body to compile;
    // one accumulator runs 19 iterations.
    int64_t run = nested ? k_.domain.back() : inner;  // the innermost loop's length
    int reduce_interleave = run < kShortRow ? 1 : 4;
    // Short rows with a remainder and transcendentals, on AVX-512 hosts: the
    // remainder runs as one masked vector iteration (masked loads and stores
    // are cheap there) instead of up to 15 scalar ones, each a full
    // evaluation of the row's transcendentals. Rows of 77: softmax 15.2 ->
    // 10.5 ms, layer_norm(gelu) 14.8 -> 11.2 ms over 2^17 rows; without
    // transcendentals the scalar remainder is cheaper (layer_norm 5.3 vs
    // 6.0 ms folded). Long rows amortise their remainder; flat kernels
    // overlap their last block instead (docs/cpu-jit.md).
    static_assert(kShortRow % 16 == 0);
    const bool transcendentals = !kernel_math_functions(k_).empty();
    if (lane_reduces.empty()) {
      Loop l = begin_loop(i64(0), run_len, "inner");
      body(l.iv, nullptr);
      end_loop(l, reduces.empty() ? 0 : reduce_interleave,
               fold_row_tails() && run < kShortRow && run % 16 != 0 && transcendentals);
    } else {
      // Whole chunks of L elements, element j of a chunk into lane j (a
      // loop the vectoriser runs as elementwise code over the lanes), then
      // the rest of the run into lanes 0, 1, ...
      Value* whole = b_.CreateMul(b_.CreateUDiv(run_len, i64(L)), i64(L));
      Loop chunk = begin_loop(i64(0), whole, "chunk", L);
      Loop lane = begin_loop(i64(0), i64(L), "lane");
      body(b_.CreateAdd(chunk.iv, lane.iv), lane.iv);
      end_loop(lane, 0, 0, true);
      end_loop(chunk);
      Value* rest = b_.CreateSub(run_len, whole);
      llvm::BasicBlock* last = llvm::BasicBlock::Create(ctx_, "tail.pre", fn_);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "tail.done", fn_);
      b_.CreateCondBr(b_.CreateICmpSGT(rest, i64(0)), last, done);
      b_.SetInsertPoint(last);
      Loop tail = begin_loop(i64(0), i64(L), "tail");
      body(b_.CreateAdd(whole, tail.iv), tail.iv, b_.CreateICmpSLT(tail.iv, rest));
      end_loop(tail, 0, 0, true);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      m_.getOrInsertNamedMetadata("lt.row_lanes");
    }
    for (size_t a = nest.size(); a-- > 0;) end_loop(nest[a], -1);
    // The lanes combine pairwise, halving: lane j op= lane j + h for h = L /
    // 2, ..., 1, a register piece at a time while h spans whole pieces.
    for (int32_t id : lane_reduces) {
      llvm::Type* t = vtype(acc_[id].acc_type);
      const int64_t W = lane_piece(L, acc_[id].acc_type);
      auto combine = [&](Value* a, Value* c) {
        return k_.ops[id].op == Op::ReduceSum ? b_.CreateFAdd(a, c) : b_.CreateFMul(a, c);
      };
      std::vector<Value*> piece;
      for (int64_t q = 0; q < L; q += W)
        piece.push_back(b_.CreateAlignedLoad(llvm::FixedVectorType::get(t, static_cast<unsigned>(W)),
                                             b_.CreateConstGEP1_64(t, lanes[id], static_cast<uint64_t>(q)), lanes[id]->getAlign()));
      for (size_t n = piece.size(); n > 1; n /= 2)
        for (size_t q = 0; q < n / 2; ++q) piece[q] = combine(piece[q], piece[q + n / 2]);
      Value* v = piece[0];
      for (int h = static_cast<int>(W / 2); h >= 1; h /= 2) {
        std::vector<int> lo(h), hi(h);
        for (int j = 0; j < h; ++j) lo[j] = j, hi[j] = j + h;
        v = combine(b_.CreateShuffleVector(v, lo), b_.CreateShuffleVector(v, hi));
      }
      b_.CreateStore(b_.CreateExtractElement(v, uint64_t{0}), acc_[id].value);
    }
    for (int32_t id : reduces) row_[id] = finish_acc(id);
  }
  gen_row_effects();
  end_loop(rows);
}

}  // namespace

// Rows kernels with several inner dims: one loop per inner dim when the
// last is long enough to vectorise (16+) and a load walks it contiguously
// but not across it (not one run over the whole inner space, which the
// linear loop already reads in order). Scans keep one loop (inner rank 1).
bool rows_nest_inner_loops(const Kernel& k) {
  size_t r = k.domain.size(), outer = static_cast<size_t>(k.outer_rank);
  if (k.kind != KernelKind::Rows || r < outer + 2) return false;
  if (k.pinned_nest >= 0) return k.pinned_nest != 0;
  if (k.domain.back() < 16) return false;
  std::vector<int64_t> f;
  bool walks_last = false, known = true;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::Scan) return false;
    if (o.code != KOpCode::Load || !o.elem || !affine_offset(k, o.inputs[0], &f, &known)) continue;
    if (f[r - 1] != 1) continue;
    walks_last = true;
    // One run over the inner dims (row-major strides): the linear loop is contiguous already.
    int64_t stride = 1;
    bool run = true;
    for (size_t a = r; a-- > outer;) {
      if (k.domain[a] > 1 && f[a] != stride) run = false;
      stride *= k.domain[a];
    }
    if (run) return false;
  }
  return walks_last;
}

int64_t row_lanes(const Kernel& k) {
  if (k.pinned_lanes > 0) return k.pinned_lanes;
  size_t r = k.domain.size(), outer = static_cast<size_t>(k.outer_rank);
  bool nested = rows_nest_inner_loops(k);
  for (size_t a = nested ? r - 1 : outer; a < r; ++a)
    if (k.symbolic_axis(a)) return kRowLanesLong;
  int64_t run = nested ? k.domain.back() : k.inner_size();
  if (run < kShortRow) return kRowLanesShort;
  return kernel_math_functions(k).empty() ? kRowLanesLong : kRowLanesMath;
}

DType reduction_acc_type(const Kernel& k, const KOp& o) {
  const KOp& in = k.ops[o.inputs[0]];
  if ((o.op == Op::ReduceSum || o.op == Op::ReduceProd || o.code == KOpCode::Scan) && o.dtype == DType::Float32)
    return DType::Float64;
  // Float16/BFloat16 sums accumulate in float32, as torch's CPU kernels.
  if ((o.op == Op::ReduceSum || o.op == Op::ReduceProd || o.code == KOpCode::Scan) && is_low_precision_float(o.dtype))
    return DType::Float32;
  if (o.op == Op::ArgMax || o.op == Op::ArgMin) return in.dtype;
  return o.dtype;
}

bool reduces_in_lanes(const KOp& o) {
  return o.code == KOpCode::Reduce && (o.op == Op::ReduceSum || o.op == Op::ReduceProd) && is_floating(o.dtype);
}

namespace {

// Column reductions (see kernel_reduces_columns in jit.h): rows [begin, end)
// in segments of at most kColumnSegment rows that share their outer
// coordinates but the last (c0 + j, j < n). Per segment:
//   acc[j] = identity                              for j < n
//   for each inner element i: acc[j] op= x(c0 + j, i)   for j < n  (vectorised over j)
//   row c0 + j: its reductions are acc[j]; its row-level stores run
// The row-level values the elements read (a bias loaded per row, index
// arithmetic) are evaluated per (i, j) inside the j loop; the ones that do
// not depend on j or i are hoisted out by LICM.
void Codegen::gen_rows_columns(Value* begin, Value* end, Value* inner_begin, Value* inner_end, Value* out,
                               Value* row_stride) {
  size_t r = k_.domain.size(), outer = static_cast<size_t>(k_.outer_rank);
  Value* inner = extent_product(outer, r);
  Value* line = extent(outer - 1);
  std::vector<int32_t> reduces = split_reduces();
  std::vector<Value*> slots(reduces.size());
  for (size_t q = 0; q < reduces.size(); ++q) {
    DType at = acc_type(k_.ops[reduces[q]]);
    llvm::Type* arr = llvm::ArrayType::get(vtype(at), kColumnSegment);
    slots[q] = entry_alloca(arr);
  }
  auto slot_at = [&](size_t q, Value* j) {
    DType at = acc_type(k_.ops[reduces[q]]);
    return b_.CreateGEP(vtype(at), slots[q], j);
  };
  // Segment loop: s in [begin, end), the segment [s, e).
  Loop seg = begin_loop(begin, end, "seg");
  Value* s = seg.iv;
  Value* line_end = b_.CreateMul(b_.CreateAdd(b_.CreateUDiv(s, line), i64(1)), line);
  Value* e = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end, line_end);
  e = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, e, b_.CreateAdd(s, i64(kColumnSegment)));
  Value* n = b_.CreateSub(e, s);
  set_coords_from(s, 0, outer);
  Value* c0 = coords_[outer - 1];
  // Coordinates and caches for row c0 + j of this segment.
  auto enter_row = [&](Value* j) {
    coords_[outer - 1] = b_.CreateAdd(c0, j);
    std::fill(row_.begin(), row_.end(), nullptr);
    std::fill(elem_.begin(), elem_.end(), nullptr);
  };
  Loop init = begin_loop(i64(0), n, "col.init");
  for (size_t q = 0; q < reduces.size(); ++q) init_acc(reduces[q], slot_at(q, init.iv));
  end_loop(init);
  Loop el = out ? begin_loop(inner_begin, inner_end, "col.inner") : begin_loop(i64(0), inner, "col.inner");
  if (r > outer) set_coords_from(el.iv, outer, r);
  Loop jl = begin_loop(i64(0), n, "col.rows");
  enter_row(jl.iv);
  for (size_t q = 0; q < reduces.size(); ++q)
    update_acc(reduces[q], get(k_.ops[reduces[q]].inputs[0]), el.iv, false, slot_at(q, jl.iv));
  end_loop(jl);
  end_loop(el, -1);
  Loop fin = begin_loop(i64(0), n, "col.finish");
  if (out) {
    // Partials: the raw accumulators, as gen_split_part leaves them.
    Value* slot0 = b_.CreateMul(b_.CreateAdd(s, fin.iv), row_stride);
    for (size_t q = 0; q < reduces.size(); ++q) {
      store_partial(reduces[q], slot_at(q, fin.iv),
                    b_.CreateGEP(b_.getInt64Ty(), out, b_.CreateAdd(slot0, i64(static_cast<int64_t>(q)))));
    }
    end_loop(fin);
    end_loop_at(seg, e);
    return;
  }
  enter_row(fin.iv);
  for (size_t q = 0; q < reduces.size(); ++q) row_[reduces[q]] = finish_acc(reduces[q], slot_at(q, fin.iv));
  gen_row_effects();
  end_loop(fin);
  end_loop_at(seg, e);
}

std::vector<int32_t> Codegen::split_reduces() const {
  std::vector<int32_t> ids;
  for (size_t id = 0; id < k_.ops.size(); ++id)
    if (k_.ops[id].code == KOpCode::Reduce) ids.push_back(static_cast<int32_t>(id));
  return ids;
}

// Partial reduction of row `row` over inner elements [begin, end): the
// accumulators go to out[0..nred) (8-byte slots, accumulator type).
void Codegen::gen_split_part(Value* row, Value* begin, Value* end, Value* out) {
  size_t r = k_.domain.size(), outer = static_cast<size_t>(k_.outer_rank);
  if (outer) set_coords_from(row, 0, outer);
  std::vector<int32_t> reduces = split_reduces();
  std::vector<char> seen(k_.ops.size(), 0);
  for (int32_t id : reduces) collect_row_deps(k_.ops[id].inputs[0], seen);
  for (int32_t id : reduces) init_acc(id);
  // float32 sums accumulate in double; converting every element made the
  // split sum compute bound where memory (or the L3) is fast: 16M floats took
  // 0.58-0.65 ms, 0.44-0.51 accumulating in float32. So the chunk runs in
  // blocks of kSumBlock elements, each summed in float32 (the vectoriser's
  // lanes: 16 elements per lane, then a tree of the lanes) and added to the
  // double accumulator: the conversion once per block, and at most ~22
  // float32 roundings of the block's magnitude more error, like PyTorch's
  // cascade sum (docs/cpu-jit.md, "Float32 split sums").
  constexpr int64_t kSumBlock = 1024;
  std::vector<llvm::AllocaInst*> block_acc(reduces.size(), nullptr);
  bool blocked = false;
  for (size_t i = 0; i < reduces.size(); ++i) {
    const KOp& o = k_.ops[reduces[i]];
    if (o.op == Op::ReduceSum && acc_type(o) == DType::Float64 && k_.ops[o.inputs[0]].dtype == DType::Float32)
      block_acc[i] = entry_alloca(b_.getFloatTy()), blocked = true;
  }
  Value* rest = begin;
  if (blocked) {
    Value* nblocks = b_.CreateUDiv(b_.CreateSub(end, begin), i64(kSumBlock));
    Loop blk = begin_loop(i64(0), nblocks, "sumblock");
    Value* base = b_.CreateAdd(begin, b_.CreateMul(blk.iv, i64(kSumBlock)));
    for (llvm::AllocaInst* a : block_acc)
      if (a) b_.CreateStore(llvm::ConstantFP::get(b_.getFloatTy(), 0.0), a);
    Loop l = begin_loop(i64(0), i64(kSumBlock), "block");
    Value* idx = b_.CreateAdd(base, l.iv);
    if (r > outer) set_coords_from(idx, outer, r);
    std::fill(elem_.begin(), elem_.end(), nullptr);
    for (size_t i = 0; i < reduces.size(); ++i) {
      Value* x = get(k_.ops[reduces[i]].inputs[0]);
      if (!block_acc[i]) {
        update_acc(reduces[i], x, idx);
        continue;
      }
      llvm::FastMathFlags fmf;
      fmf.setAllowReassoc();
      Value* sum = b_.CreateFAdd(b_.CreateLoad(b_.getFloatTy(), block_acc[i]), x);
      llvm::cast<llvm::Instruction>(sum)->setFastMathFlags(fmf);
      b_.CreateStore(sum, block_acc[i]);
    }
    end_loop(l, 4);
    // A block whose float32 sum is not finite (an overflow double would not
    // have: 1e38 - 1e38 as inf - inf, or a NaN or inf in the data) is summed
    // again in double, element by element: a float32 partial never turns a
    // finite sum into inf or NaN.
    Value* finite = b_.getTrue();
    std::vector<Value*> sums(reduces.size(), nullptr);
    for (size_t i = 0; i < reduces.size(); ++i) {
      if (!block_acc[i]) continue;
      sums[i] = b_.CreateLoad(b_.getFloatTy(), block_acc[i]);
      Value* mag = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, sums[i]);
      finite = b_.CreateAnd(finite, b_.CreateFCmpOLT(mag, llvm::ConstantFP::getInfinity(b_.getFloatTy())));
    }
    llvm::BasicBlock* fast = llvm::BasicBlock::Create(ctx_, "block.finite", fn_);
    llvm::BasicBlock* slow = llvm::BasicBlock::Create(ctx_, "block.redo", fn_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "block.done", fn_);
    b_.CreateCondBr(finite, fast, slow, llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(fast);
    for (size_t i = 0; i < reduces.size(); ++i)
      if (block_acc[i]) update_acc(reduces[i], sums[i], blk.iv);
    b_.CreateBr(done);
    b_.SetInsertPoint(slow);
    Loop redo = begin_loop(i64(0), i64(kSumBlock), "redo");
    Value* ridx = b_.CreateAdd(base, redo.iv);
    if (r > outer) set_coords_from(ridx, outer, r);
    std::fill(elem_.begin(), elem_.end(), nullptr);
    for (size_t i = 0; i < reduces.size(); ++i)
      if (block_acc[i]) update_acc(reduces[i], get(k_.ops[reduces[i]].inputs[0]), ridx);
    end_loop(redo, -1);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    end_loop(blk, -1);
    rest = b_.CreateAdd(begin, b_.CreateMul(nblocks, i64(kSumBlock)));
  }
  Loop l = begin_loop(rest, end, "inner");
  if (r > outer) set_coords_from(l.iv, outer, r);
  std::fill(elem_.begin(), elem_.end(), nullptr);
  for (int32_t id : reduces) update_acc(id, get(k_.ops[id].inputs[0]), l.iv);
  end_loop(l);
  for (size_t i = 0; i < reduces.size(); ++i)
    store_partial(reduces[i], acc_[reduces[i]].value, b_.CreateConstGEP1_64(b_.getInt64Ty(), out, static_cast<int64_t>(i)));
}

void Codegen::store_partial(int32_t id, Value* acc, Value* slot) {
  DType at = acc_type(k_.ops[id]);
  Value* v = b_.CreateLoad(vtype(at), acc);
  if (at == DType::Bool) v = b_.CreateZExt(v, b_.getInt8Ty());
  b_.CreateStore(v, slot);
}

void Codegen::gen_row_effects() {
  for (size_t id = 0; id < k_.ops.size(); ++id) {
    const KOp& o = k_.ops[id];
    // A row with no elements checks no index: the index buffer may be empty.
    if (!o.elem && is_effect(o.code) && !(o.code == KOpCode::CheckIndex && k_.inner_size() == 0))
      get_row(static_cast<int32_t>(id));
  }
}

// Combines `nparts` partials of row `row` in order and runs the row's tail.
void Codegen::gen_split_finish(Value* row, Value* partials, Value* nparts) {
  size_t outer = static_cast<size_t>(k_.outer_rank);
  if (outer) set_coords_from(row, 0, outer);
  std::vector<int32_t> reduces = split_reduces();
  for (int32_t id : reduces) init_acc(id);
  int64_t nred = static_cast<int64_t>(reduces.size());
  Loop l = begin_loop(i64(0), nparts, "part");
  for (size_t i = 0; i < reduces.size(); ++i) {
    Acc& a = acc_[reduces[i]];
    Value* slot = b_.CreateGEP(b_.getInt64Ty(), partials, b_.CreateAdd(b_.CreateMul(l.iv, i64(nred)), i64(static_cast<int64_t>(i))));
    Value* v;
    if (a.acc_type == DType::Bool) v = b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), slot), b_.getInt8(0));
    else v = b_.CreateLoad(vtype(a.acc_type), slot);
    update_acc(reduces[i], v, l.iv, /*raw=*/true);
  }
  end_loop(l);
  for (int32_t id : reduces) row_[id] = finish_acc(id);
  gen_row_effects();
}

void Codegen::reset_state() {
  bufs_.clear();
  coords_.assign(std::max<size_t>(k_.domain.size(), 4), nullptr);
  row_.assign(k_.ops.size(), nullptr);
  elem_.assign(k_.ops.size(), nullptr);
  acc_.assign(k_.ops.size(), Acc{});
}

llvm::Function* Codegen::begin_body(const std::string& name, const std::vector<llvm::Type*>& extra) {
  llvm::Type* ptr = b_.getPtrTy();
  std::vector<llvm::Type*> params(k_.buffers.size(), ptr);
  params.push_back(ptr), params.push_back(ptr);
  params.insert(params.end(), extra.begin(), extra.end());
  auto* body_ty = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
  fn_ = llvm::Function::Create(body_ty, llvm::Function::InternalLinkage, name, m_);
  reset_state();
  for (size_t i = 0; i < k_.buffers.size(); ++i) {
    fn_->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    bufs_.push_back(fn_->getArg(static_cast<unsigned>(i)));
  }
  size_t nb = k_.buffers.size();
  scalars_ = fn_->getArg(nb);
  err_ = fn_->getArg(nb + 1);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  fn_->addFnAttr(llvm::Attribute::AlwaysInline);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  extents_.clear();
  for (size_t a = 0; a < k_.domain.size(); ++a)
    extents_.push_back(k_.symbolic_axis(a)
                           ? b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstGEP1_64(b_.getInt64Ty(), scalars_, k_.domain_slots[a]))
                           : i64(k_.domain[a]));
  return fn_;
}

void Codegen::make_entry(const std::string& symbol, llvm::Function* body, const std::vector<llvm::Type*>& extra) {
  llvm::Type* ptr = b_.getPtrTy();
  std::vector<llvm::Type*> params{ptr};
  params.insert(params.end(), extra.begin(), extra.end());
  auto* entry_ty = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
  auto* entry = llvm::Function::Create(entry_ty, llvm::Function::ExternalLinkage, symbol, m_);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
  Value* args = entry->getArg(0);
  Value* bufs = b_.CreateLoad(ptr, args);
  std::vector<Value*> call_args;
  for (size_t i = 0; i < k_.buffers.size(); ++i) call_args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, bufs, i)));
  call_args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, args, 1)));
  call_args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, args, 2)));
  for (size_t i = 0; i < extra.size(); ++i) call_args.push_back(entry->getArg(static_cast<unsigned>(i + 1)));
  b_.CreateRet(b_.CreateCall(body, call_args));
}

void Codegen::run(const std::string& symbol) {
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64t = b_.getInt64Ty();
  // Body: (buffers..., scalars, error, begin, end) with noalias buffers.
  llvm::Function* body = begin_body(symbol + ".body", {i64t, i64t});
  size_t nb = k_.buffers.size();
  Value* begin = body->getArg(nb + 2);
  Value* end = body->getArg(nb + 3);
  switch (k_.kind) {
    case KernelKind::Elementwise: gen_elementwise(begin, end); break;
    case KernelKind::Rows:
      if (kernel_reduces_columns(k_)) gen_rows_columns(begin, end);
      else gen_rows(begin, end);
      break;
    case KernelKind::MatMul: fail(ErrorKind::Runtime, "cpu codegen: MatMul kernels are generated by jit/cpu/matmul.cpp");
  }
  b_.CreateRet(b_.CreateTrunc(b_.CreateLoad(i64t, err_), b_.getInt32Ty()));
  make_entry(symbol, body, {i64t, i64t});

  if (kernel_splits_columns(k_)) {
    // Column-split entries (see jit.h): <symbol>_cpart(args, row_begin, row_end,
    // inner_begin, inner_end, out, row_stride) and <symbol>_finish as below.
    body = begin_body(symbol + "_cpart.body", {i64t, i64t, i64t, i64t, ptr, i64t});
    body->addParamAttr(static_cast<unsigned>(nb + 6), llvm::Attribute::NoAlias);
    gen_rows_columns(body->getArg(nb + 2), body->getArg(nb + 3), body->getArg(nb + 4), body->getArg(nb + 5),
                     body->getArg(nb + 6), body->getArg(nb + 7));
    b_.CreateRet(b_.CreateTrunc(b_.CreateLoad(i64t, err_), b_.getInt32Ty()));
    make_entry(symbol + "_cpart", body, {i64t, i64t, i64t, i64t, ptr, i64t});
  } else if (!kernel_splits_reduction(k_)) {
    return;
  } else {
    body = begin_body(symbol + "_part.body", {i64t, i64t, i64t, ptr});
    body->addParamAttr(static_cast<unsigned>(nb + 5), llvm::Attribute::NoAlias);
    gen_split_part(body->getArg(nb + 2), body->getArg(nb + 3), body->getArg(nb + 4), body->getArg(nb + 5));
    b_.CreateRet(b_.CreateTrunc(b_.CreateLoad(i64t, err_), b_.getInt32Ty()));
    make_entry(symbol + "_part", body, {i64t, i64t, i64t, ptr});
  }

  // <symbol>_finish(args, row, partials, nparts): combines either kind of partials.
  body = begin_body(symbol + "_finish.body", {i64t, ptr, i64t});
  body->addParamAttr(static_cast<unsigned>(nb + 3), llvm::Attribute::NoAlias);
  gen_split_finish(body->getArg(nb + 2), body->getArg(nb + 3), body->getArg(nb + 4));
  b_.CreateRet(b_.CreateTrunc(b_.CreateLoad(i64t, err_), b_.getInt32Ty()));
  make_entry(symbol + "_finish", body, {i64t, ptr, i64t});
}

}  // namespace

void generate_kernel(const Kernel& kernel, llvm::Module& module, const std::string& symbol, bool math_calls) {
  Codegen(kernel, module, math_calls).run(symbol);
}

}  // namespace lt::cpu
