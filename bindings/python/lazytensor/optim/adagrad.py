"""optim.Adagrad (PyTorch 1.13 update rule: lr_decay, weight_decay, initial_accumulator_value, eps, maximize).

Dense gradients only (lazytensor has no sparse tensors).
"""
from .optimizer import Optimizer


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        self._check_hparams(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                            initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize))
        # As in PyTorch, the state exists from construction on (so there is no _init_state).
        for g in self.param_groups:
            for p in g["params"]:
                state = self.state[p]
                state["step"] = 0
                state["sum"] = self._stored_full(p, float(initial_accumulator_value))

    def step(self, closure=None):
        return self._step(closure)

    def _update(self, g, p, grad, state):
        n = state["step"]
        clr = g["lr"] / (1 + (n - 1) * g["lr_decay"])  # a runtime scalar: no recompile per step
        state_sum = state["sum"]
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add(g["eps"])
        p.addcdiv_(grad, std, value=-clr)
