"""Which ops autocast casts, and how: PyTorch 1.13's CPU autocast lists, and the wrappers that apply them.

The classes are torch 1.13's CPU autocast kernels (aten/src/ATen/autocast_mode.cpp of that release), as the
installed torch 1.13 shows them. A function that is a row of the API table (ir/api_functions.def) has its
class in the row (_C._api_table()'s "autocast"); POLICIES below classes the rest. test/python/test_autocast.py
measures torch's class of every table row, and runs every op named in either place that lazytensor has,
under autocast, in both libraries and compares the output dtypes.

- LOWER_PRECISION_FP: the floating inputs (float32 and float16; float64 is never cast) are cast to the
  autocast dtype, bfloat16: matmul and its forms, linear, conv1d/2d/3d.
- FP32: floating inputs narrower than float32 are cast to float32: the losses, the 3-d pools and the
  reflect/replicate pads, prod, quantile, cdist, trace, the decompositions and solvers of linalg, and
  conv_transpose1d/2d/3d (which torch 1.13's CPU autocast runs in float32, not in bfloat16).
- PROMOTE: the inputs are cast to the widest of their floating dtypes: stack, index_copy. Not cat: torch
  1.13's cat under autocast gives what it gives without (its own promotion; float16 inputs stay float16).
- AS_IS: no cast. torch's kernels for these are not in any list, while lazytensor writes them with ops
  of the lists above (bilinear with matmul): they run with autocast off inside, so their inner matmul
  stays in the input dtype as torch's does.

Every other op runs in its inputs' dtypes, as in torch (softmax, layer_norm, gelu, sum: bfloat16 in,
bfloat16 out). An op of the lists runs with autocast off inside, as torch's autocast kernels exclude
their dispatch key: linear's inner matmul is not cast again, and an AS_IS op's is not cast at all.

install() wraps each listed function once, where it is defined, and rebinds every reference the
package's modules and the Tensor class hold to it, so `torch.mm`, `Tensor.mm`, `a @ b`, `F.linear` and
a module that imported `linear` from nn/_functional_linear.py all see the same wrapper. Outside an
autocast region a wrapper costs one Python call and one thread-local attribute read.
"""
import functools
import sys
import types

from .._C import Tensor, _api_table, _autocast_shim, bfloat16, float16, float32, promote_types
from .autocast_mode import state

LOWER_PRECISION_FP = "lower_precision_fp"
FP32 = "fp32"
PROMOTE = "promote"
AS_IS = "as_is"

# F.pad is reflection_pad/replication_pad (FP32) for those modes and a constant pad otherwise.
_FP32_PAD_MODES = ("reflect", "replicate")


def _pad_policy(input, pad, mode="constant", value=None):
    return FP32 if mode in _FP32_PAD_MODES else AS_IS


def _local_response_norm_policy(input, *args, **kwargs):
    """torch's local_response_norm sums the squares with avg_pool3d (FP32) from 4-d inputs up, and with
    avg_pool2d (no list) for 3-d ones."""
    return FP32 if input.dim() > 3 else AS_IS


def _classed(policy, *names):
    return dict.fromkeys(names, policy)


# The functions that are not rows of the API table: name -> policy, or a function of the call's arguments
# that returns one. A plain name is looked up on torch, Tensor, torch.nn.functional and lazytensor._C; a
# "linalg." one on lazytensor.linalg, a "functional." one on torch.nn.functional only.
POLICIES = {
    **_classed(LOWER_PRECISION_FP, "conv1d", "conv2d", "conv3d", "bmm", "mm", "baddbmm", "addmm", "addbmm",
               "linear", "__matmul__", "__rmatmul__"),
    **_classed(FP32, "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool3d", "max_pool3d",
               "adaptive_avg_pool3d", "max_unpool2d", "max_unpool3d", "grid_sample", "polar", "stft",
               "quantile", "nanquantile", "cdist", "trace", "cholesky", "cholesky_inverse",
               "cholesky_solve", "inverse", "pinverse", "lu_solve", "orgqr", "ormqr", "svd", "qr",
               "triangular_solve", "geqrf", "symeig",
               "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
               "binary_cross_entropy_with_logits", "kl_div", "cross_entropy", "nll_loss", "poisson_nll_loss",
               "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
               "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "ctc_loss"),
    **_classed(FP32, *("linalg." + name for name in (
        "cholesky", "cholesky_ex", "inv", "inv_ex", "solve", "svd", "svdvals", "eig", "eigvals", "eigh",
        "eigvalsh", "qr", "lstsq", "cond", "matrix_rank", "matrix_norm", "tensorinv", "tensorsolve",
        "householder_product"))),
    "index_copy": PROMOTE,
    **_classed(AS_IS, "bilinear", "mv", "addmv"),
    "functional.pad": _pad_policy,
    "functional.local_response_norm": _local_response_norm_policy,
}


def table_policies():
    """The API table's classed rows: every torch.* and Tensor.* name of such a row -> its class."""
    return {name: row["autocast"] for row in _api_table() if row["autocast"]
            for name in (*row["functions"], *row["methods"])}

_ELIGIBLE = (float32, float16, bfloat16)  # float64 is never cast, as in torch


def _lower(t, to):
    """t in the autocast dtype; the cast of a float32 leaf parameter is made once per autocast region."""
    if not (state.cache_enabled and t.dtype == float32 and t.requires_grad and t.is_leaf and not t._is_view()):
        return t.to(to)
    hit = state.cast_cache.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    cast = t.to(to)
    state.cast_cache[id(t)] = (t, cast)  # holding t keeps its id from being reused while cached
    return cast


def _cast(value, to, policy):
    """value (a tensor, a list or tuple of them, anything else) with its castable floating tensors in `to`."""
    if isinstance(value, Tensor):
        dtype = value.dtype
        if dtype == to or dtype not in _ELIGIBLE:
            return value
        return _lower(value, to) if policy == LOWER_PRECISION_FP else value.to(to)
    if isinstance(value, (list, tuple)) and any(isinstance(t, Tensor) for t in value):
        return type(value)(_cast(t, to, policy) for t in value)
    return value


def _widest(args, kwargs):
    widest = state.cpu_dtype
    for value in (*args, *kwargs.values()):
        for t in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(t, Tensor) and t.dtype in _ELIGIBLE:
                widest = promote_types(widest, t.dtype)
    return widest


def _run(fn, policy, args, kwargs):
    """fn under autocast: its inputs cast by the policy, and autocast off while it runs."""
    if not isinstance(policy, str):
        policy = policy(*args, **kwargs)
    if kwargs.get("out") is not None:
        policy = AS_IS  # torch's autocast lists hold no out= forms: they run as called
    if policy == LOWER_PRECISION_FP:
        to = state.cpu_dtype
    elif policy == FP32:
        to = float32  # only the narrower floats change: float32 is already it, float64 is not castable
    elif policy == PROMOTE:
        to = _widest(args, kwargs)
    else:
        to = None
    if to is not None:
        args = [_cast(a, to, policy) for a in args]
        if kwargs:
            kwargs = {k: _cast(v, to, policy) for k, v in kwargs.items()}
    state.cpu_enabled = False
    try:
        return fn(*args, **kwargs)
    finally:
        state.cpu_enabled = True


def _wrap(fn, policy):
    """fn as an autocast op: _C._autocast_shim calls fn straight through while autocast is off on this thread
    (a thread-local read in C++, no Python frame) and _run while it is on."""
    autocast_op = functools.update_wrapper(_autocast_shim(fn, _run, policy), fn)
    autocast_op.autocast_policy = policy
    return autocast_op


def install(torch_module, functional, linalg):
    """Wraps the listed functions and rebinds every reference to them in lazytensor's modules and Tensor."""
    wrappers = {}  # id(original) -> wrapper

    def add(obj, policy):
        if isinstance(obj, types.ModuleType):  # lazytensor.trace: the fusion lab, which calls torch.trace
            return
        if obj is not None and id(obj) not in wrappers and not hasattr(obj, "autocast_policy"):
            wrappers[id(obj)] = _wrap(obj, policy)

    namespaces = (torch_module.__dict__, torch_module.functional.__dict__, Tensor.__dict__, functional.__dict__,
                  torch_module._C.__dict__)
    scoped = {"linalg": (linalg.__dict__,), "functional": (functional.__dict__,)}
    for name, policy in (*table_policies().items(), *POLICIES.items()):
        scope, _, short = name.rpartition(".")
        for namespace in scoped[scope] if scope else namespaces:
            add(namespace.get(short), policy)

    for name, original in list(Tensor.__dict__.items()):
        if id(original) in wrappers:
            setattr(Tensor, name, wrappers[id(original)])
    prefix = torch_module.__name__
    classes = set()
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == prefix or module_name.startswith(prefix + ".")):
            continue
        namespace = module.__dict__
        for name, value in list(namespace.items()):
            if id(value) in wrappers:
                namespace[name] = wrappers[id(value)]
            elif isinstance(value, type) and value.__module__.startswith(prefix + ".") and value is not Tensor:
                classes.add(value)
    for cls in classes:  # a layer that holds its function as a class attribute: nn.Conv2d's _fn
        for name, value in list(vars(cls).items()):
            if isinstance(value, staticmethod) and id(value.__func__) in wrappers:
                setattr(cls, name, staticmethod(wrappers[id(value.__func__)]))
            elif id(value) in wrappers:
                setattr(cls, name, wrappers[id(value)])
