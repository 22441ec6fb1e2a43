// jit/cpu/interpreter.cpp — Elementwise kernels evaluated from their kernel IR (see interpreter.h).
//
// A launch range is cut into blocks of kBlock consecutive elements; per block
// every live op is evaluated for all its elements at once, into a lane array
// of its register type, so the per-op dispatch is paid once per block and
// the inner loops are plain array loops the C++ compiler vectorises. Each
// semantic below is the lowering of the same op in codegen.cpp (the comment
// names it where it is not the obvious one).
#include "jit/cpu/interpreter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "ir/error.h"
#include "ir/lowp.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/jit.h"
#include "jit/cpu/matmul.h"
#include "jit/cpu/random.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace lt::cpu {

namespace {

constexpr int64_t kBlock = 256;
// As launch_kernel: below this many elements a launch runs on the calling thread.
constexpr int64_t kSerialWork = 1 << 16, kGrainWork = 1 << 15;

/// Register types (codegen.cpp vtype): narrow integers live in i32, narrow floats in float.
enum class RT : uint8_t { Bool, I32, I64, F32, F64 };

RT reg_type(DType d) {
  switch (d) {
    case DType::Bool: return RT::Bool;
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::Int32: return RT::I32;
    case DType::Int64: return RT::I64;
    case DType::Float64: return RT::F64;
    default: return RT::F32;
  }
}


union Lanes {
  float f[kBlock];
  double d[kBlock];
  int32_t i[kBlock];
  int64_t l[kBlock];
  uint8_t b[kBlock];  // 0 or 1
};

/// Which path of compute() (interpreter_block.inc) evaluates an op. The
/// switch has no default, so every primitive is classified here, and each
/// row of ir/ops.def is checked below: an op has a lowering exactly when its
/// `interpreted` column is 1, which is what kernel_interpretable reads.
enum class Lowering : uint8_t {
  None,        ///< not evaluated here: kernels computing it are compiled
  Cast,        ///< cast_op, which normalizes itself
  Copy,        ///< Detach
  LogicalNot,  ///< its operand as bool, negated
  IsNan,       ///< false for integers and bool
  Logical,     ///< LogicalAnd, LogicalOr: operands as bool
  Where,       ///< a select on the register bits
  Unary,       ///< unary_fp / unary_int by register type, bool inline
  Compare,     ///< compare into bool lanes
  Binary,      ///< binary_arith by register type, bool inline
};

constexpr Lowering lowering(Op op) {
  switch (op) {
    case Op::Cast: return Lowering::Cast;
    case Op::Detach: return Lowering::Copy;
    case Op::LogicalNot: return Lowering::LogicalNot;
    case Op::IsNan: return Lowering::IsNan;
    case Op::LogicalAnd:
    case Op::LogicalOr: return Lowering::Logical;
    case Op::Where: return Lowering::Where;
    case Op::Neg:
    case Op::Abs:
    case Op::Sqrt:
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
    case Op::Sign:
    case Op::Sigmoid:
    case Op::BitwiseNot:
    case Op::Exp:
    case Op::Log:
    case Op::Log1p:
    case Op::Expm1:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Erf: return Lowering::Unary;
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge: return Lowering::Compare;
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Pow:
    case Op::Maximum:
    case Op::Minimum:
    case Op::BitwiseAnd:
    case Op::BitwiseOr:
    case Op::BitwiseXor:
    case Op::ShiftLeft:
    case Op::ShiftRight: return Lowering::Binary;
    LT_NON_ELEMENTWISE_CASES: return Lowering::None;
  }
  return Lowering::None;
}

#define LT_CHECK_INTERPRETED(name, text, kind, arity, rule, cost, saved, transcendental, interpreted) \
  static_assert((lowering(Op::name) != Lowering::None) == (interpreted != 0),                        \
                "ir/ops.def's `interpreted` column and the interpreter's lowering disagree on " #name);
LT_PRIMITIVE_OPS(LT_CHECK_INTERPRETED)
#undef LT_CHECK_INTERPRETED

/// Ops that call a math function: the registry's transcendentals, and
/// Sigmoid (1 / (1 + exp(-x)) over the exp function, as codegen.cpp).
bool transcendental(Op op) { return is_transcendental(op) || op == Op::Sigmoid; }

/// The scalar entry of a loaded math function, looked up once per process.
void* math_entry(Op op, bool f64) {
  static std::mutex mu;
  static auto* fns = new absl::flat_hash_map<std::string, void*>();
  std::string name = math_function_name(op == Op::Sigmoid ? Op::Exp : op, f64);
  std::lock_guard<std::mutex> lock(mu);
  auto it = fns->find(name);
  if (it != fns->end()) return it->second;
  if (!math_function_loaded(name)) fail(ErrorKind::Runtime, "cpu interpreter: math function ", name, " is not loaded");
  void* p = lookup_jit_symbol(name);
  fns->emplace(name, p);
  return p;
}

// ---- the kernel ----

struct Prepared {
  const Kernel* k = nullptr;
  std::vector<Lanes> fixed_values;  // per entry of `fixed`: its lanes (the same in every block)
  std::vector<int32_t> live;   // ops to evaluate per block, in order (no Const/Param)
  std::vector<int32_t> fixed;  // Const and Param ops: the same in every block
  std::vector<void*> math;     // per op: its math function (transcendentals)
  std::vector<int32_t> coord_ops;  // the live Coord ops
  std::vector<int64_t> extents;
  /// Loads and stores whose offset is affine in the coordinates (no gather,
  /// no runtime stride): their offsets are walked with the elements instead
  /// of evaluating the offset's ops, and a walk that steps by one element
  /// (`contiguous`) reads or writes a run of memory.
  struct Affine {
    int32_t op;
    int64_t c0;                  // offset of the element at coordinates 0
    std::vector<int64_t> coeff;  // per axis
    std::vector<int64_t> delta;  // offset change when axis a increments and the axes after it wrap to 0
    bool contiguous;             // every delta is 1: the offset is c0 + the linear index
  };
  std::vector<Affine> affine;
  bool serial_blocks = false;  // a serial kernel that may still run a block at a time (run_range)
  std::vector<int32_t> affine_of;  // per op: index into `affine`, or -1
  /// Rows kernels (run_rows): per phase, the element ops it evaluates and
  /// the reductions it accumulates; per wave w (0..num_phases), the
  /// row-level ops evaluated once the phases before w have finished (the
  /// last wave holds the row-level stores and checks).
  struct Reduction {
    int32_t op;
    DType acc;   // reduction_acc_type
    bool lanes;  // reduces_in_lanes: `lanes` lanes, else one accumulator in element order
  };
  std::vector<std::vector<int32_t>> phase_live, row_wave;
  std::vector<std::vector<Reduction>> phase_reduces;
  int64_t lanes = 1;  // row_lanes()
  int64_t run = 1;    // the innermost run's length (codegen.cpp gen_rows)
};


namespace isa_default {
#include "jit/cpu/interpreter_block.inc"
}  // namespace isa_default

#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,f16c,popcnt")
namespace isa_avx2 {
#include "jit/cpu/interpreter_block.inc"
}  // namespace isa_avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi,bmi2,f16c,popcnt")
namespace isa_avx512 {
#include "jit/cpu/interpreter_block.inc"
}  // namespace isa_avx512
#pragma GCC pop_options

using isa_default::normalize;

Prepared prepare(const Kernel& k) {
  Prepared p;
  p.k = &k;
  const size_t rank = k.domain.size();
  p.extents.assign(k.domain.begin(), k.domain.end());
  p.affine_of.assign(k.ops.size(), -1);
  std::vector<int64_t> f;
  for (size_t id = 0; id < k.ops.size(); ++id) {
    const KOp& o = k.ops[id];
    if (o.code != KOpCode::Load && o.code != KOpCode::Store && o.code != KOpCode::AccumStore) continue;
    if (!affine_offset(k, o.inputs[0], &f)) continue;
    Prepared::Affine a{static_cast<int32_t>(id), f[rank], {f.begin(), f.begin() + rank}, std::vector<int64_t>(rank), true};
    for (size_t ax = 0; ax < rank; ++ax) {
      int64_t d = a.coeff[ax];
      for (size_t b = ax + 1; b < rank; ++b) d -= a.coeff[b] * (p.extents[b] - 1);
      a.delta[ax] = d;
      a.contiguous = a.contiguous && d == 1;
    }
    p.affine_of[id] = static_cast<int32_t>(p.affine.size());
    p.affine.push_back(std::move(a));
  }
  std::vector<char> need(k.ops.size(), 0);
  for (size_t id = k.ops.size(); id-- > 0;) {
    if (is_effect(k.ops[id].code)) need[id] = 1;
    if (!need[id]) continue;
    for (int i = 0; i < k.ops[id].num_inputs; ++i)
      if (i != 0 || p.affine_of[id] < 0) need[k.ops[id].inputs[i]] = 1;  // an affine offset is walked, not evaluated
  }
  p.math.assign(k.ops.size(), nullptr);
  for (size_t id = 0; id < k.ops.size(); ++id) {
    if (!need[id]) continue;
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Const || o.code == KOpCode::Param) p.fixed.push_back(static_cast<int32_t>(id));
    else p.live.push_back(static_cast<int32_t>(id));
    if (o.code == KOpCode::Coord) p.coord_ops.push_back(static_cast<int32_t>(id));
    if (o.code == KOpCode::Compute && transcendental(o.op))
      p.math[id] = math_entry(o.op, k.ops[o.inputs[0]].dtype == DType::Float64);
  }
  if (k.serial) {
    int accums = 0;
    int32_t buffer = -1;
    for (const KOp& o : k.ops)
      if (o.code == KOpCode::AccumStore) ++accums, buffer = static_cast<int32_t>(o.imm);
    bool alone = accums == 1;
    for (const KOp& o : k.ops)
      if ((o.code == KOpCode::Load || o.code == KOpCode::Store) && o.imm == buffer) alone = false;
    p.serial_blocks = alone;
  }
  if (k.kind == KernelKind::Rows) {
    const int phases = k.num_phases;
    p.phase_live.assign(phases, {});
    p.phase_reduces.assign(phases, {});
    p.row_wave.assign(phases + 1, {});
    p.lanes = row_lanes(k);
    p.run = rows_nest_inner_loops(k) ? k.domain.back() : k.inner_size();
    // When a row-level value can be evaluated: after the phase of every reduction it reads.
    std::vector<int> wave(k.ops.size(), 0);
    for (size_t id = 0; id < k.ops.size(); ++id) {
      const KOp& o = k.ops[id];
      if (o.elem) continue;
      if (o.code == KOpCode::Reduce) {
        wave[id] = o.phase + 1;
        continue;
      }
      for (int i = 0; i < o.num_inputs; ++i) wave[id] = std::max(wave[id], wave[o.inputs[i]]);
    }
    const bool columns = kernel_reduces_columns(k);
    for (int q = 0; q < phases; ++q) {
      std::vector<char> in(k.ops.size(), 0);
      for (size_t id = k.ops.size(); id-- > 0;) {
        const KOp& o = k.ops[id];
        if (!need[id]) continue;
        bool root = o.elem && is_effect(o.code) && o.phase == q;
        if (o.code == KOpCode::Reduce && o.phase == q) {
          p.phase_reduces[q].push_back({static_cast<int32_t>(id), reduction_acc_type(k, o), !columns && reduces_in_lanes(o)});
          if (k.ops[o.inputs[0]].elem) in[o.inputs[0]] = 1;
        }
        if (!root && !in[id]) continue;
        in[id] = 1;
        for (int i = 0; i < o.num_inputs; ++i)
          if ((i != 0 || p.affine_of[id] < 0) && k.ops[o.inputs[i]].elem) in[o.inputs[i]] = 1;
      }
      std::reverse(p.phase_reduces[q].begin(), p.phase_reduces[q].end());
      for (size_t id = 0; id < k.ops.size(); ++id) {
        const KOp& o = k.ops[id];
        if (in[id] && o.code != KOpCode::Const && o.code != KOpCode::Param) p.phase_live[q].push_back(static_cast<int32_t>(id));
      }
    }
    for (size_t id = 0; id < k.ops.size(); ++id) {
      const KOp& o = k.ops[id];
      if (!need[id] || o.elem || o.code == KOpCode::Reduce || o.code == KOpCode::Const || o.code == KOpCode::Param) continue;
      // Row-level stores run after the last phase (gen_row_effects); a check runs when its index can.
      p.row_wave[o.code == KOpCode::Store || o.code == KOpCode::AccumStore ? phases : wave[id]].push_back(static_cast<int32_t>(id));
    }
  }
  // Affine accesses no live op needs are dropped from the walk.
  std::vector<Prepared::Affine> kept;
  for (Prepared::Affine& a : p.affine) {
    if (!need[a.op]) {
      p.affine_of[a.op] = -1;
      continue;
    }
    p.affine_of[a.op] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(a));
  }
  p.affine = std::move(kept);
  return p;
}

/// Evaluates the fixed ops (literals, runtime scalars) once into their lanes.
void eval_fixed(Prepared& p, const int64_t* scalars) {
  const Kernel& k = *p.k;
  p.fixed_values.resize(p.fixed.size());
  for (size_t f = 0; f < p.fixed.size(); ++f) {
    const KOp& o = k.ops[p.fixed[f]];
    Lanes& out = p.fixed_values[f];
    RT t = reg_type(o.dtype);
    if (o.code == KOpCode::Const) {
      for (int j = 0; j < kBlock; ++j) {
        switch (t) {
          case RT::Bool: out.b[j] = static_cast<uint8_t>(o.imm & 1); break;
          case RT::I32: out.i[j] = static_cast<int32_t>(o.imm); break;
          case RT::I64: out.l[j] = o.imm; break;
          case RT::F32: out.f[j] = static_cast<float>(o.fimm); break;
          case RT::F64: out.d[j] = o.fimm; break;
        }
      }
    } else {  // Param: an 8-byte slot, double bits for floats
      int64_t bits = scalars[o.imm];
      double dv;
      std::memcpy(&dv, &bits, sizeof dv);
      for (int j = 0; j < kBlock; ++j) {
        switch (t) {
          case RT::Bool: out.b[j] = bits != 0; break;
          case RT::I32: out.i[j] = static_cast<int32_t>(bits); break;
          case RT::I64: out.l[j] = bits; break;
          case RT::F32: out.f[j] = static_cast<float>(dv); break;
          case RT::F64: out.d[j] = dv; break;
        }
      }
    }
    normalize(out, o.dtype, kBlock);
  }
}


using RunRange = void (*)(const Prepared&, void* const*, ErrorSlot*, int64_t, int64_t);

/// The widest build of the block evaluation this host runs.
RunRange run_range_for_host() {
  static const RunRange fn = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
      return &isa_avx512::run_range;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
      return &isa_avx2::run_range;
    return &isa_default::run_range;
  }();
  return fn;
}

/// The widest build of the row evaluation this host runs.
RunRange run_rows_for_host() {
  static const RunRange fn = [] {
    RunRange r = run_range_for_host();
    return r == &isa_avx512::run_range ? &isa_avx512::run_rows
           : r == &isa_avx2::run_range ? &isa_avx2::run_rows
                                       : &isa_default::run_rows;
  }();
  return fn;
}

}  // namespace

bool kernel_interpretable(const Kernel& k) {
  if (k.kind == KernelKind::MatMul) return matmul_interpretable(k);
  if (k.kind == KernelKind::Rows) {
    // Rows kernels as gen_rows and gen_rows_columns run them (their
    // reductions' order is the kernel IR's: codegen.h, row_lanes); not the
    // split reductions' entries, scans, serial kernels, runtime extents or
    // empty rows.
    if (k.serial || k.symbolic_domain() || k.inner_size() <= 0 || k.outer_size() <= 0) return false;
    if (kernel_splits_reduction(k) || kernel_splits_columns(k)) return false;
  } else if (k.kind != KernelKind::Elementwise) {
    return false;
  }
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::Scan) return false;
    if (o.code == KOpCode::Reduce && k.kind != KernelKind::Rows) return false;
    if (o.code != KOpCode::Compute) continue;
    if (!op_info(o.op).interpreted) return false;
    // Float pow: LLVM rewrites pow(x, 2), pow(x, -1), ... into other operations.
    if (o.op == Op::Pow && is_floating(k.ops[o.inputs[0]].dtype)) return false;
  }
  return true;
}

int64_t interpreted_cost_ns(const Kernel& k) {
  if (k.kind == KernelKind::MatMul) {
    if (k.domain.size() < 4) return 0;
    const int64_t b = k.domain[0], m = k.domain[1], n = k.domain[2], kk = k.domain[3];
    return 2 * b * (m * n + m * kk + kk * n);
  }
  int64_t per_element = 1;
  for (const KOp& o : k.ops)
    if (o.code == KOpCode::Compute && transcendental(o.op)) per_element += 10;
  // Rows: each phase evaluates the row again, at ~3 ns an element (blocks
  // end at each row), and a row's row-level values and reductions cost
  // ~200 ns (measured on the GPT step's layer norms and bias gradients).
  if (k.kind == KernelKind::Rows)
    return k.outer_size() * (200 + k.num_phases * std::max<int64_t>(k.inner_size(), 1) * (per_element + 2));
  return k.outer_size() * per_element;
}

std::vector<std::string> interpreter_math_functions(const Kernel& k) {
  std::vector<std::string> names;
  for (const KOp& o : k.ops) {
    if (o.code != KOpCode::Compute || !transcendental(o.op)) continue;
    // Float16 and BFloat16 compute in float32; Sigmoid calls the exp function.
    std::string name = math_function_name(o.op == Op::Sigmoid ? Op::Exp : o.op, k.ops[o.inputs[0]].dtype == DType::Float64);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

struct InterpretedKernel::Impl {
  Kernel kernel;
  Prepared p;
};

InterpretedKernel::InterpretedKernel(Kernel kernel, const int64_t* scalars) : impl_(std::make_unique<Impl>()) {
  if (!kernel_interpretable(kernel))
    fail(ErrorKind::Runtime, "cpu interpreter: kernel ", kernel.name, " is not interpretable");
  impl_->kernel = std::move(kernel);
  impl_->p = prepare(impl_->kernel);
  eval_fixed(impl_->p, scalars);
}

InterpretedKernel::~InterpretedKernel() = default;

int32_t InterpretedKernel::run(const KernelArgs* args, int64_t begin, int64_t end) const {
  run_range_for_host()(impl_->p, args->buffers, args->error, begin, end);
  return args->error->code != 0;
}

void launch_interpreted(const Kernel& k, void* const* buffers, const int64_t* scalars, const Buffer* const* fixed) {
  // A MatMul's sub-kernels are checked as they are prepared (InterpretedKernel),
  // so its launch does not build them twice.
  if (k.kind == KernelKind::MatMul) return launch_matmul_interpreted(k, buffers, scalars, fixed);
  if (!kernel_interpretable(k)) fail(ErrorKind::Runtime, "cpu interpreter: kernel ", k.name, " is not interpretable");
  const int64_t range = k.outer_size();
  if (range <= 0) return;
  Prepared p = prepare(k);
  eval_fixed(p, scalars);
  ErrorSlot err;
  if (k.kind == KernelKind::Rows) {
    const int64_t work = range * k.inner_size() * k.num_phases;
    if (work < kSerialWork) {
      run_rows_for_host()(p, buffers, &err, 0, range);
    } else {
      const int64_t grain = std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, k.inner_size() * k.num_phases));
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, range, grain), [&](const tbb::blocked_range<int64_t>& r) {
        run_rows_for_host()(p, buffers, &err, r.begin(), r.end());
      });
    }
  } else if (k.serial || range < kSerialWork) {
    run_range_for_host()(p, buffers, &err, 0, range);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, range, kGrainWork), [&](const tbb::blocked_range<int64_t>& r) {
      run_range_for_host()(p, buffers, &err, r.begin(), r.end());
    });
  }
  if (err.code != 0) raise_bad_index(err.code, err.value, err.axis, err.bound);
}

}  // namespace lt::cpu
