"""Transposed convolution (nn/_functional_conv.py, nn/modules/conv.py) vs PyTorch 1.13."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, FLOAT_DTYPES, float_tol, matches, raises_as, rnd

LF, TF = lt.nn.functional, torch.nn.functional


CT2 = [dict(), dict(stride=2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0)),
       dict(stride=2, padding=1, output_padding=1, groups=2), dict(dilation=(2, 1), padding=(0, 1)),
       dict(stride=3, dilation=2, output_padding=(2, 1), groups=2)]


@pytest.mark.parametrize("kw", CT2)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose2d(kw, bias):
    g = kw.get("groups", 1)
    x, w = rnd(2, 4, 3, 2), rnd(4, 6 // g, 2, 3)
    args = [x, w] + ([rnd(6)] if bias else [])
    matches(lambda a, b, *c: LF.conv_transpose2d(a, b, c[0] if c else None, **kw),
          lambda a, b, *c: TF.conv_transpose2d(a, b, c[0] if c else None, **kw), args, grad=tuple(range(len(args))))


@pytest.mark.parametrize("kw", [dict(), dict(stride=3, padding=1, output_padding=2), dict(groups=2, dilation=2),
                                dict(stride=2, groups=2, padding=2, output_padding=1)])
def test_conv_transpose1d(kw):
    g = kw.get("groups", 1)
    x, w, b = rnd(2, 4, 5), rnd(4, 6 // g, 3), rnd(6)
    matches(lambda a, c, d: LF.conv_transpose1d(a, c, d, **kw), lambda a, c, d: TF.conv_transpose1d(a, c, d, **kw),
          [x, w, b], grad=(0, 1, 2))
    matches(lambda a, c, d: LF.conv_transpose1d(a, c, d, **kw), lambda a, c, d: TF.conv_transpose1d(a, c, d, **kw),
          [x[0], w, b], grad=(0,))  # unbatched


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
def test_conv_transpose_modules(dt):
    for nd, shape in ((1, (2, 4, 5)), (2, (1, 4, 3, 3))):
        name = "ConvTranspose{}d".format(nd)
        m_t = getattr(torch.nn, name)(4, 6, 3, stride=2, padding=1, groups=2)
        m_lt = getattr(lt.nn, name)(4, 6, 3, stride=2, padding=1, groups=2)
        assert tuple(m_lt.weight.shape) == tuple(m_t.weight.shape)
        assert tuple(m_lt.bias.shape) == tuple(m_t.bias.shape)
        if dt == np.float64:
            m_t, m_lt = m_t.double(), m_lt.double()
        m_lt.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in m_t.state_dict().items()})
        x = rnd(*shape, dt=dt)
        matches(m_lt, m_t, [x], dt=dt)
        out = [s * 2 for s in shape[2:]]  # output_size picks output_padding = 1
        matches(lambda a: m_lt(a, output_size=out), lambda a: m_t(a, output_size=out), [x], dt=dt)
        assert_same(m_lt.weight.grad, m_t.weight.grad, **float_tol(dt))
        bound = 1 / np.sqrt(3 * 3 ** (nd - 1) * 3)  # fan_in = out_channels/groups * kernel
        assert np.abs(getattr(lt.nn, name)(4, 6, 3, groups=2).weight.detach().numpy()).max() <= bound


def test_conv_transpose_errors():
    x, xt = lt.zeros(1, 4, 3, 3), torch.zeros(1, 4, 3, 3)
    raises_as(lambda: LF.conv_transpose2d(x, lt.zeros(3, 2, 2, 2)),
                lambda: TF.conv_transpose2d(xt, torch.zeros(3, 2, 2, 2)), "conv_transpose2d")
    raises_as(lambda: LF.conv_transpose2d(x, lt.zeros(4, 2, 2, 2), stride=2, output_padding=2),
                lambda: TF.conv_transpose2d(xt, torch.zeros(4, 2, 2, 2), stride=2, output_padding=2), "output padding")
    raises_as(lambda: LF.conv_transpose2d(x, lt.zeros(4, 2, 2, 2), groups=3),
                lambda: TF.conv_transpose2d(xt, torch.zeros(4, 2, 2, 2), groups=3))
    raises_as(lambda: LF.conv_transpose1d(lt.zeros(2, 2, 2, 2), lt.zeros(2, 2, 2)),
                lambda: TF.conv_transpose1d(torch.zeros(2, 2, 2, 2), torch.zeros(2, 2, 2)))
    raises_as(lambda: lt.nn.ConvTranspose2d(3, 4, 2, groups=2), lambda: torch.nn.ConvTranspose2d(3, 4, 2, groups=2))
