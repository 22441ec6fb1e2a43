"""Activation functions and layers (nn/_functional_activation.py, nn/modules/activation.py) vs
PyTorch 1.13: values, dtypes, gradients, in-place forms and integer inputs."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, assert_same, BOUNDARY, FLOAT_DTYPES, float_tol, matches, pair, raises_as, rnd, seeded

LF, TF = lt.nn.functional, torch.nn.functional


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("name,kw", [
    ("hardswish", {}), ("hardtanh", {}), ("hardtanh", dict(min_val=-0.5, max_val=1.5)),
    ("threshold", dict(threshold=0.5, value=-2.0)), ("logsigmoid", {}), ("softsign", {}), ("tanhshrink", {}),
    ("softmin", dict(dim=0)),
])
def test_activation_functional(name, kw):
    x = np.concatenate([BOUNDARY, seeded(7, seed=1)])
    agree(lambda m, a: getattr(m.nn.functional, name)(a, **kw), [x])


@pytest.mark.parametrize("mod,args", [
    ("Hardswish", ()), ("Hardtanh", (-2.0, 0.5)), ("Threshold", (0.1, 20.0)), ("GLU", (0,)), ("Softmin", (1,)),
    ("LogSigmoid", ()), ("Softsign", ()), ("Tanhshrink", ()),
])
def test_activation_modules(mod, args):
    x = seeded(4, 3, scale=2.0, seed=2)
    agree(lambda m, a: getattr(m.nn, mod)(*args)(a), [x])
    assert repr(getattr(lt.nn, mod)(*args)) == repr(getattr(torch.nn, mod)(*args))


def test_activation_int_and_inplace():
    i = np.arange(-3, 4).astype(np.int64)
    agree(lambda m, a: m.nn.functional.hardtanh(a), [i], grad=False)
    agree(lambda m, a: m.nn.functional.threshold(a, 1, 10), [i], grad=False)
    agree(lambda m, a: m.nn.functional.softsign(a), [i], grad=False)
    agree(lambda m, a: m.nn.functional.tanhshrink(a), [i], grad=False)
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
    agree(lambda m, a: m.nn.functional.glu(a, dim), [seeded(*shape, seed=3)])


@pytest.mark.parametrize("shape,nw", [((3, 4), 1), ((3, 4), 4), ((2, 3, 2, 2), 3), ((5,), 1), ((), 1)])
def test_prelu(shape, nw):
    x = np.concatenate([[0.0, -1.0], seeded(40, seed=4)]).astype(np.float32)[:int(np.prod(shape))].reshape(shape)
    w = np.linspace(0.1, 0.5, nw).astype(np.float32)
    agree(lambda m, a, b: m.nn.functional.prelu(a, b), [x, w])


def test_prelu_module():
    x = seeded(3, 2, 4, seed=5)
    for n in (1, 2):
        lm, tm = lt.nn.PReLU(n, init=0.1), torch.nn.PReLU(n, init=0.1)
        assert repr(lm) == repr(tm)
        assert [k for k, _ in lm.named_parameters()] == ["weight"]
        agree(lambda m, a: (lm if m is lt else tm)(a), [x])
        np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
@pytest.mark.parametrize("name,kw", [("hardsigmoid", {}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 0.5})])
def test_activations(name, kw, dt):
    x = np.concatenate([rnd(7, dt=dt, scale=4), np.array([-3.0, 3.0, 0.0, -10.0, 10.0], dtype=dt)])
    # torch's float64 hardsigmoid backward multiplies by a float32 1/6 (relative error 3e-8); ours is exact
    gt = dict(rtol=5e-8, atol=0) if name == "hardsigmoid" and dt == np.float64 else None
    matches(lambda a: getattr(LF, name)(a, **kw), lambda a: getattr(TF, name)(a, **kw), [x], dt=dt, grad_tol=gt)
    mod = {"hardsigmoid": "Hardsigmoid", "selu": "SELU", "celu": "CELU"}[name]
    matches(lambda a: getattr(lt.nn, mod)(**kw)(a), lambda a: getattr(torch.nn, mod)(**kw)(a), [x], dt=dt, grad_tol=gt)
    a, b = pair(x)
    assert_same(getattr(LF, name)(a, inplace=True, **kw), getattr(TF, name)(b, inplace=True, **kw), **float_tol(dt))
    assert_same(a, b, **float_tol(dt))


def test_softmax2d():
    x = rnd(2, 3, 2, 2)
    matches(lambda a: lt.nn.Softmax2d()(a), lambda a: torch.nn.Softmax2d()(a), [x])
    matches(lambda a: lt.nn.Softmax2d()(a), lambda a: torch.nn.Softmax2d()(a), [x[0]])
    raises_as(lambda: lt.nn.Softmax2d()(lt.zeros(2, 3)), lambda: torch.nn.Softmax2d()(torch.zeros(2, 3)))
