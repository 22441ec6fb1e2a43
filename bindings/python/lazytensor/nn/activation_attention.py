"""nn.MultiheadAttention and F.multi_head_attention_forward (PyTorch 1.13's regular path).

Everything is a composition of existing lazy ops (linear, bmm/baddbmm, softmax, pad, cat,
masked_fill), so it records into the caller's trace and autograd differentiates it. PyTorch's
inference fast path (`_native_multi_head_attention`) computes the same math and is not copied.
Checks raise PyTorch 1.13's exception types (its asserts are AssertionError).
"""
import math

from .. import _C
from . import functional as F
from . import init
from .modules import Linear, Module
from .parameter import Parameter

__all__ = ["MultiheadAttention"]  # multi_head_attention_forward is exported by nn.functional


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
            return F.linear(q, w, b).chunk(3, -1)
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        return (F.linear(q, w_q, b_q),) + tuple(F.linear(k, w_kv, b_kv).chunk(2, -1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


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
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


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
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
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
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))

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
    weights = F.softmax(weights, -1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    out = weights.bmm(v)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
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


class NonDynamicallyQuantizableLinear(Linear):
    pass


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        dt = dtype or _C.float32
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("MultiheadAttention: embed_dim must be divisible by num_heads (got embed_dim={}, "
                                 "num_heads={})".format(embed_dim, num_heads))
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_C.empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = Parameter(_C.empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(_C.empty(embed_dim, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_C.empty(3 * embed_dim, embed_dim, dtype=dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty(3 * embed_dim, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dt)
        if add_bias_kv:
            self.bias_k = Parameter(_C.empty(1, 1, embed_dim, dtype=dt))
            self.bias_v = Parameter(_C.empty(1, 1, embed_dim, dtype=dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True):
        is_batched = query.dim() == 3
        _check_mask_dtype("key_padding_mask", key_padding_mask)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = [x.transpose(1, 0) for x in (query, key)]
                    value = key
            else:
                query, key, value = [x.transpose(1, 0) for x in (query, key, value)]
        kw = dict(training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                  attn_mask=attn_mask, average_attn_weights=average_attn_weights)
        if not self._qkv_same_embed_dim:
            out, weights = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
                use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight, **kw)
        else:
            out, weights = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
                **kw)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
