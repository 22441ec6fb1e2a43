"""The fusion lab from Python: load a dumped training step, register a policy
written in Python, and compare it with the built-in ones (docs/fusion-lab.md)."""
import os

import lazytensor.trace as lab

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
MLP = os.path.join(ROOT, "test", "data", "traces", "mlp_step.trace")


class MaterializeEveryReduction(lab.FusionPolicy):
    """Stores every reduction: the opposite of the default's row fusion."""
    name = "py-store-reductions"

    def materialize(self, node):
        return node["op"].startswith("reduce_") or node["op"] in ("argmax", "argmin")

    def fuse_reduction_with_consumers(self):
        return False


def test_python_policy_appears_in_the_compare_table_next_to_the_builtins():
    lab.register_policy(MaterializeEveryReduction())
    assert "py-store-reductions" in lab.policies()
    t = lab.load(MLP)
    table = t.compare(["default", "none", "elementwise", "py-store-reductions"], repeat=1)
    for name in ("default", "none", "elementwise", "py-store-reductions"):
        assert "| %s |" % name in table
    assert "MISMATCH" not in table and table.count("| yes |") == 4


def test_python_policy_changes_the_plan_and_keeps_results_right():
    lab.register_policy(MaterializeEveryReduction())
    t = lab.load(MLP)
    ours = t.run("py-store-reductions", repeat=1)
    default = t.run("default", repeat=1)
    assert ours["mismatch"] == "" and default["mismatch"] == ""
    assert ours["kernels"] > default["kernels"]
    assert "kernels over" in t.plan("py-store-reductions")


class NoSiblings(lab.FusionPolicy):
    """The default's choices, but every output in a kernel of its own."""
    name = "py-no-siblings"

    def fuse_siblings(self):
        return False


def test_a_python_policy_can_turn_sibling_kernels_off():
    lab.register_policy(NoSiblings())
    t = lab.load(MLP)
    ours, default = t.run("py-no-siblings", repeat=1), t.run("default", repeat=1)
    assert ours["mismatch"] == "" and default["mismatch"] == ""
    assert ours["kernels"] > default["kernels"]  # the MLP step's bias gradients and updates split again


class RecomputeRepeats(lab.FusionPolicy):
    """The default's choices, but a node an im2col's taps read is recomputed by each tap."""
    name = "py-recompute-repeats"

    def materialize_repeated(self, times, cost, has_gather):
        return False


def test_a_python_policy_decides_repeated_inlining(tmp_path):
    import numpy as np
    import lazytensor as lt
    F = lt.nn.functional
    rng = np.random.default_rng(0)
    x = lt.from_numpy(rng.standard_normal((2, 3, 12, 12)).astype(np.float32))
    lt.sync(x)
    lt.debug.set_dump_dir(str(tmp_path))
    try:
        # unfold (im2col) reads a gather at 9 taps (conv2d is a primitive whose input is stored; a max pool's
        # values are a reduction, not a gather)
        idx = lt.from_numpy(rng.integers(0, 12, (2, 3, 12, 12)))
        lt.sync(F.unfold(x.gather(3, idx), 3, padding=1))
    finally:
        lt.debug.set_dump_dir(None)
    (dumped,) = [f for f in os.listdir(str(tmp_path)) if f.endswith(".trace")]
    lab.register_policy(RecomputeRepeats())
    t = lab.load(os.path.join(str(tmp_path), dumped))
    ours, default = t.run("py-recompute-repeats", repeat=1), t.run("default", repeat=1)
    assert ours["mismatch"] == "" and default["mismatch"] == ""
    assert default["kernels"] == ours["kernels"] + 1  # the default stores the pooled values once
