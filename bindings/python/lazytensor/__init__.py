"""lazytensor — PyTorch-style tensors whose ops are traced lazily and JIT-compiled.

`import lazytensor as torch` runs PyTorch 1.13-style programs: Tensor (the C++
extension type itself), creation functions, dtypes, nn, optim, autograd. Values
are computed at sync points: lazytensor.sync(), .item(), printing, .numpy().
"""
import math as _math
import sys as _sys

from . import _C
from ._C import Tensor, dtype  # noqa: F401
from ._C import bool, float32, float64, int32, int64, float, double, int, long  # noqa: F401,A004
from ._C import float16, half, bfloat16, int8, uint8, int16, short  # noqa: F401
from ._C import (zeros, ones, empty, full, arange, linspace, eye, from_numpy,  # noqa: F401
                 is_grad_enabled, initial_seed, promote_types, sync)
from ._size import Size  # noqa: F401
from ._device import device, check_placement as _check_placement  # noqa: F401
from . import _api, _tensor
from ._creation import (tensor, as_tensor, asarray, scalar_tensor, zeros_like, ones_like, empty_like,  # noqa: F401
                        rand_like, randn_like, full_like, randint_like, randperm, normal, bernoulli, multinomial,
                        rand, randn, randint)
from ._random import default_generator  # noqa: F401

_C._set_size_class(Size)
_C._set_device_object(device("cpu"))
_C._set_placement_check(_check_placement)


class _GradFnPlaceholder:
    """Stands in for grad_fn on non-leaf tensors (lazytensor has no per-op backward objects)."""

    def name(self):
        return "LazyBackward"

    def __repr__(self):
        return "<LazyBackward>"


_C._set_grad_fn_object(_GradFnPlaceholder())
_tensor.install()

# The C++ functions registered on the module that are torch.* functions: those of the API table
# (ir/api_functions.def, ir/api.def) and the rest, listed here.
_exported = ["add", "sub", "subtract", "rsub", "mul", "multiply", "maximum", "minimum", "eq", "ne", "lt", "le", "gt",
             "ge", "greater", "less", "greater_equal", "less_equal", "not_equal", "logical_and", "logical_or",
             "logical_not", "mm", "bmm", "dot", "neg", "negative", "abs", "exp", "log", "log1p", "expm1", "sqrt",
             "rsqrt", "sin", "cos", "tanh", "erf", "sigmoid", "relu", "floor", "ceil", "round", "sign", "reciprocal",
             "isnan", "isfinite", "square", "clamp_min", "clamp_max", "all", "any", "t", "narrow", "select",
             "unbind", "tril", "triu", "index_add", "masked_fill"]
for _name in _exported + _api.exported_functions() + list(_C._elementwise_api):
    globals()[_name] = getattr(_C, _name)
absolute = abs  # noqa: F821
del _name

# The torch.* functions written in Python; after the C++ ones, since torch.round(decimals=) replaces _C.round.
from .functional import *  # noqa: E402,F401,F403

# The keyword aliases and out= of the API table's functions and methods, over their final definitions.
_api.install(globals())

from . import autograd, debug, functional, nn, optim, special, utils  # noqa: E402,F401
from .utils.dlpack import from_dlpack  # noqa: E402,F401
from .serialization import load, save  # noqa: E402,F401

# The fusion lab, also callable as torch.trace (see trace.py). Imported by name, not `from . import trace`,
# which would find the function `trace` already bound here and not load the module.
import importlib as _importlib  # noqa: E402
_importlib.import_module(".trace", __name__)
del _importlib

__version__ = "0.1.0"


from . import amp, backends, cpu, cuda, distributed, linalg, onnx, sparse, testing
from . import _torch_linalg, _torch_nn  # noqa: E402
from ._torch_linalg import *  # noqa: E402,F401,F403
from ._torch_nn import *  # noqa: E402,F401,F403
for _module in (_torch_linalg, _torch_nn):
    for _name in _module.TENSOR_METHODS:
        if not hasattr(Tensor, _name):
            setattr(Tensor, _name, _tensor.method(getattr(_module, _name), _name))
del _module, _name
e, pi, inf, nan = _math.e, _math.pi, _math.inf, _math.nan


def detach(input):
    return input.detach()


def is_same_size(input, other):
    return input.is_same_size(other)


def is_signed(input):
    return input.is_signed()


def is_nonzero(input):
    return input.is_nonzero()
from .sparse import sparse_coo_tensor, spmm  # noqa: E402,F401
from ._legacy import FloatTensor, DoubleTensor, LongTensor, IntTensor, BoolTensor  # noqa: E402,F401  # noqa: E402,F401
from ._runtime import compile, set_num_threads, get_num_threads, set_num_interop_threads, get_num_interop_threads  # noqa: E402,F401,A004,E501
_tensor._install_bitcast_guards()  # after every module attached its in-place methods
from ._switches import *  # noqa: E402,F401,F403
from ._windows import *  # noqa: E402,F401,F403
from .amp import autocast  # noqa: E402,F401
from .amp.autocast_mode import (is_autocast_enabled, set_autocast_enabled, is_autocast_cpu_enabled,  # noqa: E402,F401
                                set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype,
                                get_autocast_gpu_dtype, set_autocast_gpu_dtype, is_autocast_cache_enabled,
                                set_autocast_cache_enabled, autocast_increment_nesting,
                                autocast_decrement_nesting, clear_autocast_cache)
from .amp import _op_policy  # noqa: E402
_op_policy.install(_sys.modules[__name__], nn.functional, linalg)  # last: it rebinds what every module holds
