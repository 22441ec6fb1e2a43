"""Normalisation layers (PyTorch 1.13): BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d and their Lazy forms
(num_features is the channel dim of the first input), LayerNorm, GroupNorm and LocalResponseNorm.
Functional code: nn/_functional_norm.py.

Running statistics are buffers (running_mean, running_var, num_batches_tracked, in state_dict) updated
with lazy in-place writes: a training forward never syncs, and the new statistics are computed in the
same trace as the loss (see nn/_spatial.py, _tie).
"""
from ... import _C
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from .._functional_norm import _batch_norm
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from ..._device import check_placement


def _create_norm_affine_and_stats(module, num_features, affine, track_running_stats, dtype, fill_affine):
    """The parameters and buffers of BatchNorm and InstanceNorm: `weight` and `bias` of num_features when
    `affine` (filled with ones and zeros if `fill_affine`, else left uninitialised for reset_parameters),
    else None entries; running_mean (zeros), running_var (ones) and num_batches_tracked (int64 zero)
    buffers when `track_running_stats`, else None entries."""
    dt = dtype or _C.float32
    if affine:
        module.weight = Parameter((_C.ones if fill_affine else _C.empty)(num_features, dtype=dt))
        module.bias = Parameter((_C.zeros if fill_affine else _C.empty)(num_features, dtype=dt))
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)
    if track_running_stats:
        module.register_buffer("running_mean", _C.zeros(num_features, dtype=dt))
        module.register_buffer("running_var", _C.ones(num_features, dtype=dt))
        module.register_buffer("num_batches_tracked", _C.zeros((), dtype=_C.int64))
    else:
        module.register_buffer("running_mean", None)
        module.register_buffer("running_var", None)
        module.register_buffer("num_batches_tracked", None)


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        check_placement(device)
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _create_norm_affine_and_stats(self, num_features, affine, track_running_stats, dtype, fill_affine=False)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, " \
               "track_running_stats={track_running_stats}".format(**self.__dict__)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        tie = ()
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)  # lazy: no sync
            tie = (self.num_batches_tracked,)
            # PyTorch reads float(num_batches_tracked) here (a sync); 1 / the lazy count is the same value.
            factor = 1.0 / self.num_batches_tracked if self.momentum is None else self.momentum
        bn_training = True if self.training else (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return _batch_norm(input, self.running_mean if use_stats else None, self.running_var if use_stats else None,
                             self.weight, self.bias, bn_training, factor, self.eps, tie=tie)


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError("BatchNorm1d: expected 2D or 3D input (got {}D input of shape {})".format(
                input.dim(), list(input.shape)))


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError("BatchNorm2d: expected 4D input (got {}D input of shape {})".format(
                input.dim(), list(input.shape)))


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError("BatchNorm3d: expected 5D input (got {}D input of shape {})".format(
                input.dim(), list(input.shape)))


class _InstanceNorm(Module):
    _nd = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        check_placement(device)
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _create_norm_affine_and_stats(self, num_features, affine, track_running_stats, dtype, fill_affine=True)

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.fill_(0)
                self.running_var.fill_(1)
                self.num_batches_tracked.fill_(0)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        nd = self._nd
        name = type(self).__name__
        if input.dim() not in (nd + 1, nd + 2):
            raise ValueError("expected {}D or {}D input (got {}D input)".format(nd + 1, nd + 2, input.dim()))
        unbatched = input.dim() == nd + 1
        x = input.unsqueeze(0) if unbatched else input
        # The weight's size, not num_features: a Lazy layer loaded from a checkpoint keeps num_features 0.
        if self.affine and x.shape[1] != self.weight.shape[0]:
            raise ValueError("{}: expected input's size at dim={} to match num_features ({}), but got: {}.".format(
                name, 1 - unbatched, self.weight.shape[0], x.shape[1]))
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
                              self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        return "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, " \
               "track_running_stats={track_running_stats}".format(**self.__dict__)


class InstanceNorm1d(_InstanceNorm):
    _nd = 1


class InstanceNorm2d(_InstanceNorm):
    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    _nd = 3


class _LazyNormBase(LazyModuleMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _C.zeros((), dtype=_C.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            names = (("weight", "bias") if self.affine else ()) + (
                ("running_mean", "running_var") if self.track_running_stats else ())
            for name in names:
                self._materialize(name, (self.num_features,))
            self.reset_parameters()


def _lazy_norm(norm):
    class LazyNorm(_LazyNormBase, norm):
        cls_to_become = norm
    LazyNorm.__name__ = LazyNorm.__qualname__ = "Lazy" + norm.__name__
    return LazyNorm


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (_lazy_norm(c) for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy_norm(c) for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        check_placement(device)
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_C.ones(*self.normalized_shape, dtype=dtype or _C.float32))
            self.bias = Parameter(_C.zeros(*self.normalized_shape, dtype=dtype or _C.float32))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{}, eps={}, elementwise_affine={}".format(self.normalized_shape, self.eps, self.elementwise_affine)


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        check_placement(device)
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        dt = dtype or _C.float32
        if affine:
            self.weight = Parameter(_C.empty(num_channels, dtype=dt))
            self.bias = Parameter(_C.empty(num_channels, dtype=dt))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}".format(**self.__dict__)


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm",
           "LocalResponseNorm", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
