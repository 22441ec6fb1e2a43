"""The gamma family (torch.lgamma, digamma, polygamma, mvlgamma; torch.special.gammaln, psi, zeta,
multigammaln), in float64 from existing lazy ops (see _special_values.py).

lgamma: Lanczos (g = 7, 9 terms; ~1e-15) for x >= 1/2 and the reflection log(pi / |sin(pi x)|) -
lgamma(1 - x) below, with sin(pi x) taken at x - round(x) (exact), so poles give inf. digamma: 10 steps
of psi(x) = psi(x + 1) - 1/x, then the asymptotic series to z^-14; psi(1 - x) - pi / tan(pi x) below 1/2.
zeta (Hurwitz, x > 1): cephes' Euler-Maclaurin sum as PyTorch's, with a fixed number of terms: 9 for
q > 0, and 32 more for negative non-integer q, exact down to q = -23 (PyTorch sums until q + k > 9;
below that it is NaN here). polygamma(n >= 1, x) = (-1)^(n+1) n! zeta(n + 1, x), with the reflection
formula for n = 1 and x < 0. PyTorch 1.13's trigamma (n = 1) is a shorter series, good to ~1e-9
relative; this one is good to ~1e-15 (psi1(1) = pi^2 / 6).
"""
import builtins
import math

from . import _C
from ._C import Tensor
from ._creation import full_like, tensor
from ._out import _with_out
from ._function_args import _broadcast_shape, _check, _where
from ._gradient_terms import with_gradient
from ._pointwise import _floating, copysign
from ._special_values import polynomial, special_unary

_LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7]
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# psi(z) ~ log z - 1/(2z) - sum B_2k / (2k z^2k): the coefficients of z^-2, z^-4, ..., z^-14.
_PSI_ASYMPTOTIC = [0.0, -1.0 / 12, 1.0 / 120, -1.0 / 252, 1.0 / 240, -1.0 / 132, 691.0 / 32760, -1.0 / 12]
_ZETA_A = [12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18]
_NAN, _INF = float("nan"), float("inf")


def _abs_sin_pi(x):
    """|sin(pi x)| for float64 x, and x - round(x) (exact), where it is taken: 0 at the integers."""
    r = x - x.round()
    return (r * math.pi).sin().abs(), r


def _lgamma64(x):
    below = x < 0.5
    y = _where(below, 1.0 - x, x) - 1.0  # Lanczos at y + 1 >= 1/2
    a = y * 0.0 + _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], 1):
        a = a + c / (y + i)
    t = y + 7.5
    lanczos = _HALF_LOG_2PI + (y + 0.5) * t.log() - t + a.log()
    s, _ = _abs_sin_pi(x)
    reflected = math.log(math.pi) - s.log() - lanczos
    r = _where(below, reflected, lanczos)
    r = _where((x == 1.0) | (x == 2.0), 0.0, r)  # the zeros, exactly (Lanczos is 1e-15 off there)
    return _where(x.isinf(), _INF, r)


def _digamma64(x):
    below = x < 0.5
    y = _where(below, 1.0 - x, x)
    z = y + 10.0
    iz2 = 1.0 / (z * z)
    psi = z.log() - 0.5 / z + polynomial(_PSI_ASYMPTOTIC, iz2)
    for k in range(10):
        psi = psi - 1.0 / (y + k)
    _, r = _abs_sin_pi(x)
    c = (r * math.pi).cos()
    reflected = psi - math.pi * c / (r * math.pi).sin()  # pi / tan(pi x): period 1, so at r
    out = _where(below, reflected, psi)
    out = _where((x < 0) & (x == x.round()), _NAN, out)
    out = _where(x == 0, copysign(x * 0.0 + _INF, -x), out)  # -inf at +0, inf at -0, as PyTorch
    return _where(x == _INF, _INF, _where(x == -_INF, _NAN, out))


def _zeta64(s, q):
    """Hurwitz zeta(s, q) of float64 tensors of one shape (cephes' algorithm with fixed term counts)."""
    terms, a = q.pow(-s), q
    negative = (q < 0) & (q != q.floor())
    extra = _where(negative, 1.0, 0.0)
    for _ in range(9):
        a = a + 1.0
        terms = terms + a.pow(-s)
    for _ in range(32):  # only negative q: a reaches past 9 from as low as -23
        a = a + extra
        terms = terms + a.pow(-s) * extra
    b = a.pow(-s)
    w = a
    total = terms + b * w / (s - 1.0) - 0.5 * b
    fac, k = full_like(s, 1.0), 0.0
    for coefficient in _ZETA_A:
        fac = fac * (s + k)
        b = b / w
        total = total + fac * b / coefficient
        k += 1.0
        fac = fac * (s + k)
        b = b / w
        k += 1.0
    big = (1.0 / (s - 1.0) + 0.5 / q) * q.pow(1.0 - s)  # q > 1e8: DLMF 25.11.43
    total = _where(q > 1e8, big, total)
    total = _where(negative & (q < -23.0), _NAN, total)
    total = _where(negative & (s != s.floor()), _NAN, total)  # q^-s undefined
    total = _where((q <= 0) & (q == q.floor()), _INF, total)
    total = _where(s < 1.0, _NAN, total)
    return _where(s == 1.0, _INF, total)


def lgamma(input, *, out=None):
    return special_unary("lgamma", input, _lgamma64, lambda x, v: _digamma64(x))


def digamma(input, *, out=None):
    return special_unary("digamma", input, _digamma64, lambda x, v: _polygamma64(1, x))


def _polygamma64(n, x):
    if n == 0:
        return _digamma64(x)
    sign = 1.0 if n % 2 == 1 else -1.0
    r = _zeta64(full_like(x, n + 1.0), x) * (sign * math.factorial(n))
    if n == 1:  # the reflection psi1(x) + psi1(1 - x) = pi^2 / sin^2(pi x), for every x < 0 (as PyTorch)
        s, _ = _abs_sin_pi(x)
        reflected = (math.pi * math.pi) / (s * s) - _zeta64(full_like(x, 2.0), 1.0 - x)
        r = _where(x < 0, reflected, r)
    return r


def polygamma(n, input, *, out=None):
    if isinstance(n, Tensor) or not isinstance(n, (builtins.int,)) or isinstance(n, builtins.bool):
        raise TypeError("polygamma(): argument 'n' (position 1) must be int, not {}".format(type(n).__name__))
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return special_unary("polygamma", input, lambda x: _polygamma64(n, x), lambda x, v: _polygamma64(n + 1, x))


def mvlgamma(input, p, *, out=None):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    constant = p * (p - 1) / 4.0 * math.log(math.pi)

    def value(x):
        return sum((_lgamma64(x - j / 2.0) for j in range(p)), full_like(x, constant))

    def derivative(x, v):
        return sum(_digamma64(x - j / 2.0) for j in range(p))
    return special_unary("mvlgamma", input, value, derivative)


def zeta(input, other, *, out=None):
    """Hurwitz zeta(x, q); PyTorch differentiates only with respect to q (-x zeta(x + 1, q))."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        _check("zeta", input)
    x = input if isinstance(input, Tensor) else tensor(input, dtype=other.dtype if other.dtype.is_floating_point
                                                     else None)
    q = other if isinstance(other, Tensor) else tensor(other, dtype=x.dtype if x.dtype.is_floating_point else None)
    x, q = _floating("zeta", x), _floating("zeta", q)
    dt = _C.promote_types(x.dtype, q.dtype)
    if x.requires_grad and _C.is_grad_enabled():
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    xd, qd = x.detach().to(_C.float64), q.detach().to(_C.float64)
    shape = _broadcast_shape("zeta", xd.shape, qd.shape)
    xd, qd = xd.expand(shape), qd.expand(shape)
    out = _zeta64(xd, qd).to(dt)
    if q.requires_grad and _C.is_grad_enabled():
        out = with_gradient(out, (q, (-xd * _zeta64(xd + 1.0, qd)).to(dt)))
    return out


lgamma, digamma, polygamma, mvlgamma, zeta = (_with_out(f) for f in (lgamma, digamma, polygamma, mvlgamma, zeta))

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma"]
