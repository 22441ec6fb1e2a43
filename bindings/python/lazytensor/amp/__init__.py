"""torch.amp: autocast (amp/autocast_mode.py) and the table of ops it casts (amp/_op_policy.py)."""
from . import autocast_mode  # noqa: F401
from .autocast_mode import autocast  # noqa: F401

__all__ = ["autocast", "autocast_mode"]
