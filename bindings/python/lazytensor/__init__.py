"""lazytensor — PyTorch-style tensors whose ops are traced lazily and JIT-compiled.

`import lazytensor as torch` runs PyTorch 1.13-style programs: Tensor (the C++
extension type itself), creation functions, dtypes, nn, optim, autograd. Values
are computed at sync points: lazytensor.sync(), .item(), printing, .numpy().
"""
from . import _C
from ._C import Tensor, dtype  # noqa: F401
from ._C import bool, float32, float64, int32, int64, float, double, int, long  # noqa: F401,A004
from ._C import (zeros, ones, empty, full, arange, linspace, eye, from_numpy,  # noqa: F401
                 cat, stack, is_grad_enabled, initial_seed, promote_types, sync)
from ._size import Size, device  # noqa: F401
from . import _tensor
from ._creation import (tensor, as_tensor, asarray, scalar_tensor, zeros_like, ones_like, empty_like,  # noqa: F401
                        rand_like, randn_like, full_like, randint_like, randperm, normal, bernoulli, multinomial,
                        rand, randn, randint)
from ._random import default_generator  # noqa: F401
from ._functions import *  # noqa: F401,F403
from ._functions import (no_grad, enable_grad, set_grad_enabled, inference_mode, manual_seed, seed,  # noqa: F401
                         Generator, where)

_C._set_size_class(Size)
_C._set_device_object(device("cpu"))


class _GradFnPlaceholder:
    """Stands in for grad_fn on non-leaf tensors (lazytensor has no per-op backward objects)."""

    def name(self):
        return "LazyBackward"

    def __repr__(self):
        return "<LazyBackward>"


_C._set_grad_fn_object(_GradFnPlaceholder())
_tensor.install()

# Every C++ function registered on the module that is a torch.* function.
_exported = ["add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "pow", "maximum",
             "minimum", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal", "less_equal",
             "not_equal", "logical_and", "logical_or", "logical_not", "matmul", "mm", "bmm", "dot", "neg", "negative",
             "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "sigmoid", "relu",
             "floor", "ceil", "round", "sign", "reciprocal", "isnan", "isfinite", "square", "clamp", "clip",
             "clamp_min", "clamp_max", "sum", "prod", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "var",
             "std", "logsumexp", "all", "any", "cumsum", "softmax", "log_softmax", "reshape", "flatten", "permute",
             "transpose", "swapaxes", "t", "squeeze", "unsqueeze", "narrow", "select", "unbind", "split", "chunk",
             "flip", "tril", "triu", "index_select", "gather", "scatter_add", "index_add", "masked_fill"]
for _name in _exported + list(_C._elementwise_api):  # the latter from ir/api.def
    globals()[_name] = getattr(_C, _name)
absolute = abs  # noqa: F821
del _name

from . import autograd, debug, nn, optim, utils  # noqa: E402,F401
from .nn import functional as _nnf  # noqa: E402

__version__ = "0.1.0"


class cuda:  # noqa: N801
    """No CUDA tensors from Python in this build."""

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0

    @staticmethod
    def manual_seed(seed):
        pass

    @staticmethod
    def manual_seed_all(seed):
        pass

    @staticmethod
    def synchronize(device=None):
        pass


class backends:  # noqa: N801
    class mps:  # noqa: N801
        @staticmethod
        def is_available():
            return False

    class cudnn:  # noqa: N801
        deterministic = False
        benchmark = False

from . import _sorting  # noqa: E402
from ._sorting import (sort, argsort, msort, topk, kthvalue, median, unique, bincount, searchsorted,  # noqa: E402,F401
                       bucketize)
_sorting.install()

# Session 5 (pyD): elementwise math composed from the C++ ops, and torch.special's matching subset.
from . import _math_extra  # noqa: E402
from ._math_extra import *  # noqa: E402,F401,F403
_math_extra.install(Tensor)
from . import _more  # noqa: E402
from ._more import *  # noqa: E402,F401,F403
_more.install(Tensor)
from . import special  # noqa: E402,F401


def round(input, *, decimals=0, out=None):  # noqa: A001
    """torch.round, with PyTorch 1.13's `decimals` (round(x * 10^d) / 10^d) and out=."""
    return special.round(input, decimals=decimals, out=out)


_round_method = Tensor.round


def _tensor_round(self, decimals=0):
    return _round_method(self) if not decimals else special.round(self, decimals=decimals)


Tensor.round = _tensor_round
