"""Tensor methods written in Python, and the one place that installs them on the Tensor type.

The Tensor type is lazytensor._C.Tensor itself (operators and hot methods are C++); the functions here
are attached to that class at import time (install()), so no Python wrapper object ever sits between user
code and the C++ op. Most are thin forms of the torch.* functions in lazytensor.functional; printing is
lazytensor._tensor_str. A method is only added where the C++ type has none.
"""
import builtins
import math

import numpy as np

from . import _C, functional
from ._C import Tensor
from ._creation import full_like as _full_like, tensor
from ._pointwise import _as_tensor_like, float_power, floor_divide, remainder, xlogy
from ._pointwise import round as _round_decimals
from ._random import _rng
from ._sorting import argsort, bincount, kthvalue, median, msort, sort, topk, unique
from ._tensor_str import _repr


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
    return floor_divide(a, b)


def _remainder(a, b):
    return remainder(a, b)


def _rfloordiv(self, other):
    return floor_divide(_as_tensor_like(other, self), self)


def _rmod(self, other):
    if isinstance(other, builtins.int) and not self.dtype.is_floating_point:
        return remainder(_full_like(self, other), self)  # a number takes the tensor's integer dtype
    return remainder(_as_tensor_like(other, self), self)


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
    if self.dim() == 0:  # torch: a 0-d tensor has 1 or 0 nonzero positions and no index columns
        n = builtins.int(builtins.bool(self.item()))
        return (_C.zeros(n, dtype=_C.int64),) if as_tuple else _C.zeros(n, 0, dtype=_C.int64)
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
        count = (x != 0).to(x.dtype).sum(dim=dim, keepdim=keepdim)
        if x.requires_grad:  # PyTorch's gradient of the count is 0, not none: sign(x) carries it, adding 0
            count = count + (_C._where3(x.isnan(), 0.0, x.sign()) * 0.0).sum(dim=dim, keepdim=keepdim)
        return count
    # |x|^p with the zeros taken out: PyTorch's gradient at x = 0 is 0, where p |x|^(p-1) sign(x) is
    # inf * 0 = NaN for p < 1 (and 0^(p-1) stays out of the derivative for every p)
    a = x.abs()
    if p > 0:
        nzx = a > 0
        s = _C._where3(nzx, _C._where3(nzx, a, 1.0) ** p, 0.0).sum(dim=dim, keepdim=keepdim)
    else:
        s = (a ** p).sum(dim=dim, keepdim=keepdim)
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


def _m_sort(self, dim=-1, descending=False, *, stable=False):
    return sort(self, dim, descending, stable=stable)


def _m_argsort(self, dim=-1, descending=False, *, stable=False):
    return argsort(self, dim, descending, stable=stable)


def _m_msort(self):
    return msort(self)


def _m_topk(self, k, dim=-1, largest=True, sorted=True):
    return topk(self, k, dim, largest, sorted)


def _m_kthvalue(self, k, dim=-1, keepdim=False):
    return kthvalue(self, k, dim, keepdim)


def _m_median(self, dim=None, keepdim=False):
    return median(self, dim, keepdim)


def _m_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return unique(self, sorted, return_inverse, return_counts, dim)


def _m_bincount(self, weights=None, minlength=0):
    return bincount(self, weights, minlength)


def _float_power_(self, exponent):
    if self.dtype != _C.float64:
        raise RuntimeError("the base given to float_power_ has dtype {} but the operation's result requires "
                           "dtype Double".format(repr(self.dtype).replace("torch.", "").capitalize()))
    return self._inplace(float_power(self, exponent), "float_power_")


def method(fn, name=None):
    """fn(self, ...) as a Tensor method called `name` (fn's own name by default)."""
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = name or fn.__name__
    m.__doc__ = fn.__doc__
    return m


def inplace(fn, name):
    """The in-place Tensor method `name`: self takes fn(self, ...)'s value."""
    def m(self, *args, **kwargs):
        return self._inplace(fn(self, *args, **kwargs), name)
    m.__name__ = name
    return m


_round_method = Tensor.round  # the C++ method, before install() replaces it


def _tensor_round(self, decimals=0):
    return _round_method(self) if not decimals else _round_decimals(self, decimals=decimals)


# Tensor methods PyTorch has for the functions in _pointwise, and which of them have no in-place form.
_POINTWISE_METHODS = ["erfc", "sinh", "cosh", "tan", "asinh", "acosh", "atanh", "atan", "asin", "acos", "atan2",
                      "hypot", "logaddexp", "logaddexp2", "exp2", "sgn", "nan_to_num", "isinf", "isposinf",
                      "isneginf", "signbit", "copysign", "heaviside", "logit", "xlogy", "float_power", "positive",
                      "rad2deg", "deg2rad", "sinc", "arcsinh", "arccosh", "arctanh", "arctan", "arcsin", "arccos",
                      "arctan2"]
_POINTWISE_NO_INPLACE = ["isinf", "isposinf", "isneginf", "signbit", "positive", "heaviside", "logaddexp",
                         "logaddexp2", "float_power"]
# Tensor methods PyTorch has for the reshaping, linalg, indexing and reduction functions, and in-place forms.
_FUNCTION_METHODS = ["ravel", "fliplr", "flipud", "hsplit", "vsplit", "dsplit", "tensor_split", "diagonal", "trace",
                     "inner", "ger", "vdot", "nansum", "nanmean", "count_nonzero", "take", "take_along_dim",
                     "index_fill", "index_copy", "scatter", "fmax", "fmin", "ldexp", "rot90", "cov", "isreal",
                     "diag_embed", "argwhere", "select_scatter", "slice_scatter"]
_FUNCTION_INPLACE = ["index_fill", "index_copy", "scatter", "ldexp"]


def install():
    """Attach every method written in Python to the C++ Tensor type (once, at import)."""
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
    # Methods over torch.* functions written in Python, where the C++ type has none.
    for name in ("addmm", "baddbmm", "addbmm", "addmv", "mv", "trunc", "fix", "frac", "fmod", "logical_xor",
                 "diff", "roll", "tile", "movedim", "moveaxis", "kron", "cross", "cumprod"):
        if not hasattr(T, name):
            setattr(T, name, method(getattr(functional, name)))
    for name in ("addmm", "baddbmm", "addbmm", "addmv", "trunc", "fix", "frac", "fmod", "cumprod"):
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", _inplace_of(name))
    for name, f in (("sort", _m_sort), ("argsort", _m_argsort), ("msort", _m_msort), ("topk", _m_topk),
                    ("kthvalue", _m_kthvalue), ("median", _m_median), ("unique", _m_unique),
                    ("bincount", _m_bincount)):
        if not hasattr(T, name):
            setattr(T, name, f)
    for name in _POINTWISE_METHODS:
        if not hasattr(T, name):
            setattr(T, name, method(getattr(functional, name)))
        if name not in _POINTWISE_NO_INPLACE and not hasattr(T, name + "_"):
            setattr(T, name + "_", inplace(getattr(functional, name), name + "_"))
    if not hasattr(T, "float_power_"):
        T.float_power_ = _float_power_
    if not hasattr(T, "xlogy_"):
        T.xlogy_ = inplace(xlogy, "xlogy_")
    for name in _FUNCTION_METHODS:
        if not hasattr(T, name):
            setattr(T, name, method(getattr(functional, name), name))
    for name in _FUNCTION_INPLACE:
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", inplace(getattr(functional, name), name + "_"))
    T.round = _tensor_round
