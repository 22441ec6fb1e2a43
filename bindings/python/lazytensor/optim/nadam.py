"""optim.NAdam (PyTorch 1.13 update rule, momentum_decay).

PyTorch keeps mu_product as a float32 tensor and reads it with .item() every
step; here it is a host float rounded to float32 the same way, so the update's
scalars are runtime scalars (no sync, no recompile) with PyTorch's values.
"""
import numpy as np

from .. import _C
from .._functions import enable_grad, no_grad
from .optimizer import Optimizer


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= momentum_decay:
            raise ValueError("Invalid momentum_decay value: {}".format(momentum_decay))
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, foreach=foreach))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                beta1, beta2 = g["betas"]
                lr, eps, wd, md = g["lr"], g["eps"], g["weight_decay"], g["momentum_decay"]
                for p in g["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["mu_product"] = 1.0
                        state["exp_avg"] = _C.zeros(*p.shape, dtype=p.dtype)
                        state["exp_avg_sq"] = _C.zeros(*p.shape, dtype=p.dtype)
                    state["step"] += 1
                    n = state["step"]
                    bias_correction2 = 1 - beta2 ** n
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
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
        return loss
