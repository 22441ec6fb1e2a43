"""Reductions and scans (lazytensor/_reductions.py) vs PyTorch 1.13: nansum, nanmean, count_nonzero,
cumprod, cov and trapezoid."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, ALL_DTYPES, arr, assert_same, grads_match, pair, raises_like, seeded, views, with_nans


REDUCE_DIMS = [None, 0, -1, (0, 1), [1, 0], (), (-1,)]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", REDUCE_DIMS, ids=str)
@pytest.mark.parametrize("shape,view", [((3, 4), "none"), ((3, 4), "t"), ((0, 3), "none"), ((1, 1), "none"),
                                        ((2, 5), "step")], ids=str)
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_nansum_nanmean(shape, view, dim, keepdim, dt):
    a, b = views(with_nans(arr(shape, dt)), view)
    if dim is None and keepdim:
        assert_same(lt.nansum(a, None, True), torch.nansum(b, None, True), rtol=1e-5)
    elif dim is None:
        assert_same(lt.nansum(a), torch.nansum(b), rtol=1e-5)
        assert_same(a.nansum(), b.nansum(), rtol=1e-5)
    else:
        assert_same(lt.nansum(a, dim, keepdim), torch.nansum(b, dim, keepdim), rtol=1e-5)
        assert_same(a.nansum(dim, keepdim=keepdim), b.nansum(dim, keepdim=keepdim), rtol=1e-5)
    if dt.startswith("float"):
        assert_same(lt.nanmean(a, dim, keepdim), torch.nanmean(b, dim, keepdim), rtol=1e-5)
        assert_same(a.nanmean(dim, keepdim), b.nanmean(dim, keepdim), rtol=1e-5)
    else:
        raises_like(lambda: lt.nanmean(a, dim, keepdim), lambda: torch.nanmean(b, dim, keepdim), "nanmean")
    if not keepdim:
        assert_same(lt.count_nonzero(a, dim), torch.count_nonzero(b, dim))
        assert_same(a.count_nonzero(dim=dim), b.count_nonzero(dim=dim))


@pytest.mark.parametrize("dt_in,dt", [("float32", "float64"), ("int32", "float64"), ("int32", "int32"),
                                      ("float64", "float32"), ("bool", "float32"), ("float32", "int32")])
def test_nansum_nanmean_dtype(dt_in, dt):
    a, b = pair(with_nans(arr((3, 4), dt_in)))
    ld, td = getattr(lt, dt), getattr(torch, dt)
    for dim in (None, 1):
        try:
            want = torch.nansum(b, dim, dtype=td) if dim is not None else torch.nansum(b, dtype=td)
        except RuntimeError:
            raises_like(lambda: lt.nansum(a, dim, dtype=ld), lambda: torch.nansum(b, dim, dtype=td), "nansum")
        else:
            assert_same(lt.nansum(a, dim, dtype=ld), want, rtol=1e-5)
        try:
            want = torch.nanmean(b, dim, dtype=td)
        except RuntimeError:
            raises_like(lambda: lt.nanmean(a, dim, dtype=ld), lambda: torch.nanmean(b, dim, dtype=td), "nanmean")
        else:
            assert_same(lt.nanmean(a, dim, dtype=ld), want, rtol=1e-5)


def test_nan_reductions_grads_errors_zero_dim():
    x = with_nans(arr((3, 4), "float64"))
    grads_match(lambda t: lt.nansum(t, 1), lambda t: torch.nansum(t, 1), [x])
    grads_match(lambda t: lt.nanmean(t.t(), 0, True), lambda t: torch.nanmean(t.t(), 0, True), [x])
    s, t = pair(np.float32(np.nan))
    assert_same(lt.nansum(s), torch.nansum(t))
    assert_same(lt.nanmean(s, 0), torch.nanmean(t, 0))
    assert_same(lt.count_nonzero(s, 0), torch.count_nonzero(t, 0))
    a, b = pair(x)
    for name in ("nansum", "nanmean", "count_nonzero"):
        raises_like(lambda: getattr(lt, name)(a, 2), lambda: getattr(torch, name)(b, 2), name)
        raises_like(lambda: getattr(lt, name)(a, (0, -2)), lambda: getattr(torch, name)(b, (0, -2)), name)
    out = lt.zeros(3, dtype=lt.float64)
    assert lt.nansum(a, 1, out=out) is out
    assert_same(out, torch.nansum(b, 1))


COV_SHAPES = [(3, 5), (5,), (1, 4), (2, 1), (0, 3), (4, 2)]


@pytest.mark.parametrize("correction", [0, 1, 2, 7])
@pytest.mark.parametrize("shape", COV_SHAPES, ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("float64", "t"), ("int64", "none"), ("int32", "step")])
@pytest.mark.filterwarnings("ignore:cov")
def test_cov(shape, correction, dt, view):
    a, b = views(arr(shape, dt), view)
    assert_same(lt.cov(a, correction=correction), torch.cov(b, correction=correction), rtol=1e-5, atol=1e-6)
    assert_same(a.cov(correction=correction), b.cov(correction=correction), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("weights", ["f", "a", "fa"])
@pytest.mark.parametrize("correction", [0, 1, 3])
@pytest.mark.parametrize("dts", [("float32", "float32"), ("float32", "float64"), ("int64", "float32"),
                                 ("float64", "float32")])
@pytest.mark.filterwarnings("ignore:cov")
def test_cov_weights(weights, correction, dts):
    x = arr((3, 5), dts[0])
    a, b = pair(x)
    fw = np.random.randint(0, 4, 5).astype(np.int64)
    aw = (np.random.random_sample(5) + 0.1).astype(dts[1])
    kl, kt = {}, {}
    if "f" in weights:
        kl["fweights"], kt["fweights"] = pair(fw)
    if "a" in weights:
        kl["aweights"], kt["aweights"] = pair(aw)
    assert_same(lt.cov(a, correction=correction, **kl), torch.cov(b, correction=correction, **kt), rtol=1e-5, atol=1e-6)


def test_cov_grads_errors():
    x = arr((3, 6), "float64")
    grads_match(lambda t: lt.cov(t), lambda t: torch.cov(t), [x])
    grads_match(lambda t: lt.cov(t.t().t()[1], correction=0), lambda t: torch.cov(t[1], correction=0), [x])
    fw = np.array([1, 2, 0, 3, 1, 1])
    grads_match(lambda t, w: lt.cov(t, fweights=lt.from_numpy(fw), aweights=w.abs() + 0.5),
                lambda t, w: torch.cov(t, fweights=torch.from_numpy(fw), aweights=w.abs() + 0.5),
                [x, arr((6,), "float64")])
    s, t = pair(np.float32(2.0))
    with pytest.warns(UserWarning):
        assert_same(lt.cov(s), torch.cov(t))
    a, b = pair(x)
    for fl, ft in [
        (lambda: lt.cov(a.reshape(1, 3, 6)), lambda: torch.cov(b.reshape(1, 3, 6))),
        (lambda: lt.cov(a > 0), lambda: torch.cov(b > 0)),
        (lambda: lt.cov(a, fweights=lt.ones(6)), lambda: torch.cov(b, fweights=torch.ones(6))),
        (lambda: lt.cov(a, aweights=lt.ones(6, dtype=lt.int64)), lambda: torch.cov(b, aweights=torch.ones(6).long())),
        (lambda: lt.cov(a, aweights=lt.ones(5)), lambda: torch.cov(b, aweights=torch.ones(5))),
        (lambda: lt.cov(a, fweights=lt.ones(2, 3, dtype=lt.int64)),
         lambda: torch.cov(b, fweights=torch.ones(2, 3).long())),
    ]:
        raises_like(fl, ft, "cov")


TRAPZ = [((2, 3), None, None, -1), ((2, 3), None, 2.5, -1), ((2, 3), None, 2, 0), ((2, 3), (3,), None, -1),
         ((2, 3), (2,), None, 0), ((2, 3), (1, 3), None, 1), ((2, 3), (2, 3), None, 0), ((4,), (4,), None, 0),
         ((2, 0), None, None, -1), ((2, 0), (0,), None, 1), ((2, 1), None, None, 1), ((2, 1), (1,), None, 1),
         ((0, 3), None, None, 1), ((2, 3, 4), (3, 4), None, 1),
         ((2, 3), (2,), None, -1), ((2, 3), (3, 1, 3), None, 1), ((), None, None, -1), ((2, 3), None, None, 2)]


@pytest.mark.parametrize("case", TRAPZ, ids=str)
@pytest.mark.parametrize("dts", [("float32", "float32"), ("int64", "int64"), ("float32", "float64"),
                                 ("int32", "float32"),
                                 ("float64", "int32")])
def test_trapezoid(case, dts):
    sy, sx, dx, dim = case
    a, b = views(arr(sy, dts[0]), "t" if len(sy) == 2 and sy[0] == sy[1] else "none")
    if sx is not None:
        c, d = pair(np.cumsum(np.abs(arr(sx, dts[1])), axis=-1).astype(dts[1]) if sx else arr(sx, dts[1]))
        fl, ft = (lambda: lt.trapezoid(a, c, dim=dim)), (lambda: torch.trapezoid(b, d, dim=dim))
    elif dx is not None:
        fl, ft = (lambda: lt.trapezoid(a, dx=dx, dim=dim)), (lambda: torch.trapezoid(b, dx=dx, dim=dim))
    else:
        fl, ft = (lambda: lt.trapezoid(a, dim=dim)), (lambda: torch.trapezoid(b, dim=dim))
    try:
        want = ft()
    except (RuntimeError, IndexError):
        raises_like(fl, ft, "trapezoid")
        return
    assert_same(fl(), want, rtol=1e-5, atol=1e-5)


def test_trapezoid_grads_errors():
    y, x = arr((3, 5), "float64"), np.cumsum(np.abs(arr((5,), "float64")))
    grads_match(lambda s, t: lt.trapezoid(s, t), lambda s, t: torch.trapezoid(s, t), [y, x])
    grads_match(lambda s: lt.trapezoid(s.t(), dx=0.5, dim=0), lambda s: torch.trapezoid(s.t(), dx=0.5, dim=0), [y])
    grads_match(lambda s, t: lt.trapezoid(s, t.unsqueeze(0) * s[:1] ** 2),
                lambda s, t: torch.trapezoid(s, t.unsqueeze(0) * s[:1] ** 2), [y, x])
    a, b = pair(y)
    c, d = pair(x)
    raises_like(lambda: lt.trapezoid(a > 0), lambda: torch.trapezoid(b > 0), "trapezoid")
    raises_like(lambda: lt.trapezoid(a, d.numpy()), lambda: torch.trapezoid(b, d.numpy()), "trapezoid")
    with pytest.raises(TypeError, match="trapezoid"):
        lt.trapezoid(a, c, dx=1.0)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod(dim):
    x = seeded(3, 7, seed=40)
    x[1, 3] = 0.0  # a zero: the gradient of the products before and after it
    agree(lambda m, a: m.cumprod(a, dim), [x])
    # PyTorch 1.13's backward of cumprod(dtype=float64) on float32 input fails (masked_scatter dtypes): values only
    agree(lambda m, a: a.cumprod(dim, dtype=m.float64), [x], grad=False)


def test_cumprod_int_exact_and_scalar():
    i = np.array([[3, -2, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59]], np.int64)
    agree(lambda m, a: m.cumprod(a, 1), [i], grad=False)  # overflows int64 and wraps: bit-exact too
    agree(lambda m, a: m.cumprod(a, 0), [np.array([1, 2, 3], np.int32)], grad=False)
    agree(lambda m, a: m.cumprod(a, 0), [np.array([True, True, False])], grad=False)
    agree(lambda m, a: m.cumprod(a, 0), [np.array(2.5, np.float32)])
