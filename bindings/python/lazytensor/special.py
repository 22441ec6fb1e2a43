"""torch.special: the subset that maps exactly onto existing lazytensor ops.

Left out: erfcx/ndtr/log_ndtr (not attempted), gamma/Bessel/zeta families, erfinv, ndtri, polygamma.
"""
from . import _C
from ._math_extra import erfc, exp2, logit, sinc, xlog1py, xlogy  # noqa: F401


def expit(input, *, out=None):
    return input.sigmoid()


def erf(input, *, out=None):
    return input.erf()


def expm1(input, *, out=None):
    return input.expm1()


def log1p(input, *, out=None):
    return input.log1p()


def round(input, *, decimals=0, out=None):  # noqa: A001
    """PyTorch's rule: round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d for negative d."""
    if not decimals:
        return input.round()
    if decimals > 0:
        p = 10.0 ** decimals
        return (input * p).round() / p
    p = 10.0 ** -decimals
    return (input / p).round() * p


def logsumexp(input, dim, keepdim=False, *, out=None):
    return _C.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    from .nn import functional as F
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    from .nn import functional as F
    return F.log_softmax(input, dim, dtype=dtype)


def entr(input, *, out=None):
    """-x*log(x) for x > 0, 0 at 0, -inf for x < 0 (NaN stays NaN)."""
    x = input if input.dtype.is_floating_point else input.to(_C.float32)
    pos = x > 0
    safe = _C._where3(pos, x, 1.0)
    r = _C._where3(pos, -(safe * safe.log()), _C._where3(x == 0, 0.0, -float("inf")))
    return _C._where3(x.isnan(), x, r)


from ._math_extra import _with_out  # noqa: E402

expit, erf, expm1, log1p, round, logsumexp, entr = (_with_out(f) for f in (  # noqa: A001
    expit, erf, expm1, log1p, round, logsumexp, entr))

__all__ = ["expit", "logit", "erf", "erfc", "exp2", "expm1", "log1p", "xlogy", "xlog1py", "logsumexp", "softmax",
           "log_softmax", "round", "sinc", "entr"]
