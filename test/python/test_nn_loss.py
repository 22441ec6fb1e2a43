"""Losses and distances (nn/_functional_loss.py, nn/_functional_distance.py, nn/modules/loss.py,
nn/modules/distance.py) vs PyTorch 1.13: values for each reduction, gradients and bad input."""
import math

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, assert_same, FLOAT_DTYPES, matches, pair, raises_as, REDUCTIONS, rnd, seeded

LF, TF = lt.nn.functional, torch.nn.functional


@pytest.mark.parametrize("s1,s2,kw", [
    ((4, 3), (4, 3), {}), ((2, 3, 2), (2, 3, 2), dict(dim=2)), ((4, 3), (3,), dict(dim=1)),
    ((4, 3), (4, 3), dict(dim=0, eps=0.5)),
])
def test_cosine_similarity(s1, s2, kw):
    agree(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, **kw), [seeded(*s1, seed=6), seeded(*s2, seed=7)])
    agree(lambda m, a, b: m.nn.CosineSimilarity(**kw)(a, b), [seeded(*s1, seed=6), seeded(*s2, seed=7)])


def test_cosine_similarity_small_norms_clamp_like_torch():
    # the clamped case: PyTorch's gradient divides by the clamped norm (eps); so does lazytensor's
    x1 = np.array([[1e-5, 0.0], [3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    x2 = np.array([[1e-5, 0.0], [1.0, 2.0], [1.0, 1.0]], dtype=np.float32)
    agree(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, eps=1e-4), [x1, x2])
    agree(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, eps=3.0), [x1, x2])


@pytest.mark.parametrize("p,keepdim", [(2.0, False), (1.0, True), (3.0, False), (math.inf, False), (0, False)])
def test_pairwise_distance(p, keepdim):
    a, b = seeded(4, 3, seed=8), seeded(4, 3, seed=9)
    agree(lambda m, x, y: m.nn.functional.pairwise_distance(x, y, p=p, keepdim=keepdim), [a, b],
          grad=p != 0)
    agree(lambda m, x, y: m.nn.PairwiseDistance(p, 1e-3, keepdim)(x, y), [a, b], grad=p != 0)


def test_pairwise_distance_shapes():
    agree(lambda m, x, y: m.nn.functional.pairwise_distance(x, y), [seeded(3, seed=1), seeded(3, seed=2)])
    agree(lambda m, x, y: m.nn.functional.pairwise_distance(x, y), [seeded(2, 3, seed=1), seeded(3, seed=2)])


@pytest.mark.parametrize("kw", [{}, dict(swap=True), dict(p=1, margin=0.5, reduction="sum"),
                                dict(reduction="none", eps=1e-3)])
def test_triplet_margin_loss(kw):
    a, p, n = seeded(5, 3, seed=10), seeded(5, 3, seed=11), seeded(5, 3, seed=12)
    agree(lambda m, x, y, z: m.nn.functional.triplet_margin_loss(x, y, z, **kw), [a, p, n])
    agree(lambda m, x, y, z: m.nn.TripletMarginLoss(**kw)(x, y, z), [a, p, n])


@pytest.mark.parametrize("kw", [{}, dict(margin=0.3), dict(reduction="sum"), dict(reduction="none", margin=-0.2)])
def test_margin_ranking_loss(kw):
    x1, x2 = seeded(6, seed=13), seeded(6, seed=14)
    y = np.array([1, -1, 1, 1, -1, -1], dtype=np.float32)
    agree(lambda m, a, b, c: m.nn.functional.margin_ranking_loss(a, b, c, **kw), [x1, x2, y])
    agree(lambda m, a, b, c: m.nn.MarginRankingLoss(**kw)(a, b, c), [x1, x2, y])


@pytest.mark.parametrize("kw", [{}, dict(margin=0.2), dict(reduction="sum"), dict(reduction="none", margin=-0.5)])
def test_cosine_embedding_loss(kw):
    x1, x2 = seeded(5, 3, seed=15), seeded(5, 3, seed=16)
    y = np.array([1, -1, 1, -1, -1], dtype=np.float32)
    agree(lambda m, a, b, c: m.nn.functional.cosine_embedding_loss(a, b, c, **kw), [x1, x2, y])
    agree(lambda m, a, b, c: m.nn.CosineEmbeddingLoss(**kw)(a, b, c), [x1, x2, y])
    agree(lambda m, a, b: m.nn.functional.cosine_embedding_loss(a, b, m.tensor(-1), **kw),
          [seeded(3, seed=1), seeded(3, seed=2)])


@pytest.mark.parametrize("kw", [{}, dict(delta=0.5), dict(reduction="sum", delta=2.0), dict(reduction="none")])
def test_huber_loss(kw):
    x = np.array([0.0, 0.5, 1.0, -1.0, 2.0, -3.0], dtype=np.float32)
    t = np.array([0.0, 0.0, 0.0, 0.0, 0.5, 0.0], dtype=np.float32)
    agree(lambda m, a, b: m.nn.functional.huber_loss(a, b, **kw), [x, t])
    agree(lambda m, a, b: m.nn.HuberLoss(**kw)(a, b), [x, t])


def _sign(*shape):
    return np.where(np.random.rand(*shape) > 0.5, 1.0, -1.0)


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_simple_losses(reduction, dt):
    x, y = rnd(3, 4, dt=dt), _sign(3, 4).astype(dt)
    matches(lambda a, b: LF.soft_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.soft_margin_loss(a, b, reduction=reduction), [x, y], dt=dt)
    matches(lambda a, b: lt.nn.SoftMarginLoss(reduction=reduction)(a, b),
          lambda a, b: torch.nn.SoftMarginLoss(reduction=reduction)(a, b), [x, y], dt=dt)
    t01 = (y > 0).astype(dt)
    w = np.abs(rnd(4, dt=dt))
    matches(lambda a, b, c: LF.multilabel_soft_margin_loss(a, b, weight=c, reduction=reduction),
          lambda a, b, c: TF.multilabel_soft_margin_loss(a, b, weight=c, reduction=reduction), [x, t01, w], dt=dt)
    matches(lambda a, b: lt.nn.MultiLabelSoftMarginLoss(reduction=reduction)(a, b),
          lambda a, b: torch.nn.MultiLabelSoftMarginLoss(reduction=reduction)(a, b), [x, t01], dt=dt)
    for margin in (1.0, 0.3):
        matches(lambda a, b: LF.hinge_embedding_loss(a, b, margin=margin, reduction=reduction),
              lambda a, b: TF.hinge_embedding_loss(a, b, margin=margin, reduction=reduction), [x, y], dt=dt)
    matches(lambda a, b: lt.nn.HingeEmbeddingLoss(0.5, reduction=reduction)(a, b),
          lambda a, b: torch.nn.HingeEmbeddingLoss(0.5, reduction=reduction)(a, b), [x, y], dt=dt)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (True, True), (False, False), (False, True)])
def test_poisson_nll_loss(log_input, full, reduction):
    x = rnd(3, 4)
    if not log_input:
        x = np.abs(x) + 0.1
    t = np.floor(np.abs(rnd(3, 4, scale=3)))
    matches(lambda a, b: LF.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction),
          lambda a, b: TF.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction), [x, t])
    matches(lambda a, b: lt.nn.PoissonNLLLoss(log_input, full, reduction=reduction)(a, b),
          lambda a, b: torch.nn.PoissonNLLLoss(log_input, full, reduction=reduction)(a, b), [x, t])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(3, 4), (3,), (3, 1)])
def test_gaussian_nll_loss(var_shape, reduction):
    x, t = rnd(3, 4), rnd(3, 4)
    v = np.abs(rnd(*var_shape)) + 1e-3
    v.flat[0] = 1e-9  # clamped to eps, with the gradient passing through
    for full in (False, True):
        matches(lambda a, b, c: LF.gaussian_nll_loss(a, b, c, full=full, reduction=reduction),
              lambda a, b, c: TF.gaussian_nll_loss(a, b, c, full=full, reduction=reduction), [x, t, v], grad=(0, 1, 2))
    matches(lambda a, b, c: lt.nn.GaussianNLLLoss(reduction=reduction)(a, b, c),
          lambda a, b, c: torch.nn.GaussianNLLLoss(reduction=reduction)(a, b, c), [x, t, v], grad=(0, 2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.5, True), (1, 2.0, True)])
def test_multi_margin_loss(p, margin, weighted, reduction):
    x, t = rnd(3, 4), np.array([0, 3, 1])
    args = [x, t] + ([np.abs(rnd(4))] if weighted else [])

    def f(F):
        return lambda a, b, *w: F.multi_margin_loss(a, b, p=p, margin=margin, weight=w[0] if w else None,
                                                     reduction=reduction)
    matches(f(LF), f(TF), args)
    matches(lambda a, b: lt.nn.MultiMarginLoss(p, margin, reduction=reduction)(a, b),
          lambda a, b: torch.nn.MultiMarginLoss(p, margin, reduction=reduction)(a, b), [x, t])
    matches(f(LF), f(TF), [x[0], t[1:2]] + args[2:])  # 1D input


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction):
    x = rnd(3, 4)
    t = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 2, 0, 0]])
    matches(lambda a, b: LF.multilabel_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), [x, t])
    matches(lambda a, b: lt.nn.MultiLabelMarginLoss(reduction=reduction)(a, b),
          lambda a, b: torch.nn.MultiLabelMarginLoss(reduction=reduction)(a, b), [x, t])
    matches(lambda a, b: LF.multilabel_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), [x[0], np.array([2, 1, -1, 0])])


def test_loss_errors():
    z, zt = lt.zeros(3, 4), torch.zeros(3, 4)
    for f in ("soft_margin_loss", "multilabel_soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss"):
        raises_as(lambda: getattr(LF, f)(z, z, reduction="avg"), lambda: getattr(TF, f)(zt, zt, reduction="avg"))
    raises_as(lambda: LF.gaussian_nll_loss(z, z, lt.ones(3, 4), reduction="avg"),
                lambda: TF.gaussian_nll_loss(zt, zt, torch.ones(3, 4), reduction="avg"))
    raises_as(lambda: LF.gaussian_nll_loss(z, z, lt.ones(2, 4)),
                lambda: TF.gaussian_nll_loss(zt, zt, torch.ones(2, 4)), "var")
    raises_as(lambda: LF.gaussian_nll_loss(z, z, -lt.ones(3, 4)),
                lambda: TF.gaussian_nll_loss(zt, zt, -torch.ones(3, 4)), "negative")
    ti, tti = lt.zeros(3, dtype=lt.int64), torch.zeros(3, dtype=torch.int64)
    raises_as(lambda: LF.multi_margin_loss(z, ti, p=3), lambda: TF.multi_margin_loss(zt, tti, p=3), "p == 1")
    raises_as(lambda: LF.multi_margin_loss(z, lt.zeros(2, dtype=lt.int64)),
                lambda: TF.multi_margin_loss(zt, torch.zeros(2, dtype=torch.int64)), "multi_margin_loss")
    raises_as(lambda: LF.multilabel_margin_loss(z, lt.zeros(3, 3, dtype=lt.int64)),
                lambda: TF.multilabel_margin_loss(zt, torch.zeros(3, 3, dtype=torch.int64)), "multilabel_margin_loss")
    for f in ("soft_margin_loss", "multilabel_soft_margin_loss", "hinge_embedding_loss"):
        raises_as(lambda: getattr(LF, f)(z, lt.zeros(3, 5)), lambda: getattr(TF, f)(zt, torch.zeros(3, 5)), f)
    a, b = pair(np.random.randn(3, 4))  # a broadcast target, as torch
    c, d = pair(np.array([1.0, -1.0, 1.0, 1.0]))
    assert_same(LF.soft_margin_loss(a, c), TF.soft_margin_loss(b, d))


# A class target out of range raises PyTorch's IndexError "Target N is out of bounds." when anything computed
# from it is materialised: the loss, or only a gradient (whose one-hot where(iota == target) has no bound of its
# own). The ignore_index is exempt, as in PyTorch.
BAD_TARGETS = [
    ("cross_entropy", {}, (2, 3), [0, 3]), ("nll_loss", {}, (2, 3), [0, -1]),
    ("cross_entropy", dict(reduction="none"), (2, 3), [5, 0]),
    ("cross_entropy", dict(weight=True), (2, 3), [0, 3]), ("nll_loss", dict(weight=True), (2, 3), [3, 0]),
    ("cross_entropy", dict(label_smoothing=0.1), (2, 3), [0, 3]),
    ("cross_entropy", {}, (2, 3, 4), [[0, 3, 1, 1], [0, 0, 0, 0]]), ("cross_entropy", {}, (3,), 5),
]


def _bad_target_call(fn, kw, m, x, t):
    kw = dict(kw)
    if kw.pop("weight", False):
        kw["weight"] = m.ones(x.shape[1 if x.dim() > 1 else 0], dtype=x.dtype)
    return getattr(m.nn.functional, fn)(x, t, **kw)


@pytest.mark.parametrize("fn,kw,shape,target", BAD_TARGETS, ids=str)
def test_class_target_out_of_range_raises_index_error(fn, kw, shape, target):
    x = np.random.randn(*shape).astype(np.float32)
    with pytest.raises(IndexError) as want:
        _bad_target_call(fn, kw, torch, torch.from_numpy(x), torch.tensor(target))
    with pytest.raises(IndexError) as got:
        _bad_target_call(fn, kw, lt, lt.from_numpy(x), lt.tensor(target)).numpy()
    assert str(want.value) in str(got.value)  # "Target 3 is out of bounds."


@pytest.mark.parametrize("fn,kw,shape,target", BAD_TARGETS, ids=str)
def test_class_target_out_of_range_raises_for_the_gradient_alone(fn, kw, shape, target):
    x = lt.from_numpy(np.random.randn(*shape).astype(np.float32)).requires_grad_(True)
    loss = _bad_target_call(fn, kw, lt, x, lt.tensor(target))
    loss.sum().backward()
    with pytest.raises(IndexError, match="is out of bounds"):
        x.grad.numpy()


def test_ignored_class_target_may_be_out_of_range():
    a, b = pair(np.random.randn(2, 3).astype(np.float32), requires_grad=True)
    la = LF.cross_entropy(a, lt.tensor([1, -100]))
    tb = TF.cross_entropy(b, torch.tensor([1, -100]))
    assert_same(la, tb)
    la.backward()
    tb.backward()
    assert_same(a.grad, b.grad)
