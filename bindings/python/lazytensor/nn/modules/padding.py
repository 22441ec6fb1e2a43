"""Padding layers: ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d and ReplicationPad1d/2d/3d (F.pad)."""
from .. import functional as F
from .module import Module


class _PadNd(Module):
    _n = 2
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = (padding,) * (2 * self._n) if isinstance(padding, int) else tuple(padding)
        if self._mode == "constant":
            self.value = 0.0 if value is None else value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        if self._mode == "constant":
            return "padding={}, value={}".format(self.padding, self.value)
        return "{}".format(self.padding)


class ZeroPad2d(_PadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "{}".format(self.padding)


def _pad_class(name, n, mode, takes_value):
    if takes_value:
        def init(self, padding, value):
            _PadNd.__init__(self, padding, value)
    else:
        def init(self, padding):
            _PadNd.__init__(self, padding)
    return type(name, (_PadNd,), {"_n": n, "_mode": mode, "__init__": init})


ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", True)
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", True)
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", True)
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", False)
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect", False)
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", False)
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", False)
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate", False)
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", False)

__all__ = ["ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]
