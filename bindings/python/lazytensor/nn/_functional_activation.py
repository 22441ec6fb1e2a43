"""Activation functions, softmax and its relatives."""
from .. import _C
from ._checks import _float_only, _to_float

_where = _C._where3


def _nonpositive(input):
    """input where it is <= 0, else 0: the argument of an exp branch that where() discards
    for x > 0. Without it, exp overflows to inf at large x and the discarded branch's
    gradient is 0 * inf = NaN (torch's fused kernels never evaluate that branch)."""
    return _where(input > 0, 0.0, input)


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)  # as PyTorch: gradient 0 at 0 and 6 (clamp's passes there)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    out = _C._where3(input > 0, input, input * negative_slope)
    return input.copy_(out) if inplace else out


def elu(input, alpha=1.0, inplace=False):
    out = _where(input > 0, input, _nonpositive(input).expm1() * alpha)
    return input.copy_(out) if inplace else out


def gelu(input, approximate="none"):
    return _C.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return input.copy_(_C.silu(input)) if inplace else _C.silu(input)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    # PyTorch's gradient is zero at the bounds themselves (clamp's passes there): a where chain gives that.
    out = _C._where3(input <= min_val, min_val, _C._where3(input >= max_val, max_val, input))
    if out.dtype != input.dtype:  # an integer input keeps its dtype, as in PyTorch
        out = out.to(input.dtype)
    return input.copy_(out) if inplace else out


def softplus(input, beta=1, threshold=20):
    return _C.softplus(input, float(beta), float(threshold))


def mish(input, inplace=False):
    return input * softplus(input).tanh()


def hardswish(input, inplace=False):
    _float_only("hardswish_cpu", input)
    # x * relu6(x + 3) / 6 with PyTorch's gradient: 0 below -3, (2x + 3) / 6 on [-3, 3), 1 from 3 on.
    out = _C._where3(input < -3.0, 0.0, _C._where3(input >= 3.0, input, input * (input + 3.0) / 6.0))
    return input.copy_(out) if inplace else out


def threshold(input, threshold, value, inplace=False):
    out = _C._where3(input > threshold, input, value)
    if out.dtype != input.dtype:
        out = out.to(input.dtype)
    return input.copy_(out) if inplace else out


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -nd, nd - 1, dim))
    d = dim % nd
    if input.shape[d] % 2:
        raise RuntimeError("Halving dimension must be even, but dimension {} is size {}".format(d, input.shape[d]))
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def prelu(input, weight):
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = {}".format(
            weight.dim()))
    n = weight.numel()
    channels = input.shape[1] if input.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = {} and "
                           "channel size = {}.".format(n, channels))
    w = weight.reshape([n] + [1] * (input.dim() - 2)) if n > 1 else weight.reshape([1] * input.dim())
    return _C._where3(input > 0, input, w * input)


def logsigmoid(input):
    _float_only("log_sigmoid_cpu", input)
    return -_C.softplus(-input, 1.0, 20.0)


def softsign(input):
    input = _to_float(input)
    return input / (input.abs() + 1)


def tanhshrink(input):
    input = _to_float(input)
    return input - input.tanh()


def hardsigmoid(input, inplace=False):
    # PyTorch's gradient is 1/6 strictly inside (-3, 3) and 0 at and beyond the bounds.
    out = _where(input <= -3.0, 0.0, _where(input >= 3.0, 1.0, input / 6.0 + 0.5))
    return input.copy_(out) if inplace else out


_SELU_ALPHA = 1.6732632423543772848170429916717


_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    out = _where(input > 0, input * _SELU_SCALE, _nonpositive(input).expm1() * (_SELU_ALPHA * _SELU_SCALE))
    return input.copy_(out) if inplace else out


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    out = _where(input > 0, input, (_nonpositive(input) * (1.0 / alpha)).expm1() * alpha)
    return input.copy_(out) if inplace else out


def hardshrink(input, lambd=0.5):
    return _where((input > lambd).logical_or(input < -lambd), input, 0.0)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError("lambda must be greater or equal to 0, but found to be {}.".format(lambd))
    return _where(input > lambd, input - lambd, _where(input < -lambd, input + lambd, 0.0))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training (lazytensor's
    random stream) and is (lower + upper) / 2 otherwise."""
    if training:
        slope = _C.rand(*input.shape, dtype=input.dtype) * (upper - lower) + lower
    else:
        slope = (lower + upper) / 2
    out = _where(input >= 0, input, input * slope)
    return input.copy_(out) if inplace else out


def _inplace_form(fn):
    def f(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)
    f.__name__ = fn.__name__ + "_"
    f.__doc__ = "{}(..., inplace=True)".format(fn.__name__)
    return f


relu_, elu_, leaky_relu_, hardtanh_, selu_, celu_, threshold_, rrelu_ = (
    _inplace_form(f) for f in (relu, elu, leaky_relu, hardtanh, selu, celu, threshold, rrelu))


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)



def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g Gumbel(0, 1) noise (lazytensor's random stream); hard=True returns the
    one-hot argmax in value and the soft sample's gradient (straight-through), as PyTorch."""
    u = _C.rand(*logits.shape, dtype=logits.dtype).clamp_min(1e-30)
    exponential = (-u.log()).clamp_min(1e-30)
    y_soft = softmax((logits - exponential.log()) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = y_soft.new_zeros(list(logits.shape)).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft

__all__ = ["relu", "relu6", "leaky_relu", "elu", "gelu", "silu", "sigmoid", "tanh", "hardtanh", "softplus", "mish",
           "hardswish", "threshold", "glu", "prelu", "logsigmoid", "softsign", "tanhshrink", "hardsigmoid", "selu",
           "celu", "softmax", "log_softmax", "softmin", "hardshrink", "softshrink", "rrelu", "relu_", "elu_",
           "leaky_relu_", "hardtanh_", "selu_", "celu_", "threshold_", "rrelu_", "gumbel_softmax"]
