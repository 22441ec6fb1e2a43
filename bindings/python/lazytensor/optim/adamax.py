"""optim.Adamax (PyTorch 1.13 update rule)."""
from .. import _C
from .optimizer import Optimizer


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        self._check_hparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def step(self, closure=None):
        return self._step(closure)

    def _init_state(self, g, p, state):
        self._new_state(state, p, "exp_avg", "exp_inf")

    def _update(self, g, p, grad, state):
        beta1, beta2 = g["betas"]
        n = state["step"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_inf.copy_(_C.maximum(exp_inf * beta2, grad.abs().add(g["eps"])))
        clr = g["lr"] / (1 - beta1 ** n)  # host-side bias correction: a runtime scalar
        p.addcdiv_(exp_avg, exp_inf, value=-clr)
