"""Creation functions written in Python: tensor and its type inference, *_like, the random
constructors with generator=, logspace, tril_indices, triu_indices and vander."""
import builtins

import numpy as np

from . import _C
from ._C import Tensor
from ._device import check_placement
from ._function_args import _check, _default_float, _dt_name, _is_int, _zeros
from ._out import _write_out
from ._random import _numpy_rng, _rng

_np_for = {"bool": np.bool_, "int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64,
           "float16": np.float16, "int8": np.int8, "uint8": np.uint8, "int16": np.int16}
_NARROW = ("float16", "bfloat16", "int8", "uint8", "int16")
# The Python numbers torch.tensor accepts for a narrow integer dtype (c10::overflows: an unsigned
# type also takes negative integers that fit its width, -1 -> 255, but no negative float).
_INT_RANGE = {"int8": (-128, 127), "uint8": (-255, 255), "int16": (-32768, 32767)}


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_python_dtype(obj):
    """torch.tensor's rule for Python data: bool < int < float (float -> default float32)."""
    kind = -1  # 0 bool, 1 int, 2 float; -1 nothing seen (empty: default float)

    def visit(o):
        nonlocal kind
        if isinstance(o, (list, tuple)):
            for x in o:
                visit(x)
        elif isinstance(o, Tensor):
            k = 2 if o.dtype.is_floating_point else (0 if o.dtype == _C.bool else 1)
            kind = max(kind, k)
        elif isinstance(o, (builtins.bool, np.bool_)):
            kind = max(kind, 0)
        elif isinstance(o, (builtins.int, np.integer)):
            kind = max(kind, 1)
        else:
            kind = max(kind, 2)

    visit(obj)
    return (_C.float32, _C.bool, _C.int64, _C.float32)[kind + 1]


def _to_host(obj):
    if isinstance(obj, Tensor):
        return _C._to_numpy(obj)
    if isinstance(obj, (list, tuple)):
        return [_to_host(o) for o in obj]
    return obj


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    check_placement(device)
    if isinstance(data, Tensor):
        out = data.detach().clone()
        if dtype is not None:
            out = out.to(dtype)
        return _finish(out, requires_grad)
    if isinstance(data, np.ndarray):
        arr = data
        if dtype is None and _C._dtype_for_numpy(arr.dtype) is None:
            raise TypeError("can't convert np.ndarray of type %s. The only supported types are: float64, float32, "
                            "float16, int64, int32, int16, int8, uint8, and bool." % arr.dtype)
        inferred = _C._dtype_for_numpy(arr.dtype)
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
        inferred = _C._dtype_for_numpy(arr.dtype)
    else:
        if isinstance(data, (str, bytes)) or data is None:
            raise TypeError("new(): invalid data type '%s'" % type(data).__name__)
        inferred = _infer_python_dtype(data)
        arr = np.array(_to_host(data))
        if arr.dtype == object:
            raise ValueError("expected sequence of equal-length lists (ragged nested sequence)")
    want = _C._to_dtype(dtype) if dtype is not None else inferred
    name = _C._numpy_name(want)
    if name in _INT_RANGE and not isinstance(data, (np.ndarray, np.generic)) and arr.size:
        lo, hi = _INT_RANGE[name]  # torch checks Python numbers (not arrays) for overflow
        if arr.dtype.kind == "f":
            lo = max(lo, 0) if name == "uint8" else lo  # a float into uint8 must be >= 0
        if arr.dtype.kind in "iuf" and (arr.min() < lo or arr.max() > hi):
            raise RuntimeError("value cannot be converted to type {} without overflow".format(name))
    if name in _NARROW and (name not in _np_for or np.dtype(_np_for[name]) != arr.dtype):
        # Through lazytensor's cast (torch's rounding and wrapping; numpy rounds
        # float64 -> float16 once where torch goes through float32, and has no bfloat16).
        wide = np.float64 if arr.dtype.kind in "fc" else np.int64
        src = _C.from_numpy(np.require(arr, dtype=wide, requirements="C"))
        return _finish(src.to(want).detach(), requires_grad)
    arr = np.require(arr, dtype=_np_for[name], requirements="C")
    return _finish(_C.from_numpy(arr), requires_grad)


def as_tensor(data, dtype=None, device=None):
    check_placement(device)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == _C._to_dtype(dtype) else data.to(dtype)
    return tensor(data, dtype=dtype)


def asarray(obj, dtype=None, device=None, copy=None, requires_grad=False):
    check_placement(device)
    return _finish(as_tensor(obj, dtype=dtype), requires_grad)


def scalar_tensor(s, dtype=None, device=None, requires_grad=False):
    check_placement(device)
    return tensor(s, dtype=dtype or _C.float32, requires_grad=requires_grad)


def _like(fn):
    def f(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
        check_placement(device)
        return fn(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)
    return f


zeros_like = _like(_C.zeros)
ones_like = _like(_C.ones)
empty_like = _like(_C.empty)


def rand_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    check_placement(device)
    return _C.rand(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    check_placement(device)
    return _C.randn(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    check_placement(device)
    return _C.full(tuple(input.shape), fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, dtype=None, device=None, requires_grad=False):
    check_placement(device)
    if high is None:
        low, high = 0, low
    return _C.randint(low, high, tuple(input.shape), dtype=dtype or input.dtype)


def randperm(n, dtype=None, device=None, requires_grad=False, generator=None):
    check_placement(device)
    perm = _numpy_rng(generator, n).permutation(n)
    return tensor(perm, dtype=dtype or _C.int64)


def _drawing(fn):
    """`fn` (a core random function) with PyTorch's generator= keyword."""
    def draw(*args, generator=None, **kwargs):
        with _rng(generator):
            return fn(*args, **kwargs)
    draw.__name__ = draw.__qualname__ = fn.__name__
    draw.__doc__ = fn.__doc__
    return draw


rand = _drawing(_C.rand)
randn = _drawing(_C.randn)
randint = _drawing(_C.randint)


def normal(mean, std=1.0, size=None, generator=None, dtype=None):
    with _rng(generator):
        if isinstance(mean, Tensor) or isinstance(std, Tensor):
            shape = (mean if isinstance(mean, Tensor) else std).shape
            return _C.randn(*shape) * std + mean
        return _C.randn(*size, dtype=dtype) * std + mean


def bernoulli(input, p=None, generator=None):
    prob = input if p is None else p
    with _rng(generator):
        return (_C.rand(*input.shape, dtype=input.dtype) < prob).to(input.dtype)


def multinomial(input, num_samples, replacement=False, generator=None):
    probs = _C._to_numpy(input).astype(np.float64)
    rng = _numpy_rng(generator, probs.size * num_samples)
    rows = probs.reshape(-1, probs.shape[-1])
    out = [rng.choice(rows.shape[1], size=num_samples, replace=replacement, p=r / r.sum()) for r in rows]
    return tensor(np.array(out).reshape(probs.shape[:-1] + (num_samples,)), dtype=_C.int64)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """base ** (steps points from start to end), computed in float64 on the host (a constant, like linspace)
    and rounded to dtype. For integer dtypes start and end are truncated first and the powers truncated, as
    PyTorch."""
    check_placement(device)
    vals = []
    for nm, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor):
            if v.dim() != 0:
                raise TypeError("logspace(): argument '{}' must be a Number or a 0-dim tensor, not a tensor of shape "
                                "{}".format(nm, list(v.shape)))
            v = v.item()  # a host value, as PyTorch reads it
        vals.append(v)
    start, end = vals
    if not _is_int(steps):
        raise TypeError("logspace(): argument 'steps' must be int, not {}".format(type(steps).__name__))
    if steps < 0:
        raise RuntimeError("logspace: number of steps must be non-negative (got {})".format(steps))
    dt = _default_float() if dtype is None else _C._to_dtype(dtype)
    if out is not None and dtype is None:
        dt = out.dtype
    if dt == _C.bool:
        raise RuntimeError("logspace: \"logspace_cpu\" not implemented for 'Bool'")
    if not dt.is_floating_point:
        start, end = builtins.int(start), builtins.int(end)
    start, end = builtins.float(start), builtins.float(end)
    i = np.arange(steps, dtype=np.float64)
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    # from both ends towards the middle, so the last point is exactly `end`
    exps = np.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i)) if steps > 1 else i + start
    with np.errstate(all="ignore"):
        v = np.power(builtins.float(base), exps)
        if not dt.is_floating_point:
            v = np.trunc(v)
        arr = v.astype(repr(dt).replace("torch.", ""))
    result = _C.from_numpy(np.ascontiguousarray(arr))
    if requires_grad:
        result.requires_grad_(True)
    if out is not None:
        return _write_out("logspace", result, out)
    return result


def _tri_indices(name, row, col, offset, dtype, lower):
    for nm, v in (("row", row), ("col", col), ("offset", offset)):
        if not _is_int(v):
            raise TypeError("{}(): argument '{}' must be int, not {}".format(name, nm, type(v).__name__))
    if row < 0:
        raise RuntimeError("{}: row must be non-negative, got{}".format(name, row))
    if col < 0:
        raise RuntimeError("{}: col must be non-negative, got{}".format(name, col))
    dt = _C._to_dtype(dtype)
    if dt not in (_C.int32, _C.int64):
        raise RuntimeError("{}: \"{}\" not implemented for '{}'".format(name, name, _dt_name(dt)))
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    arr = np.stack([r, c]).astype(np.int64 if dt == _C.int64 else np.int32).reshape(2, -1)
    return _C.from_numpy(np.ascontiguousarray(arr))


def tril_indices(row, col, offset=0, *, dtype=_C.int64, device=None, layout=None):
    """The (row, col) coordinates of the lower triangle (on and below the offset diagonal), row-major: a
    constant computed on the host."""
    check_placement(device)
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=_C.int64, device=None, layout=None):
    check_placement(device)
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


def vander(x, N=None, increasing=False):
    """Columns x**0, x**1, ... x**(N-1) (reversed unless increasing), by a cumulative product as PyTorch, so
    integers are exact; integer and bool inputs give int64."""
    _check("vander", x, "x", 1)
    if x.dim() != 1:
        raise RuntimeError("vander: x must be a one-dimensional tensor (got shape {}).".format(list(x.shape)))
    n = x.shape[0]
    if N is None:
        N = n
    if not _is_int(N):
        raise TypeError("vander(): argument 'N' must be int, not {}".format(type(N).__name__))
    if N < 0:
        raise RuntimeError("vander: N must be non-negative (got {}).".format(N))
    dt = x.dtype if x.dtype.is_floating_point else _C.int64
    xv = x.to(dt)
    if N == 0:
        return _zeros([n, 0], dt) + xv.reshape(n, 1).narrow(1, 0, 0)
    cols = [_C.ones(n, 1, dtype=dt)]
    if N > 1:
        cols.append(xv.reshape(n, 1).expand(n, N - 1).cumprod(1))
    r = _C.cat(cols, 1)
    return r if increasing else r.flip(1)
