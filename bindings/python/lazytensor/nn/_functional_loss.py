"""Loss functions (reduction= as in PyTorch 1.13, and the deprecated size_average=/reduce=)."""
import math

import numpy as np

from .. import _C
from .._gradient_terms import with_gradient, with_nan_gradient
from .._reductions import cumprod
from ._checks import _broadcast_shape, _check_loss_shapes, _same_shape, _shape, _tensor_arg
from ._functional_activation import log_softmax, logsigmoid
from ._functional_distance import pairwise_distance
from ._reduction import _reduce, _reduction

_where = _C._where3

# PyTorch's binary_cross_entropy_backward clamps by EPSILON = 1e-12 as a float (also for float64 inputs)
_TORCH_EPSILON = float(np.float32(1e-12))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    if target.dtype.is_floating_point:  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError("cross_entropy: class-probability targets (floating dtype) must have the input's shape "
                               "{}, got {}; class-index targets must be integers".format(
                                   list(input.shape), list(target.shape)))
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
    safe = _C._class_target(_C._where3(valid, target, 0), n)  # IndexError "Target N is out of bounds."
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
    reduction = _reduction(None, None, reduction)
    _check_loss_shapes("huber_loss", input, target)
    d = (input - target).abs()
    return _reduce(_C._where3(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(target.shape, input.shape))
    # (1 - t) x - log(sigmoid(x)), with pos_weight as in PyTorch. -log(sigmoid(x)) is
    # softplus(-x), whose derivative is smooth everywhere: the gradient is torch's
    # sigmoid(x) - t also at x = 0, where max(-x, 0) + log1p(exp(-|x|)) has two kinks.
    log_sig_neg = _C.softplus(-input, 1.0, 20.0)
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
    x, t = input.detach(), target.detach()
    loss = -(t * x.log().clamp_min(-100) + (1 - t) * (1 - x).log().clamp_min(-100))
    # PyTorch's derivatives ignore the clamps: (x - t) / max(x (1 - x), eps), finite at x = 0 and 1 where
    # the clamped logs' would be NaN, and log(1 - x) - log(x) for the target (+-inf there)
    loss = with_gradient(loss, (input, (x - t) / (x * (1 - x)).clamp_min(_TORCH_EPSILON)),
                         (target, (1 - x).log() - x.log()))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction(size_average, reduce, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _C._where3(target > 0, target * (target.clamp_min(1e-38).log() - input), 0.0)
        loss = with_nan_gradient(loss, target == 0, target)  # PyTorch's target gradient is NaN at 0
    if reduction == "batchmean":
        return loss.sum() / input.shape[0]
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    a, pz, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pz == n):
        raise RuntimeError("triplet_margin_loss: all inputs should have same dimension but got {}D, {}D and {}D "
                           "inputs (shapes {}, {}, {}).".format(a, pz, n, list(anchor.shape), list(positive.shape),
                                                                list(negative.shape)))
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """triplet_margin_loss with any distance (pairwise_distance by default), as PyTorch 1.13."""
    reduction = _reduction(None, None, reduction)
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, distance(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp_min(0.0), reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           "input1: {}, input2: {}, target: {} ".format(input1.shape, input2.shape, target.shape))
    _broadcast_shape("margin_ranking_loss", input1, input2, target)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported "
                           "(target shape {})".format(list(target.shape)))
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError("cosine_embedding_loss: {}D target tensor expects {}D input tensors, but found inputs with "
                           "sizes {} and {}.".format(td, want, list(input1.shape), list(input2.shape)))
    eps = 1e-12
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + eps
    mag2 = (input2 * input2).sum(td) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    out = _C._where3(target == 1, pos, 0.0) + _C._where3(target == -1, neg, 0.0)
    return _reduce(out, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    _same_shape("soft_margin_loss", input, target)
    # log(1 + exp(-y x)) as softplus: finite where PyTorch's log1p(exp(.)) overflows to inf.
    return _reduce(_C.softplus(-input * target, 1.0, 20.0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    _same_shape("multilabel_soft_margin_loss", input, target)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.dim() - 1
    loss = loss.sum(cdim) / input.shape[cdim]
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    _tensor_arg("hinge_embedding_loss", "input", input)
    _tensor_arg("hinge_embedding_loss", "target", target)
    _broadcast_shape("hinge_embedding_loss", input, target)
    zeros = input * 0.0
    out_margin = _where(target != 1, (margin - input).clamp_min(0), zeros)
    out_self = _where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
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
        loss = with_nan_gradient(loss, target == 0, target)  # PyTorch's target gradient: 0 * log(0) = NaN
    return _reduce(loss, reduction)


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
    return _reduce(loss, reduction)


def _class_target(fn, input, target):
    _tensor_arg(fn, "input", input)
    _tensor_arg(fn, "target", target)
    if input.dim() not in (1, 2) or input.numel() == 0 and input.dim() != 2:
        raise RuntimeError("{}: expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           "{}".format(fn, _shape(input)))
    if target.dtype != _C.int64:
        raise RuntimeError("{}: expected target of dtype Long (int64), got {}".format(fn, target.dtype))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
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
    z = margin - xy + x
    z = _where(z > 0, z, 0.0)  # PyTorch's gradient is 0 at z = 0 (clamp_min's would pass it)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, t).unsqueeze(1)
    not_target = _C.arange(c).unsqueeze(0) != t.unsqueeze(1)
    loss = _where(not_target, z, 0.0).sum(1) / c
    if input.dim() == 1 and reduction == "none":
        loss = loss.reshape(_shape(target))
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """target holds class indices, read up to its first -1; loss = sum over (target j, non-target i) of
    max(0, 1 - (x[j] - x[i])) / C."""
    reduction = _reduction(size_average, reduce, reduction)
    _class_target("multilabel_margin_loss", input, target)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError("multilabel_margin_loss: inconsistent target size: {} for input of size: {}".format(
            _shape(target), _shape(input)))
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target if target.dim() == 2 else target.unsqueeze(0)
    n, c = x.shape
    valid = cumprod((t != -1).to(_C.int64), 1) > 0  # [N, K]: slots before the first -1
    idx = _where(valid, t, 0)
    classes = _C.arange(c).reshape(1, 1, c)
    hit = (idx.unsqueeze(2) == classes) & valid.unsqueeze(2)  # [N, K, C]
    is_target = hit.any(1)  # [N, C]
    xt = x.gather(1, idx)  # [N, K]
    z = 1.0 - xt.unsqueeze(2) + x.unsqueeze(1)  # [N, K, C]
    z = _where(z > 0, z, 0.0)  # PyTorch's gradient is 0 at z = 0 (clamp_min's would pass it)
    keep = valid.unsqueeze(2) & (~is_target).unsqueeze(1)
    loss = _where(keep, z, 0.0).sum([1, 2]) / c
    if input.dim() == 1 and reduction == "none":
        loss = loss.reshape([])
    return _reduce(loss, reduction)


__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy_with_logits", "binary_cross_entropy", "kl_div", "triplet_margin_loss",
           "margin_ranking_loss", "cosine_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss",
           "multilabel_margin_loss", "triplet_margin_with_distance_loss"]
