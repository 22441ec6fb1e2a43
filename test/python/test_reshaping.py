"""Reshaping, joining, splitting and reordering (lazytensor/_reshaping.py) vs PyTorch 1.13: ravel, the
flips, the *stack and *split families, rot90, cartesian_prod, diff, roll, tile, movedim, meshgrid."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, ALL_DTYPES, arr, assert_same, grads_match, pair, raises_like, seeded, views


SHAPES = [(3, 4), (0, 3), (1,), (2, 3, 4), (1, 1)]


@pytest.mark.parametrize("view", ["none", "t", "step"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_ravel_fliplr_flipud(shape, dt, view):
    a, b = views(arr(shape, dt), view)
    assert_same(lt.ravel(a), torch.ravel(b))
    assert_same(a.ravel(), b.ravel())
    assert_same(lt.flipud(a), torch.flipud(b))
    assert_same(a.flipud(), b.flipud())
    if a.dim() >= 2:
        assert_same(lt.fliplr(a), torch.fliplr(b))
        assert_same(a.fliplr(), b.fliplr())
    else:
        raises_like(lambda: lt.fliplr(a), lambda: torch.fliplr(b), "fliplr")


def test_flip_errors_and_grads():
    a, b = pair(np.float32(2.0))
    raises_like(lambda: lt.flipud(a), lambda: torch.flipud(b), "flipud")
    raises_like(lambda: lt.ravel([1, 2]), lambda: torch.ravel([1, 2]), "ravel")
    x = arr((3, 4), "float64")
    grads_match(lambda t: lt.fliplr(t.t()), lambda t: torch.fliplr(t.t()), [x])
    grads_match(lambda t: lt.ravel(t.t()) * lt.arange(12.0, dtype=lt.float64),
                lambda t: torch.ravel(t.t()) * torch.arange(12.0, dtype=torch.float64), [x])


STACKS = [
    [(3,), (3,)],
    [(), (1,), (1, 2)],
    [(4, 2), (4,), (4, 3)],
    [(0,), (0, 2)],
    [(2, 3), (2, 3, 1)],          # column_stack: error (ndims); dstack: fine
    [(2, 3, 4), (2, 3, 1)],
    [(2,), (3,)],                 # size mismatch
    [(2, 3), (3, 3)],
]


@pytest.mark.parametrize("dts", [("float32", "float32"), ("int32", "float64"), ("bool", "int64")])
@pytest.mark.parametrize("shapes", STACKS, ids=str)
def test_column_stack_dstack_concatenate(shapes, dts):
    xs = [arr(s, dts[i % 2]) for i, s in enumerate(shapes)]
    ps = [pair(x) for x in xs]
    la, ta = [p[0] for p in ps], [p[1] for p in ps]
    for name in ("column_stack", "dstack"):
        try:
            want = getattr(torch, name)(ta)
        except RuntimeError:
            raises_like(lambda: getattr(lt, name)(la), lambda: getattr(torch, name)(ta), name)
            continue
        assert_same(getattr(lt, name)(la), want)
        assert_same(getattr(lt, name)(tuple(la)), getattr(torch, name)(tuple(ta)))
    if all(len(s) == len(shapes[0]) and len(s) > 0 for s in shapes):
        for dim in range(-len(shapes[0]), len(shapes[0])):
            try:
                want = torch.concatenate(ta, dim)
            except RuntimeError:
                raises_like(lambda: lt.concatenate(la, dim), lambda: torch.concatenate(ta, dim))
                continue
            assert_same(lt.concatenate(la, dim), want)
            assert_same(lt.concatenate(la, axis=dim), torch.concatenate(ta, axis=dim))


def test_stack_bad_arguments_and_grads():
    a, b = pair(arr((3, 2)))
    for name in ("column_stack", "dstack", "concatenate"):
        raises_like(lambda: getattr(lt, name)([]), lambda: getattr(torch, name)([]), name)
        raises_like(lambda: getattr(lt, name)(a), lambda: getattr(torch, name)(b), name)
        raises_like(lambda: getattr(lt, name)([a, 1.0]), lambda: getattr(torch, name)([b, 1.0]), name)
    x, y = arr((3, 2), "float64"), arr((3,), "float64")
    grads_match(lambda s, t: lt.column_stack([s, t]), lambda s, t: torch.column_stack([s, t]), [x, y])
    grads_match(lambda s, t: lt.dstack([s, t.reshape(3, 1) * s]), lambda s, t: torch.dstack([s, t.reshape(3, 1) * s]),
                [x, y])
    out = lt.zeros(3, 3)
    r = lt.column_stack([a, a[:, 0]], out=out)
    assert r is out
    assert_same(out, torch.column_stack([b, b[:, 0]]))


SPLITS = [3, 1, 4, 7, 10, [2], [1, 5, 3, 10, -2], (-10,), [], [0, 0], torch.tensor(2), torch.tensor([1, 4])]


@pytest.mark.parametrize("ios", SPLITS, ids=str)
@pytest.mark.parametrize("shape,dim", [((7,), 0), ((3, 7), 1), ((3, 7), -1), ((7, 2), 0), ((0, 4), 0), ((2, 1), 1)])
def test_tensor_split(shape, dim, ios):
    a, b = views(arr(shape), "none")
    la = lt.tensor(ios.tolist()) if isinstance(ios, torch.Tensor) else ios
    want = torch.tensor_split(b, ios, dim)
    assert_same(lt.tensor_split(a, la, dim), want)
    assert_same(a.tensor_split(la, dim), b.tensor_split(ios, dim))
    assert_same(a.tensor_split(la, dim=dim), b.tensor_split(ios, dim=dim))


def test_tensor_split_views_grads_errors():
    x = arr((4, 6), "float64")
    a, b = pair(x)
    pa, pb = lt.tensor_split(a.t(), [2], 0)[1], torch.tensor_split(b.t(), [2], 0)[1]
    assert_same(pa, pb)
    pa.fill_(9.0)  # pieces are views, as in PyTorch
    pb.fill_(9.0)
    assert_same(a, b)
    grads_match(lambda t: lt.tensor_split(t, 4, 1), lambda t: torch.tensor_split(t, 4, 1), [x])
    grads_match(lambda t: lt.tensor_split(t, [1, 3], 0), lambda t: torch.tensor_split(t, [1, 3], 0), [x])
    s, t = pair(np.float32(1.0))
    for fl, ft in [
        (lambda: lt.tensor_split(s, 2), lambda: torch.tensor_split(t, 2)),
        (lambda: lt.tensor_split(a, 0), lambda: torch.tensor_split(b, 0)),
        (lambda: lt.tensor_split(a, -1), lambda: torch.tensor_split(b, -1)),
        (lambda: lt.tensor_split(a, 2, 2), lambda: torch.tensor_split(b, 2, 2)),
        (lambda: lt.tensor_split(a, 2.0), lambda: torch.tensor_split(b, 2.0)),
        (lambda: lt.tensor_split(a, lt.tensor([[1, 2]])), lambda: torch.tensor_split(b, torch.tensor([[1, 2]]))),
        (lambda: lt.tensor_split(a, lt.tensor([1.0])), lambda: torch.tensor_split(b, torch.tensor([1.0]))),
    ]:
        raises_like(fl, ft, "tensor_split")


XSPLITS = [(("hsplit"), (6,), 3), ("hsplit", (6,), [1, 4]), ("hsplit", (2, 6), 2), ("hsplit", (2, 6, 1), [5]),
           ("hsplit", (2, 0), 1), ("vsplit", (4, 3), 2), ("vsplit", (4, 3), [3]), ("vsplit", (0, 2), 3),
           ("dsplit", (1, 2, 6), 3), ("dsplit", (2, 2, 4), [1, 2]),
           # errors
           ("hsplit", (), 1), ("hsplit", (2, 5), 2), ("vsplit", (6,), 2), ("vsplit", (3, 2), 0),
           ("dsplit", (2, 4), 2), ("dsplit", (2, 2, 4), 3)]


@pytest.mark.parametrize("dt", ["float32", "int64"])
@pytest.mark.parametrize("name,shape,ios", XSPLITS, ids=str)
def test_hsplit_vsplit_dsplit(name, shape, ios, dt):
    a, b = pair(arr(shape, dt))
    try:
        want = getattr(torch, name)(b, ios)
    except RuntimeError:
        raises_like(lambda: getattr(lt, name)(a, ios), lambda: getattr(torch, name)(b, ios), name)
        return
    assert_same(getattr(lt, name)(a, ios), want)
    assert_same(getattr(a, name)(ios), getattr(b, name)(ios))


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("shape,dims", [((3, 4), (0, 1)), ((3, 4), (1, 0)), ((2, 3, 4), (2, 0)), ((2, 3, 4), (-1, 1)),
                                        ((0, 3), (0, 1)), ((1, 1), (0, 1))], ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("bool", "step")])
def test_rot90(shape, dims, k, dt, view):
    a, b = views(arr(shape, dt), view)
    assert_same(lt.rot90(a, k, dims), torch.rot90(b, k, dims))
    assert_same(a.rot90(k, list(dims)), b.rot90(k, list(dims)))
    if dims == (0, 1):
        assert_same(lt.rot90(a, k), torch.rot90(b, k))
        assert_same(a.rot90(), b.rot90())


def test_rot90_grads_errors():
    x = arr((2, 3, 4), "float64")
    for k in (1, 2, 3):
        grads_match(lambda t: lt.rot90(t, k, [2, 1]), lambda t: torch.rot90(t, k, [2, 1]), [x])
    a, b = pair(x)
    for k, dims, inp in [(1, [0], a), (1, [0, 0], a), (1, [0, 3], a), (1, [0, -3], a), (1, [0, -4], a),
                         (1, [0, 1, 2], a), (1, [0, 1], a[0, 0])]:
        tin = b if inp is a else b[0, 0]
        raises_like(lambda: lt.rot90(inp, k, dims), lambda: torch.rot90(tin, k, dims), "rot90")


@pytest.mark.parametrize("sizes", [(2,), (2, 3), (3, 1, 2), (2, 0), (0,), (1, 1)], ids=str)
@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
def test_cartesian_prod(sizes, dt):
    ps = [pair(arr((s,), dt)) for s in sizes]
    assert_same(lt.cartesian_prod(*[p[0] for p in ps]), torch.cartesian_prod(*[p[1] for p in ps]))


def test_cartesian_prod_grads_errors():
    x, y = arr((3,), "float64"), arr((2,), "float64")
    grads_match(lambda s, t: lt.cartesian_prod(s, t), lambda s, t: torch.cartesian_prod(s, t), [x, y])
    (a, b), (c, d) = pair(x), pair(arr((2, 2), "float64"))
    raises_like(lambda: lt.cartesian_prod(a, c), lambda: torch.cartesian_prod(b, d), "cartesian_prod")
    raises_like(lambda: lt.cartesian_prod(), lambda: torch.cartesian_prod(), "cartesian_prod")
    raises_like(lambda: lt.cartesian_prod(a, a.to(lt.float32)), lambda: torch.cartesian_prod(b, b.float()),
                "cartesian_prod")
    raises_like(lambda: lt.cartesian_prod(a[0]), lambda: torch.cartesian_prod(b[0]), "cartesian_prod")


@pytest.mark.parametrize("kw", [{}, dict(n=2), dict(dim=0), dict(n=3, dim=1), dict(n=0)])
def test_diff(kw):
    agree(lambda m, a: m.diff(a, **kw), [seeded(3, 5, seed=20)])


def test_diff_prepend_append_bool_int():
    agree(lambda m, a, p, q: m.diff(a, dim=0, prepend=p, append=q), [seeded(3, 2, seed=1), seeded(1, 2, seed=2),
                                                                     seeded(2, 2, seed=3)])
    agree(lambda m, a, q: a.diff(n=2, append=q), [seeded(4, seed=1), seeded(1, seed=3)])
    agree(lambda m, a: m.diff(a > 0), [seeded(6, seed=4)], grad=False)
    agree(lambda m, a: m.diff(a, n=2), [np.array([1, 4, 9, 16, 25], np.int32)], grad=False)
    agree(lambda m, a: m.diff(a, n=7), [seeded(4, seed=4)])


@pytest.mark.parametrize("shifts,dims", [(2, None), (-1, 0), ((1, -2), (0, 1)), (7, 1), (0, 1)])
def test_roll(shifts, dims):
    agree(lambda m, a: m.roll(a, shifts, dims), [seeded(3, 4, seed=21)])
    agree(lambda m, a: a.roll(shifts, dims), [np.arange(12).reshape(3, 4)], grad=False)


def test_tile_movedim_kron():
    agree(lambda m, a: m.tile(a, (2,)), [seeded(2, 3, seed=1)])
    agree(lambda m, a: m.tile(a, (2, 1, 3)), [seeded(2, 3, seed=1)])
    agree(lambda m, a: a.tile((3, 2)), [seeded(2, seed=1)])
    agree(lambda m, a: m.movedim(a, 0, 2), [seeded(2, 3, 4, seed=2)])
    agree(lambda m, a: m.movedim(a, (0, 2), (2, 0)) * 1, [seeded(2, 3, 4, seed=2)])
    agree(lambda m, a: m.moveaxis(a, (-1, 0), (0, 1)), [seeded(2, 3, 4, seed=2)])
    agree(lambda m, a: a.movedim(1, -1), [seeded(2, 3, 4, seed=2)])
    agree(lambda m, a, b: m.kron(a, b), [seeded(2, 3, seed=3), seeded(2, 2, seed=4)])
    agree(lambda m, a, b: m.kron(a, b), [seeded(2, seed=3), seeded(3, 2, seed=4)])
    agree(lambda m, a, b: a.kron(b), [np.arange(4).reshape(2, 2), np.array([1, -1], np.int32)], grad=False)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    agree(lambda m, a, b, c: m.meshgrid(a, b, c, indexing=indexing),
          [seeded(2, seed=1), seeded(3, seed=2), seeded(4, seed=3)])
    agree(lambda m, a, b: m.meshgrid([a, b], indexing=indexing), [seeded(2, seed=1), np.array(3.0, np.float32)])
    agree(lambda m, a: m.meshgrid(a, indexing=indexing), [np.arange(3)], grad=False)


def test_meshgrid_default_warns_like_torch():
    for m in (lt, torch):
        with pytest.warns(UserWarning, match="indexing"):
            out = m.meshgrid(m.arange(2), m.arange(3))
        assert tuple(out[0].shape) == (2, 3)
