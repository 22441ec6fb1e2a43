"""The error-function family (torch.erfinv; torch.special.erfinv, erfcx, ndtr, ndtri, log_ndtr), in float64
from existing lazy ops (see _special_values.py).

erfcx: exp(x^2) erfc(x) below 10 (erfc is accurate to 1 ulp there), the asymptotic series to x^-24
above. erfinv works on a = |y| with q = 1 - a known exactly (ndtri passes 2p or 2(1 - p), which are
exact, instead of 1 - |2p - 1|): Giles' single-precision guess (an asymptotic one for q < 1e-7), then
four Newton steps on erf(x) - a (a <= 1/2) or on log erfc(x) - log q = log erfcx(x) - x^2 - log q,
which neither cancels near 1 nor underflows down to q = 1e-308. log_ndtr: log1p(-ndtr(-x)) above 0,
log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below (finite down to -1e154, no underflow).
"""
import math

from ._out import _with_out
from ._function_args import _where
from ._special_values import polynomial, special_unary

_SQRT_PI_2 = math.sqrt(math.pi) / 2.0
_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_NAN, _INF = float("nan"), float("inf")
# Giles (2010), single precision: w < 5 and w >= 5.
_GILES_SMALL = [1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
                -3.5233877e-06, 3.43273939e-07, 2.81022636e-08]
_GILES_LARGE = [2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
                0.00134934322, 0.000100950558, -0.000200214257]
# erfcx(x) ~ 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k
_ERFCX_ASYMPTOTIC = [(-1.0) ** k * math.prod(range(1, 2 * k, 2)) / 2.0 ** k for k in range(13)]


def _erfcx64(x):
    big = x.clamp(10.0, None)
    t = 1.0 / (big * big)
    asymptotic = polynomial(_ERFCX_ASYMPTOTIC, t) / (big * math.sqrt(math.pi))
    small = x.clamp(None, 10.0)
    direct = (small * small).exp() * small.erfc()
    return _where(x >= 10.0, asymptotic, direct)


def _erfinv_parts(a, q):
    """erfinv(a) for a = 1 - q in [0, 1] (q given exactly); inf at q = 0, NaN for q < 0 or NaN."""
    qs = q.clamp(1e-308, 1.0)
    w = -(qs * (2.0 - qs)).log()
    small = polynomial(_GILES_SMALL, w - 2.5)
    large = polynomial(_GILES_LARGE, w.clamp(5.0, None).sqrt() - 3.0)
    lq = -qs.log()
    tail = (lq - 0.5 * (math.pi * lq).log()).clamp(0.0, None).sqrt()  # erfc(x) ~ exp(-x^2) / (x sqrt pi)
    x = _where(w < 5.0, small * a, _where(w < 16.0, large * a, tail))
    near_one = a > 0.5
    for _ in range(4):
        xe = x.clamp(None, 0.6)
        step_erf = (xe.erf() - a) * (xe * xe).exp() * _SQRT_PI_2
        xc = x.clamp(0.4, None)
        e = _erfcx64(xc)
        step_erfc = -(e.log() - xc * xc - qs.log()) * e * _SQRT_PI_2
        x = _where(near_one, xc - step_erfc, xe - step_erf)
    x = _where(q == 0, _INF, x)
    return _where((q < 0) | q.isnan() | a.isnan(), _NAN, x)


def _erfinv64(y):
    a = y.abs()
    r = _erfinv_parts(a, 1.0 - a)
    return _where(y < 0, -r, _where(y == 0, y, r))


def _ndtri64(p):
    lower = p < 0.5
    q = _where(lower, 2.0 * p, 2.0 * (1.0 - p))
    r = _erfinv_parts(1.0 - q, q) * math.sqrt(2.0)
    r = _where(lower, -r, r)
    return _where((p < 0) | (p > 1), _NAN, _where(p == 0.5, 0.0, r))


def _log_ndtr64(x):
    t = (-x * _SQRT1_2).clamp(0.0, None)
    below = (0.5 * _erfcx64(t)).log() - t * t
    above = (-0.5 * (x.clamp(0.0, None) * _SQRT1_2).erfc()).log1p()
    return _where(x < 0, below, above)


def erfinv(input, *, out=None):
    return special_unary("erfinv", input, _erfinv64, lambda y, v: (v * v).exp() * _SQRT_PI_2)


def erfcx(input, *, out=None):
    return special_unary("erfcx", input, _erfcx64, lambda x, v: 2.0 * x * v - 2.0 / math.sqrt(math.pi))


def ndtr(input, *, out=None):
    return special_unary("ndtr", input, lambda x: 0.5 * (-x * _SQRT1_2).erfc(),
                         lambda x, v: (-0.5 * x * x).exp() * _INV_SQRT_2PI)


def ndtri(input, *, out=None):
    return special_unary("ndtri", input, _ndtri64, lambda p, v: (0.5 * v * v).exp() * math.sqrt(2.0 * math.pi))


def log_ndtr(input, *, out=None):
    def derivative(x, v):
        # pdf / ndtr: sqrt(2/pi) / erfcx(-x / sqrt 2) below 0, where both underflow.
        t = (-x * _SQRT1_2).clamp(0.0, None)
        below = math.sqrt(2.0 / math.pi) / _erfcx64(t)
        above = (-0.5 * x * x - v).exp() * _INV_SQRT_2PI
        return _where(x < 0, below, above)
    return special_unary("log_ndtr", input, _log_ndtr64, derivative)


erfinv, erfcx, ndtr, ndtri, log_ndtr = (_with_out(f) for f in (erfinv, erfcx, ndtr, ndtri, log_ndtr))

__all__ = ["erfinv"]
