"""torch.autograd: grad, backward and the grad-mode switches."""
from .. import _C
from .._C import Tensor
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401

Variable = Tensor


def _seq(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """Gradients of outputs w.r.t. inputs, without touching .grad. Each input gets its total derivative, also
    when one input feeds another; with create_graph the gradients can be differentiated again."""
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched=True (vmap over grad_outputs) is not supported "
                                  "by lazytensor; call grad once per grad_output")
    outs, ins = _seq(outputs), _seq(inputs)
    retain = create_graph if retain_graph is None else retain_graph
    return tuple(_C._grad(outs, ins, _seq(grad_outputs), bool(retain), bool(allow_unused), bool(create_graph)))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    ts = _seq(tensors)
    gs = _seq(grad_tensors) or [None] * len(ts)
    for i, (t, g) in enumerate(zip(ts, gs)):
        keep = retain_graph if retain_graph is not None else create_graph
        t.backward(g, retain_graph=keep or i + 1 < len(ts), create_graph=create_graph, inputs=inputs)


class Function:
    """Custom autograd functions are not supported: lazytensor derives gradients from its IR."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.autograd.Function is not supported by lazytensor")
