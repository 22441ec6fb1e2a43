"""lazytensor.nn.parallel — DataParallel over the one device (it calls the module, as torch's does on CPU) and
DistributedDataParallel, which needs a process group that lazytensor.distributed cannot create yet."""
from .data_parallel import DataParallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
