"""Identity, Linear, LazyLinear and Bilinear, and the weight/bias creation shared with the convolutions."""
import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from ..._device import check_placement


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


def _create_weight_and_bias(module, weight_shape, bias_size, bias, dtype):
    """Give `module` an uninitialised `weight` Parameter of `weight_shape` and, when `bias`, a `bias`
    Parameter of `bias_size` (else a None "bias" entry), as Linear, ConvNd and ConvTransposeNd do."""
    dt = dtype or _C.float32
    module.weight = Parameter(_C.empty(*weight_shape, dtype=dt))
    if bias:
        module.bias = Parameter(_C.empty(bias_size, dtype=dt))
    else:
        module.register_parameter("bias", None)


def _kaiming_uniform_reset(weight, bias, zero_bias_without_fan_in):
    """PyTorch's reset_parameters for Linear and ConvNd: kaiming_uniform_(a=sqrt(5)) on the weight, the
    bias uniform in +-1/sqrt(fan_in). With fan_in == 0, Linear fills the bias with zeros
    (`zero_bias_without_fan_in`) while ConvNd leaves it untouched (and draws no random numbers)."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        if fan_in > 0:
            bound = 1 / math.sqrt(fan_in)
        elif zero_bias_without_fan_in:
            bound = 0
        else:
            return
        init.uniform_(bias, -bound, bound)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        check_placement(device)
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _create_weight_and_bias(self, (out_features, in_features), out_features, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _kaiming_uniform_reset(self.weight, self.bias, zero_bias_without_fan_in=True)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features={}, out_features={}, bias={}".format(self.in_features, self.out_features,
                                                                 self.bias is not None)


class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        _create_weight_and_bias(self, (out_features, in1_features, in2_features), out_features, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return "in1_features={}, in2_features={}, out_features={}, bias={}".format(
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


class NonDynamicallyQuantizableLinear(Linear):
    pass


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of its first input."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self._materialize("weight", (self.out_features, self.in_features))
            if self.bias is not None:
                self._materialize("bias", (self.out_features,))
            self.reset_parameters()


__all__ = ["Identity", "Linear", "LazyLinear", "Bilinear"]
