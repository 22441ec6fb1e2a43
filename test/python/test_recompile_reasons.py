"""Recompile reasons through lazytensor.debug: why a sync missed the trace cache."""
import os
import subprocess
import sys

import numpy as np

import lazytensor as lt
import lazytensor.debug as debug


def data(*shape, dtype=np.float32):
    return lt.tensor(np.linspace(0, 1, int(np.prod(shape)), dtype=dtype).reshape(shape))


def test_a_new_size_along_one_dim_names_the_input_the_dim_and_both_sizes():
    (data(8, 64).exp() * 3).sum().item()
    before = debug.counter("trace_cache_recompiles")
    (data(8, 65).exp() * 3).sum().item()
    assert debug.recompile_reasons()[-1] == "recompile: input 0 dim 1 was 64, now 65 (f32[8, 65])"
    assert debug.counter("trace_cache_recompiles") == before + 1
    assert debug.counters()["trace_cache_recompiles"] == before + 1


def test_a_dtype_change_names_the_dtype():
    data(5, 3).tanh().sum().item()
    data(5, 3, dtype=np.float64).tanh().sum().item()
    assert debug.recompile_reasons()[-1] == "recompile: dtype of input 0 was f32, now f64"


def test_a_changed_slice_start_names_the_node_and_the_attribute():
    x = data(4, 16)
    x.sin()[:, 3:5].sum().item()
    x.sin()[:, 5:7].sum().item()
    assert debug.recompile_reasons()[-1] == "recompile: node 2 (slice) attribute 2 was 3, now 5"


def test_a_brand_new_program_says_new_program_and_is_not_a_recompile():
    before = debug.counter("trace_cache_recompiles")
    (data(3, 7).cos() - data(3, 7).sigmoid()).abs().amax().item()
    assert debug.recompile_reasons()[-1].startswith("new program (")
    assert debug.counter("trace_cache_recompiles") == before


def test_a_cache_hit_adds_no_reason():
    (data(6, 2).sqrt() + 1).sum().item()
    reasons = debug.recompile_reasons()
    before = debug.counter("trace_cache_recompiles")
    (data(6, 2).sqrt() + 1).sum().item()
    assert debug.recompile_reasons() == reasons
    assert debug.counter("trace_cache_recompiles") == before


def test_the_reasons_are_bounded_and_can_be_cleared():
    for n in range(1, 70):
        data(n).neg().exp().sum().item()
    reasons = debug.recompile_reasons()
    assert len(reasons) == 64
    assert reasons[-1] == "recompile: input 0 dim 0 was 68, now 69 (f32[69])"
    debug.clear_recompile_reasons()
    assert debug.recompile_reasons() == []


def test_lt_debug_1_prints_one_reason_line_per_miss():
    code = (
        "import numpy as np, lazytensor as lt\n"
        "for n in (64, 65, 64):\n"
        "    (lt.tensor(np.ones((8, n), np.float32)).exp() * 2).sum().item()\n"
    )
    env = dict(os.environ, LT_DEBUG="1", PYTHONPATH=os.pathsep.join(sys.path))
    err = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stderr
    lines = [l for l in err.splitlines() if l.startswith("[lt] new program") or l.startswith("[lt] recompile:")]
    assert len(lines) == 2, err
    assert lines[0].startswith("[lt] new program (")
    assert lines[1] == "[lt] recompile: input 0 dim 1 was 64, now 65 (f32[8, 65])"
