"""Creation functions, dtypes and host conversion against PyTorch."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import arr, assert_same, dtype_name, grads_match, pair, raises_like, views


@pytest.mark.parametrize("data", [
    [1, 2, 3], [1.0, 2.5], [True, False], [[1, 2], [3, 4]], [[1.5], [2.0]], 3, 2.5, True, [],
    [1, 2.0], [True, 2], np.array([1.0, 2.0]), np.array([1, 2], dtype=np.int32), np.float32(3.5),
    np.array([[True, False]]),
])
def test_tensor_infers_dtype_and_shape(data):
    assert_same(lt.tensor(data), torch.tensor(data))


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64", "bool"])
def test_tensor_with_dtype(dt):
    assert_same(lt.tensor([0, 1, 2], dtype=getattr(lt, dt)), torch.tensor([0, 1, 2], dtype=getattr(torch, dt)))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_from_numpy_roundtrip(dt):
    arr = (np.arange(12).reshape(3, 4) % 3).astype(dt)
    a, b = lt.from_numpy(arr), torch.from_numpy(arr)
    assert_same(a, b)
    assert a.numpy().dtype == arr.dtype
    np.testing.assert_array_equal(np.asarray(a), arr)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("args", [(3,), (2, 3), ((2, 3),), ([4],), ((),)])
def test_fill_creation(fn, args):
    a, b = getattr(lt, fn)(*args), getattr(torch, fn)(*args)
    assert tuple(a.shape) == tuple(b.shape) and dtype_name(a.dtype) == dtype_name(b.dtype)
    if fn != "empty":
        assert_same(a, b)


@pytest.mark.parametrize("dt", ["float64", "int64", "int32", "bool"])
def test_zeros_dtype(dt):
    assert_same(lt.zeros(2, 2, dtype=getattr(lt, dt)), torch.zeros(2, 2, dtype=getattr(torch, dt)))


@pytest.mark.parametrize("value", [1, 2.5, True])
def test_full_infers_dtype(value):
    assert_same(lt.full((2, 3), value), torch.full((2, 3), value))


@pytest.mark.parametrize("args,kw", [((5,), {}), ((1, 7), {}), ((0, 10, 3), {}), ((0.0, 1.0, 0.25), {}),
                                     ((5,), {"dtype": "float64"}), ((2, 5.5), {}), ((10, 0, -2), {})])
def test_arange(args, kw):
    kl = {k: getattr(lt, v) for k, v in kw.items()}
    kt = {k: getattr(torch, v) for k, v in kw.items()}
    assert_same(lt.arange(*args, **kl), torch.arange(*args, **kt))


@pytest.mark.parametrize("args", [(0, 1, 5), (-2, 2, 9), (3, 3, 1), (0, 1, 0)])
def test_linspace(args):
    assert_same(lt.linspace(*args), torch.linspace(*args))


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2)])
def test_eye(args):
    assert_same(lt.eye(*args), torch.eye(*args))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "rand_like", "randn_like"])
def test_like(fn):
    x = lt.zeros(2, 3, dtype=lt.float64)
    y = getattr(lt, fn)(x)
    assert tuple(y.shape) == (2, 3) and y.dtype == lt.float64


def test_full_like():
    assert_same(lt.full_like(lt.zeros(2, dtype=lt.int32), 7), torch.full_like(torch.zeros(2, dtype=torch.int32), 7))


def test_rand_distributions_and_seed():
    lt.manual_seed(0)
    a = lt.rand(20000)
    b = lt.rand(20000)
    assert not np.array_equal(a.numpy(), b.numpy()), "the generator must advance between calls"
    lt.manual_seed(0)
    np.testing.assert_array_equal(lt.rand(20000).numpy(), a.numpy())
    an = a.numpy()
    assert an.min() >= 0 and an.max() < 1 and abs(an.mean() - 0.5) < 0.02
    n = lt.randn(20000).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = lt.randint(3, 7, (1000,))
    assert r.dtype == lt.int64 and r.numpy().min() >= 3 and r.numpy().max() <= 6
    r2 = lt.randint(5, (4, 4))
    assert tuple(r2.shape) == (4, 4)


def test_randperm():
    p = lt.randperm(10)
    assert sorted(p.tolist()) == list(range(10)) and p.dtype == lt.int64


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "bool"])
def test_dtype_repr_and_aliases(name):
    assert repr(getattr(lt, name)) == repr(getattr(torch, name))
    assert getattr(lt, name).is_floating_point == getattr(torch, name).is_floating_point
    assert getattr(lt, name).itemsize == getattr(torch, name).itemsize if hasattr(torch.float32, "itemsize") else True


def test_dtype_aliases():
    assert lt.float is lt.float32 and lt.double is lt.float64 and lt.long is lt.int64 and lt.int is lt.int32


@pytest.mark.parametrize("conv", ["float", "double", "long", "int", "bool"])
def test_conversion_methods(conv):
    a, b = lt.tensor([0.0, 1.5, -2.7]), torch.tensor([0.0, 1.5, -2.7])
    assert_same(getattr(a, conv)(), getattr(b, conv)())


@pytest.mark.parametrize("target", ["float64", "int32", "bool"])
def test_to_dtype(target):
    a, b = lt.tensor([1, 0, 3]), torch.tensor([1, 0, 3])
    assert_same(a.to(getattr(lt, target)), b.to(getattr(torch, target)))
    assert_same(a.to("cpu", getattr(lt, target)), b.to("cpu", getattr(torch, target)))
    assert_same(a.to(dtype=getattr(lt, target)), b.to(dtype=getattr(torch, target)))


def test_to_same_dtype_returns_self():
    a = lt.tensor([1.0])
    assert a.to(lt.float32) is a and a.float() is a and a.to("cpu") is a


def test_type_as():
    assert_same(lt.tensor([1, 2]).type_as(lt.tensor([1.0])), torch.tensor([1, 2]).type_as(torch.tensor([1.0])))


@pytest.mark.parametrize("data", [[1.5, 2.0], [[1, 2], [3, 4]], [True], 3.0, [[[1.0]]]])
def test_tolist_item(data):
    a, b = lt.tensor(data), torch.tensor(data)
    assert a.tolist() == b.tolist()
    if b.numel() == 1:
        assert a.item() == b.item() and type(a.item()) == type(b.item())


@pytest.mark.parametrize("data", [
    [1.5, 2.0], [1.0, 2.0], [[1, 2], [3, 4]], [True, False], 3.5, [], [1e-5, 1.0], [1e10, 1.0], [0.1234567],
    [float("nan"), 1.0], [[1.5, -2.25], [3.0, 4.125]], np.arange(2000.0).tolist(), [-1, 100, 7],
])
def test_repr_matches_torch(data):
    assert repr(lt.tensor(data)) == repr(torch.tensor(data))


@pytest.mark.parametrize("dt", ["float64", "int32"])
def test_repr_dtype_suffix(dt):
    assert repr(lt.tensor([1, 2], dtype=getattr(lt, dt))) == repr(torch.tensor([1, 2], dtype=getattr(torch, dt)))


@pytest.mark.parametrize("shape", [(0,), (0, 3)])
@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64", "bool"])
def test_repr_of_empty_tensors_names_the_dtype(shape, dt):
    assert repr(lt.zeros(*shape, dtype=getattr(lt, dt))) == repr(torch.zeros(*shape, dtype=getattr(torch, dt)))


def test_repr_requires_grad():
    assert repr(lt.tensor([1.0, 2.0], requires_grad=True)) == repr(torch.tensor([1.0, 2.0], requires_grad=True))


def test_python_scalar_conversions():
    assert float(lt.tensor(2.5)) == 2.5 and int(lt.tensor(3.9)) == 3 and bool(lt.tensor([1])) is True
    assert [1, 2, 3][lt.tensor(1)] == 2
    with pytest.raises(RuntimeError):
        bool(lt.tensor([1, 2]))
    with pytest.raises(ValueError):
        float(lt.tensor([1.0, 2.0]))


def test_len_iter():
    a = lt.tensor([[1, 2], [3, 4], [5, 6]])
    assert len(a) == 3
    rows = list(a)
    assert len(rows) == 3 and rows[1].tolist() == [3, 4]
    with pytest.raises(TypeError):
        len(lt.tensor(1.0))
    with pytest.raises(TypeError):
        iter(lt.tensor(1.0))


def test_shape_api():
    a, b = lt.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    assert a.shape == b.shape and a.size() == b.size() and a.size(1) == b.size(1) and a.size(-1) == 4
    assert repr(a.shape) == repr(b.shape) and a.dim() == 3 and a.ndim == 3 and a.numel() == 24
    assert a.shape.numel() == 24 and isinstance(a.shape, tuple)
    assert str(a.device) == "cpu" and a.device == "cpu" and a.is_contiguous() and a.contiguous() is a
    with pytest.raises(IndexError):
        a.size(3)


def test_numpy_interop():
    a = lt.tensor([[1.0, 2.0]])
    arr = np.asarray(a)
    assert arr.dtype == np.float32 and arr.tolist() == [[1.0, 2.0]]
    assert (np.array(a, dtype=np.float64)).dtype == np.float64
    with pytest.raises(RuntimeError):
        lt.tensor([1.0], requires_grad=True).numpy()


def test_as_tensor_shares_tensor():
    a = lt.tensor([1.0])
    assert lt.as_tensor(a) is a
    assert lt.is_tensor(a) and not lt.is_tensor(1.0)


def test_unsupported_numpy_dtype_raises_type_error():
    with pytest.raises(TypeError):
        lt.from_numpy(np.array([1 + 2j]))


LOGSPACE = [(0, 3, 4, 10.0), (-1, 2.5, 5, 3.0), (0, 3, 1, 10.0), (0, 3, 0, 10.0), (3, 0, 7, 10.0), (0.5, 3.7, 4, 10.0),
            (0, 3, 7, 2.5), (-2, 3, 6, 10.0), (0, 3, 4, -2.0), (1, 1, 3, 2.0)]


@pytest.mark.parametrize("args", LOGSPACE, ids=str)


@pytest.mark.parametrize("dt", [None, "float64", "int64", "int32"])


def test_logspace(args, dt):
    kw = {} if dt is None else {"dtype": getattr(torch, dt)}
    lkw = {} if dt is None else {"dtype": getattr(lt, dt)}
    want = torch.logspace(*args, **kw)
    assert_same(lt.logspace(*args, **lkw), want, rtol=1e-6)
    assert_same(lt.logspace(args[0], args[1], steps=args[2], base=args[3], **lkw), want, rtol=1e-6)


def test_logspace_tensor_args_grad_out_errors():
    assert_same(lt.logspace(lt.tensor(0), lt.tensor(2.0), 3), torch.logspace(torch.tensor(0), torch.tensor(2.0), 3))
    r = lt.logspace(0, 2, 3, requires_grad=True)
    assert r.requires_grad and r.is_leaf
    out = lt.zeros(5, dtype=lt.float64)
    assert lt.logspace(0, 1, 5, out=out) is out
    assert_same(out, torch.logspace(0, 1, 5, dtype=torch.float64))
    raises_like(lambda: lt.logspace(0, 3, -1), lambda: torch.logspace(0, 3, -1), "logspace")
    raises_like(lambda: lt.logspace(0, 3, 4, dtype=lt.bool), lambda: torch.logspace(0, 3, 4, dtype=torch.bool),
                "logspace")
    raises_like(lambda: lt.logspace(lt.tensor([0.0]), 3, 4), lambda: torch.logspace(torch.tensor([0.0]), 3, 4),
                "logspace")


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])


@pytest.mark.parametrize("row,col,offset", [(3, 4, 0), (4, 3, 1), (4, 3, -1), (3, 3, -5), (3, 3, 5), (0, 4, 0),
                                            (4, 0, 1), (1, 1, 0), (5, 2, -2)])


def test_tril_triu_indices(name, row, col, offset):
    assert_same(getattr(lt, name)(row, col, offset), getattr(torch, name)(row, col, offset))
    assert_same(getattr(lt, name)(row, col, offset, dtype=lt.int32),
                getattr(torch, name)(row, col, offset, dtype=torch.int32))
    if offset == 0:
        assert_same(getattr(lt, name)(row, col), getattr(torch, name)(row, col))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])


def test_tril_triu_indices_errors(name):
    raises_like(lambda: getattr(lt, name)(-1, 3), lambda: getattr(torch, name)(-1, 3), name)
    raises_like(lambda: getattr(lt, name)(3, -1), lambda: getattr(torch, name)(3, -1), name)
    raises_like(lambda: getattr(lt, name)(3, 3, dtype=lt.float32),
                lambda: getattr(torch, name)(3, 3, dtype=torch.float32),
                name)


@pytest.mark.parametrize("N", [None, 0, 1, 2, 5])


@pytest.mark.parametrize("increasing", [False, True])


@pytest.mark.parametrize("shape", [(4,), (1,), (0,)], ids=str)


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64", "bool"])


def test_vander(shape, N, increasing, dt):
    a, b = views(arr(shape, dt), "step" if dt == "float64" else "none")
    assert_same(lt.vander(a, N, increasing), torch.vander(b, N, increasing), rtol=1e-6)
    assert_same(lt.vander(a, N=N, increasing=increasing), torch.vander(b, N=N, increasing=increasing), rtol=1e-6)


def _torch_vander(t, n, increasing=False):
    """The reference for vander's gradient: torch 1.13's own vander backward fails ("modified by an inplace
    operation")."""
    r = torch.cat([torch.ones(t.shape[0], 1, dtype=t.dtype), torch.cumprod(t.unsqueeze(1).expand(-1, n - 1), 1)], 1)
    return r if increasing else r.flip(1)


def test_vander_grads_errors():
    x = arr((4,), "float64")
    grads_match(lambda t: lt.vander(t, 5), lambda t: _torch_vander(t, 5), [x])
    grads_match(lambda t: lt.vander(t, 3, True), lambda t: _torch_vander(t, 3, True), [x])
    with pytest.raises(RuntimeError, match="inplace"):  # if this starts passing, compare with torch.vander directly
        torch.vander(torch.ones(3, dtype=torch.float64, requires_grad=True)).sum().backward()
    a, b = pair(x)
    raises_like(lambda: lt.vander(a, -1), lambda: torch.vander(b, -1), "vander")
    raises_like(lambda: lt.vander(a.reshape(2, 2)), lambda: torch.vander(b.reshape(2, 2)), "vander")
    raises_like(lambda: lt.vander(a[0]), lambda: torch.vander(b[0]), "vander")
