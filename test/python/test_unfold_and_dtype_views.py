"""Tensor.unfold as a view and view(dtype), against PyTorch 1.13.

unfold with non-overlapping windows is a view: writes through it reach the base and the strides are
torch's. Overlapping windows are a copy with torch's values. view(dtype) to another dtype is a copy of the
reinterpreted bits: its values match torch's and in-place writes through it raise (they could not reach
the original)."""
import numpy as np
import pytest

from conftest import assert_same, lt, torch


@pytest.mark.parametrize("dim,size,step", [(1, 2, 3), (1, 3, 3), (0, 1, 1), (2, 1, 2), (-1, 2, 2), (1, 13, 13)])
def test_non_overlapping_unfold_is_a_view(dim, size, step):
    out = []
    for T in (lt, torch):
        x = T.arange(2 * 13 * 4.0).reshape(2, 13, 4)
        u = x.unfold(dim, size, step)
        if u.numel():
            u[(-1,) * (u.dim() - 1) + (0,)] = -7.0
            u.mul_(2)
        out.append((x, u, list(u.stride()), u.is_contiguous()))
    assert_same(out[0][:2], out[1][:2])
    assert out[0][2:] == out[1][2:]


@pytest.mark.parametrize("dim,size,step", [(1, 3, 1), (1, 4, 3), (1, 2, 5), (0, 2, 1), (1, 0, 2)])
def test_overlapping_or_short_unfold_values(dim, size, step):
    outs = [T.arange(2 * 13 * 4.0).reshape(2, 13, 4).unfold(dim, size, step) for T in (lt, torch)]
    assert_same(outs[0], outs[1])


def test_unfold_gradient_matches_torch():
    grads = []
    for T in (lt, torch):
        x = T.arange(12.0, requires_grad=True)
        (x.unfold(0, 3, 3) * T.arange(12.0).reshape(4, 3)).sum().backward()
        grads.append(x.grad)
    assert_same(grads[0], grads[1])


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"), ("float64", "int64"),
                                     ("int64", "float64"), ("float32", "float32")])
def test_view_dtype_values(src, dst):
    data = np.array([1.0, -2.5, 0.0, 3e38 if src == "float32" else 7.0])
    outs = [T.tensor(data).to(getattr(T, src)).view(getattr(T, dst)) for T in (lt, torch)]
    assert_same(outs[0], outs[1])


@pytest.mark.parametrize("write", ["add_", "setitem", "iadd", "index_write", "copy_"])
def test_in_place_write_through_view_dtype_raises_and_changes_nothing(write):
    x = lt.tensor([1.0, -2.0])
    v = x.view(lt.int32)
    with pytest.raises(RuntimeError, match="view\\(dtype\\)"):
        if write == "add_":
            v.add_(1)
        elif write == "setitem":
            v[0] = 3
        elif write == "iadd":
            v += 1
        elif write == "index_write":
            v[0].fill_(2)
        else:
            v.copy_(lt.tensor([1, 2], dtype=lt.int32))
    assert x.tolist() == [1.0, -2.0]
    assert v.tolist() == torch.tensor([1.0, -2.0]).view(torch.int32).tolist()


def test_clone_of_view_dtype_is_writable():
    w = lt.tensor([1.0, -2.0]).view(lt.int32).clone()
    w.add_(1)
    assert w.tolist() == [v + 1 for v in torch.tensor([1.0, -2.0]).view(torch.int32).tolist()]


def test_view_same_dtype_is_a_real_view():
    x = lt.tensor([1.0, 2.0])
    v = x.view(lt.float32)
    v[0] = 5.0
    assert x.tolist() == [5.0, 2.0]
