"""torch.save / torch.load in PyTorch's zip checkpoint format (the default of torch 1.13).

Layout of an archive written here (and read back, from either side):
  archive/data.pkl   pickle protocol 2; tensors reduce to torch._utils._rebuild_tensor_v2(storage,
                     offset, size, stride, requires_grad, OrderedDict()), parameters to
                     torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()); each storage
                     is a persistent id ('storage', torch.<Type>Storage, key, 'cpu', numel)
  archive/data/<key> the storage's raw little-endian bytes
  archive/version    "3"
  archive/byteorder  "little" (torch 1.13 ignores it; later torch reads it)

The torch names are written as GLOBAL opcodes by hand, so torch is never imported; on load a custom
Unpickler.find_class maps them back to the functions here. Files that are not zip archives are read
as the plain pickles older lazytensor versions wrote.

Storage sharing: a lazytensor tensor does not expose storage identity, so on save one storage is
written per distinct tensor object (the same object appearing twice, e.g. tied weights, is written
once and torch sees one storage). On load, records that name the same storage with the same offset,
size and stride come back as the same tensor object; distinct views of one storage (a tensor and its
slice) come back as separate tensors with the right values, not as aliases.
"""
import collections
import io
import os
import pickle
import zipfile

import numpy as np

from . import _C
from ._C import Tensor
from ._device import device
from .nn.parameter import Parameter

_STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "IntStorage": np.int32,
    "LongStorage": np.int64,
    "BoolStorage": np.bool_,
    "HalfStorage": np.float16,
    "BFloat16Storage": np.uint16,  # raw bits: numpy has no bfloat16 (torch 1.13 has no uint16 storage)
    "ByteStorage": np.uint8,
    "CharStorage": np.int8,
    "ShortStorage": np.int16,
}
_UNSUPPORTED_STORAGES = {
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128", "QInt8Storage": "qint8", "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
}
_NP_TO_STORAGE = {np.dtype(v): k for k, v in _STORAGE_DTYPES.items()}


class _TorchGlobal:
    """Stands for a torch global (module, name) in a pickle written here."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants a callable in a reduce tuple; it is never called here
        raise RuntimeError("{}.{} is a pickle placeholder".format(self.module, self.name))


_REBUILD_TENSOR_V2 = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_STORAGE_GLOBALS = {k: _TorchGlobal("torch", k) for k in _STORAGE_DTYPES}


class _StorageRef:
    def __init__(self, key, storage_name, numel):
        self.key, self.storage_name, self.numel = key, storage_name, numel


class _PlainTensor:
    """The tensor inside a Parameter record, pickled without the Parameter wrapper."""

    def __init__(self, t):
        self.t = t


class _Pickler(pickle._Pickler):
    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = {}  # id(tensor) -> (tensor, _StorageRef, contiguous numpy array)

    def _save_torch_global(self, obj):
        self.write(pickle.GLOBAL + bytes(obj.module + "\n" + obj.name + "\n", "utf-8"))
        self.memoize(obj)

    dispatch[_TorchGlobal] = _save_torch_global

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _STORAGE_GLOBALS[obj.storage_name], obj.key, "cpu", obj.numel)
        return None

    def _tensor_reduce(self, t):
        entry = self.storages.get(id(t))
        if entry is None:
            if t.dtype == _C.bfloat16:
                arr, name = _C._bits_to_numpy(t.detach()), "BFloat16Storage"
            else:
                arr = np.array(_C._to_numpy(t.detach()), order="C", copy=False)
                name = _NP_TO_STORAGE.get(arr.dtype)
            if name is None:
                raise TypeError("lazytensor.save: no torch storage type for dtype {}".format(arr.dtype))
            entry = (t, _StorageRef(str(len(self.storages)), name, int(arr.size)), arr)
            self.storages[id(t)] = entry
        arr = entry[2]
        size = tuple(int(s) for s in arr.shape)
        stride = tuple(int(s) // arr.itemsize for s in arr.strides) if arr.size else _contig_stride(size)
        return (_REBUILD_TENSOR_V2, (entry[1], 0, size, stride, bool(t.requires_grad), collections.OrderedDict()))

    def reducer_override(self, obj):
        if isinstance(obj, _PlainTensor):
            return self._tensor_reduce(obj.t)
        if isinstance(obj, Tensor):
            if isinstance(obj, Parameter):
                return (_REBUILD_PARAMETER, (_PlainTensor(obj), bool(obj.requires_grad), collections.OrderedDict()))
            return self._tensor_reduce(obj)
        return NotImplemented


def _contig_stride(size):
    stride, acc = [], 1
    for s in reversed(size):
        stride.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(stride))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write obj in torch's zip checkpoint format (readable by torch.load)."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("lazytensor.save writes only the zip format")
    buf = io.BytesIO()
    pickler = _Pickler(buf)
    pickler.dump(obj)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            _write_zip(fh, buf.getvalue(), pickler.storages)
    else:
        _write_zip(f, buf.getvalue(), pickler.storages)


def _write_zip(fh, data_pkl, storages):
    prefix = "archive/"
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(prefix + "data.pkl", data_pkl)
        z.writestr(prefix + "byteorder", "little")
        for _, ref, arr in storages.values():
            data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
            z.writestr(prefix + "data/" + ref.key, data)
        z.writestr(prefix + "version", "3\n")


# ---------------------------------------------------------------- load

class _Storage:
    """A loaded storage: a flat numpy array and where it came from."""

    def __init__(self, array, location):
        self.array, self.location = array, location


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    arr = storage.array
    size, stride = tuple(size), tuple(stride)
    memo = getattr(storage, "_views", None)
    if memo is None:
        memo = storage._views = {}
    key = (storage_offset, size, stride, bool(requires_grad))
    if key in memo:
        return memo[key]
    if any(s == 0 for s in size):
        out = np.zeros(size, dtype=arr.dtype)
    else:
        view = np.lib.stride_tricks.as_strided(arr[storage_offset:], shape=size,
                                               strides=tuple(s * arr.itemsize for s in stride))
        out = np.array(view, order="C", copy=True)
    t = _C._bits_from_numpy(out, _C.bfloat16) if getattr(storage, "bfloat16", False) else _C.from_numpy(out)
    if requires_grad:
        t.requires_grad_(True)
    memo[key] = t
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None, *args):
    return Parameter(data, requires_grad=requires_grad)


class _StorageType:
    def __init__(self, name):
        self.name = name


_SAFE_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, zf, prefix, map_location, weights_only):
        super().__init__(file)
        self.zf, self.prefix, self.map_location, self.weights_only = zf, prefix, map_location, weights_only
        self.loaded = {}

    def find_class(self, module, name):
        if (module, name) in _SAFE_GLOBALS:
            return _SAFE_GLOBALS[(module, name)]
        if module == "torch" and name.endswith("Storage"):
            if name in _STORAGE_DTYPES:
                return _StorageType(name)
            if name in _UNSUPPORTED_STORAGES:
                raise TypeError("lazytensor.load: the checkpoint holds a {} tensor ({}); lazytensor has "
                                "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 and float64"
                                .format(_UNSUPPORTED_STORAGES[name], name))
        if module == "torch" and name == "device":
            return device
        if self.weights_only:
            raise pickle.UnpicklingError("lazytensor.load(weights_only=True): global {}.{} is not allowed "
                                         "(only tensors, primitive containers and OrderedDict)".format(module, name))
        if module.startswith("torch"):
            module = "lazytensor" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError("lazytensor.load: unknown persistent id {!r}".format(pid))
        _, storage_type, key, location, numel = pid
        if key in self.loaded:
            return self.loaded[key]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError("lazytensor.load: unknown storage type {!r}".format(storage_type))
        raw = self.zf.read(self.prefix + "data/" + str(key))
        arr = np.frombuffer(raw, dtype=np.dtype(_STORAGE_DTYPES[storage_type.name]).newbyteorder("<"))
        arr = arr[:numel].astype(np.dtype(_STORAGE_DTYPES[storage_type.name]))
        storage = _Storage(arr, _map_location(self.map_location, location))
        storage.bfloat16 = storage_type.name == "BFloat16Storage"
        if callable(self.map_location):
            res = self.map_location(storage, location)
            if isinstance(res, _Storage):
                storage = res
        self.loaded[key] = storage
        return storage


def _map_location(map_location, location):
    if map_location is None or callable(map_location):
        return location
    if isinstance(map_location, dict):
        return map_location.get(location, location)
    return str(map_location)


def load(f, map_location=None, pickle_module=None, weights_only=False, **pickle_load_args):
    """Read a torch zip checkpoint (from torch.save or lazytensor.save), or an old lazytensor pickle.

    Everything lands on the CPU: map_location ("cpu", a device, a dict of location renames, or a
    callable(storage, location)) is accepted, and a callable may return the storage it was given.
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    bio = io.BytesIO(data)
    if not zipfile.is_zipfile(bio):
        if weights_only:
            raise pickle.UnpicklingError("lazytensor.load(weights_only=True) needs a zip checkpoint")
        return pickle.loads(data)
    bio.seek(0)
    with zipfile.ZipFile(bio) as zf:
        names = zf.namelist()
        pkl = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
        if not pkl:
            raise RuntimeError("lazytensor.load: zip archive without data.pkl")
        prefix = pkl[0][:-len("data.pkl")]
        bo = prefix + "byteorder"
        if bo in names and zf.read(bo).decode().strip() != "little":
            raise RuntimeError("lazytensor.load: big-endian checkpoints are not supported")
        up = _Unpickler(io.BytesIO(zf.read(pkl[0])), zf, prefix, map_location, weights_only)
        return up.load()

