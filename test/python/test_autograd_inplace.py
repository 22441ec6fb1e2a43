"""In-place changes and autograd against PyTorch: the same program raises the
same exception type at the same statement ("modified by an inplace
operation", the leaf rule), or runs and gives the same gradients."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _x(m):
    return m.tensor([[0.5, -1.0, 2.0], [1.5, -0.5, 3.0]], requires_grad=True)


def _run(m, program):
    """Runs program(m, x) -> the gradient(s) to compare; returns (result, exception)."""
    x = _x(m)
    try:
        return program(m, x), None
    except Exception as e:  # noqa: BLE001 - the type is what we compare
        return None, e


# Each program raises (or not) at its last backward; the comment says why in PyTorch's terms.
PROGRAMS = {
    # mul saves both operands
    "mul_saves_input": lambda m, x: _backward((lambda a: (a * a, a.mul_(2)))(x * 1)[0], x),
    # add saves nothing
    "add_saves_nothing": lambda m, x: _backward((lambda a: (a + 1, a.mul_(2)))(x * 1)[0], x),
    # multiplying by a number saves only the number
    "mul_by_number": lambda m, x: _backward((lambda a: (a * 3, a.zero_()))(x * 1)[0], x),
    # exp saves its output ...
    "exp_output_changed": lambda m, x: _backward((lambda y: (y, y.add_(1)))((x * 1).exp())[0], x),
    # ... not its input
    "exp_input_changed": lambda m, x: _backward((lambda a: (a.exp(), a.add_(1)))(x * 1)[0], x),
    "tanh_output_changed": lambda m, x: _backward((lambda y: (y, y.mul_(2)))((x * 1).tanh())[0], x),
    "relu_output_changed": lambda m, x: _backward((lambda y: (y, y.mul_(2)))((x * 1).relu())[0], x),
    "relu_input_changed": lambda m, x: _backward((lambda a: (a.relu(), a.mul_(2)))(x * 1)[0], x),
    "sigmoid_output_changed": lambda m, x: _backward((lambda y: (y, y.mul_(2)))((x * 1).sigmoid())[0], x),
    "sigmoid_input_changed": lambda m, x: _backward((lambda a: (a.sigmoid(), a.mul_(2)))(x * 1)[0], x),
    "softmax_output_changed": lambda m, x: _backward((lambda y: (y, y.mul_(2)))((x * 1).softmax(1))[0] * m.arange(3.0), x),
    "log_softmax_output_changed": lambda m, x: _backward(
        (lambda y: (y, y.mul_(2)))((x * 1).log_softmax(1))[0] * m.arange(3.0), x),
    "div_saves_divisor": lambda m, x: _backward((lambda a: (x / a, a.add_(1)))(x * 1 + 5)[0], x),
    "pow_saves_base": lambda m, x: _backward((lambda a: (a ** 2, a.add_(1)))(x * 1)[0], x),
    "sum_saves_nothing": lambda m, x: _backward((lambda a: (a.sum() * 1, a.add_(1)))(x * 1)[0], x),
    "matmul_saves_operands": lambda m, x: _backward((lambda a: (a @ x.t(), a.add_(1)))(x * 1)[0], x),
    "clamp_in_place_on_saved": lambda m, x: _backward((lambda a: (a * a, a.clamp_(0, 1)))(x * 1)[0], x),
    "masked_fill_in_place_on_saved": lambda m, x: _backward(
        (lambda a: (a * a, a.masked_fill_(a > 1, 0.0)))(x * 1)[0], x),
    "copy_into_saved": lambda m, x: _backward((lambda a: (a * a, a.copy_(m.ones(2, 3))))(x * 1)[0], x),
    "fill_saved": lambda m, x: _backward((lambda a: (a * a, a.fill_(2.0)))(x * 1)[0], x),
    "setitem_on_saved": lambda m, x: _backward((lambda a: (a * a, a.__setitem__(0, 1.0)))(x * 1)[0], x),
    "iadd_on_saved": lambda m, x: _backward(_iadd_after_mul(x * 1), x),
    # in-place through a view of a saved tensor bumps the base's counter
    "write_through_view_of_saved": lambda m, x: _backward((lambda a: (a * a, a[0].add_(1)))(x * 1)[0], x),
    "write_through_transpose_of_saved": lambda m, x: _backward((lambda a: (a * a, a.t().mul_(2)))(x * 1)[0], x),
    # a saved view, then the base changes
    "base_changed_under_saved_view": lambda m, x: _backward((lambda a: (a[1] * a[1], a.add_(1)))(x * 1)[0], x),
    # a saved view changed through another view of the same base
    "saved_view_changed_through_sibling": lambda m, x: _backward(
        (lambda a: (lambda v: (v * v, a[1].add_(1)))(a[1]))(x * 1)[0], x),
    # a write to one view of an unsaved base is fine when the saved value is a copy
    "clone_is_a_copy": lambda m, x: _backward((lambda a: (a * a, a.clone().mul_(2)))(x * 1)[0], x),
    "detach_shares_the_version": lambda m, x: _backward((lambda a: (a * a, a.detach().mul_(2)))(x * 1)[0], x),
    "data_has_its_own_version": lambda m, x: _backward((lambda a: (a * 3, a.data.mul_(2)))(x * 1)[0], x),
    "change_after_backward": lambda m, x: _after_backward(m, x),
    "retain_graph_change_second_backward": lambda m, x: _retain_then_change(m, x),
    "autograd_grad_checks_too": lambda m, x: _autograd_grad(m, x),
    # leaves
    "leaf_in_place_grad_mode": lambda m, x: x.add_(1),
    "leaf_view_in_place_grad_mode": lambda m, x: x[0].add_(1),
    "leaf_in_place_no_grad_then_backward_saved": lambda m, x: _leaf_update_before_backward(m, x, lambda p: p * p),
    "leaf_in_place_no_grad_then_backward_unsaved": lambda m, x: _leaf_update_before_backward(
        m, x, lambda p: p * 2 + 1),
}


def _iadd_after_mul(a):
    y = a * a
    a += 1
    return y


def _backward(y, x):
    y.sum().backward()
    return x.grad


def _after_backward(m, x):
    a = x * 1
    (a * a).sum().backward()
    a.mul_(2)
    return x.grad, a


def _retain_then_change(m, x):
    a = x * 1
    loss = (a * a).sum()
    loss.backward(retain_graph=True)
    a.add_(1)
    loss.backward()
    return x.grad


def _autograd_grad(m, x):
    a = x * 1
    loss = (a * a).sum()
    a.sub_(1)
    return m.autograd.grad(loss, x)


def _leaf_update_before_backward(m, x, f):
    loss = f(x).sum()
    with m.no_grad():
        x.sub_(1)
    loss.backward()
    return x.grad, x


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_error_as_pytorch(name):
    res_l, err_l = _run(lt, PROGRAMS[name])
    res_t, err_t = _run(torch, PROGRAMS[name])
    if err_t is None:
        assert err_l is None, f"pytorch runs, lazytensor raised {err_l!r}"
        assert_same(res_l, res_t)
        return
    assert err_l is not None, f"pytorch raised {err_t!r}, lazytensor ran"
    assert type(err_l) is type(err_t), (err_l, err_t)
    if MODIFIED in str(err_t):
        assert MODIFIED in str(err_l), str(err_l)
    if "leaf Variable that requires grad" in str(err_t):
        assert "leaf Variable that requires grad is being used in an in-place operation" in str(err_l), str(err_l)


def test_message_names_dtype_shape_and_versions():
    x = lt.ones(3, 4, requires_grad=True)
    a = x * 1
    y = a * a
    a.add_(1)
    a.add_(1)
    with pytest.raises(RuntimeError, match=r"\[float32 \[3, 4\]\] is at version 2; expected version 0 instead"):
        y.sum().backward()


@pytest.mark.parametrize("m", [lt, torch], ids=["lazytensor", "torch"])
def test_version_counter_is_shared_by_a_base_and_its_views(m):
    x = m.zeros(2, 3)
    x.add_(1)
    v = x[0]
    t = x.t()
    assert (x._version, v._version, t._version) == (1, 1, 1)
    v.mul_(2)
    assert (x._version, v._version, t._version) == (2, 2, 2)
    t[1].fill_(3.0)
    assert (x._version, v._version, t._version) == (3, 3, 3)
    d = x.data
    d.add_(1)
    assert x._version == 3 and d._version == 1
    assert x.tolist() == [[3.0, 4.0, 3.0], [2.0, 4.0, 2.0]]


def test_optimizer_steps_after_backward_stay_legal():
    for m in (lt, torch):
        m.manual_seed(0)
    np_w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    results = []
    for m in (lt, torch):
        w = m.nn.Parameter(m.tensor(np_w))
        opt = m.optim.Adam([w], lr=0.1)
        x = m.tensor(np.ones((2, 4), dtype=np.float32))
        for _ in range(3):
            opt.zero_grad()
            loss = (x @ w.t()).relu().pow(2).sum()
            loss.backward()
            opt.step()
        results.append(w)
    assert_same(results[0], results[1], rtol=1e-4, atol=1e-5)


def test_optimizer_step_between_two_backwards_raises_like_pytorch():
    errors = []
    for m in (lt, torch):
        w = m.nn.Parameter(m.ones(3, 4))
        opt = m.optim.SGD([w], lr=0.1)
        loss = (w * w).sum()
        loss.backward(retain_graph=True)
        opt.step()  # changes w, which mul saved
        with pytest.raises(RuntimeError) as e:
            loss.backward()
        errors.append(str(e.value))
    assert MODIFIED in errors[0] and MODIFIED in errors[1]


def test_optimizer_step_between_two_backwards_of_a_graph_that_saved_no_weight_runs_like_pytorch():
    grads = []
    for m in (lt, torch):
        w = m.nn.Parameter(m.ones(3, 4))
        opt = m.optim.SGD([w], lr=0.1)
        loss = (m.ones(2, 4) @ w.t()).sum()  # w's gradient reads only the ones
        loss.backward(retain_graph=True)
        opt.step()
        loss.backward()
        grads.append(w.grad)
    assert_same(grads[0], grads[1])


# create_graph (double backward): every entry point returns gradients that
# are differentiable again, with torch's second derivative.
@pytest.mark.parametrize("call", ["tensor_backward", "autograd_backward", "autograd_grad"])
def test_create_graph_gives_differentiable_gradients(call):
    second = []
    for T in (lt, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        loss = (x * x * x).sum()
        if call == "tensor_backward":
            loss.backward(create_graph=True)
            g = x.grad
        elif call == "autograd_backward":
            T.autograd.backward([loss], create_graph=True)
            g = x.grad
        else:
            (g,) = T.autograd.grad(loss, x, create_graph=True)
        assert g.requires_grad
        (h,) = T.autograd.grad(g.sum(), x)
        second.append(h)
    assert_same(second[0], second[1])
