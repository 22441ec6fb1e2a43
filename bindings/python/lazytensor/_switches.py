"""The global switches programs set at start-up: determinism, float32 matmul precision, warn-always and
anomaly mode, and set_default_tensor_type.

lazytensor's kernels are deterministic already (no atomics; reductions in a fixed order), so the
determinism switches are stored and reported, with torch's validation. Matmul precision is reported only:
float32 matmuls always run in float32 (torch's "highest"). Anomaly mode is stored; lazytensor does not
trace the forward op of a NaN gradient (torch's detect_anomaly report).
"""
import warnings

from . import _dtype, _legacy
from ._C import float32, float64

_deterministic = {"on": False, "warn_only": False}
_matmul_precision = ["highest"]
_warn_always = [False]
_anomaly = {"on": False, "check_nan": True}


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError("use_deterministic_algorithms(): argument 'mode' must be bool, not {}".format(
            type(mode).__name__))
    _deterministic["on"], _deterministic["warn_only"] = mode, bool(warn_only) and mode


def are_deterministic_algorithms_enabled():
    return _deterministic["on"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               + debug_mode)
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError("debug_mode must be str or int, but got {}".format(type(debug_mode)))
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got {}".format(debug_mode))
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _deterministic["on"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        warnings.warn("{} is not one of 'highest', 'high', or 'medium'; the current setFloat32MatmulPrecision call "
                      "has no effect.".format(precision))
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


def set_warn_always(b):
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    return _warn_always[0]


def set_anomaly_enabled(enabled, check_nan=True):
    _anomaly["on"], _anomaly["check_nan"] = bool(enabled), bool(check_nan)


def is_anomaly_enabled():
    return _anomaly["on"]


def is_anomaly_check_nan_enabled():
    return _anomaly["check_nan"]


def set_default_tensor_type(t):
    """torch.FloatTensor / torch.DoubleTensor (or their names): sets the default floating dtype."""
    name = t if isinstance(t, str) else getattr(t, "__name__", repr(t))
    name = name.split(".")[-1]
    dtypes = {"FloatTensor": float32, "DoubleTensor": float64}
    if name not in dtypes:
        if isinstance(t, str) and not hasattr(_legacy, name):
            raise TypeError("invalid type: '{}'".format(t))
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(dtypes[name])


__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "set_warn_always", "is_warn_always_enabled", "set_anomaly_enabled", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_default_tensor_type"]
