"""Argument checks shared by the nn.functional modules."""
import warnings

import numpy as np

from .. import _C
from .._C import Tensor


def _float_only(name, input):
    if not input.dtype.is_floating_point:
        raise RuntimeError('"{}" not implemented for \'{}\''.format(name, _dtype_word(input.dtype)))


def _dtype_word(dt):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "float32": "Float", "float64": "Double"}.get(
        repr(dt).replace("torch.", ""), repr(dt))


def _to_float(x):
    return x if x.dtype.is_floating_point else x.to(_C.float32)


def _broadcast_shape(name, *tensors):
    try:
        return tuple(np.broadcast_shapes(*[tuple(t.shape) for t in tensors]))
    except ValueError:
        raise RuntimeError("{}: the shapes {} do not broadcast to one shape".format(
            name, ", ".join(str(list(t.shape)) for t in tensors))) from None


def _check_loss_shapes(name, input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the same size.".format(
                          target.shape, input.shape), stacklevel=3)
        _broadcast_shape(name, input, target)


def _shape(t):
    return list(t.shape)


def _tensor_arg(fn, name, x):
    if not isinstance(x, Tensor):
        raise TypeError("{}(): argument '{}' must be Tensor, not {}".format(fn, name, type(x).__name__))


def _same_shape(fn, input, target):
    """PyTorch broadcasts these losses' input and target (RuntimeError when they do not broadcast)."""
    _tensor_arg(fn, "input", input)
    _tensor_arg(fn, "target", target)
    _broadcast_shape(fn, input, target)
