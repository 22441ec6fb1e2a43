"""Distances: cosine_similarity, pairwise_distance and pdist."""
import math

import numpy as np

from .. import _C

from ._checks import _broadcast_shape, _to_float


def _clamped_norm(x, dim, eps):
    """max(||x||_2, eps) over dim (keepdim), with PyTorch 1.13's gradient x / max(||x||, eps).

    PyTorch clamps the norm in place under no_grad, so its backward divides by the clamped
    value; a straight-through term over the squared norm s reproduces that: value n_c,
    gradient d(s)/dx / (2 n_c) = x / n_c (and no NaN at a zero vector).
    """
    s = (x * x).sum(dim, keepdim=True)
    nc = s.sqrt().clamp_min(eps).detach()
    return nc + (s - s.detach()) * (0.5 / nc)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    shape = _broadcast_shape("cosine_similarity", x1, x2)
    x1, x2 = _to_float(x1), _to_float(x2)
    if tuple(x1.shape) != shape:
        x1 = x1.expand(*shape)
    if tuple(x2.shape) != shape:
        x2 = x2.expand(*shape)
    if len(shape) == 0:
        x1, x2, dim, squeeze = x1.reshape(1), x2.reshape(1), 0, True
    else:
        squeeze = False
    out = ((x1 / _clamped_norm(x1, dim, eps)) * (x2 / _clamped_norm(x2, dim, eps))).sum(dim)
    return out.reshape(()) if squeeze else out


def _vector_norm(x, p, dim, keepdim):
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=keepdim)
    if p == math.inf:
        return x.abs().amax(dim, keepdim=keepdim)
    if p == -math.inf:
        return x.abs().amin(dim, keepdim=keepdim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim, keepdim=keepdim)
    return (x.abs() ** p).sum(dim, keepdim=keepdim) ** (1.0 / p)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    _broadcast_shape("pairwise_distance", x1, x2)
    d = x1 - x2 + eps
    if d.dim() == 0:
        return _vector_norm(d.reshape(1), p, 0, keepdim).reshape(())
    return _vector_norm(d, p, -1, keepdim)



def pdist(input, p=2):
    """The p-norm distances between the rows of a 2-D input, i < j in row-major order: the difference of two
    index_selects by host-built pair indices, then Tensor.norm (zero gradient at a zero distance, as PyTorch)."""
    if input.dim() != 2:
        raise RuntimeError("pdist only supports 2D tensors, got: {}D".format(input.dim()))
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    first, second = np.triu_indices(input.shape[0], 1)
    rows = _C.from_numpy(first.astype(np.int64)), _C.from_numpy(second.astype(np.int64))
    diff = input.index_select(0, rows[0]) - input.index_select(0, rows[1])
    return diff.norm(p, 1)


__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]
