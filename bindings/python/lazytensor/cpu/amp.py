"""torch.cpu.amp.autocast: torch.autocast("cpu", ...) with bfloat16 as the default dtype."""
from .. import _C
from ..amp import autocast_mode

__all__ = ["autocast"]


class autocast(autocast_mode.autocast):  # noqa: N801
    def __init__(self, enabled=True, dtype=_C.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
