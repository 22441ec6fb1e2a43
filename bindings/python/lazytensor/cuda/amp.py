"""torch.cuda.amp without CUDA: autocast warns and is disabled, GradScaler passes everything through.

This matches torch 1.13 on a machine without CUDA, where both warn and disable themselves.
"""
import functools
import warnings

__all__ = ["autocast", "GradScaler"]


class autocast:  # noqa: N801
    """Context manager and decorator; a no-op here (there is no CUDA device to autocast on)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        if enabled:
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
        self._enabled = False
        self.fast_dtype = dtype

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


class GradScaler:
    """Loss scaling for fp16 training; disabled without CUDA, so every call passes through."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        if enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
        self._enabled = False
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        pass

    def get_scale(self):
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def state_dict(self):
        return {}  # torch returns {} from a disabled scaler

    def load_state_dict(self, state_dict):
        pass
