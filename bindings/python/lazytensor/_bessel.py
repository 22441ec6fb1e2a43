"""Bessel functions (torch.i0; torch.special.i0, i0e, i1, i1e, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, bessel_j0/j1/y0/y1) and spherical_bessel_j0, in float64 from existing lazy ops (see _special_values.py).

Up to |x| = 25 the power series sum (x^2/4)^k / (k! (k + nu)!) to k = 45 (positive terms: no
cancellation; the terms left out are below 1e-18 of the sum); above, the asymptotic series
e^|x| / sqrt(2 pi |x|) sum_k prod_{j<=k} ((2j-1)^2 - 4 nu^2) / (k! (8|x|)^k) to k = 30 (its smallest term
there is below 1e-20). The scaled forms (i0e, i1e) never form e^|x|, so they stay finite for every x. K, J and Y: below.
"""
import math

from ._out import _with_out
from ._function_args import _where
from ._special_values import polynomial, special_unary

_SERIES_TERMS, _ASYMPTOTIC_TERMS, _SWITCH = 45, 30, 25.0
INF = float("inf")


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


# ---- K0, K1 (torch.special.modified_bessel_k0/k1 and their scaled forms; no derivative, as PyTorch).
# Up to x = 2 the series K0 = -(log(x/2) + gamma) I0 + sum t^k H_k / k!^2 and K1 = 1/x + log(x/2) I1 -
# (x/4) sum (psi(k+1) + psi(k+2)) t^k / (k! (k+1)!), t = x^2/4 (30 terms; they cancel by at most a factor
# of 12); up to 25 the trapezoidal rule on e^x K_nu(x) = int_0^inf e^(-x (cosh s - 1)) cosh(nu s) ds, step
# 1/10 to s = 4 (the integrand is analytic in a strip: the error is below e^-50 of the value); above 25
# the asymptotic series sqrt(pi / 2x) sum (-1)^k c_k(nu) x^-k (30 terms).
_EULER_GAMMA = 0.57721566490153286061
_K_SERIES_TERMS = 30


def _harmonic(n):
    return math.fsum(1.0 / j for j in range(1, n + 1))


_K0_SERIES = [_harmonic(k) / math.factorial(k) ** 2 for k in range(_K_SERIES_TERMS)]
_K1_SERIES = [(2.0 * _harmonic(k) + 1.0 / (k + 1) - 2.0 * _EULER_GAMMA) / (math.factorial(k) * math.factorial(k + 1))
              for k in range(_K_SERIES_TERMS)]
_K_NODES = [j / 10.0 for j in range(41)]


def _scaled_k64(nu, x):
    """e^x K_nu(x) for float64 x: inf at 0, NaN below, 0 at inf."""
    small = x.clamp(1e-300, 2.0)
    t = 0.25 * small * small
    log_half = (0.5 * small).log()
    if nu == 0:
        series = -(log_half + _EULER_GAMMA) * _i0_64(small) + polynomial(_K0_SERIES, t)
    else:
        series = 1.0 / small + log_half * _i1_64(small) - 0.25 * small * polynomial(_K1_SERIES, t)
    series = series * small.exp()
    mid = x.clamp(2.0, _SWITCH)
    trapezoid = None
    for j, s in enumerate(_K_NODES):
        f = (-mid * (math.cosh(s) - 1.0)).exp() * (math.cosh(nu * s) * (0.5 if j == 0 else 1.0))
        trapezoid = f if trapezoid is None else trapezoid + f
    trapezoid = trapezoid * 0.1
    big = x.clamp(_SWITCH, None)
    signed = [(-1.0) ** k * c for k, c in enumerate(_ASYMPTOTIC[nu])]
    asymptotic = polynomial(signed, 1.0 / big) * (math.pi / (2.0 * big)).sqrt()
    r = _where(x <= 2.0, series, _where(x <= _SWITCH, trapezoid, asymptotic))
    r = _where(x == 0, float("inf"), r)
    return _where(x < 0, float("nan"), r)


def modified_bessel_k0(input, *, out=None):
    return special_unary("modified_bessel_k0", input, lambda x: _scaled_k64(0, x) * (-x).exp())


def modified_bessel_k1(input, *, out=None):
    return special_unary("modified_bessel_k1", input, lambda x: _scaled_k64(1, x) * (-x).exp())


def scaled_modified_bessel_k0(input, *, out=None):
    return special_unary("scaled_modified_bessel_k0", input, lambda x: _scaled_k64(0, x))


def scaled_modified_bessel_k1(input, *, out=None):
    return special_unary("scaled_modified_bessel_k1", input, lambda x: _scaled_k64(1, x))


# ---- J0, J1 (torch.special.bessel_j0/j1; no derivative, as PyTorch). Up to |x| = 25 Bessel's integral
# J_n(x) = 1/(2 pi) int_0^2pi cos(n t - x sin t) dt by the trapezoidal rule on 80 points (exact for a
# periodic integrand up to J_(80-n)(x) < 1e-30; 41 cosines by symmetry); above, Hankel's expansion
# sqrt(2 / (pi x)) (P cos chi - Q sin chi), chi = x - (n/2 + 1/4) pi, with cos chi and sin chi expanded
# into cos x and sin x, so no rounding of x - chi enters (PyTorch's cephes subtracts: ~ulp(x) there).
_J_POINTS = 80


def _hankel_coefficients(nu, terms=30):
    out, c = [1.0], 1.0
    for k in range(1, terms + 1):
        c *= (4 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0)
        out.append(c)
    return out


_HANKEL = {nu: _hankel_coefficients(nu) for nu in (0, 1)}


def _bessel_j64(nu, x):
    a = x.abs()
    s = a.clamp(None, _SWITCH)
    total = None
    for j in range(_J_POINTS // 2 + 1):
        t = 2.0 * math.pi * j / _J_POINTS
        weight = 1.0 if j in (0, _J_POINTS // 2) else 2.0
        term = (nu * t - s * math.sin(t)).cos() * weight if nu else (s * math.sin(t)).cos() * weight
        total = term if total is None else total + term
    integral = total / _J_POINTS
    big = a.clamp(_SWITCH, None)
    c = _HANKEL[nu]
    inv = 1.0 / big
    inv2 = inv * inv
    p = polynomial([(-1.0) ** k * c[2 * k] for k in range(len(c) // 2)], inv2)
    q = polynomial([(-1.0) ** k * c[2 * k + 1] for k in range(len(c) // 2)], inv2) * inv
    phase = (nu / 2.0 + 0.25) * math.pi
    cos_x, sin_x = big.cos(), big.sin()
    cos_chi = cos_x * math.cos(phase) + sin_x * math.sin(phase)
    sin_chi = sin_x * math.cos(phase) - cos_x * math.sin(phase)
    hankel = (2.0 / (math.pi * big)).sqrt() * (p * cos_chi - q * sin_chi)
    r = _where(a > _SWITCH, hankel, integral)
    r = _where(a.isinf(), 0.0, r)
    return _odd(x, r) if nu == 1 else r


def bessel_j0(input, *, out=None):
    return special_unary("bessel_j0", input, lambda x: _bessel_j64(0, x))


def bessel_j1(input, *, out=None):
    return special_unary("bessel_j1", input, lambda x: _bessel_j64(1, x))


# ---- Y0, Y1 (torch.special.bessel_y0/y1; no derivative, as PyTorch). Up to x = 25 Neumann's series
# Y0 = (2/pi)(log(x/2) + gamma) J0 - (4/pi) sum_k (-1)^k J_2k / k and Y1 = -Y0' (the same with J_(2k-1) -
# J_(2k+1)), to k = 40, each J_m the trapezoidal rule above on 160 points. The sums over k of the
# nodes' cos(m t) and sin(m t) are constants, so the whole series is one weighted sum of cos(x sin t)
# and sin(x sin t) at 81 nodes. Above 25, Hankel's expansion sqrt(2 / (pi x)) (P sin chi + Q cos chi).
_Y_POINTS, _Y_ORDERS = 160, 40


def _neumann_weights():
    """Per node j of [0, pi]: its t and the weights of cos(x sin t), sin(x sin t) in J0, J1, the Y0 sum and the
    Y1 sum (the trapezoidal weight included)."""
    rows = []
    for j in range(_Y_POINTS // 2 + 1):
        t = 2.0 * math.pi * j / _Y_POINTS
        w = (1.0 if j in (0, _Y_POINTS // 2) else 2.0) / _Y_POINTS
        ks = range(1, _Y_ORDERS + 1)
        y0c = math.fsum((-1.0) ** k * math.cos(2 * k * t) / k for k in ks)
        y0s = math.fsum((-1.0) ** k * math.sin(2 * k * t) / k for k in ks)
        y1c = math.fsum((-1.0) ** k * (math.cos((2 * k - 1) * t) - math.cos((2 * k + 1) * t)) / k for k in ks)
        y1s = math.fsum((-1.0) ** k * (math.sin((2 * k - 1) * t) - math.sin((2 * k + 1) * t)) / k for k in ks)
        rows.append((math.sin(t), w, w * math.cos(t), w * math.sin(t), w * y0c, w * y0s, w * y1c, w * y1s))
    return rows


_NEUMANN = _neumann_weights()


def _bessel_y64(nu, x):
    s = x.clamp(1e-300, _SWITCH)
    j0 = j1 = series = None
    for sin_t, w, w_cos, w_sin, y0c, y0s, y1c, y1s in _NEUMANN:
        c, sn = (s * sin_t).cos(), (s * sin_t).sin()
        terms = (w * c, w_cos * c + w_sin * sn, (y0c * c + y0s * sn) if nu == 0 else (y1c * c + y1s * sn))
        if j0 is None:
            j0, j1, series = terms
        else:
            j0, j1, series = j0 + terms[0], j1 + terms[1], series + terms[2]
    log_term = (0.5 * s).log() + _EULER_GAMMA
    if nu == 0:
        neumann = (2.0 / math.pi) * log_term * j0 - (4.0 / math.pi) * series
    else:
        neumann = -(2.0 / math.pi) * (j0 / s - log_term * j1) + (2.0 / math.pi) * series
    big = x.clamp(_SWITCH, None)
    c = _HANKEL[nu]
    inv = 1.0 / big
    inv2 = inv * inv
    p = polynomial([(-1.0) ** k * c[2 * k] for k in range(len(c) // 2)], inv2)
    q = polynomial([(-1.0) ** k * c[2 * k + 1] for k in range(len(c) // 2)], inv2) * inv
    phase = (nu / 2.0 + 0.25) * math.pi
    cos_x, sin_x = big.cos(), big.sin()
    cos_chi = cos_x * math.cos(phase) + sin_x * math.sin(phase)
    sin_chi = sin_x * math.cos(phase) - cos_x * math.sin(phase)
    hankel = (2.0 / (math.pi * big)).sqrt() * (p * sin_chi + q * cos_chi)
    r = _where(x > _SWITCH, hankel, neumann)
    r = _where(x == INF, 0.0, _where(x == 0, -INF, r))
    return _where(x < 0, float("nan"), r)


def bessel_y0(input, *, out=None):
    return special_unary("bessel_y0", input, lambda x: _bessel_y64(0, x))


def bessel_y1(input, *, out=None):
    return special_unary("bessel_y1", input, lambda x: _bessel_y64(1, x))


_J0_SERIES = [1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800]


def _spherical_j0_64(x):
    small = polynomial(_J0_SERIES, x * x)
    safe = _where(x.abs() < 0.5, 1.0, x)
    r = _where(x.abs() < 0.5, small, safe.sin() / safe)
    return _where(x.isinf(), 0.0, r)


def spherical_bessel_j0(input, *, out=None):
    return special_unary("spherical_bessel_j0", input, _spherical_j0_64)  # no derivative, as PyTorch


(i0, i0e, i1, i1e, modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1,
 scaled_modified_bessel_k0, scaled_modified_bessel_k1, bessel_j0, bessel_j1, bessel_y0, bessel_y1,
 spherical_bessel_j0) = (
    _with_out(f) for f in (i0, i0e, i1, i1e, modified_bessel_i0, modified_bessel_i1, modified_bessel_k0,
                           modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1, bessel_j0,
                           bessel_j1, bessel_y0, bessel_y1, spherical_bessel_j0))

__all__ = ["i0"]
