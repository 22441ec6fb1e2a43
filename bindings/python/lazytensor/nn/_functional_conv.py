"""Convolutions, unfold and fold.

- `conv1d`/`conv2d`/`conv3d` check their arguments as PyTorch does and build one convolution primitive
  (`_C._conv`, ir/conv.h) plus the bias: the scheduler runs it as one implicit-GEMM kernel with the bias and
  what follows elementwise as its epilogue, and autograd's input and weight gradients are the other two
  convolution primitives (docs/convolution.md).
- `conv_transpose1d`/`2d`/`3d` are the input-gradient primitive (`_C._conv_transpose`).
- im2col (`unfold`) is one strided slice of the padded input per kernel offset (a Python loop over
  kernel positions, never over output pixels), stacked on a new dim: [N, C, K, *out] -> [N, C*K, L].
- `fold` (col2im, `_col2im` for any number of spatial dims) places each kernel offset's block back with a
  strided pad and sums them.
"""
import itertools
import operator


from .. import _C
from .._C import Tensor
from ._checks import _shape, _tensor_arg
from ._spatial import _check_positive, _check_spatial, _im2col, _place, _tuple


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: [N, C, H, W] (or unbatched [C, H, W]) -> [N, C*kh*kw, L]."""
    if not isinstance(input, Tensor) or input.dim() not in (3, 4):
        raise RuntimeError("unfold: expected 3D or 4D (batch mode) tensor for input, but got: {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    if input.dim() == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    k = _tuple(kernel_size, 2, "kernel_size", "unfold")
    d = _tuple(dilation, 2, "dilation", "unfold")
    p = _tuple(padding, 2, "padding", "unfold")
    s = _tuple(stride, 2, "stride", "unfold")
    _check_positive(k, d, s, p, "unfold")
    cols, out = _im2col(input, 2, k, d, [(x, x) for x in p], s, "unfold")
    n, c = input.shape[0], input.shape[1]
    return cols.reshape(n, c * k[0] * k[1], out[0] * out[1])


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: [N, C*kh*kw, L] (or unbatched [C*kh*kw, L]) -> [N, C, H, W]; overlapping blocks sum."""
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        raise RuntimeError("fold: expected 2D or 3D (batch mode) tensor for input, but got: {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    o = _tuple(output_size, 2, "output_size", "fold")
    k = _tuple(kernel_size, 2, "kernel_size", "fold")
    d = _tuple(dilation, 2, "dilation", "fold")
    p = _tuple(padding, 2, "padding", "fold")
    s = _tuple(stride, 2, "stride", "fold")
    _check_positive(k, d, s, p, "fold")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, L = x.shape
    K = k[0] * k[1]
    if ck % K != 0:
        raise RuntimeError("fold: expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           "but got input.size(1)={} and kernel_size={}".format(ck, k))
    blocks = [(o[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    if min(blocks) < 1 or blocks[0] * blocks[1] != L:
        raise RuntimeError("fold: given output_size={}, kernel_size={}, dilation={}, padding={}, stride={}, expected "
                           "size of input's dimension 2 to match the calculated number of sliding blocks {} * {} = {}, "
                           "but got input.size(2)={}.".format(o, k, d, p, s, blocks[0], blocks[1],
                                                              blocks[0] * blocks[1], L))
    c = ck // K
    acc = _col2im(x.reshape(n, c, K, blocks[0], blocks[1]), o, k, d, p, s)
    return acc.squeeze(0) if unbatched else acc


def _col2im(cols, out_size, k, d, p, s):
    """cols [N, C, K, *blocks] (K = prod(k), kernel offsets in row-major order) -> [N, C, *out_size]: each offset's
    block placed with strided pads into the padded output, the blocks summed, the padding cropped."""
    nd = len(k)
    padded = [out_size[i] + 2 * p[i] for i in range(nd)]
    acc = None
    for j, offs in enumerate(itertools.product(*[range(v) for v in k])):
        block = cols.select(2, j)
        for i in range(nd):
            block = _place(block, 2 + i, offs[i] * d[i], s[i], padded[i])
        acc = block if acc is None else acc + block
    if any(p):
        crop = []
        for i in reversed(range(nd)):
            crop += [-p[i], -p[i]]
        acc = _C._pad(acc, crop, 0.0)
    return acc


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, fn):
    x, unbatched = _check_spatial(input, nd, fn)
    _tensor_arg(fn, "weight", weight)
    if bias is not None:
        _tensor_arg(fn, "bias", bias)
    try:
        groups = operator.index(groups)
    except TypeError:
        raise TypeError("{}(): argument 'groups' must be int, not {}".format(fn, type(groups).__name__)) from None
    if weight.dim() != nd + 2:
        raise RuntimeError("{}: expected weight to be a {}-D tensor [out_channels, in_channels/groups, *kernel], but "
                           "got weight of size {}".format(fn, nd + 2, _shape(weight)))
    if not x.dtype.is_floating_point or x.dtype != weight.dtype:
        raise RuntimeError("{}: expected input ({}) and weight ({}) to have the same floating point dtype".format(
            fn, x.dtype, weight.dtype))
    if bias is not None and bias.dtype != x.dtype:
        raise RuntimeError("{}: expected bias ({}) to have the dtype of input and weight ({})".format(
            fn, bias.dtype, x.dtype))
    s = _tuple(stride, nd, "stride", fn)
    d = _tuple(dilation, nd, "dilation", fn)
    if groups <= 0:
        raise RuntimeError("{}: non-positive groups is not supported".format(fn))
    if min(s) <= 0:
        raise RuntimeError("{}: non-positive stride is not supported".format(fn))
    if min(d) <= 0:
        raise RuntimeError("{}: dilation should be greater than zero".format(fn))
    k = _shape(weight)[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            if any(v != 1 for v in s):
                raise RuntimeError("{}: padding='same' is not supported for strided convolutions".format(fn))
            pads = []
            for i in range(nd):
                total = d[i] * (k[i] - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise RuntimeError("{}: invalid padding string '{}', expected 'same' or 'valid'".format(fn, padding))
    else:
        p = _tuple(padding, nd, "padding", fn)
        if min(p) < 0:
            raise RuntimeError("{}: negative padding is not supported".format(fn))
        pads = [(v, v) for v in p]
    n, c = x.shape[0], x.shape[1]
    o = weight.shape[0]
    if o < groups:
        raise RuntimeError("{}: given groups={}, expected weight to be at least {} at dimension 0, but got weight of "
                           "size {} instead".format(fn, groups, groups, _shape(weight)))
    if o % groups != 0:
        raise RuntimeError("{}: given groups={}, expected weight to be divisible by {} at dimension 0, but got weight "
                           "of size {} instead".format(fn, groups, groups, _shape(weight)))
    if weight.shape[1] * groups != c:
        raise RuntimeError("{}: given groups={}, weight of size {}, expected input{} to have {} channels, but got {} "
                           "channels instead".format(fn, groups, _shape(weight), _shape(x),
                                                     weight.shape[1] * groups, c))
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != o):
        raise RuntimeError("{}: given weight of size {}, expected bias to be 1-dimensional with {} elements, but got "
                           "bias of size {} instead".format(fn, _shape(weight), o, _shape(bias)))
    spatial = _shape(x)[2:]
    if any(spatial[i] + pads[i][0] + pads[i][1] < d[i] * (k[i] - 1) + 1 for i in range(nd)):
        raise RuntimeError("{}: calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size "
                           "can't be greater than actual input size".format(
                               fn, " x ".join(str(spatial[i] + pads[i][0] + pads[i][1]) for i in range(nd)),
                               " x ".join(str(d[i] * (k[i] - 1) + 1) for i in range(nd))))
    y = _C._conv(x, weight, bias, list(s), [lo for lo, _ in pads], [hi for _, hi in pads], list(d), groups)
    return y.squeeze(0) if unbatched else y


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fn):
    _tensor_arg(fn, "input", input)
    _tensor_arg(fn, "weight", weight)
    x, unbatched = _check_spatial(input, nd, fn)
    if weight.dim() != nd + 2:
        raise RuntimeError("{}: expected weight to be {}D [in_channels, out_channels/groups, *kernel], but got "
                           "{}".format(fn, nd + 2, _shape(weight)))
    s = _tuple(stride, nd, "stride", fn)
    p = _tuple(padding, nd, "padding", fn)
    op = _tuple(output_padding, nd, "output_padding", fn)
    d = _tuple(dilation, nd, "dilation", fn)
    if groups <= 0:
        raise RuntimeError("{}: non-positive groups is not supported".format(fn))
    if any(v <= 0 for v in s) or any(v <= 0 for v in d) or any(v < 0 for v in p) or any(v < 0 for v in op):
        raise RuntimeError("{}: expected stride and dilation > 0 and padding, output_padding >= 0, got stride={}, "
                           "padding={}, output_padding={}, dilation={}".format(fn, s, p, op, d))
    for i in range(nd):
        if op[i] >= s[i] and op[i] >= d[i]:
            raise RuntimeError("{}: output padding must be smaller than either stride or dilation, but got "
                               "output_padding={}, stride={}, dilation={}".format(fn, op, s, d))
    n, cin = x.shape[0], x.shape[1]
    spatial = _shape(x)[2:]
    if weight.shape[0] != cin or cin % groups != 0:
        raise RuntimeError("{}: expected input {} to have {} channels (weight {}: [in_channels, "
                           "out_channels/groups, *kernel]) divisible by groups={}".format(
                               fn, _shape(input), weight.shape[0], _shape(weight), groups))
    k = _shape(weight)[2:]
    cog = weight.shape[1]
    cout = cog * groups
    if bias is not None and tuple(bias.shape) != (cout,):
        raise RuntimeError("{}: expected bias of shape [{}], got {}".format(fn, cout, _shape(bias)))
    out_size = [(spatial[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(nd)]
    if min(out_size) <= 0:
        raise RuntimeError("{}: the computed output size {} is too small (input {}, weight {})".format(
            fn, out_size, _shape(input), _shape(weight)))
    out = _C._conv_transpose(x, weight, bias, list(s), list(p), list(op), groups, list(d))
    return out.squeeze(0) if unbatched else out


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


__all__ = ["unfold", "fold", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]
