// jit/cpu/matmul.cpp — MatMul kernels: sub-kernel generation, the LLVM
// micro-kernel and the blocked, packed, TBB-parallel driver (see matmul.h).
#include "jit/cpu/matmul.h"

#include "jit/cpu/conv_pack.h"
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/buffer.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/conv_pack.h"
#include "jit/cpu/interpreter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/Support/raw_ostream.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/parallel_invoke.h"
#include "oneapi/tbb/task_arena.h"

namespace lt::cpu {

// micro_kernels.cpp: the float micro-kernels compiled with the project (null where there is none).
void (*aot_micro_kernel(DType dt, int mr, int nv, int vbytes))(int64_t, const void*, const void*, void*, int64_t,
                                                               int64_t);

namespace {

// ---- blocking -----------------------------------------------------------------

struct Blocking {
  int mr = 6;         ///< rows of the micro-tile (broadcast A elements)
  int nv = 2;         ///< vectors per micro-tile row
  int vbytes = 32;    ///< vector width in bytes: 64 with AVX-512, 32 with AVX2
  int64_t kc = 256;   ///< k block: one B micro-panel (kc x NR) stays in L1
  Bf16MatMul bf16 = Bf16MatMul::Widen;  ///< Dot / Amx: bfloat16 operands packed as bfloat16 (float32 product)
  int64_t nr(DType dt) const { return nv * (vbytes / static_cast<int64_t>(dtype_size(dt))); }
  bool packs_bf16() const { return bf16 != Bf16MatMul::Widen; }
  /// Multiple of which k is packed: a pair for vdpbf16ps, a tile's 32 for AMX.
  int64_t k_align() const { return bf16 == Bf16MatMul::Amx ? 32 : bf16 == Bf16MatMul::Dot ? 2 : 1; }
  /// k extent of a packed panel: K rounded up to k_align() (the pad k is zero).
  int64_t k_packed(int64_t K) const { return (K + k_align() - 1) / k_align() * k_align(); }
  /// Bytes of one packed element: the product's dtype, or a bfloat16.
  int64_t packed_bytes(DType dt) const { return packs_bf16() ? 2 : static_cast<int64_t>(dtype_size(dt)); }
};

int64_t env_int(const char* name, int64_t dflt) {
  const char* e = std::getenv(name);
  return e && *e ? std::atoll(e) : dflt;
}

// Register tile by ISA: AVX-512 has 32 vector registers (14 x 2 zmm accumulators
// + 2 B vectors + a broadcast), AVX2 16 (6 x 2 ymm + 2 + 1: the classic
// Haswell shape). Larger tiles spill, smaller ones leave the FMA ports waiting
// on loads.
// A product of few rows (M up to 48 per batch: a convolution's output
// channels, a short sequence) on AVX-512 takes 8-row tiles when 14-row ones
// would leave more than a tenth of their rows empty: M = 16 filled 16 of 28
// rows (0.57 of the large-M rate), M = 32 32 of 42 (0.70-0.76). `M` <= 0:
// unknown (a shape-generic M), the default tile.
Blocking blocking_for(DType dt, Bf16MatMul bf16, int64_t M = 0) {
  Blocking b;
  b.bf16 = bf16;
  int es = static_cast<int>(dtype_size(dt));
  bool avx512 = target_vector_bits() == 512;
  b.vbytes = avx512 ? 64 : 32;
  b.mr = avx512 ? 14 : 6;
  b.kc = es == 8 ? 192 : 256;
  if (avx512 && is_floating(dt) && bf16 == Bf16MatMul::Widen && M > 0 && M <= 48 &&
      ((M + 13) / 14 * 14 - M) * 10 > M && (M + 7) / 8 * 8 < (M + 13) / 14 * 14)
    b.mr = 8;
  b.mr = static_cast<int>(env_int("LT_MM_MR", b.mr));
  b.nv = static_cast<int>(env_int("LT_MM_NV", b.nv));
  b.kc = env_int("LT_MM_KC", b.kc);
  if (bf16 == Bf16MatMul::Amx) {  // 2 x 2 tiles of 16 x 16 float32: fixed by the tile shapes
    b.mr = 32, b.nv = 2, b.vbytes = 64;
  }
  b.kc = std::max(b.k_align(), b.kc / b.k_align() * b.k_align());  // k blocks start at a pair / a tile
  return b;
}

bool bf16_operands(const Kernel& k);

// The blocking a MatMul kernel is generated, interpreted and linked with:
// its dtype's, its bfloat16 path's, and its rows' (a shape-generic M takes the default).
Blocking kernel_blocking(const Kernel& k) {
  const DType dt = k.buffers[k.mm_acc].dtype;
  const bool generic_m = k.domain_slots.size() > 1 && k.domain_slots[1] >= 0;
  return blocking_for(dt, bf16_operands(k) ? bf16_matmul() : Bf16MatMul::Widen, generic_m ? 0 : k.domain[1]);
}

// Whether a float32 product multiplies two bfloat16 operands (ops::matmul
// widens them; the scheduler leaves the widening in the operand DAGs): the
// operands can then be packed as bfloat16 pairs for vdpbf16ps, whose
// bfloat16 products are exact in float32.
bool bf16_operands(const Kernel& k) {
  if (k.buffers[k.mm_acc].dtype != DType::Float32) return false;
  for (int32_t root : {k.mm_lhs, k.mm_rhs}) {
    const KOp& o = k.ops[root];
    if (o.code != KOpCode::Compute || o.op != Op::Cast || k.ops[o.inputs[0]].dtype != DType::BFloat16) return false;
  }
  return true;
}

// ---- sub-kernels --------------------------------------------------------------

class SubKernel {
 public:
  explicit SubKernel(const Kernel& k) : k_(k) {
    out_.kind = KernelKind::Elementwise;
    out_.buffers = k.buffers;
    for (KernelBuffer& b : out_.buffers) b.plan_buffer = 0;
    out_.scalar_types = k.scalar_types;
    out_.scalar_slots = k.scalar_slots;
    out_.index_args = k.index_args;
    out_.name = k.name;
  }
  int32_t push(KOp o) {
    out_.ops.push_back(o);
    return static_cast<int32_t>(out_.ops.size()) - 1;
  }
  int32_t coord(int a) {
    KOp o;
    o.code = KOpCode::Coord;
    o.imm = a;
    return push(o);
  }
  int32_t iconst(int64_t v) {
    KOp o;
    o.code = KOpCode::Const;
    o.imm = v;
    return push(o);
  }
  /// An i64 from scalar slot `slot` (a derived size of a shape-generic kernel, see DerivedSlot).
  int32_t param(int32_t slot) {
    KOp o;
    o.code = KOpCode::Param;
    o.imm = slot;
    return push(o);
  }
  /// `v` as a literal, or read from `slot` when the kernel is shape-generic (slot >= 0).
  int32_t size(int64_t v, int32_t slot) { return slot >= 0 ? param(slot) : iconst(v); }
  int32_t bin(Op op, int32_t a, int32_t b) {
    KOp o;
    o.code = KOpCode::Compute;
    o.op = op;
    o.num_inputs = 2;
    o.inputs[0] = a, o.inputs[1] = b;
    return push(o);
  }
  int32_t load(int32_t buffer, int32_t offset, DType dt) {
    KOp o;
    o.code = KOpCode::Load;
    o.dtype = dt;
    o.imm = buffer;
    o.num_inputs = 1;
    o.inputs[0] = offset;
    return push(o);
  }
  void store(int32_t buffer, int32_t offset, int32_t value) {
    KOp o;
    o.code = KOpCode::Store;
    o.dtype = out_.ops[value].dtype;
    o.imm = buffer;
    o.num_inputs = 2;
    o.inputs[0] = offset, o.inputs[1] = value;
    push(o);
  }
  int32_t cast(int32_t value, DType dt) {
    KOp o;
    o.code = KOpCode::Compute;
    o.op = Op::Cast;
    o.dtype = dt;
    o.num_inputs = 1;
    o.inputs[0] = value;
    return push(o);
  }
  int32_t add_buffer(DType dt, int64_t numel) {
    out_.buffers.push_back({dt, numel, true, 0});
    return static_cast<int32_t>(out_.buffers.size()) - 1;
  }
  /// Copies the DAG under `root` with Coord(a) replaced by `coords[a]`; returns the copy's id.
  int32_t copy(int32_t root, const int32_t coords[4]) {
    std::vector<char> need(k_.ops.size(), 0);
    need[root] = 1;
    for (int32_t id = root; id >= 0; --id)
      if (need[id])
        for (int i = 0; i < k_.ops[id].num_inputs; ++i) need[k_.ops[id].inputs[i]] = 1;
    std::vector<int32_t> map(k_.ops.size(), -1);
    for (int32_t id = 0; id <= root; ++id) {
      if (!need[id]) continue;
      KOp o = k_.ops[id];
      if (o.code == KOpCode::Coord) {
        map[id] = coords[o.imm];
        continue;
      }
      for (int i = 0; i < o.num_inputs; ++i) o.inputs[i] = map[o.inputs[i]];
      o.elem = true;
      o.phase = 0;
      map[id] = push(o);
    }
    return map[root];
  }
  Kernel& kernel() { return out_; }

 private:
  const Kernel& k_;
  Kernel out_;
};

// Shape-generic MatMul kernels (scheduler/generic.h): the driver reads the
// sizes and operand strides of every launch from the launched kernel and
// appends them to the kernel's scalars, in this order, for the packing and
// epilogue sub-kernels, whose extents and strides are then runtime values.
enum DerivedSlot : int32_t {
  kLhsBatch, kLhsExtent, kLhsK, kLhsPanels, kLhsStridePanel, kLhsStrideK,
  kRhsBatch, kRhsExtent, kRhsK, kRhsPanels, kRhsStridePanel, kRhsStrideK,
  kEpiB, kEpiM, kEpiN, kDerivedSlots
};
static_assert(kRhsBatch == kLhsBatch + 6 && kEpiB == kRhsBatch + 6, "one block of six per operand, then the epilogue's");

bool generic_matmul(const Kernel& k) { return k.symbolic_domain() || k.mm_lhs_view.generic || k.mm_rhs_view.generic; }

struct Dims {
  int64_t B, M, N, K;
  int64_t batch_a, batch_b;  // 1 when the operand does not depend on the batch
  int64_t P, Q;              // MR-row panels of A, NR-col panels of B
};

bool reads_coord0(const Kernel& k, int32_t root) {
  std::vector<char> need(k.ops.size(), 0);
  need[root] = 1;
  for (int32_t id = root; id >= 0; --id) {
    if (!need[id]) continue;
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Coord && o.imm == 0) return true;
    for (int i = 0; i < o.num_inputs; ++i) need[o.inputs[i]] = 1;
  }
  return false;
}

Dims dims_of(const Kernel& k, const Blocking& bl) {
  Dims d;
  d.B = k.domain[0], d.M = k.domain[1], d.N = k.domain[2], d.K = k.domain[3];
  d.batch_a = reads_coord0(k, k.mm_lhs) ? d.B : 1;
  d.batch_b = reads_coord0(k, k.mm_rhs) ? d.B : 1;
  int64_t nr = bl.nr(k.buffers[k.mm_acc].dtype);
  d.P = (d.M + bl.mr - 1) / bl.mr;
  d.Q = (d.N + nr - 1) / nr;
  return d;
}

// Whether `op`, an operand view's base offset, is index arithmetic of the
// batch coordinate (Coord 0), literals and index arguments only, which
// eval_base computes on the host for each batch.
bool base_evaluable(const Kernel& k, int32_t op) {
  const KOp& o = k.ops[op];
  switch (o.code) {
    case KOpCode::Coord: return o.imm == 0;
    case KOpCode::Const:
    case KOpCode::Param: return o.dtype == DType::Int64;
    case KOpCode::IndexDiv:
    case KOpCode::IndexMod:
      return base_evaluable(k, o.inputs[0]) && (o.num_inputs < 2 || base_evaluable(k, o.inputs[1]));
    case KOpCode::Compute:
      if (o.dtype != DType::Int64 || (o.op != Op::Add && o.op != Op::Sub && o.op != Op::Mul)) return false;
      return base_evaluable(k, o.inputs[0]) && base_evaluable(k, o.inputs[1]);
    default: return false;
  }
}

// The base offset (base_evaluable) at batch `b`, as the kernel would compute it.
int64_t eval_base(const Kernel& k, int32_t op, int64_t b, const int64_t* scalars) {
  const KOp& o = k.ops[op];
  switch (o.code) {
    case KOpCode::Coord: return b;
    case KOpCode::Const: return o.imm;
    case KOpCode::Param: return scalars[o.imm];
    case KOpCode::IndexDiv:
    case KOpCode::IndexMod: {
      const int64_t x = eval_base(k, o.inputs[0], b, scalars);
      const int64_t by = o.num_inputs < 2 ? o.imm : eval_base(k, o.inputs[1], b, scalars);
      return o.code == KOpCode::IndexDiv ? x / by : x % by;  // x >= 0, by > 0 (scheduler/kernel.h)
    }
    default: {  // Compute Add / Sub / Mul
      const int64_t x = eval_base(k, o.inputs[0], b, scalars), y = eval_base(k, o.inputs[1], b, scalars);
      return o.op == Op::Add ? x + y : o.op == Op::Sub ? x - y : x * y;
    }
  }
}

// Whether an operand is packed straight from its buffer at every launch (no
// generated pack kernel): a strided view whose base is a literal, an index
// argument (a slice start; a varying literal of a shape-generic kernel) or,
// for a batched operand, index arithmetic of the batch coordinate (the heads
// of attention's q, k and v), with no index checks to run. Its pack kernel is
// then never called, so it is not generated (a linear layer's operands:
// about half a small matmul's compile time).
// A convolution's operand read through its index relation is packed by
// jit/cpu/conv_pack.cpp the same way (conv_packs).
bool packs_directly(const Kernel& k, bool lhs) {
  const MatMulView& v = lhs ? k.mm_lhs_view : k.mm_rhs_view;
  MatMulChecks checks = matmul_unread_checks(k);
  if (!(lhs ? checks.lhs : checks.rhs).empty()) return false;
  if (conv_packs(k, lhs) && !kernel_blocking(k).packs_bf16()) return true;
  if (!v.valid()) return false;
  return base_evaluable(k, v.base);
}

// One operand as the packing sees it: lhs packs rows m into MR-row panels
// [batch_a][P][K][MR], rhs packs columns n into NR-column panels [batch_b][Q][K][NR].
struct Operand {
  const MatMulView* view;  ///< the operand as a strided view (view->valid() false when it is not one)
  int32_t root;            ///< the operand's element DAG (mm_lhs / mm_rhs)
  int64_t R;               ///< panel width: MR or NR
  int64_t panels, extent;  ///< P or Q; M or N
  int64_t batch;           ///< batch_a or batch_b
  int64_t s_panel, s_k;    ///< view strides along the panel axis (m or n) and along k
};

Operand operand_of(const Kernel& k, bool lhs, const Blocking& bl, const Dims& d) {
  const MatMulView& v = lhs ? k.mm_lhs_view : k.mm_rhs_view;
  if (lhs) return {&v, k.mm_lhs, bl.mr, d.P, d.M, d.batch_a, v.row_stride, v.col_stride};
  return {&v, k.mm_rhs, bl.nr(k.buffers[k.mm_acc].dtype), d.Q, d.N, d.batch_b, v.col_stride, v.row_stride};
}

// Packs one operand: lhs into [batch_a][P][K][MR] (rows m) or rhs into
// [batch_b][Q][K][NR] (cols n). Packed as bfloat16 (Blocking::bf16) they
// are the values before their widening, k rounded up to k_packed() (the
// driver zeroes the pad k), with k-pairs interleaved as vdpbf16ps and AMX's
// B tiles read them: [batch][panels][K/2][R][2]; AMX's A tiles are rows of
// 32 k: lhs [batch][P][K/32][MR][32].
// The loop runs over the operand's own elements
// (no padding: the pad rows/cols of the last panel only ever reach pad rows/cols
// of the tile, which the epilogue never reads), with the operand's contiguous
// axis innermost so the loads stream.
Kernel pack_kernel(const Kernel& k, bool lhs, const Blocking& bl, const Dims& d) {
  DType dt = k.buffers[k.mm_acc].dtype;
  const Operand operand = operand_of(k, lhs, bl, d);
  const MatMulView& v = *operand.view;
  const int64_t R = operand.R, s_panel = operand.s_panel, s_k = operand.s_k;
  bool k_inner = v.valid() ? (s_k == 1 || s_k == -1) && s_panel != 1 && s_panel != -1 : lhs;
  SubKernel s(k);
  // Shape-generic: every size and stride below from the derived slots.
  const int32_t base = generic_matmul(k) ? static_cast<int32_t>(k.scalar_types.size()) + (lhs ? kLhsBatch : kRhsBatch) : -1;
  auto slot = [&](int32_t which) { return base >= 0 ? base + which : -1; };
  int32_t cb = s.coord(0);
  int32_t idx = s.coord(k_inner ? 1 : 2), ck = s.coord(k_inner ? 2 : 1);
  s.kernel().domain = k_inner ? Shape{operand.batch, operand.extent, d.K} : Shape{operand.batch, d.K, operand.extent};
  if (base >= 0)
    s.kernel().domain_slots = k_inner ? std::vector<int32_t>{slot(0), slot(1), slot(2)}
                                      : std::vector<int32_t>{slot(0), slot(2), slot(1)};
  int32_t coords[4];
  coords[0] = cb;
  coords[3] = ck;
  coords[lhs ? 1 : 2] = idx;
  coords[lhs ? 2 : 1] = s.iconst(0);
  const DType packed = bl.packs_bf16() ? DType::BFloat16 : dt;
  int32_t value;
  if (v.valid()) {
    int32_t off = s.copy(v.base, coords);
    off = s.bin(Op::Add, off, s.bin(Op::Mul, idx, s.size(s_panel, slot(kLhsStridePanel))));
    off = s.bin(Op::Add, off, s.bin(Op::Mul, ck, s.size(s_k, slot(kLhsStrideK))));
    const DType source = k.buffers[v.buffer].dtype;  // bfloat16 for a widened operand
    value = s.load(v.buffer, off, source);
    if (source != packed) value = s.cast(value, packed);
  } else {
    value = s.copy(bl.packs_bf16() ? k.ops[operand.root].inputs[0] : operand.root, coords);
  }
  int32_t dst = s.add_buffer(packed, operand.batch * operand.panels * bl.k_packed(d.K) * R);
  s.kernel().buffers[dst].generic_numel = base >= 0;
  auto index_op = [&](KOpCode code, int32_t a, int64_t c) {
    KOp o;
    o.code = code;
    o.num_inputs = 1;
    o.inputs[0] = a;
    o.imm = c;
    return s.push(o);
  };
  int32_t p = index_op(KOpCode::IndexDiv, idx, R), r = index_op(KOpCode::IndexMod, idx, R);
  int32_t kp = s.size(d.K, slot(kLhsK));  // the packed k extent
  const int64_t ka = bl.k_align();
  if (ka > 1) kp = s.bin(Op::Mul, index_op(KOpCode::IndexDiv, s.bin(Op::Add, kp, s.iconst(ka - 1)), ka), s.iconst(ka));
  int32_t lin = s.bin(Op::Mul, s.bin(Op::Add, s.bin(Op::Mul, cb, s.size(operand.panels, slot(kLhsPanels))), p), kp);
  if (bl.packs_bf16()) {  // pairs: (lin + k - k%2) * R + 2r + k%2; AMX's A: (lin + k - k%32) * R + 32r + k%32
    const int64_t w = bl.bf16 == Bf16MatMul::Amx && lhs ? 32 : 2;
    int32_t within = index_op(KOpCode::IndexMod, ck, w);
    lin = s.bin(Op::Mul, s.bin(Op::Add, lin, s.bin(Op::Sub, ck, within)), s.iconst(R));
    lin = s.bin(Op::Add, lin, s.bin(Op::Add, s.bin(Op::Mul, r, s.iconst(w)), within));
  } else {
    lin = s.bin(Op::Add, s.bin(Op::Mul, s.bin(Op::Add, lin, ck), s.iconst(R)), r);
  }
  s.store(dst, lin, value);
  MatMulChecks checks = matmul_unread_checks(k);
  for (int32_t id : lhs ? checks.lhs : checks.rhs) s.copy(id, coords);
  return std::move(s.kernel());
}

// The epilogue: the kernel's own stores over [B, M, N].
Kernel epilogue_kernel(const Kernel& k) {
  SubKernel s(k);
  int32_t coords[4] = {s.coord(0), s.coord(1), s.coord(2), s.iconst(0)};
  for (size_t id = 0; id < k.ops.size(); ++id) {
    const KOp& o = k.ops[id];
    if (o.code != KOpCode::Store && o.code != KOpCode::AccumStore) continue;
    s.copy(static_cast<int32_t>(id), coords);
  }
  for (int32_t id : matmul_unread_checks(k).epilogue) s.copy(id, coords);
  s.kernel().domain = Shape{k.domain[0], k.domain[1], k.domain[2]};
  if (generic_matmul(k)) {
    const int32_t base = static_cast<int32_t>(k.scalar_types.size());
    s.kernel().domain_slots = {base + kEpiB, base + kEpiM, base + kEpiN};
  }
  return std::move(s.kernel());
}

// ---- the micro-kernel -----------------------------------------------------------

// void ukr(i64 kc, ptr A, ptr B, ptr C, i64 ldc, i64 accumulate):
//   C[i][j] (+)= sum_k A[k*MR + i] * B[k*NR + j]  for i < MR, j < NR.
// With Bf16MatMul::Dot (float32 C, bfloat16 panels of k-pairs) each step is one
// pair: a 32-bit broadcast of A's pair for row i, NV vectors of 16 B pairs,
// one vdpbf16ps per accumulator (two exact products added in float32);
// kc may be odd (the last block of an odd K: the pad k is zero).
// C need not be vector-aligned: it is the tile buffer or, for a plain matmul,
// the output itself (rows of any length).
void generate_ukr(llvm::Module& m, const std::string& name, DType dt, const Blocking& bl) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  llvm::Type* t = dt == DType::Float32 ? b.getFloatTy()
                  : dt == DType::Float64 ? b.getDoubleTy()
                  : dt == DType::Int32   ? static_cast<llvm::Type*>(b.getInt32Ty())
                                         : b.getInt64Ty();
  bool fp = is_floating(dt);
  int es = static_cast<int>(dtype_size(dt));
  int vl = bl.vbytes / es, MR = bl.mr, NV = bl.nv, NR = NV * vl;
  auto* vt = llvm::FixedVectorType::get(t, vl);
  const bool pairs = bl.bf16 == Bf16MatMul::Dot;
  auto* pair_vt = llvm::FixedVectorType::get(b.getBFloatTy(), 2 * vl);  // vl pairs of bfloat16
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* ptr = b.getPtrTy();
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {i64, ptr, ptr, ptr, i64, i64}, false);
  auto* f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  for (unsigned i = 1; i <= 3; ++i) f->addParamAttr(i, llvm::Attribute::NoAlias);
  llvm::Value *kc = f->getArg(0), *A = f->getArg(1), *Bp = f->getArg(2), *C = f->getArg(3), *ldc = f->getArg(4),
              *accum = f->getArg(5);
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", f);
  auto* head4 = llvm::BasicBlock::Create(ctx, "head4", f);
  auto* body4 = llvm::BasicBlock::Create(ctx, "body4", f);
  auto* head1 = llvm::BasicBlock::Create(ctx, "head1", f);
  auto* body1 = llvm::BasicBlock::Create(ctx, "body1", f);
  auto* done = llvm::BasicBlock::Create(ctx, "done", f);
  auto* add_c = llvm::BasicBlock::Create(ctx, "add_c", f);
  auto* store_c = llvm::BasicBlock::Create(ctx, "store_c", f);
  int nacc = MR * NV;
  auto c_ptr = [&](int i, int v) {
    return b.CreateGEP(t, C, b.CreateAdd(b.CreateMul(b.getInt64(i), ldc), b.getInt64(v * vl)));
  };
  // The accumulators start at zero and C is added after the k loop, with its
  // rows prefetched here: loading C first made every FMA chain wait for it,
  // a stall of a memory latency per call whenever another process sharing
  // the core had evicted the tile (the usual case on this machine).
  b.SetInsertPoint(entry);
  for (int i = 0; i < MR; ++i) {
    for (llvm::Value* at : {c_ptr(i, 0), b.CreateConstGEP1_64(t, c_ptr(i, 0), NR - 1)})
      b.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr}, {at, b.getInt32(1), b.getInt32(3), b.getInt32(1)});
  }
  if (pairs) kc = b.CreateLShr(b.CreateAdd(kc, b.getInt64(1)), 1);  // steps of a k-pair
  b.CreateBr(head4);
  auto pair_step = [&](llvm::Value* j, std::vector<llvm::Value*>& acc) {
    std::vector<llvm::Value*> bv(NV);
    llvm::Value* brow = b.CreateGEP(b.getInt32Ty(), Bp, b.CreateMul(j, b.getInt64(NR)));
    for (int v = 0; v < NV; ++v)
      bv[v] = b.CreateAlignedLoad(pair_vt, b.CreateConstGEP1_64(b.getInt32Ty(), brow, v * vl), llvm::Align(bl.vbytes));
    llvm::Value* arow = b.CreateGEP(b.getInt32Ty(), A, b.CreateMul(j, b.getInt64(MR)));
    for (int i = 0; i < MR; ++i) {
      llvm::Value* a = b.CreateLoad(b.getInt32Ty(), b.CreateConstGEP1_64(b.getInt32Ty(), arow, i));
      llvm::Value* splat = b.CreateBitCast(b.CreateVectorSplat(vl, a), pair_vt);
      for (int v = 0; v < NV; ++v) {
        llvm::Value*& c = acc[i * NV + v];
        c = b.CreateIntrinsic(llvm::Intrinsic::x86_avx512bf16_dpbf16ps_512, {}, {c, splat, bv[v]});
      }
    }
  };
  auto step = [&](llvm::Value* k, std::vector<llvm::Value*>& acc) {
    if (pairs) return pair_step(k, acc);
    std::vector<llvm::Value*> bv(NV);
    llvm::Value* brow = b.CreateGEP(t, Bp, b.CreateMul(k, b.getInt64(NR)));
    for (int v = 0; v < NV; ++v)
      bv[v] = b.CreateAlignedLoad(vt, b.CreateConstGEP1_64(t, brow, v * vl), llvm::Align(bl.vbytes));
    llvm::Value* arow = b.CreateGEP(t, A, b.CreateMul(k, b.getInt64(MR)));
    for (int i = 0; i < MR; ++i) {
      llvm::Value* a = b.CreateLoad(t, b.CreateConstGEP1_64(t, arow, i));
      llvm::Value* splat = b.CreateVectorSplat(vl, a);
      for (int v = 0; v < NV; ++v) {
        llvm::Value*& c = acc[i * NV + v];
        c = fp ? b.CreateIntrinsic(llvm::Intrinsic::fma, {vt}, {splat, bv[v], c})
               : b.CreateAdd(c, b.CreateMul(splat, bv[v]));
      }
    }
  };
  // Unrolled by U, then one at a time.
  // AVX2 6x16: 2x unrolled has no spills and runs ~1.5x faster; the AVX-512
  // 14x32 tile spills when unrolled, so it stays at 1.
  const int U = static_cast<int>(std::max<int64_t>(1, env_int("LT_MM_UNROLL", bl.vbytes == 32 ? 2 : 1)));
  b.SetInsertPoint(head4);
  llvm::PHINode* k4 = b.CreatePHI(i64, 2, "k");
  k4->addIncoming(b.getInt64(0), entry);
  std::vector<llvm::PHINode*> acc4(nacc);
  for (int a = 0; a < nacc; ++a) {
    acc4[a] = b.CreatePHI(vt, 2);
    acc4[a]->addIncoming(llvm::Constant::getNullValue(vt), entry);
  }
  b.CreateCondBr(b.CreateICmpSLE(b.CreateAdd(k4, b.getInt64(U)), kc), body4, head1);
  b.SetInsertPoint(body4);
  std::vector<llvm::Value*> cur(acc4.begin(), acc4.end());
  for (int u = 0; u < U; ++u) step(b.CreateAdd(k4, b.getInt64(u)), cur);
  k4->addIncoming(b.CreateAdd(k4, b.getInt64(U)), body4);
  for (int a = 0; a < nacc; ++a) acc4[a]->addIncoming(cur[a], body4);
  b.CreateBr(head4);
  b.SetInsertPoint(head1);
  llvm::PHINode* k1 = b.CreatePHI(i64, 2, "k1");
  k1->addIncoming(k4, head4);
  std::vector<llvm::PHINode*> acc1(nacc);
  for (int a = 0; a < nacc; ++a) {
    acc1[a] = b.CreatePHI(vt, 2);
    acc1[a]->addIncoming(acc4[a], head4);
  }
  b.CreateCondBr(b.CreateICmpSLT(k1, kc), body1, done);
  b.SetInsertPoint(body1);
  cur.assign(acc1.begin(), acc1.end());
  step(k1, cur);
  k1->addIncoming(b.CreateAdd(k1, b.getInt64(1)), body1);
  for (int a = 0; a < nacc; ++a) acc1[a]->addIncoming(cur[a], body1);
  b.CreateBr(head1);
  b.SetInsertPoint(done);
  b.CreateCondBr(b.CreateICmpNE(accum, b.getInt64(0)), add_c, store_c);
  b.SetInsertPoint(add_c);
  std::vector<llvm::Value*> summed(nacc);
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) {
      llvm::Value* c = b.CreateAlignedLoad(vt, c_ptr(i, v), llvm::Align(es));
      summed[i * NV + v] = fp ? b.CreateFAdd(acc1[i * NV + v], c) : b.CreateAdd(acc1[i * NV + v], c);
    }
  b.CreateBr(store_c);
  b.SetInsertPoint(store_c);
  std::vector<llvm::PHINode*> out(nacc);
  for (int a = 0; a < nacc; ++a) {
    out[a] = b.CreatePHI(vt, 2);
    out[a]->addIncoming(summed[a], add_c);
    out[a]->addIncoming(acc1[a], done);
  }
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) b.CreateAlignedStore(out[i * NV + v], c_ptr(i, v), llvm::Align(es));
  b.CreateRetVoid();
}

// The AMX micro-kernel, same signature, float32 C of 32 x 32 as 2 x 2 tiles
// of 16 x 16 (tmm0-3), per 32 k two A tiles (16 rows of 32 bfloat16, tmm4-5)
// and two B tiles (16 k-pairs of 16 columns, tmm6-7), four tdpbf16ps. The
// tile configuration is loaded on every call and released at its end, so a
// thread holds no tile state between calls (none to save at a context
// switch, none another library finds configured): ldtilecfg and
// tilerelease per KC block were within noise of the micro-kernel's
// 2150-2480 GFLOP/s on one thread (LT_MM_UKRBENCH=1). Tiles accumulate in
// place, so C is loaded first when accumulating (kc may be any; the pad k
// up to 32 is zero).
void generate_amx_ukr(llvm::Module& m, const std::string& name) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* ptr = b.getPtrTy();
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {i64, ptr, ptr, ptr, i64, i64}, false);
  auto* f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value *kc = f->getArg(0), *A = f->getArg(1), *Bp = f->getArg(2), *C = f->getArg(3), *ldc = f->getArg(4),
              *accum = f->getArg(5);
  // Palette 1; tiles 0-7 of 16 rows x 64 bytes.
  std::vector<uint8_t> config(64, 0);
  config[0] = 1;
  for (int t = 0; t < 8; ++t) config[16 + 2 * t] = 64, config[48 + t] = 16;
  auto* cfg =
      new llvm::GlobalVariable(m, llvm::ArrayType::get(b.getInt8Ty(), 64), true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantDataArray::get(ctx, config), name + ".tilecfg");
  cfg->setAlignment(llvm::Align(64));
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", f);
  auto* load_c = llvm::BasicBlock::Create(ctx, "load_c", f);
  auto* zero_c = llvm::BasicBlock::Create(ctx, "zero_c", f);
  auto* head = llvm::BasicBlock::Create(ctx, "head", f);
  auto* body = llvm::BasicBlock::Create(ctx, "body", f);
  auto* done = llvm::BasicBlock::Create(ctx, "done", f);
  auto tile = [&](int t) { return b.getInt8(static_cast<uint8_t>(t)); };
  b.SetInsertPoint(entry);
  b.CreateIntrinsic(llvm::Intrinsic::x86_ldtilecfg, {}, {cfg});
  llvm::Value* ldc_bytes = b.CreateMul(ldc, b.getInt64(4));
  llvm::Value* c_tiles[4] = {C, b.CreateConstGEP1_64(b.getFloatTy(), C, 16),
                             b.CreateGEP(b.getFloatTy(), C, b.CreateMul(ldc, b.getInt64(16))), nullptr};
  c_tiles[3] = b.CreateConstGEP1_64(b.getFloatTy(), c_tiles[2], 16);
  b.CreateCondBr(b.CreateICmpNE(accum, b.getInt64(0)), load_c, zero_c);
  b.SetInsertPoint(load_c);
  for (int t = 0; t < 4; ++t) b.CreateIntrinsic(llvm::Intrinsic::x86_tileloadd64, {}, {tile(t), c_tiles[t], ldc_bytes});
  b.CreateBr(head);
  b.SetInsertPoint(zero_c);
  for (int t = 0; t < 4; ++t) b.CreateIntrinsic(llvm::Intrinsic::x86_tilezero, {}, {tile(t)});
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* step = b.CreatePHI(i64, 3, "s");
  step->addIncoming(b.getInt64(0), load_c);
  step->addIncoming(b.getInt64(0), zero_c);
  llvm::Value* steps = b.CreateLShr(b.CreateAdd(kc, b.getInt64(31)), 5);
  b.CreateCondBr(b.CreateICmpULT(step, steps), body, done);
  b.SetInsertPoint(body);
  llvm::Value* a = b.CreateGEP(b.getInt8Ty(), A, b.CreateMul(step, b.getInt64(2048)));    // 32 rows x 32 k
  llvm::Value* bb = b.CreateGEP(b.getInt8Ty(), Bp, b.CreateMul(step, b.getInt64(2048)));  // 16 pairs x 32 columns
  b.CreateIntrinsic(llvm::Intrinsic::x86_tileloadd64, {}, {tile(4), a, b.getInt64(64)});
  b.CreateIntrinsic(llvm::Intrinsic::x86_tileloadd64, {},
                    {tile(5), b.CreateConstGEP1_64(b.getInt8Ty(), a, 1024), b.getInt64(64)});
  b.CreateIntrinsic(llvm::Intrinsic::x86_tileloadd64, {}, {tile(6), bb, b.getInt64(128)});
  b.CreateIntrinsic(llvm::Intrinsic::x86_tileloadd64, {},
                    {tile(7), b.CreateConstGEP1_64(b.getInt8Ty(), bb, 64), b.getInt64(128)});
  for (auto [c, ta, tb] : {std::tuple{0, 4, 6}, std::tuple{1, 4, 7}, std::tuple{2, 5, 6}, std::tuple{3, 5, 7}})
    b.CreateIntrinsic(llvm::Intrinsic::x86_tdpbf16ps, {}, {tile(c), tile(ta), tile(tb)});
  step->addIncoming(b.CreateAdd(step, b.getInt64(1)), body);
  b.CreateBr(head);
  b.SetInsertPoint(done);
  for (int t = 0; t < 4; ++t)
    b.CreateIntrinsic(llvm::Intrinsic::x86_tilestored64, {}, {tile(t), c_tiles[t], ldc_bytes});
  b.CreateIntrinsic(llvm::Intrinsic::x86_tilerelease, {}, {});
  b.CreateRetVoid();
}

// ---- runtime --------------------------------------------------------------------

using UkrFn = void (*)(int64_t, const void*, const void*, void*, int64_t, int64_t);
using CfgFn = int64_t (*)();

/// A packing or epilogue sub-kernel: its compiled entry, or the interpreter's
/// (a MatMul kernel that starts in the interpreter, interpreter.h).
struct SubFn {
  KernelFn fn = nullptr;
  std::shared_ptr<const InterpretedKernel> interp;
  int32_t operator()(const KernelArgs* args, int64_t begin, int64_t end) const {
    return fn ? fn(args, begin, end) : interp->run(args, begin, end);
  }
};

struct Table {
  SubFn pack_a, pack_b, epi;
  UkrFn ukr;
  Blocking bl;
  Dims d;
  bool checks_a, checks_b;  ///< the operand has index checks no value reads (matmul_unread_checks)
  int32_t plain_out;        ///< output buffer when the epilogue only stores the product (else -1)
};

// The output buffer of a plain matmul, whose epilogue is one Store(out, i,
// Load(mm_acc, i)) (scheduler/kernel.h); -1 for any other epilogue. The
// micro-kernel then accumulates full micro-tiles in the output itself, which
// saves the tile buffer's round trip (~5% of a 512 product).
int32_t plain_output(const Kernel& k) {
  int32_t out = -1;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::AccumStore) return -1;
    if (o.code != KOpCode::Store) continue;
    const KOp& value = k.ops[o.inputs[1]];
    if (out >= 0 || value.code != KOpCode::Load || value.imm != k.mm_acc || value.inputs[0] != o.inputs[0] ||
        o.dtype != k.buffers[k.mm_acc].dtype)
      return -1;
    out = static_cast<int32_t>(o.imm);
  }
  return matmul_unread_checks(k).epilogue.empty() ? out : -1;
}

// The micro-kernel compiled with the project (micro_kernels.cpp) for what
// the interpreter runs: the generated kernel's bits without compiling it.
// Null for tiles it does not have (the generated one is used).
UkrFn interpreted_ukr(DType dt, const Blocking& bl) {
  static const bool off = env_int("LT_MM_AOT_UKR", 1) == 0;  // for comparing the two
  if (off || bl.bf16 != Bf16MatMul::Widen || bl.vbytes * 8 != target_vector_bits()) return nullptr;
  return aot_micro_kernel(dt, bl.mr, bl.nv, bl.vbytes);
}

std::string ukr_name(DType dt, const Blocking& bl) {
  const char* kind = bl.bf16 == Bf16MatMul::Amx ? "_amx_" : bl.bf16 == Bf16MatMul::Dot ? "_bf16dp_" : "_";
  return cat("lt_mm_ukr_", detail::to_alpha(dtype_name(dt)), kind, bl.mr, "x", bl.nv, "x", bl.vbytes, "_u",
             env_int("LT_MM_UNROLL", 0));
}

ObjectCode compile_ukr(const std::string& name, DType dt, const Blocking& bl) {
  return compile_runtime_object(name, [&](llvm::Module& m) {
    if (bl.bf16 == Bf16MatMul::Amx)
      generate_amx_ukr(m, name);
    else
      generate_ukr(m, name, dt, bl);
    if (const char* dump = std::getenv("LT_MM_DUMP")) {
      std::error_code ec;
      llvm::raw_fd_ostream os(cat(dump, "/", name, ".ll"), ec);
      m.print(os, nullptr);
    }
  });
}

// The micro-kernels linked so far, by symbol.
std::mutex ukr_mu;
absl::flat_hash_map<std::string, UkrFn>& ukrs() {
  static auto* fns = new absl::flat_hash_map<std::string, UkrFn>();
  return *fns;
}

// The micro-kernel for (dt, bl): linked by the backend before the kernel's
// first launch (matmul_runtime_functions), else compiled here.
UkrFn ukr_for(DType dt, const Blocking& bl) {
  std::string name = ukr_name(dt, bl);
  std::lock_guard<std::mutex> lock(ukr_mu);
  auto it = ukrs().find(name);
  if (it != ukrs().end()) return it->second;
  load_kernel_object(compile_ukr(name, dt, bl));
  auto fn = reinterpret_cast<UkrFn>(lookup_jit_symbol(name));
  ukrs().emplace(name, fn);
  return fn;
}

// Tables by entry address, each remembering the loaded object it was built
// for: once that object is unloaded, another kernel may be loaded at the same
// address, and its entry must not find the old table (pointers into unmapped code).
struct CachedTable {
  bool pinned;                      // built for a pinned object (never unloaded)
  std::weak_ptr<const void> owner;  // else the object it was built for
  std::shared_ptr<const Table> table;
  bool serves(const std::shared_ptr<const void>& o) const { return o ? !pinned && owner.lock() == o : pinned; }
};
std::mutex table_mu;
absl::flat_hash_map<KernelFn, CachedTable>& tables() {
  static auto* t = new absl::flat_hash_map<KernelFn, CachedTable>();
  return *t;
}

std::shared_ptr<const Table> table_for(const Kernel& k, KernelFn fn, const std::shared_ptr<const void>& owner) {
  std::lock_guard<std::mutex> lock(table_mu);
  auto it = tables().find(fn);
  if (it != tables().end() && it->second.serves(owner)) return it->second.table;
  std::string sym = loaded_symbol(fn);  // the quick or the full object (jit.h, Tier)
  auto t = std::make_shared<Table>();
  t->pack_a.fn = packs_directly(k, true) ? nullptr : reinterpret_cast<KernelFn>(lookup_jit_symbol(sym + ".pack_a"));
  t->pack_b.fn = packs_directly(k, false) ? nullptr : reinterpret_cast<KernelFn>(lookup_jit_symbol(sym + ".pack_b"));
  t->epi.fn = reinterpret_cast<KernelFn>(lookup_jit_symbol(sym + ".epi"));
  int64_t cfg = reinterpret_cast<CfgFn>(lookup_jit_symbol(sym + ".cfg"))();
  t->bl.mr = static_cast<int>(cfg & 0xff);
  t->bl.nv = static_cast<int>((cfg >> 8) & 0xff);
  t->bl.vbytes = static_cast<int>((cfg >> 16) & 0xff);
  t->bl.kc = (cfg >> 24) & 0xffffff;
  t->bl.bf16 = static_cast<Bf16MatMul>((cfg >> 48) & 3);
  t->ukr = ukr_for(k.buffers[k.mm_acc].dtype, t->bl);
  t->d = dims_of(k, t->bl);
  MatMulChecks checks = matmul_unread_checks(k);
  t->checks_a = !checks.lhs.empty();
  t->checks_b = !checks.rhs.empty();
  t->plain_out = plain_output(k);
  tables().insert_or_assign(fn, CachedTable{!owner, owner, t});
  return t;
}

// Grow-only scratch: fresh pages cost ~11 us each to fault in on this kind of
// machine, so packed panels reuse memory across launches.
struct Scratch {
  std::mutex mu;
  struct Block {
    char* p;
    size_t size;
    bool busy;
  };
  std::vector<Block> blocks;
  char* acquire(size_t size) {
    std::lock_guard<std::mutex> lock(mu);
    Block* best = nullptr;
    for (Block& b : blocks)
      if (!b.busy && b.size >= size && (!best || b.size < best->size)) best = &b;
    if (!best) {
      for (size_t i = 0; i < blocks.size(); ++i)  // drop one idle block that is too small
        if (!blocks[i].busy) {
          munmap(blocks[i].p, blocks[i].size);
          blocks.erase(blocks.begin() + static_cast<long>(i));
          break;
        }
      size_t bytes = (std::max<size_t>(size, 1) + (2u << 20) - 1) & ~((2u << 20) - 1);
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) fail(ErrorKind::Runtime, "matmul: out of memory for ", bytes, " bytes of packing space");
      madvise(p, bytes, MADV_HUGEPAGE);
      blocks.push_back({static_cast<char*>(p), bytes, false});
      best = &blocks.back();
    }
    best->busy = true;
    return best->p;
  }
  void release(char* p) {
    std::lock_guard<std::mutex> lock(mu);
    for (Block& b : blocks)
      if (b.p == p) b.busy = false;
  }
};
Scratch& scratch() {
  static Scratch* s = new Scratch();
  return *s;
}
struct ScratchLease {
  char* p;
  explicit ScratchLease(size_t n) : p(scratch().acquire(n)) {}
  ~ScratchLease() { scratch().release(p); }
};

char* thread_tile(size_t bytes) {
  thread_local std::unique_ptr<char, decltype(&std::free)> buf(nullptr, &std::free);
  thread_local size_t size = 0;
  if (size < bytes) {
    buf.reset(static_cast<char*>(std::aligned_alloc(64, (bytes + 63) & ~size_t{63})));
    size = bytes;
  }
  return buf.get();
}

// Runs body(i0, i1) over [0, n) on TBB threads in chunks of `grain` when the
// work (n * per_item elements) pays for a thread handoff; else inline.
template <typename F>
void parallel_ranges(int64_t n, int64_t grain, int64_t per_item, const F& body) {
  if (n <= 0) return;
  if (n * per_item < (1 << 15)) return body(int64_t{0}, n);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
}

// Packs a plain strided operand with a constant base directly (the common
// case: row-major, transposed or sliced 2-D operands, batch-invariant weights):
// dst panel p holds src[base + (p*R + r)*s_panel + k*s_k] at (p*K + k)*R + r.
// The source usually comes from DRAM (at 512 a whole launch touches more than
// L2, and this machine's L3 keeps little between launches), so the loops follow
// the source's memory order: with the panel axis contiguous (row-major B), row k
// is copied into every panel in turn, so the reads stream instead of jumping a
// row per 64 bytes (2x faster from cold memory); otherwise (row-major A, linear's
// W^T) panel by panel, k outer, so the R source rows stream side by side and the
// panel is written in order (blocking k, or r outer, reads short bursts of each
// row and was up to 1.5x slower from cold memory for NR = 16).
// A bfloat16 source (bits, S = uint16_t) into float32 panels (D = uint32_t) is widened on the way.
template <typename S, typename D>
D widened(S x) {
  if constexpr (std::is_same_v<S, D>)
    return x;
  else
    return static_cast<D>(static_cast<uint32_t>(x) << 16);
}

template <typename S, typename D>
void pack_strided(const S* src, D* dst, int64_t extent, int64_t K, int64_t R, int64_t s_panel, int64_t s_k) {
  const int64_t panels = (extent + R - 1) / R, full = extent / R;
  const size_t row_bytes = static_cast<size_t>(R) * sizeof(D), tail_bytes = (extent - full * R) * sizeof(D);
  if (s_panel == 1) {
    parallel_ranges(K, 16, extent, [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k) {
        const S* s = src + k * s_k;
        D* d = dst + k * R;
        if constexpr (!std::is_same_v<S, D>) {
          for (int64_t p = 0; p < panels; ++p)
            for (int64_t r = 0, rows = std::min(R, extent - p * R); r < rows; ++r)
              d[p * K * R + r] = widened<S, D>(s[p * R + r]);
        } else {
          if (row_bytes == 64)  // a constant size lets memcpy inline (NR of float32 and float64 on AVX2)
            for (int64_t p = 0; p < full; ++p) std::memcpy(d + p * K * R, s + p * R, 64);
          else
            for (int64_t p = 0; p < full; ++p) std::memcpy(d + p * K * R, s + p * R, row_bytes);
          if (tail_bytes) std::memcpy(d + full * K * R, s + full * R, tail_bytes);
        }
      }
    });
    return;
  }
  parallel_ranges(panels, 1, K * R, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t rows = std::min(R, extent - p * R);
      D* d = dst + p * K * R;
      const S* s0 = src + p * R * s_panel;
      for (int64_t k = 0; k < K; ++k, d += R)
        for (int64_t r = 0; r < rows; ++r) d[r] = widened<S, D>(s0[r * s_panel + k * s_k]);
    }
  });
}

// pack_strided for bfloat16 k-pairs (vdpbf16ps, AMX's B tiles): panel p's
// pair j holds, for each row r, the 32-bit word (k = 2j+1) << 16 | (k = 2j)
// of element p*R + r; an odd K's last pair has a zero high half. A panel
// holds Kp/2 pairs (zero_pad_k() zeroes those past K). Same loop orders as
// pack_strided.
void pack_pairs(const uint16_t* src, uint32_t* dst, int64_t extent, int64_t K, int64_t Kp, int64_t R, int64_t s_panel,
                int64_t s_k) {
  const int64_t panels = (extent + R - 1) / R, pairs = (K + 1) / 2, stride = Kp / 2 * R;
  if (s_panel == 1) {
    parallel_ranges(pairs, 8, 2 * extent, [&](int64_t j0, int64_t j1) {
      for (int64_t j = j0; j < j1; ++j) {
        const uint16_t* lo = src + 2 * j * s_k;
        const uint16_t* hi = 2 * j + 1 < K ? lo + s_k : nullptr;
        for (int64_t p = 0; p < panels; ++p) {
          uint32_t* d = dst + p * stride + j * R;
          const int64_t rows = std::min(R, extent - p * R);
          if (hi)
            for (int64_t r = 0; r < rows; ++r) d[r] = lo[p * R + r] | static_cast<uint32_t>(hi[p * R + r]) << 16;
          else
            for (int64_t r = 0; r < rows; ++r) d[r] = lo[p * R + r];
        }
      }
    });
    return;
  }
  parallel_ranges(panels, 1, 2 * pairs * R, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t rows = std::min(R, extent - p * R);
      uint32_t* d = dst + p * stride;
      const uint16_t* s0 = src + p * R * s_panel;
      for (int64_t j = 0; j < pairs; ++j, d += R) {
        const int64_t k = 2 * j;
        if (k + 1 < K)
          for (int64_t r = 0; r < rows; ++r)
            d[r] = s0[r * s_panel + k * s_k] | static_cast<uint32_t>(s0[r * s_panel + (k + 1) * s_k]) << 16;
        else
          for (int64_t r = 0; r < rows; ++r) d[r] = s0[r * s_panel + k * s_k];
      }
    }
  });
}

// AMX's A tiles: panel p's k block b holds R rows of 32 k, element (p*R + r,
// k) at (p*Kp + b*32)*R + 32r + k%32; K's last block is completed by
// zero_pad_k(). Row-major A (s_k = 1) copies 64-byte row pieces; otherwise
// k outer, so a transposed A's rows stream.
void pack_amx_rows(const uint16_t* src, uint16_t* dst, int64_t extent, int64_t K, int64_t Kp, int64_t R,
                   int64_t s_panel, int64_t s_k) {
  const int64_t panels = (extent + R - 1) / R;
  if (s_k == 1) {
    parallel_ranges(panels, 1, Kp * R, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t r = 0, rows = std::min(R, extent - p * R); r < rows; ++r) {
          const uint16_t* s0 = src + (p * R + r) * s_panel;
          uint16_t* d = dst + p * Kp * R + 32 * r;
          int64_t k = 0;
          for (; k + 32 <= K; k += 32) std::memcpy(d + k * R, s0 + k, 64);
          if (k < K) std::memcpy(d + k * R, s0 + k, static_cast<size_t>(K - k) * 2);
        }
    });
    return;
  }
  parallel_ranges(K, 32, extent, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const uint16_t* s0 = src + k * s_k;
      uint16_t* d = dst + (k - k % 32) * R + k % 32;
      for (int64_t p = 0; p < panels; ++p)
        for (int64_t r = 0, rows = std::min(R, extent - p * R); r < rows; ++r)
          d[p * Kp * R + 32 * r] = s0[(p * R + r) * s_panel];
    }
  });
}

// Zeroes the pad k (K <= k < Kp) of every bfloat16 panel: it multiplies the
// other operand's pad, which must not be a NaN's partner. `w` is how many
// consecutive k a row holds (2 in pairs, 32 in AMX's A tiles).
void zero_pad_k(uint16_t* dst, int64_t panels, int64_t K, int64_t Kp, int64_t R, int64_t w) {
  for (int64_t panel = 0; panel < panels; ++panel)
    for (int64_t k = K; k < Kp; ++k)
      for (int64_t r = 0; r < R; ++r) dst[(panel * Kp + k - k % w) * R + w * r + k % w] = 0;
}

// Whether an operand is packed straight from its buffer (packs_directly);
// the table's check flags say whether it has index checks to run.
bool packs_from_buffer(const Kernel& k, const Table& t, const Operand& o, bool lhs) {
  return !(lhs ? t.checks_a : t.checks_b) && o.view->valid() && base_evaluable(k, o.view->base);
}

// How a buffer-packed operand's panels are laid out (part of a cached pack's key).
enum class PackFormat : uint8_t { AmxRows, Pairs, Widen16, Copy32, Copy64 };

PackFormat pack_format(const Kernel& k, const Table& t, const Operand& o, bool lhs) {
  if (lhs && t.bl.bf16 == Bf16MatMul::Amx) return PackFormat::AmxRows;
  if (t.bl.packs_bf16()) return PackFormat::Pairs;
  if (k.buffers[o.view->buffer].dtype == DType::BFloat16) return PackFormat::Widen16;  // widened to float32 panels
  return dtype_size(k.buffers[k.mm_acc].dtype) == 4 ? PackFormat::Copy32 : PackFormat::Copy64;
}

// Packs a buffer-packed operand (packs_from_buffer) into its panels at `dst`:
// batch b's panels from the element eval_base gives for b.
void pack_from_buffer(const Kernel& k, const Table& t, const Dims& d, const Operand& o, PackFormat f,
                      void* const* buffers, const int64_t* scalars, char* dst) {
  const MatMulView& v = *o.view;
  const int64_t Kp = t.bl.k_packed(d.K);
  const char* src = static_cast<const char*>(buffers[v.buffer]);
  const int64_t batch_bytes = o.panels * Kp * o.R * t.bl.packed_bytes(k.buffers[k.mm_acc].dtype);
  auto one = [&](int64_t b) {
    const int64_t base = eval_base(k, v.base, b, scalars);
    const uint16_t* src16 = reinterpret_cast<const uint16_t*>(src) + base;
    char* out = dst + b * batch_bytes;
    switch (f) {
      case PackFormat::AmxRows:
        pack_amx_rows(src16, reinterpret_cast<uint16_t*>(out), o.extent, d.K, Kp, o.R, o.s_panel, o.s_k);
        break;
      case PackFormat::Pairs:
        pack_pairs(src16, reinterpret_cast<uint32_t*>(out), o.extent, d.K, Kp, o.R, o.s_panel, o.s_k);
        break;
      case PackFormat::Widen16:
        pack_strided(src16, reinterpret_cast<uint32_t*>(out), o.extent, d.K, o.R, o.s_panel, o.s_k);
        break;
      case PackFormat::Copy32:
        pack_strided(reinterpret_cast<const uint32_t*>(src) + base, reinterpret_cast<uint32_t*>(out), o.extent, d.K,
                     o.R, o.s_panel, o.s_k);
        break;
      case PackFormat::Copy64:
        pack_strided(reinterpret_cast<const uint64_t*>(src) + base, reinterpret_cast<uint64_t*>(out), o.extent, d.K,
                     o.R, o.s_panel, o.s_k);
        break;
    }
  };
  if (o.batch == 1)
    one(0);
  else
    parallel_ranges(o.batch, 1, o.extent * d.K, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) one(b);
    });
  if (Kp > d.K)
    zero_pad_k(reinterpret_cast<uint16_t*>(dst), o.batch * o.panels, d.K, Kp, o.R, f == PackFormat::AmxRows ? 32 : 2);
}

// Packs one operand into its panels at `dst`: from its buffer when it is a
// strided view with a constant base (packs_from_buffer), else with its
// generated pack kernel (batched or computed operands, and operands whose
// index checks must run).
void pack_operand(const Kernel& k, const Table& t, const Dims& d, bool lhs, void* const* buffers,
                  const int64_t* scalars, char* dst, ErrorSlot* err) {
  const Operand o = operand_of(k, lhs, t.bl, d);
  if (packs_from_buffer(k, t, o, lhs)) {
    pack_from_buffer(k, t, d, o, pack_format(k, t, o, lhs), buffers, scalars, dst);
    return;
  }
  if (lhs && !t.checks_a && !t.bl.packs_bf16() && conv_packs(k, true)) {
    pack_conv_lhs(k, o.R, o.batch, buffers, dst);
    return;
  }
  std::vector<void*> bufs(buffers, buffers + k.buffers.size());
  bufs.push_back(dst);
  KernelArgs args{bufs.data(), scalars, err};
  const SubFn& fn = lhs ? t.pack_a : t.pack_b;
  parallel_ranges(o.batch * o.extent * d.K, 1 << 13, 1, [&](int64_t i0, int64_t i1) { fn(&args, i0, i1); });
  const int64_t Kp = t.bl.k_packed(d.K);
  if (Kp > d.K)
    zero_pad_k(reinterpret_cast<uint16_t*>(dst), o.batch * o.panels, d.K, Kp, o.R,
               lhs && t.bl.bf16 == Bf16MatMul::Amx ? 32 : 2);
}

// ---- packed operands, kept across launches ---------------------------------------
//
// A weight read by matmul after matmul (each generated token's linear layers,
// an RNN's recurrent weight at every time step, an inference loop) is packed
// into the same panels every launch: in generation that was half the matmul
// time. Buffers are not written after they are filled, and a Buffer's id is
// never reused (ir/buffer.h), so the panels of (buffer id, region, layout) are
// the same at every launch: they are kept, up to LT_PACK_CACHE_MB (default
// 128; 0 turns this off), least recently used first out.
//
// Only operands that are trace parameters can be kept (the backend passes
// their ids; temporaries share slots within a launch and get none), and only
// from their second pack on: an operand packed once (most training-step
// operands: the weights change every step) costs one small-table insert,
// never an extra copy. Counters: matmul_packs_kept (panels stored),
// matmul_pack_hits (launches that read kept panels), matmul_pack_cache_bytes
// (held now).

Counter packs_kept("matmul_packs_kept");
Counter pack_hits("matmul_pack_hits");
Counter pack_cache_bytes("matmul_pack_cache_bytes");

struct PackKey {
  uint64_t id;
  int64_t base, extent, K, Kp, R, s_panel, s_k;
  PackFormat format;
  bool operator==(const PackKey& o) const {
    return id == o.id && base == o.base && extent == o.extent && K == o.K && Kp == o.Kp && R == o.R &&
           s_panel == o.s_panel && s_k == o.s_k && format == o.format;
  }
  template <typename H>
  friend H AbslHashValue(H h, const PackKey& k) {
    return H::combine(std::move(h), k.id, k.base, k.extent, k.K, k.Kp, k.R, k.s_panel, k.s_k, k.format);
  }
};

struct PackCache {
  struct Entry {
    BufferPtr panels;  ///< from the caching allocator: no fresh pages per replacement
    std::weak_ptr<const void> alive;  ///< the source buffer's lifetime: expired once it is freed
    std::list<PackKey>::iterator lru;
  };
  std::mutex mu;
  absl::flat_hash_map<PackKey, Entry> kept;
  std::list<PackKey> lru;                     ///< most recently used first
  absl::flat_hash_set<PackKey> seen;          ///< packed once, not kept (cleared when large)
  int64_t bytes = 0;
  const int64_t budget = env_int("LT_PACK_CACHE_MB", 128) << 20;

  /// Kept panels for `key`, or null. `*keep` is set when the caller should
  /// pack into a new entry and add() it (the key's second pack).
  BufferPtr find(const PackKey& key, int64_t size, bool* keep) {
    *keep = false;
    if (budget <= 0 || size > budget) return nullptr;
    std::lock_guard<std::mutex> lock(mu);
    auto it = kept.find(key);
    if (it != kept.end()) {
      lru.splice(lru.begin(), lru, it->second.lru);
      return it->second.panels;
    }
    if (seen.size() >= 4096) seen.clear();
    *keep = !seen.insert(key).second;
    return nullptr;
  }
  void drop(absl::flat_hash_map<PackKey, Entry>::iterator it) {
    bytes -= static_cast<int64_t>(it->second.panels->nbytes());
    lru.erase(it->second.lru);
    kept.erase(it);
  }
  void add(const PackKey& key, BufferPtr panels, std::weak_ptr<const void> alive) {
    std::lock_guard<std::mutex> lock(mu);
    if (kept.contains(key)) return;
    // Panels of freed buffers can never be read again (ids are not reused):
    // they go first, so a training loop's old weights do not fill the budget.
    for (auto it = kept.begin(); it != kept.end();) {
      auto next = std::next(it);
      if (it->second.alive.expired()) drop(it);
      it = next;
    }
    const auto size = static_cast<int64_t>(panels->nbytes());
    while (bytes + size > budget && !lru.empty()) drop(kept.find(lru.back()));
    lru.push_front(key);
    kept.emplace(key, Entry{std::move(panels), std::move(alive), lru.begin()});
    seen.erase(key);
    bytes += size;
    pack_cache_bytes.add(bytes - pack_cache_bytes.get());
  }
};
PackCache& pack_cache() {
  static auto* c = new PackCache();  // leaked: launches may run while statics are destroyed
  return *c;
}

// One operand's panels for a launch: kept panels (`kept`: nothing to pack),
// a new entry to pack into and keep (`fill`), or neither (pack into the
// launch's scratch).
struct OperandPanels {
  BufferPtr kept;   ///< held for the launch
  BufferPtr fill;   ///< pack here, then keep
  std::weak_ptr<const void> alive;  ///< fill: the source buffer's lifetime (Buffer::lifetime)
  PackKey key{};
  const char* data() const { return static_cast<const char*>((kept ? kept : fill)->data()); }
};

OperandPanels cached_panels(const Kernel& k, const Table& t, const Dims& d, bool lhs, const int64_t* scalars,
                            const Buffer* const* fixed, int64_t bytes) {
  OperandPanels out;
  const Operand o = operand_of(k, lhs, t.bl, d);
  // Batched operands are not kept: their panels depend on every batch's base, not one.
  if (!fixed || !o.view->valid() || o.batch != 1 || !fixed[o.view->buffer] || !packs_from_buffer(k, t, o, lhs))
    return out;
  const Buffer& src = *fixed[o.view->buffer];
  out.key = PackKey{src.id(), eval_base(k, o.view->base, 0, scalars), o.extent, d.K, t.bl.k_packed(d.K), o.R,
                    o.s_panel, o.s_k, pack_format(k, t, o, lhs)};
  bool keep = false;
  out.kept = pack_cache().find(out.key, bytes, &keep);
  if (out.kept) {
    pack_hits.add();
  } else if (keep) {
    out.fill = make_buffer(DType::UInt8, bytes);
    out.alive = src.lifetime();
  }
  return out;
}

// The block (a multiple of R) that covers `extent` in as many blocks as `block`
// does, with the R-wide panels spread evenly over them.
int64_t balanced_block(int64_t extent, int64_t block, int64_t R) {
  const int64_t blocks = (extent + block - 1) / block, panels = (extent + R - 1) / R;
  return R * ((panels + blocks - 1) / blocks);
}

}  // namespace

void generate_matmul_kernel(const Kernel& k, llvm::Module& m, const std::string& symbol) {
  DType dt = k.buffers[k.mm_acc].dtype;
  if (dt == DType::Bool) fail(ErrorKind::NotImplemented, "cpu matmul: bool");
  // ops::matmul widens these (ir/builder_nn.cpp); a MatMul node of them from elsewhere is refused.
  if (is_low_precision_float(dt) || is_narrow_int(dt))
    fail(ErrorKind::NotImplemented, "cpu matmul: no kernel for ", dtype_name(dt), " operands (matmul widens them to f32/i64 first)");
  Blocking bl = kernel_blocking(k);
  Dims d = dims_of(k, bl);
  if (!packs_directly(k, true)) generate_kernel(pack_kernel(k, true, bl, d), m, symbol + ".pack_a");
  if (!packs_directly(k, false)) generate_kernel(pack_kernel(k, false, bl, d), m, symbol + ".pack_b");
  generate_kernel(epilogue_kernel(k), m, symbol + ".epi");
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* cfg = llvm::Function::Create(llvm::FunctionType::get(b.getInt64Ty(), false), llvm::Function::ExternalLinkage,
                                     symbol + ".cfg", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", cfg));
  b.CreateRet(b.getInt64(static_cast<uint64_t>(bl.mr) | (static_cast<uint64_t>(bl.nv) << 8) |
                         (static_cast<uint64_t>(bl.vbytes) << 16) | (static_cast<uint64_t>(bl.kc & 0xffffff) << 24) |
                         (static_cast<uint64_t>(bl.bf16) << 48)));
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* i64 = b.getInt64Ty();
  auto* entry = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), {ptr, i64, i64}, false),
                                       llvm::Function::ExternalLinkage, symbol, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
  b.CreateRet(b.getInt32(0));
}

namespace {

/// The blocking, dims, micro-kernel and checks a table needs, for a kernel
/// that runs without an object (the interpreter), as table_for reads them
/// from a compiled one.
Table interpreted_table(const Kernel& k) {
  Table t;
  DType dt = k.buffers[k.mm_acc].dtype;
  t.bl = kernel_blocking(k);  // as generate_matmul_kernel
  t.ukr = interpreted_ukr(dt, t.bl);
  if (!t.ukr) t.ukr = ukr_for(dt, t.bl);
  t.d = dims_of(k, t.bl);
  MatMulChecks checks = matmul_unread_checks(k);
  t.checks_a = !checks.lhs.empty();
  t.checks_b = !checks.rhs.empty();
  t.plain_out = plain_output(k);
  return t;
}

void drive(const Kernel& k, const Table& table, bool interpreted, void* const* buffers, const int64_t* scalars,
           const Buffer* const* fixed);

}  // namespace

bool matmul_interpretable(const Kernel& k) {
  if (k.kind != KernelKind::MatMul || k.mm_acc < 0) return false;
  DType dt = k.buffers[k.mm_acc].dtype;
  if (dt != DType::Float32 && dt != DType::Float64 && dt != DType::Int32 && dt != DType::Int64) return false;
  Blocking bl = kernel_blocking(k);
  Dims d = dims_of(k, bl);
  if (!packs_directly(k, true) && !kernel_interpretable(pack_kernel(k, true, bl, d))) return false;
  if (!packs_directly(k, false) && !kernel_interpretable(pack_kernel(k, false, bl, d))) return false;
  return kernel_interpretable(epilogue_kernel(k));
}

void launch_matmul_interpreted(const Kernel& k, void* const* buffers, const int64_t* scalars, const Buffer* const* fixed) {
  drive(k, interpreted_table(k), /*interpreted=*/true, buffers, scalars, fixed);
}

void launch_matmul(const Kernel& k, KernelFn fn, const std::shared_ptr<const void>& owner, void* const* buffers,
                   const int64_t* scalars, const Buffer* const* fixed) {
  std::shared_ptr<const Table> tp = table_for(k, fn, owner);
  drive(k, *tp, /*interpreted=*/false, buffers, scalars, fixed);
}

namespace {

// A convolution's weight gradient as dot products of rows (conv_pack.h):
// each group's units (batch element, pixel block) cut into parts for the
// threads, the parts' products summed in order (the result does not depend
// on scheduling), then the epilogue over each group's whole product.
void weight_grad_by_dots(const Kernel& k, const Table& t, const Dims& d, void* const* buffers,
                         const int64_t* scalars) {
  const int64_t units = conv_weight_grad_units(k), MN = d.M * d.N;
  const int threads = tbb::this_task_arena::max_concurrency();
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(units, 4 * threads));
  std::vector<float> partial(static_cast<size_t>(d.B * parts * MN), 0.0f);
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, d.B * parts, 1), [&](const tbb::blocked_range<int64_t>& r) {
    for (int64_t w = r.begin(); w < r.end(); ++w) {
      const int64_t b = w / parts, p = w % parts;
      conv_weight_grad_dots(k, buffers, b, units * p / parts, units * (p + 1) / parts, partial.data() + w * MN);
    }
  });
  ErrorSlot err;
  std::vector<void*> eb(buffers, buffers + k.buffers.size());
  KernelArgs ea{eb.data(), scalars, &err};
  for (int64_t b = 0; b < d.B; ++b) {
    float* sum = partial.data() + b * parts * MN;
    for (int64_t p = 1; p < parts; ++p)
      for (int64_t i = 0; i < MN; ++i) sum[i] += sum[p * MN + i];
    const int64_t lin = b * MN;
    eb[k.mm_acc] = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(sum) - static_cast<uintptr_t>(lin * 4));
    t.epi(&ea, lin, lin + MN);
  }
  if (err.code != 0) raise_bad_index(err.code, err.value, err.axis, err.bound);
}

void drive(const Kernel& k, const Table& table, bool interpreted, void* const* buffers, const int64_t* scalars,
           const Buffer* const* fixed) {
  Table local;
  const Table* tp = &table;
  // A shape-generic kernel's sizes are this launch's (the table's are those of its first launch).
  const bool generic = generic_matmul(k);
  const Dims d = generic || interpreted ? dims_of(k, table.bl) : table.d;
  if (d.B == 0 || d.M == 0 || d.N == 0) return;
  std::vector<int64_t> extended;  // the kernel's scalars, then its DerivedSlot values
  if (generic) {
    const Blocking& bl = table.bl;
    extended.assign(scalars, scalars + k.scalar_types.size());
    for (bool lhs : {true, false}) {
      const Operand o = operand_of(k, lhs, bl, d);
      for (int64_t v : {o.batch, o.extent, d.K, o.panels, o.s_panel, o.s_k}) extended.push_back(v);
    }
    for (int64_t v : {d.B, d.M, d.N}) extended.push_back(v);
    scalars = extended.data();
  }
  if (interpreted) {
    // The sub-kernels for this launch's sizes and scalars (a generic kernel's derived slots included).
    local = table;
    local.d = d;
    if (!packs_directly(k, true))
      local.pack_a.interp = std::make_shared<const InterpretedKernel>(pack_kernel(k, true, local.bl, d), scalars);
    if (!packs_directly(k, false))
      local.pack_b.interp = std::make_shared<const InterpretedKernel>(pack_kernel(k, false, local.bl, d), scalars);
    local.epi.interp = std::make_shared<const InterpretedKernel>(epilogue_kernel(k), scalars);
    tp = &local;
  }
  const Table& t = *tp;
  DType dt = k.buffers[k.mm_acc].dtype;
  const int64_t es = static_cast<int64_t>(dtype_size(dt));
  if (!t.checks_a && !t.checks_b && !t.bl.packs_bf16() && conv_weight_grad_dots(k)) {
    weight_grad_by_dots(k, t, d, buffers, scalars);
    return;
  }
  const int64_t MR = t.bl.mr, NR = t.bl.nr(dt), KC = std::max<int64_t>(t.bl.kc, 1);
  const int64_t Kp = t.bl.k_packed(d.K), pes = t.bl.packed_bytes(dt);  // packed panels: k extent, element bytes
  const size_t nb = k.buffers.size();
  // A convolution's rhs is packed per tile and KC block, in cache (conv_pack.h).
  std::unique_ptr<ConvRhsPacker> conv_rhs;
  if (!t.checks_b && !t.bl.packs_bf16() && conv_packs(k, false))
    conv_rhs = std::make_unique<ConvRhsPacker>(k, buffers);
  const int64_t a_elems = d.batch_a * d.P * Kp * MR, b_elems = conv_rhs ? 0 : d.batch_b * d.Q * Kp * NR;
  const OperandPanels a_kept = cached_panels(k, t, d, true, scalars, fixed, a_elems * pes);
  const OperandPanels b_kept = cached_panels(k, t, d, false, scalars, fixed, b_elems * pes);
  const int64_t a_scratch = a_kept.kept || a_kept.fill ? 0 : a_elems, b_scratch = b_kept.kept || b_kept.fill ? 0 : b_elems;
  ScratchLease lease(static_cast<size_t>((a_scratch + b_scratch) * pes + 128));
  char* Ap = a_scratch ? lease.p : a_kept.fill ? static_cast<char*>(a_kept.fill->data()) : nullptr;
  char* Bp = b_scratch ? lease.p + ((a_scratch * pes + 63) & ~int64_t{63})
                       : b_kept.fill ? static_cast<char*>(b_kept.fill->data()) : nullptr;
  static const bool profile = env_int("LT_MM_PROFILE", 0) != 0;
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto t_start = now();
  ErrorSlot err;
  // Both operands in one parallel region: a thread done with A's panels takes
  // B's, and the launch waits at one join instead of two (a join is where a
  // preempted worker costs a whole time slice on a shared machine).
  const bool serial = d.M * d.N * std::max<int64_t>(d.K, 1) < (1 << 17);
  auto pack_a = [&] {
    if (!a_kept.kept) pack_operand(k, t, d, true, buffers, scalars, Ap, &err);
  };
  auto pack_b = [&] {
    if (!b_kept.kept && !conv_rhs) pack_operand(k, t, d, false, buffers, scalars, Bp, &err);
  };
  if (serial || a_kept.kept || b_kept.kept) {
    pack_a();
    pack_b();
  } else {
    tbb::parallel_invoke(pack_a, pack_b);
  }
  // Panels packed from a buffer report no errors (no index checks run there).
  for (const OperandPanels* o : {&a_kept, &b_kept})
    if (o->fill) {
      pack_cache().add(o->key, o->fill, o->alive);
      packs_kept.add();
    }
  const char* Apc = a_kept.kept ? a_kept.data() : Ap;
  const char* Bpc = b_kept.kept ? b_kept.data() : Bp;
  auto t_packed = now();
  if (env_int("LT_MM_UKRBENCH", 0) && d.K >= 256 && d.P > 0 && d.Q > 0 && !conv_rhs) {
    char* tile = thread_tile(static_cast<size_t>(MR * NR * es));
    auto u0 = now();
    for (int i = 0; i < 2000; ++i) t.ukr(256, Apc, Bpc, tile, NR, 0);
    double ms = std::chrono::duration<double, std::milli>(now() - u0).count();
    std::fprintf(stderr, "[lt] ukr %ldx%ld kc=256: %.1f GFLOP/s on one thread\n", (long)MR, (long)NR,
                 2000.0 * 2 * MR * NR * 256 / (ms * 1e6));
  }

  // Output tiles MC x NC: enough of them to keep every thread busy.
  int threads = tbb::this_task_arena::max_concurrency();
  // AMX: tall tiles (16 x 2 micro-tiles of 32 x 32), so each A micro-panel is
  // loaded from L2 for 2 B panels instead of 8 (tile loads from L2 bound the
  // AMX kernel; 1024: 0.9 against 1.1-1.9 ms tile phase, LT_MM_PROFILE).
  const bool amx = t.bl.bf16 == Bf16MatMul::Amx;
  int64_t mc = MR * std::max<int64_t>(1, env_int("LT_MM_MCP", amx ? 16 : MR >= 12 ? 8 : 24));
  int64_t nc = NR * std::max<int64_t>(1, env_int("LT_MM_NCP", amx ? 2 : NR >= 32 ? 8 : 16));
  auto tiles = [&] { return d.B * ((d.M + mc - 1) / mc) * ((d.N + nc - 1) / nc); };
  while (tiles() < 4 * threads && nc > NR) nc -= NR;
  // A convolution's rhs is packed by every tile that reads it (conv_rhs): more
  // tiles along M would pack it again each, so the k split below spreads the
  // work instead.
  while (tiles() < 4 * threads && mc > MR && !conv_rhs) mc -= MR;
  // Same tile count, panels spread evenly: 512 on AVX2 is 4 x 22 panels of 6
  // rows, not 3 x 24 and a last row of 14 that leaves a thread idle at the end.
  mc = balanced_block(d.M, mc, MR);
  nc = balanced_block(d.N, nc, NR);
  const int64_t tm = (d.M + mc - 1) / mc, tn = (d.N + nc - 1) / nc;
  const int64_t ldt = ((std::min(nc, d.N) + NR - 1) / NR) * NR;
  const int64_t total = d.B * tm * tn;
  // Plain matmul: full micro-tiles accumulate in the output (a K = 0 product
  // still needs the epilogue to write its zeros).
  const bool direct = t.plain_out >= 0 && d.K > 0;
  char* out = static_cast<char*>(buffers[direct ? t.plain_out : 0]);
  const int64_t P_full = d.M / MR, Q_full = d.N / NR;
  // Split k: a product of few output tiles over a long k (a convolution's
  // weight gradient, [O, C*kh*kw] summed over batch*pixels) left threads
  // idle. Each tile's k range is then cut into `splits` parts (whole KC
  // blocks) whose products accumulate in buffers of their own, summed before
  // the epilogue.
  int64_t splits = 1;
  const int64_t k_blocks = (d.K + KC - 1) / KC;
  if (!serial && total < 4 * threads && k_blocks >= 8)
    splits = std::min<int64_t>((4 * threads + total - 1) / total, k_blocks / 4);
  const int64_t chunk = (k_blocks + splits - 1) / splits * KC;
  const bool use_direct = direct && splits == 1;
  const size_t tile_bytes = static_cast<size_t>(((std::min(mc, d.M) + MR - 1) / MR) * MR * ldt * es);
  std::vector<char> partials(splits > 1 ? static_cast<size_t>(total * splits) * tile_bytes : 0);
  // Tile ti's product over k in [ks0, ks1) into `tile` (or, direct, its full micro-tiles into the output).
  auto accumulate = [&](int64_t ti, int64_t ks0, int64_t ks1, char* tile, char* blk) {
    int64_t bt = ti / (tm * tn), rest = ti % (tm * tn), it = rest / tn, jt = rest % tn;
    int64_t m0 = it * mc, m1 = std::min(d.M, m0 + mc), n0 = jt * nc, n1 = std::min(d.N, n0 + nc);
    int64_t p0 = m0 / MR, p1 = (m1 + MR - 1) / MR, q0 = n0 / NR, q1 = (n1 + NR - 1) / NR;
    const char* Ab = Apc + (bt % d.batch_a) * d.P * Kp * MR * pes;
    const char* Bb = conv_rhs ? nullptr : Bpc + (bt % d.batch_b) * d.Q * Kp * NR * pes;
    if (ks0 >= ks1) std::memset(tile, 0, static_cast<size_t>((p1 - p0) * MR * ldt * es));
    for (int64_t k0 = ks0; k0 < ks1; k0 += KC) {
      int64_t kc = std::min(KC, ks1 - k0);
      if (conv_rhs) conv_rhs->block(NR, bt % d.batch_b, k0, k0 + kc, n0, n1, blk);
      for (int64_t q = q0; q < q1; ++q) {
        const char* bpan = conv_rhs ? blk + (q - q0) * kc * NR * pes : Bb + (q * Kp + k0) * NR * pes;
        for (int64_t p = p0; p < p1; ++p) {
          const char* apan = Ab + (p * Kp + k0) * MR * pes;
          if (use_direct && p < P_full && q < Q_full)
            t.ukr(kc, apan, bpan, out + ((bt * d.M + p * MR) * d.N + q * NR) * es, d.N, k0 > ks0);
          else
            t.ukr(kc, apan, bpan, tile + ((p - p0) * MR * ldt + (q - q0) * NR) * es, ldt, k0 > ks0);
        }
      }
    }
  };
  // The epilogue over what is in the tile buffer: everything, or for a
  // direct tile only the partial micro-tiles at the M and N edges.
  auto finish = [&](int64_t ti, char* tile, std::vector<void*>& eb, KernelArgs& ea) {
    int64_t bt = ti / (tm * tn), rest = ti % (tm * tn), it = rest / tn, jt = rest % tn;
    int64_t m0 = it * mc, m1 = std::min(d.M, m0 + mc), n0 = jt * nc, n1 = std::min(d.N, n0 + nc);
    const int64_t m_direct = use_direct ? std::min(m1, P_full * MR) : m0;
    const int64_t n_direct = use_direct ? std::max(n0, std::min(n1, Q_full * NR)) : n0;
    if (!use_direct && n0 == 0 && n1 == d.N && ldt == d.N) {
      // Whole rows, held at the output's row stride: the tile is one
      // contiguous run of the output, so one epilogue call covers it (an
      // interpreted epilogue pays a fixed cost per call).
      int64_t lin = (bt * d.M + m0) * d.N;
      eb[k.mm_acc] = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(tile) - static_cast<uintptr_t>(lin * es));
      t.epi(&ea, lin, lin + (m1 - m0) * d.N);
      return;
    }
    for (int64_t m = m0; m < m1; ++m) {
      int64_t lin = (bt * d.M + m) * d.N + n0;
      eb[k.mm_acc] = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(tile) +
                                             static_cast<uintptr_t>(((m - m0) * ldt - lin) * es));
      int64_t from = m < m_direct ? n_direct - n0 : 0;
      if (from < n1 - n0) t.epi(&ea, lin + from, lin + (n1 - n0));
    }
  };
  auto conv_block = [&] {  // conv_rhs: a tile's B panels for one KC block, per thread
    thread_local std::vector<char> block;
    if (conv_rhs && block.size() < static_cast<size_t>(ldt * KC * pes + 64)) block.resize(ldt * KC * pes + 64);
    return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(block.data()) + 63) & ~uintptr_t{63});
  };
  auto run_tiles = [&](int64_t t0, int64_t t1) {
    char* tile = thread_tile(tile_bytes);
    char* blk = conv_block();
    std::vector<void*> eb(buffers, buffers + nb);
    KernelArgs ea{eb.data(), scalars, &err};
    for (int64_t ti = t0; ti < t1; ++ti) {
      accumulate(ti, 0, d.K, tile, blk);
      finish(ti, tile, eb, ea);
    }
  };
  if (splits > 1) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total * splits, 1), [&](const tbb::blocked_range<int64_t>& r) {
      char* blk = conv_block();
      for (int64_t w = r.begin(); w < r.end(); ++w) {
        const int64_t s = w % splits, ks0 = std::min(d.K, s * chunk), ks1 = std::min(d.K, ks0 + chunk);
        accumulate(w / splits, ks0, ks1, partials.data() + w * tile_bytes, blk);
      }
    });
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, 1), [&](const tbb::blocked_range<int64_t>& r) {
      std::vector<void*> eb(buffers, buffers + nb);
      KernelArgs ea{eb.data(), scalars, &err};
      for (int64_t ti = r.begin(); ti < r.end(); ++ti) {
        char* sum = partials.data() + ti * splits * tile_bytes;
        for (int64_t s = 1; s < splits; ++s) {
          const char* part = sum + s * tile_bytes;
          auto add = [&](auto zero) {
            using T = decltype(zero);
            T* into = reinterpret_cast<T*>(sum);
            const T* from = reinterpret_cast<const T*>(part);
            for (size_t i = 0; i < tile_bytes / sizeof(T); ++i) into[i] += from[i];
          };
          if (dt == DType::Float32) add(0.0f);
          else if (dt == DType::Float64) add(0.0);
          else if (dt == DType::Int32) add(uint32_t{0});  // wrapping, as the micro-kernel's adds
          else add(uint64_t{0});
        }
        finish(ti, sum, eb, ea);
      }
    });
  } else if (total == 1 || serial) {
    run_tiles(0, total);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, 1),
                      [&](const tbb::blocked_range<int64_t>& r) { run_tiles(r.begin(), r.end()); });
  }
  if (profile)
    std::fprintf(stderr, "[lt] matmul %ldx%ldx%ldx%ld pack %.3f ms tiles %.3f ms (%ld tiles of %ldx%ld, k split %ld)\n",
                 (long)d.B, (long)d.M, (long)d.N, (long)d.K,
                 std::chrono::duration<double, std::milli>(t_packed - t_start).count(),
                 std::chrono::duration<double, std::milli>(now() - t_packed).count(), (long)total, (long)mc, (long)nc,
                 (long)splits);
  if (err.code != 0) {
    raise_bad_index(err.code, err.value, err.axis, err.bound);
  }
}

}  // namespace

std::vector<RuntimeFunction> matmul_runtime_functions(const Kernel& k, bool interpreted) {
  const DType dt = k.buffers[k.mm_acc].dtype;
  const Blocking bl = kernel_blocking(k);  // as generate_matmul_kernel
  if (interpreted && interpreted_ukr(dt, bl)) return {};
  std::string name = ukr_name(dt, bl);
  return {RuntimeFunction{name, [name, dt, bl] { return compile_ukr(name, dt, bl); }}};
}

bool runtime_function_loaded(const std::string& symbol) {
  std::lock_guard<std::mutex> lock(ukr_mu);
  return ukrs().contains(symbol);
}

void load_runtime_function(const ObjectCode& object) {
  std::lock_guard<std::mutex> lock(ukr_mu);
  if (ukrs().contains(object.symbol)) return;
  load_kernel_object(object);  // pinned: every later MatMul kernel may call it
  ukrs().emplace(object.symbol, reinterpret_cast<UkrFn>(lookup_jit_symbol(object.symbol)));
}

}  // namespace lt::cpu
