"""More torch.* functions composed from existing ops (lazytensor/_more.py) vs PyTorch 1.13.

Values, dtypes and shapes (sizes 0 and 1, non-contiguous views, bool/int/float dtypes), gradients under a random
upstream, Tensor methods and in-place forms, and the exception type of bad input.
"""
import functools
import operator

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, pair

DTYPES = ["float32", "float64", "int32", "int64", "bool"]
NUM_DTYPES = ["float32", "float64", "int32", "int64"]


def arr(shape, dt="float32"):
    if dt == "bool":
        return np.asarray(np.random.random_sample(shape) > 0.5)
    if dt.startswith("int"):
        return np.asarray(np.random.randint(-4, 5, shape)).astype(dt)
    return np.asarray(np.random.standard_normal(shape)).astype(dt)


def views(x, view):
    """The same data as lazytensor and torch tensors, optionally as a non-contiguous view."""
    if view == "t" and x.ndim >= 2:  # same shape and values, transposed strides
        a, b = pair(np.ascontiguousarray(np.swapaxes(x, 0, -1)))
        return a.transpose(0, -1), b.transpose(0, -1)
    a, b = pair(x)
    if view == "step" and a.dim() >= 1:
        a2, b2 = pair(np.repeat(x, 2, axis=-1))
        return a2[..., ::2], b2[..., ::2]
    return a, b


def ev(r):
    """Compute a result now (index errors surface at the sync), and return it."""
    if isinstance(r, (tuple, list)):
        for x in r:
            ev(x)
    elif isinstance(r, lt.Tensor):
        r.numpy()
    return r


def raises_like(f_lt, f_torch, name=None):
    """PyTorch raises; lazytensor raises the same builtin exception class (at the call or at the sync), and its
    message names the op."""
    with pytest.raises(Exception) as want:
        f_torch()
    with pytest.raises(Exception) as got:
        ev(f_lt())
    assert type(got.value) is type(want.value), (got.value, want.value)
    if name is not None:
        assert name in str(got.value), str(got.value)


def grads_match(f_lt, f_torch, arrays, rtol=1e-10, atol=1e-12):
    """f on float64 leaves made from arrays; the leaves' gradients under the same random upstream match."""
    la = [lt.from_numpy(np.array(x, dtype=np.float64)).requires_grad_(True) for x in arrays]
    ta = [torch.from_numpy(np.array(x, dtype=np.float64)).requires_grad_(True) for x in arrays]
    out_l, out_t = f_lt(*la), f_torch(*ta)
    if not isinstance(out_t, (tuple, list)):
        out_l, out_t = [out_l], [out_t]
    ups = [np.asarray(np.random.standard_normal(tuple(o.shape)), dtype=np.float64) for o in out_t]
    loss_l = functools.reduce(operator.add, [(o * lt.from_numpy(g)).sum() for o, g in zip(out_l, ups)])
    loss_t = functools.reduce(operator.add, [(o * torch.from_numpy(g)).sum() for o, g in zip(out_t, ups)])
    loss_l.backward()
    loss_t.backward()
    for x, y in zip(la, ta):
        if y.grad is None:
            assert x.grad is None or not np.any(x.grad.numpy())
        else:
            assert_same(x.grad, y.grad, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- ravel, flips, stacking
SHAPES = [(3, 4), (0, 3), (1,), (2, 3, 4), (1, 1)]


@pytest.mark.parametrize("view", ["none", "t", "step"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dt", DTYPES)
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


# ---------------------------------------------------------------- splitting
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
@pytest.mark.parametrize("dt", DTYPES)
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


# ---------------------------------------------------------------- contractions
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


# ---------------------------------------------------------------- NaN-aware and counting reductions
REDUCE_DIMS = [None, 0, -1, (0, 1), [1, 0], (), (-1,)]


def _with_nans(x):
    if x.dtype.kind == "f" and x.size:
        x = x.copy()
        x.flat[:: 3] = np.nan
    return x


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", REDUCE_DIMS, ids=str)
@pytest.mark.parametrize("shape,view", [((3, 4), "none"), ((3, 4), "t"), ((0, 3), "none"), ((1, 1), "none"),
                                        ((2, 5), "step")], ids=str)
@pytest.mark.parametrize("dt", DTYPES)
def test_nansum_nanmean(shape, view, dim, keepdim, dt):
    a, b = views(_with_nans(arr(shape, dt)), view)
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
    a, b = pair(_with_nans(arr((3, 4), dt_in)))
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
    x = _with_nans(arr((3, 4), "float64"))
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


# ---------------------------------------------------------------- take, take_along_dim
@pytest.mark.parametrize("index", [[[0, -1], [5, 2]], [3], [], [[]], 0, -12, [11, 11, -11]], ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int32", "t"), ("bool", "step"), ("float64", "t")])
def test_take(index, dt, view):
    a, b = views(arr((3, 4), dt), view)
    i = np.array(index, dtype=np.int64)
    (li, ti) = pair(i)
    assert_same(lt.take(a, li), torch.take(b, ti))
    assert_same(a.take(li), b.take(ti))


def test_take_grads_errors():
    x = arr((3, 4), "float64")
    i = np.array([[0, -1, 3], [5, 5, 2]])
    grads_match(lambda t: lt.take(t.t(), lt.from_numpy(i)), lambda t: torch.take(t.t(), torch.from_numpy(i)), [x])
    a, b = pair(x)
    for idx in ([12], [-13]):  # out of range: IndexError, as PyTorch (raised when the result is computed)
        raises_like(lambda: lt.take(a, lt.tensor(idx)), lambda: torch.take(b, torch.tensor(idx)))
    raises_like(lambda: lt.take(a, lt.tensor([1], dtype=lt.int32)), lambda: torch.take(b, torch.tensor([1]).int()),
                "take")
    raises_like(lambda: lt.take(a, [1]), lambda: torch.take(b, [1]), "take")
    e, f = pair(np.zeros((0, 2), dtype=np.float32))
    assert_same(lt.take(e, lt.tensor([], dtype=lt.int64)), torch.take(f, torch.tensor([], dtype=torch.int64)))


TAD = [((3, 4), (2, 4), 0), ((3, 4), (3, 1), 1), ((3, 4), (1, 2), -1), ((3, 4), (3, 4), None),
       ((2, 3, 4), (2, 1, 1), 2),
       ((2, 1, 4), (1, 3, 2), 2), ((3, 4), (3, 0), 1), ((0, 4), (0, 2), 1), ((3,), (5,), 0), ((3, 4), (2, 2), None)]


@pytest.mark.parametrize("case", TAD, ids=str)
@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
def test_take_along_dim(case, dt):
    sx, si, dim = case
    a, b = pair(arr(sx, dt))
    n = sx[dim] if dim is not None else int(np.prod(sx))
    i = np.random.randint(0, max(n, 1), si).astype(np.int64) if n else np.zeros(si, dtype=np.int64)
    li, ti = pair(i)
    try:
        want = torch.take_along_dim(b, ti, dim)
    except RuntimeError:
        raises_like(lambda: lt.take_along_dim(a, li, dim), lambda: torch.take_along_dim(b, ti, dim), "take_along_dim")
        return
    assert_same(lt.take_along_dim(a, li, dim), want)
    assert_same(a.take_along_dim(li, dim), b.take_along_dim(ti, dim))
    if dim is None:
        assert_same(a.take_along_dim(li), b.take_along_dim(ti))


def test_take_along_dim_sorted_grads_errors():
    x = arr((3, 5), "float64")
    a, b = pair(x)
    assert_same(lt.take_along_dim(a, a.argsort(1), 1), torch.take_along_dim(b, b.argsort(1), 1))
    i = np.array([[0, 4], [1, 1], [3, 2]])
    grads_match(lambda t: lt.take_along_dim(t, lt.from_numpy(i), 1),
                lambda t: torch.take_along_dim(t, torch.from_numpy(i), 1), [x])
    grads_match(lambda t: lt.take_along_dim(t.t(), lt.from_numpy(i.T.copy()), 0),
                lambda t: torch.take_along_dim(t.t(), torch.from_numpy(i.T.copy()), 0), [x])
    raises_like(lambda: lt.take_along_dim(a, lt.tensor([[5]]), 1),
                lambda: torch.take_along_dim(b, torch.tensor([[5]]), 1))
    raises_like(lambda: lt.take_along_dim(a, lt.tensor([[-1]]), 1),
                lambda: torch.take_along_dim(b, torch.tensor([[-1]]), 1))
    raises_like(lambda: lt.take_along_dim(a, lt.tensor([[1]], dtype=lt.int32), 1),
                lambda: torch.take_along_dim(b, torch.tensor([[1]], dtype=torch.int32), 1), "take_along_dim")
    raises_like(lambda: lt.take_along_dim(a, lt.tensor([1]), 0), lambda: torch.take_along_dim(b, torch.tensor([1]), 0),
                "take_along_dim")
    raises_like(lambda: lt.take_along_dim(a, lt.tensor([[1, 1], [0, 0]]), 1),
                lambda: torch.take_along_dim(b, torch.tensor([[1, 1], [0, 0]]), 1), "take_along_dim")
    raises_like(lambda: lt.take_along_dim(a, lt.tensor([[1]]), 2),
                lambda: torch.take_along_dim(b, torch.tensor([[1]]), 2),
                "take_along_dim")


# ---------------------------------------------------------------- index_fill, index_copy, scatter
@pytest.mark.parametrize("value", [2.5, -3, True, "tensor0d"], ids=str)
@pytest.mark.parametrize("dim,index", [(0, [1]), (1, [0, -1]), (-1, [2, 2, 0]), (1, []), (0, 0), (1, -4)], ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("bool", "none"), ("float64", "step"),
                                     ("int32", "none")])
def test_index_fill(dt, view, dim, index, value):
    a, b = views(arr((3, 4), dt), view)
    li, ti = pair(np.array(index, dtype=np.int64))
    lv, tv = (lt.tensor(1.5), torch.tensor(1.5)) if value == "tensor0d" else (value, value)
    assert_same(lt.index_fill(a, dim, li, lv), torch.index_fill(b, dim, ti, tv))
    assert_same(a.index_fill(dim, li, lv), b.index_fill(dim, ti, tv))
    r = a.index_fill_(dim, li, lv)
    assert r is a
    b.index_fill_(dim, ti, tv)
    assert_same(a, b)


def test_index_fill_grads_errors():
    x = arr((3, 4), "float64")
    i = np.array([3, 0, 3])
    grads_match(lambda t: lt.index_fill(t, 1, lt.from_numpy(i), 0.5),
                lambda t: torch.index_fill(t, 1, torch.from_numpy(i), 0.5),
                [x])
    grads_match(lambda t, v: lt.index_fill(t.t(), 0, lt.from_numpy(i), v.sum()),  # gradient for a tensor value
                lambda t, v: torch.index_fill(t.t(), 0, torch.from_numpy(i), v.sum()), [x, arr((2,), "float64")])
    s, t = pair(np.float32(3.0))
    assert_same(lt.index_fill(s, 0, lt.tensor([0]), 1.0), torch.index_fill(t, 0, torch.tensor([0]), 1.0))
    a, b = pair(x)
    for fl, ft in [
        (lambda: lt.index_fill(a, 1, lt.tensor([4]), 1.0), lambda: torch.index_fill(b, 1, torch.tensor([4]), 1.0)),
        (lambda: lt.index_fill(a, 1, lt.tensor([-5]), 1.0), lambda: torch.index_fill(b, 1, torch.tensor([-5]), 1.0)),
    ]:
        raises_like(fl, ft)
    for fl, ft in [
        (lambda: lt.index_fill(a, 2, lt.tensor([0]), 1.0), lambda: torch.index_fill(b, 2, torch.tensor([0]), 1.0)),
        (lambda: lt.index_fill(a, 1, lt.tensor([0], dtype=lt.int32), 1.0),
         lambda: torch.index_fill(b, 1, torch.tensor([0], dtype=torch.int32), 1.0)),
        (lambda: lt.index_fill(a, 1, lt.tensor([[0]]), 1.0), lambda: torch.index_fill(b, 1, torch.tensor([[0]]), 1.0)),
        (lambda: lt.index_fill(a, 1, lt.tensor([0]), lt.tensor([1.0])),
         lambda: torch.index_fill(b, 1, torch.tensor([0]), torch.tensor([1.0]))),
    ]:
        raises_like(fl, ft, "index_fill")


@pytest.mark.parametrize("dim,index,src_shape", [(0, [2, 0], (2, 4)), (1, [3], (3, 1)), (-1, [1, 0, 3, 2], (3, 4)),
                                                 (1, [], (3, 0)), (0, 1, (1, 4))], ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("bool", "none"), ("float64", "step")])
def test_index_copy(dt, view, dim, index, src_shape):
    a, b = views(arr((3, 4), dt), view)
    c, d = pair(arr(src_shape, dt))
    li, ti = pair(np.array(index, dtype=np.int64))
    assert_same(lt.index_copy(a, dim, li, c), torch.index_copy(b, dim, ti, d))
    assert_same(a.index_copy(dim, li, c), b.index_copy(dim, ti, d))
    r = a.index_copy_(dim, li, c)
    assert r is a
    b.index_copy_(dim, ti, d)
    assert_same(a, b)


def test_index_copy_grads_errors():
    x, y = arr((3, 4), "float64"), arr((3, 2), "float64")
    i = np.array([3, 1])
    grads_match(lambda t, s: lt.index_copy(t, 1, lt.from_numpy(i), s),
                lambda t, s: torch.index_copy(t, 1, torch.from_numpy(i), s), [x, y])
    s0, t0 = pair(np.float32(3.0))
    s1, t1 = pair(np.float32(5.0))
    assert_same(lt.index_copy(s0, 0, lt.tensor([0]), s1), torch.index_copy(t0, 0, torch.tensor([0]), t1))
    (a, b), (c, d) = pair(x), pair(y)
    cf, df = c.to(lt.float32), d.float()
    for fl, ft in [
        (lambda: lt.index_copy(a, 1, lt.tensor([4, 0]), c), lambda: torch.index_copy(b, 1, torch.tensor([4, 0]), d)),
        (lambda: lt.index_copy(a, 1, lt.tensor([-1, 0]), c), lambda: torch.index_copy(b, 1, torch.tensor([-1, 0]), d)),
        (lambda: lt.index_copy(a, 1, lt.tensor([0]), c), lambda: torch.index_copy(b, 1, torch.tensor([0]), d)),
        (lambda: lt.index_copy(a, 0, lt.tensor([0, 1]), c), lambda: torch.index_copy(b, 0, torch.tensor([0, 1]), d)),
        (lambda: lt.index_copy(a, 1, lt.tensor([0, 1]), c[0]),
         lambda: torch.index_copy(b, 1, torch.tensor([0, 1]), d[0])),
        (lambda: lt.index_copy(a, 1, lt.tensor([0, 1]), cf), lambda: torch.index_copy(b, 1, torch.tensor([0, 1]), df)),
        (lambda: lt.index_copy(a, 1, lt.tensor([0, 1], dtype=lt.int32), c),
         lambda: torch.index_copy(b, 1, torch.tensor([0, 1], dtype=torch.int32), d)),
        (lambda: lt.index_copy(a, 3, lt.tensor([0, 1]), c), lambda: torch.index_copy(b, 3, torch.tensor([0, 1]), d)),
    ]:
        raises_like(fl, ft)


def _perm_index(shape, dim, size):
    """An index of `shape` whose entries along dim are distinct (scatter without duplicates), from 0..size-1."""
    idx = np.argsort(np.random.random_sample(shape[:dim] + (size,) + shape[dim + 1:]), axis=dim)
    return np.take(idx, np.arange(shape[dim]), axis=dim).astype(np.int64)


@pytest.mark.parametrize("form", ["src", "src_big", "value", "value_kw", "src_kw"])
@pytest.mark.parametrize("dim,ishape", [(0, (2, 4)), (1, (3, 2)), (-1, (1, 3)), (0, (0, 4)), (1, (3, 4))], ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("bool", "none"), ("float64", "step")])
def test_scatter(dt, view, dim, ishape, form):
    a, b = views(arr((3, 4), dt), view)
    i = _perm_index(ishape, dim % 2, (3, 4)[dim % 2]) if ishape[0] else np.zeros(ishape, dtype=np.int64)
    li, ti = pair(i)
    src = arr((3, 4) if form == "src_big" else ishape, dt)
    c, d = pair(src)
    if form.startswith("src"):
        lkw, tkw = ({"src": c}, {"src": d}) if form == "src_kw" else ({}, {})
        largs, targs = ((), ()) if lkw else ((c,), (d,))
    else:
        lkw, tkw = ({"value": -2}, {"value": -2}) if form == "value_kw" else ({}, {})
        largs, targs = ((), ()) if lkw else ((1.5,), (1.5,))
    assert_same(lt.scatter(a, dim, li, *largs, **lkw), torch.scatter(b, dim, ti, *targs, **tkw))
    assert_same(a.scatter(dim, li, *largs, **lkw), b.scatter(dim, ti, *targs, **tkw))
    r = a.scatter_(dim, li, *largs, **lkw)
    assert r is a
    b.scatter_(dim, ti, *targs, **tkw)
    assert_same(a, b)


def test_scatter_duplicates_grads_errors():
    a, b = pair(arr((3, 4), "float32"))
    dup = np.array([[0, 0, 2, 2]])
    assert_same(lt.scatter(a, 0, lt.from_numpy(dup), 7.0), torch.scatter(b, 0, torch.from_numpy(dup), 7.0))
    # along dim, index may be longer than self (only the other dims are bounded by self's)
    assert_same(lt.scatter(a, 1, lt.tensor([[0, 1, 2, 0, 1]]), 1.0),
                torch.scatter(b, 1, torch.tensor([[0, 1, 2, 0, 1]]), 1.0))
    x, y = arr((3, 4), "float64"), arr((2, 4), "float64")
    i = _perm_index((2, 4), 0, 3)
    grads_match(lambda t, s: lt.scatter(t, 0, lt.from_numpy(i), s),
                lambda t, s: torch.scatter(t, 0, torch.from_numpy(i), s),
                [x, y])
    grads_match(lambda t: lt.scatter(t.t(), 1, lt.from_numpy(i.T.copy()), 0.0),
                lambda t: torch.scatter(t.t(), 1, torch.from_numpy(i.T.copy()), 0.0), [x])
    s0, t0 = pair(np.float32(3.0))
    assert_same(lt.scatter(s0, 0, lt.tensor(0), lt.tensor(5.0)),
                torch.scatter(t0, 0, torch.tensor(0), torch.tensor(5.0)))
    c, d = pair(arr((2, 4), "float32"))
    li, ti = lt.from_numpy(i), torch.from_numpy(i)
    for fl, ft, name in [
        (lambda: lt.scatter(a, 0, lt.tensor([[3]]), c), lambda: torch.scatter(b, 0, torch.tensor([[3]]), d), None),
        (lambda: lt.scatter(a, 1, lt.tensor([[-1]]), 1.0),
         lambda: torch.scatter(b, 1, torch.tensor([[-1]]), 1.0), None),
        (lambda: lt.scatter(a, 0, li, c.to(lt.float64)), lambda: torch.scatter(b, 0, ti, d.double()), "scatter"),
        (lambda: lt.scatter(a, 0, li.to(lt.int32), c), lambda: torch.scatter(b, 0, ti.int(), d), "scatter"),
        (lambda: lt.scatter(a, 0, li[0], c), lambda: torch.scatter(b, 0, ti[0], d), "scatter"),
        (lambda: lt.scatter(a, 0, li, c[0]), lambda: torch.scatter(b, 0, ti, d[0]), "scatter"),
        (lambda: lt.scatter(a, 0, lt.tensor([[0, 1, 2, 0, 1]]), 1.0),
         lambda: torch.scatter(b, 0, torch.tensor([[0, 1, 2, 0, 1]]), 1.0), "scatter"),
        (lambda: lt.scatter(a, 0, lt.zeros(3, 4, dtype=lt.int64), c),
         lambda: torch.scatter(b, 0, torch.zeros(3, 4, dtype=torch.int64), d), "scatter"),
        (lambda: lt.scatter(a, 2, li, c), lambda: torch.scatter(b, 2, ti, d), "scatter"),
    ]:
        raises_like(fl, ft, name)
    with pytest.raises(NotImplementedError, match="reduce"):
        lt.scatter(a, 0, li, c, reduce="add")


@pytest.mark.parametrize("shape,dim,index", [((3, 4), 0, 1), ((3, 4), 1, -1), ((2, 3, 4), -2, 2), ((3, 0), 0, 2),
                                             ((1,), 0, 0), ((3, 4), 0, 3), ((3, 4), 2, 0), ((3, 4), 0, -4)], ids=str)
@pytest.mark.parametrize("dts", [("float32", "float32"), ("int64", "int64"), ("float32", "int64"), ("bool", "bool"),
                                 ("float64", "float32")])
def test_select_scatter(shape, dim, index, dts):
    a, b = views(arr(shape, dts[0]), "none")
    try:
        sshape = tuple(torch.empty(shape).select(dim, index).shape)
    except (IndexError, RuntimeError):
        sshape = shape[1:]
    c, d = pair(arr(sshape, dts[1]))
    try:
        want = torch.select_scatter(b, d, dim, index)
    except (IndexError, RuntimeError):
        raises_like(lambda: lt.select_scatter(a, c, dim, index), lambda: torch.select_scatter(b, d, dim, index),
                    "select_scatter")
        return
    assert_same(lt.select_scatter(a, c, dim, index), want)
    assert_same(a.select_scatter(c, dim, index), b.select_scatter(d, dim, index))


def test_select_scatter_grads_errors():
    x, y = arr((3, 4), "float64"), arr((3,), "float64")
    grads_match(lambda t, s: lt.select_scatter(t, s, 1, 2), lambda t, s: torch.select_scatter(t, s, 1, 2), [x, y])
    grads_match(lambda t, s: lt.select_scatter(t.t(), s, 0, -1), lambda t, s: torch.select_scatter(t.t(), s, 0, -1),
                [x, y])
    (a, b), (c, d) = pair(x), pair(y)
    raises_like(lambda: lt.select_scatter(a, c[:2], 1, 0), lambda: torch.select_scatter(b, d[:2], 1, 0),
                "select_scatter")
    raises_like(lambda: lt.select_scatter(a, c.reshape(1, 3), 1, 0),
                lambda: torch.select_scatter(b, d.reshape(1, 3), 1, 0), "select_scatter")
    s, t = pair(np.float32(1.0))
    raises_like(lambda: lt.select_scatter(s, s, 0, 0), lambda: torch.select_scatter(t, t, 0, 0), "select_scatter")


# PyTorch 1.13.0a0 here mis-handles slice_scatter's default step (a size-1 slice, or "slice step must be
# positive" from the method), so the reference calls always pass step.
SLICES = [(0, None, None, 1), (1, 1, None, 2), (1, -3, -1, 1), (0, None, 2, 1), (1, 0, 100, 3), (1, 5, None, 1),
          (-1, -10, 2, 1), (1, 3, 1, 1), (0, 1, 2, 1), (1, None, None, 4)]


@pytest.mark.parametrize("dim,start,end,step", SLICES, ids=str)
@pytest.mark.parametrize("dts,view", [(("float32", "float32"), "none"), (("int64", "float32"), "t"),
                                      (("bool", "bool"), "none"), (("float64", "float64"), "step")])
def test_slice_scatter(dim, start, end, step, dts, view):
    a, b = views(arr((3, 5), dts[0]), view)
    sshape = list(b.shape)
    sshape[dim] = len(range(*slice(start, end, step).indices(sshape[dim])))
    c, d = pair(arr(tuple(sshape), dts[1]))
    want = torch.slice_scatter(b, d, dim, start, end, step)
    assert_same(lt.slice_scatter(a, c, dim, start, end, step), want)
    assert_same(a.slice_scatter(c, dim, start, end, step), b.slice_scatter(d, dim, start, end, step))
    if step == 1:
        assert_same(lt.slice_scatter(a, c, dim, start, end), want)
        assert_same(lt.slice_scatter(a, c, dim=dim, start=start, end=end), want)


def test_slice_scatter_grads_errors():
    x, y = arr((3, 5), "float64"), arr((3, 2), "float64")
    grads_match(lambda t, s: lt.slice_scatter(t, s, 1, 1, None, 3),
                lambda t, s: torch.slice_scatter(t, s, 1, 1, None, 3), [x, y])
    grads_match(lambda t, s: lt.slice_scatter(t.t(), s.t(), 0, 2, 4, 1),
                lambda t, s: torch.slice_scatter(t.t(), s.t(), 0, 2, 4, 1), [x, y])
    (a, b), (c, d) = pair(x), pair(y)
    for args in [(1, 0, 2, 0), (1, 0, 2, -1), (1, 0, 5, 1), (2, 0, 2, 1), (1, 4, 2, 1)]:
        raises_like(lambda: lt.slice_scatter(a, c, *args), lambda: torch.slice_scatter(b, d, *args), "slice_scatter")


# ---------------------------------------------------------------- elementwise
FMAX_VALUES = np.array([1.0, np.nan, -2.0, np.nan, 0.0, -0.0, np.inf, 3.0, 3.0], dtype=np.float64)
FMAX_OTHER = np.array([np.nan, 2.0, -3.0, np.nan, -0.0, 0.0, -np.inf, 3.0, 4.0], dtype=np.float64)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
@pytest.mark.parametrize("dts", [("float32", "float32"), ("float64", "float32"), ("int32", "float32"),
                                 ("int64", "int32"), ("bool", "bool"), ("bool", "int64"), ("int32", "float64_0d"),
                                 ("float32", "int64_0d"), ("float32", "float64_0d")])
def test_fmax_fmin_values_and_promotion(name, dts):
    def make(values, dt):
        if dt.endswith("_0d"):
            return np.asarray(values[1], dtype=dt[:-3])
        if dt == "bool":
            return np.nan_to_num(values) > 0
        return (np.nan_to_num(values, posinf=7, neginf=-7) if dt.startswith("int") else values).astype(dt)
    (a, b), (c, d) = pair(make(FMAX_VALUES, dts[0])), pair(make(FMAX_OTHER, dts[1]))
    assert_same(getattr(lt, name)(a, c), getattr(torch, name)(b, d))
    assert_same(getattr(a, name)(c), getattr(b, name)(d))
    assert_same(getattr(lt, name)(c, a), getattr(torch, name)(d, b))


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_broadcast_grads_errors(name):
    x = np.where(np.random.random_sample((3, 4)) > 0.7, np.nan, np.round(arr((3, 4), "float64")))
    y = np.array([np.nan, 0.0, 1.0, -1.0])
    (a, b), (c, d) = pair(x), pair(y)
    assert_same(getattr(lt, name)(a.t(), c.reshape(4, 1)), getattr(torch, name)(b.t(), d.reshape(4, 1)))
    # ties (rounded values repeat) go to input, NaN positions to the other operand, as PyTorch
    grads_match(lambda s, t: getattr(lt, name)(s, t), lambda s, t: getattr(torch, name)(s, t), [x, y])
    grads_match(lambda s, t: getattr(lt, name)(t, s), lambda s, t: getattr(torch, name)(t, s), [x, y])
    raises_like(lambda: getattr(lt, name)(a, c[:3]), lambda: getattr(torch, name)(b, d[:3]), name)
    raises_like(lambda: getattr(lt, name)(a, 2.0), lambda: getattr(torch, name)(b, 2.0), name)
    out = lt.zeros(3, 4, dtype=lt.float64)
    assert getattr(lt, name)(a, c, out=out) is out
    assert_same(out, getattr(torch, name)(b, d))


@pytest.mark.parametrize("dts", [("float32", "int64"), ("float64", "int32"), ("int64", "int64"), ("float32", "float64"),
                                 ("bool", "bool"), ("float64", "float32"), ("int32", "float32")])
def test_ldexp(dts):
    x = arr((3, 4), dts[0])
    e = np.random.randint(-3, 4, (3, 4))
    e[0, 0], e[0, 1] = 130, -140  # past float32's exponent range (PyTorch's 2**e is float32 for integers)
    e = e.astype(dts[1]) if dts[1] != "bool" else e > 0
    (a, b), (c, d) = pair(x), pair(e)
    assert_same(lt.ldexp(a, c), torch.ldexp(b, d))
    assert_same(a.ldexp(c.t().t()), b.ldexp(d))
    assert_same(lt.ldexp(a, c[0]), torch.ldexp(b, d[0]))
    if x.dtype.kind == "f" and torch.ldexp(b, d).dtype == b.dtype:
        r = a.ldexp_(c)
        assert r is a
        b.ldexp_(d)
        assert_same(a, b)


def test_ldexp_grads_errors():
    x, e = arr((3, 4), "float64"), arr((4,), "float64")
    grads_match(lambda s, t: lt.ldexp(s, t), lambda s, t: torch.ldexp(s, t), [x, e], rtol=1e-9)
    (a, b), (c, d) = pair(x), pair(e)
    raises_like(lambda: lt.ldexp(a, 2), lambda: torch.ldexp(b, 2), "ldexp")
    raises_like(lambda: lt.ldexp(a, c[:3]), lambda: torch.ldexp(b, d[:3]), "ldexp")


# ---------------------------------------------------------------- logspace, rot90, cov, trapezoid
LOGSPACE = [(0, 3, 4, 10.0), (-1, 2.5, 5, 3.0), (0, 3, 1, 10.0), (0, 3, 0, 10.0), (3, 0, 7, 10.0), (0.5, 3.7, 4, 10.0),
            (0, 3, 7, 2.5), (-2, 3, 6, 10.0), (0, 3, 4, -2.0), (1, 1, 3, 2.0)]


@pytest.mark.parametrize("args", LOGSPACE, ids=str)
@pytest.mark.parametrize("dt", [None, "float64", "int64", "int32"])
def test_logspace(args, dt):
    kw = {} if dt is None else {"dtype": getattr(torch, dt)}
    lkw = {} if dt is None else {"dtype": getattr(lt, dt)}
    want = torch.logspace(*args, **kw)
    assert_same(lt.logspace(*args, **lkw), want, rtol=1e-6)
    assert_same(lt.logspace(args[0], args[1], steps=args[2], base=args[3], **lkw), want, rtol=1e-6)


def test_logspace_tensor_args_grad_out_errors():
    assert_same(lt.logspace(lt.tensor(0), lt.tensor(2.0), 3), torch.logspace(torch.tensor(0), torch.tensor(2.0), 3))
    r = lt.logspace(0, 2, 3, requires_grad=True)
    assert r.requires_grad and r.is_leaf
    out = lt.zeros(5, dtype=lt.float64)
    assert lt.logspace(0, 1, 5, out=out) is out
    assert_same(out, torch.logspace(0, 1, 5, dtype=torch.float64))
    raises_like(lambda: lt.logspace(0, 3, -1), lambda: torch.logspace(0, 3, -1), "logspace")
    raises_like(lambda: lt.logspace(0, 3, 4, dtype=lt.bool), lambda: torch.logspace(0, 3, 4, dtype=torch.bool),
                "logspace")
    raises_like(lambda: lt.logspace(lt.tensor([0.0]), 3, 4), lambda: torch.logspace(torch.tensor([0.0]), 3, 4),
                "logspace")


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


# ---------------------------------------------------------------- isin, index constructors, misc
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("test", ["f32", "i64", "f64", "empty", "scalar_int", "scalar_float", "0d"])
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("int32", "step"), ("float64", "none")])
def test_isin(dt, view, test, invert):
    x = np.round(arr((3, 4), dt) if dt.startswith("int") else arr((3, 4), dt) * 2) / (1 if dt.startswith("int") else 2)
    a, b = views(x.astype(dt), view)
    tests = {"f32": np.array([0.5, 1.0, -1.0], np.float32), "i64": np.array([[0, 2], [-3, 7]], np.int64),
             "f64": np.array([0.1, 0.5, 2.0]), "empty": np.zeros((0,), np.float32)}
    if test in tests:
        lv, tv = pair(tests[test])
    elif test == "0d":
        lv, tv = pair(np.int64(1))
    else:
        lv = tv = 2 if test == "scalar_int" else -0.5
    assert_same(lt.isin(a, lv, invert=invert), torch.isin(b, tv, invert=invert))
    if test in ("f32", "i64"):
        assert_same(lt.isin(1, lv, invert=invert), torch.isin(1, tv, invert=invert))
        assert_same(lt.isin(a, lv, assume_unique=True), torch.isin(b, tv, assume_unique=True))


def test_isin_errors():
    a, b = pair(np.array([1.0, 2.0]))
    raises_like(lambda: lt.isin(a > 1, a), lambda: torch.isin(b > 1, b), "isin")
    raises_like(lambda: lt.isin(a, a > 1), lambda: torch.isin(b, b > 1), "isin")
    raises_like(lambda: lt.isin(1, 2), lambda: torch.isin(1, 2), "isin")
    e, f = pair(np.zeros((0, 3)))
    assert_same(lt.isin(e, a), torch.isin(f, b))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row,col,offset", [(3, 4, 0), (4, 3, 1), (4, 3, -1), (3, 3, -5), (3, 3, 5), (0, 4, 0),
                                            (4, 0, 1), (1, 1, 0), (5, 2, -2)])
def test_tril_triu_indices(name, row, col, offset):
    assert_same(getattr(lt, name)(row, col, offset), getattr(torch, name)(row, col, offset))
    assert_same(getattr(lt, name)(row, col, offset, dtype=lt.int32),
                getattr(torch, name)(row, col, offset, dtype=torch.int32))
    if offset == 0:
        assert_same(getattr(lt, name)(row, col), getattr(torch, name)(row, col))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tril_triu_indices_errors(name):
    raises_like(lambda: getattr(lt, name)(-1, 3), lambda: getattr(torch, name)(-1, 3), name)
    raises_like(lambda: getattr(lt, name)(3, -1), lambda: getattr(torch, name)(3, -1), name)
    raises_like(lambda: getattr(lt, name)(3, 3, dtype=lt.float32),
                lambda: getattr(torch, name)(3, 3, dtype=torch.float32),
                name)


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


@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 3, 4), (1, 1, 7), 6])
@pytest.mark.parametrize("dt", ["int64", "int32"])
def test_unravel_index(shape, dt):
    """torch 1.13 has no unravel_index: compared with NumPy, plus floor-modulo wrapping of negative indices."""
    n = int(np.prod(shape))
    idx = np.random.randint(0, n, (2, 3)).astype(dt)
    got = lt.unravel_index(lt.from_numpy(idx), shape)
    want = np.unravel_index(idx, shape)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == lt.int64 and tuple(g.shape) == idx.shape
        np.testing.assert_array_equal(g.numpy(), w)
    neg = lt.unravel_index(lt.from_numpy(idx - n), shape)
    for g, w in zip(neg, want):
        np.testing.assert_array_equal(g.numpy(), w)


def test_unravel_index_errors():
    with pytest.raises(TypeError, match="unravel_index"):
        lt.unravel_index(lt.tensor([1.0]), (2, 2))
    with pytest.raises(TypeError, match="unravel_index"):
        lt.unravel_index(lt.tensor([1]), (2.0, 2))
    with pytest.raises(ValueError, match="unravel_index"):
        lt.unravel_index(lt.tensor([1]), (2, -2))
    got = lt.unravel_index(lt.tensor(5), (2, 3))
    assert [g.item() for g in got] == [1, 2] and got[0].shape == ()


@pytest.mark.parametrize("shape", [(3, 4), (0, 3), (), (5,), (2, 1, 3)], ids=str)
@pytest.mark.parametrize("dt,view", [("float32", "none"), ("int64", "t"), ("bool", "step"), ("float64", "none")])
def test_argwhere_isreal(shape, dt, view):
    x = arr(shape, dt)
    if dt.startswith("int"):
        x = np.where(np.abs(x) > 2, 0, x).astype(dt)
    for val in (x, np.zeros_like(x), _with_nans(x)):  # NaN is nonzero, and real
        a, b = views(val, view)
        assert_same(lt.argwhere(a), torch.argwhere(b))
        assert_same(a.argwhere(), b.argwhere())
        assert_same(lt.isreal(a), torch.isreal(b))
        assert_same(a.isreal(), b.isreal())


@pytest.mark.parametrize("N", [None, 0, 1, 2, 5])
@pytest.mark.parametrize("increasing", [False, True])
@pytest.mark.parametrize("shape", [(4,), (1,), (0,)], ids=str)
@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64", "bool"])
def test_vander(shape, N, increasing, dt):
    a, b = views(arr(shape, dt), "step" if dt == "float64" else "none")
    assert_same(lt.vander(a, N, increasing), torch.vander(b, N, increasing), rtol=1e-6)
    assert_same(lt.vander(a, N=N, increasing=increasing), torch.vander(b, N=N, increasing=increasing), rtol=1e-6)


def _torch_vander(t, n, increasing=False):
    """The reference for vander's gradient: torch 1.13's own vander backward fails ("modified by an inplace
    operation")."""
    r = torch.cat([torch.ones(t.shape[0], 1, dtype=t.dtype), torch.cumprod(t.unsqueeze(1).expand(-1, n - 1), 1)], 1)
    return r if increasing else r.flip(1)


def test_vander_grads_errors():
    x = arr((4,), "float64")
    grads_match(lambda t: lt.vander(t, 5), lambda t: _torch_vander(t, 5), [x])
    grads_match(lambda t: lt.vander(t, 3, True), lambda t: _torch_vander(t, 3, True), [x])
    with pytest.raises(RuntimeError, match="inplace"):  # if this starts passing, compare with torch.vander directly
        torch.vander(torch.ones(3, dtype=torch.float64, requires_grad=True)).sum().backward()
    a, b = pair(x)
    raises_like(lambda: lt.vander(a, -1), lambda: torch.vander(b, -1), "vander")
    raises_like(lambda: lt.vander(a.reshape(2, 2)), lambda: torch.vander(b.reshape(2, 2)), "vander")
    raises_like(lambda: lt.vander(a[0]), lambda: torch.vander(b[0]), "vander")


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


def test_inplace_forms_chain_with_gradients():
    """scatter_, index_fill_ and index_copy_ on a non-leaf: values and the gradients through them."""
    x, s = arr((3, 4), "float64"), arr((2, 4), "float64")
    i = np.array([[0, 1, 2, 0], [1, 2, 0, 1]])

    def run(mod, t, u):
        y = t * 2
        y.scatter_(0, mod.from_numpy(i), u)
        y.index_fill_(1, mod.tensor([3]), -1.0)
        y.index_copy_(1, mod.tensor([0]), u[:1, :3].t() * 3)
        return y  # (torch 1.13's ldexp_ is not differentiable: "functions with out=... arguments")
    grads_match(lambda t, u: run(lt, t, u), lambda t, u: run(torch, t, u), [x, s])
    a = lt.from_numpy(x).requires_grad_(True)
    with pytest.raises(RuntimeError, match="leaf"):
        a.index_fill_(0, lt.tensor([0]), 1.0)


def test_isin_zero_dim_elements():
    a, b = pair(np.float32(2.0))
    c, d = pair(np.array([1.0, 2.0], dtype=np.float64))
    assert_same(lt.isin(a, c), torch.isin(b, d))
    assert_same(lt.isin(a, c, invert=True), torch.isin(b, d, invert=True))


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


def test_trace_function_survives_the_fusion_lab_submodule():
    """lazytensor.trace is both torch.trace and the fusion-lab module lazytensor/trace.py."""
    import importlib
    lab = importlib.import_module("lazytensor.trace")
    import lazytensor.trace as lab2
    assert lab2 is lab and hasattr(lab, "load") and lt.trace is lab
    a, b = pair(arr((3, 4), "float32"))
    assert_same(lt.trace(a), torch.trace(b))
    assert_same(a.trace(), b.trace())


# ---------------------------------------------------------------- einsum, diag, outer, cat
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
