"""optim.NAdam (PyTorch 1.13 update rule, momentum_decay).

PyTorch keeps mu_product as a float32 tensor and reads it with .item() every
step; here it is a host float rounded to float32 the same way, so the update's
scalars are runtime scalars (no sync, no recompile) with PyTorch's values.
"""
import numpy as np

from .optimizer import Optimizer


class NAdam(Optimizer):
    _maximize = False  # PyTorch 1.13's NAdam has no maximize

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        self._check_hparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, foreach=foreach))

    def step(self, closure=None):
        return self._step(closure)

    def _init_state(self, g, p, state):
        self._new_state(state, p, "exp_avg", "exp_avg_sq", mu_product=1.0)

    def _update(self, g, p, grad, state):
        beta1, beta2 = g["betas"]
        lr, eps, md = g["lr"], g["eps"], g["momentum_decay"]
        n = state["step"]
        bias_correction2 = 1 - beta2 ** n
        mu = beta1 * (1. - 0.5 * (0.96 ** (n * md)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((n + 1) * md)))
        f32 = np.float32
        mu_product = f32(f32(state["mu_product"]) * f32(mu))
        state["mu_product"] = float(mu_product)
        mu_product_next = float(f32(f32(mu_product * f32(mu)) * f32(mu_next)))
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add(eps)
        p.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - float(mu_product)))
        p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1. - mu_product_next))
