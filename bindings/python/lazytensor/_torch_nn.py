"""The nn.functional ops PyTorch 1.13 also has under torch.* (torch.conv2d, torch.layer_norm, ...), with torch's
argument orders where they differ from nn.functional's (batch_norm, instance_norm, embedding take the weight
first; the cudnn flags are accepted and ignored), and the Tensor methods hardshrink and prelu.
"""
from .nn import functional as F

conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d
pixel_shuffle, pixel_unshuffle, channel_shuffle = F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle
cosine_similarity, pairwise_distance, bilinear = F.cosine_similarity, F.pairwise_distance, F.bilinear
hardshrink, prelu, pdist = F.hardshrink, F.prelu, F.pdist
adaptive_avg_pool1d, avg_pool1d = F.adaptive_avg_pool1d, F.avg_pool1d
max_pool1d_with_indices = F.max_pool1d_with_indices


def selu(input):
    return F.selu(input)


def celu(input, alpha=1.0):
    return F.celu(input, alpha)


def threshold(input, threshold, value):  # noqa: A002
    return F.threshold(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return F.rrelu(input, lower, upper, training)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def selu_(input):
    return F.selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return F.celu(input, alpha, inplace=True)


def threshold_(input, threshold, value):  # noqa: A002
    return F.threshold(input, threshold, value, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return F.rrelu(input, lower, upper, training, inplace=True)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), always: torch.adaptive_max_pool1d has no return_indices flag."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return F.embedding(indices, weight)


__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "cosine_similarity", "pairwise_distance", "bilinear", "hardshrink",
           "prelu", "adaptive_avg_pool1d", "avg_pool1d", "max_pool1d_with_indices", "selu", "celu", "threshold",
           "rrelu", "alpha_dropout", "adaptive_max_pool1d", "max_pool1d", "max_pool2d", "max_pool3d", "layer_norm",
           "group_norm", "batch_norm", "instance_norm", "embedding", "alpha_dropout_", "selu_", "celu_", "threshold_",
           "rrelu_", "pdist"]
TENSOR_METHODS = ["hardshrink", "prelu"]
