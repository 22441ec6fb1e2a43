"""Convolution layers (PyTorch 1.13): Conv1d/2d/3d and ConvTranspose1d/2d/3d, and their Lazy forms, whose
in_channels is the channel dim of the first input.

Functional code and how convolution is lowered: nn/_functional_conv.py.
"""
from .. import functional as F
from ..parameter import UninitializedParameter
from .lazy import LazyModuleMixin
from .linear import _create_weight_and_bias, _kaiming_uniform_reset
from .module import Module
from ..._device import check_placement


def _check_conv_groups(in_channels, out_channels, groups):
    """ConvNd's and ConvTransposeNd's checks of `groups` (PyTorch's messages)."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


def _reversed_padding(padding, kernel_size, dilation):
    """F.pad's argument for a non-'zeros' padding_mode: per spatial dim from the last, (left, right)."""
    out = []
    for i in reversed(range(len(kernel_size))):
        if padding == "valid":
            out += [0, 0]
        elif padding == "same":
            total = dilation[i] * (kernel_size[i] - 1)
            out += [total // 2, total - total // 2]
        else:
            out += [padding[i], padding[i]]
    return out


class _ConvNd(Module):
    _nd = 2
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        check_placement(device)
        super().__init__()
        n = self._nd
        _check_conv_groups(in_channels, out_channels, groups)
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError("Invalid padding string {!r}, should be one of {}".format(padding, {"valid", "same"}))
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                             "padding_mode='{}'".format(padding_mode))
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.transposed, self.output_padding = False, (0,) * n
        self.groups, self.padding_mode = groups, padding_mode
        _create_weight_and_bias(self, (out_channels, in_channels // groups) + kernel_size, out_channels, bias, dtype)
        self._reversed_padding_repeated_twice = _reversed_padding(padding, kernel_size, dilation)
        self.reset_parameters()

    def reset_parameters(self):
        _kaiming_uniform_reset(self.weight, self.bias, zero_bias_without_fan_in=False)

    def extra_repr(self):
        n = self._nd
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * n:
            s += ", padding={padding}"
        if self.dilation != (1,) * n:
            s += ", dilation={dilation}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def forward(self, input):
        if self.padding_mode != "zeros":  # as PyTorch: pad with the mode, then convolve without padding
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return type(self)._fn(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    _nd = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    _nd = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    _nd = 3
    _fn = staticmethod(F.conv3d)


class _ConvTransposeNd(Module):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        check_placement(device)
        super().__init__()
        n = self._nd
        _check_conv_groups(in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(type(self).__name__))
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)
        self.padding, self.dilation = _ntuple(padding, n), _ntuple(dilation, n)
        self.output_padding = _ntuple(output_padding, n)
        self.transposed, self.groups, self.padding_mode = True, groups, padding_mode
        _create_weight_and_bias(self, (in_channels, out_channels // groups) + self.kernel_size, out_channels, bias,
                                dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _kaiming_uniform_reset(self.weight, self.bias, zero_bias_without_fan_in=False)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        nd = self._nd
        output_size = list(output_size)[-nd:]
        spatial = list(input.shape)[-nd:]
        res = []
        for i in range(nd):
            lo = (spatial[i] - 1) * self.stride[i] - 2 * self.padding[i] + self.dilation[i] * \
                (self.kernel_size[i] - 1) + 1
            if not lo <= output_size[i] < lo + self.stride[i]:
                raise ValueError("requested an output size of {}, but valid sizes range from {} to {} (for an input "
                                 "of {})".format(output_size, lo, lo + self.stride[i] - 1, spatial))
            res.append(output_size[i] - lo)
        return tuple(res)

    def extra_repr(self):
        n = self._nd
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * n:
            s += ", padding={padding}"
        if self.dilation != (1,) * n:
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * n:
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        return s.format(**self.__dict__)


class ConvTranspose1d(_ConvTransposeNd):
    _nd = 1

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    _nd = 2

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    _nd = 3

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class _LazyConvXdMixin(LazyModuleMixin):
    def _lazy_placeholders(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        no_batch = self._nd + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}"
                               .format(no_batch, no_batch + 1, type(self).__name__, input.shape))
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size)
            self._materialize("weight", shape)
            if self.bias is not None:
                self._materialize("bias", (self.out_channels,))
            self.reset_parameters()


def _lazy_conv(conv):
    class LazyConv(_LazyConvXdMixin, conv):
        cls_to_become = conv

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
            self._lazy_placeholders(out_channels, bias, dtype)
    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + conv.__name__
    return LazyConv


def _lazy_conv_transpose(conv):
    class LazyConvTranspose(_LazyConvXdMixin, conv):
        cls_to_become = conv

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                             device, dtype)
            self._lazy_placeholders(out_channels, bias, dtype)
    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + conv.__name__
    return LazyConvTranspose


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv(c) for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv_transpose(c) for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
