"""ParameterDict (nn/modules/container.py) vs PyTorch 1.13, and a training step through the newer
layers that compiles once."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import seeded


def test_parameter_dict():
    w = np.ones((2, 2), np.float32)
    ld = lt.nn.ParameterDict({"b": lt.from_numpy(w), "a": lt.nn.Parameter(lt.zeros(3))})
    td = torch.nn.ParameterDict({"b": torch.from_numpy(w), "a": torch.nn.Parameter(torch.zeros(3))})
    assert list(ld.keys()) == list(td.keys()) == ["a", "b"]  # a plain dict is taken in sorted order
    assert isinstance(ld["b"], lt.nn.Parameter) and ld["b"].requires_grad
    assert [k for k, _ in ld.named_parameters()] == [k for k, _ in td.named_parameters()]
    ld["c"] = lt.ones(1)
    td["c"] = torch.ones(1)
    ld.update([("d", lt.ones(2))])
    td.update([("d", torch.ones(2))])
    assert list(ld) == list(td) and len(ld) == len(td) == 4 and "c" in ld and "z" not in ld
    assert repr(ld) == repr(td)
    assert ld.pop("c").shape == (1,) and "c" not in ld and ld.get("c") is None
    assert ld.setdefault("e", lt.ones(1)) is ld["e"]
    assert sorted(ld.state_dict()) == ["a", "b", "d", "e"]
    k, v = ld.popitem()
    assert k == "e"
    m = lt.nn.Module()
    m.pd = ld
    assert [n for n, _ in m.named_parameters()] == ["pd.a", "pd.b", "pd.d"]
    assert list((ld | lt.nn.ParameterDict({"z": lt.ones(1)})).keys()) == ["a", "b", "d", "z"]
    ld.clear()
    assert len(ld) == 0 and list(ld.parameters()) == []
    with pytest.raises(TypeError):
        ld[1] = lt.ones(1)
    with pytest.raises(TypeError):
        td[1] = torch.ones(1)
    with pytest.raises(ValueError):
        ld.update([("a", lt.ones(1), 3)])
    with pytest.raises(RuntimeError):
        ld(lt.ones(1))


def test_parameter_dict_trains():
    ld = lt.nn.ParameterDict({"w": lt.ones(3)})
    opt = lt.optim.SGD(ld.parameters(), lr=0.5)
    (ld["w"] * lt.tensor([1.0, 2.0, 3.0])).sum().backward()
    opt.step()
    np.testing.assert_allclose(ld["w"].detach().numpy(), [0.5, 0.0, -0.5])


def test_training_step_with_new_modules_compiles_once():
    lt.manual_seed(0)
    model = lt.nn.Sequential(lt.nn.Linear(4, 6), lt.nn.PReLU(), lt.nn.Linear(6, 4), lt.nn.GLU(), lt.nn.Hardswish(),
                             lt.nn.Linear(2, 3), lt.nn.LogSigmoid())
    opt = lt.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
    x = lt.from_numpy(seeded(5, 4, seed=60))
    y = lt.from_numpy(seeded(5, 3, seed=61))
    misses = []
    for _ in range(5):
        before = lt.debug.counters()["trace_cache_misses"]
        opt.zero_grad()
        loss = lt.nn.functional.huber_loss(model(x), y) + lt.nn.functional.cosine_similarity(model(x), y).mean()
        loss.backward()
        opt.step()
        loss.item()
        for p in model.parameters():
            p.detach().numpy()
        misses.append(lt.debug.counters()["trace_cache_misses"] - before)
    assert misses[2:] == [0, 0, 0], misses
