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

Storage sharing, both ways: on save, a tensor and its views (slices, transposes, reshapes, .data,
detach) write one storage, their root base's, referenced by each record with its offset and strides,
as torch writes them; tied weights (one object twice) are one record. On load, records that name the
same storage alias: the same (offset, size, stride) is the same tensor object, and other records are
views of the storage's base, so a write through one shows in the others, as in torch. A record whose
layout no chain of views expresses (overlapping or unordered strides), or a second record of a
storage that needs gradients, is loaded as a copy.
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
        # One storage per root base: a view (slice, transpose, reshape, .data, detach) is written as its
        # base's storage with the view's offset and strides, as torch writes it.
        key = t._storage_key()
        entry = self.storages.get(key)
        if entry is None:
            base = t._storage_base()
            if base.dtype == _C.bfloat16:
                arr, name = _C._bits_to_numpy(base.detach()).reshape(-1), "BFloat16Storage"
            else:
                arr = np.array(_C._to_numpy(base.detach()), order="C", copy=False).reshape(-1)
                name = _NP_TO_STORAGE.get(arr.dtype)
            if name is None:
                raise TypeError("lazytensor.save: no torch storage type for dtype {}".format(arr.dtype))
            entry = (base, _StorageRef(str(len(self.storages)), name, int(arr.size)), arr)
            self.storages[key] = entry
        size = tuple(int(s) for s in t.shape)
        stride = tuple(int(s) for s in t.stride())
        return (_REBUILD_TENSOR_V2, (entry[1], int(t.storage_offset()), size, stride, bool(t.requires_grad),
                                     collections.OrderedDict()))

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
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    memo = getattr(storage, "_views", None)
    if memo is None:
        memo = storage._views = {}
    key = (storage_offset, size, stride, bool(requires_grad))
    if key in memo:
        return memo[key]
    t = _tensor_over_storage(storage, storage_offset, size, stride, bool(requires_grad))
    memo[key] = t
    return t


def _tensor_over_storage(storage, offset, size, stride, requires_grad):
    """The record as a lazytensor tensor. Records over one storage alias, as in torch: the first record
    that covers the whole storage contiguously becomes its base (else a hidden 1-D base holds the
    storage), and every other record is a view of that base. A layout no chain of views can express
    (overlapping or unordered strides, or a record that needs gradients but is not the base) is a copy."""
    arr = storage.array

    def from_bits(a):  # bfloat16 storages hold raw uint16 bits (numpy has no bfloat16)
        return _C._bits_from_numpy(a, _C.bfloat16) if getattr(storage, "bfloat16", False) else _C.from_numpy(a)

    n = int(np.prod(size)) if size else 1
    whole = offset == 0 and n == arr.size and stride == _contig_stride(size)
    base = getattr(storage, "_base", None)
    if base is None and (whole or not requires_grad):
        storage._base = base = from_bits(np.array(arr.reshape(size) if whole else arr, copy=True))
        if whole:
            if requires_grad:
                base.requires_grad_(True)
            return base
    view = None if requires_grad or base is None else _strided_view(base.view(-1), arr.size, offset, size, stride)
    if view is not None:
        return view
    if any(s == 0 for s in size):
        out = np.zeros(size, dtype=arr.dtype)
    else:
        out = np.array(np.lib.stride_tricks.as_strided(arr[offset:], shape=size,
                                                       strides=tuple(s * arr.itemsize for s in stride)),
                       order="C", copy=True)
    t = from_bits(out)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _strided_view(flat, numel, offset, size, stride):
    """flat[offset + sum(j_i * stride_i)] over the index j of `size`, as views of the 1-D `flat` (slice,
    view, index, permute, unsqueeze, expand), or None. The dims of size > 1 and stride > 0, ordered by
    stride, must nest (each stride a multiple of the next, each dim fitting inside the one outside it)."""
    dims = [d for d in range(len(size)) if size[d] > 1 and stride[d] > 0]
    if any(size[d] == 0 for d in range(len(size))):
        return None
    dims.sort(key=lambda d: -stride[d])
    if not dims:
        v = flat[offset:offset + 1].view(())
    else:
        s = [stride[d] for d in dims]
        if any(s[i] % s[i + 1] or s[i] < size[dims[i + 1]] * s[i + 1] for i in range(len(s) - 1)):
            return None
        inner = offset % s[0]
        start = offset - inner
        if start + size[dims[0]] * s[0] > numel:
            return None
        radix = [s[i] // s[i + 1] for i in range(len(s) - 1)] + [s[-1]]
        digits = []
        for r in reversed(radix):
            digits.append(inner % r)
            inner //= r
        digits.reverse()
        index = [slice(None)]
        for k in range(1, len(dims)):
            if digits[k - 1] + size[dims[k]] > radix[k - 1]:
                return None
            index.append(slice(digits[k - 1], digits[k - 1] + size[dims[k]]))
        index.append(digits[-1])
        v = flat[start:start + size[dims[0]] * s[0]].view([size[dims[0]]] + radix)[tuple(index)]
        order = sorted(range(len(dims)), key=lambda k: dims[k])  # back to the record's dim order
        if order != list(range(len(dims))):
            v = v.permute(*order)
    kept = sorted(dims)
    for d in range(len(size)):
        if d not in kept:
            v = v.unsqueeze(d)
    if any(size[d] > 1 and stride[d] == 0 for d in range(len(size))):
        v = v.expand(*size)
    return v


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

