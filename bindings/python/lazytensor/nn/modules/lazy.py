"""LazyModuleMixin (PyTorch 1.13's torch.nn.modules.lazy): a layer whose parameters are
UninitializedParameters until its first call, which infers their shapes from the input, materialises and
resets them, and turns the module into its plain class (`cls_to_become`: LazyLinear becomes Linear).
load_state_dict into a module not called yet materialises each parameter at the checkpoint's shape."""
import warnings

from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError("module {} has not been fully initialized".format(module._get_name()))
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the API or "
                      "functionality can happen at any moment.")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError("initialize_parameters is not implemented for {}".format(
            self.__class__.__name__))

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # An uninitialised entry is saved as itself, as in PyTorch (detach would give a plain empty tensor).
        for name, t in list(self._parameters.items()) + [
                (n, b) for n, b in self._buffers.items() if n not in self._non_persistent_buffers_set]:
            if t is not None:
                destination[prefix + name] = t if keep_vars or is_lazy(t) else t.detach()

    def _materialize(self, name, shape):
        """Gives the entry `name` its shape: a parameter in place (it stays the same object), a buffer as a
        new plain tensor of the placeholder's dtype."""
        with no_grad():
            if name in self._parameters:
                self._parameters[name].materialize(shape)
            else:
                old = self._buffers[name]
                old.materialize(shape)
                self.register_buffer(name, old.detach(), persistent=name not in self._non_persistent_buffers_set)
