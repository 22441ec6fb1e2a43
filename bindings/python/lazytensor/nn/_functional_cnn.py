"""nn.functional for convolutional networks: im2col, convolution, pooling, batch/group norm, interpolate.

Everything here is a composition of existing lazy ops (slices, stack, pad, matmul, reductions,
gather/index_select), so it stays lazy and autograd differentiates it with no op-specific code:

- im2col (`unfold`) is one strided slice of the padded input per kernel offset (a Python loop over
  kernel positions, never over output pixels), stacked on a new dim: [N, C, K, *out] -> [N, C*K, L].
  Its gradient is a sum of pads that the scheduler fuses.
- `conv1d`/`conv2d` = im2col + one (batched, per group) matmul + bias.
- `fold` (col2im) places each kernel offset's block back with a strided pad and sums them.
- `max_pool2d` stacks the window like im2col, takes the argmax over the window and gathers it,
  so the gradient goes to exactly one element per window (PyTorch's first maximum), NaN wins.
- `avg_pool2d` sums the window and divides by a per-window divisor built on the host from the
  shapes only (never from data).
- `adaptive_avg_pool2d` is two matmuls with host-built averaging matrices (or avg_pool2d when the
  sizes divide); `adaptive_max_pool2d` gathers rows/columns of each (variable) window padded by
  repeating its last element, so the maximum is unchanged.
- `batch_norm` updates running statistics with lazy in-place writes; see `_tie`.
"""
import itertools
import math

import numpy as np

from .. import _C
from .._C import Tensor

__all__ = ["unfold", "fold", "conv1d", "conv2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "batch_norm", "group_norm",
           "interpolate", "upsample", "upsample_nearest"]


# ---------------------------------------------------------------- helpers
def _tuple(v, n, name, fn):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            v = tuple(v) * n
        if len(v) != n:
            raise RuntimeError("{}: expected {} to be a single integer or a tuple of {} integers, but got {}".format(
                fn, name, n, tuple(v)))
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _shape(t):
    return list(t.shape)


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


# ---------------------------------------------------------------- unfold / fold
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: [N, C, H, W] (or unbatched [C, H, W]) -> [N, C*kh*kw, L]."""
    if not isinstance(input, Tensor) or input.dim() not in (3, 4):
        raise RuntimeError("unfold: expected 3D or 4D (batch mode) tensor for input, but got: {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    if input.dim() == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    k = _tuple(kernel_size, 2, "kernel_size", "unfold")
    d = _tuple(dilation, 2, "dilation", "unfold")
    p = _tuple(padding, 2, "padding", "unfold")
    s = _tuple(stride, 2, "stride", "unfold")
    _check_positive(k, d, s, p, "unfold")
    cols, out = _im2col(input, 2, k, d, [(x, x) for x in p], s, "unfold")
    n, c = input.shape[0], input.shape[1]
    return cols.reshape(n, c * k[0] * k[1], out[0] * out[1])


def _check_positive(k, d, s, p, fn):
    if min(k) <= 0:
        raise RuntimeError("{}: kernel size should be greater than zero, but got kernel_size={}".format(fn, k))
    if min(d) <= 0:
        raise RuntimeError("{}: dilation should be greater than zero, but got dilation={}".format(fn, d))
    if min(s) <= 0:
        raise RuntimeError("{}: stride should be greater than zero, but got stride={}".format(fn, s))
    if min(p) < 0:
        raise RuntimeError("{}: padding should be non-negative, but got padding={}".format(fn, p))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: [N, C*kh*kw, L] (or unbatched [C*kh*kw, L]) -> [N, C, H, W]; overlapping blocks sum."""
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        raise RuntimeError("fold: expected 2D or 3D (batch mode) tensor for input, but got: {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    o = _tuple(output_size, 2, "output_size", "fold")
    k = _tuple(kernel_size, 2, "kernel_size", "fold")
    d = _tuple(dilation, 2, "dilation", "fold")
    p = _tuple(padding, 2, "padding", "fold")
    s = _tuple(stride, 2, "stride", "fold")
    _check_positive(k, d, s, p, "fold")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, L = x.shape
    K = k[0] * k[1]
    if ck % K != 0:
        raise RuntimeError("fold: expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           "but got input.size(1)={} and kernel_size={}".format(ck, k))
    blocks = [(o[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    if min(blocks) < 1 or blocks[0] * blocks[1] != L:
        raise RuntimeError("fold: given output_size={}, kernel_size={}, dilation={}, padding={}, stride={}, expected "
                           "size of input's dimension 2 to match the calculated number of sliding blocks {} * {} = {}, "
                           "but got input.size(2)={}.".format(o, k, d, p, s, blocks[0], blocks[1],
                                                              blocks[0] * blocks[1], L))
    c = ck // K
    cols = x.reshape(n, c, K, blocks[0], blocks[1])
    hp, wp = o[0] + 2 * p[0], o[1] + 2 * p[1]
    acc = None
    for j, (ki, kj) in enumerate(itertools.product(range(k[0]), range(k[1]))):
        block = cols.select(2, j)
        block = _place(_place(block, 2, ki * d[0], s[0], hp), 3, kj * d[1], s[1], wp)
        acc = block if acc is None else acc + block
    if any(p):
        acc = _C._pad(acc, [-p[1], -p[1], -p[0], -p[0]], 0.0)
    return acc.squeeze(0) if unbatched else acc


# ---------------------------------------------------------------- convolution
def _conv(input, weight, bias, stride, padding, dilation, groups, nd, fn):
    x, unbatched = _check_spatial(input, nd, fn)
    if not isinstance(weight, Tensor) or weight.dim() != nd + 2:
        raise RuntimeError("{}: expected weight to be a {}-D tensor [out_channels, in_channels/groups, *kernel], but "
                           "got weight of size {}".format(fn, nd + 2, _shape(weight)))
    if not x.dtype.is_floating_point or x.dtype != weight.dtype:
        raise RuntimeError("{}: expected input ({}) and weight ({}) to have the same floating point dtype".format(
            fn, x.dtype, weight.dtype))
    s = _tuple(stride, nd, "stride", fn)
    d = _tuple(dilation, nd, "dilation", fn)
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError("{}: non-positive groups is not supported".format(fn))
    if min(s) <= 0:
        raise RuntimeError("{}: non-positive stride is not supported".format(fn))
    if min(d) <= 0:
        raise RuntimeError("{}: dilation should be greater than zero".format(fn))
    k = _shape(weight)[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            if any(v != 1 for v in s):
                raise RuntimeError("{}: padding='same' is not supported for strided convolutions".format(fn))
            pads = []
            for i in range(nd):
                total = d[i] * (k[i] - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise RuntimeError("{}: invalid padding string '{}', expected 'same' or 'valid'".format(fn, padding))
    else:
        p = _tuple(padding, nd, "padding", fn)
        if min(p) < 0:
            raise RuntimeError("{}: negative padding is not supported".format(fn))
        pads = [(v, v) for v in p]
    n, c = x.shape[0], x.shape[1]
    o = weight.shape[0]
    if o % groups != 0:
        raise RuntimeError("{}: given groups={}, expected weight to be divisible by {} at dimension 0, but got weight "
                           "of size {} instead".format(fn, groups, groups, _shape(weight)))
    if weight.shape[1] * groups != c:
        raise RuntimeError("{}: given groups={}, weight of size {}, expected input{} to have {} channels, but got {} "
                           "channels instead".format(fn, groups, _shape(weight), _shape(x),
                                                     weight.shape[1] * groups, c))
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != o):
        raise RuntimeError("{}: given weight of size {}, expected bias to be 1-dimensional with {} elements, but got "
                           "bias of size {} instead".format(fn, _shape(weight), o, _shape(bias)))
    cols, out = _im2col(x, nd, k, d, pads, s, fn)
    K = 1
    for v in k:
        K *= v
    L = 1
    for v in out:
        L *= v
    if groups == 1:
        y = weight.reshape(o, c * K).matmul(cols.reshape(n, c * K, L))  # [N, O, L]
    else:
        cg = c // groups
        y = weight.reshape(groups, o // groups, cg * K).matmul(cols.reshape(n, groups, cg * K, L))
    y = y.reshape([n, o] + out)
    if bias is not None:
        y = y + bias.reshape([1, o] + [1] * nd)
    return y.squeeze(0) if unbatched else y


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


# ---------------------------------------------------------------- pooling
def _pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_args(input, kernel_size, stride, padding, dilation, nd, fn, ceil_mode):
    x, unbatched = _check_spatial(input, nd, fn)
    k = _tuple(kernel_size, nd, "kernel_size", fn)
    s = k if (stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0)) else _tuple(
        stride, nd, "stride", fn)
    p = _tuple(padding, nd, "padding", fn)
    d = _tuple(dilation, nd, "dilation", fn)
    _check_positive(k, d, s, p, fn)
    for i in range(nd):
        if p[i] > k[i] // 2:
            raise RuntimeError("{}: pad should be at most half of effective kernel size, but got pad={}, "
                               "kernel_size={} and dilation={}".format(fn, p[i], k[i], d[i]))
    spatial = _shape(x)[2:]
    out = [_pool_out(spatial[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(nd)]
    if min(out) < 1:
        raise RuntimeError("{}: given input size: ({}x{}). Calculated output size: ({}x{}). Output size is too "
                           "small".format(fn, x.shape[1], "x".join(map(str, spatial)), x.shape[1],
                                          "x".join(map(str, out))))
    return x, unbatched, k, s, p, d, out


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd, fn):
    x, unbatched, k, s, p, d, out = _pool_args(input, kernel_size, stride, padding, dilation, nd, fn, ceil_mode)
    if not x.dtype.is_floating_point:
        raise RuntimeError("{}: expected a floating point input, got {}".format(fn, x.dtype))
    win, out = _im2col(x, nd, k, d, [(v, v) for v in p], s, fn, pad_value=float("-inf"), extra=out)
    arg = win.argmax(2, keepdim=True)  # first maximum in window order; NaN wins (as PyTorch)
    values = win.gather(2, arg).squeeze(2)
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    spatial = _shape(x)[2:]

    def table():
        grids = np.meshgrid(*[np.arange(v) for v in k], *[np.arange(v) for v in out], indexing="ij")
        flat = np.zeros(grids[0].shape, np.int64)
        for i in range(nd):
            pos = grids[nd + i] * s[i] - p[i] + grids[i] * d[i]
            flat = flat * spatial[i] + pos
        return flat.reshape([int(np.prod(k))] + out)
    tab = _cached_const(("maxpool_idx", tuple(spatial), k, s, p, d, tuple(out)), table)
    idx = tab.unsqueeze(0).unsqueeze(0).expand(*_shape(win)).gather(2, arg).squeeze(2)
    return values, (idx.squeeze(0) if unbatched else idx)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd, fn):
    x, unbatched, k, s, p, d, out = _pool_args(input, kernel_size, stride, padding, 1, nd, fn, ceil_mode)
    if not x.dtype.is_floating_point:
        raise RuntimeError("{}: expected a floating point input, got {}".format(fn, x.dtype))
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("{}: divisor must be not zero".format(fn))
    win, out = _im2col(x, nd, k, d, [(v, v) for v in p], s, fn, extra=out)
    total = win.sum(2)
    if divisor_override is not None:
        y = total / float(divisor_override)
    else:
        spatial = _shape(x)[2:]

        def divisor():
            counts = []
            for i in range(nd):
                start = np.arange(out[i]) * s[i] - p[i]
                end = np.minimum(start + k[i], spatial[i] + p[i])
                size = end - start
                if not count_include_pad:
                    size = np.minimum(end, spatial[i]) - np.maximum(start, 0)
                counts.append(size)
            div = counts[0]
            for c in counts[1:]:
                div = np.multiply.outer(div, c)
            return div.astype(np.float64)
        div = divisor()
        if np.all(div == div.flat[0]):
            y = total / float(div.flat[0])
        else:
            y = total / _cached_const(("avgpool_div", tuple(spatial), k, s, p, ceil_mode, count_include_pad,
                                       repr(x.dtype)),
                                      lambda: div.astype(np.float64 if x.dtype == _C.float64 else np.float32))
    return y.squeeze(0) if unbatched else y


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


def _adaptive_sizes(input, output_size, nd, fn):
    x, unbatched = _check_spatial(input, nd, fn)
    spatial = _shape(x)[2:]
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise RuntimeError("{}: output_size must be {}".format(fn, nd))
        out = [spatial[i] if output_size[i] is None else int(output_size[i]) for i in range(nd)]
    else:
        out = [int(output_size)] * nd
    if min(out) < 0:
        raise RuntimeError("{}: elements of output_size must be greater than or equal to 0 but received {}".format(
            fn, tuple(out)))
    for i, v in enumerate(spatial):
        if v == 0:
            raise RuntimeError("{}: expected input to have non-zero size for non-batch dimensions, but input has "
                               "sizes {} with dimension {} being empty".format(fn, _shape(input), i + 2))
    return x, unbatched, spatial, out


def _adaptive_bounds(size, out):
    start = (np.arange(out) * size) // out
    end = -((-(np.arange(out) + 1) * size) // out)  # ceil
    return start, end


def _adaptive_avg(input, output_size, nd, fn):
    x, unbatched, spatial, out = _adaptive_sizes(input, output_size, nd, fn)
    if all(spatial[i] % out[i] == 0 for i in range(nd)) and min(out) > 0:
        k = [spatial[i] // out[i] for i in range(nd)]
        y = _avg_pool(x, k, k, 0, False, True, None, nd, fn)
    else:
        y = x
        for i in range(nd):
            dim = 2 + i

            def mat(i=i):
                start, end = _adaptive_bounds(spatial[i], out[i])
                m = np.zeros((out[i], spatial[i]), np.float64)
                for r in range(out[i]):
                    m[r, start[r]:end[r]] = 1.0 / (end[r] - start[r])
                return m.astype(np.float32 if x.dtype == _C.float32 else np.float64)
            m = _cached_const(("adaptive_avg", spatial[i], out[i], repr(x.dtype)), mat)
            y = y.transpose(dim, -1).matmul(m.t()).transpose(dim, -1)
    return y.squeeze(0) if unbatched else y


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    x, unbatched, spatial, out = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d")
    if not x.dtype.is_floating_point:
        raise RuntimeError("adaptive_max_pool2d: expected a floating point input, got {}".format(x.dtype))
    H, W = spatial
    tabs = []
    for i in range(2):
        start, end = _adaptive_bounds(spatial[i], out[i])
        kmax = int((end - start).max()) if out[i] > 0 else 1
        idx = np.minimum(start[:, None] + np.arange(kmax)[None, :], end[:, None] - 1)  # repeat the last element
        tabs.append(idx)
    kh, kw = tabs[0].shape[1], tabs[1].shape[1]
    ih = _cached_const(("amax_rows", H, out[0]), lambda: tabs[0].reshape(-1).astype(np.int64))
    iw = _cached_const(("amax_rows", W, out[1]), lambda: tabs[1].reshape(-1).astype(np.int64))
    n, c = x.shape[0], x.shape[1]
    win = x.index_select(2, ih).index_select(3, iw)  # [N, C, Oh*kh, Ow*kw]
    win = win.reshape(n, c, out[0], kh, out[1], kw).permute(0, 1, 2, 4, 3, 5).reshape(n, c, out[0], out[1], kh * kw)
    arg = win.argmax(4, keepdim=True)
    values = win.gather(4, arg).squeeze(4)
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values

    def table():
        flat = tabs[0][:, None, :, None] * W + tabs[1][None, :, None, :]  # [Oh, Ow, kh, kw]
        return flat.reshape(out[0], out[1], kh * kw).astype(np.int64)
    tab = _cached_const(("amax_idx", H, W, tuple(out)), table)
    idx = tab.unsqueeze(0).unsqueeze(0).expand(n, c, out[0], out[1], kh * kw).gather(4, arg).squeeze(4)
    return values, (idx.squeeze(0) if unbatched else idx)


# ---------------------------------------------------------------- normalisation
def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, tie=()):
    if not isinstance(input, Tensor) or input.dim() < 2:
        raise ValueError("batch_norm: expected an input with at least 2 dims [N, C, ...], got {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError("batch_norm: expected {} to have shape [{}] (the input's channels, input {}), but got "
                               "{}".format(name, c, _shape(input), _shape(t)))
    dims = [0] + list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError("batch_norm: expected more than 1 value per channel when training, got input size "
                             "{}".format(_shape(input)))
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        side = list(tie)
        if running_mean is not None or running_var is not None:
            from .._functions import no_grad
            with no_grad():
                if running_mean is not None:
                    running_mean.copy_(running_mean * (1 - momentum) + mean.detach() * momentum)
                    side.append(running_mean)
                if running_var is not None:
                    running_var.copy_(running_var * (1 - momentum) + var.detach() * (momentum * count / (count - 1)))
                    side.append(running_var)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean, running_var
        side = list(tie)
    out = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return _tie(out, side)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """PyTorch 1.13's F.batch_norm. Training normalises with the biased batch variance and updates the
    running statistics in place (lazily: no sync) with the unbiased one."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if not isinstance(input, Tensor) or input.dim() < 2:
        raise RuntimeError("group_norm: expected an input with at least 2 dims [N, C, ...], got {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           "shape {} and num_groups={}".format(_shape(input), num_groups))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError("group_norm: expected {} to have shape [{}], but got {}".format(name, c, _shape(t)))
    x = input.reshape(n, num_groups, -1)
    mean = x.mean(2, keepdim=True)
    var = x.var(2, unbiased=False, keepdim=True)
    out = ((x - mean) * (var + eps).rsqrt()).reshape(_shape(input))
    shape = [1, c] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


# ---------------------------------------------------------------- interpolate
def _nearest_index(insize, outsize, scale):
    """PyTorch's nearest source index: min(floor(dst * s), in - 1), s a float32 (1/scale_factor or in/out)."""
    if outsize == insize:
        return np.arange(outsize, dtype=np.int64)
    if outsize == 2 * insize:
        return np.arange(outsize, dtype=np.int64) >> 1
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(insize) / np.float32(outsize)
    idx = np.floor(np.arange(outsize, dtype=np.float32) * s).astype(np.int64)
    return np.minimum(idx, insize - 1)


def _linear_weights(insize, outsize, scale, align_corners):
    """PyTorch's (bi)linear source indices and lambdas (area_pixel_compute_source_index), in float32."""
    if align_corners:
        s = np.float32((insize - 1) / (outsize - 1)) if outsize > 1 else np.float32(0)
        src = np.arange(outsize, dtype=np.float32) * s
    else:
        s = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(insize) / np.float32(outsize)
        src = s * (np.arange(outsize, dtype=np.float32) + np.float32(0.5)) - np.float32(0.5)
        src = np.maximum(src, np.float32(0))
    i0 = np.floor(src).astype(np.int64)
    i0 = np.minimum(i0, insize - 1)
    i1 = np.minimum(i0 + 1, insize - 1)
    lam1 = (src - i0.astype(np.float32)).astype(np.float32)
    lam0 = (np.float32(1) - lam1).astype(np.float32)
    return i0, i1, lam0, lam1


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """F.interpolate for mode 'nearest' (3-D/4-D input) and 'linear'/'bilinear' (with align_corners)."""
    if not isinstance(input, Tensor):
        raise TypeError("interpolate(): argument 'input' must be Tensor")
    nd = input.dim() - 2
    if nd not in (1, 2):
        raise NotImplementedError("interpolate: lazytensor supports 3-D and 4-D input (got {}D)".format(input.dim()))
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if mode not in ("nearest", "linear", "bilinear"):
        raise NotImplementedError("interpolate: mode '{}' is not supported by lazytensor (nearest, linear, "
                                  "bilinear are)".format(mode))
    if (mode == "linear" and nd != 1) or (mode == "bilinear" and nd != 2):
        raise NotImplementedError("Got {}D input, but {} mode needs {}D input".format(
            input.dim(), mode, 3 if mode == "linear" else 4))
    if antialias:
        raise NotImplementedError("interpolate: antialias is not supported by lazytensor")
    spatial = _shape(input)[2:]
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = list(size) if isinstance(size, (list, tuple)) else [size] * nd
        if len(out) != nd:
            raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                             "spatial dimensions of {} and output size of {}. Please provide input tensor in "
                             "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.".format(
                                 spatial, out))
        out = [int(v) for v in out]
        scales = [None] * nd
    elif scale_factor is not None:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nd
        if len(scales) != nd:
            raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got input "
                             "with spatial dimensions of {} and scale_factor of shape {}. Please provide input tensor "
                             "in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.".format(
                                 spatial, scales))
        out = [int(math.floor(float(spatial[i]) * float(scales[i]))) for i in range(nd)]
        if recompute_scale_factor:
            scales = [None] * nd
    else:
        raise ValueError("either size or scale_factor should be defined")
    if min(out) <= 0:
        raise RuntimeError("interpolate: input and output sizes should be greater than 0, but got input {} and output "
                           "{}".format(spatial, out))
    y = input
    for i in range(nd):
        dim = 2 + i
        if mode == "nearest":
            idx = _cached_const(("nearest", spatial[i], out[i], scales[i]),
                                lambda i=i: _nearest_index(spatial[i], out[i], scales[i]))
            y = y.index_select(dim, idx)
        else:
            if not y.dtype.is_floating_point:
                raise RuntimeError("interpolate: {} mode needs a floating point input".format(mode))
            i0, i1, l0, l1 = _linear_weights(spatial[i], out[i], scales[i], align_corners)
            key = ("linear", spatial[i], out[i], scales[i], bool(align_corners))
            t0 = _cached_const(key + ("i0",), lambda: i0)
            t1 = _cached_const(key + ("i1",), lambda: i1)
            w0 = _cached_const(key + ("l0",), lambda: l0).to(y.dtype)
            w1 = _cached_const(key + ("l1",), lambda: l1).to(y.dtype)
            bshape = [1] * y.dim()
            bshape[dim] = out[i]
            y = y.index_select(dim, t0) * w0.reshape(bshape) + y.index_select(dim, t1) * w1.reshape(bshape)
    return y


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")
