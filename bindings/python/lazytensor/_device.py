"""torch.device look-alike and the placement check every device= argument goes through.

Tensors live on the CPU in this build (device-resident CUDA tensors are designed in docs/cuda.md, not built),
so lazytensor.cuda.is_available() is False and a request for a CUDA tensor raises NoCudaDeviceError rather
than quietly giving a CPU tensor. The error is an AssertionError, as torch's CPU build raises ("Torch not
compiled with CUDA enabled"), and a RuntimeError, as a CUDA build of torch on a machine without a GPU raises,
so code written against either keeps its except clauses.
"""
import builtins


class NoCudaDeviceError(AssertionError, RuntimeError):
    pass


class device:
    """device("cpu"), device("cuda:1"), device("cuda", 1), device(0) (CUDA ordinal 0), as torch.device."""

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, builtins.int) and not isinstance(type, builtins.bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError("device(): expected a string, got " + builtins.type(type).__name__)
        text = type
        if ":" in type:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed explicitly: "
                                   + text)
            type, idx = type.split(":", 1)
            if not idx.isdigit():
                raise RuntimeError("Invalid device string: '%s'" % text)
            index = builtins.int(idx)
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError("Expected one of cpu, cuda device type at start of device string: " + type)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


def no_cuda_device(where):
    """The error for a CUDA tensor asked for at `where` (a device string)."""
    return NoCudaDeviceError("no CUDA device is available: lazytensor.cuda.is_available() is False (tensors live "
                             "on the CPU in this build), so nothing can be placed on " + where)


def check_placement(d):
    """Raises unless `d` (None, a string, a device or a CUDA ordinal) names the CPU, the only place a tensor
    can be; called by every function that takes device=."""
    if d is None:
        return
    d = d if isinstance(d, device) else device(d)
    if d.type == "cpu":
        return
    if d.type == "cuda":
        raise no_cuda_device(str(d))
    raise NotImplementedError("lazytensor has no '%s' device; tensors live on the CPU" % d.type)


def move_to_cuda(d=None):
    """.cuda(d) of a tensor or a module: raises, there is no CUDA device to move to."""
    raise no_cuda_device("cuda" if d is None else str(device(d)))


def check_same_device(op, *devices):
    """torch's error for operands on different devices, naming both. Unreachable while every tensor is on the
    CPU; the cuda backend's operands will go through it."""
    first = devices[0]
    for d in devices[1:]:
        if d != first:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               "%s and %s! (when checking argument for %s)" % (d, first, op))
