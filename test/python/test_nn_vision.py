"""Padding and shuffles (nn/_functional_vision.py, nn/modules/padding.py, pixelshuffle.py,
channelshuffle.py) vs PyTorch 1.13, and that these layers record lazily."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, assert_same, matches, pair, raises_as, rnd, seeded

LF, TF = lt.nn.functional, torch.nn.functional


@pytest.mark.parametrize("shape,r", [((1, 8, 2, 3), 2), ((2, 2, 9, 1, 1), 3), ((4, 2, 2), 2)])
def test_pixel_shuffle(shape, r):
    x = rnd(*shape)
    y = matches(lambda a: LF.pixel_shuffle(a, r), lambda a: TF.pixel_shuffle(a, r), [x])
    matches(lambda a: lt.nn.PixelShuffle(r)(a), lambda a: torch.nn.PixelShuffle(r)(a), [x])
    matches(lambda a: lt.nn.PixelUnshuffle(r)(a), lambda a: torch.nn.PixelUnshuffle(r)(a), [y.detach().numpy()])
    matches(lambda a: LF.pixel_unshuffle(a, r), lambda a: TF.pixel_unshuffle(a, r), [y.detach().numpy()])


def test_shuffle_errors_and_channel_shuffle():
    raises_as(lambda: LF.pixel_shuffle(lt.zeros(1, 3, 2, 2), 2), lambda: TF.pixel_shuffle(torch.zeros(1, 3, 2, 2), 2),
                "pixel_shuffle")
    raises_as(lambda: LF.pixel_shuffle(lt.zeros(3, 2), 2), lambda: TF.pixel_shuffle(torch.zeros(3, 2), 2))
    raises_as(lambda: LF.pixel_unshuffle(lt.zeros(1, 3, 3, 2), 2),
                lambda: TF.pixel_unshuffle(torch.zeros(1, 3, 3, 2), 2), "pixel_unshuffle")
    x = rnd(2, 6, 2)
    (a, b) = pair(x)
    assert_same(lt.nn.ChannelShuffle(3)(a), torch.nn.ChannelShuffle(3)(b))
    assert_same(LF.channel_shuffle(a, 2), TF.channel_shuffle(b, 2))
    raises_as(lambda: lt.nn.ChannelShuffle(4)(a), lambda: torch.nn.ChannelShuffle(4)(b))
    a.requires_grad_(True)  # torch has no channel_shuffle gradient; it is a permutation of the input
    w = rnd(2, 6, 2)
    (LF.channel_shuffle(a, 2) * lt.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), TF.channel_shuffle(torch.from_numpy(w), 3).numpy())


@pytest.mark.parametrize("pad,shape", [(1, (1, 2, 3)), ((1, 2, 0, 3), (2, 3, 4)), ((1, -1, 2, 0), (1, 2, 3)),
                                       ((1, 2), (2, 3))])
def test_zero_pad2d(pad, shape):
    agree(lambda m, a: m.nn.ZeroPad2d(pad)(a), [seeded(*shape, seed=17)])
    assert repr(lt.nn.ZeroPad2d(pad)) == repr(torch.nn.ZeroPad2d(pad))


def test_stays_lazy():
    before = lt._C.pending_tensor_count()
    x = lt.from_numpy(rnd(1, 4, 2, 2))
    y = LF.pixel_shuffle(LF.selu(LF.conv_transpose2d(x, lt.from_numpy(rnd(4, 4, 2, 2)), stride=2)), 2)
    assert lt._C.pending_tensor_count() > before
    assert tuple(y.shape) == (1, 1, 8, 8)
