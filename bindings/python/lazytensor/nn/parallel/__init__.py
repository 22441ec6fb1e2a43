"""lazytensor.nn.parallel — DataParallel over the one device (it calls the module, as torch's does on CPU) and
DistributedDataParallel over a lazytensor.distributed process group."""
from .data_parallel import DataParallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
