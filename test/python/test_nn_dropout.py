"""Channel and alpha dropout (nn/_functional_dropout.py, nn/modules/dropout.py): statistics (the
random streams differ from PyTorch's), gradients and bad input."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, raises_as

LF, TF = lt.nn.functional, torch.nn.functional


@pytest.mark.parametrize("name,shape", [("dropout1d", (40, 50, 3)), ("dropout1d", (400, 3)),
                                        ("dropout2d", (40, 50, 2, 2)), ("dropout2d", (40, 50, 3)),
                                        ("dropout2d", (40, 50, 1, 2, 2))])
def test_channel_dropout_statistics(name, shape):
    lt.manual_seed(0)
    x = lt.ones(*shape)
    p = 0.3
    y = getattr(LF, name)(x, p, training=True).numpy()
    lead = 2 if len(shape) >= 3 and not (name == "dropout1d" and len(shape) == 2) else 1
    flat = y.reshape(int(np.prod(shape[:lead])), -1)
    # whole channels are dropped or kept (scaled by 1/(1-p))
    assert np.all((flat == 0).all(1) | np.isclose(flat, 1 / (1 - p)).all(1))
    frac = (flat[:, 0] == 0).mean()
    assert abs(frac - p) < 0.06, frac
    assert_same(getattr(LF, name)(x, p, training=False), getattr(TF, name)(torch.ones(*shape), p, training=False))
    mod = {"dropout1d": "Dropout1d", "dropout2d": "Dropout2d"}[name]
    m = getattr(lt.nn, mod)(p)
    m.eval()
    assert m(x) is x


def test_channel_dropout_grad_and_errors():
    lt.manual_seed(1)
    x = lt.ones(6, 8, 2).requires_grad_(True)
    y = LF.dropout1d(x, 0.5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y.detach().numpy() != 0) * 2.0)
    raises_as(lambda: LF.dropout1d(lt.ones(2, 3, 4, 5)), lambda: TF.dropout1d(torch.ones(2, 3, 4, 5)), "dropout1d")
    raises_as(lambda: LF.dropout2d(lt.ones(3), 0.5), lambda: TF.dropout2d(torch.ones(3), 0.5))
    for f in ("dropout1d", "dropout2d", "alpha_dropout"):
        raises_as(lambda: getattr(LF, f)(lt.ones(2, 3, 4), 1.5), lambda: getattr(TF, f)(torch.ones(2, 3, 4), 1.5))
    raises_as(lambda: lt.nn.AlphaDropout(-0.1), lambda: torch.nn.AlphaDropout(-0.1))


def test_alpha_dropout_statistics():
    lt.manual_seed(0)
    x_np = np.random.RandomState(0).randn(200, 100).astype(np.float32)
    x = lt.from_numpy(x_np)
    y = LF.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1.0) < 0.03, (y.mean(), y.std())
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    dropped_value = -1.7580993408473766 * a + 1.7580993408473766 * a * 0.2
    dropped = np.isclose(y, dropped_value, atol=1e-6)
    assert abs(dropped.mean() - 0.2) < 0.02
    np.testing.assert_allclose(y[~dropped], x_np[~dropped] * a + 1.7580993408473766 * a * 0.2, rtol=1e-5, atol=1e-6)
    m = lt.nn.AlphaDropout(0.2)
    m.eval()
    assert m(x) is x
    assert LF.alpha_dropout(x, 0.2) is x  # training=False by default, as torch
