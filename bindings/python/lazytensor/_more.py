"""More torch.* functions (PyTorch 1.13 semantics) composed from the existing lazy ops.

Splitting and stacking (ravel, fliplr, tensor_split, column_stack, ...), diagonals (diagonal, trace,
diag_embed), contractions (tensordot, inner, ger, vdot), NaN-aware reductions, index fills and scatters,
and small constructors (logspace, tril_indices, vander, ...). Every function is a short decomposition over
existing lazy ops, so it records IR, fuses with its neighbours and is differentiated by the ordinary autograd
of those ops. Nothing here reads tensor values on the host except where the result's shape depends on them
(argwhere) or where a host argument is given as a tensor (tensor_split's indices, logspace's start/end).

Index-taking functions (take, take_along_dim, index_fill, index_copy, scatter) leave the bounds check to the
gather/index_add/scatter_add they are built on: an out-of-range index raises that op's IndexError or
RuntimeError when the result is computed (at a sync), not at the call.
"""
import builtins
import warnings

import numpy as np

from . import _C
from ._C import Tensor

_SCALAR_NAMES = {"bool": "Bool", "int32": "Int", "int64": "Long", "float32": "Float", "float64": "Double"}


def _dt_name(dt):
    """PyTorch's C++ scalar-type name of a dtype ('Float', 'Long', ...), as in its error messages."""
    name = repr(dt).replace("torch.", "")
    return _SCALAR_NAMES.get(name, name)


def _check(name, x, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError("{}(): argument '{}' (position {}) must be Tensor, not {}".format(
            name, arg, pos, type(x).__name__))


def _is_int(v):
    return isinstance(v, (builtins.int, np.integer)) and not isinstance(v, (builtins.bool, np.bool_))


def _wrap(dim, nd, name=None):
    """A dim wrapped into [0, nd) (a 0-d tensor accepts -1 and 0, as PyTorch); IndexError outside."""
    if not _is_int(dim):
        raise TypeError("{}dim must be an int, not {}".format(name + "(): " if name else "", type(dim).__name__))
    m = builtins.max(nd, 1)
    if not -m <= dim < m:
        raise IndexError("{}Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            name + ": " if name else "", -m, m - 1, dim))
    return builtins.int(dim) % m


def _reduce_dims(name, dim, nd):
    """dim=None/()/[] (all dims), an int or a sequence of ints, as a tuple of wrapped dims (None for all)."""
    if dim is None:
        return None
    dims = [dim] if _is_int(dim) else list(dim)
    if not dims:
        return None
    out = [_wrap(d, nd, name) for d in dims]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError("{}: dim {} appears multiple times in the list of dims".format(name, d))
    return tuple(out)


def _category(dt):
    return 0 if dt == _C.bool else (2 if dt.is_floating_point else 1)


def _result_type(*operands):
    """PyTorch's type promotion over tensors and Python numbers: a 0-d tensor or a number only moves the result
    to a higher category (bool < integer < floating), never to a wider type within one."""
    dims = zero = wrapped = None
    for x in operands:
        if isinstance(x, Tensor):
            if x.dim() > 0:
                dims = x.dtype if dims is None else _C.promote_types(dims, x.dtype)
            else:
                zero = x.dtype if zero is None else _C.promote_types(zero, x.dtype)
        else:
            dt = _C.bool if isinstance(x, builtins.bool) else (_C.int64 if _is_int(x) else _C.float32)
            wrapped = dt if wrapped is None else _C.promote_types(wrapped, dt)
    result = dims
    for dt in (zero, wrapped):
        if dt is None:
            continue
        if result is None:
            result = dt
        elif _category(dt) > _category(result):
            result = _C.promote_types(result, dt)
    return result


def _broadcast_shape(name, *shapes):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise RuntimeError("{}: the shapes {} do not broadcast (each dimension must be equal or 1)".format(
            name, " and ".join(str(list(s)) for s in shapes))) from None


def _default_float():
    from ._functions import get_default_dtype
    return get_default_dtype()


def _where(c, a, b):
    return _C._where3(c, a, b)


def _zeros(shape, dtype):
    return _C.zeros(*shape, dtype=dtype)


def _along(mask1d, d, nd):
    """A 1-D tensor reshaped to broadcast along dim d of an nd-dim tensor."""
    return mask1d.reshape([1] * d + [-1] + [1] * (nd - d - 1))


# ---------------------------------------------------------------- reshaping, stacking, splitting
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


def _tensor_list(name, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError("{}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}".format(
            name, type(tensors).__name__))
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("{}(): expected Tensor as element {} in argument 0, but got {}".format(
                name, i, type(t).__name__))
    if not tensors:
        raise RuntimeError("{} expects a non-empty TensorList".format(name))
    return list(tensors)


def _cat(name, tensors, dim):
    """cat, with the checks done here so that errors name `name` and the shapes."""
    nd = tensors[0].dim()
    for i, t in enumerate(tensors):
        if t.dim() != nd:
            raise RuntimeError("{}: Tensors must have same number of dimensions: got {} and {} (tensor 0 has shape "
                               "{}, tensor {} has shape {})".format(name, nd, t.dim(), list(tensors[0].shape), i,
                                                                     list(t.shape)))
    d = _wrap(dim, nd, name)
    ref = tuple(tensors[0].shape)
    for i, t in enumerate(tensors):
        for k in range(nd):
            if k != d and t.shape[k] != ref[k]:
                raise RuntimeError("{}: Sizes of tensors must match except in dimension {}. Expected size {} but got "
                                   "size {} for tensor number {} in the list (shapes {} and {})".format(
                                       name, d, ref[k], t.shape[k], i, list(ref), list(t.shape)))
    return _C.cat(tensors, d)


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


# ---------------------------------------------------------------- diagonals
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes as the last dim. Built from permute, narrow, reshape and a
    strided slice, which are all views here: writing into the result writes into input, as in PyTorch."""
    _check("diagonal", input)
    nd = input.dim()
    d1, d2 = _wrap(dim1, nd, "diagonal"), _wrap(dim2, nd, "diagonal")
    if d1 == d2:
        raise RuntimeError("diagonal: diagonal dimensions cannot be identical {}, {}".format(dim1, dim2))
    rest = [d for d in range(nd) if d not in (d1, d2)]
    x = input.permute(*rest, d1, d2)
    rows, cols = x.shape[-2], x.shape[-1]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = builtins.max(0, builtins.min(rows - r0, cols - c0))
    batch = list(x.shape[:-2])
    if n == 0:
        return x.narrow(-2, 0, 0).narrow(-1, 0, 0).reshape(batch + [0])
    flat = x.narrow(-2, r0, n).narrow(-1, c0, n).reshape(batch + [n * n])
    return flat[..., ::n + 1]


def trace(input):
    _check("trace", input)
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim {} (shape {})".format(
            input.dim(), list(input.shape)))
    if input.dtype == _C.bool:
        raise RuntimeError("trace: \"trace\" not implemented for 'Bool'")
    return diagonal(input).sum()


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """input's last dim placed on the offset diagonal of the (dim1, dim2) planes of a new tensor; the other dims
    keep their order. Off-diagonal entries are zeros (a `where`, so inf/NaN inputs stay on the diagonal)."""
    _check("diag_embed", input)
    nd = input.dim() + 1
    d1, d2 = _wrap(dim1, nd, "diag_embed"), _wrap(dim2, nd, "diag_embed")
    if d1 == d2:
        raise RuntimeError("diag_embed: diagonal dimensions cannot be identical {}, {}".format(dim1, dim2))
    n = input.shape[-1]
    k = builtins.abs(offset)
    m = n + k
    batch = list(input.shape[:-1])
    mat = _where(_C.eye(n, dtype=_C.bool), input.unsqueeze(-1), _zeros([1], input.dtype))  # [..., n, n]
    if k:
        side = _zeros(batch + [n, k], input.dtype)
        mat = _C.cat([side, mat] if offset > 0 else [mat, side], -1)  # [..., n, m]
        band = _zeros(batch + [k, m], input.dtype)
        mat = _C.cat([mat, band] if offset > 0 else [band, mat], -2)  # [..., m, m]
    order, b = [], iter(range(nd - 2))
    for p in range(nd):
        order.append(nd - 2 if p == d1 else (nd - 1 if p == d2 else next(b)))
    return mat.permute(*order)


# ---------------------------------------------------------------- contractions
def _tensordot_dims(a, b, dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()  # host values that define the contraction (PyTorch reads them on the host too)
    if _is_int(dims):
        if dims < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims={}".format(dims))
        return list(range(-dims, 0)), list(range(dims))
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = dims
        if isinstance(da, (list, tuple)) and isinstance(db, (list, tuple)) and \
                builtins.all(_is_int(d) for d in list(da) + list(db)):
            return list(da), list(db)
    raise TypeError("tensordot(): dims must be an int or a pair of lists of ints, got {!r}".format(dims))


def tensordot(a, b, dims=2):
    """Contract a's dims_a with b's dims_b: permute both so the contracted dims meet, reshape to matrices,
    one mm, reshape to a's free dims + b's free dims. A contracted size 1 against a larger one is summed
    over first (PyTorch broadcasts such pairs)."""
    _check("tensordot", a, "a", 1)
    _check("tensordot", b, "b", 2)
    da, db = _tensordot_dims(a, b, dims)
    return _tensordot("tensordot", a, b, da, db)


def _tensordot(name, a, b, da, db):
    if len(da) != len(db):
        raise RuntimeError("{}: both dimension lists should have same length (got {} and {})".format(name, da, db))
    wa = [_wrap(d, a.dim(), name) for d in da]
    wb = [_wrap(d, b.dim(), name) for d in db]
    for w in (wa, wb):
        for d in w:
            if w.count(d) > 1:
                raise RuntimeError("{}: dim {} appears multiple times in the list of dims".format(name, d))
    for (ia, oa), (ib, ob) in zip(zip(wa, da), zip(wb, db)):
        sa, sb = a.shape[ia], b.shape[ib]
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError("{}: contracted dimensions need to match, but first has size {} in dim {} and second "
                               "has size {} in dim {} (shapes {} and {})".format(
                                   name, sa, oa, sb, ob, list(a.shape), list(b.shape)))
    fa = [d for d in range(a.dim()) if d not in wa]
    fb = [d for d in range(b.dim()) if d not in wb]
    size_fa = [a.shape[d] for d in fa]
    size_fb = [b.shape[d] for d in fb]
    k = builtins.int(np.prod([builtins.max(a.shape[i], b.shape[j]) for i, j in zip(wa, wb)], dtype=np.int64))
    m = builtins.int(np.prod(size_fa, dtype=np.int64))
    n = builtins.int(np.prod(size_fb, dtype=np.int64))
    if (a.dtype != b.dtype or a.dtype == _C.bool) and (m * n == 0 or k == 0):
        # nothing is multiplied: PyTorch checks neither dtypes nor bool then, and returns zeros of a's dtype
        return _zeros(size_fa + size_fb, a.dtype)
    if a.dtype != b.dtype:
        raise RuntimeError("{}: expected scalar type {} but found {} (both tensors must have the same "
                           "dtype)".format(name, _dt_name(a.dtype), _dt_name(b.dtype)))
    if a.dtype == _C.bool:
        raise RuntimeError("{}: \"addmm_impl_cpu_\" not implemented for 'Bool'".format(name))
    # size-1 against size-k: sum the other side's dim (keepdim), then both are 1
    for ia, ib in zip(wa, wb):
        if a.shape[ia] == 1 and b.shape[ib] != 1:
            b = b.sum(ib, keepdim=True, dtype=b.dtype)
        elif b.shape[ib] == 1 and a.shape[ia] != 1:
            a = a.sum(ia, keepdim=True, dtype=a.dtype)
    k = builtins.int(np.prod([a.shape[d] for d in wa], dtype=np.int64))
    ma = a.permute(*(fa + wa)).reshape(m, k)
    mb = b.permute(*(wb + fb)).reshape(k, n)
    return ma.mm(mb).reshape(size_fa + size_fb)


def inner(input, other):
    _check("inner", input)
    _check("inner", other, "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got shapes {} and "
                           "{}".format(list(input.shape), list(other.shape)))
    return _tensordot("inner", input, other, [-1], [-1])


def ger(input, vec2):
    """torch.ger (the deprecated name of outer): input[i] * vec2[j], with type promotion."""
    _check("ger", input)
    _check("ger", vec2, "vec2", 2)
    for arg, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError("ger (outer): Expected 1-D argument {}, but got {}-D (shape {})".format(
                arg, t.dim(), list(t.shape)))
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


def vdot(input, other):
    """Dot product of two 1-D tensors (real dtypes: no conjugation needed)."""
    _check("vdot", input)
    _check("vdot", other, "other", 2)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError("vdot: 1D tensors expected, but got {}D and {}D tensors".format(input.dim(), other.dim()))
    if input.dtype != other.dtype:
        raise RuntimeError("vdot: expected both vectors to have same dtype, but found {} and {}".format(
            _dt_name(input.dtype), _dt_name(other.dtype)))
    if input.shape[0] != other.shape[0]:
        raise RuntimeError("vdot: inconsistent tensor size, expected tensor [{}] and src [{}] to have the same "
                           "number of elements, but got {} and {} elements respectively".format(
                               input.shape[0], other.shape[0], input.shape[0], other.shape[0]))
    if input.dtype == _C.bool:
        raise RuntimeError("vdot: \"dot\" not implemented for 'Bool'")
    return (input * other).sum(dtype=input.dtype)


# ---------------------------------------------------------------- reductions
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum treating NaN as 0 (and a zero gradient there, as PyTorch)."""
    _check("nansum", input)
    dims = _reduce_dims("nansum", dim, input.dim())
    x = input
    if dtype is not None:
        dtype = _C._to_dtype(dtype)
        if x.dtype.is_floating_point and not dtype.is_floating_point:
            raise RuntimeError("nansum: \"nansum_cpu\" not implemented for '{}'".format(_dt_name(dtype)))
        x = x.to(dtype)
    if x.dtype.is_floating_point:
        x = _where(x.isnan(), _zeros([1], x.dtype), x)
    if dtype is None:
        return x.sum(dims, keepdim)
    return x.sum(dims, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """mean over the non-NaN elements (NaN where there are none)."""
    _check("nanmean", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point dtype but got {}".format(
            _dt_name(input.dtype)))
    dims = _reduce_dims("nanmean", dim, input.dim())
    if dtype is not None and not _C._to_dtype(dtype).is_floating_point:
        raise RuntimeError("nanmean: \"nansum_cpu\" not implemented for '{}' (dtype must be floating)".format(
            _dt_name(_C._to_dtype(dtype))))
    count = input.isnan().logical_not().sum(dims, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def count_nonzero(input, dim=None):
    _check("count_nonzero", input)
    dims = _reduce_dims("count_nonzero", dim, input.dim())
    nz = input if input.dtype == _C.bool else input != 0
    return nz.sum(dims, dtype=_C.int64)


# ---------------------------------------------------------------- indexing
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
        from ._creation import tensor
        v = tensor(value).to(input.dtype)  # 2.7 into an integer tensor is 2, as PyTorch
    else:
        raise TypeError("index_fill(): argument 'value' must be Number or Tensor, not {}".format(
            type(value).__name__))
    n = input.shape[d] if nd else 1
    idx = index.reshape(-1)
    idx = _where(idx < 0, idx + n, idx)
    mask = _hits(idx, n)
    if nd == 0:
        return _where(mask.reshape(()), v, input)
    return _where(_along(mask, d, nd), v, input)


def _added_into_zeros(x, op, d, idx, src):
    """zeros like x with src added at idx along d by `op` (index_add or scatter_add); bool as any-true."""
    if x.dtype == _C.bool:
        return getattr(_zeros(x.shape, _C.int32), op)(d, idx, src.to(_C.int32)) != 0
    return getattr(_zeros(x.shape, x.dtype), op)(d, idx, src)


def index_copy(input, dim, index, source):
    """input with the slices at `index` along dim replaced by source's slices. Duplicate indices add their
    slices (PyTorch keeps one of them, which one is unspecified)."""
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
    out = _where(mask, _added_into_zeros(x, "index_add", d, idx, src), x)
    return out if nd > 0 else out.reshape(())


_NO_VALUE = object()


def scatter(input, dim, index, src=_NO_VALUE, value=_NO_VALUE, *, reduce=None):
    """out[..., index[i][j], ...] = src[i][j] (or value) along dim, input elsewhere. Duplicate indices with
    src add the values (PyTorch keeps one of them, which one is unspecified); with value they are exact."""
    _check("scatter", input)
    _check("scatter", index, "index", 3)
    if reduce is not None:
        raise NotImplementedError("scatter(reduce={!r}) is not supported by lazytensor; use scatter_add (for 'add') "
                                  "or compose the reduction".format(reduce))
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
    nd = input.dim()
    d = _wrap(dim, nd, "scatter")
    if index.dtype != _C.int64:
        raise RuntimeError("scatter(): Expected dtype int64 for index (got {})".format(_dt_name(index.dtype)))
    if index.dim() != nd and not (index.dim() <= 1 and nd <= 1):
        raise RuntimeError("scatter(): Index tensor must have the same number of dimensions as self tensor (index "
                           "shape {}, self shape {})".format(list(index.shape), list(input.shape)))
    if src is not None:
        if 1 <= src.dim() < index.dim():  # (PyTorch's check reads src.size(d) first: an IndexError)
            raise IndexError("scatter(): Dimension out of range: src of shape {} has fewer dimensions than index of "
                             "shape {}".format(list(src.shape), list(index.shape)))
        if src.dim() != index.dim() and not (src.dim() <= 1 and index.dim() <= 1):
            raise RuntimeError("scatter(): Index tensor must have the same number of dimensions as src tensor (index "
                               "shape {}, src shape {})".format(list(index.shape), list(src.shape)))
        if src.dtype != input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype (got {} and {})".format(
                _dt_name(input.dtype), _dt_name(src.dtype)))
    x = input.reshape(1) if nd == 0 else input
    idx = index.reshape(1) if index.dim() == 0 else index
    s = None if src is None else (src.reshape(1) if src.dim() == 0 else src)
    for j in range(x.dim()):
        too_big = (j != d and idx.shape[j] > x.shape[j]) or (s is not None and idx.shape[j] > s.shape[j])
        if too_big:
            extra = "" if s is None else " and to be smaller size than src {}".format(list(src.shape))
            raise RuntimeError("scatter(): Expected index {} to be smaller than self {} apart from dimension "
                               "{}{}".format(list(index.shape), list(input.shape), d, extra))
    if idx.numel() == 0:
        return input.clone()
    hits = _zeros(x.shape, _C.int32).scatter_add(d, idx, _C.ones(*idx.shape, dtype=_C.int32)) > 0
    if s is None:
        from ._creation import tensor
        out = _where(hits, tensor(value).to(x.dtype), x)
    else:
        for j in range(s.dim()):
            if s.shape[j] != idx.shape[j]:
                s = s.narrow(j, 0, idx.shape[j])
        out = _where(hits, _added_into_zeros(x, "scatter_add", d, idx, s), x)
    return out if nd > 0 else out.reshape(())


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


def isreal(input):
    """All True: lazytensor has no complex dtypes."""
    _check("isreal", input)
    return _C.ones(*input.shape, dtype=_C.bool)


# ---------------------------------------------------------------- elementwise
def _binary_tensors(name, input, other):
    _check(name, input)
    _check(name, other, "other", 2)
    _broadcast_shape(name, input.shape, other.shape)
    dt = _result_type(input, other)
    return input.to(dt), other.to(dt)


def fmax(input, other):
    """Elementwise max that ignores NaN (NaN only where both are NaN). The gradient goes to input where
    input >= other or other is NaN, to other elsewhere, as PyTorch."""
    a, b = _binary_tensors("fmax", input, other)
    if a.dtype == _C.bool:
        return a.logical_or(b)
    pick = a >= b
    if a.dtype.is_floating_point:
        pick = pick | b.isnan()
    return _where(pick, a, b)


def fmin(input, other):
    """Elementwise min that ignores NaN (see fmax)."""
    a, b = _binary_tensors("fmin", input, other)
    if a.dtype == _C.bool:
        return a.logical_and(b)
    pick = a <= b
    if a.dtype.is_floating_point:
        pick = pick | b.isnan()
    return _where(pick, a, b)


def ldexp(input, other):
    """input * 2**other, computed as PyTorch does (2**other in other's floating type: float32 for integers)."""
    _check("ldexp", input)
    _check("ldexp", other, "other", 2)
    _broadcast_shape("ldexp", input.shape, other.shape)
    return input * (2.0 ** other)


# ---------------------------------------------------------------- statistics and integration
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) over the columns (observations), as torch.cov. Negative weights are
    not detected (PyTorch raises; that would need a sync)."""
    _check("cov", input)
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with {} "
                           "dimensions".format(input.dim()))
    if input.dtype == _C.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    nobs = x.shape[1]
    dt = input.dtype if input.dtype.is_floating_point else _default_float()
    for nm, w, want_float in (("fweights", fweights, False), ("aweights", aweights, True)):
        if w is None:
            continue
        _check("cov", w, nm, 2)
        if w.dim() > 1:
            raise RuntimeError("cov(): expected {} to have one or fewer dimensions but got {} with {} "
                               "dimensions".format(nm, nm, w.dim()))
        if want_float and not w.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with {} "
                               "dtype".format(_dt_name(w.dtype)))
        if not want_float and (w.dtype.is_floating_point or w.dtype == _C.bool):
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with {} "
                               "dtype".format(_dt_name(w.dtype)))
        if w.numel() != nobs:
            raise RuntimeError("cov(): expected {} to have the same numel as there are observations in the input but "
                               "got {} != {}".format(nm, w.numel(), nobs))
        if want_float:
            dt = _C.promote_types(dt, w.dtype)
    x = x.to(dt)
    w = None
    if fweights is not None:
        w = fweights.reshape(-1).to(dt)
    if aweights is not None:
        aw = aweights.reshape(-1).to(dt)
        w = aw if w is None else w * aw
    if w is None:
        avg = x.sum(1) / builtins.float(nobs)  # NaN without observations, as PyTorch
        norm = nobs - correction
        if norm <= 0:
            warnings.warn("cov(): degrees of freedom is <= 0", UserWarning, stacklevel=2)
            norm = 0
        xm = x - avg.unsqueeze(1)
        c = xm.matmul(xm.t()) / builtins.float(norm)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aw).sum() / w_sum
        norm = norm.clamp_min(0)
        xm = x - avg.unsqueeze(1)
        c = (xm * w).matmul(xm.t()) / norm
    return c.squeeze()


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim, with sample points x (1-D, or broadcasting against y) or spacing dx
    (default 1)."""
    _check("trapezoid", y, "y", 1)
    if x is not None and dx is not None:
        raise TypeError("trapezoid(): pass either x (sample points) or dx (spacing), not both")
    if x is not None:
        _check("trapezoid", x, "x", 2)
    if y.dim() == 0:
        raise IndexError("trapezoid: Dimension specified as {} but tensor has no dimensions".format(dim))
    nd = y.dim()
    d = _wrap(dim, nd, "trapezoid")
    if y.dtype == _C.bool or (x is not None and x.dtype == _C.bool):
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    n = y.shape[d]
    if x is not None and x.dim() == 1 and x.shape[0] != n:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point (got {} x values for "
                           "{} samples along dim {})".format(x.shape[0], n, d))
    if n == 0:
        shape = list(y.shape[:d]) + list(y.shape[d + 1:])
        return _zeros(shape, y.dtype)
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is None:
        step = 1 if dx is None else dx
        return (y.sum(d) - (y.select(d, 0) + y.select(d, n - 1)) * 0.5) * step
    if x.dim() == 1:
        xv = _along(x, d, nd)
    elif x.dim() < nd:
        xv = x.reshape([1] * (nd - x.dim()) + list(x.shape))
    else:
        xv = x
    if d >= xv.dim() or xv.shape[d] == 0:
        raise RuntimeError("trapezoid: x of shape {} has no sample points along dim {}".format(list(x.shape), d))
    m = xv.shape[d]
    steps = xv.narrow(d, 1, m - 1) - xv.narrow(d, 0, m - 1)
    _broadcast_shape("trapezoid", steps.shape, left.shape)
    return (steps * (left + right)).sum(d) / 2


# ---------------------------------------------------------------- constructors
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """base ** (steps points from start to end), computed in float64 on the host (a constant, like linspace)
    and rounded to dtype. For integer dtypes start and end are truncated first and the powers truncated, as
    PyTorch."""
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
        from ._functions import _write_out
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
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=_C.int64, device=None, layout=None):
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


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


from ._functions import _with_out  # noqa: E402

__all__ = ["ravel", "fliplr", "flipud", "concatenate", "column_stack", "dstack", "hsplit", "vsplit", "dsplit",
           "tensor_split", "diagonal", "trace", "tensordot", "inner", "ger", "vdot", "nansum", "nanmean",
           "count_nonzero", "take", "take_along_dim", "index_fill", "index_copy", "scatter", "fmax", "fmin", "ldexp",
           "logspace", "rot90", "cov", "trapezoid", "isin", "tril_indices", "triu_indices", "cartesian_prod",
           "unravel_index", "argwhere", "isreal", "diag_embed", "vander", "select_scatter", "slice_scatter"]

# The functions PyTorch gives an out= argument: the result is copied into it (see _functions._write_out).
for _n in ("concatenate", "column_stack", "dstack", "tensordot", "inner", "ger", "vdot", "nansum", "nanmean", "take",
           "take_along_dim", "index_copy", "fmax", "fmin", "ldexp", "isin"):
    globals()[_n] = _with_out(globals()[_n])
del _n



def _callable_trace_module(fn):
    """`lazytensor.trace` is also the fusion-lab submodule (lazytensor/trace.py). Importing a submodule rebinds
    the package attribute to the module, which would hide torch.trace as soon as anything ran
    `import lazytensor.trace`. So the submodule is loaded now and made callable: `lazytensor.trace(x)` is this
    function, `lazytensor.trace.load(...)` (and `import lazytensor.trace as lab`) the lab, in either order."""
    import importlib
    import types
    lab = importlib.import_module(".trace", __package__)

    class _TraceModule(types.ModuleType):
        def __call__(self, input):
            return fn(input)
    lab.__class__ = _TraceModule
    return lab


_trace_function = trace
trace = _callable_trace_module(_trace_function)

# Tensor methods PyTorch has for these functions, and their in-place forms.
_METHODS = ["ravel", "fliplr", "flipud", "hsplit", "vsplit", "dsplit", "tensor_split", "diagonal", "trace", "inner",
            "ger", "vdot", "nansum", "nanmean", "count_nonzero", "take", "take_along_dim", "index_fill", "index_copy",
            "scatter", "fmax", "fmin", "ldexp", "rot90", "cov", "isreal", "diag_embed", "argwhere", "select_scatter",
            "slice_scatter"]
_INPLACE = ["index_fill", "index_copy", "scatter", "ldexp"]


def install(T):
    """Attach the Tensor methods (and in-place forms) that the class lacks."""
    from ._math_extra import inplace, method
    g = dict(globals(), trace=_trace_function)
    for name in _METHODS:
        if not hasattr(T, name):
            setattr(T, name, method(g[name], name))
    for name in _INPLACE:
        if not hasattr(T, name + "_"):
            setattr(T, name + "_", inplace(g[name], name + "_"))
