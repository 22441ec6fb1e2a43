"""torch.utils: the data loading utilities (`lazytensor.utils.data`)."""
from . import data  # noqa: F401
from . import dlpack  # noqa: F401,E402
