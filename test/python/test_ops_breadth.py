"""Ops and forms PyTorch programs rely on (issue #23), against PyTorch 1.13: cummax/cummin, logcumsumexp,
isclose as a method, scatter_reduce and scatter(reduce=), F.pad's reflect/replicate/circular, 3-D conv and
pooling (+ modules), max_unpool, Tensor.unfold, repeat_interleave, the diag family, view(dtype), nested-list
indexing, 5-D and 'nearest-exact' interpolate, pow with a number base, flip's forms and retain_grad."""
import numpy as np
import pytest
import torch

import lazytensor as lt
import lazytensor.nn.functional as LF
import torch.nn.functional as TF
from conftest import agree, arr, assert_same, pair, raises_as, raises_like, rnd


def _grad_check(f_lt, f_torch, x, rtol=1e-9, atol=1e-10, upstream_seed=3):
    """f on a float64 leaf made from x: value and gradient (under a random upstream) match torch's."""
    a, b = pair(np.asarray(x, dtype=np.float64), requires_grad=True)
    out_l, out_t = f_lt(a), f_torch(b)
    assert_same(out_l, out_t, rtol=rtol, atol=atol)
    w = np.random.RandomState(upstream_seed).standard_normal(tuple(out_t.shape))
    (out_l * lt.from_numpy(w)).sum().backward()
    (out_t * torch.from_numpy(w)).sum().backward()
    assert_same(a.grad, b.grad, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- cummax, cummin, logcumsumexp

TIES = np.array([1., 3., 3., 2., 3., np.nan, 1., np.nan, 5.], dtype=np.float32)
SCAN_SHAPES = [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((2, 3, 4), -2), ((), 0), ((), -1),
               ((0,), 0), ((2, 0), 1), ((2, 0), 0), ((1, 7), 1)]


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
@pytest.mark.parametrize("shape,dim", SCAN_SHAPES, ids=str)
@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64", "bool"])
def test_cummax_cummin_values_indices_dtypes(fn, shape, dim, dt):
    x = arr(shape, dt)
    if dt.startswith("int"):
        x = (x % 3).astype(dt)  # many ties
    a, b = pair(x)
    got, want = getattr(lt, fn)(a, dim), getattr(torch, fn)(b, dim)
    assert_same(tuple(got), tuple(want))
    assert_same(got.values, want.values)
    assert_same(tuple(getattr(a, fn)(dim)), tuple(getattr(b, fn)(dim)))
    assert_same(tuple(getattr(a, fn)(dim=dim)), tuple(getattr(b, fn)(dim=dim)))


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
@pytest.mark.parametrize("data", [TIES, -TIES, np.array([np.inf, -np.inf, np.inf, np.nan, np.inf], np.float32),
                                  np.array([-np.inf, -np.inf, 0.0, -0.0], np.float32),
                                  np.array([2., 2., 2., 2.], np.float32)], ids=["ties", "neg", "infs", "ninf", "flat"])
def test_cummax_cummin_tie_rule_is_the_last_occurrence_and_nan_wins(fn, data):
    a, b = pair(data)
    assert_same(tuple(getattr(lt, fn)(a, 0)), tuple(getattr(torch, fn)(b, 0)))


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
def test_cummax_cummin_gradient_goes_to_the_index(fn):
    x = np.array([[1., 3., 3., 2., 3.], [5., 1., 7., 7., 0.]])
    _grad_check(lambda t: getattr(lt, fn)(t, 1).values, lambda t: getattr(torch, fn)(t, 1).values, x)
    _grad_check(lambda t: getattr(t, fn)(0)[0], lambda t: getattr(t, fn)(0)[0], x)


def test_cummax_out_and_errors():
    a, b = pair(arr((3, 4)))
    vals, idx = lt.zeros(3, 4), lt.zeros(3, 4, dtype=lt.int64)
    r = lt.cummax(a, 1, out=(vals, idx))
    assert_same(tuple(r), tuple(torch.cummax(b, 1)))
    assert_same(vals, torch.cummax(b, 1).values)
    raises_as(lambda: lt.cummax(a, 2), lambda: torch.cummax(b, 2), match="cummax")
    raises_as(lambda: lt.cummin(a, -3), lambda: torch.cummin(b, -3), match="cummin")
    raises_as(lambda: lt.cummax([1, 2], 0), lambda: torch.cummax([1, 2], 0), match="cummax")


@pytest.mark.parametrize("shape,dim", [s for s in SCAN_SHAPES], ids=str)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_logcumsumexp_values(shape, dim, dt):
    a, b = pair(arr(shape, dt) * 10)
    tol = dict(rtol=1e-5, atol=1e-5) if dt == "float32" else dict(rtol=1e-12, atol=1e-12)
    assert_same(lt.logcumsumexp(a, dim), torch.logcumsumexp(b, dim), **tol)
    assert_same(a.logcumsumexp(dim), b.logcumsumexp(dim), **tol)
    assert_same(a.logcumsumexp(dim=dim), b.logcumsumexp(dim=dim), **tol)


@pytest.mark.parametrize("data", [[-1000., 0., 1.], [1000., 1000., -1000., 1e4], [-np.inf, -np.inf, 0., np.inf],
                                  [np.inf, 1.0, np.inf], [np.nan, 1.0, 2.0], [1e30, -1e30, 1e30],
                                  [-2000., -2001., -1999.]], ids=str)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_logcumsumexp_is_stable(data, dt):
    a, b = pair(np.array(data, dtype=dt))
    assert_same(lt.logcumsumexp(a, 0), torch.logcumsumexp(b, 0), rtol=1e-6, atol=1e-6)


def test_logcumsumexp_gradient_out_and_errors():
    _grad_check(lambda t: lt.logcumsumexp(t, 1), lambda t: torch.logcumsumexp(t, 1), rnd(3, 9, scale=5.0))
    _grad_check(lambda t: t.logcumsumexp(0), lambda t: t.logcumsumexp(0), rnd(6, 2))
    a, b = pair(arr((2, 3)))
    o = lt.zeros(2, 3)
    lt.logcumsumexp(a, 1, out=o)
    assert_same(o, torch.logcumsumexp(b, 1))
    i, j = pair(np.arange(3))
    raises_as(lambda: lt.logcumsumexp(i, 0), lambda: torch.logcumsumexp(j, 0), match="logcumsumexp")
    raises_as(lambda: lt.logcumsumexp(a, 2), lambda: torch.logcumsumexp(b, 2), match="logcumsumexp")


# ---------------------------------------------------------------- isclose as a method

@pytest.mark.parametrize("kw", [{}, {"rtol": 0.1}, {"atol": 0.5}, {"equal_nan": True}, {"rtol": 0, "atol": 0}],
                         ids=str)
def test_isclose_method_matches_the_function(kw):
    x = np.array([1.0, np.nan, np.inf, -np.inf, 2.0, 0.0], dtype=np.float32)
    y = np.array([1.05, np.nan, np.inf, np.inf, 2.4, 1e-9], dtype=np.float32)
    (a, b), (c, d) = pair(x), pair(y)
    assert_same(a.isclose(c, **kw), b.isclose(d, **kw))
    assert_same(lt.isclose(a, c, **kw), torch.isclose(b, d, **kw))
    assert_same(a.reshape(1, 6).expand(2, 6).isclose(c, **kw), b.reshape(1, 6).expand(2, 6).isclose(d, **kw))
    assert_same(a.isclose(c[0], **kw), b.isclose(d[0], **kw))


# ---------------------------------------------------------------- scatter_reduce and scatter(reduce=)

REDUCES = ["sum", "prod", "mean", "amax", "amin"]
SCATTER_CASES = [  # input shape, dim, index (a numpy array), src shape
    ((5,), 0, np.array([0, 0, 2, 4, 2, 2]), (6,)),
    ((3, 4), 0, np.array([[0, 1, 2, 0], [0, 0, 2, 1]]), (2, 4)),
    ((3, 4), 1, np.array([[3, 3, 0], [1, 1, 1], [0, 2, 3]]), (3, 3)),
    ((3, 4), -1, np.array([[3, 3], [1, 0]]), (3, 5)),  # index smaller than self and src in the other dim
    ((2, 3, 4), 1, np.array([[[0, 2, 2, 1]], [[1, 1, 0, 0]]]), (2, 1, 4)),
    ((4,), 0, np.zeros((0,), dtype=np.int64), (0,)),
]


@pytest.fixture(params=["dense", "sorted"])
def scatter_path(request, monkeypatch):
    """prod/amax/amin as a masked reduction (small sizes) or by sorting the index (large ones; forced here)."""
    if request.param == "sorted":
        monkeypatch.setattr(lt._indexing, "DENSE_SCATTER_MAX", 0)
    return request.param


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("case", SCATTER_CASES, ids=lambda c: str(c[0]) + "-d" + str(c[1]) + "-" + str(c[2].shape))
@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32"])
def test_scatter_reduce_values(reduce, include_self, case, dt, scatter_path):
    shape, dim, index, sshape = case
    (a, b), (i, j), (s, t) = pair(arr(shape, dt)), pair(index.astype(np.int64)), pair(arr(sshape, dt))
    want = torch.scatter_reduce(b, dim, j, t, reduce, include_self=include_self)
    assert_same(lt.scatter_reduce(a, dim, i, s, reduce, include_self=include_self), want)
    assert_same(a.scatter_reduce(dim, i, s, reduce=reduce, include_self=include_self), want)
    c, d = a.clone(), b.clone()
    assert c.scatter_reduce_(dim, i, s, reduce, include_self=include_self) is c
    d.scatter_reduce_(dim, j, t, reduce, include_self=include_self)
    assert_same(c, d)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients(reduce, include_self, scatter_path):
    x = np.array([[1., 5., 3., 4.], [2., 0., 6., 6.], [3., 3., 0., 1.]])
    src = np.array([[1., 5., 5., 2.], [5., 0., 6., 2.], [3., 7., 0., 0.]])  # ties with self, zeros for prod
    index = np.array([[0, 0, 1, 1], [2, 2, 1, 1], [0, 1, 0, 1]])
    (i, j) = pair(index)
    agree(lambda m, x, s: m.scatter_reduce(x, 1, i if m is lt else j, s, reduce, include_self=include_self),
          [x, src], grad_rtol=1e-9, grad_atol=1e-12)


def test_scatter_reduce_nan_and_inf(scatter_path):
    x = np.array([1., np.nan, 0., -np.inf], dtype=np.float32)
    s = np.array([np.nan, 1., 2., np.inf, -np.inf], dtype=np.float32)
    index = np.array([0, 0, 1, 2, 3])
    for reduce in REDUCES:
        for inc in (True, False):
            (a, b), (c, d), (i, j) = pair(x), pair(s), pair(index)
            assert_same(lt.scatter_reduce(a, 0, i, c, reduce, include_self=inc),
                        torch.scatter_reduce(b, 0, j, d, reduce, include_self=inc))


def test_scatter_reduce_errors():
    (a, b), (s, t) = pair(arr((3, 4))), pair(arr((3, 4)))
    i, j = pair(np.array([[0, 1], [2, 0]]))
    raises_as(lambda: lt.scatter_reduce(a, 0, i, s, "max"), lambda: torch.scatter_reduce(b, 0, j, t, "max"),
              match="scatter_reduce")
    raises_as(lambda: lt.scatter_reduce(a, 0, i, s), lambda: torch.scatter_reduce(b, 0, j, t))
    raises_as(lambda: lt.scatter_reduce(a, 0, i.int(), s, "sum"), lambda: torch.scatter_reduce(b, 0, j.int(), t, "sum"),
              match="scatter_reduce")
    raises_as(lambda: lt.scatter_reduce(a, 0, i, s.double(), "sum"),
              lambda: torch.scatter_reduce(b, 0, j, t.double(), "sum"), match="scatter_reduce")
    raises_as(lambda: lt.scatter_reduce(a, 2, i, s, "sum"), lambda: torch.scatter_reduce(b, 2, j, t, "sum"),
              match="scatter_reduce")
    raises_as(lambda: lt.scatter_reduce(a, 0, i[0], s, "sum"), lambda: torch.scatter_reduce(b, 0, j[0], t, "sum"),
              match="scatter_reduce")
    big, bigt = pair(np.zeros((4, 5), dtype=np.int64))
    raises_as(lambda: lt.scatter_reduce(a, 0, big, s, "sum"), lambda: torch.scatter_reduce(b, 0, bigt, t, "sum"),
              match="scatter_reduce")
    before = a.numpy().copy()
    with pytest.raises(RuntimeError):
        a.scatter_reduce_(0, i, s, "median")
    np.testing.assert_array_equal(a.numpy(), before)  # a failed in-place call leaves the tensor alone


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("dt", ["float32", "int64"])
def test_scatter_with_reduce(reduce, dt, scatter_path):
    (a, b), (s, t) = pair(arr((3, 4), dt)), pair(arr((2, 4), dt))
    i, j = pair(np.array([[0, 1, 2, 0], [0, 0, 2, 1]]))
    assert_same(lt.scatter(a, 0, i, s, reduce=reduce), torch.scatter(b, 0, j, t, reduce=reduce))
    assert_same(a.scatter(0, i, s, reduce=reduce), b.scatter(0, j, t, reduce=reduce))
    assert_same(a.scatter(0, i, 2, reduce=reduce), b.scatter(0, j, 2, reduce=reduce))
    assert_same(a.scatter(0, i, value=3, reduce=reduce), b.scatter(0, j, value=3, reduce=reduce))
    c, d = a.clone(), b.clone()
    c.scatter_(0, i, s, reduce=reduce)
    d.scatter_(0, j, t, reduce=reduce)
    assert_same(c, d)
    raises_as(lambda: a.scatter(0, i, s, reduce="mean"), lambda: b.scatter(0, j, t, reduce="mean"), match="scatter")


def test_scatter_reduce_large_segments_take_the_sorted_path():
    """A graph-sized amax (the masked reduction would be 3000 x 20000 per feature) against torch."""
    x, i = rnd(3000, 4), np.random.randint(0, 3000, (20000, 1)).repeat(4, 1)
    s = rnd(20000, 4)
    agree(lambda m, x, s: m.scatter_reduce(x, 0, m.from_numpy(i), s, "amax", include_self=False), [x, s],
          rtol=1e-12, grad_rtol=1e-12)
    agree(lambda m, x, s: m.scatter_reduce(x, 0, m.from_numpy(i), s, "prod"), [x, s * 0 + 1.001],
          rtol=1e-9, grad_rtol=1e-9)


# ---------------------------------------------------------------- F.pad reflect / replicate / circular

PADS = [  # input shape, pad
    ((2, 5), (1, 2)), ((1, 2, 5), (3, 0)), ((1, 2, 5), (-1, 2)), ((1, 2, 5), (0, 0)), ((2, 5), (4, 4)),
    ((2, 4, 5), (1, 2, 3, 0)), ((1, 2, 4, 5), (2, 1, -1, 3)), ((1, 1, 3, 4, 5), (1, 1, 2, 0, 0, 2)),
    ((1, 3, 4, 5), (2, 2, 1, 1, 1, 2)), ((1, 1, 3, 4, 5), (-1, 1, 0, 2, 1, -1)), ((0, 2, 5), (1, 1)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PADS, ids=str)
def test_pad_modes_values_and_gradients(mode, shape, pad):
    x = rnd(*shape)
    (a, b) = pair(x)
    try:
        want = TF.pad(b, pad, mode=mode)
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e), match="pad"):
            LF.pad(a, pad, mode=mode)
        return
    assert_same(LF.pad(a, pad, mode=mode), want)
    if x.size:
        _grad_check(lambda t: LF.pad(t, pad, mode=mode), lambda t: TF.pad(t, pad, mode=mode), x)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "bool"])
def test_pad_modes_keep_the_dtype(mode, dt):
    a, b = pair(arr((1, 2, 3, 4), dt))
    got = LF.pad(a, (1, 1, 1, 1), mode=mode)
    if not dt.startswith("float") and mode != "circular":  # PyTorch 1.13 has only float reflect/replicate kernels
        assert_same(got, TF.pad(b.double(), (1, 1, 1, 1), mode=mode).to(b.dtype))
        return
    assert_same(got, TF.pad(b, (1, 1, 1, 1), mode=mode))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_mode_errors(mode):
    for shape, pad, value in [((3,), (1, 1), None), ((2, 3), (1, 1), 1.0), ((1, 2, 3), (1, 1, 1), None),
                              ((1, 2, 3), (4, 1), None), ((3, 3), (1, 1, 1, 1), None), ((1, 2, 3), (3, 0), None),
                              ((1, 2, 0), (1, 1), None), ((2, 3), (1, 1, 1, 1, 1, 1, 1, 1), None)]:
        a, b = pair(np.zeros(shape, dtype=np.float32))
        try:
            want = TF.pad(b, pad, mode=mode, value=value)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e), match="[Pp]ad") as got:
                LF.pad(a, pad, mode=mode, value=value)
            assert type(got.value) is type(e)
            continue
        assert_same(LF.pad(a, pad, mode=mode, value=value), want)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_padding_mode(mode, nd):
    torch.manual_seed(0)
    tm = getattr(torch.nn, "Conv{}d".format(nd))(2, 3, 3, padding=1, padding_mode=mode)
    lm = getattr(lt.nn, "Conv{}d".format(nd))(2, 3, 3, padding=1, padding_mode=mode)
    lm.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    x = rnd(2, 2, *([5] * nd), dt=np.float32)
    assert_same(lm(lt.from_numpy(x)), tm(torch.from_numpy(x)), rtol=1e-4, atol=1e-5)
    assert repr(lm) == repr(tm)


@pytest.mark.parametrize("name,args", [("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 2, 0, 1),)),
                                       ("ReflectionPad3d", (1,)), ("ReplicationPad1d", ((3, 1),)),
                                       ("ReplicationPad2d", (2,)), ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),)),
                                       ("ConstantPad1d", (2, 1.5)), ("ConstantPad2d", ((1, 0, 2, 1), -1.0)),
                                       ("ConstantPad3d", (1, 0.0)), ("ZeroPad2d", (1,))])
def test_padding_modules(name, args):
    x = rnd(1, 2, 3, 4, 5, dt=np.float32) if "3d" in name else rnd(2, 3, 4, dt=np.float32)
    lm, tm = getattr(lt.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert_same(lm(lt.from_numpy(x)), tm(torch.from_numpy(x)))
    assert repr(lm) == repr(tm)


# ---------------------------------------------------------------- 3-D convolution and pooling

CONV3D = [dict(), dict(stride=2), dict(padding=1), dict(padding=(1, 0, 2), dilation=(1, 2, 1)), dict(groups=2),
          dict(padding="same"), dict(stride=(1, 2, 1), bias=False)]


@pytest.mark.parametrize("kw", CONV3D, ids=str)
def test_conv3d(kw):
    kw = dict(kw)
    bias = kw.pop("bias", True)
    g = kw.get("groups", 1)
    x, w, bb = rnd(2, 4, 5, 6, 4), rnd(3 * g, 4 // g, 3, 2, 3), rnd(3 * g)
    arrays = [x, w, bb] if bias else [x, w]
    agree(lambda m, *t: m.nn.functional.conv3d(*t, **kw), arrays, rtol=1e-9, atol=1e-9, grad_rtol=1e-9,
          grad_atol=1e-9)
    agree(lambda m, x, w: m.nn.functional.conv3d(x[0], w, **kw), [x, w], rtol=1e-9, atol=1e-9)  # unbatched


@pytest.mark.parametrize("kw", [dict(), dict(stride=2), dict(stride=(2, 1, 3), padding=(1, 0, 1)),
                                dict(stride=2, output_padding=1), dict(groups=2, dilation=(1, 2, 1)),
                                dict(stride=3, padding=2, output_padding=(2, 0, 1))], ids=str)
def test_conv_transpose3d(kw):
    g = kw.get("groups", 1)
    x, w, bb = rnd(2, 4, 3, 4, 2), rnd(4, 3, 2, 3, 2), rnd(3 * g)
    agree(lambda m, *t: m.nn.functional.conv_transpose3d(*t, **kw), [x, w, bb], rtol=1e-9, atol=1e-9,
          grad_rtol=1e-9, grad_atol=1e-9)


def test_conv3d_modules_match_torch():
    torch.manual_seed(0)
    for tm, lm, shape in [(torch.nn.Conv3d(2, 4, (3, 2, 2), stride=(1, 2, 1), padding=1),
                           lt.nn.Conv3d(2, 4, (3, 2, 2), stride=(1, 2, 1), padding=1), (2, 2, 5, 6, 4)),
                          (torch.nn.ConvTranspose3d(2, 4, 3, stride=2, padding=1, output_padding=1),
                           lt.nn.ConvTranspose3d(2, 4, 3, stride=2, padding=1, output_padding=1), (1, 2, 3, 3, 2))]:
        lm.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
        assert [k for k in lm.state_dict()] == [k for k in tm.state_dict()]
        assert lm.weight.shape == tm.weight.shape
        x = rnd(*shape, dt=np.float32)
        assert_same(lm(lt.from_numpy(x)), tm(torch.from_numpy(x)), rtol=1e-4, atol=1e-5)
        assert repr(lm) == repr(tm)
    tm, lm = torch.nn.ConvTranspose3d(2, 1, 3, stride=2), lt.nn.ConvTranspose3d(2, 1, 3, stride=2)
    x = np.zeros((1, 2, 3, 3, 3), dtype=np.float32)
    assert tuple(lm(lt.from_numpy(x), output_size=[8, 7, 8]).shape) == \
        tuple(tm(torch.from_numpy(x), output_size=[8, 7, 8]).shape)


def test_conv3d_errors():
    for x, w in [((2, 4, 5, 5), (3, 4, 3, 3, 3)), ((2, 4, 5, 5, 5), (3, 4, 3, 3)), ((2, 4, 5, 5, 5), (3, 2, 3, 3, 3)),
                 ((1, 4, 2, 2, 2), (3, 4, 3, 3, 3))]:
        (a, b), (c, d) = pair(np.zeros(x, np.float32)), pair(np.zeros(w, np.float32))
        raises_as(lambda: LF.conv3d(a, c), lambda: TF.conv3d(b, d), match="conv3d")
    (a, b), (c, d) = pair(np.zeros((1, 4, 2, 2, 2), np.float32)), pair(np.zeros((4, 2, 3, 3), np.float32))
    raises_as(lambda: LF.conv_transpose3d(a, c), lambda: TF.conv_transpose3d(b, d), match="conv_transpose3d")


POOL3D = [dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=1), dict(kernel_size=3, stride=2, padding=1),
          dict(kernel_size=2, ceil_mode=True), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 0, 1))]


@pytest.mark.parametrize("kw", POOL3D + [dict(kernel_size=3, stride=1, dilation=(1, 2, 1))], ids=str)
def test_max_pool3d(kw):
    x = rnd(2, 3, 5, 6, 7)
    agree(lambda m, t: m.nn.functional.max_pool3d(t, **kw), [x], rtol=1e-12, grad_rtol=1e-12)
    agree(lambda m, t: m.nn.functional.max_pool3d(t, return_indices=True, **kw), [x], rtol=1e-12)
    agree(lambda m, t: m.nn.functional.max_pool3d(t[0], **kw), [x], rtol=1e-12)  # unbatched
    tm, lm = torch.nn.MaxPool3d(**kw), lt.nn.MaxPool3d(**kw)
    assert repr(lm) == repr(tm)
    agree(lambda m, t: (lm if m is lt else tm)(t), [x], rtol=1e-12)


@pytest.mark.parametrize("kw", POOL3D + [dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                         dict(kernel_size=2, divisor_override=3)], ids=str)
def test_avg_pool3d(kw):
    x = rnd(2, 3, 5, 6, 7)
    agree(lambda m, t: m.nn.functional.avg_pool3d(t, **kw), [x], rtol=1e-12, grad_rtol=1e-12)
    tm, lm = torch.nn.AvgPool3d(**kw), lt.nn.AvgPool3d(**kw)
    agree(lambda m, t: (lm if m is lt else tm)(t), [x], rtol=1e-12)


def test_pool3d_errors():
    (a, b) = pair(np.zeros((4, 4), np.float32))
    raises_as(lambda: LF.max_pool3d(a, 2), lambda: TF.max_pool3d(b, 2), match="max_pool3d")
    raises_as(lambda: LF.avg_pool3d(a, 2), lambda: TF.avg_pool3d(b, 2), match="avg_pool3d")
    (c, d) = pair(np.zeros((1, 1, 2, 2, 2), np.float32))
    raises_as(lambda: LF.avg_pool3d(c, 3), lambda: TF.avg_pool3d(d, 3), match="avg_pool3d")
    raises_as(lambda: LF.max_pool3d(c, 2, padding=2), lambda: TF.max_pool3d(d, 2, padding=2), match="max_pool3d")


# ---------------------------------------------------------------- max_unpool

@pytest.mark.parametrize("kw,shape", [(dict(kernel_size=2), (6, 8)), (dict(kernel_size=2), (6, 7)),
                                      (dict(kernel_size=3, stride=2, padding=1), (6, 7)),
                                      (dict(kernel_size=(2, 3), stride=(2, 1)), (6, 7)),
                                      (dict(kernel_size=3, stride=1), (5, 5))], ids=str)
def test_max_unpool2d_round_trip_and_gradient(kw, shape):
    x = rnd(2, 3, *shape)
    a, b = pair(x)
    lv, li = LF.max_pool2d(a, return_indices=True, **kw)
    tv, ti = TF.max_pool2d(b, return_indices=True, **kw)
    assert_same(li, ti)
    sizes = [list(shape), [2, 3] + list(shape)]
    default = [(tv.shape[2 + i] - 1) * (kw.get("stride") or kw["kernel_size"]) + kw["kernel_size"] -
               2 * kw.get("padding", 0) for i in range(2)] if isinstance(kw["kernel_size"], int) else None
    if default == list(shape):
        sizes.append(None)
    for size in sizes:
        ukw = dict(kw, output_size=size)
        agree(lambda m, v: m.nn.functional.max_unpool2d(v, li if m is lt else ti, **ukw), [tv.detach().numpy()],
              rtol=1e-12, grad_rtol=1e-12)
        lm, tm = lt.nn.MaxUnpool2d(**kw), torch.nn.MaxUnpool2d(**kw)
        assert repr(lm) == repr(tm)
        assert_same(lm(lv, li, output_size=size), tm(tv, ti, output_size=size))
    assert_same(LF.max_unpool2d(lv[0], li[0], output_size=shape, **kw),
                TF.max_unpool2d(tv[0], ti[0], output_size=shape, **kw))  # unbatched


def test_max_unpool_1d_3d():
    a, b = pair(rnd(1, 2, 8))
    lv, li = LF.max_pool1d(a, 2, return_indices=True)
    tv, ti = TF.max_pool1d(b, 2, return_indices=True)
    assert_same(LF.max_unpool1d(lv, li, 2), TF.max_unpool1d(tv, ti, 2))
    assert_same(lt.nn.MaxUnpool1d(2)(lv, li), torch.nn.MaxUnpool1d(2)(tv, ti))
    a, b = pair(rnd(1, 2, 4, 4, 6))
    lv, li = LF.max_pool3d(a, 2, return_indices=True)
    tv, ti = TF.max_pool3d(b, 2, return_indices=True)
    assert_same(LF.max_unpool3d(lv, li, 2), TF.max_unpool3d(tv, ti, 2))
    assert_same(lt.nn.MaxUnpool3d(2)(lv, li), torch.nn.MaxUnpool3d(2)(tv, ti))


def test_max_unpool2d_errors():
    a, b = pair(rnd(1, 1, 2, 2, dt=np.float32))
    i, j = pair(np.array([[[[0, 1], [4, 5]]]]))
    raises_as(lambda: LF.max_unpool2d(a, i.int(), 2), lambda: TF.max_unpool2d(b, j.int(), 2), match="max_unpool2d")
    raises_as(lambda: LF.max_unpool2d(a, i[0], 2), lambda: TF.max_unpool2d(b, j[0], 2), match="max_unpool2d")
    raises_as(lambda: LF.max_unpool2d(a, i, 2, output_size=(9, 9)),
              lambda: TF.max_unpool2d(b, j, 2, output_size=(9, 9)), match="max_unpool2d")
    k, m = pair(np.array([[[[0, 1], [4, 16]]]]))  # past the 4x4 output: raises when computed
    raises_like(lambda: LF.max_unpool2d(a, k, 2), lambda: TF.max_unpool2d(b, m, 2))


# ---------------------------------------------------------------- Tensor.unfold

@pytest.mark.parametrize("shape,dim,size,step", [((2, 5), 1, 2, 2), ((2, 5), -1, 3, 1), ((2, 5), 0, 2, 1),
                                                 ((2, 5), 1, 5, 3), ((2, 5), 1, 0, 1), ((2, 0), 1, 0, 1),
                                                 ((3, 4, 6), 2, 4, 2), ((3, 4, 6), 0, 1, 1), ((), 0, 1, 1),
                                                 ((7,), 0, 3, 2)], ids=str)
@pytest.mark.parametrize("dt", ["float64", "int32", "bool"])
def test_tensor_unfold(shape, dim, size, step, dt):
    x = arr(shape, dt)
    a, b = pair(x)
    assert_same(a.unfold(dim, size, step), b.unfold(dim, size, step))
    assert_same(a.unfold(dimension=dim, size=size, step=step), b.unfold(dimension=dim, size=size, step=step))
    if dt == "float64" and x.size:
        _grad_check(lambda t: t.unfold(dim, size, step), lambda t: t.unfold(dim, size, step), x)


def test_tensor_unfold_errors():
    a, b = pair(arr((2, 5)))
    for args in [(1, 6, 1), (1, 2, 0), (2, 1, 1), (-3, 1, 1)]:
        raises_as(lambda: a.unfold(*args), lambda: b.unfold(*args), match="unfold")
    c, d = pair(np.array(3.0))
    raises_as(lambda: c.unfold(0, 2, 1), lambda: d.unfold(0, 2, 1), match="unfold")


# ---------------------------------------------------------------- repeat_interleave

RI = [((2, 3), 2, None, {}), ((2, 3), 2, 0, {}), ((2, 3), 3, -1, {}), ((2, 3), 0, 1, {}), ((), 3, None, {}),
      ((0, 3), 2, 0, {}), ((2, 3), np.array([1, 2]), 0, {}), ((2, 3), np.array([0, 2, 1]), 1, {}),
      ((2, 3), np.array([1, 2, 0]), 1, {"output_size": 3}), ((2, 3), np.array(3), 0, {}),
      ((2, 3), np.array([2]), 1, {"output_size": 6}), ((4,), np.array([3, 0, 0, 1]), 0, {}),
      ((2, 2), np.array([1, 0, 2, 1]), None, {}), ((2, 3), 2, 1, {"output_size": 6}),
      ((3,), np.array([0, 0, 0]), 0, {}), ((3,), np.array([2, 0, 0]), 0, {"output_size": 2})]


@pytest.mark.parametrize("case", RI, ids=str)
@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
def test_repeat_interleave(case, dt):
    shape, repeats, dim, kw = case
    a, b = pair(arr(shape, dt))
    if isinstance(repeats, np.ndarray):
        rl, rt = pair(repeats.astype(np.int64))
    else:
        rl = rt = repeats
    want = torch.repeat_interleave(b, rt, dim, **kw)
    assert_same(lt.repeat_interleave(a, rl, dim, **kw), want)
    assert_same(a.repeat_interleave(rl, dim=dim, **kw), b.repeat_interleave(rt, dim=dim, **kw))
    assert_same(lt.repeat_interleave(a, repeats=rl, dim=dim, **kw), want)


def test_repeat_interleave_repeats_only_gradient_and_errors():
    r, s = pair(np.array([1, 2, 0, 3]))
    assert_same(lt.repeat_interleave(r), torch.repeat_interleave(s))
    assert_same(lt.repeat_interleave(r, output_size=6), torch.repeat_interleave(s, output_size=6))
    r2, s2 = pair(np.array([2, 1]))
    _grad_check(lambda t: lt.repeat_interleave(t, r2, dim=1), lambda t: torch.repeat_interleave(t, s2, dim=1),
                rnd(3, 2))
    _grad_check(lambda t: t.repeat_interleave(3, dim=0), lambda t: t.repeat_interleave(3, dim=0), rnd(3, 2))
    a, b = pair(arr((2, 2)))
    for rl, rt, kw in [(lt.tensor([1, 2, 3]), torch.tensor([1, 2, 3]), dict(dim=1)),
                       (lt.tensor([-1, 2]), torch.tensor([-1, 2]), dict(dim=1)), (-1, -1, {}),
                       (lt.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), dict(dim=0)),
                       (lt.tensor([1, 2]), torch.tensor([1, 2]), {}),
                       (lt.tensor([[1, 2]]), torch.tensor([[1, 2]]), dict(dim=0)),
                       (2, 2, dict(dim=2))]:
        raises_as(lambda: lt.repeat_interleave(a, rl, **kw), lambda: torch.repeat_interleave(b, rt, **kw),
                  match="repeat_interleave")


# ---------------------------------------------------------------- the diag family

@pytest.mark.parametrize("shape", [(4,), (3, 4), (4, 3), (1,), (0,), (0, 3), ()], ids=str)
@pytest.mark.parametrize("offset", [0, 1, -1, 2, -3, 5])
def test_diag_forms(shape, offset):
    x = np.asarray(np.random.randn(*shape))
    a, b = pair(x)
    for f in (lambda m, t: m.diag(t, offset), lambda m, t: t.diag(offset), lambda m, t: m.diag(t, diagonal=offset),
              lambda m, t: m.diagflat(t, offset), lambda m, t: t.diagflat(offset=offset)):
        try:
            want = f(torch, b)
        except RuntimeError as e:
            if "overflow" in str(e):  # PyTorch 1.13's diag of a matrix past its last diagonal; here empty
                assert_same(f(lt, a), torch.diagonal(b, offset).clone())
                continue
            with pytest.raises(RuntimeError, match="diag"):
                f(lt, a)
            continue
        assert_same(f(lt, a), want)
    if x.size:
        _grad_check(lambda t: t.diagflat(offset), lambda t: t.diagflat(offset), x)
        if len(shape) == 1 or (len(shape) == 2 and -shape[0] < offset < shape[1]):
            _grad_check(lambda t: lt.diag(t, offset), lambda t: torch.diag(t, offset), x)


@pytest.mark.parametrize("shape,offset,dim1,dim2", [((3, 4), 0, 0, 1), ((3, 4), 1, 1, 0), ((2, 3, 4), -1, 0, 2),
                                                    ((2, 3, 4), 2, -1, -2), ((2, 3, 4), 0, 1, 2), ((3, 3), 4, 0, 1)],
                         ids=str)
def test_diagonal_and_diag_embed(shape, offset, dim1, dim2):
    x = rnd(*shape)
    a, b = pair(x)
    assert_same(lt.diagonal(a, offset, dim1, dim2), torch.diagonal(b, offset, dim1, dim2))
    assert_same(a.diagonal(offset=offset, dim1=dim1, dim2=dim2), b.diagonal(offset=offset, dim1=dim1, dim2=dim2))
    assert_same(lt.diag_embed(a, offset, dim1, dim2), torch.diag_embed(b, offset, dim1, dim2))
    assert_same(a.diag_embed(offset=offset, dim1=dim1, dim2=dim2), b.diag_embed(offset=offset, dim1=dim1, dim2=dim2))
    _grad_check(lambda t: t.diagonal(offset, dim1, dim2), lambda t: t.diagonal(offset, dim1, dim2), x)
    _grad_check(lambda t: lt.diag_embed(t, offset, dim1, dim2), lambda t: torch.diag_embed(t, offset, dim1, dim2), x)


# ---------------------------------------------------------------- view(dtype)

@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"), ("float64", "int64"),
                                     ("int64", "float64"), ("float32", "float32"), ("float32", "int64"),
                                     ("float64", "float32"), ("int64", "int32"), ("float32", "bool"),
                                     ("bool", "bool")], ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (4,), (), (2, 3, 2), (2, 6)], ids=str)
def test_view_dtype(src, dst, shape):
    a, b = pair(arr(shape, src))
    ld, td = getattr(lt, dst), getattr(torch, dst)
    for f in (lambda t, d: t.view(d), lambda t, d: t.view(dtype=d), lambda t, d: t.t().view(d) if t.dim() == 2 else
              t.view(d)):
        try:
            want = f(b, td)
        except RuntimeError:
            with pytest.raises(RuntimeError, match="view"):
                f(a, ld)
            continue
        got = f(a, ld)
        assert_same(got, want)
        assert not got.requires_grad


def test_view_dtype_round_trip_bits_and_leaves_shape_views_alone():
    x = np.array([1.0, -0.0, np.inf, np.nan, 1e-40], dtype=np.float32)
    a, b = pair(x)
    assert_same(a.view(lt.int32), b.view(torch.int32))
    assert_same(a.view(lt.int32).view(lt.float32), b.view(torch.int32).view(torch.float32))
    c = lt.arange(6.0)
    v = c.view(2, 3)
    v[0, 0] = 7.0
    assert c[0].item() == 7.0  # view(shape) is still a view
    assert tuple(c.view(-1, 2).shape) == (3, 2) and tuple(c.view(size=(3, 2)).shape) == (3, 2)
    raises_as(lambda: lt.tensor(1.0).view(lt.int64), lambda: torch.tensor(1.0).view(torch.int64), match="view")
    e, f = lt.zeros(2, 0, dtype=lt.float64), torch.zeros(2, 0, dtype=torch.float64)
    assert_same(e.view(lt.int64), f.view(torch.int64))


# ---------------------------------------------------------------- nested-list indexing

GET = [lambda x: x[[0, 2], [1, 1]], lambda x: x[[[0, 1], [1, 0]]], lambda x: x[[[0, 1], [1, 0]], 0],
       lambda x: x[[[0, 2], [1, 0]], [[1], [3]]], lambda x: x[:, [[0, 1], [2, 3]]], lambda x: x[[0, slice(1, 3)]],
       lambda x: x[[[True, False, True]]], lambda x: x[[0, None]], lambda x: x[[[2, 1, 0]]], lambda x: x[[[], []]],
       lambda x: x[(0, 1), ], lambda x: x[[[0], [2]], [[1, 2]]], lambda x: x[[-1, -3], [[0], [-1]]],
       lambda x: x[[[[0, 1]]]], lambda x: x[[0, 1, 2] * 11]]


@pytest.mark.parametrize("k", range(len(GET)))
def test_nested_list_indexing_reads(k):
    a, b = pair(arr((3, 4)))
    try:
        want = GET[k](b)
    except (IndexError, RuntimeError, TypeError) as e:
        with pytest.raises(type(e)):
            GET[k](a)
        return
    assert_same(GET[k](a), want)


SET = [lambda x, v: x.__setitem__(([0, 2], [1, 1]), v), lambda x, v: x.__setitem__([[0, 1], [1, 0]], v),
       lambda x, v: x.__setitem__(([[0, 1], [1, 0]], 0), v), lambda x, v: x.__setitem__((slice(None), [[0, 1]]), v),
       lambda x, v: x.__setitem__([[[0, 2], [1, 0]]], v)]


@pytest.mark.parametrize("k", range(len(SET)))
@pytest.mark.parametrize("value", ["number", "tensor"])
def test_nested_list_indexing_writes(k, value):
    a, b = pair(arr((3, 4)))
    other_a, other_b = a[0], b[0]  # a view of the written tensor sees the write
    lone_a = a.clone()
    va, vb = (-1.0, -1.0) if value == "number" else (lt.tensor(-5.0), torch.tensor(-5.0))
    SET[k](a, va)
    SET[k](b, vb)
    assert_same(a, b)
    assert_same(other_a, other_b)
    assert not np.array_equal(lone_a.numpy(), a.numpy()) or np.array_equal(b.numpy(), b.numpy())


@pytest.mark.parametrize("index", [[0, 5], ([0, 5],), ([[0, 5]],), [[0, 5]], ([[0, 1]], [[1, 9]]),
                                   (Ellipsis, [[1, -5]]), (None, [0, -4]), (slice(None), [[4]])], ids=str)
def test_out_of_range_list_index_raises_at_the_call_and_leaves_the_tensor_alone(index):
    a, b = pair(arr((3, 4)))
    before = a.numpy().copy()
    raises_as(lambda: a.__setitem__(index, 1.0), lambda: b.__setitem__(index, 1.0), match="out of bounds")
    raises_as(lambda: a[index], lambda: b[index], match="out of bounds")
    np.testing.assert_array_equal(a.numpy(), before)


def test_nested_list_index_errors_name_the_index():
    a, b = pair(arr((3, 4)))
    raises_like(lambda: a[[[0, 5]]], lambda: b[[[0, 5]]])
    raises_like(lambda: a[[[0, 1], [1, 5]], 0], lambda: b[[[0, 1], [1, 5]], 0])
    raises_like(lambda: a[[[0, 1], [1, 0]], 0, 0], lambda: b[[[0, 1], [1, 0]], 0, 0])


# ---------------------------------------------------------------- interpolate: 5-D and nearest-exact

@pytest.mark.parametrize("kw", [dict(size=(4, 6, 3)), dict(scale_factor=2), dict(scale_factor=(1.5, 0.5, 2.0)),
                                dict(size=(2, 3, 7))], ids=str)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "trilinear", "trilinear-ac"])
def test_interpolate_5d(kw, mode):
    extra = {}
    if mode == "trilinear-ac":
        mode, extra = "trilinear", dict(align_corners=True)
    x = rnd(2, 3, 3, 4, 5)
    agree(lambda m, t: m.nn.functional.interpolate(t, mode=mode, **kw, **extra), [x], rtol=1e-9, atol=1e-9,
          grad_rtol=1e-9, grad_atol=1e-9)


@pytest.mark.parametrize("shape", [(1, 2, 7), (2, 1, 5, 7)], ids=str)
@pytest.mark.parametrize("kw", [dict(scale_factor=1.7), dict(scale_factor=0.6), dict(size=11), dict(size=3)],
                         ids=str)
def test_interpolate_nearest_exact(shape, kw):
    x = rnd(*shape)
    agree(lambda m, t: m.nn.functional.interpolate(t, mode="nearest-exact", **kw), [x], rtol=1e-12,
          grad_rtol=1e-12)
    lm = lt.nn.Upsample(mode="nearest-exact", **kw)
    tm = torch.nn.Upsample(mode="nearest-exact", **kw)
    a, b = pair(x)
    assert_same(lm(a), tm(b))


def test_interpolate_mode_dim_errors():
    for shape, mode in [((1, 1, 4, 4), "trilinear"), ((1, 1, 2, 2, 2), "bilinear"), ((1, 1, 2, 2, 2), "linear"),
                        ((1, 1, 2, 2, 2, 2), "nearest")]:
        a, b = pair(np.zeros(shape, np.float32))
        raises_as(lambda: LF.interpolate(a, scale_factor=2, mode=mode),
                  lambda: TF.interpolate(b, scale_factor=2, mode=mode))
    a, b = pair(np.zeros((1, 1, 2, 2, 2), np.float32))
    raises_as(lambda: LF.interpolate(a, scale_factor=2, mode="nearest-exact", align_corners=True),
              lambda: TF.interpolate(b, scale_factor=2, mode="nearest-exact", align_corners=True))


# ---------------------------------------------------------------- pow with a number base

@pytest.mark.parametrize("base", [2, 2.5, 0, -1.5, True, np.float64(1.5)], ids=str)
@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32"])
def test_pow_number_base(base, dt):
    x = np.abs(arr((2, 3), dt)) if dt.startswith("int") else arr((2, 3), dt)
    a, b = pair(x)
    tol = dict(rtol=1e-6, atol=1e-6)
    assert_same(lt.pow(base, a), torch.pow(base, b), **tol)
    assert_same(base ** a, base ** b, **tol)
    assert_same(lt.pow(self=base, exponent=a), torch.pow(self=base, exponent=b), **tol)
    assert_same(lt.pow(base, exponent=a), torch.pow(base, exponent=b), **tol)
    o, p = lt.zeros(2, 3, dtype=(base ** a).dtype), torch.zeros(2, 3, dtype=(base ** b).dtype)
    assert_same(lt.pow(base, a, out=o), torch.pow(base, b, out=p), **tol)
    assert_same(o, p, **tol)


def test_pow_number_base_gradient_and_tensor_forms():
    _grad_check(lambda t: lt.pow(2.5, t), lambda t: torch.pow(2.5, t), rnd(2, 3))
    _grad_check(lambda t: 3 ** t, lambda t: 3 ** t, rnd(4))
    (a, b), (c, d) = pair(arr((3,))), pair(np.abs(arr((3,))))
    assert_same(lt.pow(c, 2), torch.pow(d, 2))
    assert_same(lt.pow(c, a), torch.pow(d, b), rtol=1e-6)
    assert_same(lt.pow(input=c, exponent=3), torch.pow(input=d, exponent=3), rtol=1e-6)
    raises_as(lambda: lt.pow(2, 3), lambda: torch.pow(2, 3))
    raises_as(lambda: lt.pow("2", a), lambda: torch.pow("2", b))


# ---------------------------------------------------------------- flip forms

FLIPS = [lambda m, t: m.flip(t, (0,)), lambda m, t: m.flip(t, [0, 2]), lambda m, t: m.flip(t, dims=(-1, 1)),
         lambda m, t: t.flip(0), lambda m, t: t.flip(0, 1), lambda m, t: t.flip([1, 2]), lambda m, t: t.flip(dims=(2,)),
         lambda m, t: t.flip(()), lambda m, t: t.flip(-1, -3)]


@pytest.mark.parametrize("k", range(len(FLIPS)))
def test_flip_forms(k):
    agree(FLIPS[k], [rnd(2, 3, 4)], rtol=1e-12, grad_rtol=1e-12)


def test_flip_edge_cases_and_errors():
    for x in (np.array(3.0), np.zeros((0, 2))):
        a, b = pair(x)
        assert_same(a.flip(0) if x.ndim else lt.flip(a, (0,)), b.flip(0) if x.ndim else torch.flip(b, (0,)))
    a, b = pair(rnd(2, 3))
    raises_as(lambda: a.flip(0, 0), lambda: b.flip(0, 0))
    raises_as(lambda: a.flip(2), lambda: b.flip(2))
    raises_as(lambda: lt.flip(a, (0, 2)), lambda: torch.flip(b, (0, 2)))


# ---------------------------------------------------------------- retain_grad

def test_retain_grad_fills_grad_of_non_leaves_and_accumulates():
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = y * y
        w = z.sum()
        w.backward(retain_graph=True)
        first = y.grad.clone()
        w.backward()
        return x.grad, first, y.grad, z.grad, y.retains_grad, z.retains_grad, x.retains_grad
    got, want = run(lt), run(torch)
    assert_same(got[:3], want[:3])
    assert got[3] is None and want[3] is None
    assert got[4:] == want[4:]


def test_retain_grad_on_views_chains_and_explicit_gradients():
    def run(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        g = x * 1
        g.retain_grad()
        h = g[0]
        h.retain_grad()
        k = (h * 5).exp()
        k.retain_grad()
        k.retain_grad()  # twice is once
        k.backward(m.tensor([1.0, -1.0]))
        unrelated = (x * 7)
        unrelated.retain_grad()
        return x.grad, g.grad, h.grad, k.grad, unrelated.grad
    got, want = run(lt), run(torch)
    assert_same(got[:4], want[:4], rtol=1e-6)
    assert got[4] is None and want[4] is None


def test_retain_grad_errors_and_leaves():
    raises_as(lambda: lt.ones(2).retain_grad(), lambda: torch.ones(2).retain_grad())
    x = lt.ones(2, requires_grad=True)
    assert x.retain_grad() is None and not x.retains_grad
    (x * 2).sum().backward()
    assert_same(x.grad, torch.full((2,), 2.0))


# ---------------------------------------------------------------- laziness and long scans

def test_new_ops_record_without_syncing():
    x = lt.randn(4, 300)
    lt.sync(x)
    before = lt.debug.counters()["syncs"]
    i = lt.zeros(4, 300, dtype=lt.int64) + 2
    outs = [lt.cummax(x, 1).values, lt.cummin(x, 0).indices, lt.logcumsumexp(x, 1),
            lt.repeat_interleave(x, lt.tensor([1, 2, 0, 1]) + 0, dim=0, output_size=4),
            LF.pad(x.reshape(1, 4, 300), (2, 3), mode="reflect"), LF.pad(x.reshape(1, 4, 300), (2, 3), mode="circular"),
            lt.scatter_reduce(lt.zeros(4, 5), 1, i, x, "amax"), lt.scatter_reduce(lt.zeros(4, 5), 1, i, x, "mean"),
            x.unfold(1, 4, 3), lt.pow(2, x), lt.diagflat(x[0]),
            LF.interpolate(x.reshape(1, 1, 4, 5, 60), scale_factor=2, mode="trilinear")]
    assert lt.debug.counters()["syncs"] == before
    lt.sync(*outs)
    assert lt.debug.counters()["syncs"] == before + 1


def test_repeat_interleave_without_output_size_reads_repeats_once():
    x = lt.randn(4, 3)
    r = lt.tensor([1, 2, 0, 1]) * 1
    lt.sync(x)
    before = lt.debug.counters()["syncs"]
    lt.repeat_interleave(x, r, dim=0)
    assert lt.debug.counters()["syncs"] == before + 1


@pytest.mark.parametrize("n", [257, 1000])
def test_long_scans_match_torch(n):
    a, b = pair(np.round(rnd(3, n) * 4).astype(np.float32))  # rounded: many ties
    assert_same(tuple(lt.cummax(a, 1)), tuple(torch.cummax(b, 1)))
    assert_same(tuple(lt.cummin(a, 1)), tuple(torch.cummin(b, 1)))
    assert_same(lt.logcumsumexp(a, 1), torch.logcumsumexp(b, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,rounds", [(16, 4), (300, 9), (5000, 13)])
def test_scans_are_one_kernel_per_round(n, rounds):
    """log2(n) rounds, each stored: inlining them would compute 3**rounds copies per element."""
    x = lt.randn(4, n)
    lt.sync(x)
    lt.debug.reset_counters()
    lt.sync(lt.logcumsumexp(x, 1))
    assert lt.debug.counters()["kernels_launched"] == rounds + 1
    lt.debug.reset_counters()
    lt.sync(*lt.cummax(x, 1))
    assert lt.debug.counters()["kernels_launched"] == 2 * rounds + 2
