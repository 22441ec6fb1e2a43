"""Lookups: embedding, embedding_bag and one_hot."""
import math

import numpy as np

from .. import _C
from .._C import Tensor
from ._checks import _shape, _tensor_arg

_where = _C._where3


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    return _C._embedding(weight, input)


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    return _C._one_hot(tensor, num_classes)


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


__all__ = ["embedding", "embedding_bag", "one_hot"]
