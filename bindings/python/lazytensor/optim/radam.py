"""optim.RAdam (PyTorch 1.13 update rule).

PyTorch switches from the plain to the rectified update once rho_t > 5 (step 6
with the default betas). Branching on that in Python would record a second
trace at the switch; instead both updates are one expression blended by a
runtime scalar `rect_on` in {0, 1}, so every step after the first is one
cached trace. The blend is exact: the unused term is multiplied by 0.0 and
it is finite (eps > 0; with eps == 0 the two branches are recorded separately).
"""
import math

from .optimizer import Optimizer


class RAdam(Optimizer):
    _maximize = False  # PyTorch 1.13's RAdam has no maximize

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None):
        self._check_hparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach))

    def step(self, closure=None):
        return self._step(closure)

    def _init_state(self, g, p, state):
        self._new_state(state, p, "exp_avg", "exp_avg_sq")

    def _update(self, g, p, grad, state):
        beta1, beta2 = g["betas"]
        lr, eps = g["lr"], g["eps"]
        n = state["step"]
        bias_correction1 = 1 - beta1 ** n
        bias_correction2 = 1 - beta2 ** n
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_avg = exp_avg * (lr / bias_correction1)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * n * (beta2 ** n) / bias_correction2
        on = rho_t > 5.
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) \
            if on else 0.0
        if eps > 0:
            # step_avg * (on * rect * sqrt(bc2) / (sqrt(v) + eps) + (1 - on))
            adaptive = exp_avg_sq.sqrt().add(eps).reciprocal()
            scale = adaptive * (rect * math.sqrt(bias_correction2) if on else 0.0) + (0.0 if on else 1.0)
            p.sub_(step_avg * scale)
        elif on:
            adaptive = math.sqrt(bias_correction2) / exp_avg_sq.sqrt().add(eps)
            p.sub_(step_avg * adaptive * rect)
        else:
            p.sub_(step_avg)
