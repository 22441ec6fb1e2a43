"""Tensor methods written in Python: printing, host conversion and rarely hot ops.

The Tensor type is lazytensor._C.Tensor itself (operators and hot methods are
C++); the functions here are attached to that class at import time, so no
Python wrapper object ever sits between user code and the C++ op.
"""
import builtins
import math

import numpy as np

from . import _C
from ._C import Tensor
from ._random import _rng

_print_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        prec = _print_opts["precision"]
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = values[np.isfinite(values)]
        nonzero = np.abs(finite[finite != 0])
        if nonzero.size == 0:
            self.max_width = max(self.max_width, 2)  # "0."
            return
        lo, hi = float(nonzero.min()), float(nonzero.max())
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                fmt = "{:.%de}" % prec
            else:
                fmt = "{:.0f}."
        else:
            if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                self.sci_mode = True
                fmt = "{:.%de}" % prec
            else:
                fmt = "{:.%df}" % prec
        if _print_opts["sci_mode"] is not None:
            self.sci_mode = _print_opts["sci_mode"]
            if self.sci_mode:
                fmt = "{:.%de}" % prec
        for v in finite:
            self.max_width = max(self.max_width, len(fmt.format(float(v))))

    def format(self, v):
        if self.floating:
            v = float(v)
            prec = _print_opts["precision"]
            if not math.isfinite(v):
                s = str(v)
            elif self.sci_mode:
                s = ("{:.%de}" % prec).format(v)
            elif self.int_mode:
                s = "{:.0f}.".format(v)
            else:
                s = ("{:.%df}" % prec).format(v)
        elif isinstance(v, (np.bool_, builtins.bool)):
            s = "True" if v else "False"
        else:
            s = str(v)
        return " " * (self.max_width - len(s)) + s


def _summarized(arr, edge):
    if arr.ndim == 0:
        return arr.reshape(1)
    if arr.shape[0] > 2 * edge:
        parts = [arr[:edge], arr[-edge:]]
    else:
        parts = [arr]
    out = [(_summarized(p[i], edge) if p.ndim > 1 else p[i:i + 1]) for p in parts for i in range(p.shape[0])]
    return np.concatenate([o.reshape(-1) for o in out]) if out else arr.reshape(-1)


def _str_rec(arr, indent, fmt, summarize):
    edge = _print_opts["edgeitems"]
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        n = arr.shape[0]
        if summarize and n > 2 * edge:
            items = [fmt.format(v) for v in arr[:edge]] + [" ..."] + [fmt.format(v) for v in arr[-edge:]]
        else:
            items = [fmt.format(v) for v in arr]
        per_line = max(1, (_print_opts["linewidth"] - indent) // (fmt.max_width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        rows = [_str_rec(arr[i], indent + 1, fmt, summarize) for i in range(edge)] + ["..."] + [
            _str_rec(arr[i], indent + 1, fmt, summarize) for i in range(n - edge, n)]
    else:
        rows = [_str_rec(arr[i], indent + 1, fmt, summarize) for i in range(n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _repr(self, prefix="tensor("):
    arr = _C._to_numpy(self)
    dt = self.dtype
    floating = dt.is_floating_point
    indent = len(prefix)
    suffixes = []
    if arr.size == 0:
        body = "[]"
        if arr.ndim != 1:
            suffixes.append("size=" + str(tuple(arr.shape)))
    else:
        summarize = arr.size > _print_opts["threshold"]
        vals = _summarized(arr, _print_opts["edgeitems"]) if summarize else arr.reshape(-1)
        fmt = _Formatter(vals, floating)
        body = _str_rec(arr, indent, fmt, summarize)
    # PyTorch leaves out the dtype its values already show, but not for an empty tensor (no values).
    if dt != _C.float32 and (arr.size == 0 or dt not in (_C.int64, _C.bool)):
        suffixes.append("dtype=" + repr(dt))
    if self.requires_grad:
        if self.is_leaf:
            suffixes.append("requires_grad=True")
        else:
            suffixes.append("grad_fn=<LazyBackward>")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"


def _tolist(self):
    arr = _C._to_numpy(self)
    return arr.tolist()


def _numpy(self, force=False):
    if self.requires_grad and not force:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return _C._to_numpy(self)


def _array(self, dtype=None):
    arr = _C._to_numpy(self)
    return arr if dtype is None else arr.astype(dtype, copy=False)


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def _contains(self, element):
    if isinstance(element, (Tensor, int, float, builtins.bool)):
        return builtins.bool((self == element).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a %s." % type(element))


def _format(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec) if spec else repr(self)


def _deepcopy(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    new = self.detach().clone()
    if type(self) is not Tensor:
        new = type(self)(new, requires_grad=self.requires_grad)
    elif self.requires_grad:
        new.requires_grad_(True)
    memo[id(self)] = new
    return new


def _reduce_ex(self, proto):
    return (_rebuild, (_C._to_numpy(self), self.requires_grad, type(self)))


def _rebuild(arr, requires_grad, cls):
    t = _C.from_numpy(arr)
    if cls is not Tensor:
        return cls(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _floor_divide(a, b):
    from . import _functions
    return _functions.floor_divide(a, b)


def _remainder(a, b):
    from . import _functions
    return _functions.remainder(a, b)


def _rfloordiv(self, other):
    from . import _functions
    return _functions.floor_divide(_functions._as_tensor_like(other, self), self)


def _rmod(self, other):
    from . import _functions
    return _functions.remainder(_functions._as_tensor_like(other, self), self)


def _addcmul(self, t1, t2, value=1):
    return self + value * (t1 * t2) if value != 1 else self + t1 * t2


def _addcdiv(self, t1, t2, value=1):
    return self + value * (t1 / t2) if value != 1 else self + t1 / t2


def _lerp(self, end, weight):
    return self + weight * (end - self)


def _uniform_(self, a=0.0, b=1.0, generator=None):
    with _rng(generator):
        return self._uniform_(float(a), float(b))


def _normal_(self, mean=0.0, std=1.0, generator=None):
    with _rng(generator):
        return self._normal_(float(mean), float(std))


def _bernoulli_(self, p=0.5, generator=None):
    with _rng(generator):
        r = _C.rand(*self.shape, dtype=_C.float32)
    return self.copy_(r < p)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _C.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _C.ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return _C.full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._creation import tensor
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _repeat(self, *sizes):
    sizes = list(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else list(sizes)
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    x = self.reshape([1] * (len(sizes) - self.dim()) + list(self.shape))
    # Interleave a new axis before each dim, expand it, then merge.
    shape = list(x.shape)
    inter = []
    for d in shape:
        inter += [1, d]
    x = x.reshape(inter)
    target = []
    for r, d in zip(sizes, shape):
        target += [r, d]
    x = x.expand(*target)
    return x.reshape([r * d for r, d in zip(sizes, shape)]).clone()


def _unflatten(self, dim, sizes):
    dim = dim if dim >= 0 else dim + self.dim()
    shape = list(self.shape)
    return self.reshape(shape[:dim] + list(sizes) + shape[dim + 1:])


def _masked_select(self, mask):
    return self[mask.expand_as(self) if mask.shape != self.shape else mask]


def _nonzero(self, as_tuple=False):
    arr = np.nonzero(_C._to_numpy(self))
    if as_tuple:
        return tuple(_C.from_numpy(np.ascontiguousarray(a.astype(np.int64))) for a in arr)
    return _C.from_numpy(np.ascontiguousarray(np.stack(arr, axis=1).astype(np.int64)))


def _norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    x = self if dtype is None else self.to(dtype)
    if p in ("fro", 2, 2.0):
        # PyTorch's gradient at a zero norm is 0: sqrt's would be 0/0 = NaN (F.normalize of a zero row)
        s = (x * x).sum(dim=dim, keepdim=keepdim)
        nz = s > 0
        return _C._where3(nz, _C._where3(nz, s, 1.0).sqrt(), 0.0)
    if p in (1, 1.0):
        return x.abs().sum(dim=dim, keepdim=keepdim)
    if p == float("inf"):
        return x.abs().amax(dim=() if dim is None else dim, keepdim=keepdim)
    if p == float("-inf"):
        return x.abs().amin(dim=() if dim is None else dim, keepdim=keepdim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim=dim, keepdim=keepdim)
    s = (x.abs() ** p).sum(dim=dim, keepdim=keepdim)
    nz = s > 0
    return _C._where3(nz, _C._where3(nz, s, 1.0) ** (1.0 / p), 0.0)


def _log2(self):
    return self.log() * (1.0 / math.log(2.0))


def _log10(self):
    return self.log() * (1.0 / math.log(10.0))


def _index_add_(self, dim, index, source, alpha=1):
    return self._inplace(self.index_add(dim, index, source, alpha=alpha), "index_add_")


def _scatter_add_(self, dim, index, src):
    return self._inplace(self.scatter_add(dim, index, src), "scatter_add_")


def _inplace_of(name):
    def f(self, *args, **kwargs):
        return self._inplace(getattr(self, name)(*args, **kwargs), name + "_")
    f.__name__ = name + "_"
    return f


def _cpu(self, *args, **kwargs):
    return self


def _cuda(self, *args, **kwargs):
    raise RuntimeError("lazytensor: this build runs on the CPU only (no CUDA tensors)")


def _retain_grad(self):
    return None


def _register_hook(self, hook):
    raise NotImplementedError("Tensor.register_hook is not supported by lazytensor")


def _var_mean(self, dim=None, unbiased=True, keepdim=False):
    return self.var(dim, unbiased, keepdim), self.mean(dim, keepdim)


def _std_mean(self, dim=None, unbiased=True, keepdim=False):
    return self.std(dim, unbiased, keepdim), self.mean(dim, keepdim)


def _allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(np.allclose(_C._to_numpy(self), _C._to_numpy(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def _equal(self, other):
    return tuple(self.shape) == tuple(other.shape) and builtins.bool((self == other).all().item())


def _outer(self, other):
    for name, t in (("self", self), ("vec2", other)):
        if not isinstance(t, Tensor):
            raise TypeError("outer(): argument 'vec2' (position 1) must be Tensor, not {}".format(type(t).__name__))
        if t.dim() != 1:
            raise RuntimeError("outer: Expected 1-D argument {}, but got {}-D".format(name, t.dim()))
    return self.reshape(-1, 1) * other.reshape(1, -1)


def _is_nonzero(self):
    return self.__bool__()


def _data_ptr(self):
    return id(self)


def _abs_(self):
    return self._inplace(self.abs(), "abs_")


def install():
    T = Tensor
    T.__repr__ = _repr
    T.__str__ = _repr
    T.__format__ = _format
    T.__iter__ = _iter
    T.__contains__ = _contains
    T.__array__ = _array
    T.__array_priority__ = 1000
    T.__deepcopy__ = _deepcopy
    T.__reduce_ex__ = _reduce_ex
    T.__floordiv__ = _floor_divide
    T.__rfloordiv__ = _rfloordiv
    T.__mod__ = _remainder
    T.__rmod__ = _rmod
    T.tolist = _tolist
    T.numpy = _numpy
    T.floor_divide = _floor_divide
    T.remainder = _remainder
    T.addcmul = _addcmul
    T.addcdiv = _addcdiv
    T.lerp = _lerp
    T.uniform_ = _uniform_
    T.normal_ = _normal_
    T.bernoulli_ = _bernoulli_
    T.new_zeros = _new_zeros
    T.new_ones = _new_ones
    T.new_empty = _new_zeros
    T.new_full = _new_full
    T.new_tensor = _new_tensor
    T.repeat = _repeat
    T.unflatten = _unflatten
    T.masked_select = _masked_select
    T.nonzero = _nonzero
    T.norm = _norm
    T.log2 = _log2
    T.log10 = _log10
    T.index_add_ = _index_add_
    T.scatter_add_ = _scatter_add_
    T.cpu = _cpu
    T.cuda = _cuda
    T.retain_grad = _retain_grad
    T.register_hook = _register_hook
    T.var_mean = _var_mean
    T.std_mean = _std_mean
    T.allclose = _allclose
    T.equal = _equal
    T.outer = _outer
    T.is_nonzero = _is_nonzero
    T.data_ptr = _data_ptr
    T.abs_ = _abs_
    for name in ("exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor",
                 "ceil", "round", "sign", "reciprocal", "square", "addcmul", "addcdiv", "lerp", "clamp_min",
                 "clamp_max", "floor_divide", "remainder", "log2", "log10", "erf", "silu", "logical_not", "tril",
                 "triu", "where"):
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", _inplace_of(name))
    T.clip_ = T.clamp_
    T.absolute = T.abs
    _install_session5(T)


def _install_session5(T):
    """Tensor methods over the torch.* functions added in session 5 (lazytensor._functions)."""
    from . import _functions as f

    def method(fn):
        def m(self, *args, **kwargs):
            return fn(self, *args, **kwargs)
        m.__name__ = fn.__name__
        return m
    for name in ("addmm", "baddbmm", "addbmm", "addmv", "mv", "trunc", "fix", "frac", "fmod", "logical_xor",
                 "diff", "roll", "tile", "movedim", "moveaxis", "kron", "cross", "cumprod"):
        if not hasattr(T, name):
            setattr(T, name, method(getattr(f, name)))
    for name in ("addmm", "baddbmm", "addbmm", "addmv", "trunc", "fix", "frac", "fmod", "cumprod"):
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", _inplace_of(name))
