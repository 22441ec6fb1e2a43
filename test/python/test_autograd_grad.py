"""torch.autograd.grad over graph shapes where inputs are not independent leaves, against PyTorch 1.13.

Each program runs once with `T = lazytensor` and once with `T = torch`; the gradients (or the exception
type) must agree. Covers an input that feeds another input, diamonds, allow_unused, grad_outputs,
retain_graph, non-leaf inputs, create_graph (double backward), backward(inputs=...) and retain_grad chains.
"""
import numpy as np
import pytest

from conftest import lt, torch


def _np(x):
    return None if x is None else x.detach().numpy()


def same(program, rtol=1e-5, atol=1e-6):
    ours, theirs = program(lt), program(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
            continue
        assert a is not None
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)


def leaf(T, values=(1.0, -2.0, 3.0)):
    return T.tensor(list(values), requires_grad=True)


def test_input_feeding_another_input_gets_its_total_derivative():
    def program(T):
        a = leaf(T)
        b = a * 2
        return T.autograd.grad((b * a).sum(), [a, b])
    same(program)


def test_inputs_in_reverse_order_of_the_graph():
    def program(T):
        a = leaf(T)
        b = a.exp()
        c = b * a
        return T.autograd.grad((c * b).sum(), [c, b, a])
    same(program)


def test_chain_of_non_leaf_inputs():
    def program(T):
        a = leaf(T)
        b = a.sin()
        c = b.tanh()
        d = c * c
        return T.autograd.grad(d.sum(), [b, c, d])
    same(program)


def test_diamond():
    def program(T):
        a = leaf(T)
        left, right = a * 3, a.exp()
        return T.autograd.grad((left * right).sum(), [a])
    same(program)


def test_diamond_with_the_branches_as_inputs():
    def program(T):
        a = leaf(T)
        left, right = a * 3, a.exp()
        return T.autograd.grad((left * right).sum(), [left, right, a])
    same(program)


def test_same_input_twice():
    def program(T):
        a = leaf(T)
        return T.autograd.grad((a * a).sum(), [a, a])
    same(program)


def test_allow_unused_gives_none():
    def program(T):
        a, u = leaf(T), leaf(T, (4.0, 5.0, 6.0))
        return T.autograd.grad((a * 2).sum(), [a, u], allow_unused=True)
    same(program)


def test_unused_input_without_allow_unused_raises():
    for T in (lt, torch):
        a, u = leaf(T), leaf(T, (4.0, 5.0, 6.0))
        with pytest.raises(RuntimeError, match="not have been used in the graph"):
            T.autograd.grad((a * 2).sum(), [a, u])


def test_input_downstream_of_the_output_is_unused():
    def program(T):
        a = leaf(T)
        out = (a * 2).sum()
        later = out * 3
        return T.autograd.grad(out, [a, later], allow_unused=True)
    same(program)


def test_grad_outputs_for_a_vector_output():
    def program(T):
        a = leaf(T)
        b = a * a
        return T.autograd.grad(b * 2, [a, b], grad_outputs=T.tensor([1.0, 0.5, -1.0]))
    same(program)


def test_several_outputs_with_grad_outputs():
    def program(T):
        a = leaf(T)
        b = a.exp()
        return T.autograd.grad([b.sum(), (a * b)], [a, b],
                               grad_outputs=[None, T.tensor([2.0, 1.0, 0.0])])
    same(program)


def test_retain_graph_allows_a_second_call():
    def program(T):
        a = leaf(T)
        b = a.exp()
        out = (b * a).sum()
        first = T.autograd.grad(out, [a, b], retain_graph=True)
        second = T.autograd.grad(out, [a])
        return first + second
    same(program)


def test_second_call_without_retain_graph_raises():
    for T in (lt, torch):
        a = leaf(T)
        out = (a.exp() * a).sum()
        T.autograd.grad(out, [a])
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            T.autograd.grad(out, [a])


def test_create_graph_second_derivative():
    def program(T):
        a = leaf(T)
        y = (a ** 3).sum()
        (g,) = T.autograd.grad(y, [a], create_graph=True)
        (h,) = T.autograd.grad(g.sum(), [a])
        return g, h
    same(program)


def test_create_graph_through_transcendentals_and_a_non_leaf_input():
    def program(T):
        a = leaf(T, (0.3, -0.7, 1.1))
        b = a.sin() * a.exp()
        y = (b.tanh() * a).sum()
        ga, gb = T.autograd.grad(y, [a, b], create_graph=True)
        (h,) = T.autograd.grad((ga * ga).sum() + gb.sum(), [a])
        return ga, gb, h
    same(program, rtol=1e-4)


def test_gradient_penalty_backward():
    def program(T):
        w = leaf(T, (0.5, -1.5, 2.0))
        x = T.tensor([[1.0, 2.0, 3.0], [0.5, -0.5, 1.0]], requires_grad=True)
        out = (x * w).tanh().sum()
        (gx,) = T.autograd.grad(out, [x], create_graph=True)
        penalty = ((gx.norm(dim=1) - 1) ** 2).mean()
        penalty.backward()
        return w.grad, x.grad
    same(program, rtol=1e-4)


def test_backward_create_graph_makes_grad_differentiable():
    def program(T):
        a = leaf(T)
        (a ** 3).sum().backward(create_graph=True)
        g = a.grad
        (h,) = T.autograd.grad(g.sum(), [a])
        return g, h
    same(program)


def test_hessian_vector_product():
    def program(T):
        a = leaf(T, (0.2, 0.4, -0.6))
        v = T.tensor([1.0, -1.0, 0.5])
        y = (a.exp() * a.sin()).sum()
        (g,) = T.autograd.grad(y, [a], create_graph=True)
        (hv,) = T.autograd.grad(g, [a], grad_outputs=v)
        return g, hv
    same(program, rtol=1e-4)


def test_gradient_without_create_graph_does_not_require_grad():
    for T in (lt, torch):
        a = leaf(T)
        (g,) = T.autograd.grad((a ** 3).sum(), [a])
        assert not g.requires_grad


def test_gradient_with_create_graph_requires_grad():
    for T in (lt, torch):
        a = leaf(T)
        (g,) = T.autograd.grad((a ** 3).sum(), [a], create_graph=True)
        assert g.requires_grad


def test_backward_inputs_fills_only_those():
    def program(T):
        a, b = leaf(T), leaf(T, (4.0, 5.0, 6.0))
        c = a * b
        (c.exp().sum()).backward(inputs=[a])
        return a.grad, b.grad
    same(program)


def test_backward_inputs_non_leaf():
    def program(T):
        a = leaf(T)
        b = a * 2
        (b * a).sum().backward(inputs=[b, a])
        return a.grad, b.grad
    same(program)


def test_retain_grad_chain():
    def program(T):
        a = leaf(T)
        b = a * 2
        c = b.exp()
        b.retain_grad()
        c.retain_grad()
        (c * b).sum().backward()
        return a.grad, b.grad, c.grad
    same(program)
