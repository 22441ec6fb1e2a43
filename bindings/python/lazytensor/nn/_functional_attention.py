"""Attention: scaled_dot_product_attention and multi_head_attention_forward (PyTorch 1.13's regular
path; nn.MultiheadAttention is its module).

Everything is a composition of existing lazy ops (linear, bmm/baddbmm, softmax, pad, cat,
masked_fill), so it records into the caller's trace and autograd differentiates it. PyTorch's
inference fast path (`_native_multi_head_attention`) computes the same math and is not copied.
Checks raise PyTorch 1.13's exception types (its asserts are AssertionError).
"""
import math

from .. import _C
from ._functional_activation import softmax
from ._functional_dropout import dropout
from ._functional_linear import linear
from ._functional_vision import pad


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


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("multi_head_attention_forward: for batched (3-D) `query`, expected `key` and "
                                 "`value` to be 3-D but found {}-D and {}-D tensors respectively".format(
                                     key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("multi_head_attention_forward: for batched (3-D) `query`, expected "
                                 "`key_padding_mask` to be `None` or 2-D but found {}-D tensor instead".format(
                                     key_padding_mask.dim()))
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("multi_head_attention_forward: for batched (3-D) `query`, expected `attn_mask` "
                                 "to be `None`, 2-D or 3-D but found {}-D tensor instead".format(attn_mask.dim()))
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("multi_head_attention_forward: for unbatched (2-D) `query`, expected `key` and "
                                 "`value` to be 2-D but found {}-D and {}-D tensors respectively".format(
                                     key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("multi_head_attention_forward: for unbatched (2-D) `query`, expected "
                                 "`key_padding_mask` to be `None` or 1-D but found {}-D tensor instead".format(
                                     key_padding_mask.dim()))
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("multi_head_attention_forward: for unbatched (2-D) `query`, expected "
                                     "`attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead".format(
                                         attn_mask.dim()))
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError("multi_head_attention_forward: expected `attn_mask` shape to be {} but "
                                         "got {}".format(expected, tuple(attn_mask.shape)))
        return False
    raise AssertionError("multi_head_attention_forward: query should be unbatched 2D or batched 3D tensor but "
                         "received {}-D query tensor (shape {})".format(query.dim(), list(query.shape)))


def _check_mask_dtype(name, mask):
    if mask is not None and mask.dtype != _C.bool and not mask.dtype.is_floating_point:
        raise AssertionError("multi_head_attention_forward: only bool and floating types of {} are supported, "
                             "got {}".format(name, mask.dtype))


def _in_projection_packed(q, k, v, w, b=None):
    E = q.shape[-1]
    if k is v:
        if q is k:
            return linear(q, w, b).chunk(3, -1)
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        return (linear(q, w_q, b_q),) + tuple(linear(k, w_kv, b_kv).chunk(2, -1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, want in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != want:
            raise AssertionError("multi_head_attention_forward: expecting {} weights shape of {}, but got {}".format(
                name, want, tuple(w.shape)))
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError("multi_head_attention_forward: expecting {} bias shape of {}, but got {}".format(
                name, (Eq,), tuple(b.shape)))
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True):
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    _check_mask_dtype("key_padding_mask", key_padding_mask)
    if embed_dim != embed_dim_to_check:
        raise AssertionError("multi_head_attention_forward: was expecting embedding dimension of {}, but got {} "
                             "(query shape {})".format(embed_dim_to_check, embed_dim, list(query.shape)))
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError("multi_head_attention_forward: embed_dim {} not divisible by num_heads {}".format(
            embed_dim, num_heads))
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError("multi_head_attention_forward: key's sequence and batch dims {} do not match "
                                 "value's {}".format(tuple(key.shape[:2]), tuple(value.shape[:2])))
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError("multi_head_attention_forward: key shape {} does not match value shape {}".format(
            tuple(key.shape), tuple(value.shape)))

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError("use_separate_proj_weight is True but {}_proj_weight is None".format(name))
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dtype != _C.bool and not attn_mask.dtype.is_floating_point:
            raise AssertionError("multi_head_attention_forward: only float, byte, and bool types are supported for "
                                 "attn_mask, not {}".format(attn_mask.dtype))
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError("multi_head_attention_forward: the shape of the 2D attn_mask is {}, but should be "
                                   "{}.".format(list(attn_mask.shape), (tgt_len, src_len)))
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError("multi_head_attention_forward: the shape of the 3D attn_mask is {}, but should be "
                                   "{}.".format(list(attn_mask.shape), (bsz * num_heads, tgt_len, src_len)))
        else:
            raise RuntimeError("multi_head_attention_forward: attn_mask's dimension {} is not supported".format(
                attn_mask.dim()))

    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("multi_head_attention_forward: bias cannot be added to static key or value.")
        k = _C.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _C.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("multi_head_attention_forward: bias_k and bias_v must be given together")

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads or static_k.shape[2] != head_dim:
            raise AssertionError("multi_head_attention_forward: expecting static_k of shape ({}, S, {}), but got "
                                 "{}".format(bsz * num_heads, head_dim, list(static_k.shape)))
        k = static_k
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads or static_v.shape[2] != head_dim:
            raise AssertionError("multi_head_attention_forward: expecting static_v of shape ({}, S, {}), but got "
                                 "{}".format(bsz * num_heads, head_dim, list(static_v.shape)))
        v = static_v

    if add_zero_attn:
        zshape = (bsz * num_heads, 1, head_dim)
        k = _C.cat([k, _C.zeros(*zshape, dtype=k.dtype)], 1)
        v = _C.cat([v, _C.zeros(*zshape, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError("multi_head_attention_forward: expecting key_padding_mask shape of {}, but got "
                                 "{}".format((bsz, src_len), tuple(key_padding_mask.shape)))
        key_padding_mask = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len).reshape(
            bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        elif attn_mask.dtype == _C.bool:
            attn_mask = attn_mask.logical_or(key_padding_mask)
        elif key_padding_mask.dtype == _C.bool:
            # where, not masked_fill: the result broadcasts to both shapes ([1, L, S] with [B*H, 1, S]), as
            # PyTorch's out-of-place masked_fill does (lazytensor's keeps self's shape)
            attn_mask = _C._where3(key_padding_mask, float("-inf"), attn_mask)
        else:
            # PyTorch 1.13 calls masked_fill with the float key_padding_mask here, which it does not define.
            raise RuntimeError("multi_head_attention_forward: a float attn_mask cannot be combined with a float "
                               "key_padding_mask (PyTorch 1.13 merges them with masked_fill, which needs a bool "
                               "mask); pass a bool key_padding_mask, or add the two float masks into attn_mask")

    if attn_mask is not None and attn_mask.dtype == _C.bool:
        attn_mask = _C.zeros(*attn_mask.shape, dtype=q.dtype).masked_fill(attn_mask, float("-inf"))

    if not training:
        dropout_p = 0.0

    E = q.shape[-1]
    q_scaled = q / math.sqrt(E)
    if attn_mask is not None:
        weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
    else:
        weights = q_scaled.bmm(k.transpose(-2, -1))
    weights = softmax(weights, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    out = weights.bmm(v)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.shape[1])

    if need_weights:
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.sum(1) / num_heads
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if not is_batched:
        out = out.squeeze(1)
    return out, None


__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]
