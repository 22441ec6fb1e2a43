"""Training-program acceptance: each example runs with `import torch` and with
`import lazytensor as torch`, and the loss curves agree (1e-3 relative)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(example, *flags):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", example), *flags], env=env,
                         capture_output=True, text=True, timeout=900)
    if out.returncode != 0 and "autograd::gradients is not implemented" in out.stderr:
        pytest.skip("autograd is not built into this tree yet")
    assert out.returncode == 0, out.stderr[-3000:]
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


@pytest.mark.parametrize("example,steps", [("mlp_classifier.py", "30"), ("transformer_block.py", "20")])
def test_loss_curve_matches_torch(example, steps):
    ref = run(example, "--torch", "--steps", steps)
    got = run(example, "--steps", steps)
    assert len(got["losses"]) == len(ref["losses"])
    for i, (a, b) in enumerate(zip(got["losses"], ref["losses"])):
        assert abs(a - b) <= 1e-3 * abs(b) + 1e-6, "step %d: lazytensor %r vs torch %r" % (i, a, b)
    assert got["losses"][-1] < got["losses"][0]
    if "trace_cache_misses" in got:
        assert got["trace_cache_misses"] == 0, "steady-state steps must not recompile"
