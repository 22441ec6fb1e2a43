"""torch.* functions written over the C++ ops."""
import builtins
import functools

import numpy as np

from . import _C
from ._C import Tensor


def _as_tensor_like(x, ref):
    if isinstance(x, Tensor):
        return x
    from ._creation import tensor
    return tensor(x)


def floor_divide(a, b):
    a_t, b_t = isinstance(a, Tensor), isinstance(b, Tensor)
    q = (a / b).floor()
    dt = [x.dtype for x in (a, b) if isinstance(x, Tensor)]
    ints = all(not d.is_floating_point for d in dt) and not any(
        isinstance(x, float) for x in (a, b) if not isinstance(x, Tensor))
    if ints:
        out = dt[0] if len(dt) == 1 else _C.promote_types(dt[0], dt[1])
        if out == _C.bool:
            out = _C.int64
        return q.to(out)
    return q


def remainder(a, b):
    return a - floor_divide(a, b) * b



def where(condition, input=None, other=None):
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return _C._where3(condition, input, other)


def numel(input):
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.dtype.is_floating_point


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return input.allclose(other, rtol, atol, equal_nan)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    diff = (input - other).abs()
    return diff <= atol + rtol * other.abs()


def equal(input, other):
    return input.equal(other)


def outer(input, vec2):
    return input.outer(vec2)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    return input.norm(p, dim, keepdim, dtype)


def addcmul(input, tensor1, tensor2, value=1):
    return input.addcmul(tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, value=1):
    return input.addcdiv(tensor1, tensor2, value=value)


def lerp(input, end, weight):
    return input.lerp(end, weight)


def nonzero(input, as_tuple=False):
    return input.nonzero(as_tuple=as_tuple)


def masked_select(input, mask):
    return input.masked_select(mask)


def log2(input):
    return input.log2()


def log10(input):
    return input.log10()


def var_mean(input, dim=None, unbiased=True, keepdim=False):
    return input.var_mean(dim, unbiased, keepdim)


def std_mean(input, dim=None, unbiased=True, keepdim=False):
    return input.std_mean(dim, unbiased, keepdim)


def unflatten(input, dim, sizes):
    return input.unflatten(dim, sizes)


def broadcast_to(input, size):
    return input.expand(*size)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(t.expand(*shape) for t in tensors)


def broadcast_shapes(*shapes):
    from ._size import Size
    return Size(np.broadcast_shapes(*shapes))


def result_type(a, b):
    def dt(x):
        if isinstance(x, Tensor):
            return x
        from ._creation import tensor
        return x
    return (_as_tensor_like(a, None) + _as_tensor_like(b, None)).dtype if not isinstance(a, Tensor) or not isinstance(
        b, Tensor) else (a + b).dtype


def hstack(tensors):
    return _C.cat(tensors, 1 if tensors[0].dim() > 1 else 0)


def vstack(tensors):
    return _C.cat([t.reshape(1, -1) if t.dim() == 1 else t for t in tensors], 0)


def concat(tensors, dim=0):
    return _C.cat(tensors, dim)


def repeat_interleave(input, repeats, dim=None):
    if dim is None:
        input, dim = input.reshape(-1), 0
    x = input.unsqueeze(dim + 1 if dim >= 0 else dim)
    shape = list(x.shape)
    d = dim if dim >= 0 else dim + input.dim()
    shape[d + 1] = repeats
    out = list(input.shape)
    out[d] *= repeats
    return x.expand(*shape).reshape(out)


def diag(input, diagonal=0):
    if input.dim() == 1 and diagonal == 0:
        n = input.shape[0]
        return _C.eye(n, dtype=input.dtype) * input.unsqueeze(0)
    if input.dim() == 2 and diagonal == 0:
        n = builtins.min(input.shape)
        return (input[:n, :n] * _C.eye(n, dtype=input.dtype)).sum(1)
    raise NotImplementedError("diag with a nonzero diagonal")


def einsum(*args):
    raise NotImplementedError("einsum is not supported by lazytensor; use matmul / broadcasting")


from ._random import Generator, get_rng_state, manual_seed, seed, set_rng_state  # noqa: E402,F401


# ---- grad mode ----
class _GradMode:
    _enabled = None

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Context manager and decorator that disables gradient recording."""
    _enabled = False


class enable_grad(_GradMode):
    _enabled = True


class inference_mode(_GradMode):
    def __init__(self, mode=True):
        self._enabled = not mode

    def __call__(self, func):
        mode = not self._enabled

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)
        return wrapper


class set_grad_enabled(_GradMode):
    """Sets grad mode at once (as in PyTorch); restores it on exit when used with `with`."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._enabled = builtins.bool(mode)
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        _C._set_grad_enabled(self._prev)
        mode = self._enabled

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper


# ---- printing and defaults ----
def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    from ._tensor import _print_opts
    if profile == "default":
        _print_opts.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _print_opts[k] = v
    _print_opts["sci_mode"] = sci_mode


def get_default_dtype():
    return _C.float32


def set_default_dtype(d):
    if _C._to_dtype(d) != _C.float32:
        raise NotImplementedError("lazytensor's default dtype is float32")


def save(obj, f, **kwargs):
    import pickle
    if isinstance(f, str):
        with open(f, "wb") as fh:
            pickle.dump(obj, fh)
    else:
        pickle.dump(obj, f)


def load(f, map_location=None, **kwargs):
    import pickle
    if isinstance(f, str):
        with open(f, "rb") as fh:
            return pickle.load(fh)
    return pickle.load(f)


import types as _types  # noqa: E402

__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and not isinstance(v, _types.ModuleType) and n not in ("Tensor",)]
