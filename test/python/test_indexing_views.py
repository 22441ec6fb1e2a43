"""Indexing, index assignment, and in-place writes through views (visible in the base)."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, pair

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

INDICES = [
    0, -1, (1, 2), (0, -1, 3), slice(None), slice(1, 3), slice(None, None, 2), slice(-2, None), slice(5, 10),
    (slice(None), 1), (Ellipsis, 0), (0, Ellipsis), (None,), (slice(None), None, 2), (1, slice(0, 4, 3), None),
    (Ellipsis, slice(1, None, 2)), (slice(None), slice(None), slice(None, None, 3)), (None, Ellipsis, None),
    True, (0, True), Ellipsis,
]


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_basic_getitem(idx):
    a, b = pair(X)
    assert_same(a[idx], b[idx])


ADVANCED = [
    "long1", "long2d", "list", "neg", "two_tensors", "split_tensors", "mask", "mask_row", "slice_and_tensor",
]


def _adv(name, mod):
    t = lambda v: mod.tensor(v)  # noqa: E731
    return {
        "long1": (t([0, 2, 2]),),
        "long2d": (t([[0, 1], [2, 0]]),),
        "list": ([0, 2],),
        "neg": (t([-1, 0]),),
        "two_tensors": (t([0, 2]), t([1, 3])),
        "split_tensors": (t([0, 2]), slice(None), t([1, 4])),
        "mask": None,
        "mask_row": (t([True, False, True]),),
        "slice_and_tensor": (slice(None), t([3, 0])),
    }[name]


@pytest.mark.parametrize("name", ADVANCED)
def test_advanced_getitem(name):
    a, b = pair(X)
    if name == "mask":
        assert_same(a[a > 30], b[b > 30])
        return
    assert_same(a[_adv(name, lt)], b[_adv(name, torch)])


SETS = [0, (1, 2), slice(1, 3), (slice(None), slice(None, None, 2)), (Ellipsis, 1), (0, slice(1, 4, 2), 3),
        (None, 1)]


@pytest.mark.parametrize("idx", SETS, ids=repr)
@pytest.mark.parametrize("value", ["scalar", "tensor"])
def test_basic_setitem(idx, value):
    a, b = pair(X)
    if value == "scalar":
        a[idx] = -1.5
        b[idx] = -1.5
    else:
        shape = tuple(b[idx].shape)
        v = np.full(shape, 7, dtype=np.float32) + np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        a[idx] = lt.from_numpy(v)
        b[idx] = torch.from_numpy(v)
    assert_same(a, b)


@pytest.mark.parametrize("name", ["long1", "two_tensors", "mask_row", "slice_and_tensor", "split_tensors"])
def test_advanced_setitem(name):
    a, b = pair(X)
    a[_adv(name, lt)] = 0.5
    b[_adv(name, torch)] = 0.5
    assert_same(a, b)


def test_mask_setitem_no_sync_path_and_tensor_values():
    a, b = pair(X)
    a[a > 20] = 0
    b[b > 20] = 0
    assert_same(a, b)
    a2, b2 = pair(X)
    a2[a2 < 10] = lt.arange(10.0)
    b2[b2 < 10] = torch.arange(10.0)
    assert_same(a2, b2)


def test_setitem_broadcast_row():
    a, b = pair(X)
    a[:, 1] = lt.arange(5.0)
    b[:, 1] = torch.arange(5.0)
    assert_same(a, b)


def test_setitem_int_tensor_casts_value():
    a, b = pair(np.zeros(4, dtype=np.int64))
    a[1] = 3.7
    b[1] = 3.7
    assert_same(a, b)


# ---- views and in-place ----
def _both(fn):
    a, b = pair(X)
    fn(a, lt)
    fn(b, torch)
    assert_same(a, b)
    return a, b


def test_inplace_through_select_view():
    def f(t, mod):
        row = t[1]
        row += 100
        row.mul_(2)
    _both(f)


def test_inplace_through_slice_with_step():
    def f(t, mod):
        v = t[:, ::2, 1:4:2]
        v.zero_()
    _both(f)


def test_view_of_view_and_reshape():
    def f(t, mod):
        v = t.reshape(12, 5)[3:7].view(2, 2, 5)
        v.fill_(3.0)
        v[0, 1, 2] = -9
    _both(f)


def test_transpose_view_write():
    def f(t, mod):
        v = t.transpose(0, 2)
        v[0].add_(1000)
    _both(f)


def test_base_write_is_seen_by_existing_view():
    a, b = pair(X)
    va, vb = a[0, 1], b[0, 1]
    a.mul_(-1)
    b.mul_(-1)
    assert_same(va, vb)
    a[0, 1, 0] = 42
    b[0, 1, 0] = 42
    assert_same(va, vb)


def test_sibling_views_see_each_other():
    a, b = pair(X)
    a0, a1 = a[0], a[0, :2]
    b0, b1 = b[0], b[0, :2]
    a1.fill_(5)
    b1.fill_(5)
    assert_same(a0, b0)


def test_unsqueeze_squeeze_flatten_views():
    def f(t, mod):
        t.unsqueeze(0)[0, 0].sub_(1)
        t.flatten()[:5].fill_(0)
        t[None].squeeze(0)[2, 3, 4] = 99
    _both(f)


def test_split_chunk_unbind_views_write():
    def f(t, mod):
        t.split(2, dim=1)[1].fill_(-1)
        t.unbind(2)[4].fill_(8)
        t.chunk(3)[2].mul_(0.5)
        t.narrow(2, 1, 2).clamp_(max=3)
    _both(f)


def test_detach_and_data_write_through():
    a = lt.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([1.0, 2.0], requires_grad=True)
    a.detach().mul_(3)
    b.detach().mul_(3)
    assert_same(a.detach(), b.detach())
    a.data.add_(1)
    b.data.add_(1)
    assert_same(a.detach(), b.detach())
    assert a.requires_grad and a.is_leaf
    a.data = lt.tensor([5.0, 6.0])
    assert a.tolist() == [5.0, 6.0] and a.requires_grad


def test_expand_view_write_raises():
    a = lt.zeros(1, 3)
    with pytest.raises(RuntimeError):
        a.expand(4, 3).add_(1)


def test_inplace_on_leaf_view_requires_no_grad():
    w = lt.zeros(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError):
        w[0].fill_(1)
    with lt.no_grad():
        w[0].fill_(1)
    assert w.tolist()[0] == [1.0, 1.0] and w.is_leaf and w.requires_grad


def test_inplace_result_type_errors():
    a = lt.tensor([1, 2])
    with pytest.raises(RuntimeError):
        a += 1.5
    with pytest.raises(RuntimeError):
        a.mul_(lt.tensor([0.5, 0.5]))
    b = lt.zeros(3)
    with pytest.raises(RuntimeError):
        b += lt.zeros(2, 3)


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("other", [2.0, "tensor"])
def test_inplace_methods(op, other):
    a, b = pair(X)
    oa, ob = (other, other) if other != "tensor" else pair(X[0] + 1)
    getattr(a, op)(oa)
    getattr(b, op)(ob)
    assert_same(a, b)


def test_inplace_keeps_identity_and_operators_rebind():
    a = lt.tensor([1.0, 2.0])
    ident = id(a)
    a += 1
    a *= 2
    a -= 1
    a /= 3
    a **= 2
    assert id(a) == ident
    b = torch.tensor([1.0, 2.0])
    b += 1
    b *= 2
    b -= 1
    b /= 3
    b **= 2
    assert_same(a, b)


@pytest.mark.parametrize("name,args", [
    ("zero_", ()), ("fill_", (2.5,)), ("clamp_", (-1.0, 10.0)), ("neg_", ()), ("exp_", ()), ("sqrt_", ()),
    ("relu_", ()), ("sigmoid_", ()), ("tanh_", ()), ("abs_", ()), ("pow_", (2,)), ("add_", (1,)),
])
def test_more_inplace(name, args):
    a, b = pair(X / 60)
    r = getattr(a, name)(*args)
    getattr(b, name)(*args)
    assert r is a
    assert_same(a, b, rtol=1e-5)


def test_masked_fill_copy_inplace():
    a, b = pair(X)
    a.masked_fill_(a > 50, -1)
    b.masked_fill_(b > 50, -1)
    assert_same(a, b)
    a.copy_(lt.ones(5))
    b.copy_(torch.ones(5))
    assert_same(a, b)
    a[0].copy_(lt.zeros(4, 5))
    b[0].copy_(torch.zeros(4, 5))
    assert_same(a, b)


def test_addcmul_addcdiv_lerp():
    a, b = pair(X)
    a.addcmul_(a, a, value=0.5).addcdiv_(a + 1, a + 2, value=2).lerp_(a * 0, 0.25)
    b.addcmul_(b, b, value=0.5).addcdiv_(b + 1, b + 2, value=2).lerp_(b * 0, 0.25)
    assert_same(a, b, rtol=1e-5)
