"""Normalisation: batch_norm, group_norm, instance_norm, layer_norm, local_response_norm and normalize.

batch_norm and instance_norm update running statistics with lazy in-place writes (no sync); see
_spatial._tie.
"""
from .. import _C
from .._C import Tensor
from ..autograd.grad_mode import no_grad
from ._checks import _shape, _tensor_arg
from ._spatial import _tie


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, tie=()):
    if not isinstance(input, Tensor) or input.dim() < 2:
        raise ValueError("batch_norm: expected an input with at least 2 dims [N, C, ...], got {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError("batch_norm: expected {} to have shape [{}] (the input's channels, input {}), but got "
                               "{}".format(name, c, _shape(input), _shape(t)))
    dims = [0] + list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError("batch_norm: expected more than 1 value per channel when training, got input size "
                             "{}".format(_shape(input)))
        mean = input.mean(dims)
        # The biased variance from the same centred values the output normalises (torch's two-pass
        # statistics): one x - mean for both, which readers recompute from the stored mean.
        centred = input - mean.reshape(shape)
        var = (centred * centred).mean(dims)
        side = list(tie)
        if running_mean is not None or running_var is not None:
            with no_grad():
                if running_mean is not None:
                    running_mean.copy_(running_mean * (1 - momentum) + mean.detach() * momentum)
                    side.append(running_mean)
                if running_var is not None:
                    running_var.copy_(running_var * (1 - momentum) + var.detach() * (momentum * count / (count - 1)))
                    side.append(running_var)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean, running_var
        side = list(tie)
        centred = input - mean.reshape(shape)
    out = centred * (var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    if input.dtype == _C.bfloat16:
        out = out.to(_C.bfloat16)  # torch's CPU kernel takes bfloat16 inputs with float32 parameters and statistics
    return _tie(out, side)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """PyTorch 1.13's F.batch_norm. Training normalises with the biased batch variance and updates the
    running statistics in place (lazily: no sync) with the unbiased one."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if not isinstance(input, Tensor) or input.dim() < 2:
        raise RuntimeError("group_norm: expected an input with at least 2 dims [N, C, ...], got {}".format(
            _shape(input) if isinstance(input, Tensor) else type(input).__name__))
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           "shape {} and num_groups={}".format(_shape(input), num_groups))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError("group_norm: expected {} to have shape [{}], but got {}".format(name, c, _shape(t)))
    x = input.reshape(n, num_groups, -1)
    mean = x.mean(2, keepdim=True)
    var = x.var(2, unbiased=False, keepdim=True)
    out = ((x - mean) * (var + eps).rsqrt()).reshape(_shape(input))
    shape = [1, c] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


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
    return _tie(out, side)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _C._layer_norm(input, list(normalized_shape), weight, bias, float(eps))


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


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / denom


__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm", "normalize"]
