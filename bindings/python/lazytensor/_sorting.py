"""The sort family (PyTorch 1.13): sort, argsort, msort, topk, kthvalue, median, unique, bincount,
searchsorted, bucketize, quantile and nanquantile.

Lazy formulation (no sync, differentiable values): the stable rank of every element along `dim` is a
fused compare-and-sum reduction over a broadcast [..., n, n]:

    rank_i = sum_j [x_j before x_i]   with   before = x_j < x_i  or  (x_j == x_i and j < i)

(NaN sorts as the largest value and NaNs are equal to each other, as in PyTorch; descending swaps
`<` for `>`). The permutation is a scatter of positions by rank, and values are
`gather(x, indices)`, so gradients flow exactly as PyTorch's (to the selected elements).

That costs O(n^2) work per row, so past `LAZY_SORT_MAX` elements along the sorted dim the indices
are computed on the host instead: a **sync** of the input, a stable NumPy argsort, and an upload of
the indices; values are still `gather(x, indices)` (lazy, differentiable).

Always syncing, because the output shape depends on the data: `unique` (NumPy on the host) and
`bincount` (reads the input's maximum; the counting itself is a lazy scatter_add).
`searchsorted` and `bucketize` are lazy compare-and-count reductions.
"""
import builtins
from collections import namedtuple

import numpy as np

from . import _C
from ._C import Tensor
from ._creation import tensor
from ._gradient_terms import with_gradient

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "unique", "bincount", "searchsorted",
           "bucketize"]

#: Longest sorted dim handled lazily (O(n^2) compare-and-sum); longer dims sort on the host (a sync).
LAZY_SORT_MAX = 2048

_sort_t = namedtuple("sort", ["values", "indices"])
_topk_t = namedtuple("topk", ["values", "indices"])
_kthvalue_t = namedtuple("kthvalue", ["values", "indices"])
_median_t = namedtuple("median", ["values", "indices"])


def _check_tensor(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError("{}(): argument 'input' (position 1) must be Tensor, not {}".format(fn, type(x).__name__))


def _wrap_dim(dim, ndim, fn):
    n = builtins.max(ndim, 1)
    if not isinstance(dim, int) or isinstance(dim, builtins.bool):
        raise TypeError("{}(): argument 'dim' must be int, not {}".format(fn, type(dim).__name__))
    if dim < -n or dim >= n:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -n, n - 1, dim))
    return dim % n


def _lazy_rank(x, descending):
    """Stable rank along the last dim of x [..., n] (int64), NaN largest."""
    n = x.shape[-1]
    if x.dtype == _C.bool:
        x = x.to(_C.int32)
    a = x.unsqueeze(-1)  # x_i, [..., n, 1]
    b = x.unsqueeze(-2)  # x_j, [..., 1, n]
    if descending:
        first = b > a
    else:
        first = b < a
    equal = b == a
    if x.dtype.is_floating_point:
        na, nb = a.isnan(), b.isnan()
        if descending:
            first = first | (nb & ~na)
        else:
            first = first | (na & ~nb)
        equal = equal | (na & nb)
    ar = _C.arange(n)
    j_before_i = ar.unsqueeze(0) < ar.unsqueeze(1)  # [i, j]: j < i
    return (first | (equal & j_before_i)).sum(-1)


def _host_perm(x, descending):
    """Stable argsort along the last dim on the host (syncs x), NaN largest."""
    arr = _C._to_numpy(x.detach())
    if arr.dtype == np.bool_:
        arr = arr.astype(np.int32)
    if not descending:
        perm = np.argsort(arr, axis=-1, kind="stable")  # NumPy puts NaN last, as PyTorch
    else:
        n = arr.shape[-1]
        asc = np.argsort(np.flip(arr, -1), axis=-1, kind="stable")
        perm = np.flip(n - 1 - asc, -1)
    return _C.from_numpy(np.ascontiguousarray(perm.astype(np.int64)))


def _perm_last(x, descending):
    """Indices that sort x [..., n] along its last dim (stable), as int64 [..., n]."""
    n = x.shape[-1]
    if n > LAZY_SORT_MAX:
        return _host_perm(x, descending)
    rank = _lazy_rank(x, descending)
    pos = _C.arange(n).expand(*list(rank.shape))
    return _C.zeros(*list(rank.shape), dtype=_C.int64).scatter_add(-1, rank, pos)


def _sorted_along(input, dim, descending, fn):
    """(values, indices) of a stable sort of input along dim."""
    _check_tensor(input, fn)
    dim = _wrap_dim(dim, input.dim(), fn)
    if input.dim() == 0:
        return input.clone(), _C.zeros((), dtype=_C.int64)
    if input.numel() == 0:
        return input.clone(), _C.zeros(*list(input.shape), dtype=_C.int64)
    last = input.dim() - 1
    x = input.transpose(dim, last) if dim != last else input
    perm = _perm_last(x, descending)
    values = x.gather(last, perm)
    if dim != last:
        values, perm = values.transpose(dim, last), perm.transpose(dim, last)
    return values, perm


def sort(input, dim=-1, descending=False, *, stable=False):
    """torch.sort: (values, indices); always stable (PyTorch's CPU sort is too). Lazy up to LAZY_SORT_MAX
    elements along dim; longer dims sync (host argsort)."""
    if isinstance(dim, builtins.bool):  # sort(x, True) is not a dim
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    v, i = _sorted_along(input, dim, descending, "sort")
    return _sort_t(v, i)


def argsort(input, dim=-1, descending=False, *, stable=False):
    return sort(input, dim, descending, stable=stable).indices


def msort(input):
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    """torch.topk: the k largest (or smallest) along dim, always in sorted order (ties: lower index first)."""
    _check_tensor(input, "topk")
    d = _wrap_dim(dim, input.dim(), "topk")
    n = input.shape[d] if input.dim() > 0 else 1
    if not isinstance(k, int) or k < 0 or k > n:
        raise RuntimeError("topk(): selected index k out of range (k={}, dim {} of size {}, input {})".format(
            k, dim, n, list(input.shape)))
    v, i = _sorted_along(input, d, largest, "topk")
    if input.dim() == 0:
        return _topk_t(v, i)  # PyTorch returns the element for k = 0 and k = 1 alike
    return _topk_t(v.narrow(d, 0, k), i.narrow(d, 0, k))


def kthvalue(input, k, dim=-1, keepdim=False):
    """torch.kthvalue: the k-th smallest (1-based) along dim and its index."""
    _check_tensor(input, "kthvalue")
    d = _wrap_dim(dim, input.dim(), "kthvalue")
    n = input.shape[d] if input.dim() > 0 else 1
    if not isinstance(k, int) or k < 1 or k > n:
        raise RuntimeError("kthvalue(): selected number k out of range for dimension {} (k={}, size {})".format(
            dim, k, n))
    v, i = _sorted_along(input, d, False, "kthvalue")
    if input.dim() == 0:
        return _kthvalue_t(v, i)
    v, i = v.narrow(d, k - 1, 1), i.narrow(d, k - 1, 1)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return _kthvalue_t(v, i)


def median(input, dim=None, keepdim=False):
    """torch.median: the lower median (element (n-1)//2 of the sorted values); NaN if the row has a NaN
    (with the first NaN's index). Without dim: over all elements, values only."""
    _check_tensor(input, "median")
    if dim is None:
        x = input.reshape(-1)
        if x.numel() == 0:
            return _C.full((), float("nan"), dtype=input.dtype) if input.dtype.is_floating_point else x.sum() * 0
        v, _ = _median_along(x, 0)
        v = v.squeeze(0)
        if not x.requires_grad:
            return v
        # PyTorch shares the gradient evenly among the elements equal to the median (NaN: the NaNs)
        vd = v.detach()
        hit = (x == vd) | (x.isnan() & vd.isnan())
        share = with_gradient(_C.zeros(*x.shape, dtype=x.dtype), (x, hit.to(x.dtype) / hit.sum().to(x.dtype)))
        return vd + share.sum()
    d = _wrap_dim(dim, input.dim(), "median")
    if input.dim() == 0:
        return _median_t(input.clone(), _C.zeros((), dtype=_C.int64))
    if input.shape[d] == 0:
        raise IndexError("median(): Expected reduction dim {} to have non-zero size.".format(dim))
    v, i = _median_along(input, d)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return _median_t(v, i)


def _median_along(input, d):
    """keepdim (values, indices) of the lower median along d."""
    n = input.shape[d]
    _, perm = _sorted_along(input, d, False, "median")
    idx = perm.narrow(d, (n - 1) // 2, 1)
    if input.dtype.is_floating_point:
        nan = input.isnan()
        has_nan = nan.any(d, keepdim=True)
        first_nan = nan.to(_C.int32).argmax(d, keepdim=True)
        idx = _C._where3(has_nan, first_nan, idx)
    return input.gather(d, idx), idx


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique. Syncs: the output's length depends on the data (computed with NumPy on the host).
    The result is always sorted. Not differentiable (as PyTorch)."""
    _check_tensor(input, "unique")
    arr = _C._to_numpy(input.detach())
    if dim is None:
        vals, inv, cnt = np.unique(arr.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(arr.shape)
    else:
        d = _wrap_dim(dim, input.dim(), "unique")
        if arr.shape[d] == 0:
            vals, inv, cnt = arr, np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            vals, inv, cnt = np.unique(arr, return_inverse=True, return_counts=True, axis=d)
            inv = inv.reshape(-1)
    out = _C.from_numpy(np.ascontiguousarray(vals))
    if out.dtype != input.dtype:
        out = out.to(input.dtype)
    res = [out]
    if return_inverse:
        res.append(_C.from_numpy(np.ascontiguousarray(inv.astype(np.int64))))
    if return_counts:
        res.append(_C.from_numpy(np.ascontiguousarray(cnt.astype(np.int64))))
    return res[0] if len(res) == 1 else tuple(res)


def bincount(input, weights=None, minlength=0):
    """torch.bincount. Syncs the input (its maximum sets the output length); the counting is a lazy
    scatter_add, so weights are not synced."""
    _check_tensor(input, "bincount")
    if input.dim() != 1 or input.dtype.is_floating_point or input.dtype == _C.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs (got {} of shape {}).".format(
            input.dtype, list(input.shape)))
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input (input {}, weights {})".format(
            list(input.shape), list(weights.shape)))
    arr = _C._to_numpy(input)
    if arr.size and arr.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    size = builtins.max(int(arr.max()) + 1 if arr.size else 0, int(minlength))
    index = input.to(_C.int64)
    if weights is None:
        src, dt = _C.ones(input.shape[0], dtype=_C.int64), _C.int64
    else:
        dt = weights.dtype if weights.dtype.is_floating_point else _C.float64
        src = weights.to(dt)
    if input.shape[0] == 0:
        return _C.zeros(size, dtype=dt)
    return _C.zeros(size, dtype=dt).scatter_add(0, index, src)


def _as_values(v, like):
    if isinstance(v, Tensor):
        return v, False
    return tensor(v, dtype=like.dtype), True


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """torch.searchsorted as a lazy count: index = #(seq < v) (left) or #(seq <= v) (right)."""
    _check_tensor(sorted_sequence, "searchsorted")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but got {}".format(side))
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence
    if seq.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if sorter is not None:
        if tuple(sorter.shape) != tuple(seq.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               "tensor {} and got sorter tensor {}".format(list(seq.shape), list(sorter.shape)))
        seq = seq.gather(-1, sorter)
    vals, scalar = _as_values(input, seq)
    if seq.dim() > 1 and (vals.dim() != seq.dim() or tuple(vals.shape[:-1]) != tuple(seq.shape[:-1])):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got boundaries tensor {} "
                           "and input value tensor {}".format(list(seq.shape), list(vals.shape)))
    return _count_before(seq.detach(), vals.detach(), right, out_int32)


def _count_before(seq, vals, right, out_int32):
    if vals.dim() == 0:
        v = vals.reshape(1, 1)
    else:
        v = vals.unsqueeze(-1)  # [..., m, 1]
    s = seq.unsqueeze(-2) if seq.dim() > 1 else seq  # [..., 1, n] or [n]
    hit = (s <= v) if right else (s < v)
    out = hit.sum(-1)
    if vals.dim() == 0:
        out = out.reshape([])
    return out.to(_C.int32) if out_int32 else out


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """torch.bucketize (boundaries 1-D) as a lazy count, like searchsorted with the same `right`."""
    _check_tensor(boundaries, "bucketize")
    if boundaries.dim() != 1:
        raise RuntimeError("torch.bucketize(): boundaries tensor must be 1 dimension, but got dim({})".format(
            boundaries.dim()))
    vals, _ = _as_values(input, boundaries)
    return _count_before(boundaries.detach(), vals.detach(), right, out_int32)


_QUANTILE_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    """The q-th quantiles along dim (all elements when dim is None) from the sorted values: the rank
    q * (n - 1), with n the row's count of non-NaN elements for nanquantile, picks or interpolates two sorted
    neighbours (gathers, so the gradient reaches them, as PyTorch's). A row with a NaN gives NaN in quantile,
    a row of NaNs in nanquantile. q's dim, when q is a tensor, comes first in the result."""
    _check_tensor(input, name)
    if not input.dtype.is_floating_point:
        raise RuntimeError("{}() input tensor must be either float or double dtype".format(name))
    if input.numel() == 0:
        raise RuntimeError("{}() input tensor must be non-empty".format(name))
    if interpolation not in _QUANTILE_INTERPOLATIONS:
        raise RuntimeError("{}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {}"
                           .format(name, interpolation))
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError("{}() q must be in the range [0, 1] but got {}".format(name, q))
        qt = tensor([float(q)], dtype=input.dtype)
    else:
        if q.dim() > 1:
            raise RuntimeError("{}() q must be a scalar or 1D tensor".format(name))
        if q.dtype != input.dtype:
            raise RuntimeError("{}() q tensor must be same dtype as the input tensor".format(name))
        qt = q.reshape(-1)
    nd = input.dim()
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = dim + nd if dim < 0 else dim
        if not 0 <= d < builtins.max(nd, 1):
            raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
                -builtins.max(nd, 1), builtins.max(nd, 1) - 1, dim))
        x = input.reshape(1) if nd == 0 else input.movedim(d, -1)
    values = sort(x, -1).values                             # [..., n], NaNs last
    n = values.shape[-1]
    nans = x.isnan().sum(-1, keepdim=True)                 # [..., 1]
    lead = list(values.shape[:-1])
    q_rows = qt.detach().reshape([1] * len(lead) + [-1])   # [1.., Q]
    count = (n - nans).to(input.dtype) if ignore_nan else _C.full([1] * len(lead) + [1], float(n),
                                                                   dtype=input.dtype)
    rank = (q_rows * (count - 1)).clamp_min(0)              # [..., Q]
    rank = rank.expand(*(lead + [qt.shape[0]]))
    lo, hi = rank.floor(), rank.ceil()
    if interpolation == "nearest":
        lo = hi = rank.round()
    elif interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    below = values.gather(-1, lo.to(_C.int64))
    above = values.gather(-1, hi.to(_C.int64))
    if interpolation == "linear":
        result = below + (above - below) * (rank - lo)
    elif interpolation == "midpoint":
        result = below + (above - below) * 0.5
    else:
        result = below
    invalid = (count == 0) if ignore_nan else (nans > 0)
    result = _C._where3(invalid, float("nan"), result)
    result = result.movedim(-1, 0)                          # [Q, ...]
    if keepdim:
        if dim is None:
            result = result.reshape([qt.shape[0]] + [1] * nd)
        elif nd > 0:
            result = result.unsqueeze(d + 1)
    return result.squeeze(0) if scalar_q else result


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


__all__ += ["quantile", "nanquantile"]
