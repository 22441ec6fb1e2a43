"""Reshaping, joining, splitting and reordering: ravel, the flips, concatenate and the *stack family, the
*split family, roll, tile, movedim, meshgrid, cartesian_prod, combinations, rot90, repeat_interleave, diff, broadcast_*,
atleast_*d and block_diag.

All are views or short compositions of the C++ ops (reshape, narrow, cat, flip, permute, expand).
"""
import builtins
import itertools
import warnings

import numpy as np

from . import _C
from ._C import Tensor
from ._function_args import _cat, _check, _dt_name, _is_int, _tensor_list, _wrap
from ._out import _with_out
from ._size import Size


def ravel(input):
    _check("ravel", input)
    return input.reshape(-1)


def fliplr(input):
    _check("fliplr", input)
    if input.dim() < 2:
        raise RuntimeError("fliplr: Input must be >= 2-d. (got a tensor of shape {})".format(list(input.shape)))
    return input.flip(1)


def flipud(input):
    _check("flipud", input)
    if input.dim() < 1:
        raise RuntimeError("flipud: Input must be >= 1-d. (got a tensor of shape {})".format(list(input.shape)))
    return input.flip(0)


def concatenate(tensors, dim=0, *, axis=None):
    """torch.concatenate: an alias of cat (`axis=` names the dim, as NumPy)."""
    tensors = _tensor_list("concatenate", tensors)
    return _C.cat(tensors, dim if axis is None else axis)


def column_stack(tensors):
    tensors = _tensor_list("column_stack", tensors)
    return _cat("column_stack", [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors], 1)


def _atleast_3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.reshape(1, -1, 1)
    if t.dim() == 2:
        return t.unsqueeze(-1)
    return t


def dstack(tensors):
    tensors = _tensor_list("dstack", tensors)
    return _cat("dstack", [_atleast_3d(t) for t in tensors], 2)


def hstack(tensors):
    return _C.cat(tensors, 1 if tensors[0].dim() > 1 else 0)


def vstack(tensors):
    return _C.cat([t.reshape(1, -1) if t.dim() == 1 else t for t in tensors], 0)


def concat(tensors, dim=0):
    return _C.cat(tensors, dim)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input along dim: `sections` near-equal pieces (the first size % sections one longer), or the
    pieces between the given indices (each boundary clamped like a Python slice)."""
    _check("tensor_split", input)
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap(dim, input.dim(), "tensor_split")
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios.dtype != _C.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               "{}".format(_dt_name(ios.dtype)))
        if ios.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               "one-dimensional tensor, but got a tensor with {} dims".format(ios.dim()))
        ios = ios.tolist()  # host values that define the output shapes (PyTorch reads them on the host too)
    if _is_int(ios):
        if ios <= 0:
            raise RuntimeError("tensor_split: number of sections must be larger than 0, got {}".format(ios))
        q, r = divmod(n, ios)
        pieces, start = [], 0
        for i in range(ios):
            size = q + (1 if i < r else 0)
            pieces.append(input.narrow(d, start, size))
            start += size
        return tuple(pieces)
    if not isinstance(ios, (list, tuple)) or not builtins.all(_is_int(i) for i in ios):
        raise TypeError("tensor_split(): argument 'indices_or_sections' must be an int, a sequence of ints or a "
                        "long tensor, not {!r}".format(ios))
    pieces, prev = [], 0
    for idx in list(ios) + [None]:
        s, e, _ = slice(prev, idx).indices(n)
        pieces.append(input.narrow(d, s, builtins.max(0, e - s)))
        prev = idx
    return tuple(pieces)


def _xsplit(name, input, indices_or_sections, min_dim, dim):
    _check(name, input)
    if input.dim() < min_dim:
        raise RuntimeError("torch.{} requires a tensor with at least {} dimension, but got a tensor with {} "
                           "dimensions!".format(name, min_dim, input.dim()))
    ios = indices_or_sections
    if _is_int(ios):
        size = input.shape[dim]
        if ios == 0 or size % ios != 0:
            raise RuntimeError("torch.{} attempted to split along dimension {}, but the size of the dimension {} is "
                               "not divisible by the split_size {}!".format(name, dim, size, ios))
    return tensor_split(input, ios, dim)


def hsplit(input, indices_or_sections):
    _check("hsplit", input)
    return _xsplit("hsplit", input, indices_or_sections, 1, 1 if input.dim() > 1 else 0)


def vsplit(input, indices_or_sections):
    return _xsplit("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    return _xsplit("dsplit", input, indices_or_sections, 3, 2)


def broadcast_to(input, size):
    return input.expand(*size)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(t.expand(*shape) for t in tensors)


def broadcast_shapes(*shapes):
    return Size(np.broadcast_shapes(*shapes))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (slice along dim; of the flattened input for dim=None) repeated `repeats` times.

    An int repeats is an expand + reshape. A tensor of repeats is an index_select whose source index is a
    cumsum of 1s scattered at each slice's first output position; its length (the sum of repeats) is read on
    the host (a sync, as in PyTorch) unless output_size gives it, which keeps the call lazy (and unchecked:
    negative repeats or a wrong output_size then give wrong values instead of PyTorch's error).
    torch.repeat_interleave(repeats) alone repeats arange(len(repeats))."""
    if repeats is None:  # repeat_interleave(repeats): the positions 0..n-1, each repeated
        _check("repeat_interleave", input, "repeats")
        if input.dim() > 1:
            raise RuntimeError("repeat_interleave: repeats must be 0-dim or 1-dim tensor, got shape {}".format(
                list(input.shape)))
        return repeat_interleave(_C.arange(input.reshape(-1).shape[0], dtype=_C.int64), input,
                                 output_size=output_size)
    _check("repeat_interleave", input)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _wrap(dim, input.dim(), "repeat_interleave")
        if input.dim() == 0:
            input = input.reshape(1)
    n = input.shape[d]
    if isinstance(repeats, Tensor):
        if repeats.dtype not in (_C.int64, _C.int32):
            raise RuntimeError("repeat_interleave: repeats must be an integer tensor, got {}".format(
                _dt_name(repeats.dtype)))
        if repeats.dim() > 1:
            raise RuntimeError("repeat_interleave: repeats must be 0-dim or 1-dim tensor, got shape {}".format(
                list(repeats.shape)))
        if repeats.numel() == 1:
            if output_size is not None:
                r = repeats.reshape(1).to(_C.int64).expand(n)
            else:
                return repeat_interleave(input, builtins.int(repeats.item()), d)
        else:
            if repeats.shape[0] != n:
                raise RuntimeError("repeat_interleave: repeats must have the same size as input along dim (repeats "
                                   "{}, input {} at dim {})".format(list(repeats.shape), list(input.shape), d))
            r = repeats.to(_C.int64)
        if output_size is None:
            host = r.numpy()
            if (host < 0).any():
                raise RuntimeError("repeat_interleave: repeats can not be negative (got {})".format(host.tolist()))
            total = builtins.int(host.sum())
        else:
            total = builtins.int(output_size)
        starts = r.cumsum(0) - r  # each slice's first output position; a zero repeat shares the next one's
        marks = _C.zeros(total + 1, dtype=_C.int64).scatter_add(0, starts.clamp(0, total), _C.ones(n, dtype=_C.int64))
        source = marks.narrow(0, 0, total).cumsum(0) - 1
        return input.index_select(d, source)
    if not _is_int(repeats):
        raise TypeError("repeat_interleave(): argument 'repeats' must be int or Tensor, not {}".format(
            type(repeats).__name__))
    if repeats < 0:
        raise RuntimeError("repeat_interleave: repeats can not be negative (got {})".format(repeats))
    if output_size is not None and builtins.int(output_size) != n * repeats:
        raise RuntimeError("repeat_interleave: output_size {} does not match the required size {} ({} x {})".format(
            output_size, n * repeats, n, repeats))
    x = input.unsqueeze(d + 1)
    shape = list(x.shape)
    shape[d + 1] = repeats
    out = list(input.shape)
    out[d] *= repeats
    return x.expand(*shape).reshape(out).clone()


def unfold(input, dimension, size, step):
    """Tensor.unfold: the windows input[..., i*step : i*step+size, ...] along dimension as a new last dim.

    Windows that do not overlap (step >= size) and whose steps fit in the dim (count * step <= size of the
    dim) are a view, as in PyTorch: narrow, split the dim into [count, step], slice each step to its first
    `size`, move that dim last, so writes through it reach input. Overlapping windows (step < size) are a
    copy: one element in two windows is not a chain of views here (an index_select of a host-built window
    index); so is the rare last window that ends short of a full step."""
    nd = input.dim()
    d = _wrap(dimension, nd, "unfold")
    n = input.shape[d] if nd else 1
    if not _is_int(size) or not _is_int(step):
        raise TypeError("unfold(): size and step must be ints, got {} and {}".format(type(size).__name__,
                                                                                   type(step).__name__))
    if size > n:
        raise RuntimeError("unfold: maximum size for tensor at dimension {} is {} but size is {}".format(d, n, size))
    if step <= 0:
        raise RuntimeError("unfold: step is {} but must be > 0".format(step))
    if size < 0:
        raise RuntimeError("unfold: size is {} but must be >= 0".format(size))
    if nd == 0:
        return input.reshape(1).expand(size).clone()
    count = (n - size) // step + 1
    shape = list(input.shape)
    if step >= size and count * step <= n:
        split = input.narrow(d, 0, count * step).view(shape[:d] + [count, step] + shape[d + 1:])
        return split.narrow(d + 1, 0, size).movedim(d + 1, -1)
    idx = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1).astype(np.int64)
    windows = input.index_select(d, _C.from_numpy(idx))
    windows = windows.reshape(shape[:d] + [count, size] + shape[d + 1:])
    return windows.movedim(d + 1, -1)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got {}".format(n))
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -nd, nd - 1, dim))
    d = dim % nd
    for extra in (prepend, append):
        if extra is None:
            continue
        if extra.dim() != nd:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input (input shape {}, "
                               "got shape {})".format(list(input.shape), list(extra.shape)))
        for k in range(nd):
            if k != d and extra.shape[k] != input.shape[k]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input "
                                   "except along the differencing dimension; input.size({}) = {}, but got "
                                   "tensor.size({}) = {}".format(k, input.shape[k], k, extra.shape[k]))
    x = input
    if prepend is not None or append is not None:
        x = _C.cat([t for t in (prepend, input, append) if t is not None], d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi != lo if x.dtype == _C.bool else hi - lo
    return x


def roll(input, shifts, dims=None):
    shifts = [shifts] if isinstance(shifts, builtins.int) else list(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError("roll: shifts and dimensions must align. shifts: {}, dims:0".format(len(shifts)))
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    dims = [dims] if isinstance(dims, builtins.int) else list(dims)
    if len(shifts) != len(dims):
        raise RuntimeError("roll: shifts and dimensions must align. shifts: {}, dims:{}".format(len(shifts),
                                                                                               len(dims)))
    x = input
    nd = builtins.max(input.dim(), 1)
    for s, dim in zip(shifts, dims):
        if not -nd <= dim < nd:
            raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
                -nd, nd - 1, dim))
        d = dim % nd
        size = x.shape[d]
        if size == 0:
            continue
        s = s % size
        if s:
            x = _C.cat([x.narrow(d, size - s, s), x.narrow(d, 0, size - s)], d)
    return x if x is not input else input.clone()


def tile(input, dims):
    dims = list(dims)
    if any(r < 0 for r in dims):
        raise RuntimeError("tile: Trying to create tensor with negative dimension: dims {}".format(dims))
    if len(dims) < input.dim():
        dims = [1] * (input.dim() - len(dims)) + dims
    return input.repeat(dims)


def movedim(input, source, destination):
    src = [source] if isinstance(source, builtins.int) else list(source)
    dst = [destination] if isinstance(destination, builtins.int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError("movedim: Invalid source or destination dims: source ({} dims) should contain the same "
                           "number of dims as destination ({} dims)".format(src, dst))
    nd = input.dim()
    m = builtins.max(nd, 1)

    def wrap(d):
        if not -m <= d < m:
            raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
                -m, m - 1, d))
        return d % m
    s, t = [wrap(d) for d in src], [wrap(d) for d in dst]
    if len(set(s)) != len(s):
        raise RuntimeError("movedim: repeated dim in `source` ({})".format(src))
    if len(set(t)) != len(t):
        raise RuntimeError("movedim: repeated dim in `destination` ({})".format(dst))
    if nd == 0:
        return input.reshape(())
    order = [None] * nd
    for a, b in zip(s, t):
        order[b] = a
    rest = iter([d for d in range(nd) if d not in s])
    order = [o if o is not None else next(rest) for o in order]
    return input.permute(*order)


moveaxis = movedim


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: {}'.format(indexing))
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               "shape {}".format(list(t.shape)))
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype (got {} and {})".format(
                tensors[0].dtype, t.dtype))
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        out.append(t.reshape(view).expand(*shape))
    if swap:  # as PyTorch: swap the first two inputs, build 'ij' grids, swap the first two grids back
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        _check("cartesian_prod", t, "tensors", i + 1)
        if t.dim() != 1:
            raise RuntimeError("cartesian_prod: Expect a 1D vector, but got shape {}".format(list(t.shape)))
    if not tensors:
        raise RuntimeError("cartesian_prod: meshgrid expects a non-empty TensorList")
    if len(tensors) == 1:
        return tensors[0]
    for t in tensors:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("cartesian_prod: meshgrid expects all tensors to have the same dtype (got {} and "
                               "{})".format(tensors[0].dtype, t.dtype))
    shape = [t.shape[0] for t in tensors]
    k = len(tensors)
    cols = []
    for i, t in enumerate(tensors):
        view = [1] * k
        view[i] = shape[i]
        cols.append(t.reshape(view).expand(*shape).reshape(-1))
    return _C.stack(cols, 1)


def rot90(input, k=1, dims=(0, 1)):
    """Rotation by k*90 degrees in the plane of dims, from the first towards the second (flip + transpose)."""
    _check("rot90", input)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError("rot90: expected total rotation dims == 2, but got dims = {}".format(len(dims)))
    nd = input.dim()
    if nd < 2:
        raise RuntimeError("rot90: expected total dims >= 2, but got total dims = {}".format(nd))
    d0, d1 = dims
    if d0 == d1 or builtins.abs(d0 - d1) == nd:
        raise RuntimeError("rot90: expected rotation dims to be different, but got dim0 = {} and dim1 = {}".format(
            d0, d1))
    if not -nd <= d0 < nd:
        raise RuntimeError("rot90: Rotation dim0 out of range, dim0 = {}".format(d0))
    if not -nd <= d1 < nd:
        raise RuntimeError("rot90: Rotation dim1 out of range, dim1 = {}".format(d1))
    d0, d1 = d0 % nd, d1 % nd
    k = k % 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


_ATLEAST_SHAPES = {  # PyTorch's placement of the new size-1 dims, by (ndim, target ndim)
    (0, 1): lambda s: [1], (0, 2): lambda s: [1, 1], (0, 3): lambda s: [1, 1, 1],
    (1, 2): lambda s: [1, s[0]], (1, 3): lambda s: [1, s[0], 1], (2, 3): lambda s: [s[0], s[1], 1]}


def _atleast(name, nd, tensors):
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    out = []
    for i, t in enumerate(tensors):
        _check(name, t, "tensors", i + 1)
        out.append(t.reshape(_ATLEAST_SHAPES[t.dim(), nd](list(t.shape))) if t.dim() < nd else t)
    return out[0] if one else tuple(out)


def atleast_1d(*tensors):
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors):
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors):
    return _atleast("atleast_3d", 3, tensors)


def row_stack(tensors):
    return vstack(tensors)


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D, read as 1x1, 1xn and mxn) on the diagonal of a zero matrix, in the
    promoted dtype: each block row is one cat of zeros, the block and zeros."""
    blocks = []
    for i, t in enumerate(tensors):
        _check("block_diag", t, "tensors", i + 1)
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {} has {} "
                               "dimensions".format(i, t.dim()))
        blocks.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not blocks:
        return _C.zeros([1, 0])
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = _C.promote_types(dtype, b.dtype)
    cols = builtins.sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [_C.zeros([r, left], dtype=dtype), b.to(dtype), _C.zeros([r, cols - left - c], dtype=dtype)]
        rows.append(_C.cat(parts, 1))
        left += c
    return _C.cat(rows, 0)


def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of a 1-D tensor's elements, one per row, in itertools' order: an index_select
    of a host-built index table (shapes only)."""
    _check("combinations", input)
    if input.dim() != 1:
        raise RuntimeError("Expect a 1D vector, but got shape {}".format(list(input.shape)))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got {}".format(r))
    if r == 0:
        return input.narrow(0, 0, 0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    table = [i for combo in pick(range(input.shape[0]), r) for i in combo]
    if not table:
        return input.narrow(0, 0, 0).reshape(0, r)
    index = _C.from_numpy(np.asarray(table, dtype=np.int64))
    return input.index_select(0, index).reshape(-1, r)


def split_with_sizes(input, split_sizes, dim=0):
    _check("split_with_sizes", input)
    if _is_int(split_sizes):
        raise TypeError("split_with_sizes(): argument 'split_sizes' must be a sequence of ints, not int")
    return input.split(list(split_sizes), dim)


def unsafe_split(input, split_size, dim=0):
    """split: lazytensor's pieces are safe views, so the unsafe forms are the ordinary ones."""
    return input.split(split_size, dim)


def unsafe_chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return split_with_sizes(input, split_sizes, dim)


# The out= argument, honoured.
for _n in ("concatenate", "column_stack", "dstack", "row_stack"):
    globals()[_n] = _with_out(globals()[_n])
del _n

__all__ = ["ravel", "fliplr", "flipud", "concatenate", "column_stack", "dstack", "hstack", "vstack", "concat",
           "tensor_split", "hsplit", "vsplit", "dsplit", "broadcast_to", "broadcast_tensors", "broadcast_shapes",
           "repeat_interleave", "diff", "roll", "tile", "movedim", "moveaxis", "meshgrid", "cartesian_prod", "rot90",
           "atleast_1d", "atleast_2d", "atleast_3d", "row_stack", "block_diag", "combinations", "split_with_sizes",
           "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"]
