"""Bitwise and shift ops (ir/ops.def, ir/api.def) against PyTorch: functions, methods, operators, in-place forms."""
import operator

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, pair, same_outcome

rng = np.random.default_rng(22)
I64 = rng.integers(-1000, 1000, (3, 4)).astype(np.int64)
I32 = rng.integers(-1000, 1000, (3, 4)).astype(np.int32)
B = rng.integers(0, 2, (3, 4)).astype(bool)
ROW64 = rng.integers(-50, 50, (4,)).astype(np.int64)
SHIFT = rng.integers(0, 31, (3, 4)).astype(np.int64)  # in range: torch 1.13 leaves the rest to the hardware
ARRAYS = {"i64": I64, "i32": I32, "bool": B}
BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor"]
OPERATORS = {"bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor}
INPLACE = {"bitwise_and": operator.iand, "bitwise_or": operator.ior, "bitwise_xor": operator.ixor}


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dt", ["i64", "i32", "bool"])
def test_binary_function_method_and_operator(op, dt):
    (a, ta), (b, tb) = pair(ARRAYS[dt]), pair(np.flip(ARRAYS[dt], 0).copy())
    assert_same(getattr(lt, op)(a, b), getattr(torch, op)(ta, tb))
    assert_same(getattr(a, op)(b), getattr(ta, op)(tb))
    assert_same(OPERATORS[op](a, b), OPERATORS[op](ta, tb))


@pytest.mark.parametrize("op", BINARY)
def test_binary_promotes_and_broadcasts(op):
    (a, ta), (r, tr), (b, tb) = pair(I32), pair(ROW64), pair(B)
    assert_same(OPERATORS[op](a, r), OPERATORS[op](ta, tr))  # i32 [3, 4] with i64 [4] -> i64
    assert_same(OPERATORS[op](b, a), OPERATORS[op](tb, ta))  # bool with i32 -> i32
    assert_same(OPERATORS[op](a[:, :1], r), OPERATORS[op](ta[:, :1], tr))


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("scalar", [5, -3, True])
@pytest.mark.parametrize("dt", ["i64", "i32", "bool"])
def test_binary_with_python_scalars_on_both_sides(op, scalar, dt):
    a, ta = pair(ARRAYS[dt])
    f = OPERATORS[op]
    assert_same(f(a, scalar), f(ta, scalar))
    assert_same(f(scalar, a), f(scalar, ta))
    assert_same(getattr(a, op)(scalar), getattr(ta, op)(scalar))


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dt", ["i64", "i32", "bool"])
def test_binary_in_place(op, dt):
    (a, ta), (b, tb) = pair(ARRAYS[dt]), pair(np.flip(ARRAYS[dt], 1).copy())
    a2 = INPLACE[op](a, b)
    ta2 = INPLACE[op](ta, tb)
    assert a2 is a
    assert_same(a, ta)
    (c, tc), (d, td) = pair(ARRAYS[dt]), pair(ARRAYS[dt][::-1].copy())
    assert getattr(c, op + "_")(d) is c
    getattr(tc, op + "_")(td)
    assert_same(c, tc)
    assert ta2 is ta


def test_in_place_keeps_the_dtype_or_raises_like_torch():
    (a, ta), (r, tr), (b, tb) = pair(I32), pair(ROW64), pair(B)
    a &= r  # i64 result written back into i32
    ta &= tr
    assert_same(a, ta)

    def into_bool(m, x, y):
        x |= y
        return x
    same_outcome(lambda: into_bool(lt, b, a), lambda: into_bool(torch, tb, ta))


@pytest.mark.parametrize("dt", ["i64", "i32", "bool"])
def test_bitwise_not(dt):
    a, ta = pair(ARRAYS[dt])
    assert_same(~a, ~ta)
    assert_same(lt.bitwise_not(a), torch.bitwise_not(ta))
    assert_same(a.bitwise_not(), ta.bitwise_not())
    a.bitwise_not_()
    ta.bitwise_not_()
    assert_same(a, ta)


@pytest.mark.parametrize("dt", ["i64", "i32"])
def test_shifts(dt):
    (a, ta), (s, ts) = pair(ARRAYS[dt]), pair(SHIFT.astype(ARRAYS[dt].dtype))
    assert_same(a << s, ta << ts)
    assert_same(a >> s, ta >> ts)  # arithmetic: negative values stay negative
    assert_same(lt.bitwise_left_shift(a, s), torch.bitwise_left_shift(ta, ts))
    assert_same(lt.bitwise_right_shift(a, s), torch.bitwise_right_shift(ta, ts))
    assert_same(a.bitwise_left_shift(3), ta.bitwise_left_shift(3))
    assert_same(a << 3, ta << 3)
    assert_same(a >> 2, ta >> 2)
    assert_same(1 << s, 1 << ts)
    assert_same(-1024 >> s, -1024 >> ts)
    row, trow = pair(np.arange(4, dtype=ARRAYS[dt].dtype))
    assert_same(a << row, ta << trow)  # broadcast


def test_shift_in_place():
    (a, ta), (s, ts) = pair(I64), pair(SHIFT)
    a <<= s
    ta <<= ts
    assert_same(a, ta)
    a >>= 2
    ta >>= 2
    assert_same(a, ta)
    (c, tc) = pair(I32)
    c.bitwise_right_shift_(1)
    tc.bitwise_right_shift_(1)
    assert_same(c, tc)


def test_ops_fuse_with_arithmetic_and_reductions():
    (a, ta), (r, tr) = pair(I64), pair(ROW64)
    got = (((a ^ r) & 0xFF) << 2).sum(1) + (~a >> 3)[:, 0]
    want = (((ta ^ tr) & 0xFF) << 2).sum(1) + (~ta >> 3)[:, 0]
    assert_same(got, want)
    assert_same((a > 0) & (r < 10) | (a == r), (ta > 0) & (tr < 10) | (ta == tr))


BAD = [
    ("float & int", lambda m: m.ones(2) & m.tensor([1, 2])),
    ("int & python float", lambda m: m.tensor([1, 2]) & 1.5),
    ("float | float", lambda m: m.ones(2) | m.ones(2)),
    ("float ^ float", lambda m: m.ones(2) ^ m.ones(2)),
    ("~float", lambda m: ~m.ones(2)),
    ("bitwise_not of float", lambda m: m.bitwise_not(m.ones(2))),
    ("float << int", lambda m: m.ones(2) << 1),
    ("int << python float", lambda m: m.tensor([1]) << 1.5),
    ("bool << bool", lambda m: m.tensor([True]) << m.tensor([True])),
    ("bool >> bool", lambda m: m.tensor([True]) >> m.tensor([False])),
    ("bitwise_and of a string", lambda m: m.tensor([1]).bitwise_and("x")),
]


@pytest.mark.parametrize("name,f", BAD, ids=[b[0] for b in BAD])
def test_bad_dtypes_raise_like_torch(name, f):
    same_outcome(lambda: f(lt), lambda: f(torch))
