"""Vision functions: pad, interpolate (upsample, upsample_nearest), pixel_shuffle, pixel_unshuffle and
channel_shuffle."""
import math

import numpy as np

from .. import _C
from .._C import Tensor
from ._checks import _shape, _tensor_arg
from ._spatial import _cached_const


def pad(input, pad, mode="constant", value=None):
    """F.pad. 'constant' is the pad primitive; 'reflect', 'replicate' and 'circular' are one index_select per
    padded dim with a host-built source index (so the gradient is index_select's: padded copies add back)."""
    if mode == "constant":
        return _C._pad(input, list(pad), 0.0 if value is None else float(value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError("pad: unrecognised padding mode '{}' (expected 'constant', 'reflect', 'replicate' "
                                  "or 'circular')".format(mode))
    _tensor_arg("pad", "input", input)
    if value is not None:
        raise RuntimeError('Padding mode "{}" doesn\'t take in value argument'.format(mode))
    pad = [int(v) for v in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k, nd = len(pad) // 2, input.dim()
    if k > nd:
        raise RuntimeError("pad: Padding length too large ({} values for input of size {})".format(
            len(pad), _shape(input)))
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError("pad: '{}' padding of {} dims needs a {}-D or {}-D input, but got input of size {} "
                                  "(only 2D, 3D, 4D, 5D padding with non-constant padding are supported)".format(
                                      mode, k, k + 1, k + 2, _shape(input)))
    if mode == "circular" and len(pad) != 2 * (nd - 2):
        raise RuntimeError("pad: circular padding of input {} expects {} padding values (two per dim after batch "
                           "and channel), but got {}".format(_shape(input), 2 * (nd - 2), len(pad)))
    y = input
    for i in range(k):
        dim = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = input.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError("pad: reflect padding size should be less than the corresponding input dimension, but "
                               "got padding ({}, {}) at dimension {} of input {}".format(lo, hi, dim, _shape(input)))
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("pad: circular padding ({}, {}) at dimension {} of input {} causes wrapping around "
                               "more than once".format(lo, hi, dim, _shape(input)))
        if n == 0 or n + lo + hi < 0:
            raise RuntimeError("pad: '{}' padding needs non-empty dims, but input {} with padding ({}, {}) at "
                               "dimension {} gives size {}".format(mode, _shape(input), lo, hi, dim, n + lo + hi))
        if lo == 0 and hi == 0:
            continue
        idx = _cached_const(("pad", mode, n, lo, hi), lambda n=n, lo=lo, hi=hi: _pad_source(mode, n, lo, hi))
        y = y.index_select(dim, idx)
    return y


def _pad_source(mode, n, lo, hi):
    """The source position along a dim of size n of each output position of F.pad(mode) with (lo, hi)."""
    j = np.arange(-lo, n + hi)
    if mode == "reflect":
        j = np.abs(j)
        j = np.where(j >= n, 2 * (n - 1) - j, j)
    elif mode == "replicate":
        j = np.clip(j, 0, n - 1)
    else:  # circular: negative pads crop first, positive ones wrap around what is left (PyTorch's order)
        start, stop = max(-lo, 0), n - max(-hi, 0)
        j = start + np.mod(np.arange(-max(lo, 0), stop - start + max(hi, 0)), stop - start)
    return j.astype(np.int64)


def _nearest_index(insize, outsize, scale, exact=False):
    """PyTorch's nearest source index: min(floor(dst * s), in - 1), s a float32 (1/scale_factor or in/out);
    'nearest-exact': min(floor((dst + 0.5) * s), in - 1), the product in double as in PyTorch's kernel."""
    if outsize == insize and scale is None:
        return np.arange(outsize, dtype=np.int64)
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(insize) / np.float32(outsize)
    if exact:
        src = np.float32((np.arange(outsize, dtype=np.float64) + 0.5) * np.float64(s))
    else:
        src = np.arange(outsize, dtype=np.float32) * s
    return np.minimum(np.floor(src).astype(np.int64), insize - 1)


def _linear_weights(insize, outsize, scale, align_corners, ft=np.float32):
    """PyTorch's (bi/tri)linear source indices and lambdas (area_pixel_compute_source_index), computed in the
    input's precision `ft` as PyTorch's kernel does (float32 for float32 input, float64 for float64)."""
    if align_corners:
        s = ft((insize - 1) / (outsize - 1)) if outsize > 1 else ft(0)
        src = np.arange(outsize, dtype=ft) * s
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(insize) / ft(outsize)
        src = s * (np.arange(outsize, dtype=ft) + ft(0.5)) - ft(0.5)
        src = np.maximum(src, ft(0))
    i0 = np.floor(src).astype(np.int64)
    i0 = np.minimum(i0, insize - 1)
    i1 = np.minimum(i0 + 1, insize - 1)
    lam1 = (src - i0.astype(ft)).astype(ft)
    lam0 = (ft(1) - lam1).astype(ft)
    return i0, i1, lam0, lam1


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """F.interpolate for modes 'nearest' and 'nearest-exact' (3-D, 4-D and 5-D input) and 'linear', 'bilinear',
    'trilinear' (with align_corners): one index_select (two, weighted, for the linear modes) per spatial dim."""
    if not isinstance(input, Tensor):
        raise TypeError("interpolate(): argument 'input' must be Tensor")
    nd = input.dim() - 2
    if nd not in (1, 2, 3):
        raise NotImplementedError("interpolate: input must be 3-D, 4-D or 5-D ([N, C, *spatial]), but got input of "
                                  "size {}".format(_shape(input)))
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    linear_dims = {"linear": 1, "bilinear": 2, "trilinear": 3}
    if mode not in ("nearest", "nearest-exact") and mode not in linear_dims:
        raise NotImplementedError("interpolate: mode '{}' is not supported by lazytensor (nearest, nearest-exact, "
                                  "linear, bilinear, trilinear are)".format(mode))
    if mode in linear_dims and linear_dims[mode] != nd:
        raise NotImplementedError("Got {}D input, but {} mode needs {}D input".format(
            input.dim(), mode, linear_dims[mode] + 2))
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
        if mode in ("nearest", "nearest-exact"):
            exact = mode == "nearest-exact"
            idx = _cached_const((mode, spatial[i], out[i], scales[i]),
                                lambda i=i: _nearest_index(spatial[i], out[i], scales[i], exact))
            y = y.index_select(dim, idx)
        else:
            if not y.dtype.is_floating_point:
                raise RuntimeError("interpolate: {} mode needs a floating point input".format(mode))
            ft = np.float64 if y.dtype == _C.float64 else np.float32
            i0, i1, l0, l1 = _linear_weights(spatial[i], out[i], scales[i], align_corners, ft)
            key = ("linear", spatial[i], out[i], scales[i], bool(align_corners), ft)
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


def _shuffle_factor(name, input, factor, factor_name):
    """pixel_shuffle/pixel_unshuffle's argument checks (PyTorch's messages); returns the factor as an int."""
    _tensor_arg(name, "input", input)
    r = int(factor)
    if input.dim() < 3:
        raise RuntimeError("{} expects input to have at least 3 dimensions, but got input with {} "
                           "dimension(s)".format(name, input.dim()))
    if r <= 0:
        raise RuntimeError("{} expects a positive {}, but got {}".format(name, factor_name, r))
    return r


def pixel_shuffle(input, upscale_factor):
    r = _shuffle_factor("pixel_shuffle", input, upscale_factor, "upscale_factor")
    *lead, c, h, w = _shape(input)
    if c % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           "upscale_factor, but input.size(-3)={} is not divisible by {}".format(c, r * r))
    oc = c // (r * r)
    b = len(lead)
    x = input.reshape(lead + [oc, r, r, h, w])
    x = x.permute(list(range(b)) + [b, b + 3, b + 1, b + 4, b + 2])
    return x.reshape(lead + [oc, h * r, w * r])


def pixel_unshuffle(input, downscale_factor):
    r = _shuffle_factor("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    *lead, c, h, w = _shape(input)
    if h % r != 0 or w % r != 0:
        raise RuntimeError("pixel_unshuffle expects height ({}) and width ({}) to be divisible by downscale_factor "
                           "({})".format(h, w, r))
    b = len(lead)
    x = input.reshape(lead + [c, h // r, r, w // r, r])
    x = x.permute(list(range(b)) + [b, b + 2, b + 4, b + 1, b + 3])
    return x.reshape(lead + [c * r * r, h // r, w // r])


def channel_shuffle(input, groups):
    _tensor_arg("channel_shuffle", "input", input)
    if input.dim() < 3:
        raise RuntimeError("channel_shuffle expects input to have at least 3 dimensions, but got input with {} "
                           "dimension(s)".format(input.dim()))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of groups:{}".format(
            groups))
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError("Number of channels must be divisible by groups. Got {} channels and {} groups.".format(
            c, groups))
    rest = _shape(input)[2:]
    x = input.reshape([n, groups, c // groups] + rest).transpose(1, 2)
    return x.reshape(_shape(input))


__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle"]
