"""torch.cuda.amp: autocast (disabled without CUDA, as torch's) and GradScaler (cuda/amp/grad_scaler.py)."""
from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast, custom_bwd, custom_fwd  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler"]
