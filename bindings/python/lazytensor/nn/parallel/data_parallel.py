from ..modules.module import Module


class DataParallel(Module):
    """Wraps `module`; with no CUDA devices torch's DataParallel calls the module directly, and so does this."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
