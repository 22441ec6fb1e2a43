"""torch.cuda.amp.autocast: torch.autocast("cuda", ...), which warns and disables itself here (no CUDA).

custom_fwd and custom_bwd are not provided: they decorate torch.autograd.Function methods, and
lazytensor has no custom autograd Functions (docs/autograd.md).
"""
from ... import _C
from ...amp import autocast_mode

__all__ = ["autocast"]


class autocast(autocast_mode.autocast):  # noqa: N801
    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
