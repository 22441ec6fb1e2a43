"""BatchNorm1d/2d and GroupNorm (PyTorch 1.13). Functional code: nn/_functional_cnn.py.

Running statistics are buffers (running_mean, running_var, num_batches_tracked, in state_dict) updated
with lazy in-place writes: a training forward never syncs, and the new statistics are computed in the
same trace as the loss (see _functional_cnn._tie).
"""
from .. import _C
from . import _functional_cnn as F
from . import init
from .modules import Module, _create_norm_affine_and_stats
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "GroupNorm"]


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
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
        return F._batch_norm(input, self.running_mean if use_stats else None, self.running_var if use_stats else None,
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


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
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
