from ..modules.module import Module


class DistributedDataParallel(Module):
    """Importable; constructing one fails as torch's does without an initialised default process group."""

    def __init__(self, module, *args, process_group=None, **kwargs):
        raise RuntimeError("DistributedDataParallel: Default process group has not been initialized, please make "
                           "sure to call init_process_group (lazytensor.distributed has no backend yet)")
