"""torch.autocast against PyTorch 1.13's CPU autocast: output dtypes per op, the state API, training loops.

The op table runs every op of amp/_op_policy.py's lists that lazytensor has (and the common unlisted ones)
under autocast("cpu", bfloat16) in both libraries, from float32, bfloat16 and float64 inputs, and compares
the output dtypes. The training loops start lazytensor and torch from the same weights and data and
compare the losses at every step within bfloat16 tolerance.
"""
import threading
import warnings

import numpy as np
import pytest
import torch as ref

import lazytensor as torch
from lazytensor.amp import _op_policy
from test_api_keywords import samples


def _data(seed, *shape):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


A, B = _data(0, 4, 4), _data(1, 4, 4)
X3 = _data(2, 2, 4, 4)
IMG, VOL, SEQ = _data(3, 1, 2, 6, 6), _data(4, 1, 2, 4, 4, 4), _data(5, 1, 2, 8)
P = np.random.RandomState(6).rand(4, 4).astype(np.float32) * 0.8 + 0.1
T01 = np.random.RandomState(7).rand(4, 4).astype(np.float32)
SPD = A @ A.T + 4 * np.eye(4, dtype=np.float32)
W_CONV1, W_CONV2, W_CONV3 = _data(8, 3, 2, 3), _data(9, 3, 2, 3, 3), _data(10, 3, 2, 2, 2, 2)
W_TCONV1, W_TCONV2, W_TCONV3 = _data(11, 2, 3, 3), _data(12, 2, 3, 3, 3), _data(13, 2, 3, 2, 2, 2)
TARGET = np.array([0, 3, 1, 2])
ONES4 = np.ones(4, np.float32)

# name -> case(lib, f): f makes a floating tensor of the case's input dtype from a numpy array
CASES = {
    "mm": lambda t, f: t.mm(f(A), f(B)),
    "matmul": lambda t, f: t.matmul(f(A), f(B)),
    "operator @": lambda t, f: f(A) @ f(B),
    "Tensor.matmul": lambda t, f: f(A).matmul(f(B)),
    "__rmatmul__": lambda t, f: f(B).__rmatmul__(f(A)),
    "bmm": lambda t, f: t.bmm(f(X3), f(X3)),
    "baddbmm": lambda t, f: t.baddbmm(f(X3), f(X3), f(X3)),
    "addmm": lambda t, f: t.addmm(f(A), f(A), f(B)),
    "addbmm": lambda t, f: t.addbmm(f(A), f(X3), f(X3)),
    "linear": lambda t, f: t.nn.functional.linear(f(A), f(B), f(A[0])),
    "nn.Linear": lambda t, f: _linear_module(t)(f(A)),
    "conv1d": lambda t, f: t.nn.functional.conv1d(f(SEQ), f(W_CONV1)),
    "conv2d": lambda t, f: t.nn.functional.conv2d(f(IMG), f(W_CONV2)),
    "conv3d": lambda t, f: t.nn.functional.conv3d(f(VOL), f(W_CONV3)),
    "conv_transpose1d": lambda t, f: t.nn.functional.conv_transpose1d(f(SEQ), f(W_TCONV1)),
    "conv_transpose2d": lambda t, f: t.nn.functional.conv_transpose2d(f(IMG), f(W_TCONV2)),
    "conv_transpose3d": lambda t, f: t.nn.functional.conv_transpose3d(f(VOL), f(W_TCONV3)),
    "prelu": lambda t, f: t.nn.functional.prelu(f(A), f(np.array([0.25], np.float32))),
    "mv": lambda t, f: t.mv(f(A), f(A[0])),
    "dot": lambda t, f: t.dot(f(A[0]), f(A[1])),
    "addmv": lambda t, f: t.addmv(f(A[0]), f(A), f(A[0])),
    "addr": lambda t, f: t.addr(f(A), f(A[0]), f(A[1])),
    "einsum": lambda t, f: t.einsum("ij,jk->ik", f(A), f(B)),
    "tensordot": lambda t, f: t.tensordot(f(A), f(B), 1),
    "chain_matmul": lambda t, f: t.chain_matmul(f(A), f(B), f(A)),
    "linalg.multi_dot": lambda t, f: t.linalg.multi_dot([f(A), f(B), f(A)]),
    "matrix_power": lambda t, f: t.matrix_power(f(A), 3),
    "bilinear": lambda t, f: t.nn.functional.bilinear(f(A), f(A), f(_data(14, 3, 4, 4))),
    "mse_loss": lambda t, f: t.nn.functional.mse_loss(f(A), f(B)),
    "l1_loss": lambda t, f: t.nn.functional.l1_loss(f(A), f(B)),
    "smooth_l1_loss": lambda t, f: t.nn.functional.smooth_l1_loss(f(A), f(B)),
    "huber_loss": lambda t, f: t.nn.functional.huber_loss(f(A), f(B)),
    "binary_cross_entropy": lambda t, f: t.nn.functional.binary_cross_entropy(f(P), f(T01)),
    "binary_cross_entropy_with_logits": lambda t, f: t.nn.functional.binary_cross_entropy_with_logits(f(A), f(T01)),
    "kl_div": lambda t, f: t.nn.functional.kl_div(f(A), f(P), reduction="mean"),
    "cross_entropy": lambda t, f: t.nn.functional.cross_entropy(f(A), t.tensor(TARGET)),
    "nn.CrossEntropyLoss": lambda t, f: t.nn.CrossEntropyLoss()(f(A), t.tensor(TARGET)),
    "nll_loss": lambda t, f: t.nn.functional.nll_loss(f(A), t.tensor(TARGET)),
    "poisson_nll_loss": lambda t, f: t.nn.functional.poisson_nll_loss(f(A), f(P)),
    "soft_margin_loss": lambda t, f: t.nn.functional.soft_margin_loss(f(A), f(T01)),
    "margin_ranking_loss": lambda t, f: t.nn.functional.margin_ranking_loss(f(A[0]), f(A[1]), f(ONES4)),
    "hinge_embedding_loss": lambda t, f: t.nn.functional.hinge_embedding_loss(f(A), f(np.ones((4, 4), np.float32))),
    "cosine_embedding_loss": lambda t, f: t.nn.functional.cosine_embedding_loss(f(A), f(B), f(ONES4)),
    "triplet_margin_loss": lambda t, f: t.nn.functional.triplet_margin_loss(f(A), f(B), f(A * 2)),
    "multi_margin_loss": lambda t, f: t.nn.functional.multi_margin_loss(f(A), t.tensor(TARGET)),
    "multilabel_margin_loss": lambda t, f: t.nn.functional.multilabel_margin_loss(
        f(A), t.tensor(np.array([[0, 1, -1, 0]] * 4))),
    "multilabel_soft_margin_loss": lambda t, f: t.nn.functional.multilabel_soft_margin_loss(f(A), f(T01)),
    "gaussian_nll_loss": lambda t, f: t.nn.functional.gaussian_nll_loss(f(A), f(B), f(P)),
    "avg_pool1d": lambda t, f: t.nn.functional.avg_pool1d(f(SEQ), 2),
    "avg_pool2d": lambda t, f: t.nn.functional.avg_pool2d(f(IMG), 2),
    "avg_pool3d": lambda t, f: t.nn.functional.avg_pool3d(f(VOL), 2),
    "max_pool1d": lambda t, f: t.nn.functional.max_pool1d(f(SEQ), 2),
    "max_pool2d": lambda t, f: t.nn.functional.max_pool2d(f(IMG), 2),
    "max_pool3d": lambda t, f: t.nn.functional.max_pool3d(f(VOL), 2),
    "adaptive_avg_pool2d": lambda t, f: t.nn.functional.adaptive_avg_pool2d(f(IMG), 2),
    "adaptive_avg_pool3d": lambda t, f: t.nn.functional.adaptive_avg_pool3d(f(VOL), 2),
    "adaptive_max_pool2d": lambda t, f: t.nn.functional.adaptive_max_pool2d(f(IMG), 2),
    "max_unpool2d": lambda t, f: t.nn.functional.max_unpool2d(
        f(IMG[..., ::2, ::2].copy()), t.nn.functional.max_pool2d(t.tensor(IMG), 2, return_indices=True)[1], 2),
    "max_unpool3d": lambda t, f: t.nn.functional.max_unpool3d(
        f(VOL[..., ::2, ::2, ::2].copy()), t.nn.functional.max_pool3d(t.tensor(VOL), 2, return_indices=True)[1], 2),
    "pad reflect 1d": lambda t, f: t.nn.functional.pad(f(SEQ), (1, 1), mode="reflect"),
    "pad reflect 2d": lambda t, f: t.nn.functional.pad(f(IMG), (1, 1, 1, 1), mode="reflect"),
    "pad replicate 1d": lambda t, f: t.nn.functional.pad(f(SEQ), (1, 1), mode="replicate"),
    "pad replicate 2d": lambda t, f: t.nn.functional.pad(f(IMG), (1, 1, 1, 1), mode="replicate"),
    "pad replicate 3d": lambda t, f: t.nn.functional.pad(f(VOL), (1, 1, 1, 1, 1, 1), mode="replicate"),
    "pad constant": lambda t, f: t.nn.functional.pad(f(IMG), (1, 1)),
    "interpolate nearest": lambda t, f: t.nn.functional.interpolate(f(IMG), scale_factor=2),
    "interpolate bilinear": lambda t, f: t.nn.functional.interpolate(f(IMG), scale_factor=2, mode="bilinear"),
    "prod": lambda t, f: t.prod(f(A)),
    "prod dim": lambda t, f: f(A).prod(1),
    "quantile": lambda t, f: t.quantile(f(A), 0.5),
    "nanquantile": lambda t, f: t.nanquantile(f(A), 0.5),
    "cdist": lambda t, f: t.cdist(f(A), f(B)),
    "trace": lambda t, f: t.trace(f(A)),
    "inverse": lambda t, f: t.inverse(f(SPD)),
    "pinverse": lambda t, f: t.pinverse(f(A)),
    "linalg.cholesky": lambda t, f: t.linalg.cholesky(f(SPD)),
    "linalg.inv": lambda t, f: t.linalg.inv(f(SPD)),
    "linalg.solve": lambda t, f: t.linalg.solve(f(SPD), f(B)),
    "linalg.qr": lambda t, f: t.linalg.qr(f(A))[0],
    "linalg.svd": lambda t, f: t.linalg.svd(f(A))[1],
    "linalg.svdvals": lambda t, f: t.linalg.svdvals(f(A)),
    "linalg.eigh": lambda t, f: t.linalg.eigh(f(A + A.T))[0],
    "linalg.eigvalsh": lambda t, f: t.linalg.eigvalsh(f(A + A.T)),
    "linalg.lstsq": lambda t, f: t.linalg.lstsq(f(SPD), f(B))[0],
    "linalg.matrix_norm": lambda t, f: t.linalg.matrix_norm(f(A)),
    "linalg.matrix_rank": lambda t, f: t.linalg.matrix_rank(f(A)).float(),
    "linalg.pinv": lambda t, f: t.linalg.pinv(f(A)),
    "linalg.cross": lambda t, f: t.linalg.cross(f(A[:, :3]), f(A[:, 1:])),
    "linalg.vector_norm": lambda t, f: t.linalg.vector_norm(f(A)),
    "linalg.norm": lambda t, f: t.linalg.norm(f(A)),
    "norm": lambda t, f: t.norm(f(A)),
    "cat": lambda t, f: t.cat([f(A), t.tensor(B).bfloat16()]),
    "concat": lambda t, f: t.concat([f(A), t.tensor(B).bfloat16()]),
    "stack": lambda t, f: t.stack([f(A), t.tensor(B).bfloat16()]),
    "index_copy": lambda t, f: f(A).index_copy(0, t.tensor([0, 1]), t.tensor(B[:2]).bfloat16()),
    "softmax": lambda t, f: t.nn.functional.softmax(f(A), 1),
    "log_softmax": lambda t, f: t.nn.functional.log_softmax(f(A), 1),
    "layer_norm": lambda t, f: t.nn.functional.layer_norm(f(A), (4,)),
    "group_norm": lambda t, f: t.nn.functional.group_norm(f(IMG), 1),
    "batch_norm": lambda t, f: t.nn.functional.batch_norm(f(IMG), None, None, training=True),
    "instance_norm": lambda t, f: t.nn.functional.instance_norm(f(IMG)),
    "gelu": lambda t, f: t.nn.functional.gelu(f(A)),
    "relu": lambda t, f: t.relu(f(A)),
    "sum": lambda t, f: f(A).sum(),
    "mean": lambda t, f: f(A).mean(),
    "cumsum": lambda t, f: f(A).cumsum(0),
    "cumprod": lambda t, f: f(A).cumprod(0),
    "logsumexp": lambda t, f: f(A).logsumexp(0),
    "exp": lambda t, f: f(A).exp(),
    "pow": lambda t, f: f(A).pow(2),
    "add bf16": lambda t, f: f(A) + t.tensor(B).bfloat16(),
    "addcmul": lambda t, f: t.addcmul(f(A), f(A), t.tensor(B).bfloat16()),
    "cosine_similarity": lambda t, f: t.nn.functional.cosine_similarity(f(A), f(B)),
    "pairwise_distance": lambda t, f: t.nn.functional.pairwise_distance(f(A), f(B)),
    "dist": lambda t, f: t.dist(f(A), f(B)),
    "embedding": lambda t, f: t.nn.functional.embedding(t.tensor(TARGET), f(A)),
    "multi_head_attention_forward": lambda t, f: t.nn.functional.multi_head_attention_forward(
        f(X3.transpose(1, 0, 2).copy()), f(X3.transpose(1, 0, 2).copy()), f(X3.transpose(1, 0, 2).copy()), 4, 2,
        f(_data(15, 12, 4)), f(_data(16, 12)), None, None, False, 0.0, f(_data(17, 4, 4)), f(_data(18, 4)),
        need_weights=False)[0],
    "inner": lambda t, f: t.inner(f(A), f(B)),
    "outer": lambda t, f: t.outer(f(A[0]), f(A[1])),
    "vdot": lambda t, f: t.vdot(f(A[0]), f(A[1])),
    "kron": lambda t, f: t.kron(f(A), f(B)),
    "normalize": lambda t, f: t.nn.functional.normalize(f(A)),
    "unfold": lambda t, f: t.nn.functional.unfold(f(IMG), 2),
    "local_response_norm 4-d": lambda t, f: t.nn.functional.local_response_norm(f(IMG), 2),
    "local_response_norm 3-d": lambda t, f: t.nn.functional.local_response_norm(f(SEQ), 2),
    "nn.Conv2d": lambda t, f: _module(t, t.nn.Conv2d, 2, 3, 3)(f(IMG)),
    "nn.ConvTranspose2d": lambda t, f: _module(t, t.nn.ConvTranspose2d, 2, 3, 3)(f(IMG)),
    "nn.RNN": lambda t, f: _module(t, t.nn.RNN, 4, 3)(f(X3))[0],
    "nn.LSTM": lambda t, f: _module(t, t.nn.LSTM, 4, 3)(f(X3))[0],
    "nn.GRU": lambda t, f: _module(t, t.nn.GRU, 4, 3)(f(X3))[0],
    "nn.LSTMCell": lambda t, f: _module(t, t.nn.LSTMCell, 4, 3)(f(A))[0],
    "nn.GRUCell": lambda t, f: _module(t, t.nn.GRUCell, 4, 3)(f(A)),
    "nn.MultiheadAttention": lambda t, f: _module(t, t.nn.MultiheadAttention, 4, 2)(f(X3), f(X3), f(X3))[0],
    "nn.MultiheadAttention weights": lambda t, f: _module(t, t.nn.MultiheadAttention, 4, 2)(f(X3), f(X3), f(X3))[1],
    "nn.TransformerEncoderLayer": lambda t, f: _module(t, t.nn.TransformerEncoderLayer, 4, 2, 8, dropout=0.0)(f(X3)),
    "nn.LayerNorm": lambda t, f: _module(t, t.nn.LayerNorm, 4)(f(A)),
    "nn.BatchNorm2d": lambda t, f: _module(t, t.nn.BatchNorm2d, 2)(f(IMG)),
}

# torch's layer_norm raises for a bfloat16 or float64 input with float32 parameters, and its batch_norm for a
# float64 one; lazytensor's promote (docs/dtypes.md). Every other error torch raises here, lazytensor raises.
_LAZYTENSOR_ACCEPTS = {("nn.LayerNorm", "bfloat16"), ("nn.LayerNorm", "float64"), ("nn.BatchNorm2d", "float64"),
                       ("nn.TransformerEncoderLayer", "bfloat16")}

# Where lazytensor differs from torch, as docs/dtypes.md says: torch's linalg.pinv is composite, an SVD in
# float32 (FP32 list) then a matmul in bfloat16, while lazytensor's is one float32 decomposition on the host,
# which refuses bfloat16 input as .numpy() does (TypeError; torch's SVD raises RuntimeError).
_KNOWN_DIFFERENCES = {("linalg.pinv", "float32"): ("float32", "bfloat16"),
                      ("linalg.pinv", "bfloat16"): ("raises TypeError", "raises RuntimeError")}

_LIBS = {"lazytensor": torch, "torch": ref}


def _module(t, cls, *args, **kwargs):
    """The layer in float32, its parameters autocast like any other float32 input."""
    t.manual_seed(0)
    return cls(*args, **kwargs)


def _linear_module(t):
    t.manual_seed(0)
    return t.nn.Linear(4, 4)


def _output_dtype(lib, case, input_dtype):
    t = _LIBS[lib]

    def f(array):
        return t.tensor(array).to(getattr(t, input_dtype))

    try:
        with t.autocast("cpu", dtype=t.bfloat16):
            return str(case(t, f).dtype).replace("torch.", "")
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
        return "raises " + type(e).__name__


def _has(case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case(torch, lambda a: torch.tensor(a))
    except (AttributeError, NotImplementedError):
        return False
    except (RuntimeError, TypeError, ValueError):
        pass  # index_copy of mixed dtypes raises outside autocast, as in torch
    return True


@pytest.mark.parametrize("input_dtype", ["float32", "bfloat16", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_output_dtype_under_autocast_matches_torch(name, input_dtype):
    case = CASES[name]
    if not _has(case):
        pytest.skip("lazytensor has no " + name)
    expected = _output_dtype("torch", case, input_dtype)
    got = _output_dtype("lazytensor", case, input_dtype)
    if expected.startswith("raises") and (name, input_dtype) in _LAZYTENSOR_ACCEPTS:
        pytest.skip("torch 1.13 " + expected + "; lazytensor gives " + got)
    if (name, input_dtype) in _KNOWN_DIFFERENCES:
        assert (got, expected) == _KNOWN_DIFFERENCES[name, input_dtype]
        return
    assert got == expected, "{} from {} under autocast: lazytensor {}, torch {}".format(
        name, input_dtype, got, expected)


def test_every_op_of_the_table_that_lazytensor_has_is_a_dtype_case():
    aliases = {"__matmul__": "operator @", "functional.pad": "pad reflect 2d",
               "functional.local_response_norm": "local_response_norm 4-d"}
    for name in (*_op_policy.table_policies(), *_op_policy.POLICIES):
        scope, _, short = name.rpartition(".")
        spaces = {"linalg": (torch.linalg,), "functional": (torch.nn.functional,)}.get(
            scope, (torch, torch.nn.functional, torch.Tensor))
        if any(hasattr(ns, short) for ns in spaces):
            assert aliases.get(name, name) in CASES, name


def test_a_function_of_the_api_table_is_classed_by_its_row_alone():
    table_names = {name for row in torch._C._api_table() for name in (*row["functions"], *row["methods"])}
    assert not table_names & set(_op_policy.POLICIES)


def _torch_autocast_class(call):
    """What torch 1.13's CPU autocast does to call(f), f making each floating input of a dtype: the class of
    a kernel that casts float32 inputs to bfloat16 (lower precision), bfloat16 ones to float32 (float32), or
    computes the widest input dtype (promote: torch 1.13's at::autocast::prioritize raises for a float16
    input under bfloat16 autocast); None when the call runs in its inputs' dtypes."""
    def dtype_of(dtype, enabled=True):
        with ref.autocast("cpu", dtype=ref.bfloat16, enabled=enabled):
            out = call(lambda x: x.to(dtype))
        return (out[0] if isinstance(out, (tuple, list)) else out).dtype

    dtype_of(ref.float32, enabled=False)  # the sample call itself runs
    if dtype_of(ref.float32) == ref.bfloat16:
        return _op_policy.LOWER_PRECISION_FP
    if dtype_of(ref.bfloat16) == ref.float32:
        return _op_policy.FP32
    try:
        dtype_of(ref.float16)
    except RuntimeError as e:
        if "at::autocast::prioritize" in str(e):
            return _op_policy.PROMOTE
    return None


def _floating_as(value, f):
    if isinstance(value, ref.Tensor):
        return f(value) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_floating_as(v, f) for v in value)
    if isinstance(value, dict):
        return {k: _floating_as(v, f) for k, v in value.items()}
    return value


@pytest.mark.parametrize("row", [row["name"] for row in torch._C._api_table()])
def test_the_autocast_class_of_an_api_table_row_is_torch_s(row):
    """Each form of the row, called as the row's first sample in test_api_keywords.py (without dtype=, which
    would fix the output dtype), is classed by torch 1.13's autocast as the row says."""
    entry = next(r for r in torch._C._api_table() if r["name"] == row)
    first, kwargs = samples(ref, row)[0]
    kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}

    def function(name):
        return lambda f: getattr(ref, name)(_floating_as(first, f), **_floating_as(kwargs, f))

    def method(name):
        return lambda f: getattr(_floating_as(first, f), name)(**_floating_as(kwargs, f))

    forms = {**{"torch." + n: function(n) for n in entry["functions"]},
             **{"Tensor." + n: method(n) for n in entry["methods"]}}
    for form, call in forms.items():
        assert _torch_autocast_class(call) == entry["autocast"], form


def test_every_listed_op_is_installed():
    wrapped = {name for name, value in vars(torch.nn.functional).items() if hasattr(value, "autocast_policy")}
    wrapped |= {name for name, value in vars(torch).items() if hasattr(value, "autocast_policy")}
    for name in ("linear", "conv2d", "mse_loss", "cross_entropy", "conv_transpose2d", "pad", "mm", "bmm",
                 "matmul", "stack", "prod", "cdist", "bilinear"):
        assert name in wrapped, name
    assert torch.Tensor.__matmul__.autocast_policy == _op_policy.LOWER_PRECISION_FP
    assert torch.nn.functional.linear.autocast_policy == _op_policy.LOWER_PRECISION_FP
    assert torch.nn.functional.mse_loss.autocast_policy == _op_policy.FP32
    assert torch.stack.autocast_policy == _op_policy.PROMOTE
    assert not hasattr(torch.cat, "autocast_policy")  # torch 1.13's cat does not promote under autocast


@pytest.mark.parametrize("name", ["cat", "concat", "stack"])
@pytest.mark.parametrize("first", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("second", ["float16", "bfloat16", "float32", "float64"])
def test_joining_under_autocast_matches_torch_for_every_pair_of_dtypes(name, first, second):
    """float16 included: torch 1.13's cat keeps float16 under bfloat16 autocast, and its stack raises for a
    float16 input met before any float32 one (at::autocast::prioritize), where lazytensor's promotes."""
    def case(t, f):
        return getattr(t, name)([t.tensor(A).to(getattr(t, first)), t.tensor(B).to(getattr(t, second))])
    expected = _output_dtype("torch", case, "float32")
    got = _output_dtype("lazytensor", case, "float32")
    # prioritize meets float16 while its running type is still bfloat16, before any float32 input
    torch_raises = "float16" in (first, second)[: (first, second, "float32").index("float32")]
    if name == "stack" and torch_raises:
        widest = "float64" if "float64" in (first, second) else "float32"
        assert (got, expected) == (widest, "raises RuntimeError")
        return
    assert got == expected


# ---- the state and the context manager ----

def test_defaults_match_torch():
    for name in ("is_autocast_enabled", "is_autocast_cpu_enabled", "get_autocast_cpu_dtype",
                 "get_autocast_gpu_dtype", "is_autocast_cache_enabled"):
        assert str(getattr(torch, name)()) == str(getattr(ref, name)()), name
    assert torch.get_autocast_cpu_dtype() is torch.bfloat16


def test_cpu_region_casts_and_restores():
    a = torch.ones(2, 2)
    with torch.autocast("cpu"):
        assert torch.is_autocast_cpu_enabled()
        assert (a @ a).dtype == torch.bfloat16
    assert not torch.is_autocast_cpu_enabled()
    assert (a @ a).dtype == torch.float32


def test_enabled_false_nested_inside_turns_autocast_off():
    a = torch.ones(2, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.autocast("cpu", enabled=False):
            assert not torch.is_autocast_cpu_enabled()
            assert (a @ a).dtype == torch.float32
            with torch.autocast("cpu"):
                assert (a @ a).dtype == torch.bfloat16
            assert (a @ a).dtype == torch.float32
        assert torch.is_autocast_cpu_enabled()
        assert torch.mm(a, a).dtype == torch.bfloat16
    assert not torch.is_autocast_cpu_enabled()


def test_region_is_restored_when_the_body_raises():
    with pytest.raises(ValueError):
        with torch.autocast("cpu"):
            raise ValueError("body")
    assert not torch.is_autocast_cpu_enabled()
    assert torch.autocast_increment_nesting() == 1 and torch.autocast_decrement_nesting() == 0


def test_decorators():
    a = torch.ones(2, 2)

    @torch.autocast("cpu")
    def f(x):
        return x @ x

    @torch.cpu.amp.autocast()
    def g(x):
        return torch.nn.functional.linear(x, x)

    assert f(a).dtype == torch.bfloat16 and g(a).dtype == torch.bfloat16
    assert f.__name__ == "f"
    assert not torch.is_autocast_cpu_enabled()
    assert isinstance(torch.cpu.amp.autocast(), torch.autocast)
    assert torch.amp.autocast is torch.autocast


def test_enter_returns_none_as_torch():
    with torch.autocast("cpu") as ctx, ref.autocast("cpu") as rctx:
        assert ctx is None and rctx is None


def test_state_is_per_thread():
    a = torch.ones(2, 2)
    seen = {}

    def other():
        seen["enabled"] = torch.is_autocast_cpu_enabled()
        seen["dtype"] = (a @ a).dtype
        with torch.autocast("cpu"):
            seen["inner"] = (a @ a).dtype

    with torch.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert (a @ a).dtype == torch.bfloat16
    assert seen == {"enabled": False, "dtype": torch.float32, "inner": torch.bfloat16}

    # a region entered in another thread leaves this one alone
    started, release = threading.Event(), threading.Event()

    def hold():
        with torch.autocast("cpu"):
            started.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    started.wait(5)
    try:
        assert not torch.is_autocast_cpu_enabled()
        assert (a @ a).dtype == torch.float32
    finally:
        release.set()
        t.join()


def test_cuda_autocast_warns_and_disables_itself_as_torch():
    a = torch.ones(2, 2)
    for lib in (torch, ref):
        with pytest.warns(UserWarning, match="CUDA is not available. Disabling"):
            ctx = lib.autocast("cuda")
        with ctx:
            assert not lib.is_autocast_enabled() and not lib.is_autocast_cpu_enabled()
        with pytest.warns(UserWarning, match="CUDA is not available"):
            ctx = lib.cuda.amp.autocast()
        assert ctx.fast_dtype == lib.float16
        with pytest.raises(AssertionError):  # torch.cuda.is_bf16_supported() needs a device
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.cuda.amp.autocast(dtype=lib.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.cuda.amp.autocast():
            assert (a @ a).dtype == torch.float32


def test_cpu_autocast_with_another_dtype_warns_disables_and_enter_raises_as_torch():
    for lib in (torch, ref):
        with pytest.warns(UserWarning, match="CPU Autocast only supports dtype of torch.bfloat16"):
            ctx = lib.autocast("cpu", dtype=lib.float16)
        with pytest.raises(RuntimeError, match="AutocastCPU only support Bfloat16"):
            with ctx:
                pass
        assert not lib.is_autocast_cpu_enabled()
        assert lib.autocast_increment_nesting() == 1 and lib.autocast_decrement_nesting() == 0


@pytest.mark.parametrize("call, error, match", [
    (lambda t: t.autocast("xla"), RuntimeError, "device_type must be 'cuda' or 'cpu'"),
    (lambda t: t.autocast(), TypeError, "device_type"),
    (lambda t: t.set_autocast_cpu_dtype(t.float32), RuntimeError, "only support Bfloat16"),
    (lambda t: t.set_autocast_cpu_dtype("bfloat16"), TypeError, "dtype must be a torch.dtype"),
    (lambda t: t.set_autocast_cpu_enabled(1), TypeError, "enabled must be a bool"),
    (lambda t: t.set_autocast_enabled(None), TypeError, "enabled must be a bool"),
    (lambda t: t.set_autocast_cache_enabled(0), TypeError, "enabled must be a bool"),
])
def test_bad_arguments_raise_as_torch(call, error, match):
    for lib in (torch, ref):
        with pytest.raises(error, match=match):
            call(lib)


def test_set_autocast_cpu_enabled_without_a_region():
    a = torch.ones(2, 2)
    torch.set_autocast_cpu_enabled(True)
    try:
        assert (a @ a).dtype == torch.bfloat16
    finally:
        torch.set_autocast_cpu_enabled(False)
    assert (a @ a).dtype == torch.float32


def test_float64_and_integer_inputs_are_not_cast():
    d = torch.ones(2, 2, dtype=torch.float64)
    i = torch.ones(2, 2, dtype=torch.int64)
    with torch.autocast("cpu"):
        assert (d @ d).dtype == torch.float64
        assert (i @ i).dtype == torch.int64
        assert torch.nn.functional.mse_loss(d, d).dtype == torch.float64


def test_parameter_casts_are_cached_per_region():
    lin = torch.nn.Linear(4, 4)
    x = torch.ones(2, 4)
    cache = _op_policy.state.cast_cache
    with torch.autocast("cpu"):
        lin(x)
        lin(x)
        assert set(cache) == {id(lin.weight), id(lin.bias)}
        with torch.autocast("cpu"):  # an inner region shares the outer one's cache
            lin(x)
            assert len(cache) == 2
        assert len(cache) == 2
    assert cache == {}  # dropped when the outermost region exits
    with torch.autocast("cpu", cache_enabled=False):
        lin(x)
        assert cache == {}
    with torch.autocast("cpu"):
        torch.mm(x, x.t())  # not a leaf that requires grad
        assert cache == {}


def test_cached_cast_is_the_same_pending_node_and_gradients_add_up():
    w_np = _data(20, 4, 4)
    x_np = _data(21, 3, 4)
    grads = {}
    for lib in (torch, ref):
        w = lib.tensor(w_np, requires_grad=True)
        x = lib.tensor(x_np)
        with lib.autocast("cpu"):
            y = lib.nn.functional.linear(x, w)
            z = lib.nn.functional.linear(y, w)
            loss = z.float().pow(2).sum()
        loss.backward()
        assert w.grad.dtype == lib.float32
        grads[lib.__name__] = w.grad.detach().numpy()
    np.testing.assert_allclose(grads["lazytensor"], grads["torch"], rtol=3e-2, atol=3e-2)


# ---- training loops: lazytensor and torch from the same weights and data ----

def _copy_parameters(lt_module, ref_module):
    lt_module.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in ref_module.state_dict().items()})


def _train(lib, model, optimizer, batches, loss_fn, record):
    """The loss of every step; record gets the dtype of every layer's output (forward hooks), of the
    model's output, the loss and the gradients, and the outputs of the first step."""
    losses = []
    for name, layer in model.named_modules():
        if name:
            layer.register_forward_hook(
                lambda m, i, o, name=name: record.append((name, str(o.dtype))) if isinstance(o, lib.Tensor) else None)
    for x, y in batches:
        optimizer.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = model(lib.tensor(x))
            loss = loss_fn(out, lib.tensor(y))
        record.append((str(out.dtype), str(loss.dtype)))
        if len(losses) == 0:
            record.append(out.detach().float().numpy())
        loss.backward()
        record.append(tuple(str(p.grad.dtype) for p in model.parameters()))
        optimizer.step()
        losses.append(loss.item())
    return losses


def _compare_records(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if isinstance(e, np.ndarray):  # bfloat16 outputs: a few units of bfloat16's last place apart
            np.testing.assert_allclose(g, e, rtol=2e-2, atol=2e-2 * np.abs(e).max())
        else:
            assert g == e


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(64, 128), lib.nn.ReLU(), lib.nn.Linear(128, 128), lib.nn.ReLU(),
                             lib.nn.Linear(128, 10))


def test_mlp_autocast_training_matches_torch():
    ref.manual_seed(0)
    rmodel = _mlp(ref)
    model = _mlp(torch)
    _copy_parameters(model, rmodel)
    rs = np.random.RandomState(0)
    teacher = rs.randn(64, 10)
    inputs = [rs.randn(32, 64).astype(np.float32) for _ in range(2)]
    batches = [(x, (x @ teacher).argmax(1)) for x in inputs] * 5  # labels it can learn, two batches in turn
    records = {"lazytensor": [], "torch": []}
    losses = _train(torch, model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), batches,
                    torch.nn.functional.cross_entropy, records["lazytensor"])
    rlosses = _train(ref, rmodel, ref.optim.SGD(rmodel.parameters(), lr=0.1, momentum=0.9), batches,
                     ref.nn.functional.cross_entropy, records["torch"])
    _compare_records(records["lazytensor"], records["torch"])
    assert records["torch"][:5] == [(str(i), "torch.bfloat16") for i in range(5)]  # Linear and ReLU outputs
    assert records["torch"][5] == ("torch.bfloat16", "torch.float32")  # logits, loss
    assert records["torch"][7] == ("torch.float32",) * 6  # gradients
    np.testing.assert_allclose(losses, rlosses, rtol=2e-2)
    assert losses[-1] < 0.9 * losses[0]  # it learns
    for p, rp in zip(model.parameters(), rmodel.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), rp.detach().numpy(), atol=2e-2)


class _Classifier:
    """Embedding -> TransformerEncoderLayer -> mean over tokens -> Linear, built from either library."""

    @staticmethod
    def build(lib, width=32):
        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = lib.nn.Embedding(50, width)
                self.block = lib.nn.TransformerEncoderLayer(width, 4, 2 * width, dropout=0.0, batch_first=True)
                self.head = lib.nn.Linear(width, 5)

            def forward(self, tokens):
                return self.head(self.block(self.embed(tokens)).mean(1))

        return Model()


def test_transformer_autocast_training_matches_torch():
    ref.manual_seed(0)
    rmodel = _Classifier.build(ref)
    model = _Classifier.build(torch)
    _copy_parameters(model, rmodel)
    rs = np.random.RandomState(1)
    batches = [(rs.randint(0, 50, (8, 12)), rs.randint(0, 5, 8)) for _ in range(8)]
    records = {"lazytensor": [], "torch": []}
    losses = _train(torch, model, torch.optim.Adam(model.parameters(), lr=1e-3), batches,
                    torch.nn.functional.cross_entropy, records["lazytensor"])
    rlosses = _train(ref, rmodel, ref.optim.Adam(rmodel.parameters(), lr=1e-3), batches,
                     ref.nn.functional.cross_entropy, records["torch"])
    _compare_records(records["lazytensor"], records["torch"])
    assert ("torch.bfloat16", "torch.float32") in records["torch"]
    np.testing.assert_allclose(losses, rlosses, rtol=2e-2)



def _tiny_gpt(lib, vocab=40, width=48, heads=4, context=16):
    """A GPT block written with Linear, LayerNorm, @, masked_fill, softmax and gelu, in either library."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(context, width)
            self.ln1, self.ln2, self.ln_f = nn.LayerNorm(width), nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.fc1, self.fc2 = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.register_buffer("mask", lib.tril(lib.ones(context, context)))

        def forward(self, idx):
            b, t = idx.shape
            x = self.tok(idx) + self.pos(lib.arange(t))
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (z.view(b, t, heads, width // heads).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / (width // heads) ** 0.5)
            att = att.masked_fill(self.mask[:t, :t] == 0, float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, width)
            x = x + self.proj(y)
            x = x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))
            return self.head(self.ln_f(x))

    return Block()


def test_tiny_gpt_autocast_training_matches_torch():
    ref.manual_seed(0)
    rmodel = _tiny_gpt(ref)
    model = _tiny_gpt(torch)
    _copy_parameters(model, rmodel)
    rs = np.random.RandomState(2)
    seqs = [rs.randint(0, 40, (4, 17)) for _ in range(2)]
    batches = [(s[:, :-1], s[:, 1:]) for s in seqs] * 4

    def loss_fn(lib):
        return lambda logits, y: lib.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    records = {"lazytensor": [], "torch": []}
    losses = _train(torch, model, torch.optim.AdamW(model.parameters(), lr=3e-3), batches, loss_fn(torch),
                    records["lazytensor"])
    rlosses = _train(ref, rmodel, ref.optim.AdamW(rmodel.parameters(), lr=3e-3), batches, loss_fn(ref),
                     records["torch"])
    _compare_records(records["lazytensor"], records["torch"])
    assert ("torch.bfloat16", "torch.float32") in records["torch"]
    np.testing.assert_allclose(losses, rlosses, rtol=2e-2)
    assert losses[-1] < 0.9 * losses[0]

# ---- GradScaler ----

GradScaler = torch.cuda.amp.GradScaler


def _scaler(**kwargs):
    return GradScaler(_allow_host=True, **kwargs)


def test_grad_scaler_is_disabled_without_cuda_as_torch():
    for lib in (torch, ref):
        with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
            scaler = lib.cuda.amp.GradScaler()
        assert scaler.is_enabled() is False
        assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    assert _scaler().is_enabled() is True


def _reference_update(scale, good_steps, found_inf, growth_factor, backoff_factor, growth_interval):
    """torch's documented update rule (torch._amp_update_scale_)."""
    if found_inf:
        return scale * backoff_factor, 0
    if good_steps + 1 == growth_interval:
        grown = np.float32(scale * growth_factor)
        return (float(grown) if np.isfinite(grown) else scale), 0
    return scale, good_steps + 1


def _step(scaler, opt, p, grad_value):
    """One iteration whose loss has gradient grad_value (an inf or NaN to overflow) w.r.t. p."""
    opt.zero_grad()
    loss = (p * torch.tensor(grad_value)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()


def test_grad_scaler_update_follows_torch_rule():
    p = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.SGD([p], lr=0.0)
    scaler = _scaler(init_scale=1024.0, growth_factor=2.0, backoff_factor=0.25, growth_interval=3)
    scale, good = 1024.0, 0
    for found_inf in [False, False, False, False, True, False, False, False, True, True, False, False, False]:
        _step(scaler, opt, p, float("inf") if found_inf else 1.0)
        scale, good = _reference_update(scale, good, found_inf, 2.0, 0.25, 3)
        assert scaler.get_scale() == scale
        assert scaler._get_growth_tracker() == good
    assert scale == 1024.0 * 2 * 0.25 * 2 * 0.25 * 0.25 * 2


def test_grad_scaler_scale_does_not_grow_past_float32():
    p = torch.nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([p], lr=0.0)
    scaler = _scaler(init_scale=2.0 ** 127, growth_interval=1)
    _step(scaler, opt, p, 0.0)
    assert scaler.get_scale() == 2.0 ** 127


def test_grad_scaler_scales_loss_and_unscales_gradients():
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    opt = torch.optim.SGD([p], lr=0.5)
    scaler = _scaler(init_scale=256.0)
    loss = (p * p).sum()
    scaled = scaler.scale(loss)
    assert scaled.shape == (1,) and scaled.item() == 256.0 * 14.0
    assert scaler.scale([loss, (loss, loss)])[1][0].item() == 256.0 * 14.0
    scaled.backward()
    np.testing.assert_array_equal(p.grad.numpy(), 256.0 * np.array([2.0, -4.0, 6.0], np.float32))
    scaler.unscale_(opt)
    np.testing.assert_array_equal(p.grad.numpy(), [2.0, -4.0, 6.0])
    scaler.step(opt)  # does not unscale again
    np.testing.assert_array_equal(p.detach().numpy(), [0.0, 0.0, 0.0])
    scaler.update()
    assert scaler.get_scale() == 256.0 and scaler._get_growth_tracker() == 1


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_grad_scaler_skips_the_step_and_backs_off_on_inf_or_nan(bad):
    p = torch.nn.Parameter(torch.ones(2))
    q = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p, q], lr=0.5)
    scaler = _scaler(init_scale=64.0)
    opt.zero_grad()
    loss = (p * torch.tensor([1.0, bad])).sum() + q.sum()
    scaler.scale(loss).backward()
    assert scaler.step(opt) is None
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 1.0])  # skipped
    np.testing.assert_array_equal(q.detach().numpy(), [1.0, 1.0])
    scaler.update()
    assert scaler.get_scale() == 32.0 and scaler._get_growth_tracker() == 0
    opt.zero_grad()
    scaler.scale(p.sum() + q.sum()).backward()
    scaler.step(opt)
    np.testing.assert_array_equal(p.detach().numpy(), [0.5, 0.5])  # a finite step runs


def test_grad_scaler_training_loop_with_autocast_learns():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = _scaler(init_scale=2.0 ** 16, growth_interval=2)
    rs = np.random.RandomState(0)
    x = torch.tensor(rs.randn(64, 8).astype(np.float32))
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(12):
        opt.zero_grad()
        with torch.autocast("cpu"):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        assert all(p.grad.dtype == torch.float32 for p in model.parameters())
    assert losses[-1] < 0.5 * losses[0]
    assert scaler.get_scale() == 2.0 ** 16 * 2 ** 6  # every step finite: grows every second one


def test_grad_scaler_call_order_errors_match_torch():
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = _scaler()
    with pytest.raises(AssertionError, match="Attempted unscale_ but _scale is None"):
        scaler.unscale_(opt)
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        scaler.step(opt)
    scaler.scale(p.sum()).backward()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called since the last update\\(\\)"):
        scaler.step(opt)
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        scaler.update()
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        _scaler(growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        _scaler(backoff_factor=1.0)


def test_grad_scaler_rejects_float16_gradients():
    p = torch.nn.Parameter(torch.ones(2, dtype=torch.float16))
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = _scaler()
    scaler.scale(p.float().sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.unscale_(opt)


def test_grad_scaler_update_with_new_scale():
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = _scaler()
    scaler.scale(p.sum()).backward()
    scaler.step(opt)
    scaler.update(8.0)
    assert scaler.get_scale() == 8.0
    scaler.scale(p.sum()).backward()
    scaler.step(opt)
    scaler.update(torch.tensor([4.0]))
    assert scaler.get_scale() == 4.0
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        scaler.scale(p.sum())
        scaler.update(torch.tensor([1.0, 2.0]))


def test_grad_scaler_state_dict_round_trip():
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = _scaler(init_scale=512.0, growth_factor=4.0, backoff_factor=0.125, growth_interval=5)
    for _ in range(2):
        _step(scaler, opt, p, 1.0)
    state = scaler.state_dict()
    assert state == {"scale": 512.0, "growth_factor": 4.0, "backoff_factor": 0.125, "growth_interval": 5,
                     "_growth_tracker": 2}
    fresh = _scaler()
    fresh.load_state_dict(state)
    assert fresh.state_dict() == state
    for _ in range(3):
        _step(fresh, opt, p, 1.0)
    assert fresh.get_scale() == 2048.0 and fresh._get_growth_tracker() == 0
    with pytest.raises(RuntimeError, match="saved from a disabled instance"):
        fresh.load_state_dict({})
    assert fresh.get_growth_factor() == 4.0 and fresh.get_backoff_factor() == 0.125
    assert fresh.get_growth_interval() == 5


def test_custom_fwd_and_custom_bwd_behave_as_torch():
    seen = {}
    for lib in (torch, ref):
        amp = lib.cuda.amp

        class Ctx:
            pass

        @amp.custom_fwd
        def forward(ctx, x):
            return x * 2, lib.is_autocast_enabled()

        @amp.custom_fwd(cast_inputs=lib.float32)
        def forward_fp32(ctx, x):
            return x.dtype, lib.is_autocast_enabled()

        @amp.custom_bwd
        def backward(ctx, g):
            return lib.is_autocast_enabled()

        x = lib.ones(2, dtype=lib.bfloat16)
        out = []
        for cuda_autocast in (False, True):
            lib.set_autocast_enabled(cuda_autocast)
            try:
                ctx, ctx32 = Ctx(), Ctx()
                _, inside = forward(ctx, x)
                dtype, inside32 = forward_fp32(ctx32, x)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # autocast("cuda") without CUDA
                    after = backward(ctx, x)
                out.append((ctx._fwd_used_autocast, inside, str(dtype), inside32, ctx32._fwd_used_autocast, after))
            finally:
                lib.set_autocast_enabled(False)
        seen[lib.__name__] = out
        assert forward.__name__ == "forward"
    assert seen["lazytensor"] == seen["torch"]
    assert seen["torch"][1][:2] == (True, True) and seen["torch"][1][3] is False


def test_out_forms_are_not_cast_as_torch():
    a_np = _data(22, 3, 3)
    for lib in (torch, ref):
        a = lib.tensor(a_np)
        o = lib.empty(3, 3)
        with lib.autocast("cpu"):
            r = lib.matmul(a, a, out=o)
            c = lib.empty(6, 3)
            lib.cat([a, a.bfloat16()], out=c)
        assert r is o and o.dtype == lib.float32 and c.dtype == lib.float32
        np.testing.assert_allclose(o.numpy(), a_np @ a_np, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(c.numpy()[:3], a_np)

def test_autocast_state_is_per_thread_and_wrapped_ops_bind_as_methods():
    """The shim reads the C++ per-thread flag: a new thread starts with autocast off; a wrapped Tensor method
    binds its tensor both when called and when taken as an attribute first."""
    import threading
    x = torch.ones(4, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert (x @ x).dtype == torch.bfloat16
        bound = x.matmul
        assert bound(x).dtype == torch.bfloat16
        seen = []
        t = threading.Thread(target=lambda: seen.append(((x @ x).dtype, torch.is_autocast_cpu_enabled())))
        t.start()
        t.join()
        assert seen == [(torch.float32, False)]
    assert (x @ x).dtype == torch.float32 and x.matmul(x).dtype == torch.float32
    assert torch.nn.functional.linear.__wrapped__.__name__ == "linear"
