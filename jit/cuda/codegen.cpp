// jit/cuda/codegen.cpp — prints one kernel as CUDA C++.
//
// Loop shapes follow scheduler/kernel.h:
//   Elementwise  grid-stride over elements; coords unravelled from the linear
//                index (in 32-bit arithmetic when the domain fits).
//   Rows         TPR threads per row (a power of two <= 256 chosen from the
//                inner size; 1 when the kernel scans). Each phase is a strided
//                loop over the row's inner elements; reductions keep one
//                accumulator per thread and are then all-reduced across the
//                row (warp xor shuffles, shared memory across warps), so every
//                thread of the row holds the row-level value for later phases.
//                Threads of a row past the last row re-run the last row with
//                stores masked, so shuffles always see full warps.
//   MatMul       64x64 output tiles, 16-deep k slices staged in shared memory,
//                4x4 outputs per thread. The operand DAGs are evaluated while
//                staging, so transposes, casts and elementwise producers of
//                the operands cost nothing extra.
// Every value is a `const` local named v<op id>; nvcc's SSA does the rest.
#include "jit/cuda/codegen.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ir/error.h"
#include "jit/cuda/prelude.h"

namespace lt::cuda {
namespace {

// Register type. float16/bfloat16 compute in float and int8/uint8/int16 in
// int, rounded or wrapped after every primitive (normalize), as the CPU JIT
// (jit/cpu/codegen.cpp) and the reference evaluator define them.
const char* ctype(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::Int32: return "int";
    case DType::Int64: return "long long";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16:
    case DType::BFloat16: return "float";
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16: return "int";
  }
  return "?";
}
// Buffer element type: float16/bfloat16 move as their 16 bits (the prelude converts).
const char* mtype(DType d) {
  switch (d) {
    case DType::Bool: return "unsigned char";
    case DType::Float16:
    case DType::BFloat16: return "unsigned short";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
    case DType::Int16: return "short";
    default: return ctype(d);
  }
}
bool narrow(DType d) { return is_low_precision_float(d) || is_narrow_int(d); }
// `x` (a register value) rounded or wrapped to d.
std::string normalize(const std::string& x, DType d) {
  switch (d) {
    case DType::Float16: return "lt_round_f16(" + x + ")";
    case DType::BFloat16: return "lt_round_bf16(" + x + ")";
    case DType::Int8: return "((int)(signed char)(" + x + "))";
    case DType::UInt8: return "((int)(unsigned char)(" + x + "))";
    case DType::Int16: return "((int)(short)(" + x + "))";
    default: return x;
  }
}

std::string int_literal(int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return std::to_string(v) + "LL";
}

std::string float_literal(double v, DType d) {
  char buf[64];
  if (std::isfinite(v)) {
    std::snprintf(buf, sizeof buf, "%a", v);
  } else {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "__longlong_as_double(0x%" PRIx64 "LL)", bits);
  }
  return d == DType::Float32 ? std::string("((float)") + buf + ")" : std::string("(") + buf + ")";
}

int next_pow2(int64_t n) {
  int p = 1;
  while (p < n && p < (1 << 20)) p <<= 1;
  return p;
}

class Codegen {
 public:
  explicit Codegen(const Kernel& k) : k_(k), have_(k.ops.size(), 0) {}
  KernelSource run();

 private:
  std::string v(int32_t id) { return "v" + std::to_string(id); }
  std::string ensure(int32_t id);
  std::string expr(const KOp& o);
  std::string compute(const KOp& o);
  std::string cast(const std::string& x, DType from, DType to);
  void line(const std::string& s) { out_ += std::string(indent_ * 2, ' ') + s + "\n"; }
  void open(const std::string& s) { line(s + " {"), ++indent_; }
  void close() { --indent_, line("}"); }
  void unravel(const std::string& linear, size_t first, size_t last, bool narrow);
  void emit_signature(int block);
  void emit_stores(bool elem, int phase);

  void gen_elementwise();
  void gen_rows();
  void gen_matmul();
  DType acc_type(const KOp& o) const;
  std::string acc_init(const KOp& o, DType t) const;
  void collect_row_deps(int32_t id, std::vector<char>& seen);

  const Kernel& k_;
  std::vector<char> have_;  ///< v<id> is in scope
  std::string out_;
  int indent_ = 0;
  std::string store_guard_;  ///< condition every store is wrapped in ("" = none)
  int tpr_ = 1;              ///< Rows: threads per row
  KernelSource src_;
};

DType Codegen::acc_type(const KOp& o) const {
  const KOp& in = k_.ops[o.inputs[0]];
  if ((o.op == Op::ReduceSum || o.op == Op::ReduceProd || o.code == KOpCode::Scan) && o.dtype == DType::Float32)
    return DType::Float64;
  if ((o.op == Op::ReduceSum || o.op == Op::ReduceProd || o.code == KOpCode::Scan) && is_low_precision_float(o.dtype))
    return DType::Float32;  // as torch's kernels
  if (o.op == Op::ArgMax || o.op == Op::ArgMin) return in.dtype;
  return o.dtype;
}

std::string Codegen::acc_init(const KOp& o, DType t) const {
  bool is_max = o.op == Op::ReduceMax || o.op == Op::ArgMax;
  bool is_min = o.op == Op::ReduceMin || o.op == Op::ArgMin;
  if (o.code == KOpCode::Scan) return is_floating(t) ? float_literal(0.0, t) : "0";
  if (is_max || is_min) {
    switch (t) {
      case DType::Bool: return is_min ? "true" : "false";
      case DType::Int32:
      case DType::Int8:  // int registers (ctype)
      case DType::UInt8:
      case DType::Int16: return is_max ? "(-2147483647 - 1)" : "2147483647";
      case DType::Int64: return is_max ? int_literal(INT64_MIN) : int_literal(INT64_MAX);
      default: return float_literal(is_max ? -INFINITY : INFINITY, t);
    }
  }
  if (o.op == Op::ReduceProd) return t == DType::Bool ? "true" : is_floating(t) ? float_literal(1.0, t) : "1";
  return t == DType::Bool ? "false" : is_floating(t) ? float_literal(0.0, t) : "0";
}

std::string Codegen::cast(const std::string& x, DType from, DType to) {
  if (from == to) return x;
  if (narrow(to)) return normalize(cast(x, from, is_narrow_int(to) ? DType::Int32 : DType::Float32), to);
  if (is_low_precision_float(from)) from = DType::Float32;  // same registers
  if (is_narrow_int(from)) from = DType::Int32;
  if (from == to) return x;
  if (to == DType::Bool) return "(" + x + " != 0)";
  if (is_floating(from) && !is_floating(to)) {
    return std::string("lt_f2i<") + ctype(to) + ">(" + x + ")";
  }
  return std::string("((") + ctype(to) + ")" + x + ")";
}

std::string Codegen::ensure(int32_t id) {
  if (have_[id]) return v(id);
  const KOp& o = k_.ops[id];
  if (o.code == KOpCode::Reduce || o.code == KOpCode::Scan)
    fail(ErrorKind::Runtime, "cuda codegen: ", kop_name(o.code), " %", id, " used outside its loop in ", k_.name);
  for (int i = 0; i < o.num_inputs; ++i) ensure(o.inputs[i]);
  std::string e = expr(o);
  if (narrow(o.dtype) && (o.code == KOpCode::Const || o.code == KOpCode::Param || o.code == KOpCode::Random ||
                          (o.code == KOpCode::Compute && o.op != Op::Cast)))
    e = normalize(e, o.dtype);  // a cast normalizes itself
  if (o.code == KOpCode::Store || o.code == KOpCode::AccumStore) {
    line(store_guard_.empty() ? e + ";" : "if (" + store_guard_ + ") " + e + ";");
  } else {
    line(std::string("const ") + ctype(o.dtype) + " " + v(id) + " = " + e + ";");
  }
  have_[id] = 1;
  return v(id);
}

std::string Codegen::expr(const KOp& o) {
  auto in = [&](int i) { return v(o.inputs[i]); };
  switch (o.code) {
    case KOpCode::Coord: return "c" + std::to_string(o.imm);
    case KOpCode::Const:
      if (is_floating(o.dtype)) return float_literal(o.fimm, o.dtype);
      if (o.dtype == DType::Bool) return o.imm ? "true" : "false";
      return std::string("((") + ctype(o.dtype) + ")" + int_literal(o.imm) + ")";
    case KOpCode::Param: {
      std::string s = "s" + std::to_string(o.imm);
      if (o.dtype == DType::Float64) return "__longlong_as_double(" + s + ")";
      if (o.dtype == DType::Float32 || is_low_precision_float(o.dtype)) return "(float)__longlong_as_double(" + s + ")";
      if (o.dtype == DType::Bool) return "(" + s + " != 0)";
      return std::string("((") + ctype(o.dtype) + ")" + s + ")";
    }
    case KOpCode::Load: {
      std::string e = "b" + std::to_string(o.imm) + "[" + in(0) + "]";
      if (o.dtype == DType::Float16) return "lt_f16_to_float(" + e + ")";
      if (o.dtype == DType::BFloat16) return "lt_bf16_to_float(" + e + ")";
      if (is_narrow_int(o.dtype)) return "((int)" + e + ")";
      return o.dtype == DType::Bool ? "(" + e + " != 0)" : e;
    }
    case KOpCode::Store: {
      std::string val = o.dtype == DType::Bool ? "(unsigned char)" + in(1) : in(1);
      if (o.dtype == DType::Float16) val = "lt_float_to_f16(" + in(1) + ")";  // exact: the value is rounded
      if (o.dtype == DType::BFloat16) val = "lt_float_to_bf16(" + in(1) + ")";
      if (is_narrow_int(o.dtype)) val = std::string("(") + mtype(o.dtype) + ")" + in(1);
      return "b" + std::to_string(o.imm) + "[" + in(0) + "] = " + val;
    }
    case KOpCode::AccumStore:
      if (narrow(o.dtype))  // no 8/16-bit atomics here: scatter_add into these dtypes stays on the CPU
        fail(ErrorKind::NotImplemented, "cuda codegen: scatter_add into ", dtype_name(o.dtype),
             " is not supported on CUDA yet (", k_.name, "); compute in float32/int32 and cast");
      return "lt_atomic_add(&b" + std::to_string(o.imm) + "[" + in(0) + "], " + in(1) + ")";
    case KOpCode::IndexDiv:
    case KOpCode::IndexMod: {
      std::string d = o.num_inputs == 2 ? "(lt_u64)" + in(1) : std::to_string(o.imm) + "ull";
      return "(long long)((lt_u64)" + in(0) + (o.code == KOpCode::IndexDiv ? " / " : " % ") + d + ")";
    }
    case KOpCode::Compute: return compute(o);
    case KOpCode::Random: {
      std::string bits = "lt_philox(" + in(0) + ", " + in(1) + ", " + std::to_string(o.imm & 3) + ")";
      return (o.dtype == DType::Float64 ? "lt_uniform_f64(" : "lt_uniform_f32(") + bits + ")";
    }
    case KOpCode::CheckIndex:
      return "lt_check_index((long long)" + in(0) + ", " + int_literal(o.imm) + ", " + std::to_string(o.imm2 + 1) +
             "ull, " + std::to_string(static_cast<int64_t>(o.fimm)) + "LL, lt_err)";
    case KOpCode::Reduce:
    case KOpCode::Scan: break;
  }
  fail(ErrorKind::Runtime, "cuda codegen: cannot print ", kop_name(o.code));
}

std::string Codegen::compute(const KOp& o) {
  DType in_t = k_.ops[o.inputs[0]].dtype;
  std::string a = v(o.inputs[0]);
  std::string b = o.num_inputs > 1 ? v(o.inputs[1]) : "";
  bool fp = is_floating(in_t), is_bool = in_t == DType::Bool, f32 = in_t == DType::Float32 || is_low_precision_float(in_t);
  auto fn = [&](const char* name) { return std::string(name) + (f32 ? "f(" : "(") + a + ")"; };
  const char* T = ctype(in_t);
  switch (o.op) {
    case Op::Cast: return cast(a, in_t, o.dtype);
    case Op::Detach: return a;
    case Op::Neg: return "lt_neg(" + a + ")";
    case Op::Abs:
      if (fp) return fn("fabs");
      if (is_bool) return a;
      return "(" + a + " < 0 ? lt_neg(" + a + ") : " + a + ")";
    case Op::Sqrt: return fn("sqrt");
    case Op::Exp: return fn("exp");
    case Op::Log: return fn("log");
    case Op::Log1p: return fn("log1p");
    case Op::Expm1: return fn("expm1");
    case Op::Sin: return fn("sin");
    case Op::Cos: return fn("cos");
    case Op::Tanh: return fn("tanh");
    case Op::Sigmoid:
      return std::string("((") + T + ")1 / ((" + T + ")1 + " + (f32 ? "expf(-(" : "exp(-(") + a + "))))";
    case Op::Erf: return fn("erf");
    case Op::Floor: return fp ? fn("floor") : a;
    case Op::Ceil: return fp ? fn("ceil") : a;
    case Op::Round: return fp ? fn("rint") : a;
    case Op::Sign:
      if (is_bool) return a;
      if (fp) return std::string("(") + a + " > 0 ? (" + T + ")1 : " + a + " < 0 ? (" + T + ")-1 : (" + T + ")0)";
      return std::string("(") + T + ")((" + a + " > 0) - (" + a + " < 0))";
    case Op::LogicalNot: return "!(" + a + " != 0)";
    case Op::IsNan: return fp ? "(" + a + " != " + a + ")" : "false";
    case Op::Add: return "lt_add(" + a + ", " + b + ")";
    case Op::Sub: return "lt_sub(" + a + ", " + b + ")";
    case Op::Mul: return "lt_mul(" + a + ", " + b + ")";
    case Op::Div:
      if (fp) return "(" + a + " / " + b + ")";
      if (is_bool) return "(" + a + " & " + b + ")";
      return "lt_div(" + a + ", " + b + ")";
    case Op::Pow:
      if (fp) return std::string(f32 ? "powf(" : "pow(") + a + ", " + b + ")";
      if (is_bool) return "(" + a + " | !" + b + ")";
      return "lt_ipow(" + a + ", " + b + ")";
    case Op::Maximum: return "lt_max(" + a + ", " + b + ")";
    case Op::Minimum: return "lt_min(" + a + ", " + b + ")";
    case Op::Eq: return "(" + a + " == " + b + ")";
    case Op::Ne: return "(" + a + " != " + b + ")";
    case Op::Lt: return "(" + a + " < " + b + ")";
    case Op::Le: return "(" + a + " <= " + b + ")";
    case Op::Gt: return "(" + a + " > " + b + ")";
    case Op::Ge: return "(" + a + " >= " + b + ")";
    case Op::LogicalAnd: return "((" + a + " != 0) && (" + b + " != 0))";
    case Op::LogicalOr: return "((" + a + " != 0) || (" + b + " != 0))";
    case Op::BitwiseAnd: return "(" + a + " & " + b + ")";
    case Op::BitwiseOr: return "(" + a + " | " + b + ")";
    case Op::BitwiseXor: return "(" + a + " ^ " + b + ")";
    case Op::BitwiseNot: return is_bool ? "(!" + a + ")" : std::string("(") + T + ")(~" + a + ")";
    case Op::ShiftLeft: {  // an amount < 0 or >= the width gives 0 (the evaluator's rule)
      std::string bits = in_t == DType::Int64 ? "64" : "32";
      return std::string("((unsigned long long)") + b + " < " + bits + " ? (" + T + ")((unsigned " + T + ")" + a +
             " << " + b + ") : (" + T + ")0)";
    }
    case Op::ShiftRight: {  // arithmetic; an amount < 0 or >= the width gives the sign
      std::string bits = in_t == DType::Int64 ? "64" : "32";
      return "(" + a + " >> ((unsigned long long)" + b + " < " + bits + " ? " + b + " : " + bits + " - 1))";
    }
    case Op::Where: return "(" + cast(a, in_t, DType::Bool) + " ? " + b + " : " + v(o.inputs[2]) + ")";
    LT_NON_ELEMENTWISE_CASES: break;
  }
  fail(ErrorKind::NotImplemented, "cuda codegen: compute ", op_name(o.op));
}

// Declares c<first>..c<last-1> by unravelling `linear` over domain[first, last).
void Codegen::unravel(const std::string& linear, size_t first, size_t last, bool narrow) {
  if (first >= last) return;
  const char* it = narrow ? "unsigned" : "lt_u64";
  line(std::string(it) + " r_" + std::to_string(first) + " = (" + it + ")(" + linear + ");");
  std::string rest = "r_" + std::to_string(first);
  for (size_t i = last; i-- > first;) {
    std::string c = "c" + std::to_string(i);
    if (i == first) {
      line("const long long " + c + " = (long long)" + rest + ";");
      break;
    }
    std::string d = std::to_string(k_.domain[i]) + (narrow ? "u" : "ull");
    line("const long long " + c + " = (long long)(" + rest + " % " + d + ");");
    line(rest + " /= " + d + ";");
  }
}

void Codegen::emit_signature(int block) {
  src_.entry = "lt_" + hash_hex(k_.hash());
  std::string sig = "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(block) + ") " + src_.entry + "(";
  for (size_t i = 0; i < k_.buffers.size(); ++i) {
    const KernelBuffer& kb = k_.buffers[i];
    sig += std::string(kb.written ? "" : "const ") + mtype(kb.dtype) + "* __restrict__ b" + std::to_string(i) + ", ";
  }
  for (size_t i = 0; i < k_.scalar_types.size(); ++i) sig += "long long s" + std::to_string(i) + ", ";
  sig += "LtError* __restrict__ lt_err, long long n)";
  open(sig);
}

// Emits every store of the given level (elem phase, or row-level when !elem).
void Codegen::emit_stores(bool elem, int phase) {
  for (size_t id = 0; id < k_.ops.size(); ++id) {
    const KOp& o = k_.ops[id];
    if (!is_effect(o.code)) continue;
    if (k_.kind == KernelKind::Rows && (o.elem != elem || (elem && o.phase != phase))) continue;
    ensure(static_cast<int32_t>(id));
  }
}

void Codegen::gen_elementwise() {
  const int block = 256;
  src_.block = block;
  src_.items = k_.outer_size();
  src_.items_per_block = block;
  emit_signature(block);
  open("for (long long i = (long long)blockIdx.x * " + std::to_string(block) +
       " + threadIdx.x; i < n; i += (long long)gridDim.x * " + std::to_string(block) + ")");
  unravel("i", 0, k_.domain.size(), src_.items < (int64_t{1} << 32));
  emit_stores(true, 0);
  close();
  close();
}

void Codegen::collect_row_deps(int32_t id, std::vector<char>& seen) {
  for_each_row_dep(k_, id, seen, [&](int32_t r) { ensure(r); });
}

void Codegen::gen_rows() {
  size_t r = k_.domain.size(), outer = static_cast<size_t>(k_.outer_rank);
  int64_t inner = k_.inner_size();
  bool has_scan = false;
  for (const KOp& o : k_.ops) has_scan |= o.code == KOpCode::Scan;
  tpr_ = has_scan ? 1 : std::min(256, next_pow2(std::max<int64_t>(inner, 1)));
  // A row wider than a warp owns its whole block (the cross-warp all-reduce
  // indexes shared memory by warp); narrower rows pack 128 / TPR per block.
  const int block = tpr_ > 32 ? tpr_ : 128;
  const int rpb = block / tpr_;
  src_.block = block;
  src_.items = k_.outer_size();
  src_.items_per_block = rpb;
  emit_signature(block);
  std::string T = std::to_string(tpr_);
  if (tpr_ > 32) line("__shared__ long long lt_sv[32], lt_si[32];");
  else line("long long* lt_sv = nullptr; long long* lt_si = nullptr;");
  line("const int lane = threadIdx.x % " + T + ";");
  open("for (long long row0 = (long long)blockIdx.x * " + std::to_string(rpb) + "; row0 < n; row0 += (long long)gridDim.x * " +
       std::to_string(rpb) + ")");
  line("long long row = row0 + threadIdx.x / " + T + ";");
  line("const bool active = row < n;");
  line("if (!active) row = n - 1;");
  unravel("row", 0, outer, src_.items < (int64_t{1} << 32));

  for (int p = 0; p < k_.num_phases; ++p) {
    std::vector<int32_t> roots, reduces;
    for (size_t id = 0; id < k_.ops.size(); ++id) {
      const KOp& o = k_.ops[id];
      if (o.code == KOpCode::Reduce && o.phase == p) reduces.push_back(static_cast<int32_t>(id));
      if (o.elem && o.phase == p && (is_effect(o.code) || o.code == KOpCode::Scan))
        roots.push_back(static_cast<int32_t>(id));
    }
    if (roots.empty() && reduces.empty()) continue;
    line("// phase " + std::to_string(p));
    store_guard_ = "active";
    std::vector<char> seen(k_.ops.size(), 0);
    for (int32_t id : roots) collect_row_deps(id, seen);
    for (int32_t id : reduces) collect_row_deps(k_.ops[id].inputs[0], seen);
    auto acc = [](int32_t id) { return "a" + std::to_string(id); };
    for (int32_t id : reduces) {
      const KOp& o = k_.ops[id];
      DType t = acc_type(o);
      line(std::string(ctype(t)) + " " + acc(id) + " = " + acc_init(o, t) + ";");
      if (o.op == Op::ArgMax || o.op == Op::ArgMin) line("long long " + acc(id) + "i = LT_NOIDX;");
    }
    for (int32_t id : roots)
      if (k_.ops[id].code == KOpCode::Scan) {
        DType t = acc_type(k_.ops[id]);
        line(std::string(ctype(t)) + " " + acc(id) + " = " + acc_init(k_.ops[id], t) + ";");
      }
    std::vector<char> saved = have_;
    open("for (long long ii = lane; ii < " + std::to_string(inner) + "LL; ii += " + T + ")");
    unravel("ii", outer, r, inner < (int64_t{1} << 32));
    for (int32_t id : reduces) {
      const KOp& o = k_.ops[id];
      std::string x = ensure(o.inputs[0]);
      DType t = acc_type(o), in_t = k_.ops[o.inputs[0]].dtype;
      if (o.op == Op::ArgMax || o.op == Op::ArgMin) {
        line(std::string("lt_arg_update<") + (o.op == Op::ArgMax ? "true" : "false") + ">(" + acc(id) + ", " + acc(id) +
             "i, " + x + ", ii);");
        continue;
      }
      const char* f = o.op == Op::ReduceSum ? "lt_add" : o.op == Op::ReduceProd ? "lt_mul" : o.op == Op::ReduceMax ? "lt_max" : "lt_min";
      line(acc(id) + " = " + f + "(" + acc(id) + ", " + cast(x, in_t, t) + ");");
    }
    for (int32_t id : roots) {
      const KOp& o = k_.ops[id];
      if (o.code != KOpCode::Scan) continue;
      DType t = acc_type(o), in_t = k_.ops[o.inputs[0]].dtype;
      std::string x = ensure(o.inputs[0]);
      line(acc(id) + " = lt_add(" + acc(id) + ", " + cast(x, in_t, t) + ");");
      line(std::string("const ") + ctype(o.dtype) + " " + v(id) + " = " + cast(acc(id), t, o.dtype) + ";");
      have_[id] = 1;
    }
    emit_stores(true, p);
    close();
    have_ = saved;
    for (int32_t id : reduces) {
      const KOp& o = k_.ops[id];
      DType t = acc_type(o);
      if (o.op == Op::ArgMax || o.op == Op::ArgMin) {
        line(std::string("lt_arg_allreduce<") + (o.op == Op::ArgMax ? "true" : "false") + ", " + T + ">(" + acc(id) +
             ", " + acc(id) + "i, lt_sv, lt_si);");
        line(std::string("const ") + ctype(o.dtype) + " " + v(id) + " = " +
             cast("(" + acc(id) + "i == LT_NOIDX ? 0LL : " + acc(id) + "i)", DType::Int64, o.dtype) + ";");
      } else {
        const char* f = o.op == Op::ReduceSum ? "LtSum" : o.op == Op::ReduceProd ? "LtProd" : o.op == Op::ReduceMax ? "LtMax" : "LtMin";
        line(acc(id) + " = lt_allreduce<" + T + ">(" + acc(id) + ", " + f + "(), lt_sv);");
        line(std::string("const ") + ctype(o.dtype) + " " + v(id) + " = " + cast(acc(id), t, o.dtype) + ";");
      }
      have_[id] = 1;
    }
  }
  store_guard_ = "active && lane == 0";
  emit_stores(false, 0);
  close();
  close();
}

// The 16-bit float type both operands of a float32 product are widened from
// (ops::matmul widens bfloat16 / float16 operands; the scheduler leaves the
// casts in the operand DAGs, as jit/cpu/matmul.cpp's bf16_operands reads
// them), or Float32 when they are not: the product then runs on tensor cores.
DType mma_operand_type(const Kernel& k) {
  if (k.buffers[k.mm_acc].dtype != DType::Float32) return DType::Float32;
  DType from = DType::Float32;
  for (int32_t root : {k.mm_lhs, k.mm_rhs}) {
    const KOp& o = k.ops[root];
    if (o.code != KOpCode::Compute || o.op != Op::Cast || !is_low_precision_float(k.ops[o.inputs[0]].dtype))
      return DType::Float32;
    DType d = k.ops[o.inputs[0]].dtype;
    if (from != DType::Float32 && d != from) return DType::Float32;  // bf16 x f16: no instruction takes both
    from = d;
  }
  return from;
}

void Codegen::gen_matmul() {
  int64_t batch = k_.domain[0], M = k_.domain[1], N = k_.domain[2], K = k_.domain[3];
  DType dt = k_.buffers[k_.mm_acc].dtype;
  if (narrow(dt))  // ops::matmul widens these operands (ir/builder_nn.cpp)
    fail(ErrorKind::NotImplemented, "cuda codegen: no matmul kernel for ", dtype_name(dt), " operands (", k_.name, ")");
  const DType mma = mma_operand_type(k_);
  const bool tensor_cores = mma != DType::Float32;
  // Scalar: 256 threads of 4x4 outputs, 16-deep k slices. Tensor cores: 4
  // warps in 2x2, each 32x32 outputs as 2x4 m16n8k16 tiles, 32-deep k slices.
  const int BM = 64, BN = 64, BK = tensor_cores ? 32 : 16, block = tensor_cores ? 128 : 256;
  int64_t tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
  std::string T = ctype(dt);
  const std::string zero = dt == DType::Bool ? std::string("false") : "(" + T + ")0";
  src_.block = block;
  src_.items = batch * tm * tn;
  src_.items_per_block = 1;
  emit_signature(block);
  if (tensor_cores) {
    // 16-bit elements, k fastest (the fragments read k pairs as one word);
    // rows padded by 8 elements so a fragment load's 32 lanes hit 32 banks.
    line("__shared__ __align__(16) unsigned short As[" + std::to_string(BM) + "][" + std::to_string(BK + 8) + "];");
    line("__shared__ __align__(16) unsigned short Bs[" + std::to_string(BN) + "][" + std::to_string(BK + 8) + "];");
    line("const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;");
    line("const int g = lane >> 2, t = lane & 3, wm = (warp >> 1) * 32, wn = (warp & 1) * 32;");
  } else {
    line("__shared__ " + T + " As[" + std::to_string(BK) + "][" + std::to_string(BM) + "];");
    line("__shared__ " + T + " Bs[" + std::to_string(BK) + "][" + std::to_string(BN + 1) + "];");
    line("const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;");
  }
  open("for (long long tile = blockIdx.x; tile < n; tile += gridDim.x)");
  line("const long long c0 = tile / " + std::to_string(tm * tn) + "LL;");
  line("const long long m0 = (tile / " + std::to_string(tn) + "LL) % " + std::to_string(tm) + "LL * " + std::to_string(BM) + ";");
  line("const long long n0 = tile % " + std::to_string(tn) + "LL * " + std::to_string(BN) + ";");
  if (tensor_cores) {
    line("float acc[2][4][4];");
    line("#pragma unroll");
    line("for (int i = 0; i < 2; ++i) for (int j = 0; j < 4; ++j) for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;");
  } else {
    line(T + " acc[4][4];");
    line("#pragma unroll");
    line("for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = " + zero + ";");
  }
  open("for (long long k0 = 0; k0 < " + std::to_string(K) + "LL; k0 += " + std::to_string(BK) + ")");
  // Stage lhs (k fastest: row-major A is contiguous in k) and rhs (n fastest).
  // On tensor cores an element is stored as its 16 bits: exact, the operand
  // is a widened bfloat16 / float16 value.
  MatMulChecks checks = matmul_unread_checks(k_);
  const std::string stored = !tensor_cores              ? "val"
                             : mma == DType::BFloat16 ? "(unsigned short)(__float_as_uint(val) >> 16)"
                                                      : "lt_float_to_f16(val)";
  auto stage = [&](int32_t root, const std::string& dst, const char* ci, const char* cj, int fast, const std::string& lim_i,
                   const std::string& lim_j, const std::string& base_i, const std::string& base_j, int slow_extent,
                   const std::vector<int32_t>& operand_checks) {
    open("for (int e = threadIdx.x; e < " + std::to_string(fast * slow_extent) + "; e += " + std::to_string(block) + ")");
    line("const int ef = e % " + std::to_string(fast) + ", es = e / " + std::to_string(fast) + ";");
    line("const long long " + std::string(ci) + " = " + base_i + " + es, " + cj + " = " + base_j + " + ef;");
    line(T + " val = " + zero + ";");
    open("if (" + std::string(ci) + " < " + lim_i + " && " + cj + " < " + lim_j + ")");
    std::vector<char> saved = have_;
    line("val = " + ensure(root) + ";");
    for (int32_t id : operand_checks) ensure(id);
    have_ = saved;
    close();
    line(dst + " = " + stored + ";");
    close();
  };
  const std::string Ms = std::to_string(M) + "LL", Ns = std::to_string(N) + "LL", Ks = std::to_string(K) + "LL";
  // lhs element (b, m, k) at coords c0, c1, c3: fast index k, slow index m.
  stage(k_.mm_lhs, tensor_cores ? "As[es][ef]" : "As[ef][es]", "c1", "c3", BK, Ms, Ks, "m0", "k0", BM, checks.lhs);
  // rhs element (b, k, n) at coords c0, c3, c2: fast index n, slow index k.
  stage(k_.mm_rhs, tensor_cores ? "Bs[ef][es]" : "Bs[es][ef]", "c3", "c2", BN, Ks, Ns, "k0", "n0", BK, checks.rhs);
  line("__syncthreads();");
  line("#pragma unroll");
  if (tensor_cores) {
    open("for (int kk = 0; kk < " + std::to_string(BK) + "; kk += 16)");
    line("unsigned a[2][4], b[4][2];");
    line("#pragma unroll");
    open("for (int i = 0; i < 2; ++i)");
    line("const int r = wm + 16 * i + g;");
    line("a[i][0] = *(const unsigned*)&As[r][kk + 2 * t];");
    line("a[i][1] = *(const unsigned*)&As[r + 8][kk + 2 * t];");
    line("a[i][2] = *(const unsigned*)&As[r][kk + 2 * t + 8];");
    line("a[i][3] = *(const unsigned*)&As[r + 8][kk + 2 * t + 8];");
    close();
    line("#pragma unroll");
    open("for (int j = 0; j < 4; ++j)");
    line("const int c = wn + 8 * j + g;");
    line("b[j][0] = *(const unsigned*)&Bs[c][kk + 2 * t];");
    line("b[j][1] = *(const unsigned*)&Bs[c][kk + 2 * t + 8];");
    close();
    line("#pragma unroll");
    line(std::string("for (int i = 0; i < 2; ++i) for (int j = 0; j < 4; ++j) ") +
         (mma == DType::BFloat16 ? "lt_mma_bf16" : "lt_mma_f16") + "(acc[i][j], a[i], b[j]);");
    close();
  } else {
    open("for (int kk = 0; kk < " + std::to_string(BK) + "; ++kk)");
    line(T + " a[4], b[4];");
    line("#pragma unroll");
    line("for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i], b[i] = Bs[kk][tx + 16 * i];");
    line("#pragma unroll");
    std::string fma = dt == DType::Float32   ? "fmaf(a[i], b[j], acc[i][j])"
                      : dt == DType::Float64 ? "fma(a[i], b[j], acc[i][j])"
                      : dt == DType::Bool    ? "acc[i][j] | (a[i] & b[j])"
                                             : "lt_add(acc[i][j], lt_mul(a[i], b[j]))";
    line("for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = " + fma + ";");
    close();
  }
  line("__syncthreads();");
  close();
  // The epilogue (scheduler/kernel.h): the kernel's stores at (c0, m, nn),
  // with the product Load(mm_acc, .) being this thread's accumulator.
  std::string product;
  line("#pragma unroll");
  if (tensor_cores) {
    open("for (int i = 0; i < 2; ++i)");
    line("#pragma unroll");
    open("for (int j = 0; j < 4; ++j)");
    line("#pragma unroll");
    open("for (int r = 0; r < 4; ++r)");
    line("const long long m = m0 + wm + 16 * i + g + 8 * (r >> 1), nn = n0 + wn + 8 * j + 2 * t + (r & 1);");
    product = "acc[i][j][r]";
  } else {
    open("for (int i = 0; i < 4; ++i)");
    line("#pragma unroll");
    open("for (int j = 0; j < 4; ++j)");
    line("const long long m = m0 + ty + 16 * i, nn = n0 + tx + 16 * j;");
    product = "acc[i][j]";
  }
  open("if (m < " + Ms + " && nn < " + Ns + ")");
  line("const long long c1 = m, c2 = nn;");
  std::vector<char> saved = have_;
  for (size_t id = 0; id < k_.ops.size(); ++id)
    if (k_.ops[id].code == KOpCode::Load && k_.ops[id].imm == k_.mm_acc) {
      line("const " + T + " " + v(static_cast<int32_t>(id)) + " = " + product + ";");
      have_[id] = 1;
    }
  // Only the epilogue's own effects here: an operand's index checks read
  // Coord(3) and ran while staging it.
  for (size_t id = 0; id < k_.ops.size(); ++id)
    if (k_.ops[id].code == KOpCode::Store || k_.ops[id].code == KOpCode::AccumStore) ensure(static_cast<int32_t>(id));
  for (int32_t id : checks.epilogue) ensure(id);
  have_ = saved;
  close();
  if (tensor_cores) close();
  close();
  close();
  close();
  close();
}

KernelSource Codegen::run() {
  out_ = "\n// " + k_.name + "\n";
  switch (k_.kind) {
    case KernelKind::Elementwise: gen_elementwise(); break;
    case KernelKind::Rows: gen_rows(); break;
    case KernelKind::MatMul: gen_matmul(); break;
  }
  src_.body = std::move(out_);
  src_.source = kPrelude + src_.body;
  return std::move(src_);
}

}  // namespace

KernelSource generate_cuda_kernel(const Kernel& kernel) {
  // Shape-generic kernels are formed by the CPU backend only (scheduler/generic.h).
  if (kernel.symbolic_domain())
    fail(ErrorKind::NotImplemented, "cuda codegen: kernel ", kernel.name, " has a symbolic domain extent");
  return Codegen(kernel).run();
}

std::string cuda_translation_unit(const std::vector<const KernelSource*>& kernels) {
  std::string tu = kPrelude;
  std::vector<const std::string*> seen;
  for (const KernelSource* k : kernels) {
    bool dup = false;
    for (const std::string* e : seen) dup |= *e == k->entry;
    if (dup) continue;
    seen.push_back(&k->entry);
    tu += k->body;
  }
  return tu;
}

}  // namespace lt::cuda
