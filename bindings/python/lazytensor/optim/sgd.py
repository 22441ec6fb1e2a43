"""optim.SGD with momentum, dampening, Nesterov and weight decay (PyTorch 1.13 rules)."""
from .optimizer import Optimizer, required


class SGD(Optimizer):
    _counts_steps = False

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        # PyTorch's SGD checks `x < 0.0` (NaN passes), not `0.0 <= x` like the others.
        self._check("learning rate", lr, lr is required or not lr < 0.0)
        self._check("momentum value", momentum, not momentum < 0.0)
        self._check("weight_decay value", weight_decay, not weight_decay < 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable))

    def _uses_state(self, group):
        return group["momentum"] != 0

    def step(self, closure=None):
        return self._step(closure)

    def _update(self, g, p, d_p, state):
        momentum = g["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = d_p.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - g["dampening"])
            d_p = d_p.add(buf, alpha=momentum) if g["nesterov"] else buf
        p.add_(d_p, alpha=-g["lr"])
