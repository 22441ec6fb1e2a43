"""Dropout: dropout, dropout1d, dropout2d and alpha_dropout."""
import math
import warnings

from .. import _C
from ..functional import _dropout
from ._checks import _shape, _tensor_arg

_where = _C._where3


def dropout(input, p=0.5, training=True, inplace=False):
    return _dropout(input, p, training, inplace)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


def _drop_channels(input, p, inplace, lead):
    """Zero input over whole slices input[i0, .., i(lead-1)] with probability p (0 < p <= 1), scaling the kept
    ones by 1/(1-p): the mask has shape input.shape[:lead] + [1, ...]."""
    mshape = _shape(input)[:lead] + [1] * (input.dim() - lead)
    if p == 1.0:
        out = input * 0.0
    else:
        keep = _C.rand(*mshape, dtype=input.dtype) >= p
        out = _where(keep, input * (1.0 / (1.0 - p)), 0.0)
    return input.copy_(out) if inplace else out


def _feature_dropout(input, p, training, inplace, name, dims):
    _tensor_arg(name, "input", input)
    _check_p(p)
    if input.dim() not in dims:
        raise RuntimeError("{}: Expected {}D or {}D input, but received a {}D input of size {}".format(
            name, dims[0], dims[1], input.dim(), _shape(input)))
    if not training or p == 0.0:
        return input
    batched = input.dim() == dims[1]
    return _drop_channels(input, p, inplace, 2 if batched else 1)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of [N, C, L] (or unbatched [C, L]) input; the mask's random stream is lazytensor's."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", (2, 3))


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: the mask has shape input.shape[:2] + [1, ...] for any input of 2 or more dims
    (PyTorch 1.13 warns about inputs that are not 4D but treats them this way)."""
    _tensor_arg("dropout2d", "input", input)
    _check_p(p)
    if not training or p == 0.0:
        return input
    if input.dim() < 2:
        raise RuntimeError("dropout2d: Feature dropout requires at least 2 dimensions in the input, got {}".format(
            _shape(input)))
    return _drop_channels(input, p, inplace, 2)


_ALPHA_DROP = 1.7580993408473766  # -SELU's negative saturation value: scale * alpha


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropped units are set to SELU's saturation value, then an affine map keeps mean 0 / variance 1."""
    _tensor_arg("alpha_dropout", "input", input)
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        a = 1.0 / math.sqrt((_ALPHA_DROP * _ALPHA_DROP * p + 1) * (1 - p))
        keep = _C.rand(*_shape(input), dtype=input.dtype) >= p
        out = _where(keep, input * a, 0.0) + _where(keep, 0.0, -_ALPHA_DROP * a) + _ALPHA_DROP * a * p
    return input.copy_(out) if inplace else out


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of [N, C, D, H, W] input; any other input is read as unbatched, its first dim the
    channels (PyTorch 1.13 warns about inputs that are not 4D or 5D and does the same)."""
    _tensor_arg("dropout3d", "input", input)
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn("dropout3d: Received a {}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release.".format(input.dim()))
    if input.dim() == 0:
        raise RuntimeError("dropout3d: Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0.0:
        return input
    return _drop_channels(input, p, inplace, 2 if input.dim() == 5 else 1)


__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout"]
