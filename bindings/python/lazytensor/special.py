"""torch.special: the subset that maps exactly onto existing lazytensor ops.

Left out: erfcx/ndtr/log_ndtr (not attempted), gamma/Bessel/zeta families, erfinv, ndtri, polygamma.
"""
from . import _C
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

__all__ = ["expit", "logit", "erf", "erfc", "exp2", "expm1", "log1p", "xlogy", "xlog1py", "logsumexp", "softmax",
           "log_softmax", "round", "sinc", "entr"]
