"""The legacy typed constructors: torch.FloatTensor([1, 2]), torch.FloatTensor(2, 3) (uninitialised), and
isinstance(x, torch.FloatTensor) for a float32 tensor, for the dtypes this package has."""
from . import _C
from ._creation import tensor

__all__ = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"]


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == cls._dtype


def _make(name, dtype):
    def __new__(cls, *args, **kwargs):
        device = kwargs.pop("device", None)  # noqa: F841  (one device)
        if kwargs:
            raise TypeError(f"{name}(): unexpected keyword arguments {sorted(kwargs)}")
        if not args:
            return _C.empty(0, dtype=dtype)
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _C.empty(*args, dtype=dtype)
        if len(args) == 1 and isinstance(args[0], (tuple, list)) is False and hasattr(args[0], "__len__") \
                and type(args[0]).__name__ == "Size":
            return _C.empty(*args[0], dtype=dtype)
        if len(args) == 1:
            if isinstance(args[0], _C.Tensor):
                return args[0].to(dtype)
            return tensor(args[0], dtype=dtype)
        raise TypeError(f"{name}(): expected a sequence of numbers or sizes as ints, got {args!r}")

    return _LegacyTensorMeta(name, (), {"__new__": __new__, "_dtype": dtype, "__module__": "torch",
                                        "__doc__": f"Legacy constructor for {dtype} tensors."})


FloatTensor = _make("FloatTensor", _C.float32)
DoubleTensor = _make("DoubleTensor", _C.float64)
LongTensor = _make("LongTensor", _C.int64)
IntTensor = _make("IntTensor", _C.int32)
BoolTensor = _make("BoolTensor", _C.bool)
