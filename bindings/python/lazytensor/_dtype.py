"""dtype queries: the default floating dtype, finfo, iinfo and can_cast."""
import builtins

import numpy as np

from . import _C


def get_default_dtype():
    return _C.float32


def set_default_dtype(d):
    if _C._to_dtype(d) != _C.float32:
        raise NotImplementedError("lazytensor's default dtype is float32")


class finfo:
    """Machine limits of a floating dtype (float16, bfloat16, float32, float64), as torch.finfo."""

    def __init__(self, type=None):
        d = _C.float32 if type is None else type
        if not isinstance(d, _C.dtype) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        name = repr(d).replace("torch.", "")
        if name == "bfloat16":  # no numpy type: float32's exponent with 8 significant bits
            self.bits, self.eps, self.max = 16, 2.0 ** -7, float.fromhex("0x1.fep127")
            self.min, self.tiny, self.resolution = -self.max, 2.0 ** -126, 0.01
        else:
            info = np.finfo(getattr(np, name))
            self.bits = builtins.int(info.bits)
            self.eps = builtins.float(info.eps)
            self.max = builtins.float(info.max)
            self.min = builtins.float(info.min)
            self.tiny = builtins.float(info.tiny)
            self.resolution = 10.0 ** -builtins.int(info.precision)
        self.smallest_normal = self.tiny
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return ("finfo(resolution={:g}, min={:g}, max={:g}, eps={:g}, smallest_normal={:g}, tiny={:g}, "
                "dtype={})".format(self.resolution, self.min, self.max, self.eps, self.smallest_normal, self.tiny,
                                   self.dtype))


class iinfo:
    """Machine limits of an integer dtype (uint8, int8, int16, int32, int64), as torch.iinfo."""

    def __init__(self, type):
        if not isinstance(type, _C.dtype):
            raise TypeError("torch.iinfo() requires an integer input type, got {}".format(builtins.type(type)))
        name = repr(type).replace("torch.", "")
        if type == _C.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(getattr(np, name))
        self.bits = builtins.int(info.bits)
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return "iinfo(min={:g}, max={:g}, dtype={})".format(builtins.float(self.min), builtins.float(self.max),
                                                              self.dtype)


def can_cast(*args, **kwargs):
    """torch.can_cast(from, to): whether a type-promoting op may write a `from` result into a `to` output.
    As c10::canCast: not from a floating dtype to an integral one (bool included), not from a non-bool
    dtype to bool; everything else may."""
    names = ("from", "to")
    if len(args) > 2:
        raise TypeError("can_cast() takes 2 positional arguments but {} were given".format(len(args)))
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in values:
            raise TypeError("can_cast() got an unexpected keyword argument '{}'".format(k))
        values[k] = v
    missing = [k for k in names if k not in values]
    if missing:
        raise TypeError('can_cast() missing {} required positional argument: {}'.format(
            len(missing), ", ".join('"{}"'.format(k) for k in missing)))
    for pos, k in enumerate(names, 1):
        if not isinstance(values[k], _C.dtype):
            raise TypeError("can_cast(): argument '{}' (position {}) must be torch.dtype, not {}".format(
                k, pos, type(values[k]).__name__))
    src, dst = values["from"], values["to"]
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return not (dst == _C.bool and src != _C.bool)
