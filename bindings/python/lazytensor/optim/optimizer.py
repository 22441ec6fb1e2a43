"""optim.Optimizer: param groups, per-parameter state, zero_grad, state_dict.

Also the frame the optimizers share (PyTorch 1.13 rules): the hyper-parameter
checks (_check, _check_hparams) and step() (_step), so each optimizer only
writes its update rule (_update) and its fresh state (_init_state, _new_state).

step() ends in one sync (_realize_step) that computes every pending tensor,
as torch._lazy's mark_step: the step's forward, backward and update are one
trace, and when step() returns the parameters and the state are stored
buffers. Left pending, the update would run in whatever syncs next (the next
step's `loss.item()`), so step k's trace would hold step k-1's backward and
update, and a loop would compile three different traces (no state, pending
state, stored state) before it settles. Ending the step here, step 2's trace
is the steady one; with the state created as stored zeros (_new_state),
Adam's step 1 already is. The loss is computed in the same sync, so
`loss.item()` after step() reads a stored value.
"""
from collections import defaultdict
from copy import deepcopy

import numpy as np

from .. import _C
from .._C import Tensor
from ..autograd.grad_mode import enable_grad, no_grad

# Labels of PyTorch's "Invalid <label>: <value>" messages; any other name reads "<name> value".
_LABELS = {"lr": "learning rate", "eps": "epsilon value"}


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    # Switches of the shared step frame (_step), for the optimizers whose PyTorch rule differs.
    _maximize = True                  # negate the gradient when group["maximize"] (NAdam, RAdam have none)
    _decoupled_weight_decay = False   # True: no L2 term on the gradient, the update decays p itself (AdamW)
    _counts_steps = True              # state["step"] += 1 before each update (SGD keeps no step count)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, _C.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + type(params).__name__)
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, _C.Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            if v is required and k not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " + k)
            param_group.setdefault(k, v)
        existing = set()
        for g in self.param_groups:
            existing.update(id(p) for p in g["params"])
        if any(id(p) in existing for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=False):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    @staticmethod
    def _check(label, value, ok):
        """PyTorch's hyper-parameter check: ValueError("Invalid <label>: <value>") unless ok."""
        if not ok:
            raise ValueError("Invalid {}: {}".format(label, value))

    @staticmethod
    def _check_hparams(**values):
        """The usual checks, in the order given: betas each in [0, 1), rho in [0, 1], anything else >= 0.

        The comparisons are PyTorch's (`not 0.0 <= x`), so NaN is rejected and a
        non-number raises the same TypeError as there.
        """
        for name, value in values.items():
            if name == "betas":
                for i in (0, 1):
                    Optimizer._check("beta parameter at index {}".format(i), value[i], 0.0 <= value[i] < 1.0)
            elif name == "rho":
                Optimizer._check("rho value", value, 0.0 <= value <= 1.0)
            else:
                Optimizer._check(_LABELS.get(name, name + " value"), value, 0.0 <= value)

    def _uses_state(self, group):
        """Whether the params of this group get a self.state entry (SGD: only with momentum)."""
        return True

    def _init_state(self, group, p, state):
        """Fill the empty state of p before its first update (default: nothing)."""

    @staticmethod
    def _stored_full(p, value):
        """A stored (not pending) tensor shaped like p filled with value: state that is an input of the first
        step's trace as it is of every later one, so that step 1 and step 2 are one trace."""
        return _C.from_numpy(np.full(tuple(p.shape), value, dtype=_C._numpy_name(p.dtype)))

    @staticmethod
    def _new_state(state, p, *buffers, **scalars):
        """A fresh state: step 0, then the scalars, then a stored zero tensor shaped like p per buffer name
        (None: skipped).

        The key order is the state_dict()'s, as in PyTorch.
        """
        state["step"] = 0
        state.update(scalars)
        for name in buffers:
            if name is not None:
                state[name] = Optimizer._stored_full(p, 0)

    def _update(self, group, p, grad, state):
        raise NotImplementedError

    def _step(self, closure=None):
        """The step() frame: closure under enable_grad, then, under no_grad, for each param with a gradient:
        negate it for maximize, fetch (and on first use initialise) its state, count the step, add the L2
        weight decay, and call self._update(group, p, grad, state) (state None where _uses_state is False).

        Everything here is host bookkeeping or a lazy op, up to the one sync at the end (_realize_step).
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                wd, uses_state = group["weight_decay"], self._uses_state(group)
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    if self._maximize and group["maximize"]:
                        grad = -grad
                    state = None
                    if uses_state:
                        state = self.state[p]
                        if len(state) == 0:
                            self._init_state(group, p, state)
                        if self._counts_steps:
                            state["step"] += 1
                    if wd != 0 and not self._decoupled_weight_decay:
                        grad = grad.add(p, alpha=wd)
                    self._update(group, p, grad, state)
        self._realize_step()
        return loss

    def _realize_step(self):
        """Computes every pending tensor in one sync (see the module docstring).

        The parameters, their state and gradients are the trace's first outputs, in the groups' order, so
        the trace does not depend on when each tensor was created (lazytensor.sync() lists the newest first;
        the state is made in step 1 after that step's gradients). A pending tensor of the program's that
        fails there (an index out of range) is not this step's error: it raises when it is used, as after an
        automatic sync. The optimizer's own tensors' errors raise here.
        """
        own = []
        for g in self.param_groups:
            for p in g["params"]:
                own.append(p)
                if p.grad is not None:
                    own.append(p.grad)
                own.extend(t for t in self.state.get(p, {}).values() if isinstance(t, Tensor))
        _C._sync_step(own)

    def state_dict(self):
        index = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        state_dict = deepcopy(state_dict)
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        id_map = {}
        for g, saved in zip(self.param_groups, groups):
            if len(g["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
            for p, i in zip(g["params"], saved["params"]):
                id_map[i] = p
            for k, v in saved.items():
                if k != "params":
                    g[k] = v
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            if i in id_map:
                # torch keeps the step count as a 0-d tensor; the optimizers here keep a host int
                step = s.get("step")
                if isinstance(step, Tensor) and step.dim() == 0:
                    s["step"] = int(step.item())
                self.state[id_map[i]] = s

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += "\nParameter Group {}".format(i)
            for k in sorted(g):
                if k != "params":
                    s += "\n    {}: {}".format(k, g[k])
        return s + "\n)"
