"""nn.functional over the C++ ops (composites stay single IR decompositions)."""
import math

from .. import _C
from .._C import Tensor

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        return "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError("{} is not a valid value for reduction".format(reduction))
    return reduction


def _reduce(x, reduction):
    if reduction == "mean":
        return x.mean()
    if reduction == "sum":
        return x.sum()
    return x


def linear(input, weight, bias=None):
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace=False):
    return input.clamp(0, 6)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    out = _C._where3(input > 0, input, input * negative_slope)
    return input.copy_(out) if inplace else out


def elu(input, alpha=1.0, inplace=False):
    out = _C._where3(input > 0, input, (input.exp() - 1) * alpha)
    return input.copy_(out) if inplace else out


def gelu(input, approximate="none"):
    return _C.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return input.copy_(_C.silu(input)) if inplace else _C.silu(input)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


def softplus(input, beta=1, threshold=20):
    return _C.softplus(input, float(beta), float(threshold))


def mish(input, inplace=False):
    return input * softplus(input).tanh()


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _C._layer_norm(input, list(normalized_shape), weight, bias, float(eps))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    return _C._embedding(weight, input)


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        keep = _C.rand(*input.shape, dtype=input.dtype) >= p
        out = _C._where3(keep, input * (1.0 / (1.0 - p)), 0.0)
    return input.copy_(out) if inplace else out


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    return _C._one_hot(tensor, num_classes)


def pad(input, pad, mode="constant", value=None):
    if mode != "constant":
        raise NotImplementedError("pad: only mode='constant' is supported by lazytensor")
    return _C._pad(input, list(pad), 0.0 if value is None else float(value))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / denom


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    num = (x1 * x2).sum(dim)
    den = (x1.norm(2, dim).clamp_min(eps)) * (x2.norm(2, dim).clamp_min(eps))
    return num / den


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    if target.dtype.is_floating_point:  # class probabilities
        logp = log_softmax(input, 1 if input.dim() > 1 else 0)
        if label_smoothing > 0:
            n = input.shape[1 if input.dim() > 1 else 0]
            target = target * (1 - label_smoothing) + label_smoothing / n
        w = weight.reshape([-1] + [1] * (input.dim() - 2)) if weight is not None and input.dim() > 1 else weight
        loss = -(logp * target * w).sum(1 if input.dim() > 1 else 0) if w is not None else -(logp * target).sum(
            1 if input.dim() > 1 else 0)
        if reduction == "mean":
            return loss.sum() / (loss.numel() if input.dim() > 1 else 1)
        return _reduce(loss, reduction)
    if weight is None and label_smoothing == 0.0:
        return _C._cross_entropy(input, target, reduction, ignore_index)
    logp = log_softmax(input, 1 if input.dim() > 1 else 0)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    cdim = 1 if input.dim() > 1 else 0
    n = input.shape[cdim]
    valid = (target != ignore_index)
    w = weight.reshape([-1] + [1] * (input.dim() - 2)) if weight is not None and input.dim() > 1 else weight
    smooth = -(logp * w).sum(cdim) if w is not None else -logp.sum(cdim)
    smooth = _C._where3(valid, smooth, 0.0)
    if reduction == "mean":
        if weight is not None:
            denom = _C._where3(valid, weight.index_select(0, target.clamp(0, n - 1).reshape(-1)).reshape(target.shape),
                               0.0).sum()
        else:
            denom = valid.sum()
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if weight is None:
        return _C._nll_loss(input, target, reduction, ignore_index)
    cdim = 1 if input.dim() > 1 else 0
    n = input.shape[cdim]
    valid = target != ignore_index
    safe = _C._where3(valid, target, 0)
    picked = input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim)
    w = weight.index_select(0, safe.reshape(-1)).reshape(safe.shape)
    w = _C._where3(valid, w, 0.0)
    loss = -picked * w
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce((input - target) ** 2, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _reduction(size_average, reduce, reduction)
    d = (input - target).abs()
    loss = _C._where3(d < beta, 0.5 * d * d / beta, d - 0.5 * beta) if beta > 0 else d
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    d = (input - target).abs()
    return _reduce(_C._where3(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(target.shape, input.shape))
    # max(x, 0) - x * t + log(1 + exp(-|x|)), with pos_weight as in PyTorch.
    log_sig_neg = (-input).clamp_min(0) + ((-input.abs()).exp()).log1p()  # -log(sigmoid(x))
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * log_sig_neg
    else:
        loss = (1 - target) * input + log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * input.log().clamp_min(-100) + (1 - target) * (1 - input).log().clamp_min(-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction(size_average, reduce, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _C._where3(target > 0, target * (target.clamp_min(1e-38).log() - input), 0.0)
    if reduction == "batchmean":
        return loss.sum() / input.shape[0]
    return _reduce(loss, reduction)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False):
    scale = 1.0 / math.sqrt(query.shape[-1])
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        L, S = scores.shape[-2], scores.shape[-1]
        mask = _C.ones(L, S, dtype=_C.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == _C.bool else scores + attn_mask
    return dropout(softmax(scores, -1), dropout_p).matmul(value)


from ._functional_cnn import *  # noqa: E402,F401,F403  (conv, pooling, batch/group norm, interpolate)
from ._functional_cnn import unfold, fold  # noqa: E402,F401
