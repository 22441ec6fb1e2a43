"""optim.SGD with momentum, dampening, Nesterov and weight decay (PyTorch 1.13 rules)."""
from .. import _C
from .._functions import no_grad
from .optimizer import Optimizer, required


class SGD(Optimizer):
    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with _C_enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                lr, momentum, dampening = g["lr"], g["momentum"], g["dampening"]
                wd, nesterov, maximize = g["weight_decay"], g["nesterov"], g["maximize"]
                for p in g["params"]:
                    d_p = p.grad
                    if d_p is None:
                        continue
                    if maximize:
                        d_p = -d_p
                    if wd != 0:
                        d_p = d_p.add(p, alpha=wd)
                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = d_p.detach().clone()
                            state["momentum_buffer"] = buf
                        else:
                            buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                        d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                    p.add_(d_p, alpha=-lr)
        return loss


def _C_enable_grad():
    from .._functions import enable_grad
    return enable_grad()
