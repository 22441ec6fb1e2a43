"""CNN surface against PyTorch 1.13: conv, unfold/fold, pooling, batch/group norm, interpolate, modules.

Values, shapes, dtypes and gradients are compared with torch; bad input must raise torch's exception
type. Shapes are tiny: every new kernel costs a JIT compile.
"""
import math

import os
import tempfile

import numpy as np
import pytest

import lazytensor as lt
import torch
from conftest import assert_same, train_side_by_side

LF, TF = lt.nn.functional, torch.nn.functional


def _arr(*shape, dtype=np.float32):
    return np.random.randn(*shape).astype(dtype)


def _check(fn, *arrays, grad=True, rtol=1e-5, atol=1e-5, out_index=None):
    """fn(F, *tensors) in both libraries: same outputs and, through a random cotangent, same gradients."""
    a = [lt.from_numpy(x.copy()) for x in arrays]
    b = [torch.from_numpy(x.copy()) for x in arrays]
    if grad:
        for t in a + b:
            t.requires_grad_(True)
    ya, yb = fn(LF, *a), fn(TF, *b)
    assert_same(ya, yb, rtol=rtol, atol=atol)
    if not grad:
        return
    if isinstance(yb, tuple):
        ya, yb = ya[0], yb[0]
    g = _arr(*yb.shape)
    (ya * lt.from_numpy(g)).sum().backward()
    (yb * torch.from_numpy(g)).sum().backward()
    for x, y in zip(a, b):
        assert_same(x.grad, y.grad, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- conv
CONV2D = [
    dict(),
    dict(stride=2),
    dict(padding=1),
    dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
    dict(padding="same"),
    dict(padding="same", dilation=2),
    dict(padding="valid", stride=1),
    dict(groups=2, padding=1),
    dict(groups=4, stride=2),
]


@pytest.mark.parametrize("kw", CONV2D, ids=lambda kw: ",".join("%s=%s" % i for i in kw.items()) or "default")
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_matches_torch(kw, bias):
    groups = kw.get("groups", 1)
    x = _arr(2, 4, 6, 5)
    w = _arr(4, 4 // groups, 3, 2)
    if bias:
        _check(lambda F, x, w, b: F.conv2d(x, w, b, **kw), x, w, _arr(4))
    else:
        _check(lambda F, x, w: F.conv2d(x, w, **kw), x, w)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding="same", dilation=2),
                                dict(groups=3)])
def test_conv1d_matches_torch(kw):
    g = kw.get("groups", 1)
    _check(lambda F, x, w, b: F.conv1d(x, w, b, **kw), _arr(2, 3, 9), _arr(3, 3 // g, 3), _arr(3))


def test_conv_unbatched_and_float64():
    _check(lambda F, x, w: F.conv2d(x, w, padding=1), _arr(2, 5, 5), _arr(3, 2, 3, 3))
    _check(lambda F, x, w: F.conv1d(x, w), _arr(2, 7), _arr(3, 2, 2))
    _check(lambda F, x, w: F.conv2d(x, w), _arr(1, 2, 4, 4, dtype=np.float64), _arr(2, 2, 2, 2, dtype=np.float64))


BAD_CONV = {
    "rank": lambda m, F: F.conv2d(m.zeros(2, 3, 4), m.zeros(4, 3, 3, 3)),
    "rank5": lambda m, F: F.conv2d(m.zeros(1, 2, 3, 4, 4), m.zeros(4, 3, 3, 3)),
    "channels": lambda m, F: F.conv2d(m.zeros(1, 2, 5, 5), m.zeros(4, 3, 3, 3)),
    "groups": lambda m, F: F.conv2d(m.zeros(1, 4, 5, 5), m.zeros(3, 2, 3, 3), groups=2),
    "kernel_too_big": lambda m, F: F.conv2d(m.zeros(1, 3, 2, 2), m.zeros(4, 3, 3, 3)),
    "same_strided": lambda m, F: F.conv2d(m.zeros(1, 3, 5, 5), m.zeros(4, 3, 3, 3), stride=2, padding="same"),
    "bad_padding_string": lambda m, F: F.conv2d(m.zeros(1, 3, 5, 5), m.zeros(4, 3, 3, 3), padding="full"),
    "negative_padding": lambda m, F: F.conv2d(m.zeros(1, 3, 5, 5), m.zeros(4, 3, 3, 3), padding=-1),
    "zero_stride": lambda m, F: F.conv2d(m.zeros(1, 3, 5, 5), m.zeros(4, 3, 3, 3), stride=0),
    "bias_size": lambda m, F: F.conv2d(m.zeros(1, 3, 5, 5), m.zeros(4, 3, 3, 3), m.zeros(3)),
    "conv1d_rank": lambda m, F: F.conv1d(m.zeros(1, 3, 5, 5), m.zeros(4, 3, 3)),
    "module_groups": lambda m, F: m.nn.Conv2d(3, 4, 3, groups=2),
    "module_out_groups": lambda m, F: m.nn.Conv2d(4, 3, 3, groups=2),
    "module_same_strided": lambda m, F: m.nn.Conv2d(3, 4, 3, stride=2, padding="same"),
    "module_bad_padding": lambda m, F: m.nn.Conv2d(3, 4, 3, padding="full"),
    "unfold_rank": lambda m, F: F.unfold(m.zeros(1, 1, 3, 5, 5), 2),
    "fold_rank": lambda m, F: F.fold(m.zeros(1, 1, 4, 4), (4, 4), 2),
    "fold_blocks": lambda m, F: F.fold(m.zeros(1, 12, 5), (4, 4), 2),
    "fold_divisible": lambda m, F: F.fold(m.zeros(1, 7, 9), (4, 4), 2),
    "maxpool_pad": lambda m, F: F.max_pool2d(m.zeros(1, 1, 6, 6), 2, padding=2),
    "maxpool_small": lambda m, F: F.max_pool2d(m.zeros(1, 1, 2, 2), 3),
    "maxpool_rank": lambda m, F: F.max_pool2d(m.zeros(6, 6), 2),
    "avgpool_pad": lambda m, F: F.avg_pool2d(m.zeros(1, 1, 6, 6), 2, padding=2),
    "batchnorm_one_value": lambda m, F: F.batch_norm(m.zeros(1, 3), m.zeros(3), m.ones(3), training=True),
    "batchnorm_channels": lambda m, F: F.batch_norm(m.zeros(2, 3), m.zeros(4), m.ones(4)),
    "bn2d_rank": lambda m, F: m.nn.BatchNorm2d(3)(m.zeros(2, 3, 4)),
    "bn1d_rank": lambda m, F: m.nn.BatchNorm1d(3)(m.zeros(2, 3, 4, 4)),
    "groupnorm": lambda m, F: F.group_norm(m.zeros(2, 6, 3), 4),
    "groupnorm_module": lambda m, F: m.nn.GroupNorm(4, 6),
    "interp_both": lambda m, F: F.interpolate(m.zeros(1, 1, 4, 4), size=3, scale_factor=2.0),
    "interp_none": lambda m, F: F.interpolate(m.zeros(1, 1, 4, 4)),
    "interp_align_nearest": lambda m, F: F.interpolate(m.zeros(1, 1, 4, 4), size=3, align_corners=True),
}


@pytest.mark.parametrize("name", sorted(BAD_CONV))
def test_bad_input_raises_like_torch(name):
    f = BAD_CONV[name]
    with pytest.raises(Exception) as want:
        f(torch, TF)
    with pytest.raises(want.type) as got:
        f(lt, LF)
    if want.type is RuntimeError and not name.startswith(("module", "bn")):
        assert any(w in str(got.value) for w in ("conv", "fold", "pool", "batch_norm", "group", "interpolate",
                                                   "Expected", "Kernel", "pad", "channels")), str(got.value)


# ---------------------------------------------------------------- unfold / fold
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=2, padding=1),
                                dict(kernel_size=2, dilation=2, padding=(0, 1))])
def test_unfold_fold_match_torch(kw):
    x = _arr(2, 3, 6, 5)
    _check(lambda F, x: F.unfold(x, **kw), x)
    _check(lambda F, x: F.unfold(x, **kw), x[0])  # unbatched
    cols = TF.unfold(torch.from_numpy(x), **kw).numpy()
    _check(lambda F, c: F.fold(c, (6, 5), **kw), cols)
    _check(lambda F, c: F.fold(c, (6, 5), **kw), cols[0])  # unbatched


# ---------------------------------------------------------------- pooling
MAXPOOL = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1)),
    dict(kernel_size=2, stride=2, ceil_mode=True),
]


@pytest.mark.parametrize("kw", MAXPOOL, ids=lambda kw: ",".join("%s=%s" % i for i in kw.items()))
def test_max_pool2d_matches_torch_with_indices(kw):
    x = _arr(2, 2, 7, 6)
    _check(lambda F, x: F.max_pool2d(x, return_indices=True, **kw), x)


def test_max_pool_ties_nan_and_modules():
    x = np.zeros((1, 1, 4, 4), np.float32)
    x[0, 0, 0, 1] = 1.0
    x[0, 0, 3, 3] = np.nan
    _check(lambda F, x: F.max_pool2d(x, 2, return_indices=True), x)  # ties at 0: first maximum gets the gradient
    _check(lambda F, x: F.max_pool2d(x, 2, 1), _arr(3, 5, 5))  # unbatched
    _check(lambda F, x: F.max_pool1d(x, 3, 2, 1, return_indices=True), _arr(2, 3, 8))
    xa, xb = lt.from_numpy(x.copy()), torch.from_numpy(x.copy())
    assert_same(lt.nn.MaxPool2d(2, return_indices=True)(xa), torch.nn.MaxPool2d(2, return_indices=True)(xb))
    assert repr(lt.nn.MaxPool2d(3, 2, 1)) == repr(torch.nn.MaxPool2d(3, 2, 1))


AVGPOOL = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=2, divisor_override=5),
]


@pytest.mark.parametrize("kw", AVGPOOL, ids=lambda kw: ",".join("%s=%s" % i for i in kw.items()))
def test_avg_pool2d_matches_torch(kw):
    _check(lambda F, x: F.avg_pool2d(x, **kw), _arr(2, 2, 7, 6))


@pytest.mark.parametrize("size", [(3, 2), (4, 5), 1, (None, 3)])
def test_adaptive_pools_match_torch(size):
    x = _arr(2, 2, 6, 7)
    _check(lambda F, x: F.adaptive_avg_pool2d(x, size), x)
    _check(lambda F, x: F.adaptive_max_pool2d(x, size, return_indices=True), x)


def test_adaptive_avg_pool1d_and_modules():
    _check(lambda F, x: F.adaptive_avg_pool1d(x, 3), _arr(2, 3, 7))
    _check(lambda F, x: F.avg_pool1d(x, 3, 2, 1), _arr(2, 3, 7))
    x = _arr(1, 2, 6, 6)
    xa, xb = lt.from_numpy(x), torch.from_numpy(x)
    for name, args in (("AvgPool2d", (2,)), ("AdaptiveAvgPool2d", ((2, 3),)), ("AdaptiveMaxPool2d", (3,))):
        ma, mb = getattr(lt.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert_same(ma(xa), mb(xb))
        assert repr(ma) == repr(mb)


# ---------------------------------------------------------------- normalisation
@pytest.mark.parametrize("momentum", [0.1, 0.5])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3, 5), (2, 3, 3, 2)])
def test_batch_norm_functional_training_and_eval(shape, momentum):
    x, w, b = _arr(*shape), _arr(3), _arr(3)
    rm, rv = _arr(3), np.abs(_arr(3)) + 0.5
    stats = {}

    def run(F, x, w, b):
        m = lt if F is LF else torch
        key = m.__name__
        stats[key] = (m.from_numpy(rm.copy()), m.from_numpy(rv.copy()))
        return F.batch_norm(x, stats[key][0], stats[key][1], w, b, training=True, momentum=momentum)
    _check(run, x, w, b)
    assert_same(stats["lazytensor"][0], stats["torch"][0])
    assert_same(stats["lazytensor"][1], stats["torch"][1])  # unbiased variance in the running estimate
    _check(lambda F, x, w, b: F.batch_norm(x, (lt if F is LF else torch).from_numpy(rm.copy()),
                                           (lt if F is LF else torch).from_numpy(rv.copy()), w, b, training=False),
           x, w, b)


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (2, 3, 4)),
                                       ("BatchNorm2d", (2, 3, 2, 2))])
@pytest.mark.parametrize("kw", [dict(), dict(momentum=None), dict(affine=False, track_running_stats=False)])
def test_batchnorm_modules_running_stats(cls, shape, kw):
    ma, mb = getattr(lt.nn, cls)(3, **kw), getattr(torch.nn, cls)(3, **kw)
    assert repr(ma) == repr(mb)
    assert list(ma.state_dict()) == list(mb.state_dict())
    for step in range(3):
        x = _arr(*shape)
        assert_same(ma(lt.from_numpy(x)), mb(torch.from_numpy(x)), atol=1e-5)
    for (ka, va), (kb, vb) in zip(ma.state_dict().items(), mb.state_dict().items()):
        assert ka == kb
        assert_same(va, vb)
    ma.eval()
    mb.eval()
    x = _arr(*shape)
    assert_same(ma(lt.from_numpy(x)), mb(torch.from_numpy(x)), atol=1e-5)


def test_batchnorm_forward_does_not_sync():
    bn = lt.nn.BatchNorm2d(2, momentum=None)
    x = lt.randn(2, 2, 3, 3)
    lt.sync(x, *bn.buffers(), *bn.parameters())
    before = lt.debug.counters()["syncs"]
    y = bn(x)
    assert lt.debug.counters()["syncs"] == before
    lt.sync(y)  # the new statistics are computed in the same trace as the output: reading them syncs nothing
    before = lt.debug.counters()["syncs"]
    xn = x.numpy()
    np.testing.assert_allclose(bn.running_mean.numpy(), xn.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), xn.var((0, 2, 3), ddof=1), rtol=1e-5)
    assert int(bn.num_batches_tracked.item()) == 1
    assert lt.debug.counters()["syncs"] == before


def test_batchnorm_relu_training_step_kernels():
    """BatchNorm2d + ReLU forward and backward in training: the mean is stored and x - mean is recomputed by
    each kernel that reads it, not stored as well (it was, with a second mean inside the variance: 18
    kernels). Values and gradients match torch."""
    xa, ga = _arr(8, 4, 6, 6), _arr(8, 4, 6, 6)
    outs = {}
    for mod in (torch, lt):
        bn = mod.nn.BatchNorm2d(4)
        x = mod.tensor(xa, requires_grad=True)
        if mod is lt:
            lt.sync(x, *bn.parameters(), *bn.buffers())
            before = lt.debug.counters()["kernels_launched"]
        (mod.relu(bn(x)) * mod.tensor(ga)).sum().backward()
        if mod is lt:
            lt.sync(x.grad, bn.weight.grad, bn.bias.grad, bn.running_mean, bn.running_var)
            launched = lt.debug.counters()["kernels_launched"] - before
        outs[mod.__name__] = [v.detach().numpy() for v in (x.grad, bn.weight.grad, bn.bias.grad, bn.running_var)]
    for got, want in zip(outs["lazytensor"], outs["torch"]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert launched <= 11, launched  # 10 here: 3 full passes forward, 5 backward


@pytest.mark.parametrize("groups,affine", [(1, True), (2, False), (4, True)])
def test_group_norm_matches_torch(groups, affine):
    x = _arr(2, 4, 3, 2)
    if affine:
        _check(lambda F, x, w, b: F.group_norm(x, groups, w, b), x, _arr(4), _arr(4))
    else:
        _check(lambda F, x: F.group_norm(x, groups), x)
    ma, mb = lt.nn.GroupNorm(groups, 4, affine=affine), torch.nn.GroupNorm(groups, 4, affine=affine)
    assert repr(ma) == repr(mb)
    assert_same(ma(lt.from_numpy(x)), mb(torch.from_numpy(x)), atol=1e-5)


# ---------------------------------------------------------------- interpolate
@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(scale_factor=1.7), dict(size=(3, 7)),
                                dict(scale_factor=(0.5, 1.5)), dict(scale_factor=1.7, recompute_scale_factor=True),
                                dict(size=(5, 9), mode="bilinear", align_corners=True),
                                dict(size=(5, 9), mode="bilinear", align_corners=False),
                                dict(scale_factor=0.6, mode="bilinear")])
def test_interpolate_matches_torch(kw):
    _check(lambda F, x: F.interpolate(x, **kw), _arr(2, 2, 4, 5))


def test_interpolate_1d_and_upsample_module():
    _check(lambda F, x: F.interpolate(x, scale_factor=2.5), _arr(1, 2, 5))
    _check(lambda F, x: F.interpolate(x, size=7, mode="linear", align_corners=False), _arr(1, 2, 5))
    x = _arr(1, 1, 3, 3)
    for args in (dict(scale_factor=2), dict(size=(4, 5), mode="bilinear", align_corners=True)):
        ma, mb = lt.nn.Upsample(**args), torch.nn.Upsample(**args)
        assert repr(ma) == repr(mb)
        assert_same(ma(lt.from_numpy(x)), mb(torch.from_numpy(x)))


# ---------------------------------------------------------------- modules
@pytest.mark.parametrize("cls,args,kw,shape", [
    ("Conv2d", (3, 4, 3), dict(), (2, 3, 5, 5)),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=2, padding=1, groups=2, bias=False), (1, 4, 5, 6)),
    ("Conv2d", (2, 2, 3), dict(padding="same", dilation=2), (1, 2, 5, 5)),
    ("Conv1d", (3, 4, 3), dict(padding=1), (2, 3, 6)),
])
def test_conv_modules_init_and_forward(cls, args, kw, shape):
    ma, mb = getattr(lt.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(ma) == repr(mb)
    assert [(k, tuple(v.shape)) for k, v in ma.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in mb.state_dict().items()]
    # kaiming_uniform(a=sqrt(5)) weight and bias bounds are 1/sqrt(fan_in), as torch's
    fan_in = ma.weight.shape[1] * int(np.prod(ma.weight.shape[2:]))
    bound = 1 / math.sqrt(fan_in)
    w = ma.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.5 * bound
    if ma.bias is not None:
        assert np.abs(ma.bias.detach().numpy()).max() <= bound
    ma.load_state_dict({k: lt.from_numpy(v.numpy()) for k, v in mb.state_dict().items()})
    x = _arr(*shape)
    xa, xb = lt.from_numpy(x), torch.from_numpy(x)
    ya, yb = ma(xa), mb(xb)
    assert_same(ya, yb, atol=1e-5)
    ya.square().sum().backward()
    yb.square().sum().backward()
    assert_same(ma.weight.grad, mb.weight.grad, rtol=1e-4, atol=1e-4)


def test_unfold_fold_modules():
    x = _arr(1, 2, 4, 4)
    ua, ub = lt.nn.Unfold(2, stride=2), torch.nn.Unfold(2, stride=2)
    fa, fb = lt.nn.Fold((4, 4), 2, stride=2), torch.nn.Fold((4, 4), 2, stride=2)
    assert repr(ua) == repr(ub) and repr(fa) == repr(fb)
    assert_same(fa(ua(lt.from_numpy(x))), fb(ub(torch.from_numpy(x))))


# ---------------------------------------------------------------- a small CNN, trained
def _lenet(m):
    nn = m.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(6 * 2 * 2, 3))


def test_lenet_training_matches_torch_and_compiles_once():
    torch.manual_seed(0)
    tm = _lenet(torch)
    lm = _lenet(lt)
    lm.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    lopt = lt.optim.SGD(lm.parameters(), lr=0.1, momentum=0.9)
    xs = [_arr(4, 1, 12, 12) for _ in range(6)]
    ys = [np.random.randint(0, 3, 4).astype(np.int64) for _ in range(6)]
    want, got, counters = train_side_by_side(tm, lm, topt, lopt, xs, ys)
    misses, traces = counters["trace_cache_misses"], counters["traces_captured"]
    np.testing.assert_allclose(got, want, rtol=1e-3)
    assert traces == [1] * 6, traces  # one trace a step: forward, backward, update and the BN statistics
    # loss.item() syncs the loss only: step k's gradients and update stay pending until step k+1's
    # forward reads the parameters, so step k's trace also holds step k-1's backward and update.
    # Step 1 has neither, step 2 has a backward into fresh gradients (and SGD's first momentum
    # step), step 3 the first steady one (accumulating into zeroed gradients): from step 4 on
    # nothing is new (the same pattern as test_data's Linear model).
    assert misses[0] > 0 and misses[3:] == [0, 0, 0], misses
    before = lt.debug.counters()["syncs"]
    for b in lm.buffers():  # running statistics were computed in the steps' traces: reading them syncs nothing
        b.numpy()
    assert lt.debug.counters()["syncs"] == before
    for (k, a), b in zip(lm.state_dict().items(), tm.state_dict().values()):
        assert_same(a, b, rtol=1e-3, atol=1e-4)
    lm.eval()
    tm.eval()
    x = _arr(2, 1, 12, 12)
    assert_same(lm(lt.from_numpy(x)), tm(torch.from_numpy(x)).detach(), rtol=1e-3, atol=1e-4)


def test_conv2d_kernel_counts():
    """A conv2d forward is im2col + matmul (+ bias): a few fused kernels, not one per output pixel."""
    x = lt.randn(2, 3, 8, 8, requires_grad=True)
    w = lt.randn(4, 3, 3, 3, requires_grad=True)
    b = lt.randn(4, requires_grad=True)
    lt.sync(x, w, b)
    c0 = lt.debug.counters()["kernels_launched"]
    y = LF.conv2d(x, w, b, padding=1)
    lt.sync(y)
    c1 = lt.debug.counters()["kernels_launched"]
    y.sum().backward()
    lt.sync(x.grad, w.grad, b.grad)
    c2 = lt.debug.counters()["kernels_launched"]
    assert c1 - c0 <= 4, c1 - c0
    assert c2 - c1 <= 10, c2 - c1


def test_tiling_pool_windows_are_reshaped_not_stacked():
    """Windows that tile the input (stride = kernel, no padding or dilation) are a reshape and a permute, not a
    stack of one slice per kernel offset: pooling 16x16 to 1x1 stacked 256 slices, a chain of 256 selects per
    element. Values, indices and gradients still match torch, cropped edges included."""
    x = _arr(2, 3, 16, 16)
    _check(lambda F, x: F.adaptive_avg_pool2d(x, 1), x)
    _check(lambda F, x: F.max_pool2d(x, 4, return_indices=True), x)
    _check(lambda F, x: F.max_pool2d(x, (2, 3), return_indices=True), _arr(2, 2, 7, 8))  # crops 7x8 to 6x6
    _check(lambda F, x: F.avg_pool2d(x, 3), _arr(2, 2, 7, 8))
    def dumped(fn, path):
        xa = lt.from_numpy(x)
        lt.sync(xa)
        os.makedirs(path)
        lt.debug.set_dump_dir(path)
        try:
            lt.sync(fn(xa))
        finally:
            lt.debug.set_dump_dir(None)
        text = "".join(str(lt.trace.load(os.path.join(path, f))) for f in os.listdir(path))
        assert "adaptive" in text or "max" in text or "sum" in text, text  # a trace was written
        return text
    tmp = tempfile.mkdtemp()
    assert "concat" not in dumped(lambda t: LF.adaptive_avg_pool2d(t, 1), os.path.join(tmp, "tiled"))
    assert "concat" in dumped(lambda t: LF.max_pool2d(t, 3, 2, 1), os.path.join(tmp, "overlapping"))
