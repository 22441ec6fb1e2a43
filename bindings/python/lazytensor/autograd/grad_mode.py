"""Grad mode: no_grad, enable_grad, inference_mode and set_grad_enabled (context managers and decorators)."""
import builtins
import functools

from .. import _C


class _GradMode:
    _enabled = None

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Context manager and decorator that disables gradient recording."""
    _enabled = False


class enable_grad(_GradMode):
    _enabled = True


class inference_mode(_GradMode):
    """Context manager and decorator: with mode=True, no gradient is recorded and the tensors made inside
    are inference tensors (Tensor.is_inference(): no in-place writes outside the mode, no _version);
    mode=False turns both off inside, grad recording on, as PyTorch's."""

    def __init__(self, mode=True):
        self.mode = builtins.bool(mode)
        self._enabled = not self.mode

    def __enter__(self):
        self._prev_inference = _C.is_inference_mode_enabled()
        super().__enter__()
        _C._set_inference_mode(self.mode)

    def __exit__(self, *exc):
        _C._set_inference_mode(self._prev_inference)
        return super().__exit__(*exc)

    def clone(self):
        return self.__class__(self.mode)

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)
        return wrapper


class set_grad_enabled(_GradMode):
    """Sets grad mode at once (as in PyTorch); restores it on exit when used with `with`."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._enabled = builtins.bool(mode)
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        _C._set_grad_enabled(self._prev)
        mode = self._enabled

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper
