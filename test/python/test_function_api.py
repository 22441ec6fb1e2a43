"""The torch.* functions written in Python as an API: each exists where torch has it, its Tensor
method exists exactly where torch has one, torch.dropout and finfo/iinfo, and recording them does not sync."""
import numpy as np
import torch

import lazytensor as lt
from conftest import arr, assert_same, ev, pair, seeded


def test_methods_present_and_only_where_torch_has_them():
    methods = ["ravel", "fliplr", "flipud", "hsplit", "vsplit", "dsplit", "tensor_split", "diagonal", "trace", "inner",
               "ger", "vdot", "nansum", "nanmean", "count_nonzero", "take", "take_along_dim", "index_fill",
               "index_fill_", "index_copy", "index_copy_", "scatter", "scatter_", "fmax", "fmin", "ldexp", "ldexp_",
               "rot90", "cov", "isreal", "diag_embed", "argwhere", "select_scatter", "slice_scatter"]
    for m in methods:
        assert hasattr(torch.Tensor, m), m
        assert hasattr(lt.Tensor, m), m
    for name in ("ravel", "fliplr", "flipud", "concatenate", "column_stack", "dstack", "hsplit", "vsplit", "dsplit",
                 "tensor_split", "diagonal", "trace", "tensordot", "inner", "ger", "vdot", "nansum", "nanmean",
                 "count_nonzero", "take", "take_along_dim", "index_fill", "index_copy", "scatter", "fmax", "fmin",
                 "ldexp", "logspace", "rot90", "cov", "trapezoid", "isin", "tril_indices", "triu_indices",
                 "cartesian_prod", "unravel_index", "argwhere", "isreal", "diag_embed", "vander", "select_scatter",
                 "slice_scatter"):
        assert hasattr(lt, name), name
    for name in ("concatenate", "column_stack", "tensordot", "logspace", "isin", "vander", "cartesian_prod"):
        assert not hasattr(lt.Tensor, name), name


def test_no_sync_when_shapes_do_not_depend_on_data():
    """Everything but argwhere (whose shape is data) only records lazy ops: no sync until a value is read."""
    x, y = pair(arr((3, 4), "float32"))
    v, w = pair(arr((4,), "float32"))
    i = lt.tensor([[0, 1, 2, 0]])
    lt.sync(x, v, i)
    before = lt.debug.counters()["syncs"]
    results = [
        lt.ravel(x), lt.fliplr(x), lt.flipud(x), lt.column_stack([x, x]), lt.dstack([x, x]), lt.hsplit(x, 2),
        lt.tensor_split(x, [1, 3], 1), lt.diagonal(x, 1), lt.trace(x), lt.diag_embed(x), lt.tensordot(x, x, ([1], [1])),
        lt.inner(x, x), lt.ger(v, v), lt.vdot(v, v), lt.nansum(x, 1), lt.nanmean(x), lt.count_nonzero(x, 0),
        lt.take(x, i), lt.take_along_dim(x, i, 0), lt.index_fill(x, 1, i[0], 2.0), lt.index_copy(x, 0, i[0, :1], x[:1]),
        lt.scatter(x, 0, i, x), lt.scatter(x, 0, i, 1.0), lt.fmax(x, v), lt.fmin(x, v), lt.ldexp(x, i), lt.rot90(x),
        lt.cov(x), lt.cov(x, aweights=v.abs()), lt.trapezoid(x), lt.trapezoid(x, v), lt.isin(x, v), lt.isreal(x),
        lt.cartesian_prod(v, v), lt.unravel_index(i, (2, 2)), lt.vander(v), lt.select_scatter(x, v, 0, 1),
        lt.slice_scatter(x, x[:, ::2], 1, 0, None, 2), lt.logspace(0, 1, 3), lt.tril_indices(3, 3),
    ]
    assert lt.debug.counters()["syncs"] == before
    ev(results)
    assert lt.debug.counters()["syncs"] > before


def test_no_duplicates_and_methods_present():
    for n in ("addmm", "baddbmm", "addbmm", "addmv", "mv", "clone", "trunc", "frac", "fmod", "logical_xor", "diff",
              "roll", "tile", "movedim", "moveaxis", "meshgrid", "kron", "cross", "cdist", "finfo", "iinfo",
              "cumprod", "dropout"):
        assert hasattr(lt, n), n
    for n in ("addmm", "baddbmm", "addbmm", "addmv", "mv", "trunc", "frac", "fmod", "logical_xor", "diff", "roll",
              "tile", "movedim", "kron", "cross", "cumprod", "addmm_", "trunc_", "frac_", "fmod_"):
        assert hasattr(lt.Tensor, n), n
    assert hasattr(lt, "atan2") and hasattr(lt.Tensor, "atan2_")  # (test_pointwise.py checks the values)


def test_dropout_top_level():
    x = seeded(50, 40, seed=50)
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
