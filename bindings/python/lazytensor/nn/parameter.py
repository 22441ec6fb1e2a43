"""nn.Parameter: a Tensor subclass that Modules register as a parameter."""
from .. import _C
from .._C import Tensor
from .._tensor import _rebuild


class Parameter(Tensor):
    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.zeros(0)
        Tensor.__init__(self, data)  # a new slot over the same value
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(self.detach().clone(), requires_grad=self.requires_grad)
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        return (_rebuild, (_C._to_numpy(self), self.requires_grad, Parameter))


class UninitializedParameter(Parameter):
    pass
