"""torch.special: the functions that map onto existing lazytensor ops, the gamma family (_gamma.py), the
error-function family (_error_function.py), the modified Bessel functions of the first kind and
spherical_bessel_j0 (_bessel.py) and the orthogonal polynomials (_polynomials.py).

Left out: gammainc/gammaincc and airy_ai.
"""
from . import _C
from ._bessel import (bessel_j0, bessel_j1, bessel_y0, bessel_y1, i0, i0e, i1, i1e,  # noqa: F401
                      modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1,
                      scaled_modified_bessel_k0, scaled_modified_bessel_k1, spherical_bessel_j0)
from ._error_function import erfcx, erfinv, log_ndtr, ndtr, ndtri  # noqa: F401
from ._gamma import digamma, lgamma, mvlgamma, polygamma, zeta  # noqa: F401
from ._polynomials import (chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,  # noqa: F401
                           chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he,
                           laguerre_polynomial_l, legendre_polynomial_p, shifted_chebyshev_polynomial_t,
                           shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
                           shifted_chebyshev_polynomial_w)
from ._gradient_terms import with_gradient
from ._out import _with_out
from ._pointwise import erfc, exp2, logit, round, sinc, xlog1py, xlogy  # noqa: F401,A004
from .nn import functional as _F


def expit(input, *, out=None):
    return input.sigmoid()


def erf(input, *, out=None):
    return input.erf()


def expm1(input, *, out=None):
    return input.expm1()


def log1p(input, *, out=None):
    return input.log1p()


def logsumexp(input, dim, keepdim=False, *, out=None):
    return _C.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _F.log_softmax(input, dim, dtype=dtype)


def entr(input, *, out=None):
    """-x*log(x) for x > 0, 0 at 0, -inf for x < 0 (NaN stays NaN). The gradient is PyTorch's -(1 + log x)
    everywhere (+inf at 0, NaN below), not the where() branches' 0."""
    x = input if input.dtype.is_floating_point else input.to(_C.float32)
    xd = x.detach()
    pos = xd > 0
    safe = _C._where3(pos, xd, 1.0)
    r = _C._where3(pos, -(safe * safe.log()), _C._where3(xd == 0, 0.0, -float("inf")))
    r = _C._where3(xd.isnan(), xd, r)
    return with_gradient(r, (x, -(1.0 + xd.log())))


expit, erf, expm1, log1p, logsumexp, entr = (_with_out(f) for f in (expit, erf, expm1, log1p, logsumexp, entr))
gammaln, psi = lgamma, digamma


def multigammaln(input, p, *, out=None):
    return mvlgamma(input, p, out=out)

__all__ = ["expit", "logit", "erf", "erfc", "exp2", "expm1", "log1p", "xlogy", "xlog1py", "logsumexp", "softmax",
           "log_softmax", "round", "sinc", "entr", "gammaln", "psi", "digamma", "polygamma", "multigammaln", "zeta",
           "erfinv", "erfcx", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "spherical_bessel_j0",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]
