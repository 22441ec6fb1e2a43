"""optim.Adamax (PyTorch 1.13 update rule)."""
from .. import _C
from .._functions import enable_grad, no_grad
from .optimizer import Optimizer


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
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
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                beta1, beta2 = g["betas"]
                lr, eps, wd = g["lr"], g["eps"], g["weight_decay"]
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
                        state["exp_inf"] = _C.zeros(*p.shape, dtype=p.dtype)
                    state["step"] += 1
                    n = state["step"]
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_inf.copy_(_C.maximum(exp_inf * beta2, grad.abs().add(eps)))
                    clr = lr / (1 - beta1 ** n)  # host-side bias correction: a runtime scalar
                    p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
