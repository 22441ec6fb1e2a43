"""optim.Adadelta (PyTorch 1.13 update rule)."""
from .. import _C
from .._functions import enable_grad, no_grad
from .optimizer import Optimizer


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= rho <= 1.0:
            raise ValueError("Invalid rho value: {}".format(rho))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                lr, rho, eps, wd = g["lr"], g["rho"], g["eps"], g["weight_decay"]
                for p in g["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    if g["maximize"]:
                        grad = -grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["square_avg"] = _C.zeros(*p.shape, dtype=p.dtype)
                        state["acc_delta"] = _C.zeros(*p.shape, dtype=p.dtype)
                    state["step"] += 1
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                    std = square_avg.add(eps).sqrt()
                    delta = acc_delta.add(eps).sqrt().div(std).mul(grad)
                    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                    p.add_(delta, alpha=-lr)
        return loss
