"""Values whose gradient is prescribed: where PyTorch's derivative formula differs from the chain rule
through a composite's decomposition (the discarded branch of a where(), 0 * inf, a clamp that PyTorch's
backward ignores), these put PyTorch's derivative on the value without changing it.

Both build nothing when no tensor involved requires grad (or grad mode is off).
"""
from . import _C
from ._C import Tensor

_where = _C._where3


def _wants_grad(t):
    return isinstance(t, Tensor) and t.requires_grad and _C.is_grad_enabled()


def with_nan_gradient(r, at, *tensors):
    """r, whose gradient with respect to each tensor is also NaN where `at` holds and the tensor is 0:
    PyTorch's formulas give 0/0 or 0 * inf there, where a composite's where() gives 0.
    r - sqrt(t * t) * 0 has r's value (minus +0.0 keeps -0.0), and the derivative of sqrt(t * t) at 0 is
    (0 / 0) * t; t is replaced by 1 outside `at`, where the added gradient is 0."""
    for t in tensors:
        if _wants_grad(t):
            s = _where(at, t, 1.0)
            r = r - (s * s).sqrt() * 0.0
    return r


def with_gradient(value, *pairs):
    """value (computed without a graph), whose gradient with respect to the tensor t of each pair (t, d)
    is the upstream gradient times d, inf and NaN included. For finite t, value + (t - t.detach()) * d
    where d is finite, + sign(d) sqrt(t - t.detach()) where d is +-inf (its derivative at +0.0 is +-inf),
    and a NaN gradient where d is NaN; each term is +-0.0 (a non-finite t gets gradient 0)."""
    out = value
    for t, d in pairs:
        if not _wants_grad(t):
            continue
        d = d.detach()
        frozen = t.detach()
        zero = _where(frozen.isfinite(), t - frozen, 0.0)  # +0.0, derivative 1
        inf = d.isinf()
        out = out + zero * _where(d.isfinite(), d, 0.0)
        out = out + _where(inf, zero, 1.0).sqrt() * _where(inf, d.sign(), 0.0)
        out = with_nan_gradient(out, d.isnan(), zero)
    return out
