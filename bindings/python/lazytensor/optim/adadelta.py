"""optim.Adadelta (PyTorch 1.13 update rule)."""
from .optimizer import Optimizer


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        self._check_hparams(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach))

    def step(self, closure=None):
        return self._step(closure)

    def _init_state(self, g, p, state):
        self._new_state(state, p, "square_avg", "acc_delta")

    def _update(self, g, p, grad, state):
        rho, eps = g["rho"], g["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt()
        delta = acc_delta.add(eps).sqrt().div(std).mul(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-g["lr"])
