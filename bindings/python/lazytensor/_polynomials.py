"""The orthogonal polynomials of torch.special (Chebyshev T, U, V, W and their shifted forms on [0, 1],
Hermite H and He, Laguerre L, Legendre P), evaluated by their three-term recurrences in float64.

The degree n is a number or a tensor (truncated toward zero, as PyTorch's cast to int64; n < 0 gives
0). The recurrence is unrolled up to the largest degree, so a tensor n is read once (a sync, as
torch.unique) and the graph grows with that degree; each element takes the step of its own degree.
PyTorch switches to the trigonometric forms for the Chebyshev kinds at large n inside (-1, 1): the
values agree to rounding. No derivative, as in PyTorch: the results do not require grad.
"""
import builtins
import math

from . import _C
from ._C import Tensor
from ._creation import full_like, tensor
from ._dtype import get_default_dtype
from ._function_args import _broadcast_shape, _where
from ._out import _with_out


def _operands(name, input, n):
    if not isinstance(input, Tensor) and not isinstance(n, Tensor):
        raise TypeError("{}(): expected a Tensor as input or n, got {} and {}".format(
            name, type(input).__name__, type(n).__name__))
    tensors = [t for t in (input, n) if isinstance(t, Tensor)]
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = _C.promote_types(dt, t.dtype)
    if not dt.is_floating_point:
        dt = get_default_dtype()
    x = (input if isinstance(input, Tensor) else tensor(float(input), dtype=_C.float64)).detach().to(_C.float64)
    if isinstance(n, Tensor):
        degree = n.detach().to(_C.float64).trunc()
        top = int(degree.max().item()) if degree.numel() else 0
    else:
        top = int(math.trunc(n))
        degree = tensor(float(top), dtype=_C.float64)
    shape = _broadcast_shape(name, x.shape, degree.shape)
    return x.expand(shape), degree.expand(shape), builtins.max(top, 0), dt


def _by_degree(n, top, p0, p1, step):
    """P_n per element from P_0 = p0, P_1 = p1, P_{k+1} = step(k, P_{k-1}, P_k); 0 where n < 0."""
    result = _where(n == 0, p0, 0.0)
    if top >= 1:
        result = _where(n == 1, p1, result)
    prev, cur = p0, p1
    for k in range(1, top):
        prev, cur = cur, step(k, prev, cur)
        result = _where(n == k + 1, cur, result)
    return result


def _polynomial(name, first, step):
    """A torch.special polynomial: P_1 = first(x), P_{k+1} = step(k, x, P_{k-1}, P_k)."""
    def f(input, n, *, out=None):
        x, degree, top, dt = _operands(name, input, n)
        one = full_like(x, 1.0)
        value = _by_degree(degree, top, one, first(x), lambda k, p, q: step(k, x, p, q))
        return value.to(dt)
    f.__name__ = f.__qualname__ = name
    return _with_out(f)


def _chebyshev(k, y, p, q):
    return 2.0 * y * q - p


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", lambda x: x, _chebyshev)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", lambda x: 2.0 * x, _chebyshev)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", lambda x: 2.0 * x - 1.0, _chebyshev)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", lambda x: 2.0 * x + 1.0, _chebyshev)
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", lambda x: 2.0 * x - 1.0,
                                             lambda k, x, p, q: _chebyshev(k, 2.0 * x - 1.0, p, q))
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", lambda x: 4.0 * x - 2.0,
                                             lambda k, x, p, q: _chebyshev(k, 2.0 * x - 1.0, p, q))
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", lambda x: 4.0 * x - 3.0,
                                             lambda k, x, p, q: _chebyshev(k, 2.0 * x - 1.0, p, q))
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", lambda x: 4.0 * x - 1.0,
                                             lambda k, x, p, q: _chebyshev(k, 2.0 * x - 1.0, p, q))
hermite_polynomial_h = _polynomial("hermite_polynomial_h", lambda x: 2.0 * x,
                                   lambda k, x, p, q: 2.0 * x * q - (2.0 * k) * p)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", lambda x: x, lambda k, x, p, q: x * q - float(k) * p)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", lambda x: 1.0 - x,
                                    lambda k, x, p, q: ((2.0 * k + 1.0 - x) * q - float(k) * p) / (k + 1.0))
legendre_polynomial_p = _polynomial("legendre_polynomial_p", lambda x: x,
                                    lambda k, x, p, q: ((2.0 * k + 1.0) * x * q - float(k) * p) / (k + 1.0))

__all__ = []
