"""optim.RMSprop (PyTorch 1.13 update rule: alpha, eps, weight_decay, momentum, centered, maximize)."""
from .optimizer import Optimizer


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        self._check_hparams(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def step(self, closure=None):
        return self._step(closure)

    def _init_state(self, g, p, state):
        self._new_state(state, p, "square_avg", "momentum_buffer" if g["momentum"] > 0 else None,
                        "grad_avg" if g["centered"] else None)

    def _update(self, g, p, grad, state):
        lr, alpha, eps, momentum = g["lr"], g["alpha"], g["eps"], g["momentum"]
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if g["centered"]:
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
