"""More of nn.functional (PyTorch 1.13), each composed from existing lazy ops so it stays lazy and
differentiable: activations, instance/local-response norm, channel dropouts, pixel/channel shuffles,
margin/likelihood losses, embedding_bag and transposed convolution (matmul + fold).
"""
import math

import numpy as np

from .. import _C
from .._C import Tensor
from . import _functional_cnn as _cnn

_where = _C._where3


def _shape(t):
    return list(t.shape)


def _tensor_arg(fn, name, x):
    if not isinstance(x, Tensor):
        raise TypeError("{}(): argument '{}' must be Tensor, not {}".format(fn, name, type(x).__name__))


def _red(size_average, reduce, reduction):
    from .functional import _reduction
    return _reduction(size_average, reduce, reduction)


def _apply(x, reduction):
    if reduction == "mean":
        return x.mean()
    if reduction == "sum":
        return x.sum()
    return x


def _same_shape(fn, input, target):
    """PyTorch broadcasts these losses' input and target (RuntimeError when they do not broadcast)."""
    _tensor_arg(fn, "input", input)
    _tensor_arg(fn, "target", target)
    from .functional import _broadcast_shape
    _broadcast_shape(fn, input, target)


# ---------------------------------------------------------------- activations
def hardsigmoid(input, inplace=False):
    # PyTorch's gradient is 1/6 strictly inside (-3, 3) and 0 at and beyond the bounds.
    out = _where(input <= -3.0, 0.0, _where(input >= 3.0, 1.0, input / 6.0 + 0.5))
    return input.copy_(out) if inplace else out


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    out = _where(input > 0, input * _SELU_SCALE, input.expm1() * (_SELU_ALPHA * _SELU_SCALE))
    return input.copy_(out) if inplace else out


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    out = _where(input > 0, input, (input * (1.0 / alpha)).expm1() * alpha)
    return input.copy_(out) if inplace else out


# ---------------------------------------------------------------- normalisation
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each (sample, channel) plane normalised by its own mean and biased variance. With running stats and
    use_input_stats, they move towards the batch average of the per-instance mean and unbiased variance."""
    _tensor_arg("instance_norm", "input", input)
    if input.dim() < 3:
        raise ValueError("instance_norm: expected an input with at least 3 dims [N, C, *], got {}".format(
            _shape(input)))
    n, c = input.shape[0], input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError("instance_norm: expected {} to have shape [{}] (the input's channels, input {}), but "
                               "got {}".format(name, c, _shape(input), _shape(t)))
    dims = list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    side = []
    if use_input_stats:
        count = input.numel() // (n * c) if n * c else 0
        if count <= 1:
            raise ValueError("Expected more than 1 spatial element when training, got input size {}".format(
                _shape(input)))
        mean = input.mean(dims, keepdim=True)
        var = input.var(dims, unbiased=False, keepdim=True)
        if running_mean is not None or running_var is not None:
            from .._functions import no_grad
            with no_grad():
                if running_mean is not None:
                    running_mean.copy_(running_mean * (1 - momentum) + mean.detach().reshape(n, c).mean(0) * momentum)
                    side.append(running_mean)
                if running_var is not None:
                    unb = var.detach().reshape(n, c).mean(0) * (count / (count - 1))
                    running_var.copy_(running_var * (1 - momentum) + unb * momentum)
                    side.append(running_var)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("Expected running_mean and running_var to be defined when use_input_stats is false")
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return _cnn._tie(out, side)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha/size * sum of x^2 over `size` neighbouring channels, zero-padded)^beta."""
    _tensor_arg("local_response_norm", "input", input)
    if input.dim() < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got {} dimensions)".format(input.dim()))
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    moved = sq.transpose(1, -1)  # channels last, so _pad's last-dim form pads them
    padded = _C._pad(moved, [size // 2, (size - 1) // 2], 0.0)
    acc = None
    for j in range(size):
        part = padded.narrow(-1, j, c)
        acc = part if acc is None else acc + part
    div = (acc.transpose(1, -1) * (alpha / size) + k).pow(beta)
    return input / div


# ---------------------------------------------------------------- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


def _drop_channels(input, p, inplace, lead):
    """Zero input over whole slices input[i0, .., i(lead-1)] with probability p (0 < p <= 1), scaling the kept
    ones by 1/(1-p): the mask has shape input.shape[:lead] + [1, ...]."""
    mshape = _shape(input)[:lead] + [1] * (input.dim() - lead)
    if p == 1.0:
        out = input * 0.0
    else:
        keep = _C.rand(*mshape, dtype=input.dtype) >= p
        out = _where(keep, input * (1.0 / (1.0 - p)), 0.0)
    return input.copy_(out) if inplace else out


def _feature_dropout(input, p, training, inplace, name, dims):
    _tensor_arg(name, "input", input)
    _check_p(p)
    if input.dim() not in dims:
        raise RuntimeError("{}: Expected {}D or {}D input, but received a {}D input of size {}".format(
            name, dims[0], dims[1], input.dim(), _shape(input)))
    if not training or p == 0.0:
        return input
    batched = input.dim() == dims[1]
    return _drop_channels(input, p, inplace, 2 if batched else 1)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of [N, C, L] (or unbatched [C, L]) input; the mask's random stream is lazytensor's."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", (2, 3))


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: the mask has shape input.shape[:2] + [1, ...] for any input of 2 or more dims
    (PyTorch 1.13 warns about inputs that are not 4D but treats them this way)."""
    _tensor_arg("dropout2d", "input", input)
    _check_p(p)
    if not training or p == 0.0:
        return input
    if input.dim() < 2:
        raise RuntimeError("dropout2d: Feature dropout requires at least 2 dimensions in the input, got {}".format(
            _shape(input)))
    return _drop_channels(input, p, inplace, 2)


_ALPHA_DROP = 1.7580993408473766  # -SELU's negative saturation value: scale * alpha


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropped units are set to SELU's saturation value, then an affine map keeps mean 0 / variance 1."""
    _tensor_arg("alpha_dropout", "input", input)
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        a = 1.0 / math.sqrt((_ALPHA_DROP * _ALPHA_DROP * p + 1) * (1 - p))
        keep = _C.rand(*_shape(input), dtype=input.dtype) >= p
        out = _where(keep, input * a, 0.0) + _where(keep, 0.0, -_ALPHA_DROP * a) + _ALPHA_DROP * a * p
    return input.copy_(out) if inplace else out


# ---------------------------------------------------------------- shuffles
def _shuffle_factor(name, input, factor, factor_name):
    """pixel_shuffle/pixel_unshuffle's argument checks (PyTorch's messages); returns the factor as an int."""
    _tensor_arg(name, "input", input)
    r = int(factor)
    if input.dim() < 3:
        raise RuntimeError("{} expects input to have at least 3 dimensions, but got input with {} "
                           "dimension(s)".format(name, input.dim()))
    if r <= 0:
        raise RuntimeError("{} expects a positive {}, but got {}".format(name, factor_name, r))
    return r


def pixel_shuffle(input, upscale_factor):
    r = _shuffle_factor("pixel_shuffle", input, upscale_factor, "upscale_factor")
    *lead, c, h, w = _shape(input)
    if c % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           "upscale_factor, but input.size(-3)={} is not divisible by {}".format(c, r * r))
    oc = c // (r * r)
    b = len(lead)
    x = input.reshape(lead + [oc, r, r, h, w])
    x = x.permute(list(range(b)) + [b, b + 3, b + 1, b + 4, b + 2])
    return x.reshape(lead + [oc, h * r, w * r])


def pixel_unshuffle(input, downscale_factor):
    r = _shuffle_factor("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    *lead, c, h, w = _shape(input)
    if h % r != 0 or w % r != 0:
        raise RuntimeError("pixel_unshuffle expects height ({}) and width ({}) to be divisible by downscale_factor "
                           "({})".format(h, w, r))
    b = len(lead)
    x = input.reshape(lead + [c, h // r, r, w // r, r])
    x = x.permute(list(range(b)) + [b, b + 2, b + 4, b + 1, b + 3])
    return x.reshape(lead + [c * r * r, h // r, w // r])


def channel_shuffle(input, groups):
    _tensor_arg("channel_shuffle", "input", input)
    if input.dim() < 3:
        raise RuntimeError("channel_shuffle expects input to have at least 3 dimensions, but got input with {} "
                           "dimension(s)".format(input.dim()))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of groups:{}".format(
            groups))
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError("Number of channels must be divisible by groups. Got {} channels and {} groups.".format(
            c, groups))
    rest = _shape(input)[2:]
    x = input.reshape([n, groups, c // groups] + rest).transpose(1, 2)
    return x.reshape(_shape(input))


# ---------------------------------------------------------------- losses
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    _same_shape("soft_margin_loss", input, target)
    # log(1 + exp(-y x)) as softplus: finite where PyTorch's log1p(exp(.)) overflows to inf.
    return _apply(_C.softplus(-input * target, 1.0, 20.0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    _same_shape("multilabel_soft_margin_loss", input, target)
    from .functional import logsigmoid
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.dim() - 1
    loss = loss.sum(cdim) / input.shape[cdim]
    return _apply(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    _tensor_arg("hinge_embedding_loss", "input", input)
    _tensor_arg("hinge_embedding_loss", "target", target)
    from .functional import _broadcast_shape
    _broadcast_shape("hinge_embedding_loss", input, target)
    zeros = input * 0.0
    out_margin = _where(target != 1, (margin - input).clamp_min(0), zeros)
    out_self = _where(target != -1, input, zeros)
    return _apply(out_margin + out_self, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    _tensor_arg("poisson_nll_loss", "input", input)
    _tensor_arg("poisson_nll_loss", "target", target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t = _where(target > 1, target, 2.0)  # Stirling's term only where target > 1 (safe elsewhere)
        stirling = t * t.log() - t + 0.5 * (2 * math.pi * t).log()
        loss = loss + _where(target > 1, stirling, 0.0)
    return _apply(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    for name, t in (("input", input), ("target", target), ("var", var)):
        _tensor_arg("gaussian_nll_loss", name, t)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # PyTorch clamps a clone of var in no_grad: the value is clamped, the gradient passes as if it were not.
    var = var + (var.detach().clamp_min(eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply(loss, reduction)


def _class_target(fn, input, target):
    _tensor_arg(fn, "input", input)
    _tensor_arg(fn, "target", target)
    if input.dim() not in (1, 2) or input.numel() == 0 and input.dim() != 2:
        raise RuntimeError("{}: expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           "{}".format(fn, _shape(input)))
    if target.dtype != _C.int64:
        raise RuntimeError("{}: expected target of dtype Long (int64), got {}".format(fn, target.dtype))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    _class_target("multi_margin_loss", input, target)
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target.reshape(-1)
    n, c = x.shape
    if t.numel() != n:
        raise RuntimeError("multi_margin_loss: inconsistent target size, expected {} but got {}".format(
            n, _shape(target)))
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError("multi_margin_loss: inconsistent weight size, expected {} but got {}".format(
            c, _shape(weight)))
    xy = x.gather(1, t.unsqueeze(1))
    z = (margin - xy + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, t).unsqueeze(1)
    not_target = _C.arange(c).unsqueeze(0) != t.unsqueeze(1)
    loss = _where(not_target, z, 0.0).sum(1) / c
    if input.dim() == 1 and reduction == "none":
        loss = loss.reshape(_shape(target))
    return _apply(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """target holds class indices, read up to its first -1; loss = sum over (target j, non-target i) of
    max(0, 1 - (x[j] - x[i])) / C."""
    reduction = _red(size_average, reduce, reduction)
    _class_target("multilabel_margin_loss", input, target)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError("multilabel_margin_loss: inconsistent target size: {} for input of size: {}".format(
            _shape(target), _shape(input)))
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target if target.dim() == 2 else target.unsqueeze(0)
    n, c = x.shape
    from .._functions import cumprod
    valid = cumprod((t != -1).to(_C.int64), 1) > 0  # [N, K]: slots before the first -1
    idx = _where(valid, t, 0)
    classes = _C.arange(c).reshape(1, 1, c)
    hit = (idx.unsqueeze(2) == classes) & valid.unsqueeze(2)  # [N, K, C]
    is_target = hit.any(1)  # [N, C]
    xt = x.gather(1, idx)  # [N, K]
    z = (1.0 - xt.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # [N, K, C]
    keep = valid.unsqueeze(2) & (~is_target).unsqueeze(1)
    loss = _where(keep, z, 0.0).sum([1, 2]) / c
    if input.dim() == 1 and reduction == "none":
        loss = loss.reshape([])
    return _apply(loss, reduction)


# ---------------------------------------------------------------- embedding_bag
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Bags of embeddings reduced by sum/mean/max. The bag layout (offsets) is read on the host; the
    reduction itself is lazy (a 0/1 bag matrix times the gathered rows, or a masked amax)."""
    _tensor_arg("embedding_bag", "input", input)
    _tensor_arg("embedding_bag", "weight", weight)
    if weight.dim() != 2:
        raise ValueError("weight has to be a 2D Tensor, but got Tensor of dimension {}".format(weight.dim()))
    if input.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("embedding_bag: expected input of dtype Long or Int, got {}".format(input.dtype))
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        raise NotImplementedError("embedding_bag: max_norm is not supported by lazytensor")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  "supported for mode='sum' (got mode='{}'). Please open a feature request on "
                                  "GitHub.".format(mode))
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must have the same shape "
                         "as the input ({})".format(_shape(per_sample_weights), _shape(input)))
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += num
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type {}".format(type(offsets)))
        b, length = input.shape
        starts = [i * length for i in range(b)]
        ends = [(i + 1) * length for i in range(b)]
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if not isinstance(offsets, Tensor) or offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = [int(v) for v in offsets.tolist()]
        total = input.shape[0]
        if off and off[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               "from position 0. However, got {}".format(off[0]))
        if any(off[i] > off[i + 1] for i in range(len(off) - 1)) or (off and off[-1] > total):
            raise RuntimeError("embedding_bag: offsets must be non-decreasing and at most input.size(0)={}, got "
                               "{}".format(total, off))
        if include_last_offset:
            starts, ends = off[:-1], off[1:]
        else:
            starts, ends = off, off[1:] + [total]
        flat = input
        psw = per_sample_weights
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension {}".format(input.dim()))
    b, n = len(starts), flat.shape[0]
    member = np.zeros((b, n), dtype=bool)
    for i, (s, e) in enumerate(zip(starts, ends)):
        member[i, s:e] = True
    m = _C.from_numpy(member)
    if padding_idx is not None:
        m = m & (flat != padding_idx).unsqueeze(0)
    rows = weight.index_select(0, flat.to(_C.int64))  # [n, D]
    if mode == "max":
        vals = _where(m.unsqueeze(2), rows.unsqueeze(0), -math.inf).amax(1)
        return _where(m.any(1, keepdim=True), vals, 0.0)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    mf = m.to(weight.dtype)
    out = mf.matmul(rows)
    if mode == "mean":
        count = mf.sum(1, keepdim=True)
        out = out / count.clamp_min(1.0)
    return out


# ---------------------------------------------------------------- transposed convolution
def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fn):
    _tensor_arg(fn, "input", input)
    _tensor_arg(fn, "weight", weight)
    x, unbatched = _cnn._check_spatial(input, nd, fn)
    if weight.dim() != nd + 2:
        raise RuntimeError("{}: expected weight to be {}D [in_channels, out_channels/groups, *kernel], but got "
                           "{}".format(fn, nd + 2, _shape(weight)))
    s = _cnn._tuple(stride, nd, "stride", fn)
    p = _cnn._tuple(padding, nd, "padding", fn)
    op = _cnn._tuple(output_padding, nd, "output_padding", fn)
    d = _cnn._tuple(dilation, nd, "dilation", fn)
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
    cig = cin // groups
    K = int(np.prod(k))
    L = int(np.prod(spatial))
    xf = x.reshape(n, groups, cig, L)
    wf = weight.reshape(groups, cig, cog * K)
    cols = wf.transpose(1, 2).unsqueeze(0).matmul(xf)  # [N, G, Cout/G*K, L]
    cols = cols.reshape(n, cout * K, L)
    if nd == 1:
        out = _cnn.fold(cols, (1, out_size[0]), (1, k[0]), dilation=(1, d[0]), padding=(0, p[0]),
                        stride=(1, s[0])).squeeze(2)
    else:
        out = _cnn.fold(cols, out_size, k, dilation=d, padding=p, stride=s)
    if bias is not None:
        out = out + bias.reshape([1, cout] + [1] * nd)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


__all__ = ["hardsigmoid", "selu", "celu", "instance_norm", "local_response_norm", "dropout1d", "dropout2d",
           "alpha_dropout", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "soft_margin_loss",
           "multilabel_soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "multi_margin_loss", "multilabel_margin_loss", "embedding_bag", "conv_transpose1d", "conv_transpose2d"]
