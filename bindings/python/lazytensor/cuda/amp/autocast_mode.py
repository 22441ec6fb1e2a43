"""torch.cuda.amp.autocast: torch.autocast("cuda", ...), which warns and disables itself here (no CUDA);
custom_fwd and custom_bwd, the decorators of a custom autograd Function's forward and backward.

The decorators behave as torch 1.13's: custom_fwd records on ctx whether CUDA autocast was on and, with
cast_inputs, runs forward with autocast off and its floating CUDA tensors cast; custom_bwd runs backward in
the autocast state forward saw. lazytensor's tensors are never CUDA tensors, so cast_inputs casts nothing,
as in torch for CPU tensors. lazytensor has no torch.autograd.Function to decorate (docs/autograd.md);
the decorators exist so that programs that define one import and run up to it.
"""
import functools

from ... import _C
from ...amp import autocast_mode

__all__ = ["autocast", "custom_fwd", "custom_bwd"]


class autocast(autocast_mode.autocast):  # noqa: N801
    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """@custom_fwd or @custom_fwd(cast_inputs=dtype) on a forward(ctx, ...)."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        enabled = autocast_mode.is_autocast_enabled()
        if cast_inputs is None:
            args[0]._fwd_used_autocast = enabled
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if not enabled:
            return fwd(*args, **kwargs)
        with autocast(enabled=False):
            return fwd(*args, **kwargs)  # no CUDA tensors, so cast_inputs casts none of them
    return decorate_fwd


def custom_bwd(bwd):
    """@custom_bwd on a backward(ctx, ...): it runs in the CUDA autocast state its forward saw."""
    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(args[0]._fwd_used_autocast):
            return bwd(*args, **kwargs)
    return decorate_bwd
