"""Helpers for spatial [N, C, *] inputs, shared by convolution, pooling, interpolation and the norms:
argument tuples, constant tensors built on the host, window extraction (im2col) and _tie."""
import itertools

import numpy as np

from .. import _C
from .._C import Tensor
from ._checks import _shape


def _tuple(v, n, name, fn):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            v = tuple(v) * n
        if len(v) != n:
            raise RuntimeError("{}: expected {} to be a single integer or a tuple of {} integers, but got {}".format(
                fn, name, n, tuple(v)))
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _const(arr):
    return _C.from_numpy(np.ascontiguousarray(arr))


_const_cache = {}


def _cached_const(key, make):
    """A host-built constant (it depends on shapes only), uploaded once per key."""
    t = _const_cache.get(key)
    if t is None:
        if len(_const_cache) > 256:
            _const_cache.clear()
        t = _const_cache[key] = _const(make())
    return t


def _true():
    return _cached_const(("true",), lambda: np.array(True))


def _tie(out, side):
    """Make `out` depend on the small tensors in `side` (running statistics) without changing its value.

    A lazy in-place update of a buffer that the loss never reads would stay pending across training
    steps (a sync computes only what the synced tensors reach), growing a chain of updates that
    something would compute all at once later. `where(True, out, side)` with a data `True` (not a
    constant the compiler could fold) reads `side` in the same kernel as `out` and returns `out`
    exactly, with `out`'s gradient unchanged; the sync of the loss then computes and stores the new
    statistics in the same trace.
    """
    side = [s for s in side if s is not None]
    if not side:
        return out
    ref = None
    for s in side:
        s = s.detach()
        s = s.reshape([1, -1] + [1] * (out.dim() - 2)) if s.dim() == 1 and out.dim() >= 2 else s.reshape([])
        s = s.to(out.dtype)
        ref = s if ref is None else ref + s
    return _C._where3(_true(), out, ref)


def _check_spatial(input, nd, fn, allow_unbatched=True):
    if not isinstance(input, Tensor):
        raise TypeError("{}(): argument 'input' must be Tensor, not {}".format(fn, type(input).__name__))
    if input.dim() == nd + 2:
        return input, False
    if allow_unbatched and input.dim() == nd + 1:
        return input.unsqueeze(0), True
    raise RuntimeError("{}: Expected {}D (unbatched) or {}D (batched) input, but got input of size: {}".format(
        fn, nd + 1, nd + 2, _shape(input)))


def _window_slices(xp, nd, kernel, dilation, stride, out):
    """One strided view of the padded input per kernel offset (ki, kj, ...) in row-major order."""
    parts = []
    for offs in itertools.product(*[range(k) for k in kernel]):
        index = [slice(None), slice(None)]
        for d in range(nd):
            start = offs[d] * dilation[d]
            index.append(slice(start, start + stride[d] * (out[d] - 1) + 1, stride[d]))
        parts.append(xp[tuple(index)])
    return parts


def _im2col(x, nd, kernel, dilation, padding, stride, fn, pad_value=0.0, extra=None):
    """x [N, C, *S] -> [N, C, K, *out] (K = prod(kernel)) and out sizes. `padding` is a list of (lo, hi)."""
    spatial = _shape(x)[2:]
    out = []
    for d in range(nd):
        eff = dilation[d] * (kernel[d] - 1) + 1
        padded = spatial[d] + padding[d][0] + padding[d][1]
        if padded < eff:
            raise RuntimeError("{}: calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size "
                               "can't be greater than actual input size".format(
                                   fn, " x ".join(str(spatial[i] + padding[i][0] + padding[i][1]) for i in range(nd)),
                                   " x ".join(str(dilation[i] * (kernel[i] - 1) + 1) for i in range(nd))))
        out.append((padded - eff) // stride[d] + 1)
    if extra is not None:  # pooling: output sizes computed by the caller (ceil_mode); pad the far side to fit
        out = list(extra)
        padding = [(padding[d][0], max(padding[d][1], (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1
                                       - spatial[d] - padding[d][0])) for d in range(nd)]
    if all(stride[d] == kernel[d] and dilation[d] == 1 and padding[d] == (0, 0) for d in range(nd)):
        return _tile_windows(x, nd, kernel, out), out
    flat = []
    for d in reversed(range(nd)):
        flat += [padding[d][0], padding[d][1]]
    xp = _C._pad(x, flat, pad_value) if any(flat) else x
    parts = _window_slices(xp, nd, kernel, dilation, stride, out)
    return _C.stack(parts, 2), out


def _tile_windows(x, nd, kernel, out):
    """_im2col for windows that tile the input (stride = kernel, no dilation or padding): a reshape and a
    permute of the covered part, [N, C, o0, k0, o1, k1, ...] -> [N, C, k0, k1, ..., o0, o1, ...].

    The same values in the same window order as stacking one slice per kernel offset, without the stack:
    a stack of K slices is a chain of K selects per element, and pooling a 16x16 map to 1x1 (K = 256)
    cost ~3 ms a step that way."""
    shape = _shape(x)
    index = [slice(None), slice(None)] + [slice(0, out[d] * kernel[d]) for d in range(nd)]
    if any(out[d] * kernel[d] != shape[2 + d] for d in range(nd)):
        x = x[tuple(index)]
    split = shape[:2]
    for d in range(nd):
        split += [out[d], kernel[d]]
    order = [0, 1] + [3 + 2 * d for d in range(nd)] + [2 + 2 * d for d in range(nd)]
    K = 1
    for k in kernel:
        K *= k
    return x.reshape(split).permute(*order).reshape(shape[:2] + [K] + list(out))


def _place(t, dim, start, step, size):
    """Zeros of length `size` along `dim` with t's elements at start, start+step, ... (the inverse of a slice)."""
    n = t.shape[dim]
    if step > 1:
        t = t.unsqueeze(dim + 1)
        pads = [0, 0] * (t.dim() - dim - 2) + [0, step - 1]
        t = _C._pad(t, pads, 0.0)
        shape = _shape(t)
        t = t.reshape(shape[:dim] + [n * step] + shape[dim + 2:])
    length = t.shape[dim]
    pads = [0, 0] * (t.dim() - dim - 1) + [start, size - start - length]
    return _C._pad(t, pads, 0.0)


def _check_positive(k, d, s, p, fn):
    if min(k) <= 0:
        raise RuntimeError("{}: kernel size should be greater than zero, but got kernel_size={}".format(fn, k))
    if min(d) <= 0:
        raise RuntimeError("{}: dilation should be greater than zero, but got dilation={}".format(fn, d))
    if min(s) <= 0:
        raise RuntimeError("{}: stride should be greater than zero, but got stride={}".format(fn, s))
    if min(p) < 0:
        raise RuntimeError("{}: padding should be non-negative, but got padding={}".format(fn, p))
