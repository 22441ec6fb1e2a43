"""nn.functional (PyTorch 1.13): every function composed from the C++ ops, so it stays lazy and autograd
differentiates it with no op-specific code.

This is the public place; the functions live in private modules by topic: _functional_activation,
_functional_linear, _functional_dropout, _functional_sparse (embedding), _functional_conv (im2col, conv,
conv_transpose, fold), _functional_pooling, _functional_norm, _functional_vision (pad, interpolate, shuffles),
_functional_distance, _functional_loss and _functional_attention.
"""
from . import (_functional_activation, _functional_attention, _functional_conv, _functional_distance,
               _functional_dropout, _functional_linear, _functional_loss, _functional_norm, _functional_pooling,
               _functional_sparse, _functional_vision)
from ._functional_activation import *  # noqa: F401,F403
from ._functional_attention import *  # noqa: F401,F403
from ._functional_conv import *  # noqa: F401,F403
from ._functional_distance import *  # noqa: F401,F403
from ._functional_dropout import *  # noqa: F401,F403
from ._functional_linear import *  # noqa: F401,F403
from ._functional_loss import *  # noqa: F401,F403
from ._functional_norm import *  # noqa: F401,F403
from ._functional_pooling import *  # noqa: F401,F403
from ._functional_sparse import *  # noqa: F401,F403
from ._functional_vision import *  # noqa: F401,F403

__all__ = (_functional_activation.__all__ + _functional_linear.__all__ + _functional_dropout.__all__
           + _functional_sparse.__all__ + _functional_conv.__all__ + _functional_pooling.__all__
           + _functional_norm.__all__ + _functional_vision.__all__ + _functional_distance.__all__
           + _functional_loss.__all__ + _functional_attention.__all__)
