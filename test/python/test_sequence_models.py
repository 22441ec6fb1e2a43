"""Sequence models against PyTorch 1.13: MultiheadAttention, Transformer*, RNN/LSTM/GRU (+ cells), pad_sequence.

Each module gets torch's initialised parameters through load_state_dict; outputs and every parameter (and
input) gradient are compared with torch's. Dropout is 0 or the module is in eval mode (the random streams
differ from PyTorch's by design). Sizes are tiny: every new kernel costs a JIT compile.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lazytensor as lt
import lazytensor.nn.functional as LF
from conftest import assert_same, to_np, train_side_by_side

RTOL, ATOL = 1e-4, 1e-5


def _arr(*shape):
    return np.random.standard_normal(shape).astype(np.float32)


def _copy_params(lm, tm):
    lm.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})


def _make(factory):
    """factory(m) builds the module with nn = m.nn; torch's initialisation is copied into lazytensor's."""
    torch.manual_seed(0)
    tm = factory(torch)
    lm = factory(lt)
    assert list(lm.state_dict().keys()) == list(tm.state_dict().keys())
    for (k, a), b in zip(lm.state_dict().items(), tm.state_dict().values()):
        assert tuple(a.shape) == tuple(b.shape), k
    _copy_params(lm, tm)
    return lm, tm


def _lib(mod):
    return lt if isinstance(mod, lt.nn.Module) else torch


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    return [] if out is None else [out]


def _compare(lm, tm, arrays, call, grad_inputs=True):
    """call(module, tensors) -> output(s). Compare outputs, then input and parameter gradients of a weighted sum."""
    lin = [lt.from_numpy(a.copy()) if a.dtype.kind != "f" or not grad_inputs else
           lt.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    tin = [torch.from_numpy(a.copy()) if a.dtype.kind != "f" or not grad_inputs else
           torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    lout, tout = _flatten(call(lm, lin)), _flatten(call(tm, tin))
    assert len(lout) == len(tout)
    for a, b in zip(lout, tout):
        assert_same(a, b.detach(), rtol=RTOL, atol=ATOL)
    weights = [_arr(*b.shape).astype(to_np(b).dtype) for b in tout]
    lloss = sum((a * lt.from_numpy(w)).sum() for a, w in zip(lout, weights))
    tloss = sum((b * torch.from_numpy(w)).sum() for b, w in zip(tout, weights))
    lloss.backward()
    tloss.backward()
    for a, b in zip(lin, tin):
        if b.requires_grad:
            assert_same(a.grad, b.grad, rtol=RTOL, atol=ATOL)
    lp, tp = dict(lm.named_parameters()), dict(tm.named_parameters())
    assert list(lp) == list(tp)
    for k in tp:
        assert (lp[k].grad is None) == (tp[k].grad is None), k
        if tp[k].grad is not None:
            assert_same(lp[k].grad, tp[k].grad, rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------- MultiheadAttention

def _masks(m, case, L, S, N, H):
    """(attn_mask, key_padding_mask) for a case name; N=None: unbatched."""
    am = kpm = None
    rng = np.random.default_rng(1)
    pad = np.zeros((N or 1, S), dtype=bool)
    pad[:, -1] = True  # the last key is padding (never a whole row)
    causal = np.triu(np.ones((L, S), dtype=bool), 1)
    if "bool_attn" in case:
        am = m.from_numpy(causal.copy())
    if "float_attn" in case:
        am = m.from_numpy(rng.standard_normal((L, S)).astype(np.float32))
    if "attn3d" in case:
        am = m.from_numpy(rng.standard_normal(((N or 1) * H, L, S)).astype(np.float32))
    if "bool_kpm" in case:
        kpm = m.from_numpy(pad.copy() if N else pad[0].copy())
    if "float_kpm" in case:
        f = np.where(pad, -1e4, 0.0).astype(np.float32)
        kpm = m.from_numpy(f if N else f[0].copy())
    return am, kpm


MHA_CASES = [
    dict(),
    dict(batch_first=True, masks="bool_attn+bool_kpm"),
    dict(masks="float_attn", average=False),
    dict(masks="attn3d+bool_kpm", need_weights=False),
    dict(masks="float_kpm", batch_first=True),
    dict(add_bias_kv=True, add_zero_attn=True, masks="bool_attn+bool_kpm"),
    dict(kdim=3, vdim=5, bias=False),
    dict(unbatched=True, masks="bool_attn+bool_kpm"),
    dict(unbatched=True, kdim=3, vdim=5, need_weights=False, masks="float_kpm"),
]


@pytest.mark.parametrize("case", MHA_CASES, ids=lambda c: "-".join("{}={}".format(k, v) for k, v in c.items())
                         or "default")
def test_multihead_attention_matches_torch(case):
    E, H, L, S, N = 8, 2, 3, 4, 2
    kdim, vdim = case.get("kdim"), case.get("vdim")
    bf, unb = case.get("batch_first", False), case.get("unbatched", False)
    lm, tm = _make(lambda m: m.nn.MultiheadAttention(E, H, bias=case.get("bias", True),
                                                     add_bias_kv=case.get("add_bias_kv", False),
                                                     add_zero_attn=case.get("add_zero_attn", False), kdim=kdim,
                                                     vdim=vdim, batch_first=bf))
    if case.get("add_bias_kv"):
        assert "bias_k" in lm.state_dict()
    lm.eval()
    tm.eval()

    def shape(T, F):
        if unb:
            return (T, F)
        return (N, T, F) if bf else (T, N, F)
    q, k, v = _arr(*shape(L, E)), _arr(*shape(S, kdim or E)), _arr(*shape(S, vdim or E))
    masks = case.get("masks", "")

    def call(m, t):
        am, kpm = _masks(_lib(m), masks, L, S, None if unb else N, H)
        return m(t[0], t[1], t[2], key_padding_mask=kpm, attn_mask=am, need_weights=case.get("need_weights", True),
                 average_attn_weights=case.get("average", True))
    _compare(lm, tm, [q, k, v], call)


def test_self_attention_same_tensor_and_functional():
    """q is k is v (the packed projection's one-matmul branch) and F.multi_head_attention_forward directly."""
    E, H = 8, 4
    lm, tm = _make(lambda m: m.nn.MultiheadAttention(E, H))
    x = _arr(3, 2, E)
    _compare(lm, tm, [x], lambda m, t: m(t[0], t[0], t[0]))
    y = _arr(3, 2, E)
    args = lambda m: (m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight, m.out_proj.bias)
    got = LF.multi_head_attention_forward(lt.from_numpy(y), lt.from_numpy(y), lt.from_numpy(y), E, H, *args(lm),
                                          training=False)
    want = TF.multi_head_attention_forward(torch.from_numpy(y), torch.from_numpy(y), torch.from_numpy(y), E, H,
                                           *args(tm), training=False)
    assert_same(got[0], want[0].detach(), rtol=RTOL, atol=ATOL)
    assert_same(got[1], want[1].detach(), rtol=RTOL, atol=ATOL)


def _raises_like_torch(f_lt, f_torch):
    with pytest.raises(Exception) as want:
        f_torch()
    with pytest.raises(want.type):
        f_lt()


def test_multihead_attention_bad_input():
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(10, 3)
    with pytest.raises(AssertionError, match="divisible"):
        lt.nn.MultiheadAttention(10, 3)
    lm, tm = _make(lambda m: m.nn.MultiheadAttention(8, 2))
    lm.eval()
    tm.eval()
    x = _arr(3, 2, 8)
    cases = [
        lambda mod, m: mod(m.from_numpy(x), m.from_numpy(x), m.from_numpy(x), attn_mask=m.zeros(4, 3, dtype=m.bool)),
        lambda mod, m: mod(m.from_numpy(x), m.from_numpy(x), m.from_numpy(x), attn_mask=m.zeros(3, 3, 3)),
        lambda mod, m: mod(m.from_numpy(x), m.from_numpy(x), m.from_numpy(x), key_padding_mask=m.zeros(2, 4,
                                                                                                dtype=m.bool)),
        lambda mod, m: mod(m.from_numpy(x), m.from_numpy(x), m.from_numpy(x), key_padding_mask=m.zeros(2, 3,
                                                                                                dtype=m.int64)),
        lambda mod, m: mod(m.from_numpy(x), m.from_numpy(x[:2]), m.from_numpy(x)),  # key/value shapes differ
        lambda mod, m: mod(m.from_numpy(_arr(3, 2, 6)), m.from_numpy(_arr(3, 2, 6)), m.from_numpy(_arr(3, 2, 6))),
        lambda mod, m: mod(m.from_numpy(_arr(2, 3, 2, 8)), m.from_numpy(x), m.from_numpy(x)),  # 4-D query
        lambda mod, m: mod(m.from_numpy(x), m.from_numpy(x), m.from_numpy(x), attn_mask=m.zeros(3, 3, dtype=m.int64)),
    ]
    for c in cases:
        _raises_like_torch(lambda: c(lm, lt), lambda: c(tm, torch))
    # A float attn_mask with a float key_padding_mask: PyTorch 1.13 merges them with masked_fill(float mask),
    # which it does not define (it returns the attn_mask unchanged here); lazytensor refuses the pair.
    with pytest.raises(RuntimeError, match="key_padding_mask"):
        lm(lt.from_numpy(x), lt.from_numpy(x), lt.from_numpy(x), attn_mask=lt.zeros(3, 3),
           key_padding_mask=lt.zeros(2, 3))


# ---------------------------------------------------------------- Transformer

ACTS = {"relu": lambda m: "relu", "gelu": lambda m: "gelu", "callable": lambda m: m.nn.functional.silu}


@pytest.mark.parametrize("norm_first,batch_first,act,masks", [
    (False, False, "relu", ""),
    (True, True, "gelu", "bool_attn+bool_kpm"),
    (False, True, "callable", "float_attn+bool_kpm"),
    (False, False, "relu", "float_kpm"),
])
def test_transformer_encoder_matches_torch(norm_first, batch_first, act, masks):
    d, N, T = 8, 2, 4
    lm, tm = _make(lambda m: m.nn.TransformerEncoder(
        m.nn.TransformerEncoderLayer(d, 2, dim_feedforward=16, dropout=0.0, activation=ACTS[act](m),
                                     batch_first=batch_first, norm_first=norm_first),
        num_layers=2, norm=m.nn.LayerNorm(d)))
    x = _arr(*((N, T, d) if batch_first else (T, N, d)))

    def call(m, t):
        am, kpm = _masks(_lib(m), masks, T, T, N, 2)
        return m(t[0], mask=am, src_key_padding_mask=kpm)
    _compare(lm, tm, [x], call)


def test_transformer_encoder_layer_eval_and_unbatched():
    """eval() with batch_first (PyTorch's fused fast path when grad is off) must give the regular path's value."""
    d = 8
    lm, tm = _make(lambda m: m.nn.TransformerEncoderLayer(d, 2, dim_feedforward=16, batch_first=True))
    lm.eval()
    tm.eval()
    x = _arr(2, 3, d)
    with torch.no_grad():
        want = tm(torch.from_numpy(x))
    assert_same(lm(lt.from_numpy(x)), want, rtol=RTOL, atol=ATOL)
    _compare(lm, tm, [_arr(3, d)], lambda m, t: m(t[0]))


@pytest.mark.parametrize("norm_first,batch_first", [(False, False), (True, True)])
def test_transformer_matches_torch(norm_first, batch_first):
    d, N, S, T = 8, 2, 4, 3
    lm, tm = _make(lambda m: m.nn.Transformer(d, 2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
                                              dropout=0.0, batch_first=batch_first, norm_first=norm_first))
    src = _arr(*((N, S, d) if batch_first else (S, N, d)))
    tgt = _arr(*((N, T, d) if batch_first else (T, N, d)))

    def call(m, t):
        tgt_mask = _lib(m).nn.Transformer.generate_square_subsequent_mask(T)
        _, kpm = _masks(_lib(m), "bool_kpm", S, S, N, 2)
        return m(t[0], t[1], tgt_mask=tgt_mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    _compare(lm, tm, [src, tgt], call)


def test_generate_square_subsequent_mask_and_bad_input():
    assert_same(lt.nn.Transformer.generate_square_subsequent_mask(4),
                torch.nn.Transformer.generate_square_subsequent_mask(4))
    lm, tm = _make(lambda m: m.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0))
    for s, t in [((3, 2, 8), (4, 3, 8)), ((3, 2, 6), (4, 2, 6))]:
        a, b = _arr(*s), _arr(*t)
        _raises_like_torch(lambda: lm(lt.from_numpy(a), lt.from_numpy(b)),
                           lambda: tm(torch.from_numpy(a), torch.from_numpy(b)))
    _raises_like_torch(lambda: lt.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
                       lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"))
    enc_l, enc_t = _make(lambda m: m.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0))
    x = _arr(3, 2, 8)
    _raises_like_torch(lambda: enc_l(lt.from_numpy(x), src_key_padding_mask=lt.zeros(2, 3, dtype=lt.int64)),
                       lambda: enc_t(torch.from_numpy(x), src_key_padding_mask=torch.zeros(2, 3, dtype=torch.int64)))
    _raises_like_torch(lambda: enc_l(lt.from_numpy(x), src_mask=lt.zeros(2, 2)),
                       lambda: enc_t(torch.from_numpy(x), src_mask=torch.zeros(2, 2)))


# ---------------------------------------------------------------- RNN / LSTM / GRU

RNN_CASES = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", batch_first=True, bidirectional=True)),
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(bias=False, hx=True)),
    ("LSTM", dict(proj_size=3, num_layers=2, hx=True)),
    ("GRU", dict()),
    ("GRU", dict(num_layers=2, bidirectional=True, hx=True)),
    ("LSTM", dict(unbatched=True, hx=True)),
    ("GRU", dict(unbatched=True, batch_first=True)),
]


@pytest.mark.parametrize("kind,opts", RNN_CASES, ids=lambda x: x if isinstance(x, str) else
                         "-".join("{}={}".format(k, v) for k, v in x.items()) or "default")
def test_rnn_matches_torch(kind, opts):
    opts = dict(opts)
    give_hx, unb = opts.pop("hx", False), opts.pop("unbatched", False)
    I, Hs, T, N = 3, 5, 4, 2
    lm, tm = _make(lambda m: getattr(m.nn, kind)(I, Hs, **opts))
    D = 2 if opts.get("bidirectional") else 1
    L = opts.get("num_layers", 1)
    bf = opts.get("batch_first", False)
    x = _arr(T, I) if unb else _arr(*((N, T, I) if bf else (T, N, I)))
    hout = opts.get("proj_size", 0) or Hs
    arrays = [x]
    if give_hx:
        arrays.append(_arr(*((L * D, hout) if unb else (L * D, N, hout))))
        if kind == "LSTM":
            arrays.append(_arr(*((L * D, Hs) if unb else (L * D, N, Hs))))

    def call(m, t):
        if not give_hx:
            return m(t[0])
        return m(t[0], (t[1], t[2]) if kind == "LSTM" else t[1])
    _compare(lm, tm, arrays, call)
    out = lm(lt.from_numpy(x))
    assert tuple(out[0].shape) == tuple(tm(torch.from_numpy(x))[0].shape)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_rnn_float64_matches_torch(kind):
    lm, tm = _make(lambda m: getattr(m.nn, kind)(3, 4, dtype=m.float64, bidirectional=True))
    assert all(p.dtype == lt.float64 for p in lm.parameters())
    _compare(lm, tm, [_arr(4, 2, 3).astype(np.float64)], lambda m, t: m(t[0]))


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_rnn_cells_match_torch(kind):
    lm, tm = _make(lambda m: getattr(m.nn, kind)(3, 4))
    x, h, c = _arr(2, 3), _arr(2, 4), _arr(2, 4)
    if kind == "LSTMCell":
        _compare(lm, tm, [x, h, c], lambda m, t: m(t[0], (t[1], t[2])))
        _compare(lm, tm, [x[0]], lambda m, t: m(t[0]))
    else:
        _compare(lm, tm, [x, h], lambda m, t: m(t[0], t[1]))
        _compare(lm, tm, [x[0], h[0]], lambda m, t: m(t[0], t[1]))
    bad = [lambda mod, m: mod(m.from_numpy(_arr(2, 5))), lambda m: m(m.from_numpy(_arr(2, 2, 3)))]
    if kind == "LSTMCell":
        bad += [lambda mod, m: mod(m.from_numpy(x), (m.zeros(3, 4), m.zeros(3, 4))),
                lambda mod, m: mod(m.from_numpy(x), (m.zeros(2, 5), m.zeros(2, 5)))]
    else:
        bad += [lambda mod, m: mod(m.from_numpy(x), m.zeros(3, 4)), lambda m: m(m.from_numpy(x), m.zeros(2, 5))]
    for f in bad:
        _raises_like_torch(lambda: f(lm, lt), lambda: f(tm, torch))


def test_rnn_bad_input():
    for kw in [dict(dropout=1.5), dict(dropout=True), dict(proj_size=5), dict(proj_size=-1)]:
        _raises_like_torch(lambda: lt.nn.LSTM(3, 5, **kw), lambda: torch.nn.LSTM(3, 5, **kw))
    _raises_like_torch(lambda: lt.nn.GRU(3, 5, proj_size=2), lambda: torch.nn.GRU(3, 5, proj_size=2))
    _raises_like_torch(lambda: lt.nn.RNN(3, 5, nonlinearity="gelu"), lambda: torch.nn.RNN(3, 5, nonlinearity="gelu"))
    with pytest.warns(UserWarning):
        lt.nn.LSTM(3, 5, dropout=0.5)
    lstm_l, lstm_t = _make(lambda m: m.nn.LSTM(3, 5, num_layers=2))
    gru_l, gru_t = _make(lambda m: m.nn.GRU(3, 5))
    x = _arr(4, 2, 3)
    cases = [
        (lstm_l, lstm_t, lambda m: (m.from_numpy(_arr(4, 2, 6)),)),  # wrong input size
        (lstm_l, lstm_t, lambda m: (m.from_numpy(_arr(4)),)),  # 1-D input
        (lstm_l, lstm_t, lambda m: (m.from_numpy(x), (m.zeros(1, 2, 5), m.zeros(2, 2, 5)))),  # wrong h0 shape
        (lstm_l, lstm_t, lambda m: (m.from_numpy(x), (m.zeros(2, 2, 5), m.zeros(2, 3, 5)))),  # wrong c0 shape
        (lstm_l, lstm_t, lambda m: (m.from_numpy(x), (m.zeros(2, 5), m.zeros(2, 5)))),  # 2-D hx, batched input
        (gru_l, gru_t, lambda m: (m.from_numpy(x), m.zeros(1, 3, 5))),  # hidden batch mismatch
        (gru_l, gru_t, lambda m: (m.from_numpy(x), m.zeros(2, 5))),
        (gru_l, gru_t, lambda m: (m.from_numpy(x[:, 0]), m.zeros(1, 2, 5))),  # unbatched input, 3-D hx
        (gru_l, gru_t, lambda m: (m.from_numpy(x.astype(np.float64)),)),  # dtype mismatch
    ]
    for lmod, tmod, args in cases:
        _raises_like_torch(lambda: lmod(*args(lt)), lambda: tmod(*args(torch)))


def test_rnn_packed_sequence_is_not_implemented():
    m = lt.nn.LSTM(3, 4)
    packed = torch.nn.utils.rnn.pack_sequence([torch.zeros(3, 3), torch.zeros(2, 3)])
    with pytest.raises(NotImplementedError, match="PackedSequence"):
        m(packed)
    with pytest.raises(NotImplementedError, match="PackedSequence"):
        lt.nn.utils.rnn.pack_padded_sequence(lt.zeros(3, 2, 3), [3, 2])


def test_rnn_dropout_between_layers_only_in_training():
    m = lt.nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = lt.from_numpy(_arr(4, 2, 3))
    m.eval()
    a, b = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    np.testing.assert_array_equal(a, b)  # eval: no dropout
    m.train()
    lt.manual_seed(1)
    c = m(x)[0].detach().numpy()
    lt.manual_seed(2)
    d = m(x)[0].detach().numpy()
    assert not np.allclose(c, d)  # training: different masks between the layers
    m1 = lt.nn.GRU(3, 4, num_layers=1, dropout=0.0)
    m1.train()
    np.testing.assert_array_equal(m1(x)[0].detach().numpy(), m1(x)[0].detach().numpy())


def test_rnn_state_dict_keys_and_init_range():
    for kind, kw in [("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)), ("GRU", dict(bias=False)),
                     ("RNN", dict(num_layers=2))]:
        lm, tm = getattr(lt.nn, kind)(3, 4, **kw), getattr(torch.nn, kind)(3, 4, **kw)
        assert list(lm.state_dict()) == list(tm.state_dict())
        for (k, a), b in zip(lm.state_dict().items(), tm.state_dict().values()):
            assert tuple(a.shape) == tuple(b.shape), k
            v = a.numpy()
            assert np.abs(v).max() <= 0.5 and v.std() > 0.1, k  # uniform(-1/sqrt(4), 1/sqrt(4))
        assert len(lm.all_weights) == len(tm.all_weights)
    assert repr(lt.nn.LSTM(3, 4, num_layers=2, batch_first=True)) == repr(torch.nn.LSTM(3, 4, num_layers=2,
                                                                                         batch_first=True))


def test_pad_sequence():
    seqs = [_arr(3, 2), _arr(1, 2), _arr(4, 2)]
    for bf in (False, True):
        assert_same(lt.nn.utils.rnn.pad_sequence([lt.from_numpy(s) for s in seqs], batch_first=bf, padding_value=-1),
                    torch.nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs], batch_first=bf,
                                                    padding_value=-1))
    a = [lt.from_numpy(s).requires_grad_(True) for s in seqs]
    b = [torch.from_numpy(s).requires_grad_(True) for s in seqs]
    w = _arr(4, 3, 2)
    (lt.nn.utils.rnn.pad_sequence(a) * lt.from_numpy(w)).sum().backward()
    (torch.nn.utils.rnn.pad_sequence(b) * torch.from_numpy(w)).sum().backward()
    for x, y in zip(a, b):
        assert_same(x.grad, y.grad)
    _raises_like_torch(lambda: lt.nn.utils.rnn.pad_sequence([lt.zeros(2, 3), lt.zeros(2, 4)]),
                       lambda: torch.nn.utils.rnn.pad_sequence([torch.zeros(2, 3), torch.zeros(2, 4)]))


# ---------------------------------------------------------------- training

class _Classifier:
    """A sequence classifier built the same way for torch and lazytensor (m = the module)."""

    @staticmethod
    def lstm(m):
        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = m.nn.LSTM(4, 8, batch_first=True)
                self.head = m.nn.Linear(8, 3)

            def forward(self, x):
                out, (h, c) = self.rnn(x)
                return self.head(h[-1])
        return Net()

    @staticmethod
    def transformer(m):
        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = m.nn.Linear(4, 8)
                self.enc = m.nn.TransformerEncoder(
                    m.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True), 1)
                self.head = m.nn.Linear(8, 3)

            def forward(self, x):
                return self.head(self.enc(self.proj(x)).mean(1))
        return Net()


@pytest.mark.parametrize("arch", ["lstm", "transformer"])
def test_training_matches_torch_and_stops_compiling(arch):
    lm, tm = _make(getattr(_Classifier, arch))
    topt = torch.optim.Adam(tm.parameters(), lr=0.01)
    lopt = lt.optim.Adam(lm.parameters(), lr=0.01)
    steps = 6
    xs = [_arr(4, 5, 4) for _ in range(steps)]
    ys = [np.random.randint(0, 3, 4).astype(np.int64) for _ in range(steps)]
    want, got, counters = train_side_by_side(tm, lm, topt, lopt, xs, ys)
    misses, kernels = counters["trace_cache_misses"], counters["kernels_launched"]
    np.testing.assert_allclose(got, want, rtol=1e-3)
    # loss.item() syncs the loss only: step k's backward and update run in step k+1's trace, so steps 1-3
    # are new traces (see test_conv_pool); after that the same T gives the same trace.
    assert misses[0] > 0 and misses[3:] == [0] * (steps - 3), misses
    print(arch, "kernels per step", kernels)
    for (k, a), b in zip(lm.state_dict().items(), tm.state_dict().values()):
        if k.endswith("in_proj_bias"):
            # The key bias adds q.b_k to every score of a row, which softmax ignores: its true gradient is 0 and
            # both libraries get rounding noise (~1e-9) that Adam scales up to full-size steps. Compare q and v.
            a, b = lt.cat([a[:8], a[16:]]), torch.cat([b[:8], b[16:]])
        assert_same(a, b, rtol=1e-3, atol=1e-4)


def test_attention_and_transformer_dropout_in_training():
    """Dropout's stream differs from torch's: check the behaviour (active in train only, differentiable)."""
    m = lt.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = lt.from_numpy(_arr(3, 2, 8))
    m.eval()
    out, w = m(x, x, x)
    np.testing.assert_allclose(w.detach().numpy().sum(-1), np.ones((2, 3)), rtol=1e-5)
    m.train()
    lt.manual_seed(0)
    out_a, w_a = m(x, x, x, average_attn_weights=False)
    lt.manual_seed(1)
    out_b, _ = m(x, x, x)
    assert not np.allclose(out_a.detach().numpy(), out_b.detach().numpy())
    m.eval()
    _, w_eval = m(x, x, x, average_attn_weights=False)
    wa, we = w_a.detach().numpy(), w_eval.detach().numpy()
    assert (wa == 0).any()  # PyTorch returns the weights after dropout: dropped ones are 0, kept ones scaled by 2
    np.testing.assert_allclose(wa[wa != 0], 2 * we[wa != 0], rtol=1e-5)
    layer = lt.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1)
    layer(x).sum().backward()
    for name, p in layer.named_parameters():
        assert p.grad is not None and np.isfinite(p.grad.numpy()).all(), name
