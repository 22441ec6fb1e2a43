"""Argument checks, dim wrapping and type promotion shared by the modules of torch.* functions."""
import builtins

import numpy as np

from . import _C
from ._C import Tensor
from ._dtype import get_default_dtype


_SCALAR_NAMES = {"bool": "Bool", "int32": "Int", "int64": "Long", "float32": "Float", "float64": "Double",
                 "float16": "Half", "bfloat16": "BFloat16", "int8": "Char", "uint8": "Byte", "int16": "Short"}


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
    return get_default_dtype()


def _where(c, a, b):
    return _C._where3(c, a, b)


def _zeros(shape, dtype):
    return _C.zeros(*shape, dtype=dtype)


def _along(mask1d, d, nd):
    """A 1-D tensor reshaped to broadcast along dim d of an nd-dim tensor."""
    return mask1d.reshape([1] * d + [-1] + [1] * (nd - d - 1))


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
