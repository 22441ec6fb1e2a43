"""Values and gradients at special points against PyTorch: large magnitudes, kinks, domain edges,
integer promotion, and torch's strides for views."""
import numpy as np
import pytest
import torch

import lazytensor as lt

POINTS = [-1e4, -300.0, -100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, 300.0, 1e4]

ACTIVATIONS = {
    "sigmoid": lambda m, x: x.sigmoid(),
    "tanh": lambda m, x: x.tanh(),
    "softplus": lambda m, x: m.nn.functional.softplus(x),
    "softplus_beta": lambda m, x: m.nn.functional.softplus(x, beta=2.0, threshold=10.0),
    "logsigmoid": lambda m, x: m.nn.functional.logsigmoid(x),
    "silu": lambda m, x: m.nn.functional.silu(x),
    "mish": lambda m, x: m.nn.functional.mish(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "gelu_tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "elu": lambda m, x: m.nn.functional.elu(x),
    "selu": lambda m, x: m.nn.functional.selu(x),
    "celu": lambda m, x: m.nn.functional.celu(x, alpha=0.5),
    "relu": lambda m, x: m.nn.functional.relu(x),
}


def _grad(m, f, values, dtype):
    x = m.tensor(values, dtype=dtype, requires_grad=True)
    y = f(m, x)
    y.sum().backward()
    return np.array(y.tolist()), np.array(x.grad.tolist())


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation_values_and_gradients_at_special_points(name, dtype):
    f = ACTIVATIONS[name]
    ty, tg = _grad(torch, f, POINTS, getattr(torch, dtype))
    ly, lg = _grad(lt, f, POINTS, getattr(lt, dtype))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    assert not np.isnan(lg).any(), (name, lg)
    np.testing.assert_allclose(ly, ty, **tol)
    np.testing.assert_allclose(lg, tg, **tol)


@pytest.mark.parametrize("pos_weight", [None, 3.0])
def test_bce_with_logits_gradient_is_sigmoid_minus_target_at_zero_logits(pos_weight):
    grads = []
    for m in (torch, lt):
        x = m.zeros(4, requires_grad=True)
        y = m.tensor([1.0, 0.0, 1.0, 0.0])
        pw = None if pos_weight is None else m.full((4,), pos_weight)
        m.nn.functional.binary_cross_entropy_with_logits(x, y, pos_weight=pw).backward()
        grads.append(np.array(x.grad.tolist()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


def test_logistic_regression_first_step_from_zero_weights_matches_torch():
    rng = np.random.default_rng(0)
    xs, ys = rng.normal(size=(16, 3)).astype(np.float32), (rng.random(16) > 0.5).astype(np.float32)
    out = []
    for m in (torch, lt):
        w = m.zeros(3, requires_grad=True)
        loss = m.nn.functional.binary_cross_entropy_with_logits(m.tensor(xs) @ w, m.tensor(ys))
        loss.backward()
        out.append(np.array(w.grad.tolist()))
    np.testing.assert_allclose(out[1], out[0], rtol=1e-5, atol=1e-7)


def test_acosh_gradient_below_minus_one_and_nan_inside():
    vals = [-3.0, -2.0, -0.5, 0.5, 2.0, 3.0]
    res = []
    for m in (torch, lt):
        x = m.tensor(vals, requires_grad=True)
        y = x.acosh()
        y.sum().backward()
        res.append((np.array(y.tolist()), np.array(x.grad.tolist())))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-5, equal_nan=True)


def test_copysign_gradient_for_the_sign_operand_is_zero():
    out = []
    for m in (torch, lt):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        s = m.tensor([-1.0, 1.0, float("nan")], requires_grad=True)
        gx, gs = m.autograd.grad(m.copysign(x, s).sum(), [x, s])
        out.append((gx.tolist(), gs.tolist()))
    assert out[1] == out[0]


def test_integer_remainder_and_floor_divide_keep_the_tensor_dtype():
    for a, b in [(100, "t"), ("z", "t"), ("t", 3)]:
        for op in ("remainder", "floor_divide"):
            dts = []
            for m in (torch, lt):
                t = m.tensor([3, 7], dtype=m.int32)
                z = m.tensor(100)
                args = [t if v == "t" else z if v == "z" else v for v in (a, b)]
                if isinstance(args[0], int):
                    r = 100 % t if op == "remainder" else 100 // t
                else:
                    r = getattr(m, op)(*args)
                dts.append((str(r.dtype), r.tolist()))
            assert dts[1] == dts[0], (a, b, op)


def test_nonzero_of_a_zero_dim_tensor():
    for v in (5, 0):
        for as_tuple in (False, True):
            a = torch.tensor(v).nonzero(as_tuple=as_tuple)
            b = lt.tensor(v).nonzero(as_tuple=as_tuple)
            if as_tuple:
                assert [tuple(x.shape) for x in b] == [tuple(x.shape) for x in a]
            else:
                assert tuple(b.shape) == tuple(a.shape) and b.dtype == lt.int64


def test_integer_tensor_to_a_negative_integer_number_raises_as_torch():
    x = lt.tensor([2, 3])
    for f in (lambda: x ** -2, lambda: x.pow(-1), lambda: lt.pow(x, -1)):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            f()
    assert (x ** 2).tolist() == [4, 9]  # x is still valid
    assert (x ** -2.0).tolist() == pytest.approx([0.25, 1 / 9])
    assert (x ** lt.tensor([-2, 1])).tolist() == (torch.tensor([2, 3]) ** torch.tensor([-2, 1])).tolist()


def _views(m):
    a = m.arange(24.0).reshape(2, 3, 4)
    return [a.transpose(0, 1), a.permute(2, 0, 1), a[:, 1:], a[1:], a[:, :, ::2], a[0], a[:, 0],
            m.ones(1, 3).expand(4, 3), m.ones(3, 1).t(), a.transpose(0, 1).reshape(6, 4), a.reshape(6, 4),
            a.view(2, 12)[:, 3:], a.transpose(1, 2).contiguous(), a.unsqueeze(1), a[..., 1], m.ones(2, 3).t()[1]]


def test_strides_and_contiguity_follow_torch_views():
    for tv, lv in zip(_views(torch), _views(lt)):
        assert lv.is_contiguous() == tv.is_contiguous(), tuple(tv.shape)
        assert lv.stride() == tv.stride(), tuple(tv.shape)
        assert lv.storage_offset() == tv.storage_offset(), tuple(tv.shape)
        assert lv.tolist() == tv.tolist()


def test_contiguous_of_a_transposed_view_is_a_copy_that_no_longer_aliases():
    a = lt.zeros(2, 3)
    t = a.t()
    c = t.contiguous()
    assert c.is_contiguous() and c.stride() == (2, 1)
    c[0, 0] = 5.0
    assert a.tolist() == [[0.0] * 3] * 2
    t[0, 1] = 7.0  # the view still writes through
    assert a[1, 0].item() == 7.0
    assert t.contiguous() is not t and a.contiguous() is a


def test_cross_entropy_probability_target_of_the_wrong_shape_names_the_op():
    x = lt.randn(4, 5)
    with pytest.raises(RuntimeError, match=r"cross_entropy: class-probability targets .* \[4, 5\], got \[4, 4\]"):
        lt.nn.functional.cross_entropy(x, lt.rand(4, 4))
    with pytest.raises(RuntimeError):
        torch.nn.functional.cross_entropy(torch.randn(4, 5), torch.rand(4, 4))
    assert lt.nn.functional.cross_entropy(x, lt.rand(4, 5)).dim() == 0  # x is still valid


# torch 1.13's integer linspace: int32 and int64 differ from each other (its kernel writes V = 32 bytes /
# element size lanes at a time from a truncated base), and lazytensor matches each dtype.
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("start", [5, -5, 0, 3, 100, -7.9, 2.5, -7])
@pytest.mark.parametrize("end", [-5, 5, 17, 0, -100, 1000.7])
def test_integer_linspace_matches_torch_for_each_dtype(dtype, start, end):
    for steps in (0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 20, 33, 64, 100, 257, 1000):
        ours = lt.linspace(start, end, steps, dtype=getattr(lt, dtype))
        theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.tolist() == theirs.tolist(), (start, end, steps)
