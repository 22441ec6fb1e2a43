"""The out= argument of torch.* functions: the result is copied into the given tensor."""
import functools

from . import _C
from ._C import Tensor


def _write_out(name, result, out):
    """The out= form: the result is copied into `out`, which must already have the result's shape (lazytensor
    cannot resize a tensor in place; PyTorch resizes with a deprecation warning)."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError("{}(): argument 'out' must be Tensor, not {}".format(name, type(out).__name__))
    if (result.dtype.is_floating_point and not out.dtype.is_floating_point) or \
            (result.dtype != _C.bool and out.dtype == _C.bool):
        raise RuntimeError("{}: result type {} can't be cast to the desired output type {}".format(
            name, result.dtype, out.dtype))
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError("{}: out= has shape {} but the result has shape {} (lazytensor does not resize out= "
                           "tensors)".format(name, list(out.shape), list(result.shape)))
    out.copy_(result)
    return out


def _with_out(fn):
    """fn's out= argument, honoured: the result is written into it (fn itself is called without out)."""
    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        return _write_out(fn.__name__, fn(*args, **kwargs), out)
    return f
