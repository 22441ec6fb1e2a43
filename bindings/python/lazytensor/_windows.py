"""Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window).

A window depends only on its arguments, so it is computed in float64 on the host (numpy) and handed over as
a constant of the requested dtype; periodic windows are the symmetric window of length N + 1 without its
last point, as torch's.
"""
import math

import numpy as np

from . import _C
from ._dtype import get_default_dtype


def _window(name, window_length, periodic, dtype, requires_grad, formula):
    if not isinstance(window_length, int) or isinstance(window_length, bool):
        raise TypeError("{}(): argument 'window_length' must be int, not {}".format(
            name, type(window_length).__name__))
    if window_length < 0:
        raise RuntimeError("{} requires non-negative window_length, got window_length={}".format(name, window_length))
    dtype = get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError("{} expects floating point dtypes, got: {}".format(name, repr(dtype)))
    if window_length == 0:
        values = np.zeros(0)
    elif window_length == 1:
        values = np.ones(1)
    else:
        n = window_length + 1 if periodic else window_length
        values = formula(np.arange(n, dtype=np.float64), n)[:window_length]
    t = _C.from_numpy(np.ascontiguousarray(values)).to(dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: 0.5 - 0.5 * np.cos(2 * math.pi * k / (n - 1)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: alpha - beta * np.cos(2 * math.pi * k / (n - 1)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: 0.42 - 0.5 * np.cos(2 * math.pi * k / (n - 1)) + 0.08 * np.cos(4 * math.pi * k / (n - 1)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: 1 - np.abs(2 * k / (n - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: np.i0(beta * np.sqrt(np.clip(1 - (2 * k / (n - 1) - 1) ** 2, 0, None))) / np.i0(beta))


__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
