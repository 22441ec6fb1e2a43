"""The C number slots (+ - * /) and fast unary functions behave like the bound methods."""
import operator

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, pair

X = np.array([[1.5, -2.0, 0.25], [3.0, -0.5, 4.0]], dtype=np.float32)
OPS = [operator.add, operator.sub, operator.mul, operator.truediv]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("scalar", [2, 2.5, True, np.float64(1.5), np.int64(3)])
def test_number_on_either_side(op, scalar):
    a, b = pair(X)
    if op is operator.sub and isinstance(scalar, bool):
        with pytest.raises(RuntimeError):
            op(a, scalar)
        with pytest.raises(RuntimeError):
            op(scalar, a)
        return
    assert_same(op(a, scalar), op(b, scalar), rtol=1e-6)
    assert_same(op(scalar, a), op(scalar, b), rtol=1e-6)


@pytest.mark.parametrize("op", OPS)
def test_tensor_with_a_parameter_subclass_on_either_side(op):
    a, b = pair(X)
    p = lt.nn.Parameter(lt.tensor(X[::-1].copy()))
    q = torch.nn.Parameter(torch.tensor(X[::-1].copy()))
    assert_same(op(a, p), op(b, q), rtol=1e-6)
    assert_same(op(p, a), op(q, b), rtol=1e-6)


@pytest.mark.parametrize("op", OPS)
def test_unsupported_operands_raise_type_error(op):
    a = lt.tensor(X)
    with pytest.raises(TypeError):
        op(a, "x")
    with pytest.raises(TypeError):
        op("x", a)
    with pytest.raises(TypeError):
        op(a, object())


def test_record_time_errors_keep_their_python_types():
    with pytest.raises(RuntimeError, match="add"):
        lt.zeros(2, 3) + lt.zeros(4)
    with pytest.raises(RuntimeError):
        lt.zeros(2, 3) * lt.zeros(3, 2)


def test_explicit_dunder_calls_and_notimplemented_still_work():
    a, b = pair(X)
    assert_same(a.__add__(1.0), b.__add__(1.0))
    assert_same(a.__rsub__(1.0), b.__rsub__(1.0))
    assert a.__add__("x") is NotImplemented


@pytest.mark.parametrize("name", ["relu", "exp", "sigmoid", "tanh"])
def test_fast_unary_functions_match_torch_and_fall_back(name):
    a, b = pair(X)
    assert_same(getattr(lt, name)(a), getattr(torch, name)(b), rtol=1e-5)
    assert_same(getattr(a, name)(), getattr(b, name)(), rtol=1e-5)
    with pytest.raises(TypeError):
        getattr(lt, name)("x")
    with pytest.raises(TypeError):
        getattr(lt, name)(a, a)
