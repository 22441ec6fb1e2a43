"""Elementwise torch.* functions composed from the C++ ops (exp, log1p, expm1, sin, cos, sqrt, where, ...):
hyperbolic and inverse trigonometric functions, erfc, logit, xlogy, the sign and classification family,
the division family (floor_divide, remainder, fmod, trunc, frac), fmax/fmin, ldexp and round(decimals=).

Every function here is a short decomposition over existing lazy ops, so it stays lazy, fuses with its
neighbours and is differentiated by the ordinary autograd of those ops. Formulations are chosen to stay
accurate over the whole range (see docs/python.md for the measured worst relative errors):
  * branches that could overflow or cancel are fed clamped inputs ("safe where"), so the branch that
    `where` discards produces neither inf nor NaN values or gradients;
  * odd functions return `x` itself at x == 0, which keeps the sign of -0.
erfc is not 1 - erf(x) (which has no correct digits past x ~ 4 in float32) but a Chebyshev tail (_erfc_tail).
atan, atan2, asin and acos are a polynomial over the existing ops too (_atan01): one fused kernel each.
"""
import builtins
import math

import numpy as np

from . import _C
from ._C import Tensor
from ._creation import tensor
from ._dtype import finfo, get_default_dtype
from ._function_args import _broadcast_shape, _check, _result_type, _where
from ._gradient_terms import with_nan_gradient
from ._out import _with_out


_LN2 = math.log(2.0)


def _floating(name, x):
    """Integer and bool inputs compute in the default float dtype, as in PyTorch."""
    _check(name, x)
    if x.dtype.is_floating_point:
        return x
    return x.to(get_default_dtype())


def _as_tensor(x, ref):
    if isinstance(x, Tensor):
        return x
    return tensor(x, dtype=ref.dtype if isinstance(x, (float, builtins.int)) and not isinstance(x, builtins.bool)
                  and ref.dtype.is_floating_point else None)


def _binary_float(name, a, b):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError("{}(): expected at least one Tensor argument, got {} and {}".format(
            name, type(a).__name__, type(b).__name__))
    ref = a if isinstance(a, Tensor) else b
    a, b = _as_tensor(a, ref), _as_tensor(b, ref)
    sa, sb = tuple(a.shape), tuple(b.shape)
    if sa != sb:
        n = max(len(sa), len(sb))
        pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
        if any(x != y and x != 1 and y != 1 for x, y in zip(pa, pb)):
            raise RuntimeError("{}: the shapes of input {} and other {} do not broadcast (each dimension must be "
                               "equal or 1)".format(name, list(sa), list(sb)))
    dt = _C.promote_types(a.dtype, b.dtype)
    if not dt.is_floating_point:
        dt = get_default_dtype()
    return a.to(dt), b.to(dt)


def _big(x):
    """A threshold above which e^|x| / 2 is sinh/cosh to the last bit."""
    return 20.0 if x.dtype == _C.float32 else 40.0


_HALF_E16 = math.exp(16.0) / 2


def _half_exp(a):
    """e^a / 2 for a >= 16, finite up to where the result overflows: a - 16 is exact, and the derivative is
    formed as g * (e^16 / 2) * e^(a - 16), never above the result (exp(a / 2) squared has the same accuracy,
    but its derivative passes through 2 e^a / 2, which overflows first: sinh'(89) in float32)."""
    return (a - 16.0).exp() * _HALF_E16


# ---------------------------------------------------------------- hyperbolic and trigonometric
def sinh(input, *, out=None):
    x = _floating("sinh", input)
    a = x.abs()
    big = _big(x)
    small = a.clamp_max(big)
    u = small.expm1()
    r_small = (u + u / (u + 1.0)) * 0.5  # (e^a - e^-a)/2 without cancellation near 0
    r = _where(a > big, _half_exp(a.clamp_min(big)), r_small)
    r = _where(x < 0, -r, r)
    return _where(x == 0, x, r)


def cosh(input, *, out=None):
    x = _floating("cosh", input)
    a = x.abs()
    big = _big(x)
    t = a.clamp_max(big).mul(0.5).exp()
    r_small = t * (t * 0.5) + 0.5 / (t * t)
    return _where(a > big, _half_exp(a.clamp_min(big)), r_small)


def tan(input, *, out=None):
    x = _floating("tan", input)
    return _where(x == 0, x, x.sin() / x.cos())  # the C++ sin(-0.0) gives +0.0


def asinh(input, *, out=None):
    x = _floating("asinh", input)
    a = x.abs()
    big = 2.0 ** 28
    s = a.clamp_max(big)
    r_small = (s + s * s / (1.0 + (s * s + 1.0).sqrt())).log1p()
    r_big = a.clamp_min(big).log() + _LN2
    r = _where(a > big, r_big, r_small)
    r = _where(x < 0, -r, r)
    return _where(x == 0, x, r)


def acosh(input, *, out=None):
    x = _floating("acosh", input)
    big = 2.0 ** 28
    # On |x| (s = -1 below 0): r_small(-x) * -1 has the derivative torch gives at x <= -1, 1/sqrt(x^2 - 1),
    # without the cancellation of log1p(t + sqrt(t (t + 2))) at t = x - 1 < -2.
    s = _where(x < 0, -1.0, 1.0)
    t = (x * s).clamp_max(big) - 1.0
    # sqrt(t) sqrt(t + 2), not sqrt(t (t + 2)): at |x| = 1 the derivative of the product under one sqrt is
    # inf * 0 = NaN, torch's is inf. NaN for |x| < 1 (t < 0), as torch's value and derivative there.
    r_small = (t + t.sqrt() * (t + 2.0).sqrt()).log1p() * s  # log(x + sqrt(x^2 - 1)) accurate near 1
    r_big = x.clamp_min(big).log() + _LN2
    # NaN below 1 as torch; r_small + nan (not a NaN constant) keeps its derivative flowing at x <= -1.
    return _where(x < 1.0, r_small + math.nan, _where(x > big, r_big, r_small))


def atanh(input, *, out=None):
    x = _floating("atanh", input)
    a = x.abs()  # odd symmetry: log1p(a) and -log1p(-a) are both positive, no cancellation
    # Not log1p(2a / (1 - a)): at a = 1 its derivative is 0 * inf = NaN, torch's is inf.
    r = (a.log1p() - (-a).log1p()) * 0.5
    r = _where(x < 0, -r, r)
    return _where(x == 0, x, r)


# atan(u) = u + u z P(z), z = u^2, |u| <= tan(pi/8). P fitted for this file with mpmath.chebyfit (40 digits,
# on z in [0, tan^2(pi/8)]), highest degree first; bound on atan's relative error from the fit: 2.7e-9 with
# degree 4 (float32), 5.4e-18 with degree 10 (float64).
_ATAN_P32 = (-0.06451928208121748758, 0.10743731490791083043, -0.14263955597984639199, 0.19999540483648963445,
             -0.33333331761168519851)


_ATAN_P64 = (-0.019176887119062258989, 0.039231658295587191303, -0.050854497379402598613, 0.058581489128022098816,
             -0.066645114473819480001, 0.076921831908260865637, -0.090909045781239018905, 0.11111111015256361727,
             -0.14285714284666542922, 0.19999999999995520678, -0.3333333333333333016)


_TAN_PI_8 = 0.41421356237309503


def _atan01(t):
    """atan(t) for t in [0, 1] (NaN kept): above tan(pi/8), pi/4 + atan((t - 1)/(t + 1))."""
    mid = t > _TAN_PI_8
    u = _where(mid, (t - 1.0) / (t + 1.0), t)
    z = u * u
    coeffs = _ATAN_P32 if t.dtype == _C.float32 else _ATAN_P64
    p = z * coeffs[0] + coeffs[1]
    for c in coeffs[2:]:
        p = p * z + c
    r = u + (u * z) * p
    return _where(mid, r + math.pi / 4, r)


def atan(input, *, out=None):
    x = _floating("atan", input)
    a = x.abs()
    inv = a > 1.0  # atan(a) = pi/2 - atan(1/a); inf gives 1/a = 0
    t = _where(inv, 1.0 / _where(inv, a, 1.0), a)
    r = _atan01(t)
    r = _where(inv, math.pi / 2 - r, r)
    r = _where(x < 0, -r, r)
    return _where(x == 0, x, r)


def atan2(input, other, *, out=None):
    """atan2(y, x) from atan of min(|x|, |y|) / max(|x|, |y|) in [0, 1], then the octant: C99/PyTorch values for
    signed zeros and infinities (atan2(+-0, -0) = +-pi, atan2(inf, inf) = pi/4)."""
    y, x = _binary_float("atan2", input, other)
    # |v| as v * (+-1) with the sign constant: abs's gradient is 0 at 0, and atan2's is not (d/dy = 1/x at y = 0).
    ax = x * _where(signbit(x), -1.0, 1.0)
    ay = y * _where(signbit(y), -1.0, 1.0)
    swap = ay > ax
    num = _where(swap, ax, ay)
    den = _where(swap, ay, ax)
    both_inf = (ax == math.inf) & (ay == math.inf)
    special = (den == 0) | both_inf  # 0/0 and inf/inf: the ratio is 0 and 1
    q = _where(special, _where(both_inf, 1.0, 0.0), num / _where(special, 1.0, den))
    r = _atan01(q)
    r = _where(swap, math.pi / 2 - r, r)
    r = _where(signbit(x), math.pi - r, r)
    r = _where(signbit(y), -r, r)
    return with_nan_gradient(r, (x == 0) & (y == 0), x, y)  # torch: x / (x^2 + y^2) = 0/0 at (0, 0)


def _sqrt_one_minus_square(x):
    """sqrt(1 - x^2) as sqrt(1 - x) sqrt(1 + x): no cancellation near +-1, NaN past them, and at +-1 the
    derivative is -+inf (that of sqrt((1 - x)(1 + x)) would be inf * 0 = NaN there)."""
    return (1.0 - x).sqrt() * (1.0 + x).sqrt()


def asin(input, *, out=None):
    x = _floating("asin", input)
    return atan2(x, _sqrt_one_minus_square(x))


def acos(input, *, out=None):
    x = _floating("acos", input)
    return atan2(_sqrt_one_minus_square(x), x)


def hypot(input, other, *, out=None):
    a, b = _binary_float("hypot", input, other)
    a, b = a.abs(), b.abs()
    hi = _C.maximum(a, b)
    lo = _C.minimum(a, b)
    ok = (hi > 0) & hi.isfinite()
    safe_hi = _where(ok, hi, 1.0)
    q = _where(ok, lo, 0.0) / safe_hi
    r = safe_hi * (q * q + 1.0).sqrt()
    inf = (a == math.inf) | (b == math.inf)  # hypot(inf, nan) = inf, as C's hypot
    r = _where(ok, r, hi)
    r = _where(inf, math.inf, r)
    return with_nan_gradient(r, hi == 0, a, b)  # torch: x / hypot(x, y) = 0/0 at (0, 0)


def rad2deg(input, *, out=None):
    return _floating("rad2deg", input) * (180.0 / math.pi)


def deg2rad(input, *, out=None):
    return _floating("deg2rad", input) * (math.pi / 180.0)


# ---------------------------------------------------------------- exponential and logarithmic
def exp2(input, *, out=None):
    return 2.0 ** _floating("exp2", input)


def logaddexp(input, other, *, out=None):
    a, b = _binary_float("logaddexp", input, other)
    tie = a == b  # also +-inf pairs, whose difference is NaN
    d = _where(tie, 0.0, a - b)
    m = _C.maximum(a, b)
    r = m + (-d.abs()).exp().log1p()
    return _where(tie, a * 0.5 + b * 0.5 + _LN2, r)


def logaddexp2(input, other, *, out=None):
    a, b = _binary_float("logaddexp2", input, other)
    tie = a == b
    d = _where(tie, 0.0, a - b)
    m = _C.maximum(a, b)
    r = m + (2.0 ** (-d.abs())).log1p() * (1.0 / _LN2)
    return _where(tie, a * 0.5 + b * 0.5 + 1.0, r)


def _xlog(x, y, log_y):
    """x * log_y, 0 where x == 0 (unless y is NaN). Gradients as PyTorch: d/dx = log_y except 0 where x == 0
    and log_y is not finite; d/dy flows through log_y."""
    lf = _where(log_y.isfinite(), log_y, 0.0)
    # one product: a where() over x * lf and x * log_y would send the zero gradient of the discarded branch
    # through log_y (0 * NaN = NaN for y < 0)
    r = x * _where(x == 0, lf, log_y)
    return _where(y.isnan(), math.nan, r)


def xlogy(input, other, *, out=None):
    x, y = _binary_float("xlogy", input, other)
    return _xlog(x, y, y.log())


def xlog1py(input, other, *, out=None):
    x, y = _binary_float("xlog1py", input, other)
    return _xlog(x, y, y.log1p())


def logit(input, eps=None, *, out=None):
    x = _floating("logit", input)
    if eps is not None:
        x = x.clamp(eps, 1.0 - eps)
    # log(x/(1-x)) as log1p of an exactly computed ratio (2x-1 and 1-x are exact near 1/2): no cancellation.
    top = x >= 0.75
    hi = (x >= 0.5) & ~top
    mid = (x >= 0.25) & (x < 0.5)
    xt = _where(top, x, 0.875)
    xh = _where(hi, x, 0.625)
    xm = _where(mid, x, 0.375)
    xl = _where(x < 0.25, x, 0.125)
    r_lo = xl.log() - (-xl).log1p()  # |log x| > 4 |log1p(-x)| here: no cancellation, no overflow near 0
    r = _where(mid, -((1.0 - 2.0 * xm) / xm).log1p(), r_lo)
    r = _where(hi, ((2.0 * xh - 1.0) / (1.0 - xh)).log1p(), r)
    # From 3/4 on, log x - log1p(-x) (|log x| < |log1p(-x)| / 4: no cancellation): its derivative at 1 is inf,
    # torch's, where the ratio's is 0 * inf = NaN.
    r = _where(top, xt.log() - (-xt).log1p(), r)
    # torch's derivative is NaN outside [0, 1] (and so is the value)
    r = r * _where((x < 0) | (x > 1), math.nan, 1.0)
    return _where(x.isnan(), x, r)


def float_power(input, exponent, *, out=None):
    if isinstance(input, Tensor):
        base = input.to(_C.float64)
        return base.pow(exponent.to(_C.float64) if isinstance(exponent, Tensor) else float(exponent))
    if not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected at least one Tensor argument")
    return float(input) ** exponent.to(_C.float64)


def sinc(input, *, out=None):
    x = _floating("sinc", input)
    z = x == 0
    xs = _where(z, 1.0, x)
    # sin(pi*x) = sin(pi*r) with r = x - 2*round(x/2) computed exactly: no error from rounding pi*x, and
    # exact zeros at the integers (PyTorch rounds pi*x first; see docs/python.md).
    r = xs - 2.0 * (xs * 0.5).round()  # in [-1, 1]; then reflect into [-1/2, 1/2] (both exact)
    r = _where(r > 0.5, 1.0 - r, _where(r < -0.5, -1.0 - r, r))
    return _where(z, 1.0, (r * math.pi).sin() / (xs * math.pi))


# erfc for x >= 1/2: erfc(x) = t * exp(-x^2 + g(t)), t = 2/(2+x), with g(t) = log(erfc(x) e^(x^2) / t) a smooth
# function on t in (0, 0.8] given by its Chebyshev series in y = 2t/0.8 - 1. The coefficients were computed
# for this file with mpmath (50 digits, 48 Chebyshev nodes) and truncated where they fall below 1e-19.
_ERFC_CHEB = (
    -0.78318707272406001075,
    0.50589479331734063557,
    0.020165332295700412083,
    -0.0041507842704837142096,
    -0.00069293930331318289989,
    0.000080613044480901667662,
    0.000025850999510766173011,
    -2.4532413619366539537e-6,
    -1.0665628949056516525e-6,
    1.0956136201272647008e-7,
    4.6182837214229254091e-8,
    -6.3050891373696668478e-9,
    -1.9633309872353594988e-9,
    3.9793711163649332971e-10,
    7.3597120815386668404e-11,
    -2.4619582503772173823e-11,
    -1.7696477486824439385e-12,
    1.3810080809606213547e-12,
    -4.6002066179630267403e-14,
    -6.3804840465520989799e-14,
    9.937718418245514199e-15,
    1.8569583472104992197e-15,
    -7.7079563859333715162e-16,
    3.1621351296209296194e-17,
    3.448945247480971428e-17,
    -8.6254388665106326505e-18,
    -1.1313151778630991441e-19,
    5.6053288146961416829e-19,
)


def _erfc_tail(x):
    """erfc(x) for x in [1/2, 30] (clamped by the caller), accurate to a few ulp in relative terms."""
    t = 2.0 / (2.0 + x)
    y = t * (2.0 / 0.8) - 1.0
    b1 = b2 = None
    for c in reversed(_ERFC_CHEB[1:]):  # Clenshaw
        if b1 is None:
            b1, b2 = y * 0.0 + c, y * 0.0
        else:
            b1, b2 = 2.0 * y * b1 - b2 + c, b1
    g = y * b1 - b2 + _ERFC_CHEB[0]
    # exp(-x^2) without the x^2 rounding error (relative x^2 * eps): x = m + (x - m), m on a 1/32 grid, so
    # m^2 is exact and -(x - m)(x + m) is small.
    m = (x * 32.0).round() / 32.0
    return t * (-(m * m)).exp() * ((x + m) * (m - x) + g).exp()


def erfc(input, *, out=None):
    """1 - erf(x) without the cancellation: 1 - erf(x) below 1/2, a Chebyshev tail above, 2 - erfc(-x) for
    negative x."""
    x = _floating("erfc", input)
    a = x.abs()
    tail = _erfc_tail(a.clamp(0.5, 30.0))
    tail = _where(a > 30.0, 0.0, tail)
    small = 1.0 - x.clamp(-0.5, 0.5).erf()
    r = _where(x < 0, 2.0 - tail, tail)
    r = _where(a < 0.5, small, r)
    return _where(x.isnan(), x, r)


# ---------------------------------------------------------------- classification and sign
def sgn(input, *, out=None):
    _check("sgn", input)
    return input.sign()


def positive(input):
    _check("positive", input)
    if input.dtype == _C.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def isinf(input):
    _check("isinf", input)
    if not input.dtype.is_floating_point:
        return input != input
    return input.abs() == math.inf


def isposinf(input, *, out=None):
    _check("isposinf", input)
    if not input.dtype.is_floating_point:
        return input != input
    return input == math.inf


def isneginf(input, *, out=None):
    _check("isneginf", input)
    if not input.dtype.is_floating_point:
        return input != input
    return input == -math.inf


def signbit(input, *, out=None):
    """x < 0, or x is -0.0 (1/x is -inf). The sign bit of a NaN cannot be read with these ops: NaN gives False."""
    _check("signbit", input)
    if not input.dtype.is_floating_point:
        return input < 0
    x = input.detach()
    return (x < 0) | ((x == 0) & (x.reciprocal() < 0))


def copysign(input, other, *, out=None):
    a, b = _binary_float("copysign", input, other)
    mag = a.abs()
    out = _where(signbit(b), -mag, mag)
    if b.requires_grad:
        # The sign's gradient is zero (torch returns zeros for `other`, not "unused"):
        # sign(b) is finite, NaN included, so the term adds exactly 0.
        out = out + b.sign() * 0.0
    return out


def heaviside(input, values, *, out=None):
    _check("heaviside", input)
    if not isinstance(values, Tensor):
        raise TypeError("heaviside(): argument 'values' (position 2) must be Tensor, not {}".format(
            type(values).__name__))
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    out = _where(input == 0, values, (input > 0).to(input.dtype))
    return out.to(input.dtype)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    _check("nan_to_num", input)
    if not input.dtype.is_floating_point:
        return input.clone()
    fi = finfo(input.dtype)
    posinf = fi.max if posinf is None else posinf
    neginf = fi.min if neginf is None else neginf
    x = input
    r = _where(x == math.inf, float(posinf), x)
    r = _where(x == -math.inf, float(neginf), r)
    return _where(x.isnan(), float(nan), r).to(input.dtype)


def _binary_tensors(name, input, other):
    _check(name, input)
    _check(name, other, "other", 2)
    _broadcast_shape(name, input.shape, other.shape)
    dt = _result_type(input, other)
    return input.to(dt), other.to(dt)


def fmax(input, other):
    """Elementwise max that ignores NaN (NaN only where both are NaN). The gradient goes to input where
    input >= other or other is NaN, to other elsewhere, as PyTorch."""
    a, b = _binary_tensors("fmax", input, other)
    if a.dtype == _C.bool:
        return a.logical_or(b)
    pick = a >= b
    if a.dtype.is_floating_point:
        pick = pick | b.isnan()
    return _where(pick, a, b)


def fmin(input, other):
    """Elementwise min that ignores NaN (see fmax)."""
    a, b = _binary_tensors("fmin", input, other)
    if a.dtype == _C.bool:
        return a.logical_and(b)
    pick = a <= b
    if a.dtype.is_floating_point:
        pick = pick | b.isnan()
    return _where(pick, a, b)


def ldexp(input, other):
    """input * 2**other, computed as PyTorch does (2**other in other's floating type: float32 for integers)."""
    _check("ldexp", input)
    _check("ldexp", other, "other", 2)
    _broadcast_shape("ldexp", input.shape, other.shape)
    return input * (2.0 ** other)


def isreal(input):
    """All True: lazytensor has no complex dtypes."""
    _check("isreal", input)
    return _C.ones(*input.shape, dtype=_C.bool)


# ---------------------------------------------------------------- division and rounding
def _as_tensor_like(x, ref):
    if isinstance(x, Tensor):
        return x
    return tensor(x)


def _integer_result_dtype(a, b):
    """torch's result dtype of two integer or bool operands (Python ints or tensors): a 0-d tensor
    yields to a dimensioned one, as a Python number does (100 % int32 tensor is int32)."""
    ts = [x for x in (a, b) if isinstance(x, Tensor)]
    if len(ts) == 2 and (ts[0].dim() == 0) != (ts[1].dim() == 0):
        ts = [t for t in ts if t.dim() > 0]
    out = ts[0].dtype if len(ts) == 1 else _C.promote_types(ts[0].dtype, ts[1].dtype)
    return _C.int64 if out == _C.bool else out


def floor_divide(a, b):
    dt = [x.dtype for x in (a, b) if isinstance(x, Tensor)]
    ints = all(not d.is_floating_point for d in dt) and not any(
        isinstance(x, float) for x in (a, b) if not isinstance(x, Tensor))
    if ints:
        # Integer operands divide in float64: int/int is float32 otherwise, which rounds quotients of
        # operands above 2**24 (123456789 // 10 gave 12345679); float64 is exact below 2**53.
        a64 = a.to(_C.float64) if isinstance(a, Tensor) else float(a)
        b64 = b.to(_C.float64) if isinstance(b, Tensor) else float(b)
        q = (a64 / b64).floor()
        return q.to(_integer_result_dtype(a, b))
    return (a / b).floor()


def _div_rounding(a, b, rounding_mode):
    """div(a, b, rounding_mode="floor" / "trunc") (the C++ div calls this for a rounding mode): the quotient
    rounded down or toward zero, in the operands' promoted dtype, as PyTorch, whose gradient is 0 (not the
    NaN that the chain rule gives through a / b at b = 0)."""
    r = _div_rounded(a, b, rounding_mode)
    grads = [t for t in (a, b) if isinstance(t, Tensor) and t.requires_grad]
    if not (grads and r.dtype.is_floating_point and _C.is_grad_enabled()):
        return r
    r = r.detach()
    for t in grads:  # + (-0.0) changes no value (-0.0 included); sign's gradient is 0
        r = r + t.sign().abs() * -0.0
    return r


def _div_rounded(a, b, rounding_mode):
    if rounding_mode == "floor":
        return floor_divide(a, b)
    dt = [x.dtype for x in (a, b) if isinstance(x, Tensor)]
    ints = all(not d.is_floating_point for d in dt) and not any(
        isinstance(x, float) for x in (a, b) if not isinstance(x, Tensor))
    if ints:
        a64 = a.to(_C.float64) if isinstance(a, Tensor) else float(a)
        b64 = b.to(_C.float64) if isinstance(b, Tensor) else float(b)
        return trunc(a64 / b64).to(_integer_result_dtype(a, b))
    return trunc(a / b)


def remainder(a, b):
    dt = [x.dtype for x in (a, b) if isinstance(x, Tensor)]
    ints = all(not d.is_floating_point for d in dt) and not any(
        isinstance(x, float) for x in (a, b) if not isinstance(x, Tensor))
    if ints:
        return a - floor_divide(a, b) * b
    # Floats: PyTorch's rule, C fmod then + b where the result's sign differs from b's, on the
    # exact fmod (a - floor(a/b)*b in float32 gave 7 % 0.1 == 0, PyTorch 0.0999999).
    out_dtype = _mod_dtype(a, b)
    a64, b64, r = _exact_fmod(a, b)
    wrong_side = _C._where3(b64 < 0, r > 0, r < 0) if isinstance(b, Tensor) else ((r > 0) if b64 < 0 else (r < 0))
    r = _C._where3(wrong_side, r + b64, r)
    value = r.to(out_dtype)
    if not _mod_needs_grad(a, b, out_dtype):
        return value
    # PyTorch's gradient for b is -div(a, b, rounding_mode="floor"), an exact floor: (a - r) / b is an
    # integer up to rounding in float64. At b = 0, r is NaN and the floor is a / b's (+-inf, NaN for 0 / 0).
    def quotient():
        return _C._where3(b64 == 0, (a64 / b64).floor(), ((a64 - r) / b64).round()).to(out_dtype)
    return _with_mod_grads(value, a, b, out_dtype, quotient)


def trunc(input, *, out=None):
    if not input.dtype.is_floating_point:
        return input.clone()
    return _C._where3(input >= 0, input.floor(), input.ceil())


def frac(input, *, out=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError('frac: "frac_cpu" not implemented for \'{}\' (a floating point input is expected)'.format(
            input.dtype))
    return input - trunc(input)


def _mod_dtype(input, other):
    a_t = isinstance(input, Tensor)
    ref = input if a_t else other
    if not isinstance(other, Tensor):
        out_dtype = ref.dtype if (ref.dtype.is_floating_point or not isinstance(other, builtins.float)) \
            else _C.float32
    else:
        out_dtype = _C.promote_types(input.dtype, other.dtype) if a_t else other.dtype
    return _C.int64 if out_dtype == _C.bool else out_dtype


def _exact_fmod(input, other):
    """(a, b, r) in float64, operands detached: r = C fmod(a, b), exact for |a/b| < 2**29 when the
    operands are float32 or integers (below 2**53), with the sign of a on a zero result."""
    a = input.detach().to(_C.float64) if isinstance(input, Tensor) else builtins.float(input)
    b = other.detach().to(_C.float64) if isinstance(other, Tensor) else builtins.float(other)
    r = a - trunc(a / b) * b
    return a, b, _C._where3(r == 0, a * 0.0, r)


def _with_mod_grads(value, input, other, out_dtype, quotient):
    """value (no graph) plus straight-through terms, exactly zero in the forward, whose gradients are
    PyTorch's: 1 for input, -quotient for other."""
    out = value
    if isinstance(input, Tensor) and input.requires_grad:
        ai = input.to(out_dtype)
        out = out + (ai - ai.detach())
    if isinstance(other, Tensor) and other.requires_grad:
        bo = other.to(out_dtype)
        out = out - quotient() * (bo - bo.detach())
    return out


def _mod_needs_grad(input, other, out_dtype):
    return out_dtype.is_floating_point and _C.is_grad_enabled() and any(
        isinstance(t, Tensor) and t.requires_grad for t in (input, other))


def fmod(input, other, *, out=None):
    """C fmod: input - trunc(input / other) * other, sign of input.

    float32 (and integer) operands are computed in float64, where trunc(a/b)*b and the
    subtraction are exact for |a/b| < 2**29, so the result is PyTorch's bit for bit there;
    float64 operands use the same formula in float64 (exact unless |a/b| is huge).
    Integer division by zero is not detected (PyTorch raises; that would need a sync).
    """
    out_dtype = _mod_dtype(input, other)
    _, _, r = _exact_fmod(input, other)
    r = r.to(out_dtype)
    if not _mod_needs_grad(input, other, out_dtype):
        return r
    # PyTorch's gradient for other is -trunc(input / other) with the quotient divided in the operands'
    # dtype (it can differ from the exact one behind the value: 7 / 0.1f rounds to 70).
    def quotient():
        a = input.detach().to(out_dtype) if isinstance(input, Tensor) else builtins.float(input)
        return trunc(a / other.detach().to(out_dtype))
    return _with_mod_grads(r, input, other, out_dtype, quotient)


def logical_xor(input, other, *, out=None):
    a = input if input.dtype == _C.bool else input != 0
    b = other if other.dtype == _C.bool else other != 0
    return a != b


def round(input, *, decimals=0, out=None):  # noqa: A001
    """PyTorch's rule: round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d for negative d."""
    if not decimals:
        return input.round()
    if decimals > 0:
        p = 10.0 ** decimals
        return (input * p).round() / p
    p = 10.0 ** -decimals
    return (input / p).round() * p


_MATH = ["erfc", "sinh", "cosh", "tan", "asinh", "acosh", "atanh", "atan", "asin", "acos", "atan2", "hypot",
         "logaddexp", "logaddexp2", "exp2", "sgn", "nan_to_num", "isinf", "isposinf", "isneginf", "signbit",
         "copysign", "heaviside", "logit", "xlogy", "float_power", "positive", "rad2deg", "deg2rad", "sinc"]
# arcsinh etc. are PyTorch aliases of the same functions.
_ALIASES = {"arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "arctan": "atan", "arcsin": "asin",
            "arccos": "acos", "arctan2": "atan2"}

# The out= argument, honoured (torch.positive and torch.isinf have none).
for _n in _MATH + ["xlog1py", "fmax", "fmin", "ldexp", "trunc", "frac", "fmod", "logical_xor", "round"]:
    if _n not in ("positive", "isinf"):
        globals()[_n] = _with_out(globals()[_n])
fix = trunc
for _n, _target in _ALIASES.items():
    globals()[_n] = globals()[_target]
del _n, _target

_tensor_pow = _C.pow  # the C++ torch.pow, whose base must be a tensor


def pow(input=None, exponent=None, **kwargs):
    """torch.pow(tensor, exponent) as the C++ op, and torch.pow(number, tensor) (also `self=number`) as
    `number ** tensor`: PyTorch's Scalar-base overload, with its result dtype."""
    if "self" in kwargs:
        input = kwargs.pop("self")
    if kwargs:
        raise TypeError("pow() got an unexpected keyword argument '{}'".format(next(iter(kwargs))))
    if isinstance(input, Tensor):
        return _tensor_pow(input, exponent)
    if not isinstance(exponent, Tensor) or not isinstance(input, (builtins.bool, builtins.int, builtins.float,
                                                                  np.number)):
        raise TypeError("pow(): expected (Tensor input, Tensor or Number exponent) or (Number self, Tensor "
                        "exponent), but got ({}, {})".format(type(input).__name__, type(exponent).__name__))
    return exponent.__rpow__(input)


__all__ = _MATH + list(_ALIASES) + ["fmax", "fmin", "ldexp", "isreal", "floor_divide", "remainder", "trunc", "fix",
                                    "frac", "fmod", "logical_xor", "round", "pow"]
