"""Index-taking torch.* functions: take, take_along_dim, index_fill, index_copy, scatter, scatter_reduce,
select_scatter, slice_scatter, argwhere, isin and unravel_index.

An index whose values are known (materialised) is checked at the call, so a bad one raises before any
tensor changes. A lazy index is left to the bounds check of the gather/index_add/scatter_add they are built
on: it raises that op's IndexError or RuntimeError when the result is computed (at a sync).
"""
import builtins
import math

import numpy as np

from . import _C, _pointwise, _sorting
from ._C import Tensor
from ._creation import tensor
from ._function_args import _along, _broadcast_shape, _check, _dt_name, _is_int, _where, _wrap, _zeros
from ._out import _with_out


def _long_index(name, index, what="index"):
    _check(name, index, what, 2)
    if index.dtype != _C.int64:
        raise RuntimeError("{}(): Expected a long tensor for {}, but got {}".format(name, what,
                                                                                  _dt_name(index.dtype)))


def take(input, index):
    """input treated as 1-D, read at index (negative indices count from the end); the result has index's shape."""
    _check("take", input)
    _long_index("take", index)
    n = input.numel()
    _C._check_known_index("take", index, 0, n, True, False)
    flat = input.reshape(-1)
    i = _where(index < 0, index + n, index).reshape(-1)
    return flat.index_select(0, i).reshape(index.shape)


def take_along_dim(input, indices, dim=None):
    _check("take_along_dim", input)
    _check("take_along_dim", indices, "indices", 2)
    if indices.dtype != _C.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got {}".format(
            _dt_name(indices.dtype)))
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           "but got {} dimensions for input, and {} dimensions for indices".format(
                               input.dim(), indices.dim()))
    d = _wrap(dim, input.dim(), "take_along_dim")
    si, sx = list(input.shape), list(indices.shape)
    a, b = si[:d] + si[d + 1:], sx[:d] + sx[d + 1:]
    rest = list(_broadcast_shape("take_along_dim", a, b))
    x_shape = rest[:d] + [si[d] if si else 1] + rest[d:]
    i_shape = rest[:d] + [sx[d] if sx else 1] + rest[d:]
    x = input if si == x_shape else input.expand(*x_shape)
    i = indices if sx == i_shape else indices.expand(*i_shape)
    return x.gather(d, i)


def _hits(index, n):
    """A bool [n]: which of 0..n-1 appear in the 1-D long index (out-of-range entries raise at the sync)."""
    counts = _zeros([n], _C.int32).index_add(0, index, _C.ones(index.shape[0], dtype=_C.int32))
    return counts > 0


def index_fill(input, dim, index, value):
    """input with the entries at `index` along dim set to value (negative indices count from the end)."""
    _check("index_fill", input)
    nd = input.dim()
    d = _wrap(dim, nd, "index_fill")
    _check("index_fill", index, "index", 3)
    if index.dtype != _C.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise RuntimeError("index_fill_(): Index has to be a vector/scalar (got shape {})".format(list(index.shape)))
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} "
                               "dimension(s).".format(value.dim()))
        v = value.to(input.dtype)
    elif isinstance(value, (builtins.bool, builtins.int, builtins.float, np.number, np.bool_)):
        v = tensor(value).to(input.dtype)  # 2.7 into an integer tensor is 2, as PyTorch
    else:
        raise TypeError("index_fill(): argument 'value' must be Number or Tensor, not {}".format(
            type(value).__name__))
    n = input.shape[d] if nd else 1
    _C._check_known_index("index_fill", index, d, n, True, False)
    idx = index.reshape(-1)
    idx = _where(idx < 0, idx + n, idx)
    mask = _hits(idx, n)
    if nd == 0:
        return _where(mask.reshape(()), v, input)
    return _where(_along(mask, d, nd), v, input)


def _added_into_zeros(x, op, d, idx, src):
    """zeros like x with src added at idx along d by `op` (index_add or scatter_add); bool as any-true.
    Floats start from -0.0, the identity of addition, so that a single -0.0 written keeps its sign."""
    if x.dtype == _C.bool:
        return getattr(_zeros(x.shape, _C.int32), op)(d, idx, src.to(_C.int32)) != 0
    if x.dtype.is_floating_point:
        return getattr(_C.full(list(x.shape), -0.0, dtype=x.dtype), op)(d, idx, src)
    return getattr(_zeros(x.shape, x.dtype), op)(d, idx, src)


def _last_writers(idx, d, target_shape):
    """bool like idx: whether each element is the last one along d to write its target (PyTorch's CPU kernels
    write in index order, so of colliding writes the last one wins). None when no two elements can collide.

    The last writer of target t is w[t] = max{k : idx[.., k, ..] = t}, found bit by bit from the top with one
    gather and one scatter_add a bit: lazy and O(n log n), where comparing all pairs along d would be O(n^2)."""
    n = idx.shape[d]
    if n <= 1:
        return None
    idx = idx.clamp(0, target_shape[d] - 1)  # an index out of range raises in the caller's own op, as PyTorch's
    shape = [1] * idx.dim()
    shape[d] = n
    k = _C.arange(n).reshape(shape).expand(*idx.shape)
    w = _zeros(target_shape, _C.int64)
    for b in reversed(range((n - 1).bit_length())):
        # elements whose position agrees with w[target] above bit b and has bit b set
        above = (k >> b) == ((w.gather(d, idx) >> b) | 1)
        found = _zeros(target_shape, _C.int32).scatter_add(d, idx, above.to(_C.int32)) > 0
        w = _where(found, w | (1 << b), w)
    return w.gather(d, idx) == k


def _last_written(src, winners):
    """src where it is the last writer, else the additive identity -0.0 (False, 0): summing the writes of one
    target then gives exactly the last one. The overwritten elements keep PyTorch's gradient (that of their
    target: scatter's src gradient is gather(grad, index)) through -(src.detach() - src), which is -0.0 with
    derivative 1 (finite src; the rare overwritten inf or NaN gets gradient 0 instead)."""
    if winners is None:
        return src
    if src.dtype == _C.bool:
        return src & winners
    if not src.dtype.is_floating_point:
        return _where(winners, src, 0)
    lost = _C.full([], -0.0, dtype=src.dtype)
    if src.requires_grad and _C.is_grad_enabled():
        frozen = src.detach()
        lost = _where(frozen.isfinite(), -(frozen - src), lost)
    return _where(winners, src, lost)


def index_copy(input, dim, index, source):
    """input with the slices at `index` along dim replaced by source's slices. Of duplicate indices the last
    one wins, as in PyTorch's CPU kernel (its docs leave the choice unspecified)."""
    _check("index_copy", input)
    _check("index_copy", index, "index", 3)
    _check("index_copy", source, "source", 4)
    nd = input.dim()
    d = _wrap(dim, nd, "index_copy")
    if index.dim() > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got {})".format(index.dim()))
    k = index.numel()
    if source.dim() == 0 and k != 1:
        raise IndexError("index_copy_(): When source is scalar, index should have one element (got {})".format(k))
    if source.dim() != nd and source.dim() != 0 and nd != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         "match. Source dimensionality ({}), destination dimensionality ({})".format(source.dim(), nd))
    if index.dtype != _C.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got {}".format(_dt_name(index.dtype)))
    if input.dtype != source.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) {} and "
                           "(source) {}".format(_dt_name(input.dtype), _dt_name(source.dtype)))
    self_slice = [s for j, s in enumerate(input.shape) if j != d]
    src_slice = [s for j, s in enumerate(source.shape) if j != d]
    if self_slice != src_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           "shape: {} and source slice shape: {} (dim {}; shapes {} and {})".format(
                               self_slice, src_slice, d, list(input.shape), list(source.shape)))
    if source.dim() > 0 and source.shape[d] != k:
        raise IndexError("index_copy_(): Number of indices ({}) should be equal to source.size(dim) ({})".format(
            k, source.shape[d]))
    x = input if nd > 0 else input.reshape(1)
    src = source.reshape([k] + [1] * (x.dim() - 1)) if source.dim() == 0 or nd == 0 else source
    idx = index.reshape(-1)
    mask = _along(_hits(idx, x.shape[d]), d, x.dim())
    winners = _last_writers(idx, 0, [x.shape[d]])
    if winners is not None:
        src = _last_written(src, _along(winners, d, x.dim()))
    out = _where(mask, _added_into_zeros(x, "index_add", d, idx, src), x)
    return out if nd > 0 else out.reshape(())


_NO_VALUE = object()


def scatter(input, dim, index, src=_NO_VALUE, value=_NO_VALUE, *, reduce=None):
    """out[..., index[i][j], ...] = src[i][j] (or value) along dim, input elsewhere. Of duplicate indices the
    last one along dim wins, as in PyTorch's CPU kernel (its docs leave the choice unspecified).
    reduce='add' / 'multiply' accumulate into input instead (scatter_reduce's sum / prod with include_self)."""
    _check("scatter", input)
    _check("scatter", index, "index", 3)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("scatter(): reduce argument must be either add or multiply, but got {!r}".format(reduce))
    if src is not _NO_VALUE and value is not _NO_VALUE:
        raise TypeError("scatter(): pass either src or value, not both")
    if src is _NO_VALUE and value is _NO_VALUE:
        raise TypeError("scatter(): missing the src (Tensor) or value (Number) argument")
    if src is _NO_VALUE:
        src = None
    elif isinstance(src, Tensor):
        value = None
    else:  # scatter(input, dim, index, 2.5): the fourth positional argument is the value
        src, value = None, src
    if value is not None and (isinstance(value, Tensor) or
                              not isinstance(value, (builtins.bool, builtins.int, builtins.float, np.number))):
        raise TypeError("scatter(): argument 'value' must be Number, not {}".format(type(value).__name__))
    d, x, idx, s = _scatter_operands("scatter", input, dim, index, src)
    if idx.numel() == 0:
        return input.clone()
    if reduce is not None:
        if s is None:
            s = tensor(value).to(x.dtype).expand(*idx.shape)
        out = _reduced_into(x, d, idx, s, "sum" if reduce == "add" else "prod", True)
    elif s is None:
        hits = _zeros(x.shape, _C.int32).scatter_add(d, idx, _C.ones(*idx.shape, dtype=_C.int32)) > 0
        out = _where(hits, tensor(value).to(x.dtype), x)
    else:
        hits = _zeros(x.shape, _C.int32).scatter_add(d, idx, _C.ones(*idx.shape, dtype=_C.int32)) > 0
        s = _last_written(s, _last_writers(idx, d, x.shape))
        out = _where(hits, _added_into_zeros(x, "scatter_add", d, idx, s), x)
    return out if input.dim() > 0 else out.reshape(())


def _scatter_operands(name, input, dim, index, src):
    """PyTorch's scatter checks; returns (dim, input, index, src) with 0-d made 1-D and src narrowed to index."""
    nd = input.dim()
    d = _wrap(dim, nd, name)
    if index.dtype != _C.int64:
        raise RuntimeError("{}(): Expected dtype int64 for index (got {})".format(name, _dt_name(index.dtype)))
    if index.dim() != nd and not (index.dim() <= 1 and nd <= 1):
        raise RuntimeError("{}(): Index tensor must have the same number of dimensions as self tensor (index "
                           "shape {}, self shape {})".format(name, list(index.shape), list(input.shape)))
    if src is not None:
        if 1 <= src.dim() < index.dim():  # (PyTorch's check reads src.size(d) first: an IndexError)
            raise IndexError("{}(): Dimension out of range: src of shape {} has fewer dimensions than index of "
                             "shape {}".format(name, list(src.shape), list(index.shape)))
        if src.dim() != index.dim() and not (src.dim() <= 1 and index.dim() <= 1):
            raise RuntimeError("{}(): Index tensor must have the same number of dimensions as src tensor (index "
                               "shape {}, src shape {})".format(name, list(index.shape), list(src.shape)))
        if src.dtype != input.dtype:
            raise RuntimeError("{}(): Expected self.dtype to be equal to src.dtype (got {} and {})".format(
                name, _dt_name(input.dtype), _dt_name(src.dtype)))
    x = input.reshape(1) if nd == 0 else input
    idx = index.reshape(1) if index.dim() == 0 else index
    s = None if src is None else (src.reshape(1) if src.dim() == 0 else src)
    for j in range(x.dim()):
        too_big = (j != d and idx.shape[j] > x.shape[j]) or (s is not None and idx.shape[j] > s.shape[j])
        if too_big:
            extra = "" if s is None else " and to be smaller size than src {}".format(list(src.shape))
            raise RuntimeError("{}(): Expected index {} to be smaller than self {} apart from dimension "
                               "{}{}".format(name, list(index.shape), list(input.shape), d, extra))
    if s is not None:
        for j in range(s.dim()):
            if s.shape[j] != idx.shape[j]:
                s = s.narrow(j, 0, idx.shape[j])
    return d, x, idx, s


# Past this many masked elements (n * k * the other dims), scatter_reduce's prod/amax/amin sort the index
# instead of comparing every target with every source (see _reduced_into).
DENSE_SCATTER_MAX = 1 << 24


def _reduce_fill(dtype, reduce):
    """The identity of prod/amax/amin in dtype."""
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return -math.inf if reduce == "amax" else math.inf
    info = np.iinfo(np.int64 if dtype == _C.int64 else np.int32)
    return builtins.int(info.min if reduce == "amax" else info.max)


def _reduced_into(x, d, idx, src, reduce, include_self):
    """scatter_reduce of src (already idx's shape) into x along d, for x of at least one dim.

    sum and mean are scatter_adds (any size, exact for sum). prod, amax and amin have no scatter primitive.
    Up to DENSE_SCATTER_MAX they are a masked reduction over a broadcast [..., n, k] (target n = x.size(d),
    k = idx.size(d)), which the scheduler fuses but which costs n * k per position of the other dims;
    reducing with the ordinary reductions gives their gradients: prod the product of the others (zeros
    included), amax/amin the upstream split evenly among the elements equal to the result, self included, as
    PyTorch. Past it the index is sorted along dim and the sources are reduced by a segmented scan
    (_reduced_sorted): O(k log k) after the sort, which is lazy up to _sorting.LAZY_SORT_MAX and syncs the
    index past that."""
    hits = _zeros(x.shape, _C.int32).scatter_add(d, idx, _C.ones(*idx.shape, dtype=_C.int32))
    hit = hits > 0
    if reduce in ("sum", "mean"):
        total = _added_into_zeros(x, "scatter_add", d, idx, src)
        if reduce == "sum":
            return _where(hit, x + total if include_self else total, x)
        count = hits + 1 if include_self else hits
        num = x + total if include_self else total
        count = _where(hit, count, 1).to(x.dtype)
        mean = _pointwise.floor_divide(num, count) if not x.dtype.is_floating_point else num / count
        return _where(hit, mean, x)
    n = x.shape[d]
    region = [slice(None)] * x.dim()
    for j in range(x.dim()):
        if j != d:
            region[j] = slice(0, idx.shape[j])
    own = x[tuple(region)].movedim(d, -1)  # [..., n]: the part of x the index reaches, dim last
    ii, sv = idx.movedim(d, -1), src.movedim(d, -1)  # [..., k]
    fill = tensor(_reduce_fill(x.dtype, reduce)).to(x.dtype)
    if ii.numel() * n <= DENSE_SCATTER_MAX:
        red = _reduced_dense(own, ii, sv, reduce, include_self, fill)
    else:
        red = _reduced_sorted(own, ii, sv, reduce, include_self, fill)
    red = red.to(x.dtype).movedim(-1, d)  # (an integer prod is int64)
    if list(red.shape) != list(x.shape):
        pads = []
        for j in reversed(range(x.dim())):
            pads += [0, x.shape[j] - red.shape[j]]
        red = _C._pad(red, pads, 0.0)
    return _where(hit, red, x)


def _reduced_dense(own, ii, sv, reduce, include_self, fill):
    """[..., n] reductions of the sources whose index names each target: a masked reduce over [..., n, k]."""
    n = own.shape[-1]
    targets = _C.arange(n, dtype=_C.int64).reshape(n, 1)
    vals = _where(ii.unsqueeze(-2) == targets, sv.unsqueeze(-2), fill)  # [..., n, k]
    mine = own.unsqueeze(-1)  # [..., n, 1]
    if include_self:
        return getattr(_C.cat([mine, vals], -1), reduce)(-1)
    if reduce == "prod":
        return vals.prod(-1)
    # PyTorch 1.13 counts self among the ties that share the gradient even without include_self (it zeroes
    # self's share afterwards): a detached copy of self joins where it equals the result, which leaves the
    # value alone and splits the gradient the same way.
    tie = mine.detach() == getattr(vals.detach(), reduce)(-1, keepdim=True)
    return getattr(_C.cat([_where(tie, mine.detach(), fill), vals], -1), reduce)(-1)


def _reduced_sorted(own, ii, sv, reduce, include_self, fill):
    """_reduced_dense by sorting: the sources ordered by target (a stable argsort of the index), an
    inclusive segmented scan of the reduction (log2(k) stored rounds), each segment's last value added
    into its target. prod keeps the scan's gradient (products only, so zeros are handled); amax/amin
    compute the value detached and add PyTorch's gradient (the upstream split evenly among the sources
    and self equal to the result) as straight-through terms, which are exactly 0; a non-finite result
    gets no gradient that way."""
    k = ii.shape[-1]
    order = _sorting.argsort(ii, -1, stable=True)
    keys = ii.gather(-1, order)
    vals = sv.gather(-1, order)
    if reduce != "prod":
        vals = vals.detach()
    lead = list(keys.shape[:-1])
    differs = keys.narrow(-1, 1, k - 1) != keys.narrow(-1, 0, k - 1)
    edge = _C.ones(*(lead + [1]), dtype=_C.bool)
    head, last = _C.cat([edge, differs], -1), _C.cat([differs, edge], -1)
    combine = {"prod": lambda a, b: a * b, "amax": _C.maximum, "amin": _C.minimum}[reduce]
    flag, s = head, 1
    while s < k:
        earlier = _C.cat([fill.expand(*(lead + [s])), vals.narrow(-1, 0, k - s)], -1)
        earlier_flag = _C.cat([edge.expand(*(lead + [s])), flag.narrow(-1, 0, k - s)], -1)
        vals = _stored(_where(flag, vals, combine(earlier, vals)))
        flag = _stored(flag.logical_or(earlier_flag))
        s *= 2
    red = _zeros(list(own.shape), vals.dtype).scatter_add(-1, keys, _where(last, vals, tensor(0).to(vals.dtype)))
    if reduce == "prod":
        return own * red if include_self else red
    if include_self:
        red = combine(own.detach(), red)
    if not own.dtype.is_floating_point:
        return red
    # the straight-through gradient terms (PyTorch's scatter_reduce backward for amax/amin)
    own_tie = own.detach() == red
    src_tie = sv.detach() == red.gather(-1, ii)
    ties = own_tie.to(own.dtype).scatter_add(-1, ii, src_tie.to(own.dtype))
    share = 1.0 / _where(ties > 0, ties, 1.0)
    zero = tensor(0).to(own.dtype)
    src_term = _where(src_tie.logical_and(sv.detach().isfinite()), (sv - sv.detach()) * share.gather(-1, ii), zero)
    term = _zeros(list(own.shape), own.dtype).scatter_add(-1, ii, src_term)
    if include_self:
        term = term + _where(own_tie.logical_and(own.detach().isfinite()), (own - own.detach()) * share, zero)
    return red + term


def _stored(x):
    """x itself, materialised: an identity cumsum over a new size-1 dim (see _reductions._scan)."""
    return x.unsqueeze(-1).cumsum(-1).squeeze(-1).to(x.dtype)


_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """input with src's values reduced into the positions index names along dim (sum, prod, mean, amax, amin),
    counting input's own value when include_self; positions no index names keep input's value."""
    _check("scatter_reduce", input)
    _check("scatter_reduce", index, "index", 3)
    _check("scatter_reduce", src, "src", 4)
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError("scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got "
                           "{!r}".format(reduce))
    d, x, idx, s = _scatter_operands("scatter_reduce", input, dim, index, src)
    if idx.numel() == 0:
        return input.clone()
    out = _reduced_into(x, d, idx, s, reduce, builtins.bool(include_self))
    return out if input.dim() > 0 else out.reshape(())


def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src (cast to input's dtype)."""
    _check("select_scatter", input)
    _check("select_scatter", src, "src", 2)
    nd = input.dim()
    if nd == 0:
        raise IndexError("select_scatter(): select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, nd, "select_scatter")
    n = input.shape[d]
    if not _is_int(index):
        raise TypeError("select_scatter(): argument 'index' must be int, not {}".format(type(index).__name__))
    if not -n <= index < n:
        raise IndexError("select_scatter(): index {} out of range for tensor of size {} at dimension {}".format(
            index, list(input.shape), d))
    slice_shape = list(input.shape[:d]) + list(input.shape[d + 1:])
    if list(src.shape) != slice_shape:
        raise RuntimeError("select_scatter: expected src to have a size equal to the slice of self. src size = {}, "
                           "slice size = {}".format(list(src.shape), slice_shape))
    mask = _along(_C.arange(n) == index % n, d, nd)
    return _where(mask, src.to(input.dtype).unsqueeze(d), input)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with input[start:end:step] along dim replaced by src (cast to input's dtype)."""
    _check("slice_scatter", input)
    _check("slice_scatter", src, "src", 2)
    nd = input.dim()
    d = _wrap(dim, nd, "slice_scatter")
    if nd == 0:
        raise IndexError("slice_scatter(): slice() cannot be applied to a 0-dim tensor.")
    for nm, v in (("start", start), ("end", end), ("step", step)):
        if v is not None and not _is_int(v):
            raise TypeError("slice_scatter(): argument '{}' must be int, not {}".format(nm, type(v).__name__))
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice_scatter: slice step must be positive (got {})".format(step))
    n = input.shape[d]
    s, e, _ = slice(start, end, step).indices(n)
    k = len(range(s, e, step))
    slice_shape = list(input.shape)
    slice_shape[d] = k
    if list(src.shape) != slice_shape:
        raise RuntimeError("slice_scatter: expected src to have a size equal to the slice of self. src size = {}, "
                           "slice size = {}".format(list(src.shape), slice_shape))
    if k == 0:
        return input.clone()
    dt = input.dtype
    placed = src.to(dt)
    span = (k - 1) * step + 1
    if step > 1:  # interleave step-1 zeros after each slice, then drop the trailing ones
        u = placed.unsqueeze(d + 1)
        zshape = list(u.shape)
        zshape[d + 1] = step - 1
        u = _C.cat([u, _zeros(zshape, dt)], d + 1)
        shape = list(placed.shape)
        shape[d] = k * step
        placed = u.reshape(shape).narrow(d, 0, span)
    parts = []
    for size in (s, None, n - s - span):
        if size is None:
            parts.append(placed)
        elif size > 0:
            shape = list(input.shape)
            shape[d] = size
            parts.append(_zeros(shape, dt))
    placed = parts[0] if len(parts) == 1 else _C.cat(parts, d)
    ar = _C.arange(n)
    mask = (ar >= s) & (ar < s + span)
    if step > 1:
        mask = mask & ((ar - s) % step == 0)
    return _where(_along(mask, d, nd), placed, input)


def argwhere(input):
    """The indices of the nonzero entries, one row each ([count, input.dim()]). Syncs: the count is data."""
    _check("argwhere", input)
    if input.dim() == 0:
        return input.reshape(1).nonzero()[:, :0]
    return input.nonzero()


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element equals any of test_elements (compared after type promotion, as PyTorch)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): at least one of elements and test_elements must be a Tensor, got {} and {}".format(
            type(elements).__name__, type(test_elements).__name__))
    for t in (elements, test_elements):
        if (isinstance(t, Tensor) and t.dtype == _C.bool) or isinstance(t, builtins.bool):
            raise RuntimeError("isin(): Unsupported input type encountered for isin(): Bool")
    if isinstance(elements, Tensor):
        e = elements
        t = test_elements.reshape(-1) if isinstance(test_elements, Tensor) else test_elements
        hit = (e.unsqueeze(-1) == t).any(-1) if isinstance(t, Tensor) else e == t
    else:
        hit = (test_elements == elements).any()
    return hit.logical_not() if invert else hit


def unravel_index(indices, shape):
    """Coordinates in `shape` of flat indices (torch.unravel_index of PyTorch 2.2; 1.13 has none): a tuple of
    int64 tensors shaped like indices. Negative indices count from the end (floor division and modulo)."""
    if not isinstance(indices, Tensor):
        raise TypeError("unravel_index(): expected 'indices' to be a Tensor, but got {}".format(
            type(indices).__name__))
    if indices.dtype.is_floating_point or indices.dtype == _C.bool:
        raise TypeError("unravel_index(): expected 'indices' to be integer dtype, but got {}".format(indices.dtype))
    if _is_int(shape):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not builtins.all(_is_int(s) for s in shape):
        raise TypeError("unravel_index(): expected 'shape' to be int or sequence of ints, but got {!r}".format(shape))
    shape = [builtins.int(s) for s in shape]
    if builtins.any(s < 0 for s in shape):
        raise ValueError("unravel_index(): 'shape' cannot have negative values, but got {}".format(tuple(shape)))
    if 0 in shape and indices.numel() > 0:
        raise RuntimeError("unravel_index(): shape {} has no elements, so no index is valid".format(tuple(shape)))
    idx = indices.to(_C.int64)
    stride, coords = 1, []
    for s in reversed(shape):
        q = idx if stride == 1 else idx // stride
        coords.append(q % s)
        stride *= builtins.max(s, 1)
    return tuple(reversed(coords))


# The out= argument, honoured.
for _n in ("take", "take_along_dim", "index_copy", "isin", "scatter_reduce"):
    globals()[_n] = _with_out(globals()[_n])
del _n

def index_put(input, indices, values, accumulate=False):
    """input with input[indices] = values (accumulate: +=, duplicates summed). indices: a tuple of integer or
    bool tensors for the leading dims, as PyTorch's index_put; a known out-of-range index raises IndexError
    before anything changes."""
    _check("index_put", input)
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not {}".format(
            type(indices).__name__))
    idx = []
    for t in indices:
        if not isinstance(t, Tensor):
            raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not {}".format(
                type(t).__name__))
        if t.dtype == _C.bool:
            idx.extend(t.nonzero(as_tuple=True))
        elif t.dtype in (_C.int64, _C.int32):
            idx.append(t)
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if len(idx) > input.dim():
        raise IndexError("too many indices for tensor of dimension {} (got {})".format(input.dim(), len(idx)))
    for d, t in enumerate(idx):
        _C._check_known_index("", t, d, input.shape[d], True, False)
    if not isinstance(values, Tensor):
        values = tensor(values, dtype=input.dtype)
    out = input.clone()
    if not accumulate:
        out[tuple(idx)] = values
        return out
    # += with duplicates summed: one index_add over the indexed leading dims flattened.
    k = len(idx)
    lead, rest = list(input.shape[:k]), list(input.shape[k:])
    shape = _broadcast_shape("index_put", *[list(t.shape) for t in idx]) if k > 1 else list(idx[0].shape)
    lin = None
    for d, t in enumerate(idx):
        t = _where(t < 0, t + lead[d], t).to(_C.int64)
        lin = t if lin is None else lin * lead[d] + t
    lin = lin.expand(*shape).reshape(-1)
    vals = values.to(input.dtype).expand(*(list(shape) + rest)).reshape([lin.shape[0]] + rest)
    flat = out.reshape([math.prod(lead)] + rest)
    return flat.index_add(0, lin, vals).reshape(list(input.shape))


def put(input, index, source, accumulate=False):
    """input, read as 1-D, with source written at index (accumulate: added); negative indices count from the end."""
    _check("put", input)
    _long_index("put", index)
    n = input.numel()
    _C._check_known_index("put", index, 0, n, True, False)
    if index.numel() != source.numel():
        raise RuntimeError("put_(): Expected source and index to have the same number of elements, but got "
                           "source.numel() = {}, index.numel() = {}".format(source.numel(), index.numel()))
    flat = input.reshape(-1)
    i = _where(index < 0, index + n, index).reshape(-1)
    return index_put(flat, (i,), source.reshape(-1).to(input.dtype), accumulate).reshape(list(input.shape))


__all__ = ["index_put", "put", "take", "take_along_dim", "index_fill", "index_copy", "scatter", "scatter_reduce", "select_scatter",
           "slice_scatter", "argwhere", "isin", "unravel_index"]
