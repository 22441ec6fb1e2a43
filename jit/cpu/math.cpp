// jit/cpu/math.cpp — vectorisable transcendentals emitted as straight-line IR.
//
// Scalar libm calls would stop the loop vectoriser, so every function here is
// branch-free arithmetic on whatever type it is given (scalar or vector):
// range reduction, a polynomial with exact Taylor coefficients (short ranges
// make Taylor nearly minimax), and selects for special values.
//   exp    x = n ln2 + r, |r| <= ln2/2 (Cody-Waite two-part ln2), 2^n by
//          exponent bits in two integer halves (no overflow in the scale);
//          float32: a degree-5 relative-error fit, float64: Taylor degree 13;
//          AVX-512 float32: x = (k/16) ln2 + r, 2^(j/16) from a 16-entry
//          table by vpermps, degree 3
//   log    x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1)
//   expm1  Taylor for |x| < 1/2 (no cancellation), exp(x) - 1 outside
//   log1p  u = 1 + x; log(u) * x / (u - 1) (Goldberg's correction)
//   tanh   -t / (t + 2), t = expm1(-2|x|), sign restored
//   sin/cos  n = round(x 2/pi), r = x - n pi/2 (two-part pi/2 with FMA),
//          Taylor sin/cos on |r| <= pi/4, quadrant by n mod 4 (the low bits
//          of n + 1.5 * 2^52). float32: reduced in double, polynomials in
//          float32. |x| >= 2^28 (and inf): libm in double, through a branch
//          around the vector path (trig_large_arguments).
//   erf    float32: rational x P(x^2)/Q(x^2) on [-4, 4] (one division);
//          on AVX-512 hosts a degree-4 polynomial per interval of 1/8
//          centred on i/8 (i < 32), its coefficients picked by vpermi2ps
//          from 32-entry tables.
//          float64: |x| < 2.5: (2/sqrt(pi)) x e^{-x^2} sum (2x^2)^k / (2k+1)!! (all terms
//          positive: no cancellation); |x| >= 2.5: 1 - erfc by continued fraction.
// AVX-512 hosts (avx512_math()): log splits x = 2^e m by vgetmant/vgetexp
// (m in [0.75, 1.5)), exp scales by 2^n with vscalefps/pd (one instruction
// for the integer split, shifts and two multiplies below; the same correctly
// rounded p 2^n), and float32 erf uses the table form above. These forms
// work on 512-bit vectors: narrower vectors are widened, and scalars (but
// sin/cos, which have none) run on one lane of one, so every width gives
// the same values. LT_JIT_AVX512_MATH=0 turns them off (part of target_id()).
// Measured maximum relative errors against the double reference are listed in
// docs/cpu-jit.md and enforced by test/cpp/test_cpu_math.cpp.
#include <cmath>
#include <utility>

#include "jit/cpu/codegen.h"
#include "ir/error.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/MDBuilder.h"
#include "jit/cpu/jit.h"

namespace lt::cpu {
namespace {

using llvm::Value;

struct Math {
  llvm::IRBuilder<>& b;
  llvm::Type* t;       // the value type (scalar or vector)
  llvm::Type* scalar;  // float or double
  bool f64;
  bool x512 = false;  // AVX-512 forms: t is a 512-bit vector (emit_transcendental widens the rest)

  bool vec512() const { return x512 && t->isVectorTy(); }

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

  // float32 on AVX-512 hosts, x already clamped: x = (k/16) ln2 + r,
  // |r| <= ln2/32, e^x = 2^floor(k/16) 2^((k mod 16)/16) e^r. k/16 comes from
  // x log2(e) + 1.5 * 2^19 (ulp 1/16), whose low 4 bits index the 16-entry
  // table of 2^(j/16) by vpermps; e^r needs only degree 3 (r^4/24 < 1e-8),
  // and vscalefps multiplies by 2^floor(k/16) (it floors its second operand)
  // with one rounding. Against the degree-5 form below: one FMA-pipe
  // operation fewer (the multiply and round become one FMA and an add) and
  // 1.2e-7 max relative error instead of 1.9e-7 (tools/exp_table_study.py).
  Value* exp_f32_table(Value* xc) {
    constexpr double magic = 786432.0;         // 1.5 * 2^19
    constexpr double ln2_hi = 0.693115234375;  // 2839 / 4096: kf ln2_hi is exact (|k| < 2^12)
    constexpr double ln2_lo = 0.69314718055994531 - ln2_hi;
    Value* t1 = fma(xc, c(1.4426950408889634), c(magic));
    Value* kf = b.CreateFSub(t1, c(magic));  // k/16, exact
    Value* r = fma(b.CreateFNeg(kf), c(ln2_hi), xc);
    r = fma(b.CreateFNeg(kf), c(ln2_lo), r);
    std::vector<llvm::Constant*> pow2;
    for (int j = 0; j < 16; ++j) pow2.push_back(llvm::ConstantFP::get(scalar, static_cast<float>(std::exp2(j / 16.0))));
    Value* tb = b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_permvar_sf_512, {},
                                  {llvm::ConstantVector::get(pow2), b.CreateBitCast(t1, int_type())});
    Value* q = fma(fma(c(1.0 / 6.0), r, c(0.5)), r, c(1.0));  // e^r = 1 + r q
    Value* y = fma(b.CreateFMul(r, tb), q, tb);
    return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
                             {y, kf, y, llvm::Constant::getAllOnesValue(b.getInt16Ty()), b.getInt32(4)});
  }

  // `taylor7`: float32 keeps the degree-7 Taylor polynomial (1.2e-7): expm1
  // (and tanh through it) amplify exp's error by e^x / (e^x - 1) near |x| = 1/2.
  Value* exp(Value* x, bool taylor7 = false) {
    double lo = f64 ? -746.0 : -104.0, hi = f64 ? 710.0 : 89.0;
    Value* xc = clamp(x, lo, hi);
    if (vec512() && !f64 && !taylor7) return exp_f32_table(xc);
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
    // vscalef: p 2^n rounded once, inf past the range, NaN kept (n, p NaN).
    if (vec512())
      return b.CreateIntrinsic(f64 ? llvm::Intrinsic::x86_avx512_mask_scalef_pd_512
                                   : llvm::Intrinsic::x86_avx512_mask_scalef_ps_512,
                               {}, {p, n, p, llvm::Constant::getAllOnesValue(b.getIntNTy(f64 ? 8 : 16)), b.getInt32(4)});
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
    // x = 2^e m with m in [sqrt(1/2), sqrt(2)), or in [0.75, 1.5) for the
    // AVX-512 form: vgetmant gives that m (subnormals included) and e =
    // getexp(x) - getexp(m), since getexp(m) is -1 below 1 and 0 above.
    Value* m;
    Value* ef;
    if (vec512()) {
      llvm::Type* mask = b.getIntNTy(f64 ? 8 : 16);
      Value* all = llvm::Constant::getAllOnesValue(mask);
      auto getexp = [&](Value* v) {
        return b.CreateIntrinsic(f64 ? llvm::Intrinsic::x86_avx512_mask_getexp_pd_512
                                     : llvm::Intrinsic::x86_avx512_mask_getexp_ps_512,
                                 {}, {v, v, all, b.getInt32(4)});
      };
      // imm 3: interval [0.75, 1.5), sign of the source (negative x is NaN below).
      m = b.CreateIntrinsic(f64 ? llvm::Intrinsic::x86_avx512_mask_getmant_pd_512
                                : llvm::Intrinsic::x86_avx512_mask_getmant_ps_512,
                            {}, {x, b.getInt32(3), x, all, b.getInt32(4)});
      ef = b.CreateFSub(getexp(x), getexp(m));
    } else {
      int mbits = f64 ? 52 : 23, bias = f64 ? 1023 : 127;
      double min_normal = f64 ? 2.2250738585072014e-308 : 1.17549435e-38;
      Value* tiny = b.CreateFCmpOLT(x, c(min_normal));
      Value* xs = b.CreateSelect(tiny, b.CreateFMul(x, c(f64 ? 4503599627370496.0 : 8388608.0)), x);
      Value* eadj = b.CreateSelect(tiny, c(f64 ? -52.0 : -23.0), c(0.0));
      Value* bits = b.CreateBitCast(xs, int_type());
      Value* e = b.CreateSub(b.CreateLShr(bits, ic(mbits)), ic(bias));
      Value* mant = b.CreateOr(b.CreateAnd(bits, ic((int64_t{1} << mbits) - 1)), ic(int64_t{bias} << mbits));
      m = b.CreateBitCast(mant, t);
      Value* big = b.CreateFCmpOGT(m, c(1.4142135623730951));
      m = b.CreateSelect(big, b.CreateFMul(m, c(0.5)), m);
      ef = b.CreateFAdd(b.CreateSIToFP(e, t), b.CreateSelect(big, c(1.0), c(0.0)));
      ef = b.CreateFAdd(ef, eadj);
    }
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
    // x (P / Q), not (x P) / Q: for subnormal x the product x P would lose
    // bits before the division (25 subnormal ulps at 1e-40).
    Value* p = poly(x2, std::vector<double>(alpha, alpha + 7));
    Value* q = poly(x2, std::vector<double>(beta, beta + 5));
    return clamp(b.CreateFMul(xc, b.CreateFDiv(p, q)), -1.0, 1.0);
  }

  // float32 on AVX-512 hosts: i = round(8|x|) (|x| clamped to 3.93, where
  // erf rounds to 1), r = |x| - i/8 in [-1/16, 1/16], erf = sign(x) p_i(r)
  // with a degree-4 p_i per interval (p_0(0) = 0: relative error near 0); the
  // 5 coefficients of interval i come from 32-entry tables by vpermi2ps (two
  // 16-float halves and the low 5 bits of i).
  // Coefficients from tools/erf_table_study.py; measured error in docs/cpu-jit.md.
  static constexpr int kErfDegree = 4;
  Value* erf_f32_table(Value* x) {
    static const float table[kErfDegree + 1][32] = {
        {0.0f, 0.140316203f, 0.276326388f, 0.404116899f, 0.520499885f, 0.623240888f, 0.711155653f, 0.784075081f, 0.842700779f, 0.888388216f, 0.92290014f, 0.948170066f, 0.966105163f, 0.978443742f, 0.986671686f, 0.99199003f, 0.995322287f, 0.997345984f, 0.998537302f, 0.999217033f, 0.999593019f, 0.999794602f, 0.999899387f, 0.999952137f, 0.999977887f, 0.999990106f, 0.999995708f, 0.999998212f, 0.999999285f, 0.999999702f, 0.999999881f, 0.99999994f},
        {1.12837911f, 1.1108849f, 1.06001389f, 0.98035264f, 0.87878257f, 0.763499618f, 0.642931283f, 0.524745286f, 0.415107757f, 0.31827417f, 0.236521289f, 0.17035988f, 0.11893034f, 0.0804722682f, 0.0527749732f, 0.0335457884f, 0.0206669383f, 0.0123407748f, 0.00714228023f, 0.00400644727f, 0.00217826199f, 0.00114785973f, 0.000586267211f, 0.000290222029f, 0.000139249343f, 6.4756583e-05f, 2.91878805e-05f, 1.2751143e-05f, 5.39912708e-06f, 2.21577579e-06f, 8.81365111e-07f, 3.39792393e-07f},
        {1.21767644e-05f, -0.138855517f, -0.264999419f, -0.367619038f, -0.43939957f, -0.47719422f, -0.482221365f, -0.459176213f, -0.415091515f, -0.358040214f, -0.29566592f, -0.234236583f, -0.178415388f, -0.130777717f, -0.092374146f, -0.0628651828f, -0.0413603187f, -0.0262401644f, -0.0160924159f, -0.00948146172f, -0.00541166821f, -0.00298704603f, -0.00162333646f, -0.00082521775f, -0.000390499074f, -0.000205190736f, -0.000108290275f, -7.54458815e-05f, -5.21436341e-05f, -4.5899551e-06f, 3.24066582e-06f, 1.9090734e-05f},
        {-0.37683031f, -0.35827744f, -0.308842182f, -0.234677345f, -0.14643839f, -0.0557843447f, 0.0265507102f, 0.0926334038f, 0.138066068f, 0.162190199f, 0.167332828f, 0.157806665f, 0.138688639f, 0.114830792f, 0.0901855007f, 0.067490235f, 0.0482795835f, 0.0330917947f, 0.0217708405f, 0.0137668969f, 0.00837665796f, 0.00490876939f, 0.00277236686f, 0.00150998903f, 0.000793522981f, 0.000402528502f, 0.000197175337f, 9.32959156e-05f, 4.2653046e-05f, 1.88461599e-05f, 8.04964657e-06f, 3.32426271e-06f},
        {0.0153761851f, 0.0670357198f, 0.125697434f, 0.163307324f, 0.184783161f, 0.177939177f, 0.155911267f, 0.117970005f, 0.0655371994f, 0.0238994583f, -0.00273206178f, -0.0322823003f, -0.039931383f, -0.0472943112f, -0.0439460874f, -0.0499007851f, -0.0283757802f, -0.0227013901f, -0.0139823928f, -0.0209567957f, -0.016472226f, -0.0114391418f, -0.000714122609f, -0.0040020016f, -0.00732473843f, 9.01064341e-05f, 0.00280423881f, 0.00732081337f, 0.00758796232f, -0.000824131188f, -0.001521367f, -0.00470551662f},
    };
    Value* ax = un(llvm::Intrinsic::fabs, x);
    ax = b.CreateSelect(b.CreateFCmpOGT(ax, c(3.93)), c(3.93), ax);  // NaN kept
    // |x| + 2^20 has ulp 1/8: it rounds |x| to i/8, i in its low bits; both
    // subtractions are exact. No multiply: the FMA pipes are this code's
    // bottleneck (docs/cpu-jit.md, "AVX-512 math").
    Value* snapped = b.CreateFAdd(ax, c(std::ldexp(1.0, 20)));
    Value* idx = b.CreateBitCast(snapped, int_type());
    Value* tt = b.CreateFSub(ax, b.CreateFSub(snapped, c(std::ldexp(1.0, 20))));
    // Only 512-bit vectors get here (emit_transcendental widens the rest).
    auto coef = [&](int k) -> Value* {
      std::vector<llvm::Constant*> lo, hi;
      for (int i = 0; i < 16; ++i)
        lo.push_back(llvm::ConstantFP::get(scalar, table[k][i])), hi.push_back(llvm::ConstantFP::get(scalar, table[k][16 + i]));
      return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_vpermi2var_ps_512, {},
                               {llvm::ConstantVector::get(lo), idx, llvm::ConstantVector::get(hi)});
    };
    Value* p = coef(kErfDegree);
    for (int k = kErfDegree - 1; k >= 0; --k) p = fma(p, tt, coef(k));
    return bin(llvm::Intrinsic::copysign, p, x);
  }

  Value* erf(Value* x) {
    if (!f64) return x512 ? erf_f32_table(x) : erf_f32(x);
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

namespace {
// sin/cos of |x| >= kTrigReduceLimit: the two-part pi/2 reduction above is
// no longer accurate (at 1e30 it gave inf, or 1e225 in float64), so those
// elements are computed by libm in double, as the reference evaluator does.
constexpr double kTrigReduceLimit = 1 << 28;
double lt_rt_sin(double x) { return std::sin(x); }
double lt_rt_cos(double x) { return std::cos(x); }

// y (the polynomial result for x) with the elements whose |x| is at least
// kTrigReduceLimit (or infinite) replaced by lt_rt_sin/cos. One compare and
// mask test per vector, and a branch to a function that fixes those lanes.
// That function is marked "no_caller_saved_registers" (it saves every
// register it or libm touches), so the loop around the call keeps its
// vectors and constants in registers: a plain call there made the register
// allocator spill in the hot path (sin over 4M floats 2.4 -> 3.2 ms).
// Emitted only inside a function (the math functions' bodies, which kernels
// inline after vectorising).
Value* trig_large_arguments(llvm::IRBuilder<>& b, Op op, Value* x, Value* y) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::Module& m = *fn->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Type* t = x->getType();
  llvm::Type* st = t->getScalarType();
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  Value* huge = b.CreateFCmpOGE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), llvm::ConstantFP::get(t, kTrigReduceLimit));
  Value* any = huge;
  if (vt) {
    llvm::Type* bits = b.getIntNTy(vt->getNumElements());
    any = b.CreateICmpNE(b.CreateBitCast(huge, bits), llvm::ConstantInt::get(bits, 0));
  }
  // The fixing function, one per op, type and width in this module.
  std::string name = cat("lt_trig_large_", op == Op::Sin ? "sin" : "cos", st->isDoubleTy() ? "_f64" : "_f32",
                         vt ? cat("_n", vt->getNumElements()) : std::string());
  llvm::Function* fix = m.getFunction(name);
  if (!fix) {
    fix = llvm::Function::Create(llvm::FunctionType::get(t, {t, t}, false), llvm::Function::InternalLinkage, name, m);
    fix->addFnAttr("no_caller_saved_registers");
    // Not in llvm.used (to pin its signature against the stock O2
    // pipeline's interprocedural passes): ELF then retains used globals in
    // unique sections, and objects came out with section names that varied
    // between compiles (test_cpu_jit's byte-identical objects, 3 in 30 runs).
    fix->addFnAttr(llvm::Attribute::NoInline);
    fix->setDoesNotThrow();
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(ctx, "entry", fix));
    llvm::Type* dt = fb.getDoubleTy();
    llvm::FunctionCallee rt =
        m.getOrInsertFunction(op == Op::Sin ? "lt_rt_sin" : "lt_rt_cos", llvm::FunctionType::get(dt, {dt}, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(rt.getCallee())) {
      f->setDoesNotAccessMemory();
      f->setDoesNotThrow();
      f->setWillReturn();
    }
    Value* fx = fix->getArg(0);
    Value* fy = fix->getArg(1);
    auto libm = [&](Value* v) {
      // notail: as a sibling call (jmp) libm would return straight to the
      // caller after this function restored the registers, clobbering what
      // the caller keeps in them (it did under the stock O2 pipeline).
      llvm::CallInst* r = fb.CreateCall(rt, {st->isDoubleTy() ? v : fb.CreateFPExt(v, dt)});
      r->setTailCallKind(llvm::CallInst::TCK_NoTail);
      return st->isDoubleTy() ? static_cast<Value*>(r) : fb.CreateFPTrunc(r, st);
    };
    Value* out = fy;
    if (vt) {
      Value* lim = llvm::ConstantFP::get(st, kTrigReduceLimit);
      for (unsigned i = 0; i < vt->getNumElements(); ++i) {
        Value* xi = fb.CreateExtractElement(fx, i);
        Value* big = fb.CreateFCmpOGE(fb.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, xi), lim);
        out = fb.CreateInsertElement(out, fb.CreateSelect(big, libm(xi), fb.CreateExtractElement(fy, i)), i);
      }
    } else {
      out = libm(fx);
    }
    fb.CreateRet(out);
  }
  llvm::BasicBlock* fast = b.GetInsertBlock();
  llvm::BasicBlock* slow = llvm::BasicBlock::Create(ctx, "trig.large", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "trig.done", fn);
  llvm::MDBuilder md(ctx);
  b.CreateCondBr(any, slow, done, md.createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(slow);
  Value* fixed = b.CreateCall(fix, {x, y});
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* phi = b.CreatePHI(t, 2);
  phi->addIncoming(y, fast);
  phi->addIncoming(fixed, slow);
  return phi;
}
}  // namespace

std::vector<std::pair<std::string, void*>> math_runtime_symbols() {
  return {{"lt_rt_sin", reinterpret_cast<void*>(&lt_rt_sin)}, {"lt_rt_cos", reinterpret_cast<void*>(&lt_rt_cos)}};
}

Value* emit_transcendental(llvm::IRBuilder<>& b, Op op, Value* x) {
  llvm::Type* t = x->getType();
  llvm::Type* st = t->getScalarType();
  if (!st->isFloatTy() && !st->isDoubleTy()) return nullptr;
  bool x512 = avx512_math();
  if (x512 && !t->isVectorTy() && op != Op::Sin && op != Op::Cos) {
    // A scalar (the vectoriser's remainder, a loop it left scalar) runs the
    // 512-bit forms on one lane, for the same values as the vector lanes
    // (log1p through log, say, whose form splits the mantissa elsewhere),
    // and fewer operations than scalar formulas would take (erf's table as
    // 6 loads and their index arithmetic made rows of 77 20% slower). sin
    // and cos have no AVX-512 form.
    Value* wide = b.CreateInsertElement(llvm::PoisonValue::get(llvm::FixedVectorType::get(t, 512 / t->getPrimitiveSizeInBits())), x, uint64_t{0});
    Value* y = emit_transcendental(b, op, wide);
    return y ? b.CreateExtractElement(y, uint64_t{0}) : nullptr;
  }
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t); vt && x512) {
    // The AVX-512 forms work on 512-bit vectors: a narrower one is widened
    // (its upper lanes poison, dropped again), a wider one split in halves.
    int lanes = static_cast<int>(vt->getNumElements()), full = 512 / static_cast<int>(st->getPrimitiveSizeInBits());
    auto seq = [](int from, int n, int len) {
      std::vector<int> v(len, -1);
      for (int i = 0; i < n; ++i) v[i] = from + i;
      return v;
    };
    if (lanes < full) {
      Value* wide = b.CreateShuffleVector(x, llvm::PoisonValue::get(vt), seq(0, lanes, full));
      Value* y = emit_transcendental(b, op, wide);
      return y ? b.CreateShuffleVector(y, llvm::PoisonValue::get(y->getType()), seq(0, lanes, lanes)) : nullptr;
    }
    if (lanes > full) {
      Value* lo = emit_transcendental(b, op, b.CreateShuffleVector(x, seq(0, lanes / 2, lanes / 2)));
      Value* hi = emit_transcendental(b, op, b.CreateShuffleVector(x, seq(lanes / 2, lanes / 2, lanes / 2)));
      return lo && hi ? b.CreateShuffleVector(lo, hi, seq(0, lanes, lanes)) : nullptr;
    }
  }
  Math m{b, t, st, st->isDoubleTy(), x512};
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
      if (m.f64) return trig_large_arguments(b, op, x, m.sincos(x, shift));
      llvm::Type* dt = b.getDoubleTy();
      if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) dt = llvm::VectorType::get(dt, vt->getElementCount());
      // float32: the argument is reduced in double (as accurate as the
      // float64 algorithm for any |x|), the polynomials run in float32 on
      // twice the lanes, which costs no accuracy against running it all in double.
      Math mq{b, dt, b.getDoubleTy(), true};
      auto [n, r] = mq.reduce_half_pi(b.CreateFPExt(x, dt), shift);
      return trig_large_arguments(b, op, x,
                                  m.sincos_poly(b.CreateFPTrunc(r, t), mq.int_of_integral(n, /*low32=*/true), shift));
    }
    default: return nullptr;  // not a transcendental (ir/ops.def)
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

std::vector<int> math_lanes(bool f64) {
  std::vector<int> lanes;
  int elem = f64 ? 64 : 32;
  for (int l = 128 / elem; l * elem <= target_vector_bits(); l *= 2) lanes.push_back(l);
  return lanes;
}
}  // namespace

std::string math_function_name(Op op, bool f64) {
  return is_transcendental(op) ? cat("lt_m_", op_name(op), f64 ? "_f64" : "_f32") : "";
}

bool parse_math_function_name(const std::string& name, Op* op, bool* f64) {
  for (size_t i = 0; i < kNumOps; ++i)
    for (bool d : {false, true})
      if (Op m = static_cast<Op>(i); is_transcendental(m) && math_function_name(m, d) == name)
        return *op = m, *f64 = d, true;
  return false;
}

namespace {
// Defines `f` (declared: the scalar math function or one of its variants)
// with emit_transcendental's body.
void define_math_body(llvm::Function* f, Op op) {
  f->setDoesNotAccessMemory();
  f->setDoesNotThrow();
  f->setWillReturn();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(f->getContext(), "entry", f));
  b.CreateRet(emit_transcendental(b, op, f->getArg(0)));
}
}  // namespace

Value* emit_math_call(llvm::IRBuilder<>& b, Op op, Value* x, bool define_here) {
  llvm::Type* st = x->getType();
  if (!st->isFloatTy() && !st->isDoubleTy()) return nullptr;
  bool f64 = st->isDoubleTy();
  std::string name = math_function_name(op, f64);
  if (name.empty()) return nullptr;
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  std::string abi;
  std::vector<llvm::Function*> fns;
  fns.push_back(llvm::cast<llvm::Function>(m.getOrInsertFunction(name, llvm::FunctionType::get(st, {st}, false)).getCallee()));
  for (int l : math_lanes(f64)) {
    llvm::Type* vt = llvm::FixedVectorType::get(st, l);
    fns.push_back(llvm::cast<llvm::Function>(
        m.getOrInsertFunction(cat(name, "_n", l), llvm::FunctionType::get(vt, {vt}, false)).getCallee()));
    abi += cat(abi.empty() ? "" : ",", "_ZGV_LLVM_N", l, "v_", name, "(", name, "_n", l, ")");
  }
  for (llvm::Function* f : fns) {
    if (!f->isDeclaration()) continue;
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
    if (!define_here) continue;
    // Full tier: defined here, kept out of line until the loop vectoriser
    // has chosen the variants, then inlined (kLateInline, compiler.cpp).
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->addFnAttr(llvm::Attribute::NoInline);
    f->addFnAttr(kLateInline);
    define_math_body(f, op);
  }
  llvm::CallInst* call = b.CreateCall(fns[0], {x});
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
  for (const auto& [fname, ty] : fns)
    define_math_body(llvm::Function::Create(llvm::FunctionType::get(ty, {ty}, false), llvm::Function::ExternalLinkage, fname, m), op);
}

}  // namespace lt::cpu
