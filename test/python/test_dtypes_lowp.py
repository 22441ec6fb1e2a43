"""float16, bfloat16, int8, uint8 and int16 against PyTorch 1.13 (the real torch): casts at the edges,
the promotion table among all ten dtypes, elementwise ops, reductions, matmul, views and indexing,
numpy interop, finfo/iinfo, printing and checkpoints.

Where torch 1.13 has no CPU kernel for a dtype (several float16 ops), the reference is torch computing
in float32 and rounding to the dtype once, which is what lazytensor's evaluator defines (each primitive
computes wide and rounds its result): those comparisons say so in their name (`_vs_float32_rounded`).
"""
import io
import math
import operator

import numpy as np
import pytest
import torch

import lazytensor as lt

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NARROW = ["float16", "bfloat16", "int8", "uint8", "int16"]
FLOATS = ["float16", "bfloat16"]
INTS = ["int8", "uint8", "int16"]
ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def L(name):
    return getattr(lt, name)


def T(name):
    return getattr(torch, name)


def vals(t):
    """Values as float64 (floats) or int64 (integers) numpy arrays, for lazytensor and torch alike."""
    t = t.detach()
    if t.dtype.is_floating_point:
        return t.double().numpy()
    if t.dtype == (lt.bool if isinstance(t, lt.Tensor) else torch.bool):
        return t.numpy()
    return t.long().numpy()


def same_dtype(a, b):
    assert repr(a.dtype) == repr(b.dtype), (a.dtype, b.dtype)


def check(a, b, ulps=1.0, atol=0.0):
    """a (lazytensor) equals b (torch): same dtype and shape, integers exact, floats within `ulps` of the dtype."""
    same_dtype(a, b)
    assert tuple(a.shape) == tuple(b.shape)
    x, y = vals(a), vals(b)
    name = repr(b.dtype).replace("torch.", "")
    if name in ULP:
        np.testing.assert_allclose(x, y, rtol=ulps * ULP[name], atol=atol, equal_nan=True)
    elif b.dtype.is_floating_point:
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(x, y)


def pair(arr, name):
    """The same data in both libraries, converted to dtype `name` by each library's own cast."""
    arr = np.asarray(arr)
    return lt.from_numpy(arr.copy()).to(L(name)), torch.from_numpy(arr.copy()).to(T(name))


rng = np.random.default_rng(24)
X = rng.uniform(-4, 4, (6, 10)).astype(np.float32)
P = rng.uniform(0.1, 6, (6, 10)).astype(np.float32)
I = rng.integers(-128, 128, (6, 10)).astype(np.int64)


def sample(name):
    if name == "bool":
        return (I % 2 == 0)
    if name in ("uint8",):
        return np.abs(I) * 2
    return X * 3 if lt_is_float(name) else I


def lt_is_float(name):
    return name.startswith("float") or name == "bfloat16"


# ---------------------------------------------------------------- dtype objects and promotion

def test_dtype_objects_and_aliases():
    for name in NARROW:
        assert repr(L(name)) == repr(T(name))
        assert L(name).is_floating_point == T(name).is_floating_point
        assert L(name).is_signed == T(name).is_signed
    assert lt.half is lt.float16 and lt.short is lt.int16
    assert repr(lt.half) == "torch.float16" and repr(lt.short) == "torch.int16"


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_promote_types_full_table(a, b):
    assert repr(lt.promote_types(L(a), L(b))) == repr(torch.promote_types(T(a), T(b)))


def test_can_cast_full_table():
    for a in NAMES:
        for b in NAMES:
            assert lt.can_cast(L(a), L(b)) == torch.can_cast(T(a), T(b)), (a, b)
    assert lt.can_cast(**{"from": lt.int32, "to": lt.float16}) is True


@pytest.mark.parametrize("args", [(1, "float32"), ("float32", "x"), ("float32",), ("float32", "int8", "int8")])
def test_can_cast_bad_arguments_raise_what_torch_raises(args):
    conv = [L(a) if a in NAMES else a for a in args]
    tconv = [T(a) if a in NAMES else a for a in args]
    with pytest.raises(TypeError) as theirs:
        torch.can_cast(*tconv)
    with pytest.raises(TypeError) as ours:
        lt.can_cast(*conv)
    if len(args) == 2:
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_tensor_tensor_result_dtype_and_add(a, b):
    (la, ta), (lb, tb) = pair(sample(a)[:2, :3], a), pair(sample(b)[:2, :3] if b != a else sample(b)[1:3, :3], b)
    assert repr(lt.result_type(la, lb)) == repr(torch.result_type(ta, tb))
    if a == "bool" and b == "bool":
        return
    check(la + lb, ta + tb, ulps=1.0, atol=1e-6)
    assert repr((la < lb).dtype) == "torch.bool"


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("s", [True, 3, -2, 2.5, 300, 1e5])
def test_tensor_scalar_result_dtype(a, s):
    la, ta = pair(sample(a)[:2, :3], a)
    assert repr(lt.result_type(la, s)) == repr(torch.result_type(ta, s))
    if a == "bool" and isinstance(s, bool):
        return
    check(la * s, ta * s, atol=1e-6)


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_zero_dim_tensor_operand_promotion(a, b):
    (la, ta) = pair(sample(a)[:2, :3], a)
    (lb, tb) = pair(np.asarray(sample(b)[0, 0]), b)
    assert repr(lt.result_type(la, lb)) == repr(torch.result_type(ta, tb))


# ---------------------------------------------------------------- casts at the edges

EDGE = np.array([65504.0, 65519.0, 65520.0, 1e6, -1e6, 2.0 ** -24, 0.75 * 2.0 ** -24, 2.0 ** -25,
                 1.5 * 2.0 ** -24, 2.5 * 2.0 ** -24, 1e-9, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8,
                 1 + 3 * 2.0 ** -8, 3.4028234663852886e38, 2.0 ** -133, -0.0, np.inf, -np.inf, np.nan, 0.1,
                 -2.0 ** -14, 6.0e-5], dtype=np.float32)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("source", ["float32", "float64"])
def test_float_to_narrow_float_rounds_like_torch(name, source):
    la, ta = pair(EDGE.astype(source), name)
    la_bits = la.view(lt.int16)
    ta_bits = ta.view(torch.int16)
    got, want = la_bits.numpy(), ta_bits.numpy()
    nan = np.isnan(EDGE)
    np.testing.assert_array_equal(got[~nan], want[~nan])  # bit for bit: ties to even, subnormals, inf, -0
    assert np.isnan(vals(la)[nan]).all()


@pytest.mark.parametrize("name", FLOATS)
def test_narrow_float_widens_exactly(name):
    bits = np.arange(-32768, 32768, 7, dtype=np.int16)
    ta = torch.from_numpy(bits.copy()).view(T(name))
    la = lt.from_numpy(bits.copy()).view(L(name))
    np.testing.assert_array_equal(np.isnan(vals(la)), np.isnan(vals(ta.float())))
    np.testing.assert_array_equal(np.nan_to_num(vals(la)), np.nan_to_num(vals(ta.float())))


@pytest.mark.parametrize("name", INTS)
def test_float_to_narrow_int_casts_like_torch_on_x86(name):
    # Out-of-range values go through int32 as torch's C cast does on x86 (NaN, inf, |x| >= 2**31 give 0).
    x = np.array([300.0, -1.0, -129.0, 255.9, 65543.0, -0.7, 127.5, 1e10, -1e10, np.nan, np.inf] * 3,
                 dtype=np.float32)
    la, ta = pair(x, name)
    check(la, ta)


@pytest.mark.parametrize("src", NAMES)
@pytest.mark.parametrize("dst", NAMES)
def test_every_cast_pair(src, dst):
    la, ta = pair(sample(src)[:3], src)
    check(la.to(L(dst)), ta.to(T(dst)))


def test_integer_wraparound():
    lu, tu = pair(np.array([200, 255, 0, 17]), "uint8")
    check(lu + lu, tu + tu)
    check(lu * 3, tu * 3)
    check(lu - 20, tu - 20)
    check(lu + 300, tu + 300)  # the scalar wraps to uint8 as torch's
    check(-lu, -tu)
    li, ti = pair(np.array([127, -128, 100, -7]), "int8")
    check(li + 1, ti + 1)
    check(li * li, ti * ti)
    check(li.abs(), ti.abs())
    check(-li, -ti)
    ls, ts = pair(np.array([32767, -32768, 300, -3]), "int16")
    check(ls + 1, ts + 1)
    check(ls * ls, ts * ts)


def test_uint8_image_to_float():
    img = rng.integers(0, 256, (3, 8, 8)).astype(np.uint8)
    li, ti = lt.from_numpy(img.copy()), torch.from_numpy(img.copy())
    assert repr(li.dtype) == "torch.uint8"
    check(li.float() / 255, ti.float() / 255)
    check((li.float() / 255 - 0.5) / 0.25, (ti.float() / 255 - 0.5) / 0.25)
    check(li / 255, ti / 255)  # true division of an integer gives float32
    check(li.sum(), ti.sum())  # integer sums are int64
    check(li.max(), ti.max())


# ---------------------------------------------------------------- elementwise

UNARY = ["neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "sin", "cos", "relu", "floor", "ceil", "round",
         "sign", "reciprocal", "rsqrt", "erf", "expm1", "log1p"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"]


def _input_for(op):
    return P if op in ("log", "sqrt", "rsqrt", "log1p", "reciprocal", "pow") else X


def _torch_or_rounded(f, t_in, name):
    """torch on the dtype where 1.13 has a CPU kernel; else torch in float32, rounded once."""
    try:
        return f(*t_in), True
    except RuntimeError:
        return f(*[x.float() for x in t_in]).to(T(name)), False


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("op", UNARY)
def test_unary_narrow_float(name, op):
    la, ta = pair(_input_for(op), name)
    want, native = _torch_or_rounded(lambda x: getattr(torch, op)(x), [ta], name)
    # One ulp: the narrow value nearest the float32 result may be a neighbour of the double's.
    check(getattr(lt, op)(la), want, ulps=1.01, atol=1e-7)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("op", BINARY)
def test_binary_narrow_float(name, op):
    (la, ta), (lb, tb) = pair(_input_for(op), name), pair(X[::-1].copy() if op != "pow" else X / 2, name)
    want, _ = _torch_or_rounded(lambda x, y: getattr(torch, op)(x, y), [ta, tb], name)
    check(getattr(lt, op)(la, lb), want, ulps=1.01, atol=1e-7)


@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_give_bool(name, op):
    src = sample(name)
    (la, ta), (lb, tb) = pair(src, name), pair(src[::-1].copy(), name)
    got, want = getattr(operator, op)(la, lb), getattr(operator, op)(ta, tb)
    check(got, want)


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "maximum", "minimum", "bitwise_and", "bitwise_or",
                                "bitwise_xor", "floor_divide", "remainder"])
def test_binary_narrow_int(name, op):
    src = sample(name)
    other = np.where(src[::-1] == 0, 3, src[::-1])
    (la, ta), (lb, tb) = pair(src, name), pair(other, name)
    check(getattr(lt, op)(la, lb), getattr(torch, op)(ta, tb))


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["neg", "abs", "sign", "bitwise_not"])
def test_unary_narrow_int(name, op):
    la, ta = pair(sample(name), name)
    check(getattr(lt, op)(la), getattr(torch, op)(ta))


@pytest.mark.parametrize("name", NARROW)
def test_where_clamp_and_fused_chain(name):
    la, ta = pair(sample(name), name)
    lb, tb = pair(sample(name)[::-1].copy(), name)
    check(lt.where(la > lb, la, lb), torch.where(ta > tb, ta, tb))
    want, _ = _torch_or_rounded(lambda x: x.clamp(-5, 50), [ta], name)
    check(la.clamp(-5, 50), want)
    if name in FLOATS:
        want, _ = _torch_or_rounded(lambda x, y: torch.tanh(x * y + x) - y, [ta, tb], name)
        # Each primitive rounds: torch eager rounds each op too, so a chain stays within an ulp or two.
        check(lt.tanh(la * lb + la) - lb, want, ulps=3, atol=2 * ULP[name])


# ---------------------------------------------------------------- reductions and matmul

@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("op", ["sum", "amax", "amin", "argmax", "argmin", "mean", "cumsum", "prod"])
def test_reductions(name, op):
    if op == "mean" and name in INTS:
        return
    src = sample(name) / (8.0 if op == "prod" and name in FLOATS else 1.0)
    if op == "prod" and name in INTS:
        src = np.clip(src, -3, 3)
    la, ta = pair(src, name)
    args = {"cumsum": (1,), "argmax": (), "argmin": ()}.get(op, (1,))
    want, native = _torch_or_rounded(lambda x: getattr(torch, op)(x, *args), [ta], name)
    got = getattr(lt, op)(la, *args)
    # Sums accumulate in float32 (torch) or double (the reference), rounding once: an ulp apart at most.
    check(got, want, ulps=2.01, atol=1e-3 if name == "float16" else 2e-2)


@pytest.mark.parametrize("name", FLOATS)
def test_mean_of_many_large_values_does_not_overflow(name):
    # lazytensor divides the float32 sum before rounding. torch 1.13's CPU mean rounds the float16 sum
    # first (300000 -> inf) and returns inf: there lazytensor departs from torch, on purpose.
    la, ta = lt.full((30000,), 10.0, dtype=L(name)), torch.full((30000,), 10.0, dtype=T(name))
    check(la.mean(), ta.float().mean().to(T(name)))
    check(la.sum(), ta.sum(), ulps=1.0)  # the sum itself is inf in float16, as torch


@pytest.mark.parametrize("name", FLOATS)
def test_softmax_and_layer_norm_compute_in_float32(name):
    la, ta = pair(X, name)
    want, _ = _torch_or_rounded(lambda x: torch.softmax(x, 1), [ta], name)
    check(lt.softmax(la, 1), want, ulps=1.01, atol=1e-4)
    want, _ = _torch_or_rounded(lambda x: torch.nn.functional.layer_norm(x, (10,)), [ta], name)
    check(lt.nn.functional.layer_norm(la, (10,)), want, ulps=2.01, atol=2 * ULP[name])


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_matmul(name):
    a = X[:, :7] if name in FLOATS else np.clip(I[:, :7], -20, 20)
    b = P.T[:7, :5] if name in FLOATS else np.clip(I.T[:7, :5], -20, 20)
    (la, ta), (lb, tb) = pair(a, name), pair(b, name)
    if name in FLOATS:
        # float32 accumulation, one rounding (torch's float16 CPU matmul does not exist in 1.13, and its
        # bfloat16 one on a CPU without avx512_bf16 rounds partial sums: up to 0.375 off here).
        want = (ta.float() @ tb.float()).to(T(name))
    else:
        want = ta @ tb
    check(la @ lb, want, ulps=1.01, atol=1e-3)


# bfloat16 products against torch's bfloat16 matmul, which on an AVX-512 BF16 CPU (oneDNN) accumulates in
# float32 and rounds once, as lazytensor does (docs/matmul.md "bfloat16"): the two float32 sums differ in
# order only, so the results are within one bfloat16 ulp, plus the float32 sums' difference where they cancel.
BF16_SHAPES = [((1, 1), (1, 1)), ((7, 1), (1, 5)), ((13, 17), (17, 33)), ((33, 71), (71, 17)),
               ((100, 513), (513, 97)), ((3, 20, 31), (3, 31, 18)), ((3, 20, 31), (31, 18))]


def _bf16_product_tolerance(k, bound=2.0):
    return 4 * math.sqrt(k) * 2.0 ** -24 * bound * bound * k


def _bf16_pair(shape, seed):
    return pair(np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32), "bfloat16")


@pytest.mark.parametrize("sa,sb", BF16_SHAPES)
def test_bfloat16_matmul_accumulates_in_float32_like_torch(sa, sb):
    (la, ta), (lb, tb) = _bf16_pair(sa, 1), _bf16_pair(sb, 2)
    check(la @ lb, torch.matmul(ta, tb), ulps=1.01, atol=_bf16_product_tolerance(sa[-1]))


def test_bfloat16_matmul_of_transposed_operands_like_torch():
    (la, ta), (lb, tb) = _bf16_pair((71, 33), 3), _bf16_pair((18, 71), 4)
    check(la.t() @ lb.t(), torch.matmul(ta.t(), tb.t()), ulps=1.01, atol=_bf16_product_tolerance(71))


def test_bfloat16_linear_with_bias_and_relu_like_torch():
    (lx, tx), (lw, tw), (lb, tb) = _bf16_pair((3, 11, 91), 5), _bf16_pair((45, 91), 6), _bf16_pair((45,), 7)
    got = lt.relu(lt.nn.functional.linear(lx, lw, lb))
    # torch's linear of bfloat16 adds the bias inside the product (one rounding): ours rounds the product and the
    # sum, so one more bfloat16 ulp of the product's magnitude.
    want = torch.relu(torch.nn.functional.linear(tx, tw, tb))
    check(got, want, ulps=1.01, atol=2 * ULP["bfloat16"] * float(torch.matmul(tx, tw.t()).abs().max()))


_MODES_SCRIPT = """
import sys, numpy as np, lazytensor as lt
rng = np.random.default_rng(8)
a, b = rng.uniform(-2, 2, (45, 257)).astype(np.float32), rng.uniform(-2, 2, (257, 70)).astype(np.float32)
c = lt.from_numpy(a).bfloat16() @ lt.from_numpy(b).bfloat16()
np.save(sys.argv[1], c.float().numpy())
"""


@pytest.mark.parametrize("mode", ["amx", "dp", "0"])
def test_bfloat16_matmul_paths_agree_with_torch(mode, tmp_path):
    """Each bfloat16 path (LT_MM_BF16: AMX tiles, vdpbf16ps, widened operands; a host without one falls back)."""
    import os
    import subprocess
    import sys
    out = tmp_path / "c.npy"
    env = dict(os.environ, LT_MM_BF16=mode)
    subprocess.run([sys.executable, "-c", _MODES_SCRIPT, str(out)], env=env, check=True)
    rng = np.random.default_rng(8)
    a, b = rng.uniform(-2, 2, (45, 257)).astype(np.float32), rng.uniform(-2, 2, (257, 70)).astype(np.float32)
    want = torch.matmul(torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16()).double().numpy()
    np.testing.assert_allclose(np.load(out), want, rtol=1.01 * ULP["bfloat16"], atol=_bf16_product_tolerance(257))


def test_int8_matmul_wraps():
    a = np.full((2, 40), 100)
    b = np.full((40, 3), 100)
    (la, ta), (lb, tb) = pair(a, "int8"), pair(b, "int8")
    check(la @ lb, ta @ tb)


# ---------------------------------------------------------------- views, indexing, movement

@pytest.mark.parametrize("name", NARROW)
def test_views_and_indexing(name):
    la, ta = pair(sample(name), name)
    check(la[1:, ::2], ta[1:, ::2])
    check(la.t(), ta.t())
    check(la.reshape(10, 6), ta.reshape(10, 6))
    check(la.flip(0), ta.flip(0))
    check(lt.cat([la, la], 1), torch.cat([ta, ta], 1))
    check(lt.stack([la, la]), torch.stack([ta, ta]))
    idx = np.array([4, 0, 2])
    check(la.index_select(0, lt.from_numpy(idx)), ta.index_select(0, torch.from_numpy(idx)))
    check(la[lt.from_numpy(idx)], ta[torch.from_numpy(idx)])
    g = rng.integers(0, 10, (6, 3))
    check(la.gather(1, lt.from_numpy(g)), ta.gather(1, torch.from_numpy(g)))
    mask = sample("bool")
    check(la.masked_fill(lt.from_numpy(mask), 1), ta.masked_fill(torch.from_numpy(mask), 1))
    lc, tc = la.clone(), ta.clone()
    lc[0] = 5
    tc[0] = 5
    check(lc, tc)


# ---------------------------------------------------------------- conversions, numpy, info, printing

def test_conversion_methods():
    la, ta = pair(X, "float32")
    for m in ["half", "bfloat16", "byte", "char", "short"]:
        check(getattr(la, m)(), getattr(ta, m)())
    for name in NARROW:
        check(la.to(L(name)), ta.to(T(name)))
        check(la.type(L(name)), ta.type(T(name)))
        assert la.to(L(name)).type() == ta.to(T(name)).type()
        assert la.to(L(name)).element_size() == ta.to(T(name)).element_size()


@pytest.mark.parametrize("np_dtype", [np.float16, np.uint8, np.int8, np.int16])
def test_numpy_round_trip(np_dtype):
    arr = (X * 10).astype(np_dtype)
    la, ta = lt.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    same_dtype(la, ta)
    assert la.numpy().dtype == ta.numpy().dtype == np_dtype
    np.testing.assert_array_equal(la.numpy(), arr)
    assert repr(lt.tensor(arr).dtype) == repr(torch.tensor(arr).dtype)


def test_bfloat16_has_no_numpy_type():
    la, ta = pair(X, "bfloat16")
    with pytest.raises(TypeError) as want:
        ta.numpy()
    with pytest.raises(TypeError) as got:
        la.numpy()
    assert str(got.value) == str(want.value) == "Got unsupported ScalarType BFloat16"


@pytest.mark.parametrize("name", NARROW)
def test_tensor_constructor_with_dtype(name):
    data = [[1.5, -2.25, 300.0], [0.1, 70000.0, -129.0]] if name in FLOATS else [[1, -2, 3], [-1, 127, 2]]
    check(lt.tensor(data, dtype=L(name)), torch.tensor(data, dtype=T(name)))
    check(lt.tensor([2.5, -0.0], dtype=L(name)), torch.tensor([2.5, -0.0], dtype=T(name)))
    wide = [[1, -2, 300], [255, 127, -129]]  # arrays wrap; Python numbers out of range raise (torch's check)
    check(lt.tensor(np.array(wide), dtype=L(name)), torch.tensor(np.array(wide), dtype=T(name)))
    for bad in ([300], [-129], [1000.0], [70000], [-1.0], [-1], [-256]):
        try:
            want = torch.tensor(bad, dtype=T(name))
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match="without overflow"):
                lt.tensor(bad, dtype=L(name))
            assert "without overflow" in str(e)
        else:
            check(lt.tensor(bad, dtype=L(name)), want)
    check(lt.zeros(2, 3, dtype=L(name)), torch.zeros(2, 3, dtype=T(name)))
    check(lt.ones(2, 3, dtype=L(name)), torch.ones(2, 3, dtype=T(name)))
    check(lt.arange(5, dtype=L(name)), torch.arange(5, dtype=T(name)))
    check(lt.full((2,), 7, dtype=L(name)), torch.full((2,), 7, dtype=T(name)))


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    a, b = lt.finfo(L(name)), torch.finfo(T(name))
    for f in ["bits", "eps", "max", "min", "tiny", "resolution", "smallest_normal"]:
        assert getattr(a, f) == pytest.approx(getattr(b, f), rel=1e-6), f


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    a, b = lt.iinfo(L(name)), torch.iinfo(T(name))
    assert (a.bits, a.min, a.max) == (b.bits, b.min, b.max)


@pytest.mark.parametrize("name", NARROW)
def test_printing(name):
    src = np.array([[1.5, -2.25, 3.0], [0.125, 100.0, -7.0]]) if name in FLOATS else np.array([[1, 2, 3], [4, 100, 7]])
    la, ta = pair(src, name)
    assert repr(la) == repr(ta)
    assert repr(la[0, 0]) == repr(ta[0, 0])


# ---------------------------------------------------------------- checkpoints

@pytest.mark.parametrize("name", NARROW)
def test_checkpoint_written_here_loads_in_torch(name):
    la, ta = pair(sample(name), name)
    buf = io.BytesIO()
    lt.save({"w": la, "v": la[1:]}, buf)
    buf.seek(0)
    out = torch.load(buf)
    assert out["w"].dtype == ta.dtype
    assert torch.equal(out["w"], ta) and torch.equal(out["v"], ta[1:])


@pytest.mark.parametrize("name", NARROW)
def test_checkpoint_written_by_torch_loads_here(name):
    la, ta = pair(sample(name), name)
    buf = io.BytesIO()
    torch.save({"w": ta, "p": torch.nn.Parameter(ta.float().to(T(name)), requires_grad=False)}, buf)
    buf.seek(0)
    out = lt.load(buf)
    check(out["w"], ta)
    check(out["p"], ta)


# ---------------------------------------------------------------- autograd

@pytest.mark.parametrize("name", FLOATS)
def test_gradients_stay_in_the_narrow_dtype(name):
    la, ta = pair(X, name)
    la.requires_grad_(True)
    ta.requires_grad_(True)
    (la * la + la * 0.5).sum().backward()
    (ta * ta + ta * 0.5).sum().backward()
    check(la.grad, ta.grad, ulps=1.01)
