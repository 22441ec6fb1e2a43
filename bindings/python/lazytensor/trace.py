"""The fusion lab from Python: load dumped traces, plan, replay, compare, draw,
and register fusion policies written in Python (docs/fusion-lab.md).

    import lazytensor.trace as lab
    t = lab.load("dumps/1f0c....trace")
    print(t.plan("default"))
    lab.register_policy(MyPolicy())
    print(t.compare(["default", "none", "elementwise", "my-policy"]))

Dumps come from running a program with LT_DUMP_DIR=dir (and LT_DUMP_INPUTS=1
to keep the input values beside each trace).
"""
import sys as _sys
import types as _types

from . import _C
from ._linalg import trace as _trace_function

_lab = _C._trace


class FusionPolicy:
    """Base class of a Python fusion policy; override what you want to change.

    The scheduler does the mechanics (one kernel per materialised node, with
    everything below it inlined) and asks the policy only questions of taste.
    """

    name = "python"

    def materialize(self, node):
        """Store this node in its own buffer? `node` is a dict with index, op,
        dtype, shape and inputs (indices of the simplified trace)."""
        return False

    def fuse_reduction_with_consumers(self):
        """May a reduction's result be used per row inside a consumer's kernel?"""
        return True

    def materialize_shared(self, kernels, cost, has_reduction):
        """A node inlined into `kernels` kernels is recomputed in each: store it instead?"""
        return kernels > 1 and (has_reduction or cost >= 12)

    def materialize_repeated(self, times, cost, has_gather):
        """A node inlined `times` times into one kernel at different coordinates (an im2col's taps) is
        computed that many times per element: store it once instead? (docs/cpu-jit.md, "Repeated inlining")"""
        return times >= 3 and (has_gather or cost * (times - 1) >= 24)

    def fuse_siblings(self):
        """May outputs of one shape run as one kernel that stores each (docs/cpu-jit.md, "Sibling kernels")?"""
        return True


def register_policy(policy):
    """Makes `policy` (a FusionPolicy) available under `policy.name` everywhere:
    in plan/run/compare, in lazytensor's own syncs (LT_FUSION), and to tests."""
    _lab.register_policy(policy.name, policy)
    return policy


def policies():
    """Names of every registered policy (built-in and Python)."""
    return list(_lab.policy_names())


class Trace:
    """A dumped trace with its inputs bound (from the .inputs side file, else seeded)."""

    def __init__(self, path):
        self.path = path
        self._t = _lab.load(path)

    @property
    def hash(self):
        return self._t.hash

    def __str__(self):
        return str(self._t)

    def plan(self, policy="default"):
        """Markdown table of the kernels `policy` makes, with bytes and FLOPs."""
        return _lab.plan_table(self._t, policy)

    def run(self, policy="default", backend="cpu", repeat=5):
        """Replays the trace; returns kernels, model bytes/FLOPs, compile_ms,
        run_ms and `mismatch` ("" when it matches the reference evaluator)."""
        return _lab.measure(self._t, backend, policy, repeat)

    def compare(self, policies=None, backend="cpu", repeat=5):
        """One markdown table over `policies` (default: every registered policy)."""
        return _lab.compare_table(self._t, list(policies or _lab.policy_names()), backend, repeat)

    def dot(self, out, policy="default"):
        """Writes a Graphviz picture (.svg via graphviz, or .dot) with one cluster per kernel."""
        _lab.write_picture(_lab.dot(self._t, policy), out)
        return out


def load(path):
    return Trace(path)


class _CallableModule(_types.ModuleType):
    """`lazytensor.trace` is both this module and torch.trace: importing a submodule rebinds the package
    attribute to the module, which would hide torch.trace as soon as anything ran `import lazytensor.trace`.
    So the module is callable: `lazytensor.trace(x)` is torch.trace, `lazytensor.trace.load(...)` (and
    `import lazytensor.trace as lab`) the lab, in either order."""

    def __call__(self, input):
        return _trace_function(input)


_sys.modules[__name__].__class__ = _CallableModule
