"""torch.autocast: the per-thread autocast state, its torch.* accessors and the context manager.

The state is what torch 1.13 keeps per thread: whether CPU and CUDA autocast are on, their dtypes
(bfloat16 and float16), whether casts are cached, and the nesting depth of the context managers. A new
thread starts with autocast off. Which ops cast what is amp/_op_policy.py; this file only decides when.

Only CPU autocast ever casts: lazytensor's tensors live on the host, and CUDA autocast (like torch's on a
machine without CUDA) warns and disables itself.
"""
import functools
import threading
import warnings

from .._C import _autocast_cpu_enabled, _set_autocast_cpu_enabled, bfloat16, dtype, float16
from .._device import no_cuda_device

__all__ = ["autocast", "autocast_decorator"]


class _State(threading.local):
    """One thread's autocast state; the class attributes are a new thread's values."""

    # CPU autocast is on (and no autocast op is running: ops run with it off). The flag is C++'s per-thread
    # one, which the autocast shims (_op_policy._wrap) read on every call.
    cpu_enabled = property(lambda self: _autocast_cpu_enabled(), lambda self, on: _set_autocast_cpu_enabled(on))
    gpu_enabled = False  # torch.set_autocast_enabled; never casts here (no CUDA tensors)
    cpu_dtype = bfloat16
    gpu_dtype = float16
    cache_enabled = True
    nesting = 0  # depth of entered autocast context managers; the cast cache is dropped at 0

    def __init__(self):
        self.cast_cache = {}  # id(fp32 leaf parameter) -> (the parameter, its cast); see _op_policy.cast


state = _State()


def _check_bool(value):
    if not isinstance(value, bool):
        raise TypeError("enabled must be a bool (got {})".format(type(value).__name__))


def _check_dtype(value):
    if not isinstance(value, dtype):
        raise TypeError("dtype must be a torch.dtype (got {})".format(type(value).__name__))


def is_autocast_enabled():
    """CUDA autocast (torch's name for it); it never casts here."""
    return state.gpu_enabled


def set_autocast_enabled(enabled):
    _check_bool(enabled)
    state.gpu_enabled = enabled


def is_autocast_cpu_enabled():
    return state.cpu_enabled


def set_autocast_cpu_enabled(enabled):
    _check_bool(enabled)
    state.cpu_enabled = enabled


def get_autocast_cpu_dtype():
    return state.cpu_dtype


def set_autocast_cpu_dtype(value):
    _check_dtype(value)
    if value != bfloat16:
        raise RuntimeError("Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype")
    state.cpu_dtype = value


def get_autocast_gpu_dtype():
    return state.gpu_dtype


def set_autocast_gpu_dtype(value):
    _check_dtype(value)
    state.gpu_dtype = value


def is_autocast_cache_enabled():
    return state.cache_enabled


def set_autocast_cache_enabled(enabled):
    _check_bool(enabled)
    state.cache_enabled = enabled


def autocast_increment_nesting():
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting():
    state.nesting -= 1
    return state.nesting


def clear_autocast_cache():
    state.cast_cache.clear()


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:  # noqa: N801  (torch's name)
    """Context manager and decorator: inside, the ops of amp/_op_policy.py run in their autocast dtype.

    autocast(device_type, dtype=None, enabled=True, cache_enabled=None) as torch 1.13: device_type is "cpu"
    or "cuda"; CPU autocast supports only bfloat16 (another dtype warns and disables the region); CUDA
    autocast warns and disables itself, since no CUDA device is available. Regions nest, an
    enabled=False region turns autocast off inside another, and leaving the outermost region drops the
    cache of parameter casts.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = device_type
        if device_type == "cuda":
            self.fast_dtype = get_autocast_gpu_dtype()
        elif device_type == "cpu":
            self.fast_dtype = get_autocast_cpu_dtype()
        else:
            raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu'")
        self._cache_enabled = is_autocast_cache_enabled()
        if enabled and device_type == "cuda":  # lazytensor.cuda.is_available() is False
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            enabled = False
        if dtype is not None:
            self.fast_dtype = dtype
        if cache_enabled is not None:
            self._cache_enabled = cache_enabled
        if device_type == "cpu" and self.fast_dtype != bfloat16:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtype of torch.bfloat16 currently.")
            enabled = False
        if device_type == "cuda" and self.fast_dtype == bfloat16:
            # torch asks torch.cuda.is_bf16_supported(), which needs a device
            raise no_cuda_device("cuda")
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        if self.device == "cpu":
            self.prev = is_autocast_cpu_enabled()
            self.prev_fastdtype = get_autocast_cpu_dtype()
            set_autocast_cpu_enabled(self._enabled)
            set_autocast_cpu_dtype(self.fast_dtype)
        else:
            self.prev = is_autocast_enabled()
            self.prev_fastdtype = get_autocast_gpu_dtype()
            set_autocast_gpu_dtype(self.fast_dtype)
            set_autocast_enabled(self._enabled)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        if self.device == "cpu":
            set_autocast_cpu_enabled(self.prev)
            set_autocast_cpu_dtype(self.prev_fastdtype)
        else:
            set_autocast_enabled(self.prev)
            set_autocast_gpu_dtype(self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        return autocast_decorator(self, func)

