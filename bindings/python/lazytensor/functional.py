"""torch.* functions written in Python over the C++ ops (the C++ ones are bound in lazytensor/__init__.py).

This is their public place, as torch.functional is PyTorch's. The longer families live in private modules
by topic and are re-exported here: _pointwise (elementwise math and the division family), _linalg
(products, contractions, diagonals), _reshaping (joining, splitting, reordering), _indexing, _reductions
and _sorting; creation functions are in _creation.
"""

from . import _C, _bessel, _error_function, _gamma, _indexing, _linalg, _pointwise, _reductions, _reshaping, _sorting
from ._C import Tensor, is_inference_mode_enabled  # noqa: F401
from ._creation import logspace, tril_indices, triu_indices, vander  # noqa: F401
from ._dtype import can_cast, finfo, get_default_dtype, iinfo, set_default_dtype  # noqa: F401
from ._bessel import *  # noqa: F401,F403
from ._error_function import *  # noqa: F401,F403
from ._gamma import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._linalg import *  # noqa: F401,F403
from ._pointwise import *  # noqa: F401,F403
from ._pointwise import _as_tensor_like
from ._random import Generator, get_rng_state, manual_seed, seed, set_rng_state  # noqa: F401
from ._reductions import *  # noqa: F401,F403
from ._reshaping import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._tensor_str import set_printoptions  # noqa: F401
from .autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401


def where(condition, input=None, other=None):
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return _C._where3(condition, input, other)


def numel(input):
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_inference(input):
    if not isinstance(input, Tensor):
        raise TypeError("is_inference(): argument 'input' (position 1) must be Tensor, not {}".format(
            type(input).__name__))
    return input.is_inference()


def is_floating_point(input):
    return input.dtype.is_floating_point


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return input.allclose(other, rtol, atol, equal_nan)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    # PyTorch's rule: equal, or (both NaN and equal_nan), or a finite |a - b| <= atol + rtol * |b|
    close = input == other
    if equal_nan and input.dtype.is_floating_point:
        close = close.logical_or(input.isnan().logical_and(other.isnan()))
    err = (input - other).abs()
    within = err <= atol + rtol * other.abs()
    if err.dtype.is_floating_point:
        within = within.logical_and(err.isfinite())
    return close.logical_or(within)


def equal(input, other):
    return input.equal(other)


def outer(input, vec2):
    return input.outer(vec2)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    return input.norm(p, dim, keepdim, dtype)


def addcmul(input, tensor1, tensor2, value=1):
    return input.addcmul(tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, value=1):
    return input.addcdiv(tensor1, tensor2, value=value)


def lerp(input, end, weight):
    return input.lerp(end, weight)


def nonzero(input, as_tuple=False):
    return input.nonzero(as_tuple=as_tuple)


def masked_select(input, mask):
    return input.masked_select(mask)


def log2(input):
    return input.log2()


def log10(input):
    return input.log10()


def var_mean(input, dim=None, unbiased=True, keepdim=False):
    return input.var_mean(dim, unbiased, keepdim)


def std_mean(input, dim=None, unbiased=True, keepdim=False):
    return input.std_mean(dim, unbiased, keepdim)


def unflatten(input, dim, sizes):
    return input.unflatten(dim, sizes)


def result_type(a, b):
    return (_as_tensor_like(a, None) + _as_tensor_like(b, None)).dtype if not isinstance(a, Tensor) or not isinstance(
        b, Tensor) else (a + b).dtype


def clone(input, *, memory_format=None):
    return input.clone()


def _dropout(input, p=0.5, training=True, inplace=False):
    """nn.functional.dropout (here, below nn, so that torch.dropout can use it)."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        keep = _C.rand(*input.shape, dtype=input.dtype) >= p
        out = _C._where3(keep, input * (1.0 / (1.0 - p)), 0.0)
    return input.copy_(out) if inplace else out


def dropout(input, p, train):
    if p < 0.0 or p > 1.0:
        raise RuntimeError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not input.dtype.is_floating_point:
        raise RuntimeError("dropout: result type Float can't be cast to the desired output type {}".format(
            input.dtype))
    return _dropout(input, p, train)



def dropout_(input, p, train):
    dropout(input, p, train)  # the checks
    return _dropout(input, p, train, True)


# torch.X_(input, *args) is input.X_(*args) for these in-place Tensor methods, as in PyTorch.
_INPLACE_FUNCTIONS = ["abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
                      "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_",
                      "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_",
                      "fill_", "fix_", "floor_", "frac_", "i0_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
                      "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_",
                      "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_",
                      "zero_", "index_put_"]


def _inplace_function(name):
    def f(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = name
    return f


for _name in _INPLACE_FUNCTIONS:
    globals()[_name] = _inplace_function(_name)
del _name

__all__ = (["where", "numel", "is_tensor", "is_inference", "is_inference_mode_enabled", "is_floating_point", "allclose", "isclose", "equal", "outer", "norm",
            "addcmul", "addcdiv", "lerp", "nonzero", "masked_select", "log2", "log10", "var_mean", "std_mean",
            "unflatten", "result_type", "clone", "dropout", "dropout_",
            "Generator", "get_rng_state", "manual_seed", "seed", "set_rng_state",
            "no_grad", "enable_grad", "inference_mode", "set_grad_enabled",
            "set_printoptions", "get_default_dtype", "set_default_dtype", "finfo", "iinfo", "can_cast",
            "logspace", "tril_indices", "triu_indices", "vander"]
           + _pointwise.__all__ + _linalg.__all__ + _reshaping.__all__ + _indexing.__all__ + _reductions.__all__
           + _sorting.__all__ + _gamma.__all__ + _error_function.__all__ + _bessel.__all__ + _INPLACE_FUNCTIONS)
