"""ZeroPad2d."""
from .. import functional as F
from .module import Module


class ZeroPad2d(Module):
    def __init__(self, padding):
        super().__init__()
        self.padding = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
        self.value = 0.0

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return "{}".format(self.padding)


__all__ = ["ZeroPad2d"]
