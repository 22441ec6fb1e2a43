"""Out-of-range indices against PyTorch 1.13: the same exception type, a message naming the index and the
size, and every tensor (the target of an in-place op included) unchanged afterwards.

Index values that are known (materialised) raise at the call. Lazy index values (computed by pending ops)
raise at the sync that computes the result; other tensors stay valid, the target of a failed in-place write
reads what it held before that write (as in torch, which raises before writing), and a bad index in one dim
of a multi-dim advanced index never lands on a valid element of another dim.
"""
import numpy as np
import pytest

from conftest import LF, TF, assert_same, lt, torch

BAD = [3, 5, -4]

OPS = {
    "setitem": lambda T, x, i: x.__setitem__(T.tensor([i]), 1.0),
    "setitem_2d": lambda T, x, i: x.reshape(3, 1).__setitem__((T.tensor([i]), T.tensor([0])), 1.0),
    "getitem": lambda T, x, i: x[T.tensor([i])],
    "getitem_list": lambda T, x, i: x[[0, i]],
    "index_put_": lambda T, x, i: x.index_put_((T.tensor([i]),), T.tensor(1.0)),
    "index_put_accumulate": lambda T, x, i: x.index_put_((T.tensor([i]),), T.tensor(1.0), accumulate=True),
    "put_": lambda T, x, i: x.put_(T.tensor([i]), T.tensor([1.0])),
    "take": lambda T, x, i: x.take(T.tensor([i])),
    "index_fill_": lambda T, x, i: x.index_fill_(0, T.tensor([i]), 1.0),
    "index_copy_": lambda T, x, i: x.index_copy_(0, T.tensor([i]), T.tensor([1.0])),
}
# Non-negative only: torch rejects every negative index for these.
NONNEG_OPS = {
    "index_select": lambda T, x, i: x.index_select(0, T.tensor([i])),
    "gather": lambda T, x, i: x.gather(0, T.tensor([i])),
    "scatter": lambda T, x, i: x.scatter(0, T.tensor([i]), T.tensor([1.0])),
    "scatter_": lambda T, x, i: x.scatter_(0, T.tensor([i]), T.tensor([1.0])),
    "scatter_add_": lambda T, x, i: x.scatter_add_(0, T.tensor([i]), T.tensor([1.0])),
    "index_add": lambda T, x, i: x.index_add(0, T.tensor([i]), T.tensor([1.0])),
    "index_add_": lambda T, x, i: x.index_add_(0, T.tensor([i]), T.tensor([1.0])),
    "embedding": lambda T, x, i: (TF if T is torch else LF).embedding(T.tensor([i]), x.reshape(3, 1)),
}


def _outcome(T, op, i):
    x = T.tensor([1.0, 2.0, 3.0])
    other = T.arange(4.0) * 2
    try:
        op(T, x, i)
        raised = None
    except (IndexError, RuntimeError) as e:
        raised = e
    return raised, x, other


@pytest.mark.parametrize("index", BAD + [-1])
@pytest.mark.parametrize("name", sorted(OPS))
def test_bad_index_raises_at_the_call_and_changes_nothing(name, index):
    _check(OPS[name], index)


@pytest.mark.parametrize("index", [3, 7])
@pytest.mark.parametrize("name", sorted(NONNEG_OPS))
def test_bad_nonnegative_index_raises_at_the_call_and_changes_nothing(name, index):
    _check(NONNEG_OPS[name], index)


def _check(op, index):
    ours, x, other = _outcome(lt, op, index)
    theirs, tx, tother = _outcome(torch, op, index)
    if theirs is None:  # -1 is valid where torch wraps it
        assert ours is None, ours
    else:
        assert type(ours) is type(theirs), (ours, theirs)
        assert str(index) in str(ours) and "3" in str(ours), str(ours)
        assert_same(x, tx)  # the target is as it was
    assert_same(other, tother)


def test_index_put_matches_torch():
    for accumulate in (False, True):
        outs = []
        for T in (lt, torch):
            x = T.zeros(4, 3)
            i = T.tensor([0, 2, 0, -1])
            j = T.tensor([1, 1, 1, 0])
            v = T.tensor([1.0, 2.0, 3.0, 4.0])
            outs.append(x.index_put((i, j), v, accumulate=accumulate) if accumulate
                        else x.index_put((i[1:], j[1:]), v[1:]))
        assert_same(outs[0], outs[1])


def test_index_put_rows_and_bool_mask_match_torch():
    outs = []
    for T in (lt, torch):
        x = T.arange(12.0).reshape(4, 3)
        x.index_put_((T.tensor([True, False, True, False]),), T.tensor([9.0, 8.0, 7.0]))
        y = T.zeros(3, 2).index_put_((T.tensor([2, 2]),), T.ones(2), accumulate=True)
        outs.append((x, y))
    assert_same(outs[0], outs[1])


def test_put_matches_torch():
    outs = []
    for T in (lt, torch):
        x = T.arange(6.0).reshape(2, 3)
        a = x.put(T.tensor([[0, -1]]), T.tensor([10.0, 20.0]))
        b = x.clone().put_(T.tensor([1, 1]), T.tensor([1.0, 2.0]), accumulate=True)
        outs.append((a, b, x))
    assert_same(outs[0], outs[1])


def test_lazy_bad_index_raises_at_sync_and_leaves_other_tensors_valid():
    x = lt.tensor([1.0, 2.0, 3.0])
    other = lt.arange(4.0) * 2
    i = lt.tensor([1]) * 5  # pending: its values are known only at the sync
    y = x.index_select(0, i)
    with pytest.raises(IndexError, match="out of bounds"):
        y.tolist()
    assert other.tolist() == [0.0, 2.0, 4.0, 6.0]
    assert x.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(IndexError):  # the failed tensor raises every time it is read
        y.tolist()


def test_lazy_bad_index_in_one_dim_does_not_land_in_another():
    for setting in (False, True):
        x = lt.zeros(3, 3)
        i, j = lt.tensor([0]) * 1, lt.tensor([2]) + 3  # j = 5: flat 0*3+5 would be a valid element
        with pytest.raises(IndexError, match="out of bounds"):
            if setting:
                x[i, j] = 1.0
                x.tolist()
            else:
                x[i, j].tolist()


class _PendingTensors:
    """lazytensor whose tensor() gives a pending tensor: its values are known only at the sync."""

    def __getattr__(self, name):
        return getattr(lt, name)

    @staticmethod
    def tensor(data, **kwargs):
        return lt.tensor(data, **kwargs) * 1


PENDING = _PendingTensors()


def _pending_outcome(op, i):
    x = lt.tensor([1.0, 2.0, 3.0])
    other = lt.arange(4.0) * 2
    try:
        result = op(PENDING, x, i)  # records: the index is not known yet
        (x if result is None or result is x else result).tolist()
        raised = None
    except (IndexError, RuntimeError) as e:
        raised = e
    return raised, x, other


@pytest.mark.parametrize("name", sorted(set(OPS) | set(NONNEG_OPS)))
def test_lazy_bad_index_raises_at_the_sync_and_the_target_is_as_it_was(name):
    op = OPS.get(name) or NONNEG_OPS[name]
    ours, x, other = _pending_outcome(op, 7)
    theirs, tx, tother = _outcome(torch, op, 7)
    assert type(ours) is type(theirs), (ours, theirs)
    assert "index 7 is out of bounds" in str(ours), str(ours)
    assert_same(x, tx)  # torch raises before it writes
    assert x._version == tx._version
    assert_same(other, tother)
    assert_same(x * 2, tx * 2)  # later ops work


def test_lazy_bad_write_keeps_the_writes_before_it():
    outs = []
    for T in (PENDING, torch):
        x = T.tensor([1.0, 2.0, 3.0, 4.0])
        x[T.tensor([0])] = 10.0
        try:
            x[T.tensor([9])] = 20.0
            x.tolist()
        except IndexError:
            pass
        outs.append(x)
    assert_same(outs[0], outs[1])


def test_lazy_bad_write_through_a_view_restores_the_base_and_the_view():
    base = lt.arange(6.0)
    view = base[1:4]
    view[lt.tensor([5]) * 1] = 7.0
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        view.tolist()
    assert base.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert view.tolist() == [1.0, 2.0, 3.0]
    view[lt.tensor([1]) * 1] = 7.0  # the view still writes through
    assert base.tolist() == [0.0, 1.0, 7.0, 3.0, 4.0, 5.0]


def test_lazy_bad_write_to_a_parameter_keeps_its_gradient_flow():
    p = lt.nn.Parameter(lt.ones(4))
    y = (p * p).sum()  # recorded before the write
    with lt.no_grad():
        p[lt.tensor([3]) * 3] = 0.0
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        p.tolist()
    assert p.requires_grad and p.is_leaf and p._version == 0
    y.backward()
    (p * 3).sum().backward()
    assert p.grad.tolist() == [5.0] * 4  # each use counted once


def test_lazy_tensors_built_on_a_failed_write_keep_raising():
    x = lt.tensor([1.0, 2.0, 3.0])
    before = x + 1
    x.index_add_(0, lt.tensor([1]) * 7, lt.tensor([1.0]))
    after = x * 2
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        after.tolist()
    assert x.tolist() == [1.0, 2.0, 3.0]
    assert before.tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        after.tolist()


def test_lazy_sync_of_everything_raises_and_restores_the_target():
    x = lt.tensor([1.0, 2.0, 3.0])
    x[lt.tensor([4]) * 1] = 5.0
    good = lt.ones(2) * 3
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        lt.sync()
    assert x.tolist() == [1.0, 2.0, 3.0]
    assert good.tolist() == [3.0, 3.0]
