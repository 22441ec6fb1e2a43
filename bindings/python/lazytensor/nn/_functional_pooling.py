"""Pooling: max_pool1d/2d/3d, avg_pool1d/2d/3d, max_unpool1d/2d/3d, adaptive_avg_pool1d/2d and
adaptive_max_pool2d.

- `max_pool2d` stacks the window like im2col, takes the argmax over the window and gathers it,
  so the gradient goes to exactly one element per window (PyTorch's first maximum), NaN wins.
- `avg_pool2d` sums the window and divides by a per-window divisor built on the host from the
  shapes only (never from data).
- `max_unpool2d` scatters each value to its flat index in a zero output (a scatter_add; see _max_unpool
  for duplicate indices).
- `adaptive_avg_pool2d` is two matmuls with host-built averaging matrices (or avg_pool2d when the
  sizes divide); `adaptive_max_pool2d` gathers rows/columns of each (variable) window padded by
  repeating its last element, so the maximum is unchanged.
"""
import numpy as np

from .. import _C
from ._checks import _shape
from ._spatial import _cached_const, _check_positive, _check_spatial, _im2col, _tuple


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


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3, "max_pool3d")


def _unpool_size(spatial, k, s, p, output_size, nd, fn):
    default = [(spatial[i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd)]
    if output_size is None:
        return default
    out = [int(v) for v in output_size]
    if len(out) == nd + 2:
        out = out[2:]
    if len(out) != nd:
        raise ValueError("{}: output_size should be a sequence containing {} or {} elements, but it has a length of "
                         "'{}'".format(fn, nd, nd + 2, len(out)))
    for i in range(nd):
        lo, hi = default[i] - s[i], default[i] + s[i]
        if not lo < out[i] < hi:
            raise ValueError("{}: invalid output_size {} (dim {} must be between {} and {})".format(
                fn, out, i, lo + 1, hi - 1))
    return out


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd, fn):
    """out.flat[indices] = input per (N, C) plane, zeros elsewhere.

    max_pool's indices repeat only when windows overlap, and then name the same input element, so the values
    written there are equal: a repeated position gets their mean (the value itself) and every source the full
    upstream gradient, as PyTorch's gather backward. A position written once is the scatter_add itself."""
    x, unbatched = _check_spatial(input, nd, fn)
    if not isinstance(indices, _C.Tensor) or indices.dtype != _C.int64:
        raise RuntimeError("{}: expected indices to be a long (int64) tensor, got {}".format(
            fn, indices.dtype if isinstance(indices, _C.Tensor) else type(indices).__name__))
    if _shape(indices) != _shape(input):
        raise RuntimeError("{}: expected shape of indices to be same as that of the input tensor ({}) but got indices "
                           "tensor with shape: {}".format(fn, _shape(input), _shape(indices)))
    k = _tuple(kernel_size, nd, "kernel_size", fn)
    s = k if stride is None else _tuple(stride, nd, "stride", fn)
    p = _tuple(padding, nd, "padding", fn)
    spatial = _shape(x)[2:]
    out = _unpool_size(spatial, k, s, p, output_size, nd, fn)
    n, c = x.shape[0], x.shape[1]
    total = int(np.prod(out))
    idx = (indices.unsqueeze(0) if unbatched else indices).reshape(n, c, -1)
    src = x.reshape(n, c, -1)
    zeros = _C.zeros(n, c, total, dtype=x.dtype)
    summed = zeros.scatter_add(2, idx, src)
    count = _C.zeros(n, c, total, dtype=x.dtype).scatter_add(2, idx, _C.ones(*_shape(src), dtype=x.dtype))
    repeated = count > 1
    mean = summed.detach() / _C._where3(repeated, count, 1.0)
    y = _C._where3(repeated, summed - summed.detach() + mean, summed).reshape([n, c] + out)
    return y.squeeze(0) if unbatched else y


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


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


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3,
                     "avg_pool3d")


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


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


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


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool2d over a size-1 height: the flat indices are then the positions along L."""
    if not isinstance(input, _C.Tensor) or input.dim() not in (2, 3):
        raise RuntimeError("adaptive_max_pool1d(): Expected 2D or 3D tensor, but got {}".format(
            list(input.shape) if isinstance(input, _C.Tensor) else type(input).__name__))
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def _with_indices(fn):
    def f(*args, **kwargs):
        kwargs["return_indices"] = True
        return fn(*args, **kwargs)
    f.__name__ = fn.__name__ + "_with_indices"
    f.__doc__ = "{}(..., return_indices=True)".format(fn.__name__)
    return f


max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices = (
    _with_indices(max_pool1d), _with_indices(max_pool2d), _with_indices(max_pool3d))
adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices = (
    _with_indices(adaptive_max_pool1d), _with_indices(adaptive_max_pool2d))


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """PyTorch's formula: (sum over the window of x^p)^(1/p), from avg_pool of x^p times the window size."""
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size, kernel_size)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kh * kw).pow(1.0 / norm_type)


__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "avg_pool1d",
           "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "adaptive_max_pool1d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "lp_pool1d", "lp_pool2d", "adaptive_avg_pool3d"]
