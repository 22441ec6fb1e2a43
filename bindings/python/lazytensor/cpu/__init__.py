"""torch.cpu: its amp module."""
from . import amp  # noqa: F401
