"""Session-5 nn modules / functional ops and torch.* functions against PyTorch 1.13: values, dtypes,
shapes, gradients and the exception type for bad input."""
import math
import warnings

import numpy as np
import pytest

import lazytensor as lt
import torch
from conftest import assert_same

LF, TF = lt.nn.functional, torch.nn.functional


def _arr(*shape, scale=1.0, dtype=np.float32, seed=None):
    rng = np.random.RandomState(seed if seed is not None else (hash(shape) % 1000))
    return (rng.randn(*shape) * scale).astype(dtype)


def _both(arrays, grad):
    ls, ts = [], []
    for a in arrays:
        if isinstance(a, np.ndarray):
            l, t = lt.from_numpy(a.copy()), torch.from_numpy(a.copy())
            if grad and a.dtype.kind == "f":
                l.requires_grad_(True)
                t.requires_grad_(True)
            ls.append(l)
            ts.append(t)
        else:
            ls.append(a)
            ts.append(a)
    return ls, ts


def check(f, arrays, grad=True, rtol=1e-5, atol=1e-6, grad_rtol=1e-4, grad_atol=1e-5):
    """f(mod, *tensors) built on lt and on torch: same values/dtype/shape and same gradients."""
    ls, ts = _both(arrays, grad)
    out_l, out_t = f(lt, *ls), f(torch, *ts)
    assert_same(out_l, out_t, rtol=rtol, atol=atol)
    if not grad:
        return out_l
    outs_l = out_l if isinstance(out_l, (tuple, list)) else (out_l,)
    outs_t = out_t if isinstance(out_t, (tuple, list)) else (out_t,)
    loss_l, loss_t = 0, 0
    for i, (ol, ot) in enumerate(zip(outs_l, outs_t)):
        if not ot.dtype.is_floating_point or not ot.requires_grad:
            continue
        w = _arr(*tuple(ot.shape), seed=i + 7) if ot.dim() else np.float32(1.5)
        loss_l = loss_l + (ol * lt.from_numpy(np.asarray(w, dtype=np.float32).copy()).to(ol.dtype)).sum()
        loss_t = loss_t + (ot * torch.from_numpy(np.asarray(w, dtype=np.float32).copy()).to(ot.dtype)).sum()
    if isinstance(loss_t, int):
        return out_l
    loss_l.backward()
    loss_t.backward()
    n = 0
    for l, t in zip(ls, ts):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert (l.grad is None) == (t.grad is None)
            if t.grad is not None:
                np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=grad_rtol, atol=grad_atol)
                n += 1
    return out_l


BOUNDARY = np.array([-4., -3., -1.5, -1., -0.5, 0., 0.5, 1., 1.5, 3., 4., 30., -30.], dtype=np.float32)


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("name,kw", [
    ("hardswish", {}), ("hardtanh", {}), ("hardtanh", dict(min_val=-0.5, max_val=1.5)),
    ("threshold", dict(threshold=0.5, value=-2.0)), ("logsigmoid", {}), ("softsign", {}), ("tanhshrink", {}),
    ("softmin", dict(dim=0)),
])
def test_activation_functional(name, kw):
    x = np.concatenate([BOUNDARY, _arr(7, seed=1)])
    check(lambda m, a: getattr(m.nn.functional, name)(a, **kw), [x])


@pytest.mark.parametrize("mod,args", [
    ("Hardswish", ()), ("Hardtanh", (-2.0, 0.5)), ("Threshold", (0.1, 20.0)), ("GLU", (0,)), ("Softmin", (1,)),
    ("LogSigmoid", ()), ("Softsign", ()), ("Tanhshrink", ()),
])
def test_activation_modules(mod, args):
    x = _arr(4, 3, scale=2.0, seed=2)
    check(lambda m, a: getattr(m.nn, mod)(*args)(a), [x])
    assert repr(getattr(lt.nn, mod)(*args)) == repr(getattr(torch.nn, mod)(*args))


def test_activation_int_and_inplace():
    i = np.arange(-3, 4).astype(np.int64)
    check(lambda m, a: m.nn.functional.hardtanh(a), [i], grad=False)
    check(lambda m, a: m.nn.functional.threshold(a, 1, 10), [i], grad=False)
    check(lambda m, a: m.nn.functional.softsign(a), [i], grad=False)
    check(lambda m, a: m.nn.functional.tanhshrink(a), [i], grad=False)
    for name in ("hardswish", "hardtanh", "threshold"):
        args = (0.2, 5.0) if name == "threshold" else ()
        a, b = lt.from_numpy(BOUNDARY.copy()), torch.from_numpy(BOUNDARY.copy())
        ra = getattr(LF, name)(a, *args, inplace=True)
        rb = getattr(TF, name)(b, *args, inplace=True)
        assert ra is a
        assert_same(a, b)
        assert_same(ra, rb)


@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1)])
def test_glu(shape, dim):
    check(lambda m, a: m.nn.functional.glu(a, dim), [_arr(*shape, seed=3)])


@pytest.mark.parametrize("shape,nw", [((3, 4), 1), ((3, 4), 4), ((2, 3, 2, 2), 3), ((5,), 1), ((), 1)])
def test_prelu(shape, nw):
    x = np.concatenate([[0.0, -1.0], _arr(40, seed=4)]).astype(np.float32)[:int(np.prod(shape))].reshape(shape)
    w = np.linspace(0.1, 0.5, nw).astype(np.float32)
    check(lambda m, a, b: m.nn.functional.prelu(a, b), [x, w])


def test_prelu_module():
    x = _arr(3, 2, 4, seed=5)
    for n in (1, 2):
        lm, tm = lt.nn.PReLU(n, init=0.1), torch.nn.PReLU(n, init=0.1)
        assert repr(lm) == repr(tm)
        assert [k for k, _ in lm.named_parameters()] == ["weight"]
        check(lambda m, a: (lm if m is lt else tm)(a), [x])
        np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- distances and losses
@pytest.mark.parametrize("s1,s2,kw", [
    ((4, 3), (4, 3), {}), ((2, 3, 2), (2, 3, 2), dict(dim=2)), ((4, 3), (3,), dict(dim=1)),
    ((4, 3), (4, 3), dict(dim=0, eps=0.5)),
])
def test_cosine_similarity(s1, s2, kw):
    check(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, **kw), [_arr(*s1, seed=6), _arr(*s2, seed=7)])
    check(lambda m, a, b: m.nn.CosineSimilarity(**kw)(a, b), [_arr(*s1, seed=6), _arr(*s2, seed=7)])


def test_cosine_similarity_small_norms_clamp_like_torch():
    # the clamped case: PyTorch's gradient divides by the clamped norm (eps); so does lazytensor's
    x1 = np.array([[1e-5, 0.0], [3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    x2 = np.array([[1e-5, 0.0], [1.0, 2.0], [1.0, 1.0]], dtype=np.float32)
    check(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, eps=1e-4), [x1, x2])
    check(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, eps=3.0), [x1, x2])


@pytest.mark.parametrize("p,keepdim", [(2.0, False), (1.0, True), (3.0, False), (math.inf, False), (0, False)])
def test_pairwise_distance(p, keepdim):
    a, b = _arr(4, 3, seed=8), _arr(4, 3, seed=9)
    check(lambda m, x, y: m.nn.functional.pairwise_distance(x, y, p=p, keepdim=keepdim), [a, b],
          grad=p != 0)
    check(lambda m, x, y: m.nn.PairwiseDistance(p, 1e-3, keepdim)(x, y), [a, b], grad=p != 0)


def test_pairwise_distance_shapes():
    check(lambda m, x, y: m.nn.functional.pairwise_distance(x, y), [_arr(3, seed=1), _arr(3, seed=2)])
    check(lambda m, x, y: m.nn.functional.pairwise_distance(x, y), [_arr(2, 3, seed=1), _arr(3, seed=2)])


@pytest.mark.parametrize("kw", [{}, dict(swap=True), dict(p=1, margin=0.5, reduction="sum"),
                                dict(reduction="none", eps=1e-3)])
def test_triplet_margin_loss(kw):
    a, p, n = _arr(5, 3, seed=10), _arr(5, 3, seed=11), _arr(5, 3, seed=12)
    check(lambda m, x, y, z: m.nn.functional.triplet_margin_loss(x, y, z, **kw), [a, p, n])
    check(lambda m, x, y, z: m.nn.TripletMarginLoss(**kw)(x, y, z), [a, p, n])


@pytest.mark.parametrize("kw", [{}, dict(margin=0.3), dict(reduction="sum"), dict(reduction="none", margin=-0.2)])
def test_margin_ranking_loss(kw):
    x1, x2 = _arr(6, seed=13), _arr(6, seed=14)
    y = np.array([1, -1, 1, 1, -1, -1], dtype=np.float32)
    check(lambda m, a, b, c: m.nn.functional.margin_ranking_loss(a, b, c, **kw), [x1, x2, y])
    check(lambda m, a, b, c: m.nn.MarginRankingLoss(**kw)(a, b, c), [x1, x2, y])


@pytest.mark.parametrize("kw", [{}, dict(margin=0.2), dict(reduction="sum"), dict(reduction="none", margin=-0.5)])
def test_cosine_embedding_loss(kw):
    x1, x2 = _arr(5, 3, seed=15), _arr(5, 3, seed=16)
    y = np.array([1, -1, 1, -1, -1], dtype=np.float32)
    check(lambda m, a, b, c: m.nn.functional.cosine_embedding_loss(a, b, c, **kw), [x1, x2, y])
    check(lambda m, a, b, c: m.nn.CosineEmbeddingLoss(**kw)(a, b, c), [x1, x2, y])
    check(lambda m, a, b: m.nn.functional.cosine_embedding_loss(a, b, m.tensor(-1), **kw),
          [_arr(3, seed=1), _arr(3, seed=2)])


@pytest.mark.parametrize("kw", [{}, dict(delta=0.5), dict(reduction="sum", delta=2.0), dict(reduction="none")])
def test_huber_loss(kw):
    x = np.array([0.0, 0.5, 1.0, -1.0, 2.0, -3.0], dtype=np.float32)
    t = np.array([0.0, 0.0, 0.0, 0.0, 0.5, 0.0], dtype=np.float32)
    check(lambda m, a, b: m.nn.functional.huber_loss(a, b, **kw), [x, t])
    check(lambda m, a, b: m.nn.HuberLoss(**kw)(a, b), [x, t])


@pytest.mark.parametrize("pad,shape", [(1, (1, 2, 3)), ((1, 2, 0, 3), (2, 3, 4)), ((1, -1, 2, 0), (1, 2, 3)),
                                       ((1, 2), (2, 3))])
def test_zero_pad2d(pad, shape):
    check(lambda m, a: m.nn.ZeroPad2d(pad)(a), [_arr(*shape, seed=17)])
    assert repr(lt.nn.ZeroPad2d(pad)) == repr(torch.nn.ZeroPad2d(pad))


def test_parameter_dict():
    w = np.ones((2, 2), np.float32)
    ld = lt.nn.ParameterDict({"b": lt.from_numpy(w), "a": lt.nn.Parameter(lt.zeros(3))})
    td = torch.nn.ParameterDict({"b": torch.from_numpy(w), "a": torch.nn.Parameter(torch.zeros(3))})
    assert list(ld.keys()) == list(td.keys()) == ["a", "b"]  # a plain dict is taken in sorted order
    assert isinstance(ld["b"], lt.nn.Parameter) and ld["b"].requires_grad
    assert [k for k, _ in ld.named_parameters()] == [k for k, _ in td.named_parameters()]
    ld["c"] = lt.ones(1)
    td["c"] = torch.ones(1)
    ld.update([("d", lt.ones(2))])
    td.update([("d", torch.ones(2))])
    assert list(ld) == list(td) and len(ld) == len(td) == 4 and "c" in ld and "z" not in ld
    assert repr(ld) == repr(td)
    assert ld.pop("c").shape == (1,) and "c" not in ld and ld.get("c") is None
    assert ld.setdefault("e", lt.ones(1)) is ld["e"]
    assert sorted(ld.state_dict()) == ["a", "b", "d", "e"]
    k, v = ld.popitem()
    assert k == "e"
    m = lt.nn.Module()
    m.pd = ld
    assert [n for n, _ in m.named_parameters()] == ["pd.a", "pd.b", "pd.d"]
    assert list((ld | lt.nn.ParameterDict({"z": lt.ones(1)})).keys()) == ["a", "b", "d", "z"]
    ld.clear()
    assert len(ld) == 0 and list(ld.parameters()) == []
    with pytest.raises(TypeError):
        ld[1] = lt.ones(1)
    with pytest.raises(TypeError):
        td[1] = torch.ones(1)
    with pytest.raises(ValueError):
        ld.update([("a", lt.ones(1), 3)])
    with pytest.raises(RuntimeError):
        ld(lt.ones(1))


def test_parameter_dict_trains():
    ld = lt.nn.ParameterDict({"w": lt.ones(3)})
    opt = lt.optim.SGD(ld.parameters(), lr=0.5)
    (ld["w"] * lt.tensor([1.0, 2.0, 3.0])).sum().backward()
    opt.step()
    np.testing.assert_allclose(ld["w"].detach().numpy(), [0.5, 0.0, -0.5])


# ---------------------------------------------------------------- torch.* functions
def test_addmm_family():
    check(lambda m, i, a, b: m.addmm(i, a, b), [_arr(2, 4, seed=1), _arr(2, 3, seed=2), _arr(3, 4, seed=3)])
    check(lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=2.0), [_arr(4, seed=1), _arr(2, 3, seed=2),
                                                                      _arr(3, 4, seed=3)])
    check(lambda m, i, a, b: i.addmm(a, b, beta=0), [np.full((2, 4), np.nan, np.float32), _arr(2, 3, seed=2),
                                                      _arr(3, 4, seed=3)])
    ii = lambda *s: np.arange(int(np.prod(s))).reshape(s).astype(np.int64) - 3  # noqa: E731
    check(lambda m, i, a, b: m.addmm(i, a, b, alpha=2, beta=3), [ii(2, 4), ii(2, 3), ii(3, 4)], grad=False)
    # integer tensors: float alpha/beta are truncated toward zero, as in PyTorch 1.13
    check(lambda m, i, a, b: m.addmm(i, a, b, alpha=-1.7, beta=0.5), [ii(2, 4), ii(2, 3), ii(3, 4)], grad=False)
    check(lambda m, i, a, b: m.addmv(i, a, b, alpha=2.5, beta=1.5), [ii(2), ii(2, 3), ii(3)], grad=False)
    check(lambda m, i, a, b: m.baddbmm(i, a, b, alpha=0.5), [_arr(2, 2, 4, seed=4), _arr(2, 2, 3, seed=5),
                                                              _arr(2, 3, 4, seed=6)])
    check(lambda m, i, a, b: i.baddbmm(a, b, beta=2.0), [_arr(1, 4, seed=4), _arr(2, 2, 3, seed=5),
                                                          _arr(2, 3, 4, seed=6)])
    check(lambda m, i, a, b: m.addbmm(i, a, b, beta=0.5), [_arr(2, 4, seed=7), _arr(3, 2, 3, seed=8),
                                                            _arr(3, 3, 4, seed=9)])
    check(lambda m, i, a, b: m.addmv(i, a, b, alpha=-1.0), [_arr(2, seed=10), _arr(2, 3, seed=11), _arr(3, seed=12)])
    check(lambda m, a, b: m.mv(a, b), [_arr(2, 3, seed=11), _arr(3, seed=12)])
    check(lambda m, a, b: a.mv(b), [_arr(2, 3, seed=11), _arr(3, seed=12)])


def test_clone_trunc_frac():
    x = np.array([-2.5, -1.0, -0.5, 0.0, 0.5, 1.7, 3.0, -0.0], dtype=np.float32)
    check(lambda m, a: m.clone(a), [x])
    check(lambda m, a: m.trunc(a), [x])
    check(lambda m, a: a.trunc() * 2 + a.fix(), [x])
    check(lambda m, a: m.frac(a), [x])
    check(lambda m, a: m.trunc(a), [np.arange(-3, 3)], grad=False)
    a = lt.from_numpy(x.copy())
    a.trunc_()
    assert_same(a, torch.from_numpy(x.copy()).trunc_())
    c = lt.clone(a)
    c.add_(1)
    assert_same(a, torch.from_numpy(x.copy()).trunc_())  # the clone is a copy


def test_fmod():
    x = np.array([-7.5, -5.0, -3.2, -0.0, 0.0, 1.1, 4.5, 7.0, 1e6 + 0.3], dtype=np.float32)
    y = np.array([2.0, 3.0, -1.5, 2.0, 2.0, 0.3, -2.0, 0.1, 0.7], dtype=np.float32)
    # float32 fmod is exact (computed in float64): compare bit for bit
    check(lambda m, a, b: m.fmod(a, b), [x, y], rtol=0, atol=0)
    check(lambda m, a: m.fmod(a, 2.5), [x], rtol=0, atol=0)
    check(lambda m, a, b: a.fmod(b), [x.astype(np.float64), y.astype(np.float64)], rtol=1e-12, atol=0)
    ix = np.arange(-7, 8).astype(np.int64)
    check(lambda m, a: m.fmod(a, 3), [ix], grad=False)
    check(lambda m, a: m.fmod(a, -4), [ix.astype(np.int32)], grad=False)
    check(lambda m, a: m.fmod(a, 2.5), [ix], grad=False)
    check(lambda m, a, b: m.fmod(a, b), [ix, np.array([3], np.int32)], grad=False)


def test_fmod_zero_sign_and_grad_quotient():
    x = np.array([-4.0, 4.0, -0.0, 0.0, -6.0], dtype=np.float32)
    y = np.array([2.0, -2.0, 3.0, -3.0, 1.5], dtype=np.float32)
    r = lt.fmod(lt.from_numpy(x), lt.from_numpy(y)).numpy()
    want = torch.fmod(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    assert np.array_equal(np.signbit(r), np.signbit(want)) and np.array_equal(r, want)
    # the gradient for other uses trunc(input / other) in float32, as PyTorch: 7 / 0.1f rounds to 70
    a, b = lt.tensor([7.0]), lt.tensor([0.1], requires_grad=True)
    lt.fmod(a, b).sum().backward()
    assert b.grad.tolist() == [-70.0]


def test_integer_floor_divide_and_remainder_exact_above_2_pow_24():
    # found while adding fmod: int // int divided in float32 and rounded large quotients
    x = np.array([123456789, -123456789, 2 ** 40 + 7, 17, -17], np.int64)
    check(lambda m, a: a // 10, [x], grad=False)
    check(lambda m, a: m.remainder(a, 10), [x], grad=False)
    check(lambda m, a: m.floor_divide(a, a.new_tensor([7, -7, 3, 5, 5])), [x], grad=False)
    check(lambda m, a: a % -3, [x.astype(np.int32) // 16], grad=False)


def test_float_remainder_follows_torch():
    # found while adding fmod: a - floor(a/b)*b in float32 gave 7 % 0.1 == 0 (PyTorch: 0.09999990)
    x = np.array([7.0, -7.0, 1e6 + 0.3, 5.5, -5.5, 0.0, -4.0, 3.0], dtype=np.float32)
    y = np.array([0.1, 0.1, 0.7, -2.0, -2.0, 3.0, 2.0, 1.5], dtype=np.float32)
    check(lambda m, a, b: m.remainder(a, b), [x, y], rtol=0, atol=0)
    check(lambda m, a: a % -1.5, [x], rtol=0, atol=0)
    check(lambda m, a: 2.5 % a, [y], rtol=1e-6, atol=0, grad=False)  # PyTorch has no gradient for this form
    check(lambda m, a, b: a % b, [x.astype(np.float64), y.astype(np.float64)], rtol=1e-12, atol=0)


@pytest.mark.parametrize("p", [2, "fro", 3.0, 0, -math.inf])
def test_norm_zero_vector_and_p0(p):
    # found while adding cdist: norm(0) raised ZeroDivisionError; the 2-norm's gradient at a zero vector
    # was NaN (PyTorch: 0), so F.normalize of a zero row poisoned the gradients
    x = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], dtype=np.float32)
    check(lambda m, a: a.norm(p, dim=1), [x], grad=p not in (0, -math.inf))
    if p in (2, "fro"):
        check(lambda m, a: m.nn.functional.normalize(a, dim=1), [x])
        check(lambda m, a: a.norm(), [np.zeros(3, np.float32)])


def test_isclose_inf_and_equal_nan():
    # found on the way: equal_nan was ignored and inf was not close to inf
    a = np.array([1.0, np.inf, -np.inf, np.nan, 1.0, np.nan, 1e-9], np.float32)
    b = np.array([1.0 + 1e-6, np.inf, np.inf, np.nan, 2.0, 1.0, 0.0], np.float32)
    for eq in (False, True):
        check(lambda m, x, y: m.isclose(x, y, equal_nan=eq), [a, b], grad=False)
    check(lambda m, x, y: m.isclose(x, y, atol=1), [np.arange(5), np.arange(5)[::-1].copy()], grad=False)


def test_logical_xor():
    a = np.array([0, 1, 2, 0, -1], np.int64)
    b = np.array([0.0, 0.0, 1.5, 2.0, 1.0], np.float32)
    check(lambda m, x, y: m.logical_xor(x, y), [a, b], grad=False)
    check(lambda m, x, y: (x > 0).logical_xor(y > 0), [a, b], grad=False)


@pytest.mark.parametrize("kw", [{}, dict(n=2), dict(dim=0), dict(n=3, dim=1), dict(n=0)])
def test_diff(kw):
    check(lambda m, a: m.diff(a, **kw), [_arr(3, 5, seed=20)])


def test_diff_prepend_append_bool_int():
    check(lambda m, a, p, q: m.diff(a, dim=0, prepend=p, append=q), [_arr(3, 2, seed=1), _arr(1, 2, seed=2),
                                                                     _arr(2, 2, seed=3)])
    check(lambda m, a, q: a.diff(n=2, append=q), [_arr(4, seed=1), _arr(1, seed=3)])
    check(lambda m, a: m.diff(a > 0), [_arr(6, seed=4)], grad=False)
    check(lambda m, a: m.diff(a, n=2), [np.array([1, 4, 9, 16, 25], np.int32)], grad=False)
    check(lambda m, a: m.diff(a, n=7), [_arr(4, seed=4)])


@pytest.mark.parametrize("shifts,dims", [(2, None), (-1, 0), ((1, -2), (0, 1)), (7, 1), (0, 1)])
def test_roll(shifts, dims):
    check(lambda m, a: m.roll(a, shifts, dims), [_arr(3, 4, seed=21)])
    check(lambda m, a: a.roll(shifts, dims), [np.arange(12).reshape(3, 4)], grad=False)


def test_tile_movedim_kron():
    check(lambda m, a: m.tile(a, (2,)), [_arr(2, 3, seed=1)])
    check(lambda m, a: m.tile(a, (2, 1, 3)), [_arr(2, 3, seed=1)])
    check(lambda m, a: a.tile((3, 2)), [_arr(2, seed=1)])
    check(lambda m, a: m.movedim(a, 0, 2), [_arr(2, 3, 4, seed=2)])
    check(lambda m, a: m.movedim(a, (0, 2), (2, 0)) * 1, [_arr(2, 3, 4, seed=2)])
    check(lambda m, a: m.moveaxis(a, (-1, 0), (0, 1)), [_arr(2, 3, 4, seed=2)])
    check(lambda m, a: a.movedim(1, -1), [_arr(2, 3, 4, seed=2)])
    check(lambda m, a, b: m.kron(a, b), [_arr(2, 3, seed=3), _arr(2, 2, seed=4)])
    check(lambda m, a, b: m.kron(a, b), [_arr(2, seed=3), _arr(3, 2, seed=4)])
    check(lambda m, a, b: a.kron(b), [np.arange(4).reshape(2, 2), np.array([1, -1], np.int32)], grad=False)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    check(lambda m, a, b, c: m.meshgrid(a, b, c, indexing=indexing),
          [_arr(2, seed=1), _arr(3, seed=2), _arr(4, seed=3)])
    check(lambda m, a, b: m.meshgrid([a, b], indexing=indexing), [_arr(2, seed=1), np.array(3.0, np.float32)])
    check(lambda m, a: m.meshgrid(a, indexing=indexing), [np.arange(3)], grad=False)


def test_meshgrid_default_warns_like_torch():
    for m in (lt, torch):
        with pytest.warns(UserWarning, match="indexing"):
            out = m.meshgrid(m.arange(2), m.arange(3))
        assert tuple(out[0].shape) == (2, 3)


def test_cross():
    check(lambda m, a, b: m.cross(a, b), [_arr(2, 3, seed=1), _arr(2, 3, seed=2)])
    check(lambda m, a, b: m.cross(a, b), [_arr(3, 3, seed=1), _arr(3, 3, seed=2)])  # first size-3 dim: 0
    check(lambda m, a, b: m.cross(a, b, dim=-1), [_arr(4, 3, seed=1), _arr(1, 3, seed=2)])
    check(lambda m, a, b: a.cross(b, dim=1), [np.arange(6).reshape(2, 3), np.arange(6, 0, -1).reshape(2, 3)],
          grad=False)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf, 0.0])
def test_cdist(p):
    x1, x2 = _arr(4, 3, seed=30), _arr(5, 3, seed=31)
    x2[1] = x1[2]  # a zero distance: PyTorch's gradient is 0 there (no NaN)
    check(lambda m, a, b: m.cdist(a, b, p=p), [x1, x2], grad=p != 0.0)
    check(lambda m, a, b: m.cdist(a, b, p=p), [_arr(2, 3, 2, seed=32), _arr(1, 4, 2, seed=33)], grad=p != 0.0)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod(dim):
    x = _arr(3, 7, seed=40)
    x[1, 3] = 0.0  # a zero: the gradient of the products before and after it
    check(lambda m, a: m.cumprod(a, dim), [x])
    # PyTorch 1.13's backward of cumprod(dtype=float64) on float32 input fails (masked_scatter dtypes): values only
    check(lambda m, a: a.cumprod(dim, dtype=m.float64), [x], grad=False)


def test_cumprod_int_exact_and_scalar():
    i = np.array([[3, -2, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59]], np.int64)
    check(lambda m, a: m.cumprod(a, 1), [i], grad=False)  # overflows int64 and wraps: bit-exact too
    check(lambda m, a: m.cumprod(a, 0), [np.array([1, 2, 3], np.int32)], grad=False)
    check(lambda m, a: m.cumprod(a, 0), [np.array([True, True, False])], grad=False)
    check(lambda m, a: m.cumprod(a, 0), [np.array(2.5, np.float32)])


def test_dropout_top_level():
    x = _arr(50, 40, seed=50)
    a = lt.from_numpy(x)
    assert lt.dropout(a, 0.5, False) is a
    assert_same(lt.dropout(a, 0.0, True), torch.from_numpy(x))
    assert_same(lt.dropout(a, 1.0, True), torch.dropout(torch.from_numpy(x), 1.0, True))
    y = lt.dropout(a, 0.25, True).numpy()
    kept = y != 0
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-6)
    g = lt.from_numpy(x[:3, :3].copy()).requires_grad_(True)
    out = lt.dropout(g, 0.5, True)
    out.sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), (out.detach().numpy() != 0) * 2.0)


def test_finfo_iinfo():
    for d in ("float32", "float64"):
        a, b = lt.finfo(getattr(lt, d)), torch.finfo(getattr(torch, d))
        for f in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(a, f) == getattr(b, f), (d, f)
        assert repr(a) == repr(b)
    assert lt.finfo().dtype == "float32" and lt.finfo(lt.float) == lt.finfo(lt.float32)
    for d in ("int32", "int64"):
        a, b = lt.iinfo(getattr(lt, d)), torch.iinfo(getattr(torch, d))
        assert (a.bits, a.max, a.min, a.dtype) == (b.bits, b.max, b.min, b.dtype)
        assert repr(a) == repr(b)
    x = lt.tensor([1.0, 2.0])
    assert (x.clamp(max=lt.finfo(x.dtype).max) == x).all().item()


def test_no_duplicates_and_methods_present():
    for n in ("addmm", "baddbmm", "addbmm", "addmv", "mv", "clone", "trunc", "frac", "fmod", "logical_xor", "diff",
              "roll", "tile", "movedim", "moveaxis", "meshgrid", "kron", "cross", "cdist", "finfo", "iinfo",
              "cumprod", "dropout"):
        assert hasattr(lt, n), n
    for n in ("addmm", "baddbmm", "addbmm", "addmv", "mv", "trunc", "frac", "fmod", "logical_xor", "diff", "roll",
              "tile", "movedim", "kron", "cross", "cumprod", "addmm_", "trunc_", "frac_", "fmod_"):
        assert hasattr(lt.Tensor, n), n
    assert hasattr(lt, "atan2") and hasattr(lt.Tensor, "atan2_")  # (test_pointwise.py checks the values)


def test_training_step_with_new_modules_compiles_once():
    lt.manual_seed(0)
    model = lt.nn.Sequential(lt.nn.Linear(4, 6), lt.nn.PReLU(), lt.nn.Linear(6, 4), lt.nn.GLU(), lt.nn.Hardswish(),
                             lt.nn.Linear(2, 3), lt.nn.LogSigmoid())
    opt = lt.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
    x = lt.from_numpy(_arr(5, 4, seed=60))
    y = lt.from_numpy(_arr(5, 3, seed=61))
    misses = []
    for _ in range(5):
        before = lt.debug.counters()["trace_cache_misses"]
        opt.zero_grad()
        loss = lt.nn.functional.huber_loss(model(x), y) + lt.nn.functional.cosine_similarity(model(x), y).mean()
        loss.backward()
        opt.step()
        loss.item()
        for p in model.parameters():
            p.detach().numpy()
        misses.append(lt.debug.counters()["trace_cache_misses"] - before)
    assert misses[2:] == [0, 0, 0], misses


# ---------------------------------------------------------------- bad input: PyTorch's exception types
def _o(m, *s, dtype=None):
    return m.ones(*s, dtype=getattr(m, dtype) if dtype else None)


BAD = {
    "glu-odd": lambda m: m.nn.functional.glu(_o(m, 3, 3)),
    "glu-scalar": lambda m: m.nn.functional.glu(m.tensor(1.0)),
    "glu-dim": lambda m: m.nn.functional.glu(_o(m, 2, 4), dim=5),
    "prelu-channels": lambda m: m.nn.functional.prelu(_o(m, 2, 3), _o(m, 2)),
    "prelu-weight-2d": lambda m: m.nn.functional.prelu(_o(m, 2, 3), _o(m, 1, 3)),
    "hardswish-int": lambda m: m.nn.functional.hardswish(m.arange(4)),
    "logsigmoid-int": lambda m: m.nn.functional.logsigmoid(m.arange(4)),
    "hardtanh-module": lambda m: m.nn.Hardtanh(1.0, -1.0),
    "cosine_similarity-shapes": lambda m: m.nn.functional.cosine_similarity(_o(m, 2, 3), _o(m, 2, 4)),
    "pairwise-shapes": lambda m: m.nn.functional.pairwise_distance(_o(m, 2, 3), _o(m, 2, 4)),
    "triplet-dims": lambda m: m.nn.functional.triplet_margin_loss(_o(m, 2, 3), _o(m, 3), _o(m, 2, 3)),
    "triplet-reduction": lambda m: m.nn.functional.triplet_margin_loss(_o(m, 2, 3), _o(m, 2, 3), _o(m, 2, 3),
                                                                       reduction="bad"),
    "margin-ranking-dims": lambda m: m.nn.functional.margin_ranking_loss(_o(m, 3), _o(m, 3), _o(m, 2, 3)),
    "cosine-embedding-target": lambda m: m.nn.functional.cosine_embedding_loss(_o(m, 2, 3), _o(m, 2, 3),
                                                                               _o(m, 2, 1)),
    "cosine-embedding-inputs": lambda m: m.nn.functional.cosine_embedding_loss(_o(m, 3), _o(m, 3), _o(m, 2)),
    "huber-reduction": lambda m: m.nn.functional.huber_loss(_o(m, 3), _o(m, 3), reduction="x"),
    "zeropad-1d": lambda m: m.nn.ZeroPad2d(1)(_o(m, 3)),
    "addmm-shapes": lambda m: m.addmm(_o(m, 2, 4), _o(m, 2, 3), _o(m, 4, 4)),
    "addmm-1d": lambda m: m.addmm(_o(m, 2, 4), _o(m, 3), _o(m, 3, 4)),
    "addmm-input": lambda m: m.addmm(_o(m, 3, 4), _o(m, 2, 3), _o(m, 3, 4)),
    "addmm-dtype": lambda m: m.addmm(_o(m, 2, 4, dtype="float64"), _o(m, 2, 3), _o(m, 3, 4)),
    "baddbmm-batches": lambda m: m.baddbmm(_o(m, 2, 2, 4), _o(m, 2, 2, 3), _o(m, 3, 3, 4)),
    "baddbmm-inner": lambda m: m.baddbmm(_o(m, 2, 2, 4), _o(m, 2, 2, 3), _o(m, 2, 4, 4)),
    "addbmm-batches": lambda m: m.addbmm(_o(m, 2, 4), _o(m, 2, 2, 3), _o(m, 3, 3, 4)),
    "addmv-size": lambda m: m.addmv(_o(m, 2), _o(m, 2, 3), _o(m, 4)),
    "addmv-input": lambda m: m.addmv(_o(m, 3), _o(m, 2, 3), _o(m, 3)),
    "mv-size": lambda m: m.mv(_o(m, 2, 3), _o(m, 4)),
    "mv-dims": lambda m: m.mv(_o(m, 2, 3), _o(m, 3, 1)),
    "frac-int": lambda m: m.frac(m.arange(3)),
    "fmod-shapes": lambda m: m.fmod(_o(m, 2), _o(m, 3)),
    "logical_xor-shapes": lambda m: m.logical_xor(_o(m, 2), _o(m, 3)),
    "diff-scalar": lambda m: m.diff(m.tensor(1.0)),
    "diff-prepend-dims": lambda m: m.diff(_o(m, 2, 3), prepend=_o(m, 3)),
    "diff-prepend-shape": lambda m: m.diff(_o(m, 2, 3), dim=0, prepend=_o(m, 1, 4)),
    "diff-dim": lambda m: m.diff(_o(m, 2, 3), dim=2),
    "roll-align": lambda m: m.roll(_o(m, 3), (1, 2), 0),
    "roll-dim": lambda m: m.roll(_o(m, 3), 1, 2),
    "movedim-count": lambda m: m.movedim(_o(m, 2, 3, 4), (0, 1), (1,)),
    "movedim-repeat": lambda m: m.movedim(_o(m, 2, 3, 4), (0, 0), (1, 2)),
    "movedim-range": lambda m: m.movedim(_o(m, 2, 3, 4), 0, 3),
    "meshgrid-2d": lambda m: m.meshgrid(_o(m, 2, 2), _o(m, 3), indexing="ij"),
    "meshgrid-dtype": lambda m: m.meshgrid(_o(m, 2), _o(m, 3, dtype="float64"), indexing="ij"),
    "meshgrid-indexing": lambda m: m.meshgrid(_o(m, 2), _o(m, 3), indexing="foo"),
    "meshgrid-empty": lambda m: m.meshgrid(indexing="ij"),
    "cross-no3": lambda m: m.cross(_o(m, 2, 4), _o(m, 2, 4)),
    "cross-dim-len": lambda m: m.cross(_o(m, 2, 4), _o(m, 2, 4), dim=1),
    "cross-ndim": lambda m: m.cross(_o(m, 3), _o(m, 2, 3)),
    "cross-dtype": lambda m: m.cross(_o(m, 3, dtype="int64"), _o(m, 3)),
    "cdist-1d": lambda m: m.cdist(_o(m, 3), _o(m, 3)),
    "cdist-cols": lambda m: m.cdist(_o(m, 2, 3), _o(m, 4, 4)),
    "cdist-p": lambda m: m.cdist(_o(m, 2, 3), _o(m, 4, 3), p=-1),
    "cdist-int": lambda m: m.cdist(_o(m, 2, 3, dtype="int64"), _o(m, 4, 3, dtype="int64")),
    "cdist-batch": lambda m: m.cdist(_o(m, 2, 2, 3), _o(m, 3, 4, 3)),
    "cumprod-dim": lambda m: m.cumprod(_o(m, 3), 1),
    "cumprod-nodim": lambda m: m.cumprod(_o(m, 3)),
    "dropout-p": lambda m: m.dropout(_o(m, 3), 1.5, True),
    "dropout-int": lambda m: m.dropout(m.arange(3), 0.5, True),
    "dropout-args": lambda m: m.dropout(_o(m, 3), 0.5),
    "finfo-int": lambda m: m.finfo(m.int32),
    "iinfo-float": lambda m: m.iinfo(m.float32),
    "iinfo-bool": lambda m: m.iinfo(m.bool),
    "tile-negative": lambda m: m.tile(_o(m, 2), (-1,)),
}


@pytest.mark.parametrize("key", list(BAD))
def test_bad_input_raises_torch_exception_type(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            BAD[key](torch)
        with pytest.raises(te.type) as le:
            BAD[key](lt)
    assert str(le.value) or te.type is AssertionError
