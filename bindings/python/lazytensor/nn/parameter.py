"""nn.Parameter: a Tensor subclass that Modules register as a parameter; UninitializedParameter and
UninitializedBuffer, the placeholders of the nn.Lazy* layers until their first call gives the shapes."""
from .. import _C
from .._C import Tensor
from .._device import check_placement
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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (an empty tensor of its dtype until then)."""
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor `shape` (uninitialised values, as torch.empty) and makes it a plain
        `cls_to_become`; the object, and so the module's entry and any reference to it, stays the same."""
        check_placement(device)
        self.data = _C.empty(*shape, dtype=self.dtype if dtype is None else dtype)
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become
        else:
            self._materialized = True

    def __repr__(self):
        return "<{}>".format(type(self).__name__)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad, None, self.dtype))


def is_lazy(t):
    """Whether `t` is an uninitialised parameter or buffer still waiting for its shape."""
    return isinstance(t, UninitializedTensorMixin) and not getattr(t, "_materialized", False)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        check_placement(device)
        Parameter.__init__(self, _C.empty(0, dtype=dtype or _C.float32), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet. Materialised it stays this type (lazytensor's Tensor type
    cannot be assigned as a __class__); the nn.Lazy* layers register a plain tensor in its place."""

    def __init__(self, requires_grad=False, device=None, dtype=None):
        check_placement(device)
        Tensor.__init__(self, _C.empty(0, dtype=dtype or _C.float32))
        if requires_grad:
            self.requires_grad_(True)
