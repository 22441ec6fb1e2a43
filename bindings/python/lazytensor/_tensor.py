"""Tensor methods written in Python, and the one place that installs them on the Tensor type.

The Tensor type is lazytensor._C.Tensor itself (operators and hot methods are C++); the functions here
are attached to that class at import time (install()), so no Python wrapper object ever sits between user
code and the C++ op. Most are thin forms of the torch.* functions in lazytensor.functional; printing is
lazytensor._tensor_str. A method is only added where the C++ type has none.
"""
import builtins
import math
import weakref

import numpy as np

from . import _C, functional
from ._C import Tensor
from ._reshaping import unfold as _unfold
from ._creation import bernoulli as _bernoulli_fn, full_like as _full_like, multinomial as _multinomial_fn, tensor
from ._device import check_placement, move_to_cuda
from ._function_args import _dt_name
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


# In-place samplers with torch's parameters and formulas (its CPU transforms of one uniform draw); the
# draws come from lazytensor's random stream, so values differ from torch's under the same seed.
_RANDOM_TO = {"float32": 2 ** 24, "float64": 2 ** 53, "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1, "bool": 2}


def _random_(self, from_=0, to=None, generator=None, **kwargs):
    """random_(to), random_(from, to) or random_(): integers uniform in [from, to); the default `to` is
    torch's (2**mantissa digits for floats, the dtype's max for integers, 2 for bool)."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError("random_() got an unexpected keyword argument '{}'".format(next(iter(kwargs))))
    if to is None and from_ != 0 and "from" not in kwargs:
        from_, to = 0, from_  # random_(to)
    if to is None:
        to = _RANDOM_TO[repr(self.dtype).replace("torch.", "")]
    if from_ >= to:
        raise RuntimeError("random_ expects 'from' to be less than 'to', but got from={} >= to={}".format(from_, to))
    with _rng(generator):
        r = _C.randint(int(from_), int(to), tuple(self.shape), dtype=_C.int64)
    return self.copy_(r)


def _uniform_draw(self, generator):
    with _rng(generator):
        return _C.rand(*self.shape, dtype=_C.float64)


def _exponential_(self, lambd=1.0, generator=None):
    if lambd <= 0:
        raise RuntimeError("exponential_ expects lambda > 0.0, but found lambda={}".format(lambd))
    return self.copy_(-(1 - _uniform_draw(self, generator)).log() / lambd)


def _cauchy_(self, median=0.0, sigma=1.0, generator=None):
    return self.copy_(median + sigma * (math.pi * (_uniform_draw(self, generator) - 0.5)).tan())


def _log_normal_(self, mean=1.0, std=2.0, generator=None):
    if std <= 0:
        raise RuntimeError("log_normal_ expects std > 0.0, but found std={}".format(std))
    with _rng(generator):
        z = _C.randn(*self.shape, dtype=_C.float64)
    return self.copy_((z * std + mean).exp())


def _geometric_(self, p, generator=None):
    if not 0 < p < 1:
        raise RuntimeError("geometric_ expects p to be in (0, 1), but got p={}".format(p))
    u = _uniform_draw(self, generator)
    return self.copy_(((1 - u).log() / math.log1p(-p)).ceil().clamp(min=1))


def _bernoulli_(self, p=0.5, generator=None):
    with _rng(generator):
        r = _C.rand(*self.shape, dtype=_C.float32)
    return self.copy_(r < p)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    check_placement(device)
    return _C.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    check_placement(device)
    return _C.ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    check_placement(device)
    return _C.full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    check_placement(device)
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


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    move_to_cuda(device)


def _get_device(self):
    return -1  # torch's answer for a CPU tensor


# Non-leaf tensors that asked for their gradient (retain_grad), by id. The autograd engine fills .grad of
# leaves only; backward() computes these tensors' gradients with one autograd.grad first (each gets its total
# derivative, also when one retained tensor feeds another) and accumulates them into their .grad, as PyTorch's
# retain_grad hook does. Only backward() fills them (not autograd.grad), at the cost of one more gradient pass.
_retained = {}


def _retain_grad(self):
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.is_leaf or id(self) in _retained:
        return None
    key = id(self)
    _retained[key] = weakref.ref(self, lambda _, key=key: _retained.pop(key, None))
    return None


def _retains_grad(self):
    ref = _retained.get(id(self))
    return ref is not None and ref() is self


_backward_engine = Tensor.backward  # the C++ backward, before install() wraps it


def _accumulate_grads(tensors, grads, create_graph):
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(bool(create_graph))  # with create_graph, .grad stays differentiable
    try:
        for t, g in zip(tensors, grads):
            if g is not None:
                t.grad = g if t.grad is None else t.grad + g
    finally:
        _C._set_grad_enabled(prev)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    g = None if gradient is None else [gradient if isinstance(gradient, Tensor) else tensor(gradient)]
    if inputs is not None:
        # backward(inputs=...): accumulate into exactly these tensors' .grad (leaves or not), as PyTorch.
        ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not ins:
            raise RuntimeError("backward: 'inputs' argument to backward() cannot be empty.")
        keep = create_graph if retain_graph is None else retain_graph
        grads = _C._grad([self], ins, g, bool(keep), True, bool(create_graph))
        _accumulate_grads(ins, grads, create_graph)
        return None
    if not _retained:
        return _backward_engine(self, gradient, retain_graph, create_graph, inputs)
    live = [t for t in (r() for r in list(_retained.values())) if t is not None and t.requires_grad]
    grads = _C._grad([self], live, g, True, True, bool(create_graph)) if live else []
    _backward_engine(self, gradient, retain_graph, create_graph, inputs)
    _accumulate_grads(live, grads, create_graph)


_view_engine = Tensor.view


def _view(self, *shape, **kwargs):
    """view(*shape) as the C++ view; view(dtype) reinterprets the bytes (below)."""
    if shape and shape[0].__class__ is _C.dtype:
        return _view_dtype(self, *shape, **kwargs)
    if "dtype" in kwargs:
        return _view_dtype(self, **kwargs)
    return _view_engine(self, *shape, **kwargs)


_NP_DTYPES = {"bool": np.bool_, "int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64,
              "float16": np.float16, "bfloat16": np.uint16, "int8": np.int8, "uint8": np.uint8, "int16": np.int16}


def _view_dtype(self, dtype):
    """view(dtype): the same bytes read as another dtype, with PyTorch's shape rule (the last dim scales by the
    ratio of the element sizes) and checks. lazytensor has no bitcast primitive, so this syncs self and
    returns a copy that does not require grad (PyTorch's is not differentiable). A copy cannot alias, so it
    refuses in-place writes (_BitcastCopy) rather than silently not reaching self; the same dtype is self."""
    if dtype == self.dtype:
        return _view_engine(self, *self.shape)
    src = _NP_DTYPES[repr(self.dtype).replace("torch.", "")]
    dst = _NP_DTYPES[repr(dtype).replace("torch.", "")]
    a, b = np.dtype(src).itemsize, np.dtype(dst).itemsize
    if a != b:
        what = "to view {} as {} (different element sizes; input of size {})".format(
            _dt_name(self.dtype), _dt_name(dtype), list(self.shape))
        if self.dim() == 0:
            raise RuntimeError("view(dtype): self.dim() cannot be 0 {}".format(what))
        if self.stride(-1) != 1:
            raise RuntimeError("view(dtype): self.stride(-1) must be 1 {}, but got {}".format(what, self.stride(-1)))
        if b > a and self.shape[-1] % (b // a) != 0:
            raise RuntimeError("view(dtype): self.size(-1) must be divisible by {} {}, but got {}".format(
                b // a, what, self.shape[-1]))
        if b > a:
            for k in range(self.dim() - 1):
                if self.stride(k) % (b // a) != 0:
                    raise RuntimeError("view(dtype): self.stride({}) must be divisible by {} {}, but got {}".format(
                        k, b // a, what, self.stride(k)))
    if self.dtype == _C.bfloat16:  # no numpy type: its bits
        arr = np.array(_C._bits_to_numpy(self.detach()), order="C")
    else:
        arr = np.array(_C._to_numpy(self.detach()), order="C")
    shape = list(self.shape)
    if a != b:
        shape[-1] = shape[-1] * a // b
    out = arr.reshape(-1).view(np.uint8 if dst is np.bool_ else dst).reshape(shape)
    if dst is np.bool_:
        out = out != 0  # PyTorch reads any nonzero byte as True
    if dtype == _C.bfloat16:
        return _BitcastCopy(_C._bits_from_numpy(np.array(out, order="C"), _C.bfloat16))
    return _BitcastCopy(_C.from_numpy(np.array(out, order="C")))


class _BitcastCopy(Tensor):
    """The result of view(dtype) to another dtype: a copy of the reinterpreted bits, where torch returns a
    view. An in-place write (an in-place method, an augmented assignment, item assignment, or a write
    into one of its indexing results) would not reach the original, so it raises instead. Other views
    of it (view, reshape, transpose, ...) are plain tensors over the copy."""

    def __init__(self, data):
        Tensor.__init__(self, data)

    def __getitem__(self, index):
        return _BitcastCopy(Tensor.__getitem__(self, index))


def _refuse_bitcast_write(name):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(
            "{}: this tensor comes from view(dtype), which lazytensor computes as a copy of the reinterpreted "
            "bits (torch returns a view); an in-place write would not reach the original tensor. Write into "
            "the original, or clone() this tensor and write into the clone".format(name))
    refuse.__name__ = name
    return refuse


def _install_bitcast_guards():
    names = [n for n in dir(Tensor) if n.endswith("_") and not n.startswith("_") and n != "requires_grad_"]
    names += ["__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
              "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"]
    for n in names:
        if hasattr(Tensor, n):
            setattr(_BitcastCopy, n, _refuse_bitcast_write(n))

    def clone(self, *args, **kwargs):
        return Tensor.clone(self, *args, **kwargs)  # a plain tensor: writable
    _BitcastCopy.clone = clone


_getitem_engine = Tensor.__getitem__
_setitem_engine = Tensor.__setitem__


def _checked_index(self, index):
    """A list-holding index made plain for the C++ indexing, which takes flat lists only.

    PyTorch reads a list of fewer than 32 items holding a sequence, tensor, slice, None or Ellipsis as a
    tuple of indices (x[[[0, 1], [1, 0]]] is x[[0, 1], [1, 0]]); inside a tuple a nested list is one
    multi-dim index tensor. The lists' values are on the host, so they are checked against the dims they
    index here: an out-of-range entry raises IndexError at the call, as PyTorch, instead of when the result
    is computed, which for an assignment would leave the tensor holding the failing write."""
    if index.__class__ is list:
        if len(index) >= 32 or not any(e.__class__ in (list, tuple, slice) or e is None or e is Ellipsis or
                                       isinstance(e, Tensor) for e in index):
            items = (index,)
        else:
            index = items = tuple(index)
    else:
        items = index
    shape = list(self.shape)
    used = builtins.sum(_dims_consumed(e) for e in items)
    dim, plain = 0, None
    for k, e in enumerate(items):
        if e is Ellipsis:
            dim += len(shape) - used
            continue
        if e.__class__ is list or e.__class__ is tuple:
            flat = np.asarray(e, dtype=object).reshape(-1) if any(f.__class__ in (list, tuple) for f in e) else e
            n = shape[dim] if dim < len(shape) else None  # past the last dim: the C++ indexing says so
            for v in (flat if n is not None else ()):
                if isinstance(v, (builtins.int, np.integer)) and not isinstance(v, (builtins.bool, np.bool_)) \
                        and not -n <= v < n:
                    raise IndexError("index {} is out of bounds for dimension {} with size {}".format(v, dim, n))
            if flat is not e:  # nested: one multi-dim index tensor
                t = tensor(e) if _all_bools(flat) else tensor(e, dtype=_C.int64)
                if index.__class__ is not tuple:
                    return t
                if plain is None:
                    plain = list(index)
                plain[k] = t
        dim += _dims_consumed(e)
    return index if plain is None else tuple(plain)


def _dims_consumed(e):
    if e is None or e is Ellipsis or e.__class__ is builtins.bool:
        return 0
    if isinstance(e, Tensor) and e.dtype == _C.bool:
        return e.dim()
    return 1


def _all_bools(seq):
    flat = np.asarray(seq, dtype=object).reshape(-1)
    return flat.size > 0 and all(isinstance(v, (builtins.bool, np.bool_)) for v in flat)


def _getitem(self, index):
    c = index.__class__
    if c is tuple:
        for e in index:
            if e.__class__ is list or e.__class__ is tuple:
                return _getitem_engine(self, _checked_index(self, index))
    elif c is list:
        return _getitem_engine(self, _checked_index(self, index))
    return _getitem_engine(self, index)


def _setitem(self, index, value):
    c = index.__class__
    if c is tuple:
        for e in index:
            if e.__class__ is list or e.__class__ is tuple:
                return _setitem_engine(self, _checked_index(self, index), value)
    elif c is list:
        return _setitem_engine(self, _checked_index(self, index), value)
    return _setitem_engine(self, index, value)


_flip_engine = Tensor.flip


def _flip(self, *dims, **kwargs):
    """flip(dims) with a list or tuple, or flip(d0, d1, ...) as PyTorch's method."""
    if len(dims) > 1:
        return _flip_engine(self, list(dims))
    return _flip_engine(self, *dims, **kwargs)


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


def _fill_diagonal_(self, fill_value, wrap=False):
    """PyTorch's main diagonal: (i, i, ...) for i < min(shape); a 2-D tall matrix with wrap=True restarts it
    every cols + 1 rows. A where over a host-built mask (shapes only)."""
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = list(self.shape)
    if nd > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(self.numel(), dtype=bool)
    if nd == 2 and wrap:
        mask[::shape[1] + 1] = True
    else:
        step = builtins.sum(int(np.prod(shape[k + 1:])) for k in range(nd))
        mask[np.arange(builtins.min(shape)) * step] = True
    where_mask = _C.from_numpy(mask.reshape(shape))
    return self._inplace(_C._where3(where_mask, fill_value, self).to(self.dtype), "fill_diagonal_")


def _sum_to_size(self, *size):
    """Sums the dims self was broadcast along to reach `size` (leading dims, and dims where size is 1)."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = size[0]
    size = [int(s) for s in size]
    shape = list(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(size, shape[lead:])):
        raise RuntimeError("size {{{}}} is not expandable to size {{{}}}.".format(
            ", ".join(map(str, size)), ", ".join(map(str, shape))))
    out = self.sum(list(range(lead))) if lead else self
    dims = [k for k, (s, d) in enumerate(zip(size, shape[lead:])) if s == 1 and d != 1]
    return out.sum(dims, keepdim=True) if dims else out


def _is_same_size(self, other):
    return list(self.shape) == list(other.shape)


def _is_signed(self):
    return self.dtype != _C.bool


def _bernoulli(self, p=None, *, generator=None):
    return _bernoulli_fn(self if p is None else _full_like(self, p), generator=generator)


def _multinomial(self, num_samples, replacement=False, *, generator=None):
    return _multinomial_fn(self, num_samples, replacement, generator=generator)


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


def _polygamma_method(self, n):
    return functional.polygamma(n, self)


def _polygamma_inplace(self, n):
    return self._inplace(functional.polygamma(n, self), "polygamma_")


def _tensor_round(self, decimals=0):
    return _round_method(self) if not decimals else _round_decimals(self, decimals=decimals)


# Tensor methods PyTorch has for the functions in _pointwise, and which of them have no in-place form.
_POINTWISE_METHODS = ["erfc", "sinh", "cosh", "tan", "asinh", "acosh", "atanh", "atan", "asin", "acos", "atan2",
                      "hypot", "logaddexp", "logaddexp2", "exp2", "sgn", "nan_to_num", "isinf", "isposinf",
                      "isneginf", "signbit", "copysign", "heaviside", "logit", "xlogy", "float_power", "positive",
                      "rad2deg", "deg2rad", "sinc", "arcsinh", "arccosh", "arctanh", "arctan", "arcsin", "arccos",
                      "arctan2"]
_POINTWISE_NO_INPLACE = ["isinf", "isposinf", "isneginf", "signbit", "positive", "logaddexp",
                         "logaddexp2", "float_power"]
# Tensor methods PyTorch has for the reshaping, linalg, indexing and reduction functions, and in-place forms.
_FUNCTION_METHODS = ["ravel", "fliplr", "flipud", "hsplit", "vsplit", "dsplit", "tensor_split", "diagonal", "trace",
                     "inner", "ger", "vdot", "nansum", "nanmean", "count_nonzero", "take", "take_along_dim",
                     "index_fill", "index_copy", "scatter", "fmax", "fmin", "ldexp", "rot90", "cov", "isreal",
                     "diag_embed", "argwhere", "select_scatter", "slice_scatter", "cummax", "cummin", "logcumsumexp",
                     "isclose", "scatter_reduce", "repeat_interleave", "diag", "diagflat", "aminmax", "corrcoef",
                     "dist", "addr", "broadcast_to", "split_with_sizes", "unsafe_split", "unsafe_chunk",
                     "unsafe_split_with_sizes", "quantile", "nanquantile", "index_put", "put"]
_FUNCTION_INPLACE = ["index_fill", "index_copy", "scatter", "ldexp", "scatter_reduce", "addr", "index_put", "put"]


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
    T.random_ = _random_
    T.exponential_ = _exponential_
    T.cauchy_ = _cauchy_
    T.log_normal_ = _log_normal_
    T.geometric_ = _geometric_
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
    T.get_device = _get_device
    T.retain_grad = _retain_grad
    T.retains_grad = property(_retains_grad)
    T.backward = _backward
    T.view = _view
    T.__getitem__ = _getitem
    T.__setitem__ = _setitem
    T.flip = _flip
    T.unfold = _unfold
    T.register_hook = _register_hook
    T.var_mean = _var_mean
    T.std_mean = _std_mean
    T.allclose = _allclose
    T.equal = _equal
    T.outer = _outer
    T.is_nonzero = _is_nonzero
    T.data_ptr = _data_ptr
    T.abs_ = _abs_
    T.clip_ = T.clamp_
    T.absolute = T.abs
    T.fill_diagonal_ = _fill_diagonal_
    T.sum_to_size = _sum_to_size
    T.is_same_size = _is_same_size
    T.is_signed = _is_signed
    T.bernoulli = _bernoulli
    T.multinomial = _multinomial
    for name in ("exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor",
                 "ceil", "round", "sign", "reciprocal", "square", "addcmul", "addcdiv", "lerp", "clamp_min",
                 "clamp_max", "floor_divide", "remainder", "log2", "log10", "erf", "silu", "logical_not", "tril",
                 "triu", "where", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
                 "less_equal", "not_equal", "logical_and", "logical_or", "logical_xor", "multiply", "subtract",
                 "negative", "absolute"):
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", _inplace_of(name))
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
    for name in ("lgamma", "digamma", "erfinv", "i0", "mvlgamma"):
        if not hasattr(T, name):
            setattr(T, name, method(getattr(functional, name)))
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", inplace(getattr(functional, name), name + "_"))
    if not hasattr(T, "polygamma"):
        T.polygamma = _polygamma_method
        T.polygamma_ = _polygamma_inplace
    T.round = _tensor_round
