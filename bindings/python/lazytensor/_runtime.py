"""torch.compile and the thread-count knobs.

compile returns its argument unchanged: lazytensor already traces and compiles every program, so there is
nothing for it to add. The thread counts are stored and reported only; the runtime has no setter for them.
"""
import os

_num_threads = os.cpu_count() or 1
_num_interop_threads = os.cpu_count() or 1


def compile(model=None, **kwargs):  # noqa: A001
    """`torch.compile(m)`, `@torch.compile` and `@torch.compile(mode=...)` all give back the argument itself."""
    if model is None:
        return lambda m: m
    return model


def _positive(name, n):
    if not isinstance(n, int) or n < 1:
        raise RuntimeError(f"{name} expects a positive integer, got {n!r}")
    return n


def set_num_threads(n):
    global _num_threads
    _num_threads = _positive("set_num_threads", n)


def get_num_threads():
    return _num_threads


def set_num_interop_threads(n):
    global _num_interop_threads
    _num_interop_threads = _positive("set_num_interop_threads", n)


def get_num_interop_threads():
    return _num_interop_threads
