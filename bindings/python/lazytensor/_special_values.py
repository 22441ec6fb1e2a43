"""The frame of the special functions (gamma family, error-function family, Bessel functions): each
computes its value in float64 from the detached input with existing lazy ops (one fused kernel, where()
picking the branch per element), casts it back, and puts PyTorch's derivative formula on it with
with_gradient, so float32 programs get float64-accurate values and torch's gradients, inf and NaN
included. Integer and bool inputs compute in the default float dtype, as in PyTorch."""
from . import _C
from ._gradient_terms import with_gradient
from ._pointwise import _floating


def special_unary(name, input, value, derivative=None):
    """value(x64) -> float64 tensor; derivative(x64, value64) -> float64 tensor (None: no gradient, as
    PyTorch's functions without a derivative, whose results do not require grad)."""
    x = _floating(name, input)
    xd = x.detach().to(_C.float64)
    v = value(xd)
    out = v.to(x.dtype)
    if derivative is not None and x.requires_grad and _C.is_grad_enabled():
        out = with_gradient(out, (x, derivative(xd, v).to(x.dtype)))
    return out


def polynomial(coefficients, t):
    """coefficients[0] + coefficients[1] t + ... by Horner's rule (Python floats, highest last)."""
    r = t * 0.0 + coefficients[-1]
    for c in reversed(coefficients[:-1]):
        r = r * t + c
    return r
