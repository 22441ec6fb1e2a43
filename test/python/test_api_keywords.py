"""Every keyword and alias of the API table (ir/api_functions.def, read as lazytensor._C._api_table()) against
PyTorch 1.13: for each row, each form (torch.X, Tensor.X, Tensor.X_) and each argument, the call with that
argument (and the ones after it) by keyword, by each alias PyTorch takes, and out= where the row has it, equal
to the positional call and to PyTorch's same call."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from lazytensor import _api
from conftest import assert_same


def assert_same_lt(a, b):
    """Two lazytensor results (tensors or tuples of them) with the same dtype, shape and values."""
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same_lt(x, y)
        return
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())

ROWS = {r["name"]: r for r in lt._C._api_table()}

_rng = np.random.default_rng(0)
_X = _rng.standard_normal((3, 4)).astype(np.float32)
_Y = (_rng.standard_normal((3, 4)) + 3.0).astype(np.float32)
_X64 = _rng.standard_normal((3, 4))
_CUBE = _rng.standard_normal((2, 3, 4)).astype(np.float32)
_W = _rng.standard_normal((4, 2)).astype(np.float32)
_S = _rng.standard_normal((3, 2)).astype(np.float32)
_XI = np.array([[-7, 7, 5, -5], [9, -9, 1, 0], [3, -2, 8, -8]], dtype=np.int64)
_IDX = np.array([[0, 2], [1, 3], [3, 0]], dtype=np.int64)


def samples(M, name):
    """The sample calls of a row for the module M (lazytensor or torch): (self / first argument, {argument:
    value} in the row's order)."""
    t = M.tensor
    x, y, cube = t(_X), t(_Y), t(_CUBE)
    x64 = t(_X64)
    idx = t(_IDX)
    reduce_all = [(x, {"dim": 1, "keepdim": True, "dtype": M.float64})]
    minmax = [(x, {"dim": 1, "keepdim": True})]
    table = {
        "sum": reduce_all, "mean": reduce_all, "prod": reduce_all,
        "amax": minmax, "amin": minmax, "max": minmax, "min": minmax, "argmax": minmax, "argmin": minmax,
        "var": [(x, {"dim": 1, "unbiased": False, "keepdim": True}), (x, {"dim": 1, "keepdim": True, "correction": 0})],
        "std": [(x, {"dim": 1, "unbiased": False, "keepdim": True}), (x, {"dim": 1, "keepdim": True, "correction": 0})],
        "logsumexp": minmax,
        "cumsum": [(x64, {"dim": 1, "dtype": M.float64})],
        "softmax": [(x, {"dim": 1, "dtype": M.float64})],
        "log_softmax": [(x, {"dim": 1, "dtype": M.float64})],
        "norm": [(x, {"p": 2, "dim": 1, "keepdim": True, "dtype": M.float64}), (x, {"p": 1, "dim": 0})],
        "gather": [(x, {"dim": 1, "index": idx, "sparse_grad": False})],
        "scatter": [(M.zeros(3, 4), {"dim": 1, "index": idx, "src": t(_S)}),
                    (M.zeros(3, 4), {"dim": 1, "index": idx, "value": 2.5}),
                    (M.ones(3, 4), {"dim": 1, "index": idx, "src": t(_S), "reduce": "multiply"})],
        "scatter_add": [(x, {"dim": 1, "index": idx, "src": t(_S)})],
        "index_select": [(x, {"dim": 1, "index": t(np.array([2, 0]))})],
        "where": [(x > 0, {"input": x, "other": y})],
        "where_method": [(x, {"condition": x > 0, "other": y})],
        "cat": [([x, y], {"dim": 1})],
        "stack": [([x, y], {"dim": 1})],
        "split": [(x, {"split_size_or_sections": 2, "dim": 1}), (x, {"split_size_or_sections": [1, 3], "dim": 1})],
        "split_method": [(x, {"split_size": 3, "dim": 1}), (x, {"split_size": [1, 3], "dim": 1})],
        "chunk": [(x, {"chunks": 2, "dim": 1})],
        "transpose": [(x, {"dim0": 0, "dim1": 1})],
        "swapaxes": [(x, {"axis0": 0, "axis1": 1})],
        "permute": [(cube, {"dims": (2, 0, 1)})],
        "permute_method": [(cube, {"dims": (2, 0, 1)})],
        "reshape": [(x, {"shape": (2, 6)})],
        "reshape_method": [(x, {"shape": (2, 6)})],
        "view": [(x, {"size": (2, 6)})],
        "squeeze": [(x.reshape(3, 1, 4), {"dim": 1})],
        "unsqueeze": [(x, {"dim": 1})],
        "flatten": [(cube, {"start_dim": 1, "end_dim": 2})],
        "flip": [(x, {"dims": (0, 1)})],
        "roll": [(x, {"shifts": 1, "dims": 1})],
        "clamp": [(x, {"min": -0.5, "max": 0.5})],
        "clip": [(x, {"min": -0.5, "max": 0.5})],
        "div": [(x, {"other": y}), (x, {"other": y, "rounding_mode": "floor"}),
                (t(_XI), {"other": 3, "rounding_mode": "trunc"}), (t(_XI), {"other": 3, "rounding_mode": "floor"})],
        "true_divide": [(x, {"other": y})],
        "pow": [(y, {"exponent": 2.0}), (y, {"exponent": x})],
        "matmul": [(x, {"other": t(_W)})],
    }
    return table[name]


# Arguments of the table that no sample passes, with the reason.
NOT_PASSED = {}


def _forms(row):
    for n in row["functions"]:
        yield "function", n
    for n in row["methods"]:
        yield "method", n
    for n in row["inplace"]:
        yield "inplace", n


def _cases():
    for name, row in ROWS.items():
        for form, fn in _forms(row):
            yield pytest.param(name, form, fn, id="{}-{}-{}".format(name, form, fn))


def _split_call(row, form, first, args, keyword_from):
    """(positional, keywords) for a call where the arguments from position `keyword_from` on (in the row's
    order, the function's first argument at position 0) go by keyword and those before it by position; an
    argument after a gap or after LT_KW is a keyword in any case."""
    spec = ([{"name": row["first"], "kwonly": False}] if form == "function" else []) + row["args"]
    values = dict(args)
    if form == "function":
        values[row["first"]] = first
    pos, kw = [], {}
    positional_open = True
    for i, a in enumerate(spec):
        n = a["name"]
        if n not in values:
            positional_open = False
            continue
        if positional_open and not a["kwonly"] and i < keyword_from:
            pos.append(values[n])
        else:
            positional_open = False
            kw[n] = values[n]
    return pos, kw


def _call(M, form, fn, first, pos, kw):
    if form == "function":
        return getattr(M, fn)(*pos, **kw)
    self = first.clone() if form == "inplace" else first
    return getattr(self, fn)(*pos, **kw)


def _both(form, fn, row_name, k, keyword_from, rename=None, out=False):
    """lazytensor's and torch's results of the same call."""
    results = []
    for M in (lt, torch):
        first, args = samples(M, row_name)[k]
        pos, kw = _split_call(ROWS[row_name], form, first, args, keyword_from)
        if rename:
            kw = {rename.get(n, n): v for n, v in kw.items()}
        if out:
            ref = _call(M, form, fn, first, pos, kw)
            o = M.empty(*ref.shape, dtype=ref.dtype)
            r = _call(M, form, fn, first, pos, dict(kw, out=o))
            assert r is o
            results.append(o)
        else:
            results.append(_call(M, form, fn, first, pos, kw))
    return results


def _inplace_ok(row_name, k):
    """Whether PyTorch takes sample k in place (not where the result's dtype differs from self's)."""
    first, args = samples(torch, row_name)[k]
    try:
        first.clone().__getattribute__(ROWS[row_name]["inplace"][0])(**args)
    except RuntimeError:
        return False
    return True


@pytest.mark.parametrize("row_name,form,fn", list(_cases()))
def test_keywords_and_aliases(row_name, form, fn):
    row = ROWS[row_name]
    n_samples = len(samples(lt, row_name))
    for k in range(n_samples):
        if form == "inplace" and not _inplace_ok(row_name, k):
            continue
        first, args = samples(lt, row_name)[k]
        offset = 1 if form == "function" else 0
        n_args = offset + len(row["args"])
        positional, ref_torch = _both(form, fn, row_name, k, n_args + 1)
        assert_same(positional, ref_torch)
        aliases = _api.aliases(row, form)
        for i in range(n_args):
            spec = ([row["first"]] if form == "function" else []) + [a["name"] for a in row["args"]]
            name = spec[i]
            if name not in args and not (form == "function" and i == 0):
                continue
            got, want = _both(form, fn, row_name, k, i)
            assert_same(got, want)
            assert_same_lt(got, positional)
            for alias, target in aliases.items():
                if target == name:
                    got, want = _both(form, fn, row_name, k, i, rename={name: alias})
                    assert_same(got, want)
                    assert_same_lt(got, positional)
        if form == "function" and row["out"]:
            got, want = _both(form, fn, row_name, k, n_args + 1, out=True)
            assert_same(got, want)
            got, want = _both(form, fn, row_name, k, 0, out=True)
            assert_same(got, want)


def test_every_argument_is_passed_by_a_sample():
    for name, row in ROWS.items():
        passed = set()
        for _, args in samples(lt, name):
            passed |= set(args)
        for a in row["args"]:
            assert a["name"] in passed or (name, a["name"]) in NOT_PASSED, (name, a["name"])


def test_table_names_exist_in_torch():
    for name, row in ROWS.items():
        for form, fn in _forms(row):
            owner = torch if form == "function" else torch.Tensor
            assert hasattr(owner, fn), (name, form, fn)
            assert hasattr(lt if form == "function" else lt.Tensor, fn), (name, form, fn)


def test_issue_examples():
    xn = _X
    x, tx = lt.tensor(xn), torch.tensor(xn)
    assert_same(x.sum(axis=0), tx.sum(axis=0))
    i, ti = lt.tensor(_IDX), torch.tensor(_IDX)
    assert_same(lt.gather(input=x, dim=1, index=i), torch.gather(input=tx, dim=1, index=ti))
    a, b = lt.tensor(_X), lt.tensor(_Y)
    ta, tb = torch.tensor(_X), torch.tensor(_Y)
    assert_same(lt.div(a, b, rounding_mode="floor"), torch.div(ta, tb, rounding_mode="floor"))


def test_alias_and_name_together_is_an_error():
    x = lt.tensor(_X)
    with pytest.raises(TypeError):
        x.sum(dim=0, axis=0)
    with pytest.raises(TypeError):
        lt.sum(x, dim=0, axis=1)


def test_bad_rounding_mode():
    with pytest.raises(RuntimeError):
        lt.div(lt.tensor(_X), 2.0, rounding_mode="ceil")
