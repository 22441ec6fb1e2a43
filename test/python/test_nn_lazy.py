"""nn.Lazy* layers against PyTorch 1.13: the first call infers in_features / in_channels / num_features from
the input, materialises and resets the parameters and turns the layer into its plain class; parameters,
buffers and state_dict (before and after) look as torch's; a checkpoint loads into a layer not called yet.
Random initial values differ between the libraries, so values are compared after loading torch's."""
import warnings

import numpy as np
import pytest

from conftest import assert_same, lt, torch

warnings.filterwarnings("ignore", message="Lazy modules are a new feature")

# name: (constructor arguments, input shape)
CASES = {
    "LazyLinear": ((3,), (2, 5)),
    "LazyConv1d": ((4, 3), (2, 6, 9)),
    "LazyConv2d": ((4, 3), (2, 6, 7, 7)),
    "LazyConv3d": ((2, 2), (1, 4, 5, 5, 5)),
    "LazyConvTranspose1d": ((4, 3), (2, 6, 5)),
    "LazyConvTranspose2d": ((4, 3), (2, 6, 4, 4)),
    "LazyConvTranspose3d": ((2, 2), (1, 4, 3, 3, 3)),
    "LazyBatchNorm1d": ((), (4, 6)),
    "LazyBatchNorm2d": ((), (2, 6, 3, 3)),
    "LazyBatchNorm3d": ((), (2, 3, 2, 2, 2)),
    "LazyInstanceNorm1d": ((), (2, 6, 5)),
    "LazyInstanceNorm2d": ((), (2, 6, 3, 3)),
    "LazyInstanceNorm3d": ((), (2, 3, 2, 2, 2)),
}
KWARGS = {
    "LazyConv2d": {"stride": 2, "padding": 1, "groups": 2},
    "LazyConvTranspose2d": {"stride": 2, "output_padding": 1, "groups": 2},
    "LazyConv1d": {"bias": False},
}


def _make(T, name):
    args, _ = CASES[name]
    return getattr(T.nn, name)(*args, **KWARGS.get(name, {}))


def _entries(m):
    """(name, class name, shape or None) of every parameter and buffer, and the state_dict entries."""
    def describe(t):
        lazy = type(t).__name__.startswith("Uninitialized")
        return type(t).__name__, None if lazy else tuple(t.shape), str(t.dtype)
    params = [(n,) + describe(p) for n, p in m.named_parameters()]
    buffers = [(n,) + describe(b) for n, b in m.named_buffers()]
    state = [(k,) + describe(v) for k, v in m.state_dict().items()]
    return params, buffers, state


@pytest.mark.parametrize("name", sorted(CASES))
def test_before_the_first_call_the_layer_holds_placeholders_like_torch(name):
    ours, theirs = _make(lt, name), _make(torch, name)
    assert type(ours).__name__ == type(theirs).__name__
    assert _entries(ours) == _entries(theirs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_first_call_infers_the_shapes_and_becomes_the_plain_layer(name):
    ours, theirs = _make(lt, name), _make(torch, name)
    shape = CASES[name][1]
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    yo, yt = ours(lt.tensor(x)), theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__  # Linear, Conv2d, BatchNorm1d, ...
    assert type(ours).__name__ == name[len("Lazy"):]
    assert _entries(ours) == _entries(theirs)
    assert not ours.has_uninitialized_params() if hasattr(ours, "has_uninitialized_params") else True
    assert repr(ours) == repr(theirs)
    assert tuple(yo.shape) == tuple(yt.shape)
    # With torch's values loaded, the layer computes what torch's does.
    ours.load_state_dict({k: lt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    ours.train(), theirs.train()
    assert_same(ours(lt.tensor(x)), theirs(torch.tensor(x)).detach(), rtol=1e-4, atol=1e-5)
    if name.startswith("Lazy") and "BatchNorm" in name:
        assert_same(ours.running_mean, theirs.running_mean, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_checkpoint_loads_into_a_layer_not_called_yet(name):
    src = _make(torch, name)
    shape = CASES[name][1]
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    src(torch.tensor(x))
    state = {k: lt.tensor(v.numpy()) for k, v in src.state_dict().items()}
    ours, theirs = _make(lt, name), _make(torch, name)
    ours.load_state_dict(state)
    theirs.load_state_dict(src.state_dict())
    assert _entries(ours) == _entries(theirs)
    ours.eval(), theirs.eval()
    assert_same(ours(lt.tensor(x)), theirs(torch.tensor(x)).detach(), rtol=1e-4, atol=1e-5)
    assert type(ours).__name__ == type(theirs).__name__
    assert_same([p.detach() for p in ours.parameters()], [p.detach() for p in theirs.parameters()])


def test_the_parameters_are_the_same_objects_after_the_first_call():
    m = lt.nn.LazyLinear(2)
    w = m.weight
    m(lt.ones(3, 4))
    assert m.weight is w and type(w) is lt.nn.Parameter and w.requires_grad and w.is_leaf
    opt = lt.optim.SGD(m.parameters(), lr=0.1)
    m(lt.ones(3, 4)).sum().backward()
    opt.step()
    assert w.grad.shape == (2, 4)


def test_a_lazy_layer_trains_inside_a_model():
    model = lt.nn.Sequential(lt.nn.LazyConv2d(4, 3, padding=1), lt.nn.LazyBatchNorm2d(), lt.nn.ReLU(),
                             lt.nn.Flatten(), lt.nn.LazyLinear(2))
    x = lt.randn(2, 3, 5, 5)
    model(x)
    assert [type(m).__name__ for m in model] == ["Conv2d", "BatchNorm2d", "ReLU", "Flatten", "Linear"]
    assert model[4].in_features == 100 and model[0].in_channels == 3 and model[1].num_features == 4
    opt = lt.optim.SGD(model.parameters(), lr=0.1)
    before = model[4].weight.detach().clone()
    model(x).sum().backward()
    opt.step()
    assert (model[4].weight - before).abs().sum().item() > 0


@pytest.mark.parametrize("lib", ["lt", "torch"])
def test_bad_first_inputs_raise_what_torch_raises(lib):
    T = lt if lib == "lt" else torch
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
        T.nn.LazyConv2d(4, 3)(T.ones(2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        T.nn.LazyConv2d(4, 3, groups=2)(T.ones(1, 3, 5, 5))


def test_a_layer_not_called_yet_copies_and_pickles_as_a_lazy_layer():
    import copy
    import pickle
    for T in (lt, torch):  # torch 1.13 cannot deepcopy an UninitializedBuffer: LazyLinear only
        m = T.nn.Sequential(T.nn.LazyLinear(3), T.nn.ReLU())
        for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
            assert type(c[0]).__name__ == "LazyLinear"
            assert type(c[0].weight).__name__ == "UninitializedParameter"
            c(T.ones(2, 5))
            assert type(c[0]).__name__ == "Linear" and tuple(c[0].weight.shape) == (3, 5)
        assert type(m[0]).__name__ == "LazyLinear"  # the original is untouched
