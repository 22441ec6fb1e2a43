"""optim.Adam and optim.AdamW (PyTorch 1.13 update rules, amsgrad included)."""
import math

from .. import _C
from .._functions import enable_grad, no_grad
from .optimizer import Optimizer


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
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
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                beta1, beta2 = g["betas"]
                lr, eps, wd, amsgrad = g["lr"], g["eps"], g["weight_decay"], g["amsgrad"]
                for p in g["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    if g["maximize"]:
                        grad = -grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = _C.zeros(*p.shape, dtype=p.dtype)
                        state["exp_avg_sq"] = _C.zeros(*p.shape, dtype=p.dtype)
                        if amsgrad:
                            state["max_exp_avg_sq"] = _C.zeros(*p.shape, dtype=p.dtype)
                    # The step count is a host int (PyTorch keeps a tensor) so bias
                    # corrections are runtime scalars and never a sync.
                    n = state["step"] + 1
                    state["step"] = n
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    if wd != 0:
                        if self._decoupled:
                            p.mul_(1 - lr * wd)
                        else:
                            grad = grad.add(p, alpha=wd)
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                    bias_correction1 = 1 - beta1 ** n
                    bias_correction2 = 1 - beta2 ** n
                    step_size = lr / bias_correction1
                    bc2_sqrt = math.sqrt(bias_correction2)
                    if amsgrad:
                        mx = state["max_exp_avg_sq"]
                        mx.copy_(_C.maximum(mx, exp_avg_sq))
                        denom = (mx.sqrt() / bc2_sqrt).add_(eps)
                    else:
                        denom = (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
                    p.add_(exp_avg / denom, alpha=-step_size)
        return loss


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize, foreach=foreach)
