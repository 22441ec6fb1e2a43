"""optim.Adagrad (PyTorch 1.13 update rule: lr_decay, weight_decay, initial_accumulator_value, eps, maximize).

Dense gradients only (lazytensor has no sparse tensors).
"""
from .. import _C
from .._functions import enable_grad, no_grad
from .optimizer import Optimizer


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= lr_decay:
            raise ValueError("Invalid lr_decay value: {}".format(lr_decay))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: {}".format(initial_accumulator_value))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize))
        # As in PyTorch, the state exists from construction on.
        for g in self.param_groups:
            for p in g["params"]:
                state = self.state[p]
                state["step"] = 0
                state["sum"] = _C.full(tuple(p.shape), float(initial_accumulator_value), dtype=p.dtype)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                lr, lr_decay, eps, wd = g["lr"], g["lr_decay"], g["eps"], g["weight_decay"]
                for p in g["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    if g["maximize"]:
                        grad = -grad
                    state = self.state[p]
                    state["step"] += 1
                    n = state["step"]
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    clr = lr / (1 + (n - 1) * lr_decay)  # a runtime scalar: no recompile per step
                    state_sum = state["sum"]
                    state_sum.addcmul_(grad, grad, value=1)
                    std = state_sum.sqrt().add(eps)
                    p.addcdiv_(grad, std, value=-clr)
        return loss
