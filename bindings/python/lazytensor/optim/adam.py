"""optim.Adam and optim.AdamW (PyTorch 1.13 update rules, amsgrad included)."""
import math

from .. import _C
from .optimizer import Optimizer


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        self._check_hparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused))

    def step(self, closure=None):
        return self._step(closure)

    def _init_state(self, g, p, state):
        self._new_state(state, p, "exp_avg", "exp_avg_sq", "max_exp_avg_sq" if g["amsgrad"] else None)

    def _update(self, g, p, grad, state):
        beta1, beta2 = g["betas"]
        lr, eps, wd = g["lr"], g["eps"], g["weight_decay"]
        # The step count is a host int (PyTorch keeps a tensor) so bias
        # corrections are runtime scalars and never a sync.
        n = state["step"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if wd != 0 and self._decoupled_weight_decay:
            p.mul_(1 - lr * wd)
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
        bias_correction1 = 1 - beta1 ** n
        bias_correction2 = 1 - beta2 ** n
        step_size = lr / bias_correction1
        bc2_sqrt = math.sqrt(bias_correction2)
        if g["amsgrad"]:
            mx = state["max_exp_avg_sq"]
            mx.copy_(_C.maximum(mx, exp_avg_sq))
            denom = (mx.sqrt() / bc2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
        p.add_(exp_avg / denom, alpha=-step_size)


class AdamW(Adam):
    _decoupled_weight_decay = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize, foreach=foreach)
