"""torch.utils.data (DataLoader, datasets, samplers, collate) and generators, against PyTorch."""
import collections
import warnings

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same

rng = np.random.default_rng(7)
X = rng.standard_normal((10, 3)).astype(np.float32)
Y = rng.integers(0, 4, size=10)


def _tensor_dataset(m):
    return m.utils.data.TensorDataset(m.from_numpy(X.copy()), m.from_numpy(Y.copy()))


def _same_batches(make):
    """make(m) -> an iterable of batches; lazytensor's must equal torch's, batch for batch."""
    got, want = list(make(lt)), list(make(torch))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert type(a) is type(b) or (isinstance(a, lt.Tensor) and isinstance(b, torch.Tensor)), (type(a), type(b))
        assert_same(a, b) if not isinstance(b, dict) else [assert_same(a[k], b[k]) for k in b]


class _Squares:  # a map-style dataset that is not a Dataset subclass (allowed by PyTorch)
    def __getitem__(self, i):
        return {"x": np.full(2, i, dtype=np.float32), "y": i * i, "w": float(i) / 2}

    def __len__(self):
        return 7


Point = collections.namedtuple("Point", "x y")

LOADERS = {
    "tensor_dataset_batches": lambda m: m.utils.data.DataLoader(_tensor_dataset(m), batch_size=4),
    "drop_last": lambda m: m.utils.data.DataLoader(_tensor_dataset(m), batch_size=4, drop_last=True),
    "batch_size_1": lambda m: m.utils.data.DataLoader(_tensor_dataset(m)),
    "no_auto_batching": lambda m: m.utils.data.DataLoader(_tensor_dataset(m), batch_size=None),
    "dict_numpy_numbers": lambda m: m.utils.data.DataLoader(_Squares(), batch_size=3),
    "list_of_numpy_no_batching": lambda m: m.utils.data.DataLoader([np.arange(3) * i for i in range(4)],
                                                                     batch_size=None),
    "namedtuples": lambda m: m.utils.data.DataLoader([Point(i, float(i)) for i in range(5)], batch_size=2),
    "lists_and_strings": lambda m: m.utils.data.DataLoader([[i, "s%d" % i, True] for i in range(5)], batch_size=2),
    "numpy_scalars": lambda m: m.utils.data.DataLoader([np.float64(i) for i in range(5)], batch_size=2),
    "subset": lambda m: m.utils.data.DataLoader(m.utils.data.Subset(_tensor_dataset(m), [9, 0, 4, 4, 2]),
                                                batch_size=2),
    "concat": lambda m: m.utils.data.DataLoader(_tensor_dataset(m) + _tensor_dataset(m), batch_size=6),
    "custom_collate": lambda m: m.utils.data.DataLoader(_tensor_dataset(m), batch_size=3,
                                                        collate_fn=lambda b: m.stack([x for x, _ in b]).sum(0)),
    "batch_sampler": lambda m: m.utils.data.DataLoader(
        _tensor_dataset(m), batch_sampler=m.utils.data.BatchSampler(
            m.utils.data.SequentialSampler(range(10)), 3, False)),
    "explicit_sampler": lambda m: m.utils.data.DataLoader(_tensor_dataset(m), batch_size=4,
                                                          sampler=[3, 1, 4, 1, 5, 9, 2, 6]),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_loader_batches_match_torch(name):
    _same_batches(LOADERS[name])
    assert len(LOADERS[name](lt)) == len(LOADERS[name](torch))


def _counting(m):
    """An IterableDataset of m (each DataLoader checks for its own class) yielding n small tensors."""
    class Count(m.utils.data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter([m.tensor([float(i), -i]) for i in range(self.n)])

        def __len__(self):
            return self.n
    return Count


_Count, _TorchCount = _counting(lt), _counting(torch)


@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)])
def test_iterable_dataset_matches_torch(kw):
    got = list(lt.utils.data.DataLoader(_Count(7), **kw))
    want = list(torch.utils.data.DataLoader(_TorchCount(7), **kw))
    assert_same(got, want)
    assert len(lt.utils.data.DataLoader(_Count(7), **kw)) == len(
        torch.utils.data.DataLoader(_TorchCount(7), **kw))


def test_shuffle_is_a_permutation_per_epoch_and_reproducible():
    ds = lt.utils.data.TensorDataset(lt.arange(100))
    loader = lt.utils.data.DataLoader(ds, batch_size=16, shuffle=True)
    lt.manual_seed(5)
    epochs = [np.concatenate([b[0].numpy() for b in loader]) for _ in range(2)]
    for e in epochs:
        assert sorted(e.tolist()) == list(range(100))
    assert epochs[0].tolist() != epochs[1].tolist()  # a new order each epoch
    lt.manual_seed(5)
    assert np.concatenate([b[0].numpy() for b in loader]).tolist() == epochs[0].tolist()


def test_generator_is_independent_of_the_global_stream():
    ds = list(range(50))
    order = lambda g: [int(i) for b in lt.utils.data.DataLoader(ds, batch_size=50, shuffle=True, generator=g)
                       for i in b]
    a = order(lt.Generator().manual_seed(1))
    lt.manual_seed(0)
    before = lt.rand(3)
    lt.manual_seed(0)
    b = order(lt.Generator().manual_seed(1))
    after = lt.rand(3)  # the loader's generator did not move the global stream
    assert a == b and sorted(a) == ds
    assert torch.equal(torch.from_numpy(before.numpy()), torch.from_numpy(after.numpy()))
    assert order(lt.Generator().manual_seed(2)) != a


def test_random_split_lengths_fractions_and_errors():
    ds = list(range(10))
    for lengths in ([3, 7], [0.3, 0.7], [0.25, 0.25, 0.5]):
        got = lt.utils.data.random_split(ds, lengths, generator=lt.Generator().manual_seed(0))
        want = torch.utils.data.random_split(ds, lengths, generator=torch.Generator().manual_seed(0))
        assert [len(s) for s in got] == [len(s) for s in want]
        assert sorted(i for s in got for i in s) == ds
    for bad in ([3, 8], [0.5, 0.6]):
        with pytest.raises(ValueError) as e_lt:
            lt.utils.data.random_split(ds, bad)
        with pytest.raises(ValueError):
            torch.utils.data.random_split(ds, bad)
        assert "Sum of input lengths" in str(e_lt.value)


def test_samplers():
    d = list(range(6))
    s = list(lt.utils.data.RandomSampler(d, replacement=True, num_samples=20, generator=lt.Generator()))
    assert len(s) == 20 and all(0 <= i < 6 for i in s)
    s = list(lt.utils.data.RandomSampler(d, num_samples=14))
    assert len(s) == 14 and sorted(s[:6]) == d and sorted(s[6:12]) == d
    s = list(lt.utils.data.SubsetRandomSampler([10, 20, 30]))
    assert sorted(s) == [10, 20, 30]
    w = list(lt.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 30))
    assert set(w) <= {1, 3} and len(w) == 30
    assert list(lt.utils.data.BatchSampler(range(7), 3, drop_last=False)) == \
        list(torch.utils.data.BatchSampler(range(7), 3, drop_last=False))
    assert len(lt.utils.data.BatchSampler(range(7), 3, drop_last=True)) == 2


def _both_raise(make, exc):
    with pytest.raises(exc) as e_lt:
        make(lt)
    with pytest.raises(exc) as e_t:
        make(torch)
    return str(e_lt.value), str(e_t.value)


BAD = {
    "sampler and shuffle": (lambda m: m.utils.data.DataLoader(list(range(4)), sampler=[0, 1], shuffle=True),
                            ValueError),
    "batch_sampler and batch_size": (lambda m: m.utils.data.DataLoader(
        list(range(4)), batch_size=2, batch_sampler=[[0, 1]]), ValueError),
    "batch_size None and drop_last": (lambda m: m.utils.data.DataLoader(list(range(4)), batch_size=None,
                                                                        drop_last=True), ValueError),
    "negative workers": (lambda m: m.utils.data.DataLoader(list(range(4)), num_workers=-1), ValueError),
    "zero batch size": (lambda m: m.utils.data.DataLoader(list(range(4)), batch_size=0), ValueError),
    "shuffle an iterable dataset": (lambda m: m.utils.data.DataLoader(
        (_Count if m is lt else _TorchCount)(3), shuffle=True), ValueError),
    "replacement not bool": (lambda m: m.utils.data.RandomSampler([1, 2], replacement=1), TypeError),
    "tensor dataset size mismatch": (lambda m: m.utils.data.TensorDataset(m.ones(3), m.ones(4)), AssertionError),
    "ragged batch of lists": (lambda m: list(m.utils.data.DataLoader([[1, 2], [3]], batch_size=2)), RuntimeError),
    "collate of objects": (lambda m: list(m.utils.data.DataLoader([object(), object()], batch_size=2)), TypeError),
    "stack of unequal tensors": (lambda m: list(m.utils.data.DataLoader([m.ones(2), m.ones(3)], batch_size=2)),
                                 RuntimeError),
    "concat index out of range": (lambda m: m.utils.data.ConcatDataset([list(range(3))])[-4], ValueError),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_loader_arguments_raise_like_torch(name):
    make, exc = BAD[name]
    _both_raise(make, exc)


def test_num_workers_warns_once_and_gives_the_same_batches():
    make = lambda w: [b[0] for b in lt.utils.data.DataLoader(_tensor_dataset(lt), batch_size=4, num_workers=w)]
    lt.utils.data.DataLoader._warned_workers = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with_workers = make(2)
    assert any("calling process" in str(w.message) for w in caught)
    assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(with_workers, make(0)))


def test_training_over_a_loader_compiles_nothing_after_the_first_epoch():
    """A TensorDataset batch is one gather whose index is data: every full batch has one trace."""
    lt.manual_seed(0)
    xs, ys = lt.randn(64, 8), (lt.rand(64) * 3).long()
    loader = lt.utils.data.DataLoader(lt.utils.data.TensorDataset(xs, ys), batch_size=16, shuffle=True)
    model = lt.nn.Linear(8, 3)
    opt = lt.optim.SGD(model.parameters(), lr=0.1)
    misses = []  # trace-cache misses (a warm disk cache hides compiles, not misses)
    for _ in range(3):
        before = lt.debug.counters()["trace_cache_misses"]
        for xb, yb in loader:
            opt.zero_grad()
            loss = lt.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            loss.item()
        misses.append(lt.debug.counters()["trace_cache_misses"] - before)
    assert misses[0] > 0 and misses[1] == 0 and misses[2] == 0, misses


def test_generator_api():
    g = lt.Generator().manual_seed(11)
    assert g.initial_seed() == 11
    state = g.get_state()
    a = lt.randn(4, generator=g)
    g.set_state(state)
    assert np.array_equal(a.numpy(), lt.randn(4, generator=g).numpy())
    assert lt.manual_seed(3) is lt.default_generator and lt.initial_seed() == 3
    p = lt.randperm(8, generator=lt.Generator().manual_seed(1))
    assert p.tolist() == lt.randperm(8, generator=lt.Generator().manual_seed(1)).tolist()
    assert sorted(p.tolist()) == list(range(8))
    with pytest.raises(TypeError):
        lt.rand(2, generator=5)
    with pytest.raises(RuntimeError):
        g.set_state(lt.zeros(3))


def test_manual_slicing_batches_compile_once():
    """X[i:i+b] of computed data is an input viewing rows i..i+b-1: one trace whatever i."""
    lt.manual_seed(0)
    X, Y = lt.randn(96, 8), (lt.rand(96) * 3).long()
    model = lt.nn.Linear(8, 3)
    tm = torch.nn.Linear(8, 3)
    with torch.no_grad():
        tm.weight.copy_(torch.from_numpy(model.weight.detach().numpy()))
        tm.bias.copy_(torch.from_numpy(model.bias.detach().numpy()))
    tx, ty = torch.from_numpy(X.numpy()), torch.from_numpy(Y.numpy())
    opt = lt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    losses, want, misses = [], [], []
    for i in range(0, 96, 16):
        before = lt.debug.counters()["trace_cache_misses"]
        opt.zero_grad()
        loss = lt.nn.functional.cross_entropy(model(X[i:i + 16]), Y[i:i + 16])
        loss.backward()
        opt.step()
        losses.append(loss.item())
        misses.append(lt.debug.counters()["trace_cache_misses"] - before)
        topt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(tm(tx[i:i + 16]), ty[i:i + 16])
        tloss.backward()
        topt.step()
        want.append(tloss.item())
    # steps 1 and 2 are new traces (SGD's first momentum step differs from later ones); then none
    assert misses[3:] == [0, 0, 0], misses
    np.testing.assert_allclose(losses, want, rtol=1e-4)


def test_a_loop_over_time_steps_of_data_compiles_once():
    """X[:, t] of data is not one run of it: it is copied into an input at capture, so one trace whatever t."""
    rng = np.random.RandomState(3)
    xs = rng.randn(4, 7, 5).astype(np.float32)
    w = rng.randn(5, 3).astype(np.float32)
    X, W = lt.from_numpy(xs.copy()), lt.from_numpy(w.copy())
    X.numpy()  # materialised data
    outs, misses = [], []
    for t in range(7):
        before = lt.debug.counters()["trace_cache_misses"]
        outs.append(lt.tanh(X[:, t] @ W).sum(1).numpy())
        misses.append(lt.debug.counters()["trace_cache_misses"] - before)
    assert misses[1:] == [0] * 6, misses
    want = np.tanh(np.einsum("btf,fk->btk", xs, w)).sum(2)
    np.testing.assert_allclose(np.stack(outs, 1), want, rtol=1e-5, atol=1e-6)
