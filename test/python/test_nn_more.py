"""More nn layers and functionals (lazytensor/nn/_functional_more.py, nn/more_modules.py) vs PyTorch 1.13."""
import warnings

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, pair

LF, TF = lt.nn.functional, torch.nn.functional
DTYPES = [np.float32, np.float64]
REDUCTIONS = ["none", "mean", "sum"]


def _tol(dt):
    return dict(rtol=2e-5, atol=2e-6) if dt == np.float32 else dict(rtol=1e-10, atol=1e-12)


def check(f_lt, f_torch, arrays, grad=(0,), dt=np.float64, weight_seed=1, grad_tol=None):
    """Value, dtype and shape of f(*arrays), and the gradients of the arrays whose index is in `grad`."""
    ps = [pair(a, requires_grad=(i in grad)) for i, a in enumerate(arrays)]
    out_lt = f_lt(*[p[0] for p in ps])
    out_t = f_torch(*[p[1] for p in ps])
    assert_same(out_lt, out_t, **_tol(dt))
    if grad:
        w = np.asarray(np.random.RandomState(weight_seed).rand(*out_t.shape)).astype(out_t.detach().numpy().dtype)
        out_lt.backward(lt.from_numpy(np.asarray(w)))
        out_t.backward(torch.from_numpy(np.asarray(w)))
        for i in grad:
            assert ps[i][0].grad is not None, "no gradient for argument {}".format(i)
            assert_same(ps[i][0].grad, ps[i][1].grad, **(grad_tol or _tol(dt)))
    return out_lt


def raises_like(f_lt, f_torch, match=None):
    """torch raises; lazytensor raises the same exception type (and names the function when `match` is given)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as e:
            f_torch()
    with pytest.raises(e.type, match=match):
        f_lt()


def rnd(*shape, dt=np.float64, scale=1.0):
    return (np.random.randn(*shape) * scale).astype(dt)


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,kw", [("hardsigmoid", {}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 0.5})])
def test_activations(name, kw, dt):
    x = np.concatenate([rnd(7, dt=dt, scale=4), np.array([-3.0, 3.0, 0.0, -10.0, 10.0], dtype=dt)])
    # torch's float64 hardsigmoid backward multiplies by a float32 1/6 (relative error 3e-8); ours is exact
    gt = dict(rtol=5e-8, atol=0) if name == "hardsigmoid" and dt == np.float64 else None
    check(lambda a: getattr(LF, name)(a, **kw), lambda a: getattr(TF, name)(a, **kw), [x], dt=dt, grad_tol=gt)
    mod = {"hardsigmoid": "Hardsigmoid", "selu": "SELU", "celu": "CELU"}[name]
    check(lambda a: getattr(lt.nn, mod)(**kw)(a), lambda a: getattr(torch.nn, mod)(**kw)(a), [x], dt=dt, grad_tol=gt)
    a, b = pair(x)
    assert_same(getattr(LF, name)(a, inplace=True, **kw), getattr(TF, name)(b, inplace=True, **kw), **_tol(dt))
    assert_same(a, b, **_tol(dt))


def test_softmax2d():
    x = rnd(2, 3, 2, 2)
    check(lambda a: lt.nn.Softmax2d()(a), lambda a: torch.nn.Softmax2d()(a), [x])
    check(lambda a: lt.nn.Softmax2d()(a), lambda a: torch.nn.Softmax2d()(a), [x[0]])
    raises_like(lambda: lt.nn.Softmax2d()(lt.zeros(2, 3)), lambda: torch.nn.Softmax2d()(torch.zeros(2, 3)))


# ---------------------------------------------------------------- normalisation
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("affine,track", [(False, False), (True, False), (True, True), (False, True)])
def test_instance_norm_modules(nd, affine, track, dt):
    shape = (2, 3, 4) if nd == 1 else (2, 3, 3, 2)
    m_lt = getattr(lt.nn, "InstanceNorm{}d".format(nd))(3, affine=affine, track_running_stats=track, momentum=0.3)
    m_t = getattr(torch.nn, "InstanceNorm{}d".format(nd))(3, affine=affine, track_running_stats=track, momentum=0.3)
    if dt == np.float64:
        m_lt, m_t = m_lt.double(), m_t.double()
    if affine:
        w, b = rnd(3, dt=dt), rnd(3, dt=dt)
        with torch.no_grad():
            m_t.weight.copy_(torch.from_numpy(w))
            m_t.bias.copy_(torch.from_numpy(b))
        with lt.no_grad():
            m_lt.weight.copy_(lt.from_numpy(w))
            m_lt.bias.copy_(lt.from_numpy(b))
    x = rnd(*shape, dt=dt, scale=2) + 1
    for _ in range(2):
        check(m_lt, m_t, [x], dt=dt)
    if affine:
        assert_same(m_lt.weight.grad, m_t.weight.grad, **_tol(dt))
        assert_same(m_lt.bias.grad, m_t.bias.grad, **_tol(dt))
    if track:
        assert_same(m_lt.running_mean, m_t.running_mean, **_tol(dt))
        assert_same(m_lt.running_var, m_t.running_var, **_tol(dt))
        m_lt.eval()
        m_t.eval()
        check(m_lt, m_t, [x], dt=dt)
    check(m_lt, m_t, [x[0]], dt=dt)  # unbatched


def test_instance_norm_functional_and_errors():
    x = rnd(2, 3, 5)
    rm, rv = rnd(3), np.abs(rnd(3)) + 0.5
    check(lambda a, w: LF.instance_norm(a, weight=w, eps=1e-3), lambda a, w: TF.instance_norm(a, weight=w, eps=1e-3),
          [x, rnd(3)], grad=(0, 1))
    check(lambda a, m, v: LF.instance_norm(a, m, v, use_input_stats=False),
          lambda a, m, v: TF.instance_norm(a, m, v, use_input_stats=False), [x, rm, rv])
    raises_like(lambda: LF.instance_norm(lt.zeros(2, 3, 1)), lambda: TF.instance_norm(torch.zeros(2, 3, 1)))
    raises_like(lambda: lt.nn.InstanceNorm1d(3)(lt.zeros(2, 3, 4, 5)),
                lambda: torch.nn.InstanceNorm1d(3)(torch.zeros(2, 3, 4, 5)))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,size,kw", [((2, 5, 3), 3, {}), ((1, 4, 2, 3), 2, {"alpha": 0.1, "beta": 0.5, "k": 2.0}),
                                           ((2, 3, 2, 2), 4, {"alpha": 1.0})])
def test_local_response_norm(shape, size, kw, dt):
    x = rnd(*shape, dt=dt, scale=2)
    check(lambda a: LF.local_response_norm(a, size, **kw), lambda a: TF.local_response_norm(a, size, **kw), [x], dt=dt)
    check(lambda a: lt.nn.LocalResponseNorm(size, **kw)(a), lambda a: torch.nn.LocalResponseNorm(size, **kw)(a), [x],
          dt=dt)


def test_local_response_norm_bad_input():
    raises_like(lambda: LF.local_response_norm(lt.zeros(2, 3), 2), lambda: TF.local_response_norm(torch.zeros(2, 3), 2),
                match="3D")


# ---------------------------------------------------------------- dropout (statistics: the random streams differ)
@pytest.mark.parametrize("name,shape", [("dropout1d", (40, 50, 3)), ("dropout1d", (400, 3)),
                                        ("dropout2d", (40, 50, 2, 2)), ("dropout2d", (40, 50, 3)),
                                        ("dropout2d", (40, 50, 1, 2, 2))])
def test_channel_dropout_statistics(name, shape):
    lt.manual_seed(0)
    x = lt.ones(*shape)
    p = 0.3
    y = getattr(LF, name)(x, p, training=True).numpy()
    lead = 2 if len(shape) >= 3 and not (name == "dropout1d" and len(shape) == 2) else 1
    flat = y.reshape(int(np.prod(shape[:lead])), -1)
    # whole channels are dropped or kept (scaled by 1/(1-p))
    assert np.all((flat == 0).all(1) | np.isclose(flat, 1 / (1 - p)).all(1))
    frac = (flat[:, 0] == 0).mean()
    assert abs(frac - p) < 0.06, frac
    assert_same(getattr(LF, name)(x, p, training=False), getattr(TF, name)(torch.ones(*shape), p, training=False))
    mod = {"dropout1d": "Dropout1d", "dropout2d": "Dropout2d"}[name]
    m = getattr(lt.nn, mod)(p)
    m.eval()
    assert m(x) is x


def test_channel_dropout_grad_and_errors():
    lt.manual_seed(1)
    x = lt.ones(6, 8, 2).requires_grad_(True)
    y = LF.dropout1d(x, 0.5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y.detach().numpy() != 0) * 2.0)
    raises_like(lambda: LF.dropout1d(lt.ones(2, 3, 4, 5)), lambda: TF.dropout1d(torch.ones(2, 3, 4, 5)), "dropout1d")
    raises_like(lambda: LF.dropout2d(lt.ones(3), 0.5), lambda: TF.dropout2d(torch.ones(3), 0.5))
    for f in ("dropout1d", "dropout2d", "alpha_dropout"):
        raises_like(lambda: getattr(LF, f)(lt.ones(2, 3, 4), 1.5), lambda: getattr(TF, f)(torch.ones(2, 3, 4), 1.5))
    raises_like(lambda: lt.nn.AlphaDropout(-0.1), lambda: torch.nn.AlphaDropout(-0.1))


def test_alpha_dropout_statistics():
    lt.manual_seed(0)
    x_np = np.random.RandomState(0).randn(200, 100).astype(np.float32)
    x = lt.from_numpy(x_np)
    y = LF.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1.0) < 0.03, (y.mean(), y.std())
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    dropped_value = -1.7580993408473766 * a + 1.7580993408473766 * a * 0.2
    dropped = np.isclose(y, dropped_value, atol=1e-6)
    assert abs(dropped.mean() - 0.2) < 0.02
    np.testing.assert_allclose(y[~dropped], x_np[~dropped] * a + 1.7580993408473766 * a * 0.2, rtol=1e-5, atol=1e-6)
    m = lt.nn.AlphaDropout(0.2)
    m.eval()
    assert m(x) is x
    assert LF.alpha_dropout(x, 0.2) is x  # training=False by default, as torch


# ---------------------------------------------------------------- shuffles
@pytest.mark.parametrize("shape,r", [((1, 8, 2, 3), 2), ((2, 2, 9, 1, 1), 3), ((4, 2, 2), 2)])
def test_pixel_shuffle(shape, r):
    x = rnd(*shape)
    y = check(lambda a: LF.pixel_shuffle(a, r), lambda a: TF.pixel_shuffle(a, r), [x])
    check(lambda a: lt.nn.PixelShuffle(r)(a), lambda a: torch.nn.PixelShuffle(r)(a), [x])
    check(lambda a: lt.nn.PixelUnshuffle(r)(a), lambda a: torch.nn.PixelUnshuffle(r)(a), [y.detach().numpy()])
    check(lambda a: LF.pixel_unshuffle(a, r), lambda a: TF.pixel_unshuffle(a, r), [y.detach().numpy()])


def test_shuffle_errors_and_channel_shuffle():
    raises_like(lambda: LF.pixel_shuffle(lt.zeros(1, 3, 2, 2), 2), lambda: TF.pixel_shuffle(torch.zeros(1, 3, 2, 2), 2),
                "pixel_shuffle")
    raises_like(lambda: LF.pixel_shuffle(lt.zeros(3, 2), 2), lambda: TF.pixel_shuffle(torch.zeros(3, 2), 2))
    raises_like(lambda: LF.pixel_unshuffle(lt.zeros(1, 3, 3, 2), 2),
                lambda: TF.pixel_unshuffle(torch.zeros(1, 3, 3, 2), 2), "pixel_unshuffle")
    x = rnd(2, 6, 2)
    (a, b) = pair(x)
    assert_same(lt.nn.ChannelShuffle(3)(a), torch.nn.ChannelShuffle(3)(b))
    assert_same(LF.channel_shuffle(a, 2), TF.channel_shuffle(b, 2))
    raises_like(lambda: lt.nn.ChannelShuffle(4)(a), lambda: torch.nn.ChannelShuffle(4)(b))
    a.requires_grad_(True)  # torch has no channel_shuffle gradient; it is a permutation of the input
    w = rnd(2, 6, 2)
    (LF.channel_shuffle(a, 2) * lt.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), TF.channel_shuffle(torch.from_numpy(w), 3).numpy())


# ---------------------------------------------------------------- losses
def _sign(*shape):
    return np.where(np.random.rand(*shape) > 0.5, 1.0, -1.0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_simple_losses(reduction, dt):
    x, y = rnd(3, 4, dt=dt), _sign(3, 4).astype(dt)
    check(lambda a, b: LF.soft_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.soft_margin_loss(a, b, reduction=reduction), [x, y], dt=dt)
    check(lambda a, b: lt.nn.SoftMarginLoss(reduction=reduction)(a, b),
          lambda a, b: torch.nn.SoftMarginLoss(reduction=reduction)(a, b), [x, y], dt=dt)
    t01 = (y > 0).astype(dt)
    w = np.abs(rnd(4, dt=dt))
    check(lambda a, b, c: LF.multilabel_soft_margin_loss(a, b, weight=c, reduction=reduction),
          lambda a, b, c: TF.multilabel_soft_margin_loss(a, b, weight=c, reduction=reduction), [x, t01, w], dt=dt)
    check(lambda a, b: lt.nn.MultiLabelSoftMarginLoss(reduction=reduction)(a, b),
          lambda a, b: torch.nn.MultiLabelSoftMarginLoss(reduction=reduction)(a, b), [x, t01], dt=dt)
    for margin in (1.0, 0.3):
        check(lambda a, b: LF.hinge_embedding_loss(a, b, margin=margin, reduction=reduction),
              lambda a, b: TF.hinge_embedding_loss(a, b, margin=margin, reduction=reduction), [x, y], dt=dt)
    check(lambda a, b: lt.nn.HingeEmbeddingLoss(0.5, reduction=reduction)(a, b),
          lambda a, b: torch.nn.HingeEmbeddingLoss(0.5, reduction=reduction)(a, b), [x, y], dt=dt)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (True, True), (False, False), (False, True)])
def test_poisson_nll_loss(log_input, full, reduction):
    x = rnd(3, 4)
    if not log_input:
        x = np.abs(x) + 0.1
    t = np.floor(np.abs(rnd(3, 4, scale=3)))
    check(lambda a, b: LF.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction),
          lambda a, b: TF.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction), [x, t])
    check(lambda a, b: lt.nn.PoissonNLLLoss(log_input, full, reduction=reduction)(a, b),
          lambda a, b: torch.nn.PoissonNLLLoss(log_input, full, reduction=reduction)(a, b), [x, t])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(3, 4), (3,), (3, 1)])
def test_gaussian_nll_loss(var_shape, reduction):
    x, t = rnd(3, 4), rnd(3, 4)
    v = np.abs(rnd(*var_shape)) + 1e-3
    v.flat[0] = 1e-9  # clamped to eps, with the gradient passing through
    for full in (False, True):
        check(lambda a, b, c: LF.gaussian_nll_loss(a, b, c, full=full, reduction=reduction),
              lambda a, b, c: TF.gaussian_nll_loss(a, b, c, full=full, reduction=reduction), [x, t, v], grad=(0, 1, 2))
    check(lambda a, b, c: lt.nn.GaussianNLLLoss(reduction=reduction)(a, b, c),
          lambda a, b, c: torch.nn.GaussianNLLLoss(reduction=reduction)(a, b, c), [x, t, v], grad=(0, 2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.5, True), (1, 2.0, True)])
def test_multi_margin_loss(p, margin, weighted, reduction):
    x, t = rnd(3, 4), np.array([0, 3, 1])
    args = [x, t] + ([np.abs(rnd(4))] if weighted else [])

    def f(F):
        return lambda a, b, *w: F.multi_margin_loss(a, b, p=p, margin=margin, weight=w[0] if w else None,
                                                     reduction=reduction)
    check(f(LF), f(TF), args)
    check(lambda a, b: lt.nn.MultiMarginLoss(p, margin, reduction=reduction)(a, b),
          lambda a, b: torch.nn.MultiMarginLoss(p, margin, reduction=reduction)(a, b), [x, t])
    check(f(LF), f(TF), [x[0], t[1:2]] + args[2:])  # 1D input


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction):
    x = rnd(3, 4)
    t = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 2, 0, 0]])
    check(lambda a, b: LF.multilabel_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), [x, t])
    check(lambda a, b: lt.nn.MultiLabelMarginLoss(reduction=reduction)(a, b),
          lambda a, b: torch.nn.MultiLabelMarginLoss(reduction=reduction)(a, b), [x, t])
    check(lambda a, b: LF.multilabel_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), [x[0], np.array([2, 1, -1, 0])])


def test_loss_errors():
    z, zt = lt.zeros(3, 4), torch.zeros(3, 4)
    for f in ("soft_margin_loss", "multilabel_soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss"):
        raises_like(lambda: getattr(LF, f)(z, z, reduction="avg"), lambda: getattr(TF, f)(zt, zt, reduction="avg"))
    raises_like(lambda: LF.gaussian_nll_loss(z, z, lt.ones(3, 4), reduction="avg"),
                lambda: TF.gaussian_nll_loss(zt, zt, torch.ones(3, 4), reduction="avg"))
    raises_like(lambda: LF.gaussian_nll_loss(z, z, lt.ones(2, 4)),
                lambda: TF.gaussian_nll_loss(zt, zt, torch.ones(2, 4)), "var")
    raises_like(lambda: LF.gaussian_nll_loss(z, z, -lt.ones(3, 4)),
                lambda: TF.gaussian_nll_loss(zt, zt, -torch.ones(3, 4)), "negative")
    ti, tti = lt.zeros(3, dtype=lt.int64), torch.zeros(3, dtype=torch.int64)
    raises_like(lambda: LF.multi_margin_loss(z, ti, p=3), lambda: TF.multi_margin_loss(zt, tti, p=3), "p == 1")
    raises_like(lambda: LF.multi_margin_loss(z, lt.zeros(2, dtype=lt.int64)),
                lambda: TF.multi_margin_loss(zt, torch.zeros(2, dtype=torch.int64)), "multi_margin_loss")
    raises_like(lambda: LF.multilabel_margin_loss(z, lt.zeros(3, 3, dtype=lt.int64)),
                lambda: TF.multilabel_margin_loss(zt, torch.zeros(3, 3, dtype=torch.int64)), "multilabel_margin_loss")
    for f in ("soft_margin_loss", "multilabel_soft_margin_loss", "hinge_embedding_loss"):
        raises_like(lambda: getattr(LF, f)(z, lt.zeros(3, 5)), lambda: getattr(TF, f)(zt, torch.zeros(3, 5)), f)
    a, b = pair(np.random.randn(3, 4))  # a broadcast target, as torch
    c, d = pair(np.array([1.0, -1.0, 1.0, 1.0]))
    assert_same(LF.soft_margin_loss(a, c), TF.soft_margin_loss(b, d))


# ---------------------------------------------------------------- embedding_bag
W6 = np.random.RandomState(3).randn(6, 3)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_offsets(mode, padding_idx):
    inp, off = np.array([1, 2, 4, 5, 4, 3, 2, 0]), np.array([0, 2, 2, 5])  # bag 1 is empty
    check(lambda w, i, o: LF.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx),
          lambda w, i, o: TF.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx), [W6, inp, off])
    check(lambda w, i, o: LF.embedding_bag(i, w, o, mode=mode, include_last_offset=True),
          lambda w, i, o: TF.embedding_bag(i, w, o, mode=mode, include_last_offset=True),
          [W6, inp, np.array([0, 3, 3, 8])])
    check(lambda w, i: LF.embedding_bag(i, w, mode=mode, padding_idx=padding_idx),
          lambda w, i: TF.embedding_bag(i, w, mode=mode, padding_idx=padding_idx), [W6, inp.reshape(2, 4)])


def test_embedding_bag_per_sample_weights_and_module():
    inp, off, psw = np.array([1, 2, 4, 5, 4, 3]), np.array([0, 4]), rnd(6)
    check(lambda w, i, o, p: LF.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
          lambda w, i, o, p: TF.embedding_bag(i, w, o, mode="sum", per_sample_weights=p), [W6, inp, off, psw],
          grad=(0, 3))
    m_lt = lt.nn.EmbeddingBag.from_pretrained(lt.from_numpy(W6.copy()), freeze=False, mode="max")
    m_t = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(W6.copy()), freeze=False, mode="max")
    check(lambda i: m_lt(i), lambda i: m_t(i), [inp.reshape(3, 2)], grad=())
    m_lt(lt.from_numpy(inp.reshape(3, 2))).sum().backward()
    m_t(torch.from_numpy(inp.reshape(3, 2))).sum().backward()
    assert_same(m_lt.weight.grad, m_t.weight.grad)
    assert tuple(lt.nn.EmbeddingBag(10, 4).weight.shape) == (10, 4)


def test_embedding_bag_errors():
    w, wt = lt.from_numpy(W6), torch.from_numpy(W6)
    i2, i2t = lt.zeros(2, 3, dtype=lt.int64), torch.zeros(2, 3, dtype=torch.int64)
    o, ot = lt.zeros(2, dtype=lt.int64), torch.zeros(2, dtype=torch.int64)
    raises_like(lambda: LF.embedding_bag(i2, w, o), lambda: TF.embedding_bag(i2t, wt, ot), "offsets")
    raises_like(lambda: LF.embedding_bag(o, w), lambda: TF.embedding_bag(ot, wt), "offsets")
    raises_like(lambda: LF.embedding_bag(i2, w, mode="mean", per_sample_weights=lt.ones(2, 3)),
                lambda: TF.embedding_bag(i2t, wt, mode="mean", per_sample_weights=torch.ones(2, 3)), "per_sample")
    raises_like(lambda: LF.embedding_bag(i2, w, mode="prod"), lambda: TF.embedding_bag(i2t, wt, mode="prod"))
    raises_like(lambda: LF.embedding_bag(lt.zeros(2, 2, 2, dtype=lt.int64), w),
                lambda: TF.embedding_bag(torch.zeros(2, 2, 2, dtype=torch.int64), wt))


# ---------------------------------------------------------------- transposed convolution
CT2 = [dict(), dict(stride=2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0)),
       dict(stride=2, padding=1, output_padding=1, groups=2), dict(dilation=(2, 1), padding=(0, 1)),
       dict(stride=3, dilation=2, output_padding=(2, 1), groups=2)]


@pytest.mark.parametrize("kw", CT2)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose2d(kw, bias):
    g = kw.get("groups", 1)
    x, w = rnd(2, 4, 3, 2), rnd(4, 6 // g, 2, 3)
    args = [x, w] + ([rnd(6)] if bias else [])
    check(lambda a, b, *c: LF.conv_transpose2d(a, b, c[0] if c else None, **kw),
          lambda a, b, *c: TF.conv_transpose2d(a, b, c[0] if c else None, **kw), args, grad=tuple(range(len(args))))


@pytest.mark.parametrize("kw", [dict(), dict(stride=3, padding=1, output_padding=2), dict(groups=2, dilation=2),
                                dict(stride=2, groups=2, padding=2, output_padding=1)])
def test_conv_transpose1d(kw):
    g = kw.get("groups", 1)
    x, w, b = rnd(2, 4, 5), rnd(4, 6 // g, 3), rnd(6)
    check(lambda a, c, d: LF.conv_transpose1d(a, c, d, **kw), lambda a, c, d: TF.conv_transpose1d(a, c, d, **kw),
          [x, w, b], grad=(0, 1, 2))
    check(lambda a, c, d: LF.conv_transpose1d(a, c, d, **kw), lambda a, c, d: TF.conv_transpose1d(a, c, d, **kw),
          [x[0], w, b], grad=(0,))  # unbatched


@pytest.mark.parametrize("dt", DTYPES)
def test_conv_transpose_modules(dt):
    for nd, shape in ((1, (2, 4, 5)), (2, (1, 4, 3, 3))):
        name = "ConvTranspose{}d".format(nd)
        m_t = getattr(torch.nn, name)(4, 6, 3, stride=2, padding=1, groups=2)
        m_lt = getattr(lt.nn, name)(4, 6, 3, stride=2, padding=1, groups=2)
        assert tuple(m_lt.weight.shape) == tuple(m_t.weight.shape)
        assert tuple(m_lt.bias.shape) == tuple(m_t.bias.shape)
        if dt == np.float64:
            m_t, m_lt = m_t.double(), m_lt.double()
        m_lt.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in m_t.state_dict().items()})
        x = rnd(*shape, dt=dt)
        check(m_lt, m_t, [x], dt=dt)
        out = [s * 2 for s in shape[2:]]  # output_size picks output_padding = 1
        check(lambda a: m_lt(a, output_size=out), lambda a: m_t(a, output_size=out), [x], dt=dt)
        assert_same(m_lt.weight.grad, m_t.weight.grad, **_tol(dt))
        bound = 1 / np.sqrt(3 * 3 ** (nd - 1) * 3)  # fan_in = out_channels/groups * kernel
        assert np.abs(getattr(lt.nn, name)(4, 6, 3, groups=2).weight.detach().numpy()).max() <= bound


def test_conv_transpose_errors():
    x, xt = lt.zeros(1, 4, 3, 3), torch.zeros(1, 4, 3, 3)
    raises_like(lambda: LF.conv_transpose2d(x, lt.zeros(3, 2, 2, 2)),
                lambda: TF.conv_transpose2d(xt, torch.zeros(3, 2, 2, 2)), "conv_transpose2d")
    raises_like(lambda: LF.conv_transpose2d(x, lt.zeros(4, 2, 2, 2), stride=2, output_padding=2),
                lambda: TF.conv_transpose2d(xt, torch.zeros(4, 2, 2, 2), stride=2, output_padding=2), "output padding")
    raises_like(lambda: LF.conv_transpose2d(x, lt.zeros(4, 2, 2, 2), groups=3),
                lambda: TF.conv_transpose2d(xt, torch.zeros(4, 2, 2, 2), groups=3))
    raises_like(lambda: LF.conv_transpose1d(lt.zeros(2, 2, 2, 2), lt.zeros(2, 2, 2)),
                lambda: TF.conv_transpose1d(torch.zeros(2, 2, 2, 2), torch.zeros(2, 2, 2)))
    raises_like(lambda: lt.nn.ConvTranspose2d(3, 4, 2, groups=2), lambda: torch.nn.ConvTranspose2d(3, 4, 2, groups=2))


def test_stays_lazy():
    before = lt._C.pending_tensor_count()
    x = lt.from_numpy(rnd(1, 4, 2, 2))
    y = LF.pixel_shuffle(LF.selu(LF.conv_transpose2d(x, lt.from_numpy(rnd(4, 4, 2, 2)), stride=2)), 2)
    assert lt._C.pending_tensor_count() > before
    assert tuple(y.shape) == (1, 1, 8, 8)
