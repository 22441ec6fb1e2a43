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
    if input.dim() > 2 and weight.dim() == 2:
        # One product over the flattened leading dims: the same forward values (the matmul folds a
        # batch-invariant weight into its rows anyway), and the weight's gradient is one matmul
        # instead of a batched one and a sum over the batch (10 kernels per transformer-block step).
        lead = tuple(input.shape[:-1])
        out = input.reshape(-1, input.shape[-1]).matmul(weight.t()).reshape(*lead, weight.shape[0])
    else:
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
    # PyTorch's gradient is zero at the bounds themselves (clamp's passes there): a where chain gives that.
    out = _C._where3(input <= min_val, min_val, _C._where3(input >= max_val, max_val, input))
    if out.dtype != input.dtype:  # an integer input keeps its dtype, as in PyTorch
        out = out.to(input.dtype)
    return input.copy_(out) if inplace else out


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
    reduction = _reduction(None, None, reduction)
    _check_loss_shapes("huber_loss", input, target)
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

# ---- activations, distances and losses added in session 5 (PyTorch 1.13 semantics) ----
def _float_only(name, input):
    if not input.dtype.is_floating_point:
        raise RuntimeError('"{}" not implemented for \'{}\''.format(name, _dtype_word(input.dtype)))


def _dtype_word(dt):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "float32": "Float", "float64": "Double"}.get(
        repr(dt).replace("torch.", ""), repr(dt))


def _to_float(x):
    return x if x.dtype.is_floating_point else x.to(_C.float32)


def _broadcast_shape(name, *tensors):
    import numpy as np
    try:
        return tuple(np.broadcast_shapes(*[tuple(t.shape) for t in tensors]))
    except ValueError:
        raise RuntimeError("{}: the shapes {} do not broadcast to one shape".format(
            name, ", ".join(str(list(t.shape)) for t in tensors))) from None


def _check_loss_shapes(name, input, target):
    if tuple(input.shape) != tuple(target.shape):
        import warnings
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the same size.".format(
                          target.shape, input.shape), stacklevel=3)
        _broadcast_shape(name, input, target)


def hardswish(input, inplace=False):
    _float_only("hardswish_cpu", input)
    # x * relu6(x + 3) / 6 with PyTorch's gradient: 0 below -3, (2x + 3) / 6 on [-3, 3), 1 from 3 on.
    out = _C._where3(input < -3.0, 0.0, _C._where3(input >= 3.0, input, input * (input + 3.0) / 6.0))
    return input.copy_(out) if inplace else out


def threshold(input, threshold, value, inplace=False):
    out = _C._where3(input > threshold, input, value)
    if out.dtype != input.dtype:
        out = out.to(input.dtype)
    return input.copy_(out) if inplace else out


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -nd, nd - 1, dim))
    d = dim % nd
    if input.shape[d] % 2:
        raise RuntimeError("Halving dimension must be even, but dimension {} is size {}".format(d, input.shape[d]))
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def prelu(input, weight):
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = {}".format(
            weight.dim()))
    n = weight.numel()
    channels = input.shape[1] if input.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = {} and "
                           "channel size = {}.".format(n, channels))
    w = weight.reshape([n] + [1] * (input.dim() - 2)) if n > 1 else weight.reshape([1] * input.dim())
    return _C._where3(input > 0, input, w * input)


def logsigmoid(input):
    _float_only("log_sigmoid_cpu", input)
    return -_C.softplus(-input, 1.0, 20.0)


def softsign(input):
    input = _to_float(input)
    return input / (input.abs() + 1)


def tanhshrink(input):
    input = _to_float(input)
    return input - input.tanh()


def _clamped_norm(x, dim, eps):
    """max(||x||_2, eps) over dim (keepdim), with PyTorch 1.13's gradient x / max(||x||, eps).

    PyTorch clamps the norm in place under no_grad, so its backward divides by the clamped
    value; a straight-through term over the squared norm s reproduces that: value n_c,
    gradient d(s)/dx / (2 n_c) = x / n_c (and no NaN at a zero vector).
    """
    s = (x * x).sum(dim, keepdim=True)
    nc = s.sqrt().clamp_min(eps).detach()
    return nc + (s - s.detach()) * (0.5 / nc)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    shape = _broadcast_shape("cosine_similarity", x1, x2)
    x1, x2 = _to_float(x1), _to_float(x2)
    if tuple(x1.shape) != shape:
        x1 = x1.expand(*shape)
    if tuple(x2.shape) != shape:
        x2 = x2.expand(*shape)
    if len(shape) == 0:
        x1, x2, dim, squeeze = x1.reshape(1), x2.reshape(1), 0, True
    else:
        squeeze = False
    out = ((x1 / _clamped_norm(x1, dim, eps)) * (x2 / _clamped_norm(x2, dim, eps))).sum(dim)
    return out.reshape(()) if squeeze else out


def _vector_norm(x, p, dim, keepdim):
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=keepdim)
    if p == math.inf:
        return x.abs().amax(dim, keepdim=keepdim)
    if p == -math.inf:
        return x.abs().amin(dim, keepdim=keepdim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim, keepdim=keepdim)
    return (x.abs() ** p).sum(dim, keepdim=keepdim) ** (1.0 / p)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    _broadcast_shape("pairwise_distance", x1, x2)
    d = x1 - x2 + eps
    if d.dim() == 0:
        return _vector_norm(d.reshape(1), p, 0, keepdim).reshape(())
    return _vector_norm(d, p, -1, keepdim)


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


# Session 5 (pyD): more activations, norms, dropouts, shuffles, losses, embedding_bag, transposed conv.
from ._functional_more import *  # noqa: E402,F401,F403
from .activation_attention import multi_head_attention_forward  # noqa: E402,F401
