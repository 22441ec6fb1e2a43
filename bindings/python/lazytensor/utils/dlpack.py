"""DLPack interop (torch.utils.dlpack): lazytensor tensors to and from other array libraries.

Memory is not shared in either direction. Exporting materialises the tensor and copies its value into
a fresh numpy array (Tensor.numpy() returns a copy, not a view of the tensor's buffer); the capsule is
that array's. Importing reads the producer through numpy.from_dlpack and copies it into a new tensor
(lazytensor.from_numpy copies). Writes on one side are therefore never seen on the other. numpy 1.24
exports no bool arrays over DLPack, so bool tensors do not cross it.
"""
import numpy as np

from .. import _C
from .._C import Tensor


def _exported_array(t):
    return np.array(_C._to_numpy(t.detach()), order="C", copy=False)


def _dlpack(self, stream=None):
    if stream is not None and stream != -1:
        raise ValueError("lazytensor tensors live on the CPU; __dlpack__ takes no stream")
    return _exported_array(self).__dlpack__()


def _dlpack_device(self):
    return (1, 0)  # kDLCPU, device 0


def to_dlpack(tensor):
    """A DLPack capsule holding a copy of tensor's value."""
    return _dlpack(tensor)


class _Capsule:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def from_dlpack(ext_tensor):
    """A new tensor with the value of ext_tensor (an object with __dlpack__, or a DLPack capsule)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        ext_tensor = _Capsule(ext_tensor)
    arr = np.from_dlpack(ext_tensor)
    return _C.from_numpy(np.array(arr, order="C", copy=True))


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device
