"""Products, contractions and diagonals (lazytensor/_linalg.py) vs PyTorch 1.13: addmm and its family,
einsum, tensordot, inner, ger, vdot, kron, cross, cdist, norm, diag, diagonal, diag_embed, trace, outer."""
import math

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, ALL_DTYPES, arr, assert_same, grads_match, NUM_DTYPES, pair, raises_like, seeded, views


# ---------------------------------------------------------------- diagonals
DIAG_CASES = [((3, 4), 0, 1), ((4, 3), 0, 1), ((2, 3, 4), 0, 2), ((2, 3, 4), 2, 0), ((2, 3, 4), -1, -2),
              ((0, 3), 0, 1), ((1, 1), 1, 0), ((2, 0, 3), 1, 2), ((3, 3), 0, 1)]


@pytest.mark.parametrize("offset", [-4, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("shape,d1,d2", DIAG_CASES, ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("bool", "none"), ("float64", "step")])
def test_diagonal(shape, d1, d2, offset, dt, view):
    a, b = views(arr(shape, dt), view)
    assert_same(lt.diagonal(a, offset, d1, d2), torch.diagonal(b, offset, d1, d2))
    assert_same(a.diagonal(offset, d1, d2), b.diagonal(offset, d1, d2))
    assert_same(a.diagonal(offset=offset, dim1=d1, dim2=d2), b.diagonal(offset=offset, dim1=d1, dim2=d2))


def test_diagonal_is_a_view_and_grads_and_errors():
    x = arr((3, 4), "float32")
    a, b = pair(x)
    a.diagonal(1).fill_(7.0)  # writing into the diagonal writes into the matrix, as in PyTorch
    b.diagonal(1).fill_(7.0)
    assert_same(a, b)
    a.diagonal().mul_(2.0)
    b.diagonal().mul_(2.0)
    assert_same(a, b)
    y = arr((2, 3, 4), "float64")
    grads_match(lambda t: lt.diagonal(t, 1, 2, 0), lambda t: torch.diagonal(t, 1, 2, 0), [y])
    grads_match(lambda t: t.diagonal(-1, -1, -2), lambda t: t.diagonal(-1, -1, -2), [y])
    a, b = pair(x)
    s, t = pair(np.float32(1.0))
    raises_like(lambda: lt.diagonal(a, 0, 0, 0), lambda: torch.diagonal(b, 0, 0, 0), "diagonal")
    raises_like(lambda: lt.diagonal(a, 0, 0, 2), lambda: torch.diagonal(b, 0, 0, 2), "diagonal")
    raises_like(lambda: lt.diagonal(a, 0, -3, 1), lambda: torch.diagonal(b, 0, -3, 1), "diagonal")
    raises_like(lambda: lt.diagonal(s), lambda: torch.diagonal(t), "diagonal")
    raises_like(lambda: lt.diagonal(a[0]), lambda: torch.diagonal(b[0]), "diagonal")


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (0, 0), (1, 5), (2, 0)])
@pytest.mark.parametrize("dt", NUM_DTYPES)
def test_trace(shape, dt):
    a, b = views(arr(shape, dt), "none")
    assert_same(lt.trace(a), torch.trace(b))
    assert_same(a.t().trace(), b.t().trace())


def test_trace_grads_and_errors():
    grads_match(lambda t: lt.trace(t), lambda t: torch.trace(t), [arr((3, 5), "float64")])
    grads_match(lambda t: lt.trace(t.t().t()), lambda t: torch.trace(t), [arr((4, 4), "float64")])
    # PyTorch 1.13's trace backward is wrong for more rows than columns (it also fills [4, 0] of a 5x3
    # matrix); the gradient is the identity pattern
    a = lt.from_numpy(arr((5, 3), "float64")).requires_grad_(True)
    lt.trace(a).backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.eye(5, 3))
    for shape, dt in [((3,), "float32"), ((2, 2, 2), "float32"), ((2, 2), "bool"), ((), "float32")]:
        a, b = pair(arr(shape, dt))
        raises_like(lambda: lt.trace(a), lambda: torch.trace(b), "trace")


@pytest.mark.parametrize("offset", [-2, 0, 1, 3])
@pytest.mark.parametrize("shape,d1,d2", [((3,), -2, -1), ((3,), 1, 0), ((2, 3), 0, 2), ((2, 3), 2, 0),
                                         ((2, 3), -1, 1), ((0,), 0, 1), ((2, 0), 0, 1), ((1,), 0, 1),
                                         ((2, 1, 3), 1, 3)], ids=str)
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_diag_embed(shape, d1, d2, offset, dt):
    a, b = views(arr(shape, dt), "step" if dt == "int32" else "none")
    assert_same(lt.diag_embed(a, offset, d1, d2), torch.diag_embed(b, offset, d1, d2))
    assert_same(a.diag_embed(offset, d1, d2), b.diag_embed(offset, d1, d2))


def test_diag_embed_special_values_grads_errors():
    a, b = pair(np.array([[np.inf, np.nan, -0.0], [1.0, -np.inf, 2.0]], dtype=np.float32))
    assert_same(lt.diag_embed(a, 1), torch.diag_embed(b, 1))  # off-diagonal stays 0 next to inf/NaN
    x = arr((2, 3), "float64")
    grads_match(lambda t: lt.diag_embed(t, -1, 0, 2), lambda t: torch.diag_embed(t, -1, 0, 2), [x])
    s, t = pair(np.float32(1.0))
    raises_like(lambda: lt.diag_embed(s), lambda: torch.diag_embed(t), "diag_embed")
    a, b = pair(x)
    raises_like(lambda: lt.diag_embed(a, 0, 1, 1), lambda: torch.diag_embed(b, 0, 1, 1), "diag_embed")
    raises_like(lambda: lt.diag_embed(a, 0, 0, 3), lambda: torch.diag_embed(b, 0, 0, 3), "diag_embed")


TENSORDOT = [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 5), 1), ((3, 4), (2, 5), 0), ((2, 3), (3, 2), ([1], [0])),
             ((2, 3, 4), (4, 2, 3), ([0, 2], [1, 0])), ((2, 3), (2, 3), ([-1, -2], [1, 0])),
             ((2, 1, 4), (3, 4), ([1, 2], [0, 1])),   # a contracted 1 against 3: PyTorch sums b over it
             ((2, 3), (1, 4), ([1], [0])), ((0, 3), (3, 2), 1), ((2, 0), (0, 3), 1), ((3,), (3,), 1),
             ((2, 3), (3, 2), torch.tensor(1)), ((2, 3), (2, 3), torch.tensor([[0, 1], [0, 1]]))]


@pytest.mark.parametrize("case", TENSORDOT, ids=str)
@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32"])
def test_tensordot(case, dt):
    sa, sb, dims = case
    (a, b), (c, d) = views(arr(sa, dt), "none"), views(arr(sb, dt), "none")
    ldims = lt.tensor(dims.tolist()) if isinstance(dims, torch.Tensor) else dims
    if dt == "int32" and case in TENSORDOT[6:8]:
        # PyTorch 1.13 sums the size-1 broadcast dim into int64 and then refuses the int32/int64 mm: the
        # result is int32 here, checked against the same contraction in int64
        with pytest.raises(RuntimeError):
            torch.tensordot(b, d, dims)
        want = torch.tensordot(b.long(), d.long(), dims).int()
        assert_same(lt.tensordot(a, c, ldims), want)
        return
    assert_same(lt.tensordot(a, c, ldims), torch.tensordot(b, d, dims), rtol=1e-5, atol=1e-5)
    assert_same(lt.tensordot(a, c, dims=ldims), torch.tensordot(b, d, dims=dims), rtol=1e-5, atol=1e-5)


def test_tensordot_noncontiguous_grads_errors():
    x, y = arr((4, 3), "float64"), arr((2, 4), "float64")
    (a, b), (c, d) = pair(x), pair(y)
    assert_same(lt.tensordot(a.t(), c.t(), 1), torch.tensordot(b.t(), d.t(), 1))
    grads_match(lambda s, t: lt.tensordot(s.t(), t, ([1], [1])), lambda s, t: torch.tensordot(s.t(), t, ([1], [1])),
                [x, y])
    grads_match(lambda s, t: lt.tensordot(s.t(), t.t(), 1), lambda s, t: torch.tensordot(s.t(), t.t(), 1), [x, y])
    grads_match(lambda s, t: lt.tensordot(s.narrow(0, 0, 1), t, ([0], [0])),  # the size-1 broadcast
                lambda s, t: torch.tensordot(s.narrow(0, 0, 1), t, ([0], [0])), [x, y])
    e, f = pair(arr((3, 4), "float32"))
    g, h = pair(arr((4, 3), "float64"))
    i, j = pair(arr((4, 3), "bool"))
    for fl, ft in [
        (lambda: lt.tensordot(e, g, 1), lambda: torch.tensordot(f, h, 1)),          # dtypes differ
        (lambda: lt.tensordot(e, e, 1), lambda: torch.tensordot(f, f, 1)),          # 4 vs 3
        (lambda: lt.tensordot(e, e, -1), lambda: torch.tensordot(f, f, -1)),
        (lambda: lt.tensordot(e, e, 3), lambda: torch.tensordot(f, f, 3)),
        (lambda: lt.tensordot(e, e, ([1, 0], [1])), lambda: torch.tensordot(f, f, ([1, 0], [1]))),
        (lambda: lt.tensordot(e, e, ([1, 1], [1, 1])), lambda: torch.tensordot(f, f, ([1, 1], [1, 1]))),
        (lambda: lt.tensordot(e, e, [1, 1]), lambda: torch.tensordot(f, f, [1, 1])),
        (lambda: lt.tensordot(i.t(), i, 1), lambda: torch.tensordot(j.t(), j, 1)),
        (lambda: lt.tensordot(e, e.t().tolist(), 1), lambda: torch.tensordot(f, f.t().tolist(), 1)),
    ]:
        raises_like(fl, ft, "tensordot")


INNER = [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3), (3,)), ((), (2, 3)), ((2, 3), ()), ((0, 3), (2, 3)), ((2, 0), (0,)),
         ((1, 2, 3), (2, 3))]


@pytest.mark.parametrize("shapes", INNER, ids=str)
@pytest.mark.parametrize("dts", [("float32", "float32"), ("int64", "int64"), ("float64", "float64"),
                                 ("int32", "float64")])
def test_inner(shapes, dts):
    (a, b), (c, d) = pair(arr(shapes[0], dts[0])), pair(arr(shapes[1], dts[1]))
    try:
        want = torch.inner(b, d)
    except RuntimeError:
        raises_like(lambda: lt.inner(a, c), lambda: torch.inner(b, d), "inner")
        return
    assert_same(lt.inner(a, c), want, rtol=1e-5, atol=1e-5)
    assert_same(a.inner(c), b.inner(d), rtol=1e-5, atol=1e-5)


def test_inner_grads_errors():
    x, y = arr((2, 3), "float64"), arr((4, 3), "float64")
    grads_match(lambda s, t: lt.inner(s, t), lambda s, t: torch.inner(s, t), [x, y])
    grads_match(lambda s, t: lt.inner(s.t(), t.t()), lambda s, t: torch.inner(s.t(), t.t()), [x, x])
    (a, b), (c, d) = pair(x), pair(arr((2,), "float64"))
    raises_like(lambda: lt.inner(a, c), lambda: torch.inner(b, d), "inner")
    raises_like(lambda: lt.inner(a, 2.0), lambda: torch.inner(b, 2.0), "inner")


@pytest.mark.parametrize("shapes", [((3,), (4,)), ((0,), (2,)), ((1,), (1,)), ((3, 1), (2,)), ((3,), ())], ids=str)
@pytest.mark.parametrize("dts", [("float32", "float32"), ("int64", "float32"), ("bool", "bool"), ("int32", "int64")])
def test_ger(shapes, dts):
    (a, b), (c, d) = pair(arr(shapes[0], dts[0])), pair(arr(shapes[1], dts[1]))
    try:
        want = torch.ger(b, d)
    except RuntimeError:
        raises_like(lambda: lt.ger(a, c), lambda: torch.ger(b, d), "ger")
        return
    assert_same(lt.ger(a, c), want)
    assert_same(a.ger(c), b.ger(d))


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((0,), (0,)), ((1,), (1,)), ((2,), (3,)), ((2, 2), (2, 2)),
                                    ((2,), ())], ids=str)
@pytest.mark.parametrize("dts", [("float32", "float32"), ("int32", "int32"), ("int64", "int64"),
                                 ("float64", "float64"), ("float32", "float64"), ("bool", "bool")])
def test_vdot(shapes, dts):
    (a, b), (c, d) = pair(arr(shapes[0], dts[0])), pair(arr(shapes[1], dts[1]))
    try:
        want = torch.vdot(b, d)
    except RuntimeError:
        raises_like(lambda: lt.vdot(a, c), lambda: torch.vdot(b, d), "vdot")
        return
    assert_same(lt.vdot(a, c), want, rtol=1e-5)
    assert_same(a.vdot(c), b.vdot(d), rtol=1e-5)


def test_ger_vdot_grads_and_out():
    x, y = arr((3,), "float64"), arr((4,), "float64")
    grads_match(lambda s, t: lt.ger(s, t), lambda s, t: torch.ger(s, t), [x, y])
    grads_match(lambda s, t: lt.vdot(s, t[1:]), lambda s, t: torch.vdot(s, t[1:]), [x, y])
    (a, b), (c, d) = pair(x), pair(y)
    out = lt.zeros(3, 4, dtype=lt.float64)
    assert lt.ger(a, c, out=out) is out
    assert_same(out, torch.ger(b, d))


EINSUM = [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ii->i", [(3, 3)]),
          ("ii", [(3, 3)]), ("ij->", [(3, 4)]), ("ij->ji", [(3, 4)]), ("i,j->ij", [(3,), (4,)]), ("i,i", [(3,), (3,)]),
          ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
          ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("iij->j", [(3, 3, 4)]), ("ij,ij->i", [(3, 4), (3, 4)]),
          ("i,i", [(1,), (3,)]), ("bi,bi->b", [(1, 3), (4, 3)]), ("abc,cd", [(2, 3, 4), (4, 5)]), ("...", [(2, 3)]),
          ("i...->...", [(2, 3, 4)]), ("ij,kl->ijkl", [(2, 3), (4, 5)]), ("jii->j", [(2, 3, 3)]),
          ("i j , j k -> i k", [(2, 3), (3, 2)]), ("ij,jk->ik", [(0, 3), (3, 2)]), ("ik,k->", [(2, 0), (0,)])]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e + str(i) for i, (e, _) in enumerate(EINSUM)])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_einsum_values_and_gradients(eq, shapes, dt):
    arrs = [arr(s, dt) for s in shapes]
    ps = [pair(a, requires_grad=True) for a in arrs]
    got = lt.einsum(eq, *[p[0] for p in ps])
    want = torch.einsum(eq, *[p[1] for p in ps])
    assert_same(got, want, rtol=1e-4 if dt == "float32" else 1e-10, atol=1e-5 if dt == "float32" else 1e-12)
    up = arr(tuple(want.shape), dt)
    (got * lt.from_numpy(up.copy())).sum().backward()
    (want * torch.from_numpy(up.copy())).sum().backward()
    for a, b in ps:
        assert_same(a.grad, b.grad, rtol=1e-4 if dt == "float32" else 1e-10, atol=1e-5 if dt == "float32" else 1e-12)


def test_einsum_list_form_and_integers():
    a, b = pair(arr((3, 4), "int64"))
    c, d = pair(arr((4, 2), "int64"))
    assert_same(lt.einsum("ij,jk->ik", [a, c]), torch.einsum("ij,jk->ik", [b, d]))


@pytest.mark.parametrize("eq,shapes,dts", [
    ("ij,j->i", [(2, 3), (3,)], ["float32", "float64"]),
    ("ij,j->i", [(2, 3), (4,)], None),
    ("ii->i", [(2, 3)], None),
    ("ij->k", [(2, 3)], None),
    ("ij->ii", [(2, 3)], None),
    ("ij", [(2,)], None),
    ("ij,jk", [(2, 3)], None),
    ("i,i", [(2,), (2,), (2,)], None),
    ("i$", [(2, 2)], None),
])
def test_einsum_bad_input_raises_like_torch(eq, shapes, dts):
    dts = dts or ["float32"] * len(shapes)
    ps = [pair(arr(s, dt)) for s, dt in zip(shapes, dts)]
    with pytest.raises(Exception) as want:
        torch.einsum(eq, *[p[1] for p in ps])
    with pytest.raises(type(want.value)) as got:
        lt.einsum(eq, *[p[0] for p in ps])
    assert "einsum" in str(got.value)


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((3,), -1), ((0,), 1), ((3, 4), 0), ((3, 4), 1),
                                     ((3, 4), -2), ((4, 3), -3)])
def test_diag_with_offsets(shape, k):
    a, b = pair(arr(shape, "float64"), requires_grad=True)
    got, want = lt.diag(a, k), torch.diag(b, k)
    assert_same(got, want)
    if got.numel():
        got.sum().backward()
        want.sum().backward()
        assert_same(a.grad, b.grad)


def test_diag_keeps_zeros_next_to_inf_and_rejects_3d():
    a, b = pair(np.array([np.inf, 1.0, np.nan]))
    assert_same(lt.diag(a), torch.diag(b))
    with pytest.raises(RuntimeError, match="diag"):
        lt.diag(lt.ones(2, 2, 2))
    with pytest.raises(RuntimeError):
        torch.diag(torch.ones(2, 2, 2))


def test_outer_and_cat_reject_what_torch_rejects():
    for m in (torch, lt):
        with pytest.raises(RuntimeError, match="outer"):
            m.ones(2, 2).outer(m.ones(2))
        with pytest.raises(TypeError, match="cat"):
            m.cat(m.ones(2, 3), 0)
        with pytest.raises(TypeError, match="stack"):
            m.stack(m.ones(2, 3), 0)
    assert_same(lt.ones(2).outer(lt.arange(3.0)), torch.ones(2).outer(torch.arange(3.0)))


def test_trace_function_survives_the_fusion_lab_submodule():
    """lazytensor.trace is both torch.trace and the fusion-lab module lazytensor/trace.py."""
    import importlib
    lab = importlib.import_module("lazytensor.trace")
    import lazytensor.trace as lab2
    assert lab2 is lab and hasattr(lab, "load") and lt.trace is lab
    a, b = pair(arr((3, 4), "float32"))
    assert_same(lt.trace(a), torch.trace(b))
    assert_same(a.trace(), b.trace())


# ---------------------------------------------------------------- torch.* functions
def test_addmm_family():
    agree(lambda m, i, a, b: m.addmm(i, a, b), [seeded(2, 4, seed=1), seeded(2, 3, seed=2), seeded(3, 4, seed=3)])
    agree(lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=2.0), [seeded(4, seed=1), seeded(2, 3, seed=2),
                                                                      seeded(3, 4, seed=3)])
    agree(lambda m, i, a, b: i.addmm(a, b, beta=0), [np.full((2, 4), np.nan, np.float32), seeded(2, 3, seed=2),
                                                      seeded(3, 4, seed=3)])
    ii = lambda *s: np.arange(int(np.prod(s))).reshape(s).astype(np.int64) - 3  # noqa: E731
    agree(lambda m, i, a, b: m.addmm(i, a, b, alpha=2, beta=3), [ii(2, 4), ii(2, 3), ii(3, 4)], grad=False)
    # integer tensors: float alpha/beta are truncated toward zero, as in PyTorch 1.13
    agree(lambda m, i, a, b: m.addmm(i, a, b, alpha=-1.7, beta=0.5), [ii(2, 4), ii(2, 3), ii(3, 4)], grad=False)
    agree(lambda m, i, a, b: m.addmv(i, a, b, alpha=2.5, beta=1.5), [ii(2), ii(2, 3), ii(3)], grad=False)
    agree(lambda m, i, a, b: m.baddbmm(i, a, b, alpha=0.5), [seeded(2, 2, 4, seed=4), seeded(2, 2, 3, seed=5),
                                                              seeded(2, 3, 4, seed=6)])
    agree(lambda m, i, a, b: i.baddbmm(a, b, beta=2.0), [seeded(1, 4, seed=4), seeded(2, 2, 3, seed=5),
                                                          seeded(2, 3, 4, seed=6)])
    agree(lambda m, i, a, b: m.addbmm(i, a, b, beta=0.5), [seeded(2, 4, seed=7), seeded(3, 2, 3, seed=8),
                                                            seeded(3, 3, 4, seed=9)])
    agree(lambda m, i, a, b: m.addmv(i, a, b, alpha=-1.0), [seeded(2, seed=10), seeded(2, 3, seed=11), seeded(3, seed=12)])
    agree(lambda m, a, b: m.mv(a, b), [seeded(2, 3, seed=11), seeded(3, seed=12)])
    agree(lambda m, a, b: a.mv(b), [seeded(2, 3, seed=11), seeded(3, seed=12)])


@pytest.mark.parametrize("p", [2, "fro", 3.0, 0, -math.inf])
def test_norm_zero_vector_and_p0(p):
    # found while adding cdist: norm(0) raised ZeroDivisionError; the 2-norm's gradient at a zero vector
    # was NaN (PyTorch: 0), so F.normalize of a zero row poisoned the gradients
    x = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], dtype=np.float32)
    agree(lambda m, a: a.norm(p, dim=1), [x], grad=p not in (0, -math.inf))
    if p in (2, "fro"):
        agree(lambda m, a: m.nn.functional.normalize(a, dim=1), [x])
        agree(lambda m, a: a.norm(), [np.zeros(3, np.float32)])


def test_cross():
    agree(lambda m, a, b: m.cross(a, b), [seeded(2, 3, seed=1), seeded(2, 3, seed=2)])
    agree(lambda m, a, b: m.cross(a, b), [seeded(3, 3, seed=1), seeded(3, 3, seed=2)])  # first size-3 dim: 0
    agree(lambda m, a, b: m.cross(a, b, dim=-1), [seeded(4, 3, seed=1), seeded(1, 3, seed=2)])
    agree(lambda m, a, b: a.cross(b, dim=1), [np.arange(6).reshape(2, 3), np.arange(6, 0, -1).reshape(2, 3)],
          grad=False)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf, 0.0])
def test_cdist(p):
    x1, x2 = seeded(4, 3, seed=30), seeded(5, 3, seed=31)
    x2[1] = x1[2]  # a zero distance: PyTorch's gradient is 0 there (no NaN)
    agree(lambda m, a, b: m.cdist(a, b, p=p), [x1, x2], grad=p != 0.0)
    agree(lambda m, a, b: m.cdist(a, b, p=p), [seeded(2, 3, 2, seed=32), seeded(1, 4, 2, seed=33)], grad=p != 0.0)
