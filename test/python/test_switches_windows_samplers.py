"""Start-up switches, window functions and in-place samplers, against PyTorch 1.13."""
import numpy as np
import pytest

from conftest import assert_same, lt, torch

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_values(name, periodic, dtype):
    for n in (0, 1, 2, 5, 16, 101):
        ours = getattr(lt, name)(n, periodic, dtype=getattr(lt, dtype))
        theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
        assert_same(ours, theirs, rtol=1e-5, atol=1e-6)


def test_window_default_dtype_and_keywords():
    assert_same(lt.hann_window(8), torch.hann_window(8))
    assert_same(lt.hamming_window(7, True, 0.5, 0.5), torch.hamming_window(7, True, 0.5, 0.5))
    assert_same(lt.kaiser_window(9, True, 5.0), torch.kaiser_window(9, True, 5.0), atol=1e-6)


@pytest.mark.parametrize("bad", [-1, "int dtype"])
def test_window_bad_arguments_raise_as_torch(bad):
    for T in (lt, torch):
        with pytest.raises(RuntimeError):
            if bad == -1:
                T.hann_window(-1)
            else:
                T.hann_window(4, dtype=T.int64)


def _switch_states(T):
    out = []
    T.use_deterministic_algorithms(True)
    out += [T.are_deterministic_algorithms_enabled(), T.get_deterministic_debug_mode()]
    T.use_deterministic_algorithms(True, warn_only=True)
    out += [T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode()]
    T.set_deterministic_debug_mode("error")
    out += [T.get_deterministic_debug_mode(), T.is_deterministic_algorithms_warn_only_enabled()]
    T.set_deterministic_debug_mode(0)
    out += [T.are_deterministic_algorithms_enabled()]
    T.set_float32_matmul_precision("high")
    out += [T.get_float32_matmul_precision()]
    T.set_float32_matmul_precision("highest")
    T.set_warn_always(True)
    out += [T.is_warn_always_enabled()]
    T.set_warn_always(False)
    T.set_anomaly_enabled(True, False)
    out += [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()]
    T.set_anomaly_enabled(False)
    out += [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()]
    return out


def test_global_switches_report_what_was_set():
    assert _switch_states(lt) == _switch_states(torch)


def test_bad_deterministic_debug_mode_raises_as_torch():
    for T in (lt, torch):
        with pytest.raises(RuntimeError, match="debug_mode"):
            T.set_deterministic_debug_mode("bad")
        with pytest.raises(TypeError):
            T.use_deterministic_algorithms(1)


def test_set_default_tensor_type():
    for T in (lt, torch):
        T.set_default_tensor_type("torch.FloatTensor")
        T.set_default_tensor_type(T.FloatTensor)
        assert T.get_default_dtype() == T.float32 and T.ones(1).dtype == T.float32
        with pytest.raises(TypeError):
            T.set_default_tensor_type(T.LongTensor)


def test_set_default_tensor_type_double_is_refused_as_set_default_dtype():
    # lazytensor's default floating dtype stays float32 (set_default_dtype(float64) raises the same way).
    with pytest.raises(NotImplementedError, match="float32"):
        lt.set_default_tensor_type(lt.DoubleTensor)
    assert lt.get_default_dtype() == lt.float32


N = 40000


@pytest.mark.parametrize("args", [(3, 7), (5,)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int32"])
def test_random_takes_every_value_of_the_range(args, dtype):
    seen = [T.empty(N, dtype=getattr(T, dtype)).random_(*args).unique().tolist() for T in (lt, torch)]
    assert seen[0] == seen[1]


def test_random_without_bounds_stays_within_torchs_default():
    for dtype, top in (("float32", 2 ** 24), ("int32", 2 ** 31 - 1)):
        x = lt.empty(N, dtype=getattr(lt, dtype)).random_()
        assert x.min().item() >= 0 and x.max().item() <= top and x.max().item() > top // 2


@pytest.mark.parametrize("sampler,args,stat", [
    ("exponential_", (2.0,), lambda x: x.mean()),
    ("log_normal_", (0.5, 0.4), lambda x: x.log().std()),
    ("log_normal_", (0.5, 0.4), lambda x: x.log().mean()),
    ("geometric_", (0.3,), lambda x: x.mean()),
    ("cauchy_", (1.0, 2.0), lambda x: x.median()),
])
def test_sampler_statistics_match_torch(sampler, args, stat):
    vals = [stat(getattr(T.empty(N, dtype=T.float64), sampler)(*args)).item() for T in (lt, torch)]
    assert vals[0] == pytest.approx(vals[1], rel=0.05, abs=0.05)


def test_geometric_draws_are_positive_integers():
    x = lt.empty(N).geometric_(0.5)
    assert x.min().item() >= 1 and bool((x == x.round()).all())


@pytest.mark.parametrize("call", [lambda T: T.empty(3).exponential_(-1.0), lambda T: T.empty(3).geometric_(1.5),
                                  lambda T: T.empty(3).log_normal_(0.0, -1.0), lambda T: T.empty(3).random_(5, 2)])
def test_sampler_bad_parameters_raise_as_torch(call):
    for T in (lt, torch):
        with pytest.raises(RuntimeError):
            call(T)
