"""CUDA requests on a machine without a CUDA device, against torch 1.13's CPU build: every request for a CUDA
tensor raises torch's exception type (AssertionError) with a message saying no CUDA device is available, never a
silent CPU tensor; the torch.cuda queries answer as torch's do; device="cpu" keeps working."""
import numpy as np
import pytest
import torch

import lazytensor as lt

NO_DEVICE = "no CUDA device is available"


def outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return "raised", e


def assert_both_refuse(make):
    """make(module) requests a CUDA tensor; torch's CPU build and lazytensor must both raise, ours an instance
    of torch's exception type that says why."""
    kind, ref = outcome(lambda: make(torch))
    assert kind == "raised", "torch did not raise: %r" % (ref,)
    assert type(ref) is AssertionError and "CUDA" in str(ref), ref  # "Torch not compiled with CUDA enabled"
    with pytest.raises(type(ref)) as info:
        make(lt)
    assert NO_DEVICE in str(info.value)
    assert isinstance(info.value, lt.cuda.NoCudaDeviceError)
    assert isinstance(info.value, RuntimeError)  # what a CUDA build of torch without a GPU raises


CUDA_DEVICES = ["'cuda'", "'cuda:0'", "'cuda:1'", "torch.device('cuda')", "torch.device('cuda', 0)", "0"]


def dev(m, spelling):
    return eval(spelling, {"torch": m})


CREATIONS = {
    "zeros": lambda m, d: m.zeros(3, device=d),
    "ones": lambda m, d: m.ones(2, 3, device=d),
    "empty": lambda m, d: m.empty(3, device=d),
    "full": lambda m, d: m.full((2,), 1.5, device=d),
    "rand": lambda m, d: m.rand(3, device=d),
    "randn": lambda m, d: m.randn(3, device=d),
    "randint": lambda m, d: m.randint(0, 5, (3,), device=d),
    "randperm": lambda m, d: m.randperm(4, device=d),
    "arange": lambda m, d: m.arange(3, device=d),
    "linspace": lambda m, d: m.linspace(0, 1, 5, device=d),
    "logspace": lambda m, d: m.logspace(0, 1, 5, device=d),
    "eye": lambda m, d: m.eye(3, device=d),
    "tensor": lambda m, d: m.tensor([1.0, 2.0], device=d),
    "tensor_of_tensor": lambda m, d: m.tensor(m.ones(2), device=d),
    "as_tensor": lambda m, d: m.as_tensor([1, 2], device=d),
    "as_tensor_ndarray": lambda m, d: m.as_tensor(np.ones(2, np.float32), device=d),
    "asarray": lambda m, d: m.asarray([1, 2], device=d),
    "scalar_tensor": lambda m, d: m.scalar_tensor(1.0, device=d),
    "zeros_like": lambda m, d: m.zeros_like(m.ones(2), device=d),
    "ones_like": lambda m, d: m.ones_like(m.ones(2), device=d),
    "empty_like": lambda m, d: m.empty_like(m.ones(2), device=d),
    "full_like": lambda m, d: m.full_like(m.ones(2), 3.0, device=d),
    "rand_like": lambda m, d: m.rand_like(m.ones(2), device=d),
    "randn_like": lambda m, d: m.randn_like(m.ones(2), device=d),
    "randint_like": lambda m, d: m.randint_like(m.ones(2), 5, device=d),
    "tril_indices": lambda m, d: m.tril_indices(3, 3, device=d),
    "triu_indices": lambda m, d: m.triu_indices(3, 3, device=d),
    "new_zeros": lambda m, d: m.ones(2).new_zeros(3, device=d),
    "new_ones": lambda m, d: m.ones(2).new_ones(3, device=d),
    "new_full": lambda m, d: m.ones(2).new_full((3,), 2.0, device=d),
    "new_tensor": lambda m, d: m.ones(2).new_tensor([1.0], device=d),
}


@pytest.mark.parametrize("spelling", CUDA_DEVICES)
@pytest.mark.parametrize("name", sorted(CREATIONS))
def test_creation_on_cuda_raises_as_torch(name, spelling):
    assert_both_refuse(lambda m: CREATIONS[name](m, dev(m, spelling)))


@pytest.mark.parametrize("name", sorted(CREATIONS))
@pytest.mark.parametrize("spelling", ["'cpu'", "'cpu:0'", "torch.device('cpu')", "None"])
def test_creation_on_cpu_keeps_working(name, spelling):
    ours = CREATIONS[name](lt, dev(lt, spelling))
    ref = CREATIONS[name](torch, dev(torch, spelling))
    assert ours.device == lt.device("cpu") and str(ours.device) == str(ref.device) == "cpu"
    assert ours.is_cuda is ref.is_cuda is False
    assert tuple(ours.shape) == tuple(ref.shape)


MOVES = {
    "cuda()": lambda m: m.ones(2).cuda(),
    "cuda(0)": lambda m: m.ones(2).cuda(0),
    "cuda(device)": lambda m: m.ones(2).cuda(m.device("cuda:1")),
    "to('cuda')": lambda m: m.ones(2).to("cuda"),
    "to('cuda:0')": lambda m: m.ones(2).to("cuda:0"),
    "to(0)": lambda m: m.ones(2).to(0),
    "to(device object)": lambda m: m.ones(2).to(m.device("cuda")),
    "to(device=)": lambda m: m.ones(2).to(device="cuda"),
    "to(device, dtype)": lambda m: m.ones(2).to("cuda", m.float64),
    "to(device=, dtype=)": lambda m: m.ones(2).to(device="cuda", dtype=m.float64),
    "to(device, non_blocking)": lambda m: m.ones(2).to("cuda", non_blocking=True),
    "Linear.to('cuda')": lambda m: m.nn.Linear(2, 2).to("cuda"),
    "Linear.to(device=)": lambda m: m.nn.Linear(2, 2).to(device=m.device("cuda")),
    "Linear.to(device, dtype)": lambda m: m.nn.Linear(2, 2).to("cuda", m.float64),
    "Linear.cuda()": lambda m: m.nn.Linear(2, 2).cuda(),
    "Sequential.cuda(0)": lambda m: m.nn.Sequential(m.nn.Linear(2, 2), m.nn.ReLU()).cuda(0),
    "optimizer on moved parameters": lambda m: m.optim.SGD(m.nn.Linear(2, 2).to("cuda").parameters(), lr=0.1),
}


@pytest.mark.parametrize("name", sorted(MOVES))
def test_moving_to_cuda_raises_as_torch(name):
    assert_both_refuse(MOVES[name])


CONSTRUCTORS = {
    "Linear": lambda m, d: m.nn.Linear(2, 2, device=d),
    "Conv2d": lambda m, d: m.nn.Conv2d(1, 2, 3, device=d),
    "Embedding": lambda m, d: m.nn.Embedding(4, 2, device=d),
    "LayerNorm": lambda m, d: m.nn.LayerNorm(4, device=d),
    "BatchNorm1d": lambda m, d: m.nn.BatchNorm1d(4, device=d),
    "GroupNorm": lambda m, d: m.nn.GroupNorm(2, 4, device=d),
    "PReLU": lambda m, d: m.nn.PReLU(device=d),
    "LSTM": lambda m, d: m.nn.LSTM(2, 3, device=d),
    "GRUCell": lambda m, d: m.nn.GRUCell(2, 3, device=d),
    "MultiheadAttention": lambda m, d: m.nn.MultiheadAttention(4, 2, device=d),
    "TransformerEncoderLayer": lambda m, d: m.nn.TransformerEncoderLayer(4, 2, 8, device=d),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_modules_built_on_cuda_raise_as_torch(name):
    assert_both_refuse(lambda m: CONSTRUCTORS[name](m, "cuda"))


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_modules_built_on_the_cpu_keep_working(name):
    for d in ("cpu", lt.device("cpu")):
        module = CONSTRUCTORS[name](lt, d)
        assert all(p.device == lt.device("cpu") for p in module.parameters())


def test_a_refused_module_move_leaves_the_module_usable_on_the_cpu():
    model = lt.nn.Linear(2, 2)
    before = model.weight.detach().numpy().copy()
    with pytest.raises(AssertionError):
        model.to("cuda")
    assert model.weight.device == lt.device("cpu")
    np.testing.assert_array_equal(model.weight.detach().numpy(), before)
    opt = lt.optim.SGD(model.parameters(), lr=0.1)
    model(lt.ones(1, 2)).sum().backward()
    opt.step()
    assert model.weight.device == lt.device("cpu")


CPU_MOVES = {
    "cpu()": lambda m: m.ones(2).cpu(),
    "to('cpu')": lambda m: m.ones(2).to("cpu"),
    "to('cpu:0')": lambda m: m.ones(2).to("cpu:0"),
    "to(device('cpu'))": lambda m: m.ones(2).to(m.device("cpu")),
    "to(device=, dtype=)": lambda m: m.ones(2).to(device="cpu", dtype=m.float64),
    "to(other tensor)": lambda m: m.ones(2).to(m.zeros(1, dtype=m.int64)),
    "to(dtype)": lambda m: m.ones(2).to(m.int32),
}


@pytest.mark.parametrize("name", sorted(CPU_MOVES))
def test_moving_to_the_cpu_keeps_working(name):
    ours, ref = CPU_MOVES[name](lt), CPU_MOVES[name](torch)
    assert str(ours.device) == str(ref.device) == "cpu"
    assert repr(ours.dtype) == repr(ref.dtype)
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_modules_move_to_the_cpu_and_keep_training():
    model = lt.nn.Linear(2, 2).to("cpu").to(lt.device("cpu")).cpu().to("cpu", lt.float64)
    assert model.weight.dtype == lt.float64 and model.weight.device == lt.device("cpu")
    model.to(lt.zeros(1, dtype=lt.float32))
    assert model.weight.dtype == lt.float32


def test_tensor_device_and_is_cuda_match_torch():
    for m in (torch, lt):
        t = m.ones(2)
        assert t.is_cuda is False and t.get_device() == -1
        assert repr(t.device) == "device(type='cpu')" and str(t.device) == "cpu"
        assert t.device == m.device("cpu") and t.device.type == "cpu" and t.device.index is None


@pytest.mark.parametrize("spelling", ["cuda", "cuda:0", "cuda:3", "cpu", "cpu:0"])
def test_device_objects_parse_as_torch(spelling):
    ours, ref = lt.device(spelling), torch.device(spelling)
    assert (ours.type, ours.index, str(ours), repr(ours)) == (ref.type, ref.index, str(ref), repr(ref))


def test_device_from_type_and_index_and_from_an_ordinal_as_torch():
    for args in (("cuda", 1), (0,), (2,)):
        ours, ref = lt.device(*args), torch.device(*args)
        assert (ours.type, ours.index) == (ref.type, ref.index)


@pytest.mark.parametrize("spelling", ["cuda:x", "cuda:-1", "gpu", "cuda:"])
def test_bad_device_strings_raise_as_torch(spelling):
    with pytest.raises(RuntimeError) as ref:
        torch.device(spelling)
    with pytest.raises(type(ref.value)):
        lt.device(spelling)


# ---- torch.cuda queries, each against torch's CPU build ----

QUERIES = ["is_available", "is_initialized", "device_count", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "max_memory_reserved", "memory_stats", "empty_cache", "seed", "seed_all"]


@pytest.mark.parametrize("name", QUERIES)
def test_cuda_queries_answer_as_torch(name):
    ours, ref = getattr(lt.cuda, name)(), getattr(torch.cuda, name)()
    assert ours == ref and type(ours) is type(ref)


@pytest.mark.parametrize("name", ["manual_seed", "manual_seed_all"])
def test_cuda_seeding_is_a_no_op_as_torch(name):
    assert getattr(lt.cuda, name)(7) is getattr(torch.cuda, name)(7) is None
    assert lt.rand(3).shape == (3,)


@pytest.mark.parametrize("name", ["synchronize", "current_device", "get_device_name", "get_device_capability",
                                  "initial_seed", "get_rng_state"])
def test_cuda_calls_that_need_a_device_raise_as_torch(name):
    assert_both_refuse(lambda m: getattr(m.cuda, name)())


@pytest.mark.parametrize("name,args", [("get_device_name", (0,)), ("get_device_properties", (0,)),
                                       ("synchronize", ("cuda:0",))])
def test_cuda_calls_with_a_device_argument_raise_as_torch(name, args):
    assert_both_refuse(lambda m: getattr(m.cuda, name)(*args))


@pytest.mark.parametrize("name", ["reset_peak_memory_stats", "set_device"])
def test_cuda_calls_torch_cpu_build_lacks_say_there_is_no_device(name):
    # torch's CPU build fails here with an AttributeError from its missing binding; ours says why.
    with pytest.raises(AttributeError):
        getattr(torch.cuda, name)(*(() if name != "set_device" else (0,)))
    with pytest.raises(AssertionError, match=NO_DEVICE):
        getattr(lt.cuda, name)(*(() if name != "set_device" else (0,)))


def test_mixed_device_error_names_both_devices():
    # Unreachable with CPU tensors only; the check the cuda backend's operands will go through.
    from lazytensor._device import check_same_device
    check_same_device("add", lt.device("cpu"), lt.device("cpu"))
    with pytest.raises(RuntimeError, match=r"at least two devices, cpu and cuda:0"):
        check_same_device("add", lt.device("cuda:0"), lt.device("cpu"))
    with pytest.raises(RuntimeError) as ref:
        torch.ones(2) + torch.ones(2, device="meta")
    assert "Expected all tensors to be on the same device, but found at least two devices" in str(ref.value)


def test_meta_tensors_are_refused():
    with pytest.raises(NotImplementedError):
        lt.zeros(2, device="meta")
