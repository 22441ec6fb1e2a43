"""Modified Bessel functions of the first kind (torch.i0; torch.special.i0, i0e, i1, i1e,
modified_bessel_i0, modified_bessel_i1) and spherical_bessel_j0, in float64 from existing lazy ops (see _special_values.py).

Up to |x| = 25 the power series sum (x^2/4)^k / (k! (k + nu)!) to k = 45 (positive terms: no
cancellation; the terms left out are below 1e-18 of the sum); above, the asymptotic series
e^|x| / sqrt(2 pi |x|) sum_k prod_{j<=k} ((2j-1)^2 - 4 nu^2) / (k! (8|x|)^k) to k = 30 (its smallest term
there is below 1e-20). The scaled forms (i0e, i1e) never form e^|x|, so they stay finite for every x.
"""
import math

from ._out import _with_out
from ._function_args import _where
from ._special_values import polynomial, special_unary

_SERIES_TERMS, _ASYMPTOTIC_TERMS, _SWITCH = 45, 30, 25.0


def _series_coefficients(nu):
    return [1.0 / (math.factorial(k) * math.factorial(k + nu)) for k in range(_SERIES_TERMS + 1)]


def _asymptotic_coefficients(nu):
    out, c = [1.0], 1.0
    for k in range(1, _ASYMPTOTIC_TERMS + 1):
        c *= ((2 * k - 1) ** 2 - 4 * nu * nu) / (k * 8.0)
        out.append(c)
    return out


_SERIES = {nu: _series_coefficients(nu) for nu in (0, 1)}
_ASYMPTOTIC = {nu: _asymptotic_coefficients(nu) for nu in (0, 1)}


def _scaled(nu, x):
    """e^-|x| I_nu(|x|) for float64 x."""
    a = x.abs()
    s = a.clamp(None, _SWITCH)
    series = polynomial(_SERIES[nu], 0.25 * s * s) * (-s).exp()
    if nu == 1:
        series = series * (0.5 * s)
    big = a.clamp(_SWITCH, None)
    asymptotic = polynomial(_ASYMPTOTIC[nu], 1.0 / big) / (2.0 * math.pi * big).sqrt()
    return _where(a > _SWITCH, asymptotic, series)


def _odd(x, v):
    return _where(x < 0, -v, v)


def _i0e64(x):
    return _scaled(0, x)


def _i1e64(x):
    return _odd(x, _scaled(1, x))


def _i0_64(x):
    return _scaled(0, x) * x.abs().exp()


def _i1_64(x):
    return _odd(x, _scaled(1, x) * x.abs().exp())


def i0(input, *, out=None):
    return special_unary("i0", input, _i0_64, lambda x, v: _i1_64(x))


def i0e(input, *, out=None):
    return special_unary("i0e", input, _i0e64, lambda x, v: _i1e64(x) - x.sign() * v)


def i1(input, *, out=None):
    # PyTorch: i0(x) - i1(x) / x, 1/2 at 0.
    def derivative(x, v):
        safe = _where(x == 0, 1.0, x)
        return _where(x == 0, 0.5, _i0_64(x) - v / safe)
    return special_unary("i1", input, _i1_64, derivative)


def i1e(input, *, out=None):
    def derivative(x, v):
        safe = _where(x == 0, 1.0, x)
        return _where(x == 0, 0.5, _i0e64(x) - v * (x.sign() + 1.0 / safe))
    return special_unary("i1e", input, _i1e64, derivative)


def modified_bessel_i0(input, *, out=None):
    return special_unary("modified_bessel_i0", input, _i0_64)  # i0's values; no derivative, as PyTorch


def modified_bessel_i1(input, *, out=None):
    return special_unary("modified_bessel_i1", input, _i1_64)


_J0_SERIES = [1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800]


def _spherical_j0_64(x):
    small = polynomial(_J0_SERIES, x * x)
    safe = _where(x.abs() < 0.5, 1.0, x)
    r = _where(x.abs() < 0.5, small, safe.sin() / safe)
    return _where(x.isinf(), 0.0, r)


def spherical_bessel_j0(input, *, out=None):
    return special_unary("spherical_bessel_j0", input, _spherical_j0_64)  # no derivative, as PyTorch


i0, i0e, i1, i1e, modified_bessel_i0, modified_bessel_i1, spherical_bessel_j0 = (
    _with_out(f) for f in (i0, i0e, i1, i1e, modified_bessel_i0, modified_bessel_i1, spherical_bessel_j0))

__all__ = ["i0"]
