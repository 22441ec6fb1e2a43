// jit/cpu/math.cpp — vectorisable transcendentals emitted as straight-line IR.
//
// Scalar libm calls would stop the loop vectoriser, so every function here is
// branch-free arithmetic on whatever type it is given (scalar or vector):
// range reduction, a polynomial with exact Taylor coefficients (short ranges
// make Taylor nearly minimax), and selects for special values.
//   exp    x = n ln2 + r, |r| <= ln2/2 (Cody-Waite two-part ln2), 2^n by
//          exponent bits in two integer halves (no overflow in the scale);
//          float32: a degree-5 relative-error fit, float64: Taylor degree 13
//   log    x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1)
//   expm1  Taylor for |x| < 1/2 (no cancellation), exp(x) - 1 outside
//   log1p  u = 1 + x; log(u) * x / (u - 1) (Goldberg's correction)
//   tanh   -t / (t + 2), t = expm1(-2|x|), sign restored
//   sin/cos  n = round(x 2/pi), r = x - n pi/2 (two-part pi/2 with FMA),
//          Taylor sin/cos on |r| <= pi/4, quadrant by n mod 4 (the low bits
//          of n + 1.5 * 2^52). float32: reduced in double, polynomials in
//          float32. Accurate for |x| < 1e9.
//   erf    float32: rational x P(x^2)/Q(x^2) on [-4, 4] (one division).
//          float64: |x| < 2.5: (2/sqrt(pi)) x e^{-x^2} sum (2x^2)^k / (2k+1)!! (all terms
//          positive: no cancellation); |x| >= 2.5: 1 - erfc by continued fraction.
// Measured maximum relative errors against the double reference are listed in
// docs/cpu-jit.md and enforced by test/cpp/test_cpu_math.cpp.
#include <cmath>
#include <utility>

#include "jit/cpu/codegen.h"
#include "ir/error.h"
#include "llvm/IR/Intrinsics.h"

namespace lt::cpu {
namespace {

using llvm::Value;

struct Math {
  llvm::IRBuilder<>& b;
  llvm::Type* t;       // the value type (scalar or vector)
  llvm::Type* scalar;  // float or double
  bool f64;

  Value* c(double v) { return llvm::ConstantFP::get(t, v); }
  Value* fma(Value* x, Value* y, Value* z) { return b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {x, y, z}); }
  Value* un(llvm::Intrinsic::ID id, Value* x) { return b.CreateUnaryIntrinsic(id, x); }
  Value* bin(llvm::Intrinsic::ID id, Value* x, Value* y) { return b.CreateBinaryIntrinsic(id, x, y); }
  // x clamped into [lo, hi], NaN kept. Written as compare + select so that
  // x86 emits one maxps/minps each (llvm.maxnum/minnum need a compare and a
  // blend more to honour their NaN rule, which a clamp does not need).
  Value* clamp(Value* x, double lo, double hi) {
    Value* y = b.CreateSelect(b.CreateFCmpOLT(x, c(lo)), c(lo), x);
    return b.CreateSelect(b.CreateFCmpOGT(y, c(hi)), c(hi), y);
  }
  llvm::Type* int_type() {
    llvm::Type* it = f64 ? b.getInt64Ty() : b.getInt32Ty();
    if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) return llvm::VectorType::get(it, vt->getElementCount());
    return it;
  }
  Value* ic(int64_t v) { return llvm::ConstantInt::get(int_type(), static_cast<uint64_t>(v), true); }
  // Horner: coeffs[0] + x*(coeffs[1] + x*(...)).
  Value* poly(Value* x, const std::vector<double>& coeffs) {
    Value* p = c(coeffs.back());
    for (size_t i = coeffs.size() - 1; i-- > 0;) p = fma(p, x, c(coeffs[i]));
    return p;
  }
  // The integer n of an integral-valued x (from roundeven), as int_type
  // (`low32`: i32 whatever the type), for |x| < 2^22 (float) or 2^51
  // (double): x + 1.5 * 2^mbits has ulp 1, so its low bits are n in two's
  // complement. fptosi on vectors of double has no AVX2 instruction (LLVM
  // scalarises it: 4-8 conversions, compares and inserts per vector, and
  // fptosi.sat more); this is one add and a bitcast.
  Value* int_of_integral(Value* x, bool low32 = false) {
    int mbits = f64 ? 52 : 23;
    double magic = std::ldexp(1.5, mbits);
    Value* bits = b.CreateBitCast(b.CreateFAdd(x, c(magic)), int_type());
    Value* n = b.CreateSub(bits, ic(f64 ? int64_t{0x4338000000000000} : int64_t{0x4B400000}));
    if (!low32 || !f64) return n;
    llvm::Type* i32 = b.getInt32Ty();
    if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) i32 = llvm::VectorType::get(i32, vt->getElementCount());
    return b.CreateTrunc(n, i32);
  }

  // 2^n for an integer n (of int_type) inside the normal exponent range.
  Value* pow2i(Value* ni) {
    int mbits = f64 ? 52 : 23, bias = f64 ? 1023 : 127;
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(ni, ic(bias)), ic(mbits)), t);
  }

  // `taylor7`: float32 keeps the degree-7 Taylor polynomial (1.2e-7): expm1
  // (and tanh through it) amplify exp's error by e^x / (e^x - 1) near |x| = 1/2.
  Value* exp(Value* x, bool taylor7 = false) {
    double lo = f64 ? -746.0 : -104.0, hi = f64 ? 710.0 : 89.0;
    Value* xc = clamp(x, lo, hi);
    Value* n = un(llvm::Intrinsic::roundeven, b.CreateFMul(xc, c(1.4426950408889634)));
    double ln2_hi = f64 ? 6.93147180369123816490e-01 : 0.693145751953125;
    double ln2_lo = f64 ? 1.90821492927058770002e-10 : 1.428606765330187045e-06;
    Value* r = fma(b.CreateFNeg(n), c(ln2_hi), xc);
    r = fma(b.CreateFNeg(n), c(ln2_lo), r);
    Value* p;
    if (f64 || taylor7) {
      int degree = f64 ? 13 : 7;
      std::vector<double> k(degree + 1);
      double f = 1;
      for (int i = 0; i <= degree; ++i) k[i] = 1.0 / f, f *= (i + 1);
      p = poly(r, k);
    } else {
      // Degree-5 fit of e^r minimising the relative error on |r| <= ln2/2
      // (1.0e-7 in exact arithmetic, 1.6e-7 evaluated in float32): two FMAs
      // fewer than the degree-7 Taylor polynomial it replaces.
      p = poly(r, {1.0, 1.0, 0.499992317889802, 0.16667114538510353, 0.041890113696288755, 0.008312518894552378});
    }
    // 2^n = 2^n1 * 2^n2 with n1 = n >> 1 (arithmetic), n2 = n - n1: both
    // halves stay in the normal exponent range, so subnormal results round
    // once (in the last multiply) and overflow gives inf; integer halving
    // replaces the float floor/subtract/convert of the previous split.
    // |n| <= 1077. float32: vcvttps2dq; double has no vector conversion to i64 on AVX2.
    Value* ni = f64 ? int_of_integral(n) : b.CreateFPToSI(n, int_type());
    Value* n1 = b.CreateAShr(ni, ic(1));
    Value* n2 = b.CreateSub(ni, n1);
    Value* y = b.CreateFMul(b.CreateFMul(p, pow2i(n1)), pow2i(n2));
    return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);  // fptosi(NaN) is poison: never use it
  }

  Value* log(Value* x) {
    int mbits = f64 ? 52 : 23, bias = f64 ? 1023 : 127;
    double min_normal = f64 ? 2.2250738585072014e-308 : 1.17549435e-38;
    Value* tiny = b.CreateFCmpOLT(x, c(min_normal));
    Value* xs = b.CreateSelect(tiny, b.CreateFMul(x, c(f64 ? 4503599627370496.0 : 8388608.0)), x);
    Value* eadj = b.CreateSelect(tiny, c(f64 ? -52.0 : -23.0), c(0.0));
    Value* bits = b.CreateBitCast(xs, int_type());
    Value* e = b.CreateSub(b.CreateLShr(bits, ic(mbits)), ic(bias));
    Value* mant = b.CreateOr(b.CreateAnd(bits, ic((int64_t{1} << mbits) - 1)), ic(int64_t{bias} << mbits));
    Value* m = b.CreateBitCast(mant, t);
    Value* big = b.CreateFCmpOGT(m, c(1.4142135623730951));
    m = b.CreateSelect(big, b.CreateFMul(m, c(0.5)), m);
    Value* ef = b.CreateFAdd(b.CreateSIToFP(e, t), b.CreateSelect(big, c(1.0), c(0.0)));
    ef = b.CreateFAdd(ef, eadj);
    Value* fm = b.CreateFSub(m, c(1.0));
    Value* s = b.CreateFDiv(fm, b.CreateFAdd(fm, c(2.0)));
    Value* z = b.CreateFMul(s, s);
    int terms = f64 ? 11 : 4;
    std::vector<double> k(terms);
    for (int i = 0; i < terms; ++i) k[i] = 2.0 / (2 * (i + 1) + 1);
    Value* rz = b.CreateFMul(z, poly(z, k));
    Value* logm = fma(s, rz, b.CreateFMul(s, c(2.0)));
    double ln2_hi = f64 ? 6.93147180369123816490e-01 : 0.693145751953125;
    double ln2_lo = f64 ? 1.90821492927058770002e-10 : 1.428606765330187045e-06;
    Value* y = fma(ef, c(ln2_hi), fma(ef, c(ln2_lo), logm));
    y = b.CreateSelect(b.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), y);
    y = b.CreateSelect(b.CreateFCmpOEQ(x, c(INFINITY)), x, y);
    y = b.CreateSelect(b.CreateFCmpULT(x, c(0.0)), c(NAN), y);  // also NaN inputs
    return y;
  }

  Value* expm1(Value* x) {
    int degree = f64 ? 17 : 9;
    std::vector<double> k(degree);
    double f = 1;
    for (int i = 0; i < degree; ++i) f *= (i + 1), k[i] = 1.0 / f;  // x * (1 + x/2 + x^2/6 + ...)
    Value* small = b.CreateFMul(x, poly(x, k));
    Value* big = b.CreateFSub(exp(x, /*taylor7=*/true), c(1.0));
    Value* use_small = b.CreateFCmpOLT(un(llvm::Intrinsic::fabs, x), c(0.5));
    return b.CreateSelect(use_small, small, big);
  }

  Value* log1p(Value* x) {
    Value* u = b.CreateFAdd(x, c(1.0));
    Value* d = b.CreateFSub(u, c(1.0));
    Value* y = b.CreateFMul(log(u), b.CreateFDiv(x, d));
    y = b.CreateSelect(b.CreateFCmpOEQ(d, c(0.0)), x, y);
    y = b.CreateSelect(b.CreateFCmpOEQ(x, c(INFINITY)), x, y);
    y = b.CreateSelect(b.CreateFCmpOEQ(x, c(-1.0)), c(-INFINITY), y);
    return y;
  }

  Value* tanh(Value* x) {
    Value* ax = un(llvm::Intrinsic::fabs, x);
    Value* tt = expm1(b.CreateFMul(ax, c(-2.0)));
    Value* y = b.CreateFDiv(b.CreateFNeg(tt), b.CreateFAdd(tt, c(2.0)));
    return bin(llvm::Intrinsic::copysign, y, x);
  }

  // float32: x P(x^2) / Q(x^2) on x clamped to [-4, 4] (the rational
  // approximation of Eigen/XLA's fast erf; max abs error 4.5e-7 measured):
  // one division instead of the series, continued fraction and exp below.
  Value* erf_f32(Value* x) {
    static const double alpha[] = {-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04,
                                   -5.69250639462346e-05, -2.10102402082508e-06, 2.77068142495902e-08,
                                   -2.72614225801306e-10};
    static const double beta[] = {-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03,
                                  -2.13374055278905e-04, -1.45660718464996e-05};
    Value* xc = clamp(x, -4.0, 4.0);  // NaN flows through the arithmetic to the result
    Value* x2 = b.CreateFMul(xc, xc);
    Value* p = b.CreateFMul(xc, poly(x2, std::vector<double>(alpha, alpha + 7)));
    Value* q = poly(x2, std::vector<double>(beta, beta + 5));
    return clamp(b.CreateFDiv(p, q), -1.0, 1.0);
  }

  Value* erf(Value* x) {
    if (!f64) return erf_f32(x);
    Value* ax = un(llvm::Intrinsic::fabs, x);
    Value* x2 = b.CreateFMul(ax, ax);
    Value* e = exp(b.CreateFNeg(x2));
    int series = f64 ? 42 : 26, depth = f64 ? 24 : 10;
    std::vector<double> k(series);
    k[0] = 1;
    for (int i = 1; i < series; ++i) k[i] = k[i - 1] / (2 * i + 1);
    Value* p = poly(b.CreateFMul(x2, c(2.0)), k);
    Value* near = b.CreateFMul(b.CreateFMul(ax, c(1.1283791670955126)), b.CreateFMul(e, p));
    Value* f = ax;
    for (int i = depth; i >= 1; --i) f = b.CreateFAdd(ax, b.CreateFDiv(c(i * 0.5), f));
    Value* far = b.CreateFSub(c(1.0), b.CreateFDiv(e, b.CreateFMul(f, c(1.7724538509055160))));
    Value* y = b.CreateSelect(b.CreateFCmpOLT(ax, c(2.5)), near, far);
    return bin(llvm::Intrinsic::copysign, y, x);
  }

  // sin (cos_shift 0) or cos (cos_shift 1) in double.
  // Argument reduction: n = round(x / (pi/2)) and r = x - n pi/2 in this
  // type's precision (two-part pi/2).
  std::pair<Value*, Value*> reduce_half_pi(Value* x, int cos_shift) {
    Value* n = un(llvm::Intrinsic::roundeven, b.CreateFMul(x, c(0.63661977236758134)));
    Value* r = fma(b.CreateFNeg(n), c(1.5707963267948966), x);
    r = fma(b.CreateFNeg(n), c(6.123233995736766e-17), r);
    // n == 0: r is x itself. The FMAs above turn x = -0 into +0 (+0 + -0),
    // and sin(-0) must be -0 (IEEE, libm, torch).
    if (cos_shift == 0) r = b.CreateSelect(b.CreateFCmpOEQ(n, c(0.0)), x, r);
    return {n, r};
  }

  Value* sincos(Value* x, int cos_shift) {
    auto [n, r] = reduce_half_pi(x, cos_shift);
    return sincos_poly(r, int_of_integral(n), cos_shift);
  }

  // sin or cos of x = r + n pi/2 (|r| <= pi/4, `quadrant` = n as this type's
  // integer), from the sin and cos polynomials of r in this type.
  Value* sincos_poly(Value* r, Value* quadrant, int cos_shift) {
    Value* z = b.CreateFMul(r, r);
    std::vector<double> ks, kc;
    double f = 1;
    for (int i = 1; i <= 19; ++i) {
      f *= i;
      double term = ((i / 2) % 2 ? -1.0 : 1.0) / f;
      if (i % 2) ks.push_back(term);  // 1, -1/3!, 1/5!...
      else kc.push_back(term);        // -1/2!, 1/4!...
    }
    kc.insert(kc.begin(), 1.0);
    int sn = f64 ? 9 : 6, cn = f64 ? 10 : 7;
    ks.resize(sn), kc.resize(cn);
    Value* s = b.CreateFMul(r, poly(z, ks));
    Value* co = poly(z, kc);
    Value* q = b.CreateAnd(b.CreateAdd(quadrant, ic(cos_shift)), ic(3));
    Value* y = b.CreateSelect(b.CreateICmpEQ(b.CreateAnd(q, ic(1)), ic(0)), s, co);
    return b.CreateSelect(b.CreateICmpUGE(q, ic(2)), b.CreateFNeg(y), y);
  }
};

}  // namespace

Value* emit_transcendental(llvm::IRBuilder<>& b, Op op, Value* x) {
  llvm::Type* t = x->getType();
  llvm::Type* st = t->getScalarType();
  if (!st->isFloatTy() && !st->isDoubleTy()) return nullptr;
  Math m{b, t, st, st->isDoubleTy()};
  switch (op) {
    case Op::Exp: return m.exp(x);
    case Op::Log: return m.log(x);
    case Op::Expm1: return m.expm1(x);
    case Op::Log1p: return m.log1p(x);
    case Op::Tanh: return m.tanh(x);
    case Op::Erf: return m.erf(x);
    case Op::Sin:
    case Op::Cos: {
      int shift = op == Op::Cos;
      if (m.f64) return m.sincos(x, shift);
      llvm::Type* dt = b.getDoubleTy();
      if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) dt = llvm::VectorType::get(dt, vt->getElementCount());
      // float32: the argument is reduced in double (as accurate as the
      // float64 algorithm for any |x|), the polynomials run in float32 on
      // twice the lanes (session 6: the whole algorithm ran in double).
      Math mq{b, dt, b.getDoubleTy(), true};
      auto [n, r] = mq.reduce_half_pi(b.CreateFPExt(x, dt), shift);
      return m.sincos_poly(b.CreateFPTrunc(r, t), mq.int_of_integral(n, /*low32=*/true), shift);
    }
    default: return nullptr;
  }
}


// Math functions (Tier::Quick, jit.h): "lt_m_<op>_<f32|f64>" is the scalar
// function; "<name>_n<lanes>" its vector variants, one per vector of this
// host's vector registers (a width without a variant is not an error: the
// vectoriser then calls the scalar function per lane, or picks another width).
// Kernels name them in a "vector-function-abi-variant" attribute, as they do
// the precompiled Philox (codegen.cpp). Bodies are emit_transcendental's, so
// both tiers compute the same values.
namespace {
constexpr Op kMathOps[] = {Op::Exp, Op::Log, Op::Expm1, Op::Log1p, Op::Tanh, Op::Erf, Op::Sin, Op::Cos};

int host_vector_bits() {
  static const int bits = [] {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 512;
    if (__builtin_cpu_supports("avx")) return 256;
#endif
    return 128;
  }();
  return bits;
}

std::vector<int> math_lanes(bool f64) {
  std::vector<int> lanes;
  int elem = f64 ? 64 : 32;
  for (int l = 128 / elem; l * elem <= host_vector_bits(); l *= 2) lanes.push_back(l);
  return lanes;
}
}  // namespace

std::string math_function_name(Op op, bool f64) {
  for (Op m : kMathOps)
    if (m == op) return cat("lt_m_", op_name(op), f64 ? "_f64" : "_f32");
  return "";
}

bool parse_math_function_name(const std::string& name, Op* op, bool* f64) {
  for (Op m : kMathOps)
    for (bool d : {false, true})
      if (math_function_name(m, d) == name) return *op = m, *f64 = d, true;
  return false;
}

Value* emit_math_call(llvm::IRBuilder<>& b, Op op, Value* x) {
  llvm::Type* st = x->getType();
  if (!st->isFloatTy() && !st->isDoubleTy()) return nullptr;
  bool f64 = st->isDoubleTy();
  std::string name = math_function_name(op, f64);
  if (name.empty()) return nullptr;
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee fn = m.getOrInsertFunction(name, llvm::FunctionType::get(st, {st}, false));
  auto* f = llvm::cast<llvm::Function>(fn.getCallee());
  f->setDoesNotAccessMemory();
  f->setDoesNotThrow();
  f->setWillReturn();
  std::string abi;
  for (int l : math_lanes(f64)) {
    llvm::Type* vt = llvm::FixedVectorType::get(st, l);
    m.getOrInsertFunction(cat(name, "_n", l), llvm::FunctionType::get(vt, {vt}, false));
    abi += cat(abi.empty() ? "" : ",", "_ZGV_LLVM_N", l, "v_", name, "(", name, "_n", l, ")");
  }
  llvm::CallInst* call = b.CreateCall(fn, {x});
  call->addFnAttr(llvm::Attribute::get(b.getContext(), "vector-function-abi-variant", abi));
  return call;
}

void generate_math_function(llvm::Module& m, const std::string& name) {
  Op op;
  bool f64;
  if (!parse_math_function_name(name, &op, &f64)) fail(ErrorKind::Value, "cpu jit: no math function ", name);
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* st = f64 ? llvm::Type::getDoubleTy(ctx) : llvm::Type::getFloatTy(ctx);
  std::vector<std::pair<std::string, llvm::Type*>> fns = {{name, st}};
  for (int l : math_lanes(f64)) fns.emplace_back(cat(name, "_n", l), llvm::FixedVectorType::get(st, l));
  for (const auto& [fname, ty] : fns) {
    auto* f = llvm::Function::Create(llvm::FunctionType::get(ty, {ty}, false), llvm::Function::ExternalLinkage, fname, m);
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
    b.CreateRet(emit_transcendental(b, op, f->getArg(0)));
  }
}

}  // namespace lt::cpu
