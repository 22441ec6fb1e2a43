"""optim.RMSprop (PyTorch 1.13 update rule: alpha, eps, weight_decay, momentum, centered, maximize)."""
from .. import _C
from .._functions import enable_grad, no_grad
from .optimizer import Optimizer


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= momentum:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= alpha:
            raise ValueError("Invalid alpha value: {}".format(alpha))
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                lr, alpha, eps, wd = g["lr"], g["alpha"], g["eps"], g["weight_decay"]
                momentum, centered = g["momentum"], g["centered"]
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
                        if momentum > 0:
                            state["momentum_buffer"] = _C.zeros(*p.shape, dtype=p.dtype)
                        if centered:
                            state["grad_avg"] = _C.zeros(*p.shape, dtype=p.dtype)
                    state["step"] += 1
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    square_avg = state["square_avg"]
                    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                    if centered:
                        grad_avg = state["grad_avg"]
                        grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
                        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt()
                    else:
                        avg = square_avg.sqrt()
                    avg = avg.add(eps)
                    if momentum > 0:
                        buf = state["momentum_buffer"]
                        buf.mul_(momentum).addcdiv_(grad, avg)
                        p.add_(buf, alpha=-lr)
                    else:
                        p.addcdiv_(grad, avg, value=-lr)
        return loss
