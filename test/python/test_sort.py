"""The sort family against PyTorch 1.13: sort, argsort, msort, topk, kthvalue, median, unique, bincount,
searchsorted, bucketize (functions and Tensor methods), values, indices, dtypes, gradients, errors,
and both the lazy (compare-and-sum rank) and the host (sync) paths."""
import numpy as np
import pytest

import lazytensor as lt
import torch
from conftest import assert_same, pair, same_outcome

import lazytensor._sorting as lsort


def _data(kind, shape):
    if kind == "float":
        return np.random.randn(*shape).astype(np.float32)
    if kind == "ties":
        return np.random.randint(0, 3, shape).astype(np.float32)
    if kind == "nan":
        a = np.random.randint(0, 3, shape).astype(np.float64)
        a.reshape(-1)[::4] = np.nan
        return a
    if kind == "int":
        return np.random.randint(-3, 3, shape).astype(np.int64)
    if kind == "int32":
        return np.random.randint(-3, 3, shape).astype(np.int32)
    if kind == "bool":
        return np.random.rand(*shape) > 0.5
    raise ValueError(kind)


@pytest.fixture(params=["lazy", "host"])
def path(request, monkeypatch):
    """Run a test on the lazy rank path and again on the host argsort path (which syncs)."""
    if request.param == "host":
        monkeypatch.setattr(lsort, "LAZY_SORT_MAX", 0)
    return request.param


@pytest.mark.parametrize("kind", ["float", "ties", "nan", "int", "int32", "bool"])
@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch(kind, dim, descending, path):
    a, b = pair(_data(kind, (3, 5)))
    syncs = lt.debug.counters()["syncs"]
    got = lt.sort(a, dim, descending)
    if path == "lazy":
        assert lt.debug.counters()["syncs"] == syncs, "the lazy sort must not sync"
    assert_same(tuple(got), tuple(torch.sort(b, dim, descending)))  # stable: ties keep index order, NaN largest
    assert_same(lt.argsort(a, dim, descending), torch.argsort(b, dim, descending))
    assert_same(tuple(a.sort(dim=dim, descending=descending, stable=True)),
                tuple(b.sort(dim=dim, descending=descending, stable=True)))


def test_sort_shapes_and_msort(path):
    for shape in [(), (0,), (4,), (2, 3, 4)]:
        a, b = pair(_data("ties", shape))
        assert_same(tuple(lt.sort(a)), tuple(torch.sort(b)))
        assert_same(lt.msort(a), torch.msort(b)) if a.dim() > 0 else None
    a, b = pair(_data("float", (2, 3, 4)))
    assert_same(tuple(lt.sort(a, 1, True)), tuple(torch.sort(b, 1, True)))
    assert_same(a.msort(), b.msort())
    assert_same(a.argsort(0), b.argsort(0))


@pytest.mark.parametrize("op", ["sort", "topk", "kthvalue", "median"])
def test_values_carry_gradients_like_torch(op, path):
    x = np.random.randn(3, 6).astype(np.float64)
    a, b = pair(x, requires_grad=True)
    call = {"sort": lambda m, t: m.sort(t, 1, True).values,
            "topk": lambda m, t: m.topk(t, 2, 0).values,
            "kthvalue": lambda m, t: m.kthvalue(t, 3, 1, keepdim=True).values,
            "median": lambda m, t: m.median(t, 1).values}[op]
    ya, yb = call(lt, a), call(torch, b)
    assert_same(ya, yb)
    g = np.random.randn(*yb.shape)
    (ya * lt.from_numpy(g)).sum().backward()
    (yb * torch.from_numpy(g)).sum().backward()
    assert_same(a.grad, b.grad)


@pytest.mark.parametrize("k,dim,largest", [(1, -1, True), (3, -1, False), (5, 1, True), (2, 0, True), (0, 1, True)])
def test_topk_matches_torch(k, dim, largest, path):
    x = np.random.permutation(15).astype(np.float32).reshape(3, 5)  # distinct: torch's tie order is unspecified
    a, b = pair(x)
    assert_same(tuple(lt.topk(a, k, dim, largest)), tuple(torch.topk(b, k, dim, largest)))
    assert_same(tuple(a.topk(k, dim=dim, largest=largest, sorted=True)),
                tuple(b.topk(k, dim=dim, largest=largest, sorted=True)))
    # sorted=False: the same set (lazytensor returns it sorted)
    va, vb = lt.topk(a, k, dim, largest, sorted=False).values, torch.topk(b, k, dim, largest, sorted=False).values
    np.testing.assert_array_equal(np.sort(va.numpy(), dim), np.sort(vb.numpy(), dim))


def test_topk_ties_and_nan_values():
    a, b = pair(_data("nan", (4, 6)))
    assert_same(lt.topk(a, 3).values, torch.topk(b, 3).values)  # NaN counts as the largest
    assert_same(lt.topk(a, 2, largest=False).values, torch.topk(b, 2, largest=False).values)


@pytest.mark.parametrize("k,dim,keepdim", [(1, -1, False), (3, 1, True), (2, 0, False)])
def test_kthvalue_matches_torch(k, dim, keepdim, path):
    x = np.random.permutation(12).astype(np.float32).reshape(3, 4)
    a, b = pair(x)
    assert_same(tuple(lt.kthvalue(a, k, dim, keepdim)), tuple(torch.kthvalue(b, k, dim, keepdim)))
    assert_same(tuple(a.kthvalue(k, dim, keepdim)), tuple(b.kthvalue(k, dim, keepdim)))


@pytest.mark.parametrize("kind", ["float", "nan", "int"])
@pytest.mark.parametrize("n", [5, 6])
def test_median_matches_torch(kind, n, path):
    x = _data(kind, (3, n)) if kind != "float" else np.random.permutation(3 * n).astype(np.float32).reshape(3, n)
    a, b = pair(x)
    assert_same(lt.median(a), torch.median(b))  # lower median of everything; NaN if any
    assert_same(a.median(), b.median())
    for dim in (0, 1):
        for keepdim in (False, True):
            va, ia = lt.median(a, dim, keepdim)
            vb, ib = torch.median(b, dim, keepdim)
            assert_same(va, vb)
            if kind != "int":  # with ties torch's index among equal values is unspecified
                assert_same(ia, ib)


@pytest.mark.parametrize("kw", [dict(), dict(return_inverse=True), dict(return_counts=True),
                                dict(return_inverse=True, return_counts=True), dict(dim=0, return_inverse=True),
                                dict(dim=1, return_counts=True)])
@pytest.mark.parametrize("kind", ["int", "ties", "bool"])
def test_unique_matches_torch(kw, kind):
    a, b = pair(_data(kind, (4, 3)))
    assert_same(lt.unique(a, **kw), torch.unique(b, **kw))
    assert_same(a.unique(**kw), b.unique(**kw))


def test_unique_and_bincount_sync_others_do_not():
    a = lt.tensor([3, 1, 3, 0])
    lt.sync(a)
    s0 = lt.debug.counters()["syncs"]
    lt.searchsorted(lt.tensor([0, 2, 4]), a)
    lt.bucketize(a, lt.tensor([0, 2, 4]))
    lt.topk(a, 2)
    lt.median(a, 0)
    assert lt.debug.counters()["syncs"] == s0
    lt.unique(a + 1)  # the output length depends on the data: a pending input is synced
    s1 = lt.debug.counters()["syncs"]
    assert s1 == s0 + 1
    lt.bincount(a + 1)  # reads the maximum
    assert lt.debug.counters()["syncs"] == s1 + 1


@pytest.mark.parametrize("weights", [None, "float32", "float64", "int"])
@pytest.mark.parametrize("minlength", [0, 8])
def test_bincount_matches_torch(weights, minlength):
    x = np.array([0, 2, 2, 5, 1, 2], np.int64)
    a, b = pair(x)
    wa = wb = None
    if weights == "int":
        wa, wb = pair(np.arange(6, dtype=np.int64))
    elif weights is not None:
        wa, wb = pair(np.random.randn(6).astype(weights))
    assert_same(lt.bincount(a, wa, minlength), torch.bincount(b, wb, minlength))
    assert_same(a.bincount(wa, minlength=minlength), b.bincount(wb, minlength=minlength))
    assert_same(lt.bincount(lt.tensor([], dtype=lt.int64)), torch.bincount(torch.tensor([], dtype=torch.int64)))


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_searchsorted_and_bucketize_match_torch(right, out_int32):
    seq = np.array([1.0, 2.0, 2.0, 4.0, 7.0], np.float32)
    vals = np.array([[0.0, 2.0, 3.0], [4.0, 7.0, 9.0]], np.float32)
    sa, sb = pair(seq)
    va, vb = pair(vals)
    kw = dict(right=right, out_int32=out_int32)
    assert_same(lt.searchsorted(sa, va, **kw), torch.searchsorted(sb, vb, **kw))
    assert_same(lt.searchsorted(sa, 2.0, **kw), torch.searchsorted(sb, 2.0, **kw))
    assert_same(lt.bucketize(va, sa, **kw), torch.bucketize(vb, sb, **kw))
    assert_same(lt.bucketize(3.0, sa, **kw), torch.bucketize(3.0, sb, **kw))
    side = "right" if right else "left"
    assert_same(lt.searchsorted(sa, va, side=side), torch.searchsorted(sb, vb, side=side))
    # N-D boundaries (one sorted row per row of values) and sorter
    seq2 = np.sort(np.random.randint(0, 5, (2, 4)), 1).astype(np.int64)
    v2 = np.random.randint(0, 6, (2, 3)).astype(np.int64)
    assert_same(lt.searchsorted(*pair(seq2)[:1], pair(v2)[0], **kw),
                torch.searchsorted(torch.from_numpy(seq2), torch.from_numpy(v2), **kw))
    unsorted = np.array([4.0, 1.0, 7.0, 2.0], np.float32)
    order = np.argsort(unsorted, kind="stable").astype(np.int64)
    assert_same(lt.searchsorted(lt.from_numpy(unsorted), va, sorter=lt.from_numpy(order), **kw),
                torch.searchsorted(torch.from_numpy(unsorted), vb, sorter=torch.from_numpy(order), **kw))


BAD = {
    "topk_k_too_big": lambda m: m.topk(m.zeros(3, 4), 5),
    "topk_negative_k": lambda m: m.topk(m.zeros(3, 4), -1),
    "topk_dim": lambda m: m.topk(m.zeros(3, 4), 1, dim=2),
    "sort_dim": lambda m: m.sort(m.zeros(3, 4), 2),
    "sort_dim_negative": lambda m: m.sort(m.zeros(3, 4), -3),
    "argsort_dim": lambda m: m.argsort(m.zeros(3), 1),
    "kthvalue_k": lambda m: m.kthvalue(m.zeros(3, 4), 5),
    "kthvalue_k0": lambda m: m.kthvalue(m.zeros(3, 4), 0),
    "median_dim": lambda m: m.median(m.zeros(3, 4), 2),
    "median_empty_dim": lambda m: m.median(m.zeros(3, 0), 1),
    "sort_not_tensor": lambda m: m.sort([3, 1, 2]),
    "bincount_2d": lambda m: m.bincount(m.zeros(2, 2, dtype=m.int64)),
    "bincount_float": lambda m: m.bincount(m.zeros(3)),
    "bincount_negative": lambda m: m.bincount(m.tensor([1, -1])),
    "bincount_weights": lambda m: m.bincount(m.tensor([1, 2]), m.ones(3)),
    "bincount_minlength": lambda m: m.bincount(m.tensor([1, 2]), minlength=-1),
    "searchsorted_dims": lambda m: m.searchsorted(m.zeros(2, 3), m.zeros(3, 3)),
    "searchsorted_side": lambda m: m.searchsorted(m.zeros(3), m.zeros(2), side="middle"),
    "searchsorted_opposite": lambda m: m.searchsorted(m.zeros(3), m.zeros(2), right=True, side="left"),
    "bucketize_2d": lambda m: m.bucketize(m.zeros(3), m.zeros(2, 2)),
    "unique_dim": lambda m: m.unique(m.zeros(3), dim=1),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_like_torch(name):
    f = BAD[name]
    with pytest.raises(Exception) as want:
        f(torch)
    with pytest.raises(want.type):
        f(lt)


def test_large_dims_use_the_host_path_and_sync():
    """Past LAZY_SORT_MAX the indices come from a host argsort (one sync); values still get gradients."""
    n = lsort.LAZY_SORT_MAX + 3
    x = np.random.randint(0, 50, (2, n)).astype(np.float32)  # ties: the host sort is stable too
    a, b = pair(x, requires_grad=True)
    lt.sync(a)
    s0 = lt.debug.counters()["syncs"]
    va, ia = lt.sort(a, dim=1, descending=True, stable=True)
    assert lt.debug.counters()["syncs"] > s0
    vb, ib = torch.sort(b, dim=1, descending=True, stable=True)  # torch's default sort of long rows is not stable
    assert_same(ia, ib)
    assert_same(va, vb)
    g = np.random.randn(2, n).astype(np.float32)
    (va * lt.from_numpy(g)).sum().backward()
    (vb * torch.from_numpy(g)).sum().backward()
    assert_same(a.grad, b.grad)


def test_same_outcome_for_edge_cases():
    for f in (lambda m: m.sort(m.tensor(2.0)), lambda m: m.topk(m.tensor(2.0), 1),
              lambda m: m.kthvalue(m.tensor([2.0]), 1), lambda m: m.median(m.tensor([], dtype=m.float32)),
              lambda m: m.sort(m.zeros(2, 0), 1)):
        same_outcome(lambda: f(lt), lambda: f(torch))
