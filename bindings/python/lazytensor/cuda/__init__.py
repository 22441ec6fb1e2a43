"""lazytensor.cuda as torch.cuda on a machine without a usable CUDA device: tensors live on the CPU in this
build (docs/cuda.md, "Device-resident tensors"), so is_available() is False.

Each function does what torch 1.13's CPU build does: queries answer "nothing" (is_available() False,
device_count() 0, memory statistics 0 and {}), the seeding and cache calls are no-ops, and the calls that
need a device (synchronize, current_device, get_device_name, ...) raise NoCudaDeviceError, an AssertionError
as torch's "Torch not compiled with CUDA enabled" (and a RuntimeError, as a CUDA build of torch without a GPU).
The one deliberate difference: reset_peak_memory_stats and set_device raise NoCudaDeviceError where torch's
CPU build fails with an AttributeError from its own missing binding.
"""
from collections import OrderedDict

from . import amp  # noqa: F401
from .._device import NoCudaDeviceError, no_cuda_device  # noqa: F401


def is_available():
    return False


def is_initialized():
    return False


def device_count():
    return 0


def _needs_device(*args, **kwargs):
    raise no_cuda_device("cuda")


current_device = get_device_name = get_device_capability = get_device_properties = _needs_device
synchronize = set_device = init = initial_seed = get_rng_state = get_rng_state_all = _needs_device
set_rng_state = set_rng_state_all = reset_peak_memory_stats = reset_max_memory_allocated = _needs_device


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def seed():
    pass


def seed_all():
    pass


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_stats(device=None):
    return OrderedDict()
