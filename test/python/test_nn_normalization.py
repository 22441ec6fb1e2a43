"""Instance and local-response normalisation (nn/_functional_norm.py, nn/modules/normalization.py)
vs PyTorch 1.13 (batch and group norm: test_conv_pool.py)."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, FLOAT_DTYPES, float_tol, matches, raises_as, rnd

LF, TF = lt.nn.functional, torch.nn.functional


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("affine,track", [(False, False), (True, False), (True, True), (False, True)])
def test_instance_norm_modules(nd, affine, track, dt):
    shape = (2, 3, 4) if nd == 1 else (2, 3, 3, 2)
    m_lt = getattr(lt.nn, "InstanceNorm{}d".format(nd))(3, affine=affine, track_running_stats=track, momentum=0.3)
    m_t = getattr(torch.nn, "InstanceNorm{}d".format(nd))(3, affine=affine, track_running_stats=track, momentum=0.3)
    if dt == np.float64:
        m_lt, m_t = m_lt.double(), m_t.double()
    if affine:
        w, b = rnd(3, dt=dt), rnd(3, dt=dt)
        with torch.no_grad():
            m_t.weight.copy_(torch.from_numpy(w))
            m_t.bias.copy_(torch.from_numpy(b))
        with lt.no_grad():
            m_lt.weight.copy_(lt.from_numpy(w))
            m_lt.bias.copy_(lt.from_numpy(b))
    x = rnd(*shape, dt=dt, scale=2) + 1
    for _ in range(2):
        matches(m_lt, m_t, [x], dt=dt)
    if affine:
        assert_same(m_lt.weight.grad, m_t.weight.grad, **float_tol(dt))
        assert_same(m_lt.bias.grad, m_t.bias.grad, **float_tol(dt))
    if track:
        assert_same(m_lt.running_mean, m_t.running_mean, **float_tol(dt))
        assert_same(m_lt.running_var, m_t.running_var, **float_tol(dt))
        m_lt.eval()
        m_t.eval()
        matches(m_lt, m_t, [x], dt=dt)
    matches(m_lt, m_t, [x[0]], dt=dt)  # unbatched


def test_instance_norm_functional_and_errors():
    x = rnd(2, 3, 5)
    rm, rv = rnd(3), np.abs(rnd(3)) + 0.5
    matches(lambda a, w: LF.instance_norm(a, weight=w, eps=1e-3), lambda a, w: TF.instance_norm(a, weight=w, eps=1e-3),
          [x, rnd(3)], grad=(0, 1))
    matches(lambda a, m, v: LF.instance_norm(a, m, v, use_input_stats=False),
          lambda a, m, v: TF.instance_norm(a, m, v, use_input_stats=False), [x, rm, rv])
    raises_as(lambda: LF.instance_norm(lt.zeros(2, 3, 1)), lambda: TF.instance_norm(torch.zeros(2, 3, 1)))
    raises_as(lambda: lt.nn.InstanceNorm1d(3)(lt.zeros(2, 3, 4, 5)),
                lambda: torch.nn.InstanceNorm1d(3)(torch.zeros(2, 3, 4, 5)))


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,size,kw", [((2, 5, 3), 3, {}), ((1, 4, 2, 3), 2, {"alpha": 0.1, "beta": 0.5, "k": 2.0}),
                                           ((2, 3, 2, 2), 4, {"alpha": 1.0})])
def test_local_response_norm(shape, size, kw, dt):
    x = rnd(*shape, dt=dt, scale=2)
    matches(lambda a: LF.local_response_norm(a, size, **kw), lambda a: TF.local_response_norm(a, size, **kw), [x], dt=dt)
    matches(lambda a: lt.nn.LocalResponseNorm(size, **kw)(a), lambda a: torch.nn.LocalResponseNorm(size, **kw)(a), [x],
          dt=dt)


def test_local_response_norm_bad_input():
    raises_as(lambda: LF.local_response_norm(lt.zeros(2, 3), 2), lambda: TF.local_response_norm(torch.zeros(2, 3), 2),
                match="3D")
