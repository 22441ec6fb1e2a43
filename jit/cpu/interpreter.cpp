// jit/cpu/interpreter.cpp — Elementwise kernels evaluated from their kernel IR (see interpreter.h).
//
// A launch range is cut into blocks of kBlock consecutive elements; per block
// every live op is evaluated for all its elements at once, into a lane array
// of its register type, so the per-op dispatch is paid once per block and
// the inner loops are plain array loops the C++ compiler vectorises. Each
// semantic below is the lowering of the same op in codegen.cpp (the comment
// names it where it is not the obvious one).
#include "jit/cpu/interpreter.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

bool is_fp(RT t) { return t == RT::F32 || t == RT::F64; }

union Lanes {
  float f[kBlock];
  double d[kBlock];
  int32_t i[kBlock];
  int64_t l[kBlock];
  uint8_t b[kBlock];  // 0 or 1
};

using MathFn32 = float (*)(float);
using MathFn64 = double (*)(double);

bool transcendental(Op op) {
  switch (op) {
    case Op::Exp:
    case Op::Log:
    case Op::Log1p:
    case Op::Expm1:
    case Op::Tanh:
    case Op::Erf:
    case Op::Sin:
    case Op::Cos:
    case Op::Sigmoid: return true;
    default: return false;
  }
}

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

// ---- normalize (codegen.cpp Codegen::normalize): rounding or wrapping to a narrow dtype ----

void normalize(Lanes& v, DType d, int n) {
  switch (d) {
    case DType::Float16:
      for (int j = 0; j < n; ++j) v.f[j] = round_to_half(v.f[j]);
      break;
    case DType::BFloat16:
      for (int j = 0; j < n; ++j) v.f[j] = round_to_bfloat16(v.f[j]);
      break;
    case DType::Int8:
      for (int j = 0; j < n; ++j) v.i[j] = static_cast<int8_t>(v.i[j]);
      break;
    case DType::Int16:
      for (int j = 0; j < n; ++j) v.i[j] = static_cast<int16_t>(v.i[j]);
      break;
    case DType::UInt8:
      for (int j = 0; j < n; ++j) v.i[j] = static_cast<uint8_t>(v.i[j]);
      break;
    default: break;
  }
}

// ---- casts (codegen.cpp Codegen::cast) ----

template <typename To>
To float_to_int(double x) {
  // Truncation; NaN and out-of-range give the type's minimum (x86 cvtt*).
  const double lim = std::ldexp(1.0, static_cast<int>(sizeof(To) * 8) - 1);
  return x >= -lim && x < lim ? static_cast<To>(x) : std::numeric_limits<To>::min();
}

template <typename From>
void cast_from(const From* a, RT to, Lanes& out, int n) {
  constexpr bool from_fp = std::is_floating_point_v<From>;
  switch (to) {
    case RT::Bool:
      for (int j = 0; j < n; ++j) out.b[j] = from_fp ? !(a[j] == From(0)) : a[j] != From(0);  // UNE 0: NaN is true
      break;
    case RT::I32:
      for (int j = 0; j < n; ++j) {
        if constexpr (from_fp) out.i[j] = float_to_int<int32_t>(a[j]);
        else out.i[j] = static_cast<int32_t>(static_cast<int64_t>(a[j]));
      }
      break;
    case RT::I64:
      for (int j = 0; j < n; ++j) {
        if constexpr (from_fp) out.l[j] = float_to_int<int64_t>(a[j]);
        else out.l[j] = static_cast<int64_t>(a[j]);
      }
      break;
    case RT::F32:
      for (int j = 0; j < n; ++j) out.f[j] = static_cast<float>(a[j]);
      break;
    case RT::F64:
      for (int j = 0; j < n; ++j) out.d[j] = static_cast<double>(a[j]);
      break;
  }
}

void cast_lanes(const Lanes& a, RT from, RT to, Lanes& out, int n) {
  if (from == to) {
    std::memcpy(&out, &a, sizeof(Lanes));
    return;
  }
  switch (from) {
    case RT::Bool: return cast_from(a.b, to, out, n);  // uitofp / zext of 0 or 1
    case RT::I32: return cast_from(a.i, to, out, n);
    case RT::I64: return cast_from(a.l, to, out, n);
    case RT::F32: return cast_from(a.f, to, out, n);
    case RT::F64: return cast_from(a.d, to, out, n);
  }
}

void cast_op(const Lanes& a, DType from, DType to, Lanes& out, int n) {
  if (from == to) {
    std::memcpy(&out, &a, sizeof(Lanes));
    return;
  }
  if (is_low_precision_float(to) || is_narrow_int(to)) {
    // Into the register type first, then round or wrap.
    cast_lanes(a, reg_type(from), is_narrow_int(to) ? RT::I32 : RT::F32, out, n);
    normalize(out, to, n);
    return;
  }
  cast_lanes(a, reg_type(from), reg_type(to), out, n);
}

// ---- elementwise primitives (codegen.cpp Codegen::gen_compute) ----

template <typename T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
template <typename T>
T int_div(T a, T c) {  // truncating; x / 0 = 0; INT_MIN / -1 wraps
  if (c == 0) return 0;
  if (c == -1) return wrap_sub(T(0), a);
  return a / c;
}
template <typename T>
T int_pow(T a, T c) {  // by squaring over i64, as the codegen's unrolled loop
  int64_t base = a, e = c, result = 1;
  uint64_t ee = static_cast<uint64_t>(e);
  for (int i = 0; i < 63; ++i) {
    if (ee & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    ee >>= 1;
  }
  if (e < 0) result = a == 1 ? 1 : a == -1 ? ((e & 1) == 0 ? 1 : -1) : 0;
  return static_cast<T>(result);
}
template <typename T>
T fp_maximum(T a, T c) {  // llvm.maximum: NaN if either is, -0 < +0
  if (std::isnan(a)) return a;
  if (std::isnan(c)) return c;
  if (a == c) return std::signbit(a) ? c : a;
  return a > c ? a : c;
}
template <typename T>
T fp_minimum(T a, T c) {  // llvm.minimum
  if (std::isnan(a)) return a;
  if (std::isnan(c)) return c;
  if (a == c) return std::signbit(a) ? a : c;
  return a < c ? a : c;
}
template <typename T>
T int_abs(T a) {  // llvm.abs, INT_MIN stays INT_MIN
  return a < 0 ? wrap_sub(T(0), a) : a;
}
template <typename T>
T shift_left(T a, T c) {
  using U = std::make_unsigned_t<T>;
  constexpr U bits = sizeof(T) * 8;
  return static_cast<U>(c) < bits ? static_cast<T>(static_cast<U>(a) << static_cast<U>(c)) : T(0);
}
template <typename T>
T shift_right(T a, T c) {  // arithmetic; an amount outside [0, bits) shifts by bits - 1
  using U = std::make_unsigned_t<T>;
  constexpr U bits = sizeof(T) * 8;
  return static_cast<T>(a >> (static_cast<U>(c) < bits ? static_cast<U>(c) : bits - 1));
}

/// Unary ops on floating lanes.
template <typename T>
void unary_fp(Op op, const T* a, T* out, int n, void* math) {
  switch (op) {
    case Op::Neg:
      for (int j = 0; j < n; ++j) out[j] = -a[j];
      return;
    case Op::Abs:
      for (int j = 0; j < n; ++j) out[j] = std::fabs(a[j]);
      return;
    case Op::Sqrt:
      for (int j = 0; j < n; ++j) out[j] = std::sqrt(a[j]);
      return;
    case Op::Floor:
      for (int j = 0; j < n; ++j) out[j] = std::floor(a[j]);
      return;
    case Op::Ceil:
      for (int j = 0; j < n; ++j) out[j] = std::ceil(a[j]);
      return;
    case Op::Round:  // llvm.roundeven
      for (int j = 0; j < n; ++j) out[j] = std::nearbyint(a[j]);
      return;
    case Op::Sign:  // NaN -> 0, -0 -> +0
      for (int j = 0; j < n; ++j) out[j] = a[j] > T(0) ? T(1) : a[j] < T(0) ? T(-1) : T(0);
      return;
    case Op::Sigmoid: {  // 1 / (1 + exp(-x)) over the exp math function
      auto f = reinterpret_cast<T (*)(T)>(math);
      for (int j = 0; j < n; ++j) out[j] = T(1) / (T(1) + f(-a[j]));
      return;
    }
    default: {
      auto f = reinterpret_cast<T (*)(T)>(math);
      for (int j = 0; j < n; ++j) out[j] = f(a[j]);
      return;
    }
  }
}

/// Unary ops on integer lanes (bool handled by the caller).
template <typename T>
void unary_int(Op op, const T* a, T* out, int n) {
  switch (op) {
    case Op::Neg:
      for (int j = 0; j < n; ++j) out[j] = wrap_sub(T(0), a[j]);
      return;
    case Op::Abs:
      for (int j = 0; j < n; ++j) out[j] = int_abs(a[j]);
      return;
    case Op::Sign:
      for (int j = 0; j < n; ++j) out[j] = static_cast<T>((a[j] > 0) - (a[j] < 0));
      return;
    case Op::BitwiseNot:
      for (int j = 0; j < n; ++j) out[j] = static_cast<T>(~a[j]);
      return;
    default:  // Floor, Ceil, Round: identity on integers
      std::memcpy(out, a, sizeof(T) * n);
      return;
  }
}

template <typename T>
void binary_arith(Op op, const T* a, const T* c, T* out, int n) {
  constexpr bool fp = std::is_floating_point_v<T>;
  switch (op) {
    case Op::Add:
      for (int j = 0; j < n; ++j) {
        if constexpr (fp) out[j] = a[j] + c[j];
        else out[j] = wrap_add(a[j], c[j]);
      }
      return;
    case Op::Sub:
      for (int j = 0; j < n; ++j) {
        if constexpr (fp) out[j] = a[j] - c[j];
        else out[j] = wrap_sub(a[j], c[j]);
      }
      return;
    case Op::Mul:
      for (int j = 0; j < n; ++j) {
        if constexpr (fp) out[j] = a[j] * c[j];
        else out[j] = wrap_mul(a[j], c[j]);
      }
      return;
    case Op::Div:
      for (int j = 0; j < n; ++j) {
        if constexpr (fp) out[j] = a[j] / c[j];
        else out[j] = int_div(a[j], c[j]);
      }
      return;
    case Op::Maximum:
      for (int j = 0; j < n; ++j) {
        if constexpr (fp) out[j] = fp_maximum(a[j], c[j]);
        else out[j] = a[j] > c[j] ? a[j] : c[j];
      }
      return;
    case Op::Minimum:
      for (int j = 0; j < n; ++j) {
        if constexpr (fp) out[j] = fp_minimum(a[j], c[j]);
        else out[j] = a[j] < c[j] ? a[j] : c[j];
      }
      return;
    default: break;
  }
  if constexpr (!fp) {
    switch (op) {
      case Op::Pow:
        for (int j = 0; j < n; ++j) out[j] = int_pow(a[j], c[j]);
        return;
      case Op::BitwiseAnd:
        for (int j = 0; j < n; ++j) out[j] = a[j] & c[j];
        return;
      case Op::BitwiseOr:
        for (int j = 0; j < n; ++j) out[j] = a[j] | c[j];
        return;
      case Op::BitwiseXor:
        for (int j = 0; j < n; ++j) out[j] = a[j] ^ c[j];
        return;
      case Op::ShiftLeft:
        for (int j = 0; j < n; ++j) out[j] = shift_left(a[j], c[j]);
        return;
      case Op::ShiftRight:
        for (int j = 0; j < n; ++j) out[j] = shift_right(a[j], c[j]);
        return;
      default: break;
    }
  }
  fail(ErrorKind::Runtime, "cpu interpreter: no lowering of ", op_name(op));
}

/// Comparisons into bool lanes: ordered for floats (Ne is unordered), signed for integers.
template <typename T>
void compare(Op op, const T* a, const T* c, uint8_t* out, int n) {
  switch (op) {
    case Op::Eq:
      for (int j = 0; j < n; ++j) out[j] = a[j] == c[j];
      return;
    case Op::Ne:
      for (int j = 0; j < n; ++j) out[j] = !(a[j] == c[j]);
      return;
    case Op::Lt:
      for (int j = 0; j < n; ++j) out[j] = a[j] < c[j];
      return;
    case Op::Le:
      for (int j = 0; j < n; ++j) out[j] = a[j] <= c[j];
      return;
    case Op::Gt:
      for (int j = 0; j < n; ++j) out[j] = a[j] > c[j];
      return;
    case Op::Ge:
      for (int j = 0; j < n; ++j) out[j] = a[j] >= c[j];
      return;
    default: fail(ErrorKind::Runtime, "cpu interpreter: no comparison ", op_name(op));
  }
}

bool is_comparison(Op op) {
  return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge;
}

/// Unsigned division (or remainder) of index lanes by a constant, as
/// udiv/urem: by shifts for a power of two, else by a double reciprocal
/// corrected to the exact quotient (exact for dividends below 2^52, which an
/// element offset always is; larger ones divide plainly).
void index_divmod(const int64_t* a, int64_t c, bool div, int64_t* out, int n) {
  const uint64_t d = static_cast<uint64_t>(c);
  if ((d & (d - 1)) == 0) {
    const int shift = __builtin_ctzll(d);
    for (int j = 0; j < n; ++j)
      out[j] = div ? static_cast<int64_t>(static_cast<uint64_t>(a[j]) >> shift) : static_cast<int64_t>(static_cast<uint64_t>(a[j]) & (d - 1));
    return;
  }
  const double inv = 1.0 / static_cast<double>(d);
  for (int j = 0; j < n; ++j) {
    const uint64_t x = static_cast<uint64_t>(a[j]);
    uint64_t q;
    if (x < (uint64_t{1} << 52)) {
      int64_t qi = static_cast<int64_t>(static_cast<double>(x) * inv);
      int64_t r = static_cast<int64_t>(x) - qi * static_cast<int64_t>(d);
      if (r < 0) --qi;
      else if (r >= static_cast<int64_t>(d)) ++qi;
      q = static_cast<uint64_t>(qi);
    } else {
      q = x / d;
    }
    out[j] = div ? static_cast<int64_t>(q) : static_cast<int64_t>(x - q * d);
  }
}

// ---- the kernel ----

struct Prepared {
  const Kernel* k = nullptr;
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
};

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
void eval_fixed(const Prepared& p, const int64_t* scalars, std::vector<Lanes>& v) {
  const Kernel& k = *p.k;
  for (int32_t id : p.fixed) {
    const KOp& o = k.ops[id];
    Lanes& out = v[id];
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

template <typename Idx>
void load(const KOp& o, const void* buf, Idx idx, Lanes& out, int n) {
  switch (o.dtype) {
    case DType::Bool: {
      auto* s = static_cast<const uint8_t*>(buf);
      for (int j = 0; j < n; ++j) out.b[j] = s[idx(j)] != 0;
      return;
    }
    case DType::Float16: {
      auto* s = static_cast<const uint16_t*>(buf);
      for (int j = 0; j < n; ++j) out.f[j] = half_bits_to_float(s[idx(j)]);
      return;
    }
    case DType::BFloat16: {
      auto* s = static_cast<const uint16_t*>(buf);
      for (int j = 0; j < n; ++j) out.f[j] = bfloat16_bits_to_float(s[idx(j)]);
      return;
    }
    case DType::Int8: {
      auto* s = static_cast<const int8_t*>(buf);
      for (int j = 0; j < n; ++j) out.i[j] = s[idx(j)];
      return;
    }
    case DType::UInt8: {
      auto* s = static_cast<const uint8_t*>(buf);
      for (int j = 0; j < n; ++j) out.i[j] = s[idx(j)];
      return;
    }
    case DType::Int16: {
      auto* s = static_cast<const int16_t*>(buf);
      for (int j = 0; j < n; ++j) out.i[j] = s[idx(j)];
      return;
    }
    case DType::Int32:
    case DType::Float32: {
      auto* s = static_cast<const uint32_t*>(buf);
      auto* d = reinterpret_cast<uint32_t*>(out.i);
      for (int j = 0; j < n; ++j) d[j] = s[idx(j)];
      return;
    }
    case DType::Int64:
    case DType::Float64: {
      auto* s = static_cast<const uint64_t*>(buf);
      auto* d = reinterpret_cast<uint64_t*>(out.l);
      for (int j = 0; j < n; ++j) d[j] = s[idx(j)];
      return;
    }
  }
}

/// Store and AccumStore (ScatterAdd: the kernel is serial, so elements accumulate in order).
template <typename Idx>
void store(const KOp& o, void* buf, Idx idx, const Lanes& v, int n) {
  const bool acc = o.code == KOpCode::AccumStore;
  switch (o.dtype) {
    case DType::Bool: {
      auto* d = static_cast<uint8_t*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = acc ? static_cast<uint8_t>((d[idx(j)] != 0) | v.b[j]) : v.b[j];
      return;
    }
    case DType::Float16: {
      auto* d = static_cast<uint16_t*>(buf);
      for (int j = 0; j < n; ++j)
        d[idx(j)] = float_to_half_bits(acc ? round_to_half(half_bits_to_float(d[idx(j)]) + v.f[j]) : v.f[j]);
      return;
    }
    case DType::BFloat16: {
      auto* d = static_cast<uint16_t*>(buf);
      for (int j = 0; j < n; ++j) {
        float x = acc ? round_to_bfloat16(bfloat16_bits_to_float(d[idx(j)]) + v.f[j]) : v.f[j];
        uint32_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        d[idx(j)] = static_cast<uint16_t>(bits >> 16);  // already rounded: the top half is exact
      }
      return;
    }
    case DType::Int8:
    case DType::UInt8: {
      auto* d = static_cast<uint8_t*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = static_cast<uint8_t>(acc ? d[idx(j)] + v.i[j] : v.i[j]);
      return;
    }
    case DType::Int16: {
      auto* d = static_cast<uint16_t*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = static_cast<uint16_t>(acc ? d[idx(j)] + v.i[j] : v.i[j]);
      return;
    }
    case DType::Int32: {
      auto* d = static_cast<int32_t*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = acc ? wrap_add(d[idx(j)], v.i[j]) : v.i[j];
      return;
    }
    case DType::Int64: {
      auto* d = static_cast<int64_t*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = acc ? wrap_add(d[idx(j)], v.l[j]) : v.l[j];
      return;
    }
    case DType::Float32: {
      auto* d = static_cast<float*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = acc ? d[idx(j)] + v.f[j] : v.f[j];
      return;
    }
    case DType::Float64: {
      auto* d = static_cast<double*>(buf);
      for (int j = 0; j < n; ++j) d[idx(j)] = acc ? d[idx(j)] + v.d[j] : v.d[j];
      return;
    }
  }
}

void compute(const Kernel& k, const KOp& o, const std::vector<Lanes>& v, void* math, Lanes& out, int n) {
  const DType in_dt = k.ops[o.inputs[0]].dtype;
  const RT t = reg_type(in_dt);
  const Lanes& a = v[o.inputs[0]];
  if (o.op == Op::Cast) return cast_op(a, in_dt, o.dtype, out, n);  // a cast normalizes itself
  switch (o.op) {
    case Op::Detach: std::memcpy(&out, &a, sizeof(Lanes)); break;
    case Op::LogicalNot: {
      Lanes b;
      cast_lanes(a, t, RT::Bool, b, n);
      for (int j = 0; j < n; ++j) out.b[j] = !b.b[j];
      break;
    }
    case Op::IsNan:
      if (t == RT::F32) for (int j = 0; j < n; ++j) out.b[j] = std::isnan(a.f[j]);
      else if (t == RT::F64) for (int j = 0; j < n; ++j) out.b[j] = std::isnan(a.d[j]);
      else std::memset(out.b, 0, static_cast<size_t>(n));
      break;
    case Op::LogicalAnd:
    case Op::LogicalOr: {
      Lanes x, y;
      cast_lanes(a, t, RT::Bool, x, n);
      cast_lanes(v[o.inputs[1]], reg_type(k.ops[o.inputs[1]].dtype), RT::Bool, y, n);
      if (o.op == Op::LogicalAnd) for (int j = 0; j < n; ++j) out.b[j] = x.b[j] & y.b[j];
      else for (int j = 0; j < n; ++j) out.b[j] = x.b[j] | y.b[j];
      break;
    }
    case Op::Where: {
      Lanes cond;
      cast_lanes(a, t, RT::Bool, cond, n);
      const Lanes& x = v[o.inputs[1]];
      const Lanes& y = v[o.inputs[2]];
      switch (reg_type(o.dtype)) {
        case RT::Bool: for (int j = 0; j < n; ++j) out.b[j] = cond.b[j] ? x.b[j] : y.b[j]; break;
        case RT::I32:
        case RT::F32: for (int j = 0; j < n; ++j) out.i[j] = cond.b[j] ? x.i[j] : y.i[j]; break;
        case RT::I64:
        case RT::F64: for (int j = 0; j < n; ++j) out.l[j] = cond.b[j] ? x.l[j] : y.l[j]; break;
      }
      break;
    }
    default: {
      const int arity = o.num_inputs;
      if (arity == 1) {
        if (t == RT::F32) unary_fp(o.op, a.f, out.f, n, math);
        else if (t == RT::F64) unary_fp(o.op, a.d, out.d, n, math);
        else if (t == RT::I32) unary_int(o.op, a.i, out.i, n);
        else if (t == RT::I64) unary_int(o.op, a.l, out.l, n);
        else if (o.op == Op::BitwiseNot) for (int j = 0; j < n; ++j) out.b[j] = !a.b[j];  // bools are i1
        else if (o.op == Op::Sign || o.op == Op::Neg || o.op == Op::Abs || o.op == Op::Floor || o.op == Op::Ceil ||
                 o.op == Op::Round)
          std::memcpy(&out, &a, sizeof(Lanes));
        else fail(ErrorKind::Runtime, "cpu interpreter: no bool lowering of ", op_name(o.op));
        break;
      }
      const Lanes& c = v[o.inputs[1]];
      if (is_comparison(o.op)) {
        switch (t) {
          case RT::Bool: compare(o.op, a.b, c.b, out.b, n); break;  // unsigned: 0 < 1
          case RT::I32: compare(o.op, a.i, c.i, out.b, n); break;
          case RT::I64: compare(o.op, a.l, c.l, out.b, n); break;
          case RT::F32: compare(o.op, a.f, c.f, out.b, n); break;
          case RT::F64: compare(o.op, a.d, c.d, out.b, n); break;
        }
        break;
      }
      switch (t) {
        case RT::Bool:
          switch (o.op) {
            case Op::Add:
            case Op::Maximum:
            case Op::BitwiseOr: for (int j = 0; j < n; ++j) out.b[j] = a.b[j] | c.b[j]; break;
            case Op::Sub:
            case Op::BitwiseXor: for (int j = 0; j < n; ++j) out.b[j] = a.b[j] ^ c.b[j]; break;
            case Op::Mul:
            case Op::Div:
            case Op::Minimum:
            case Op::BitwiseAnd: for (int j = 0; j < n; ++j) out.b[j] = a.b[j] & c.b[j]; break;
            case Op::Pow: for (int j = 0; j < n; ++j) out.b[j] = a.b[j] | !c.b[j]; break;
            default: fail(ErrorKind::Runtime, "cpu interpreter: no bool lowering of ", op_name(o.op));
          }
          break;
        case RT::I32: binary_arith(o.op, a.i, c.i, out.i, n); break;
        case RT::I64: binary_arith(o.op, a.l, c.l, out.l, n); break;
        case RT::F32: binary_arith(o.op, a.f, c.f, out.f, n); break;
        case RT::F64: binary_arith(o.op, a.d, c.d, out.d, n); break;
      }
      break;
    }
  }
  normalize(out, o.dtype, n);
}

/// Runs elements [begin, end) of the kernel: what its compiled entry does for that range.
void run_range(const Prepared& p, void* const* buffers, const int64_t* scalars, ErrorSlot* err, int64_t begin,
               int64_t end) {
  const Kernel& k = *p.k;
  const size_t rank = k.domain.size();
  thread_local std::vector<Lanes> v;
  if (v.size() < k.ops.size()) v.resize(k.ops.size());
  eval_fixed(p, scalars, v);
  // A serial kernel (AccumStore) whose one accumulation is the only access
  // to its buffer adds in element order a block at a time too; any other
  // serial kernel runs element by element, so every effect happens in the
  // compiled code's order. Other kernels' elements are independent.
  const int64_t block = k.serial && !p.serial_blocks ? 1 : kBlock;
  std::vector<int64_t> coord(rank, 0);
  const bool walk = !p.coord_ops.empty() || !p.affine.empty();
  std::vector<int64_t> cur(p.affine.size(), 0);
  std::vector<size_t> walk_lanes;  // affine accesses whose offsets are lanes (not one run)
  for (size_t i = 0; i < p.affine.size(); ++i)
    if (!p.affine[i].contiguous) walk_lanes.push_back(i);
  thread_local std::vector<Lanes> offs;
  if (offs.size() < p.affine.size()) offs.resize(p.affine.size());
  for (int64_t start = begin; start < end; start += block) {
    const int n = static_cast<int>(std::min(block, end - start));
    if (walk) {
      int64_t rest = start;  // the row-major coordinates of `start`
      for (size_t a = rank; a-- > 0;) {
        coord[a] = p.extents[a] ? rest % p.extents[a] : 0;
        rest = p.extents[a] ? rest / p.extents[a] : 0;
      }
      for (size_t i = 0; i < p.affine.size(); ++i) {
        const Prepared::Affine& a = p.affine[i];
        int64_t off = a.c0;
        for (size_t ax = 0; ax < rank; ++ax) off += a.coeff[ax] * coord[ax];
        cur[i] = off;
      }
      if (!walk_lanes.empty() || !p.coord_ops.empty()) {
        // The Coord ops' and the strided offsets' lanes, a run along the
        // last axis at a time, then the carry into the axes before it.
        const size_t last = rank - 1;
        for (int j = 0; j < n;) {
          if (rank == 0) break;
          const int L = static_cast<int>(std::min<int64_t>(n - j, p.extents[last] - coord[last]));
          for (int32_t cid : p.coord_ops) {
            int64_t* lane = v[cid].l + j;
            const size_t ax = static_cast<size_t>(k.ops[cid].imm);
            const int64_t c0 = coord[ax];
            if (ax == last) for (int t = 0; t < L; ++t) lane[t] = c0 + t;
            else for (int t = 0; t < L; ++t) lane[t] = c0;
          }
          for (size_t i : walk_lanes) {
            int64_t* lane = offs[i].l + j;
            const int64_t c0 = cur[i], step = p.affine[i].coeff[last];
            for (int t = 0; t < L; ++t) lane[t] = c0 + t * step;
          }
          j += L;
          if (coord[last] + L < p.extents[last]) {  // the block ends inside a row
            coord[last] += L;
            for (size_t i : walk_lanes) cur[i] += L * p.affine[i].coeff[last];
            break;
          }
          // The run ended a row: from its last element into the next row.
          coord[last] += L - 1;
          for (size_t i : walk_lanes) cur[i] += (L - 1) * p.affine[i].coeff[last];
          size_t ax = rank;
          while (ax-- > 0) {
            if (++coord[ax] < p.extents[ax]) break;
            coord[ax] = 0;
          }
          if (ax < rank)
            for (size_t i : walk_lanes) cur[i] += p.affine[i].delta[ax];
        }
      }
    }
    for (int32_t id : p.live) {
      const KOp& o = k.ops[id];
      Lanes& out = v[id];
      switch (o.code) {
        case KOpCode::Coord: break;  // filled above
        case KOpCode::Load:
        case KOpCode::Store:
        case KOpCode::AccumStore: {
          const int32_t ai = p.affine_of[id];
          auto access = [&](auto idx) {
            if (o.code == KOpCode::Load) load(o, buffers[o.imm], idx, out, n);
            else store(o, buffers[o.imm], idx, v[o.inputs[1]], n);
          };
          if (ai < 0) {
            const int64_t* idx = v[o.inputs[0]].l;
            access([idx](int j) { return idx[j]; });
          } else if (p.affine[ai].contiguous) {
            const int64_t base = cur[ai];
            access([base](int j) { return base + j; });
          } else {
            const int64_t* idx = offs[ai].l;
            access([idx](int j) { return idx[j]; });
          }
          break;
        }
        case KOpCode::IndexDiv:
        case KOpCode::IndexMod: {
          const int64_t* a = v[o.inputs[0]].l;
          const bool div = o.code == KOpCode::IndexDiv;
          if (o.num_inputs == 2) {
            const int64_t* c = v[o.inputs[1]].l;
            for (int j = 0; j < n; ++j) {
              uint64_t x = static_cast<uint64_t>(a[j]), y = static_cast<uint64_t>(c[j]);
              out.l[j] = static_cast<int64_t>(div ? x / y : x % y);
            }
          } else {
            index_divmod(a, o.imm, div, out.l, n);
          }
          break;
        }
        case KOpCode::Compute: compute(k, o, v, p.math[id], out, n); break;
        case KOpCode::Random: {  // codegen.cpp gen_random / uniform_from_word
          const int64_t* seed = v[o.inputs[0]].l;
          const int64_t* counter = v[o.inputs[1]].l;
          const uint32_t word = static_cast<uint32_t>(o.imm & 3);
          for (int j = 0; j < n; ++j) {
            uint32_t bits = lt_philox_word(static_cast<uint64_t>(seed[j]), static_cast<uint64_t>(counter[j]), word);
            if (o.dtype == DType::Float64) out.d[j] = static_cast<double>(bits) * (1.0 / 4294967296.0);
            else out.f[j] = static_cast<float>(bits >> 8) * static_cast<float>(1.0 / 16777216.0);
          }
          normalize(out, o.dtype, n);
          break;
        }
        case KOpCode::CheckIndex: {  // clamp to 0 outside [0, imm) and record the first bad value
          const Lanes& in = v[o.inputs[0]];
          const RT t = reg_type(k.ops[o.inputs[0]].dtype);
          for (int j = 0; j < n; ++j) {
            int64_t idx = t == RT::I64 ? in.l[j] : t == RT::I32 ? in.i[j] : in.b[j];
            if (static_cast<uint64_t>(idx) < static_cast<uint64_t>(o.imm)) {
              out.l[j] = idx;
              continue;
            }
            out.l[j] = 0;
            int64_t expected = 0;
            auto* code = reinterpret_cast<std::atomic<int64_t>*>(&err->code);
            if (code->compare_exchange_strong(expected, o.imm2 + 1, std::memory_order_relaxed)) {
              err->value = idx;
              err->bound = o.imm;
              err->axis = static_cast<int64_t>(o.fimm);
            }
          }
          break;
        }
        case KOpCode::Const:
        case KOpCode::Param:
        case KOpCode::Reduce:
        case KOpCode::Scan: fail(ErrorKind::Runtime, "cpu interpreter: ", kop_name(o.code), " out of place");
      }
    }
  }
}

}  // namespace

bool kernel_interpretable(const Kernel& k) {
  if (k.kind != KernelKind::Elementwise) return false;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::Reduce || o.code == KOpCode::Scan) return false;
    if (o.code != KOpCode::Compute) continue;
    // Float pow: LLVM rewrites pow(x, 2), pow(x, -1), ... into other operations.
    if (o.op == Op::Pow && is_floating(k.ops[o.inputs[0]].dtype)) return false;
  }
  return true;
}

bool interpreter_needs_math(const Kernel& k) {
  for (const KOp& o : k.ops)
    if (o.code == KOpCode::Compute && transcendental(o.op)) return true;
  return false;
}

void launch_interpreted(const Kernel& k, void* const* buffers, const int64_t* scalars) {
  if (!kernel_interpretable(k)) fail(ErrorKind::Runtime, "cpu interpreter: kernel ", k.name, " is not interpretable");
  const int64_t range = k.outer_size();
  if (range <= 0) return;
  Prepared p = prepare(k);
  ErrorSlot err;
  if (k.serial || range < kSerialWork) {
    run_range(p, buffers, scalars, &err, 0, range);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, range, kGrainWork), [&](const tbb::blocked_range<int64_t>& r) {
      run_range(p, buffers, scalars, &err, r.begin(), r.end());
    });
  }
  if (err.code != 0) raise_bad_index(err.code, err.value, err.axis, err.bound);
}

}  // namespace lt::cpu
