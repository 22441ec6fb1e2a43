"""conv1d/conv2d/conv3d configurations against PyTorch 1.13: values and the gradients of input, weight and bias.

CASES varies one axis at a time from a base case (stride, padding, dilation, groups, bias, dtype, memory
layout of input and weight, kernel sizes that tile the input, odd sizes that strides do not divide, batch 1,
unbatched), plus a few cases that combine them; GRID is the cross product of stride, padding, dilation,
groups and bias. Gradients come from backward of `(y * g).sum()` with a fixed random g. lazytensor has no
channels_last memory format, so channels-last input is an [N, *S, C] leaf seen through a permute.
Shapes are tiny (every new shape is a JIT compile): batch 2, 2-6 channels, spatial sizes 5-9.
"""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same

LF, TF = lt.nn.functional, torch.nn.functional

TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}

# Spatial sizes and kernel sizes per rank: odd sizes, and a kernel that differs per dim where there are dims.
SPATIAL = {1: (9,), 2: (7, 6), 3: (5, 6, 5)}
KERNEL = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}


def _case(nd, cin=4, cout=4, groups=1, bias=True, dtype=np.float32, batch=2, spatial=None, kernel=None,
          x_layout="contiguous", w_layout="contiguous", **kw):
    return dict(nd=nd, cin=cin, cout=cout, groups=groups, bias=bias, dtype=dtype, batch=batch,
                spatial=spatial or SPATIAL[nd], kernel=kernel or KERNEL[nd], x_layout=x_layout, w_layout=w_layout,
                kw=kw)


def _per_rank(nd):
    """The single-axis variations of the base case, for rank nd."""
    mixed_stride = {1: (2,), 2: (2, 1), 3: (2, 1, 2)}[nd]
    per_dim_pad = {1: (2,), 2: (1, 0), 3: (0, 1, 2)}[nd]
    mixed_dil = {1: (2,), 2: (1, 2), 3: (2, 1, 1)}[nd]
    return {
        "base": _case(nd),
        "stride2": _case(nd, stride=2),
        "stride_mixed": _case(nd, stride=mixed_stride),
        "pad1": _case(nd, padding=1),
        "pad_per_dim": _case(nd, padding=per_dim_pad),
        "same": _case(nd, padding="same"),  # even kernel dims: torch pads the far side one more
        "same_dilated": _case(nd, padding="same", dilation=2),
        "valid": _case(nd, padding="valid"),
        "dilation2": _case(nd, dilation=2),
        "dilation_mixed": _case(nd, dilation=mixed_dil),
        "groups2": _case(nd, groups=2, cout=6),
        "depthwise": _case(nd, cin=4, cout=4, groups=4),
        "depthwise_mult2": _case(nd, cin=3, cout=6, groups=3),
        "no_bias": _case(nd, bias=False),
        "float64": _case(nd, dtype=np.float64),
        "batch1": _case(nd, batch=1),
        "unbatched": _case(nd, batch=None),
        "channels_last": _case(nd, x_layout="channels_last"),
        "x_sliced": _case(nd, x_layout="sliced"),
        "w_transposed": _case(nd, w_layout="transposed"),
        "w_sliced": _case(nd, w_layout="sliced"),
        "kernel1": _case(nd, kernel=(1,) * nd, cout=6),  # windows tile the input: the reshape path
        "kernel1_stride2": _case(nd, kernel=(1,) * nd, cout=6, stride=2),  # ResNet's projection skip
        "kernel_eq_stride": _case(nd, kernel=(2,) * nd, stride=2),  # tiles the covered part, drops the rest
        # stride does not divide (size + 2 * pad - window): the far rows are dropped
        "uneven_stride": _case(nd, spatial={1: (8,), 2: (8, 9), 3: (6, 7, 6)}[nd], kernel=(3,) * nd, stride=(3,) * nd,
                               padding=1),
        "combined": _case(nd, cin=4, cout=6, groups=2, stride=2, padding=1, dilation=2,
                          spatial={1: (9,), 2: (9, 8), 3: (7, 6, 7)}[nd]),
        "combined_f64": _case(nd, cin=6, cout=6, groups=6, dtype=np.float64, stride=mixed_stride,
                              padding=per_dim_pad, dilation=mixed_dil, x_layout="channels_last",
                              w_layout="transposed", spatial={1: (9,), 2: (8, 7), 3: (7, 6, 5)}[nd]),
        "combined_same": _case(nd, cin=4, cout=2, groups=2, dtype=np.float64, padding="same",
                               dilation=mixed_dil, batch=1, bias=False, w_layout="sliced"),
    }


CASES = {"conv%dd-%s" % (nd, name): c for nd in (1, 2, 3) for name, c in _per_rank(nd).items()}


def _leaf(arr, mod):
    t = lt.from_numpy(arr.copy()) if mod is lt else torch.from_numpy(arr.copy())
    return t.requires_grad_(True)


def _input(c, rng):
    """(numpy data of the leaf, function leaf -> conv input). The leaf's gradient is compared."""
    nd, shape = c["nd"], [c["batch"] or 1, c["cin"]] + list(c["spatial"])
    layout = c["x_layout"]
    if layout == "channels_last":  # the leaf is [N, *S, C]; the conv sees its permuted view [N, C, *S]
        data = rng.standard_normal([shape[0]] + shape[2:] + [shape[1]]).astype(c["dtype"])
        perm = [0, nd + 1] + list(range(1, nd + 1))
        view = lambda t: t.permute(*perm)
    elif layout == "sliced":  # every other element of the last spatial dim of a twice-as-wide leaf
        data = rng.standard_normal(shape[:-1] + [2 * shape[-1]]).astype(c["dtype"])
        view = lambda t: t[..., 1::2]
    else:
        data = rng.standard_normal(shape).astype(c["dtype"])
        view = lambda t: t
    if c["batch"] is None:
        return data[0], lambda t: view(t.unsqueeze(0)).squeeze(0)
    return data, view


def _weight(c, rng):
    shape = [c["cout"], c["cin"] // c["groups"]] + list(c["kernel"])
    layout = c["w_layout"]
    if layout == "transposed":  # leaf [Cin/g, O, *k], weight = leaf.transpose(0, 1)
        data = rng.standard_normal([shape[1], shape[0]] + shape[2:]).astype(c["dtype"])
        return data, lambda t: t.transpose(0, 1)
    if layout == "sliced":  # every other output filter of a leaf with twice as many
        data = rng.standard_normal([2 * shape[0]] + shape[1:]).astype(c["dtype"])
        return data, lambda t: t[1::2]
    return rng.standard_normal(shape).astype(c["dtype"]), lambda t: t


def _conv_fn(mod, nd):
    return getattr((LF if mod is lt else TF), "conv%dd" % nd)


def _run_both(c, post=None, seed=0):
    """The conv of case c (and `post`(mod, y, x) after it) in both libraries; compares values and gradients."""
    rng = np.random.default_rng(seed)
    xd, xview = _input(c, rng)
    wd, wview = _weight(c, rng)
    bd = rng.standard_normal(c["cout"]).astype(c["dtype"]) if c["bias"] else None
    outs, leaves = [], []
    for mod in (lt, torch):
        x, w = _leaf(xd, mod), _leaf(wd, mod)
        b = _leaf(bd, mod) if bd is not None else None
        xin, win = xview(x), wview(w)
        y = _conv_fn(mod, c["nd"])(xin, win, b, groups=c["groups"], **c["kw"])
        if post is not None:
            y = post(mod, y, xin)
        outs.append(y)
        leaves.append([t for t in (x, w, b) if t is not None])
    tol = TOL[c["dtype"]]
    assert_same(outs[0], outs[1], **tol)
    g = rng.standard_normal(tuple(outs[1].shape)).astype(c["dtype"])
    (outs[0] * lt.from_numpy(g)).sum().backward()
    (outs[1] * torch.from_numpy(g)).sum().backward()
    for name, a, b in zip(("input", "weight", "bias"), leaves[0], leaves[1]):
        assert a.grad is not None, "no gradient for " + name
        assert tuple(a.grad.shape) == tuple(a.shape), name
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), err_msg=name + " gradient", **tol)
    return outs


@pytest.mark.parametrize("name", sorted(CASES))
def test_conv_config_matches_torch(name):
    c = CASES[name]
    y = _run_both(c, seed=sorted(CASES).index(name))[0]
    if c["batch"] is None:
        assert y.dim() == c["nd"] + 1
    assert np.any(y.detach().numpy() != 0)


# ---------------------------------------------------------------- the cross product of the main axes
GROUPINGS = {"g1": dict(cin=4, cout=6, groups=1), "g2": dict(cin=4, cout=6, groups=2),
             "dw": dict(cin=4, cout=4, groups=4), "dw_x2": dict(cin=3, cout=6, groups=3)}


def _grid(nd, strides, paddings, dilations, groupings, biases, dtypes):
    out = {}
    for st in strides:
        for pd in paddings:
            if pd == "same" and st != 1:
                continue  # torch refuses it (a bad-input case in test_conv_pool.py)
            for dl in dilations:
                for gname in groupings:
                    for bias in biases:
                        for dt in dtypes:
                            name = "conv%dd-s%s-p%s-d%s-%s-%s-%s" % (nd, st, pd, dl, gname, "b" if bias else "nob",
                                                                    np.dtype(dt).name)
                            out[name.replace(" ", "")] = _case(nd, bias=bias, dtype=dt, stride=st, padding=pd,
                                                               dilation=dl, spatial={1: (9,), 2: (8, 7),
                                                                                     3: (6, 7, 5)}[nd],
                                                               **GROUPINGS[gname])
    return out


GRID = {}
GRID.update(_grid(1, [1, 2], [0, 1, "same", "valid"], [1, 2], GROUPINGS, [True, False], [np.float32, np.float64]))
GRID.update(_grid(2, [1, 2, (2, 1)], [0, 1, (1, 0), "same", "valid"], [1, 2, (2, 1)], GROUPINGS, [True, False],
                  [np.float32]))
GRID.update(_grid(3, [1, (2, 1, 2)], [0, (0, 1, 2), "same"], [1, 2], ["g1", "dw_x2"], [True], [np.float64]))


@pytest.mark.parametrize("name", sorted(GRID))
def test_conv_grid_matches_torch(name):
    y = _run_both(GRID[name], seed=sorted(GRID).index(name))[0]
    assert np.any(y.detach().numpy() != 0)


# ---------------------------------------------------------------- conv inside a small graph
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_bias_relu(nd, dtype):
    c = _case(nd, dtype=dtype, padding=1)
    _run_both(c, post=lambda mod, y, x: mod.relu(y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_residual_add(nd, dtype):
    """relu(conv(x) + x), 'same' padding so the skip lines up; x's gradient flows through both paths."""
    c = _case(nd, dtype=dtype, kernel=(3,) * nd, padding="same")
    _run_both(c, post=lambda mod, y, x: mod.relu(y + x))


def test_conv_strided_residual_with_projection():
    """The ResNet downsampling block: conv3x3 stride 2 + relu + conv3x3, plus a 1x1 stride-2 projection of x."""
    rng = np.random.default_rng(3)
    xd = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
    w1 = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    w2 = rng.standard_normal((6, 6, 3, 3)).astype(np.float32)
    wp = rng.standard_normal((6, 4, 1, 1)).astype(np.float32)
    res = []
    for mod in (lt, torch):
        F = LF if mod is lt else TF
        ts = [_leaf(a, mod) for a in (xd, w1, w2, wp)]
        x, a, b, p = ts
        y = F.relu(F.conv2d(F.relu(F.conv2d(x, a, stride=2, padding=1)), b, padding=1) + F.conv2d(x, p, stride=2))
        g = np.random.default_rng(4).standard_normal(tuple(y.shape)).astype(np.float32)
        (y * mod.from_numpy(g)).sum().backward()
        res.append((y, ts))
    assert_same(res[0][0], res[1][0], **TOL[np.float32])
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL[np.float32])


# ---------------------------------------------------------------- nn.ConvNd padding modes
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_module_padding_mode(nd, mode):
    """nn.ConvNd(padding_mode=...) pads the input itself before a padding-free conv; per-dim padding, stride."""
    pad = {1: 2, 2: (1, 2), 3: (1, 0, 2)}[nd]
    stride = {1: 2, 2: (2, 1), 3: (1, 2, 1)}[nd]
    m_t = getattr(torch.nn, "Conv%dd" % nd)(4, 6, 3, stride=stride, padding=pad, padding_mode=mode, groups=2).double()
    m_lt = getattr(lt.nn, "Conv%dd" % nd)(4, 6, 3, stride=stride, padding=pad, padding_mode=mode, groups=2).double()
    m_lt.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in m_t.state_dict().items()})
    xd = np.random.default_rng(9).standard_normal([2, 4] + list(SPATIAL[nd]))
    x_lt, x_t = _leaf(xd, lt), _leaf(xd, torch)
    y_lt, y_t = m_lt(x_lt), m_t(x_t)
    assert_same(y_lt, y_t, **TOL[np.float64])
    g = np.random.default_rng(10).standard_normal(tuple(y_t.shape))
    (y_lt * lt.from_numpy(g)).sum().backward()
    (y_t * torch.from_numpy(g)).sum().backward()
    for a, b in ((x_lt, x_t), (m_lt.weight, m_t.weight), (m_lt.bias, m_t.bias)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL[np.float64])


# ---------------------------------------------------------------- double backward
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, groups=2)])
def test_conv2d_double_backward(kw):
    """grad of (tanh(conv2d(x, w, b)) * g).sum() with create_graph, then backward of a product of those grads."""
    rng = np.random.default_rng(5)
    xd = rng.standard_normal((2, 4, 6, 5))
    wd = rng.standard_normal((4, 4 // kw.get("groups", 1), 3, 3)) * 0.3
    bd = rng.standard_normal(4)
    res = []
    for mod in (lt, torch):
        F = LF if mod is lt else TF
        x, w, b = _leaf(xd, mod), _leaf(wd, mod), _leaf(bd, mod)
        y = F.conv2d(x, w, b, **kw)
        g = np.random.default_rng(6).standard_normal(tuple(y.shape))
        s = (mod.tanh(y) * mod.from_numpy(g)).sum()
        gx, gw = mod.autograd.grad(s, [x, w], create_graph=True)
        assert gx.requires_grad and gw.requires_grad
        h1 = np.random.default_rng(7).standard_normal(tuple(gx.shape))
        h2 = np.random.default_rng(8).standard_normal(tuple(gw.shape))
        ((gx * mod.from_numpy(h1)).sum() + (gw * mod.from_numpy(h2)).sum()).backward()
        res.append((gx, gw, x, w, b))
    (gxa, gwa, *la), (gxb, gwb, *lb) = res
    assert_same(gxa, gxb, **TOL[np.float64])
    assert_same(gwa, gwb, **TOL[np.float64])
    for name, a, b in zip(("input", "weight", "bias"), la, lb):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), err_msg=name, **TOL[np.float64])


# ---------------------------------------------------------------- bad input
def _bad(nd):
    s = (5,) * nd
    k = (3,) * nd
    return {
        "channels": lambda m: (m.zeros(1, 2, *s), m.zeros(4, 3, *k), {}),
        "groups_in": lambda m: (m.zeros(1, 5, *s), m.zeros(4, 2, *k), dict(groups=2)),  # 5 channels, 2 groups
        "groups_out": lambda m: (m.zeros(1, 4, *s), m.zeros(3, 2, *k), dict(groups=2)),  # 3 filters, 2 groups
        "weight_rank_low": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k[1:]), {}),
        "weight_rank_high": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, 1, *k), {}),
        "input_rank": lambda m: (m.zeros(1, 1, 3, *s), m.zeros(4, 3, *k), {}),
        "kernel_too_big": lambda m: (m.zeros(1, 3, *(2,) * nd), m.zeros(4, 3, *k), {}),
        "dtype_mismatch": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k, dtype=m.float64), {}),
        # batch 2: torch 1.13's conv1d/conv3d cast the bias at batch 1 (a different code path) and raise otherwise
        "bias_dtype": lambda m: (m.zeros(2, 3, *s), m.zeros(4, 3, *k), dict(bias=m.zeros(4, dtype=m.float64))),
        "bias_size": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k), dict(bias=m.zeros(3))),
        "no_filters": lambda m: (m.zeros(1, 3, *s), m.zeros(0, 3, *k), {}),
        "fewer_filters_than_groups": lambda m: (m.zeros(1, 4, *s), m.zeros(1, 2, *k), dict(groups=2)),
        "zero_groups": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k), dict(groups=0)),
        "same_strided": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k), dict(padding="same", stride=2)),
        "padding_string": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k), dict(padding="full")),
        "padding_tuple_length": lambda m: (m.zeros(1, 3, *s), m.zeros(4, 3, *k), dict(padding=(1,) * (nd + 1))),
    }


BAD = {"conv%dd-%s" % (nd, name): (nd, f) for nd in (1, 2, 3) for name, f in _bad(nd).items()}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_runtime_error_naming_the_function(name):
    nd, make = BAD[name]
    fn = "conv%dd" % nd
    xt, wt, kw = make(torch)
    with pytest.raises(RuntimeError):
        getattr(TF, fn)(xt, wt, **kw)
    xl, wl, kw = make(lt)
    with pytest.raises(RuntimeError) as got:
        getattr(LF, fn)(xl, wl, **kw).numpy()
    assert fn in str(got.value), str(got.value)


TYPE_ERRORS = {
    "weight_list": lambda m: ([[1.0]], {}),
    "bias_list": lambda m: (m.zeros(4, 3, 3, 3), dict(bias=[0.0] * 4)),
    "groups_float": lambda m: (m.zeros(4, 1, 3, 3), dict(groups=3.0)),
}


@pytest.mark.parametrize("name", sorted(TYPE_ERRORS))
def test_bad_argument_types_raise_type_error(name):
    wt, kw = TYPE_ERRORS[name](torch)
    with pytest.raises(TypeError):
        TF.conv2d(torch.zeros(1, 3, 5, 5), wt, **kw)
    wl, kw = TYPE_ERRORS[name](lt)
    with pytest.raises(TypeError, match="conv2d"):
        LF.conv2d(lt.zeros(1, 3, 5, 5), wl, **kw)
