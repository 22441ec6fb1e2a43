"""Coverage sweep: which of PyTorch 1.13's public names lazytensor has (issue #23).

Run with the Debian python, where `import torch` is PyTorch 1.13:

    PYTHONPATH=bindings/python /usr/bin/python3 tools/api_sweep.py [--markdown]

It enumerates four namespaces of torch and looks each name up on the matching lazytensor object
(`hasattr`):

- `torch`: public (no leading `_`) attributes that are not submodules or `typing` helpers, split into
  functions and classes, dtypes (`torch.dtype` instances) and constants (everything else that is not
  callable: `torch.pi`, `torch.strided`, flags such as `has_cuda`).
- `torch.Tensor`: public attributes of the class (methods and properties).
- `torch.nn`: public classes (layers, containers, `Parameter`).
- `torch.nn.functional`: public non-class callables defined by torch (not its `typing`, `math` or
  `torch.overrides` imports).

A missing name goes to the first category in `CATEGORIES` whose rule matches it; each rule is a name
pattern, a hand-written set, or a check on the torch object. The rules are the documentation of the
grouping; the leftover category ("other") is what is neither out of scope nor yet built. Output is
sorted, so two runs print the same text.
"""

import argparse
import inspect
import re
import sys
import types

import torch

import lazytensor

VERSION = "1.13"
COMMAND = "PYTHONPATH=bindings/python /usr/bin/python3 tools/api_sweep.py --markdown"


# -- enumeration ----------------------------------------------------------------------------------

def _public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _from_typing(value):
    return getattr(value, "__module__", None) == "typing" or type(value).__module__ == "typing"


def torch_names():
    """(callables, dtypes, constants) of the torch namespace."""
    callables, dtypes, constants = [], [], []
    for name in _public(torch):
        value = getattr(torch, name)
        if isinstance(value, types.ModuleType) or _from_typing(value):
            continue
        if isinstance(value, torch.dtype):
            dtypes.append(name)
        elif callable(value):
            callables.append(name)
        else:
            constants.append(name)
    return callables, dtypes, constants


def tensor_names():
    return _public(torch.Tensor)


def nn_names():
    return [n for n in _public(torch.nn) if inspect.isclass(getattr(torch.nn, n))]


_FUNCTIONAL_MODULES = {"torch.nn.functional", "torch", "torch._C._nn"}


def functional_names():
    names = []
    for name in _public(torch.nn.functional):
        value = getattr(torch.nn.functional, name)
        if inspect.isclass(value) or not callable(value):
            continue
        if getattr(value, "__module__", None) in _FUNCTIONAL_MODULES:
            names.append(name)
    return names


def namespaces():
    """(label, lazytensor object, torch names) for every row of the counts table."""
    callables, dtypes, constants = torch_names()
    return [
        ("torch.* functions and classes", lazytensor, callables),
        ("torch.* dtypes", lazytensor, dtypes),
        ("torch.* constants", lazytensor, constants),
        ("Tensor methods and properties", lazytensor.Tensor, tensor_names()),
        ("torch.nn classes", lazytensor.nn, nn_names()),
        ("torch.nn.functional", lazytensor.nn.functional, functional_names()),
    ]


# -- categories -----------------------------------------------------------------------------------

# A rule takes (name, torch object, prefix), the prefix being "torch.", "Tensor.", "nn." or "F.".

def _matches(*patterns):
    regex = re.compile("|".join(patterns))
    return lambda name, value, prefix: regex.search(name) is not None


def _named(*names):
    wanted = set(names)
    return lambda name, value, prefix: name in wanted


def _any(*rules):
    return lambda name, value, prefix: any(rule(name, value, prefix) for rule in rules)


def _jit_class(name, value, prefix):
    """A class torch re-exports from its C extension or torch.jit (graph, type and script objects)."""
    if not inspect.isclass(value) or prefix != "torch.":
        return False
    module = getattr(value, "__module__", "") or ""
    return getattr(torch._C, name, None) is value or module.startswith(("torch._C", "torch.jit"))


def _nn_op_at_torch(name, value, prefix):
    """An nn.functional op that torch 1.13 also exposes as torch.* or a Tensor method."""
    return prefix in ("torch.", "Tensor.") and hasattr(torch.nn.functional, name)


_LOW_PRECISION = ("half", "bfloat16", "float16", "int8", "int16", "uint8", "byte", "char", "short", "chalf",
                  "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor")

_LINALG = ("cholesky", "cholesky_inverse", "cholesky_solve", "qr", "svd", "lu", "lu_solve", "lu_unpack", "det",
           "slogdet", "logdet", "inverse", "pinverse", "solve", "lstsq", "eig", "symeig", "matrix_exp",
           "matrix_power", "matrix_rank", "triangular_solve", "geqrf", "orgqr", "ormqr", "lobpcg", "pca_lowrank",
           "svd_lowrank", "nuclear_norm", "chain_matmul", "frobenius_norm")

_SPECIAL_FUNCTIONS = ("digamma", "polygamma", "lgamma", "mvlgamma", "igamma", "igammac", "i0", "erfinv",
                      "nextafter", "frexp", "gcd", "lcm", "binomial", "poisson")

# (category, why it is missing, rule); the first rule that matches a name wins.
CATEGORIES = [
    ("TorchScript, JIT and C++ internals",
     "out of scope: lazytensor traces Python directly and has no TorchScript IR, mobile optimizer or C++ "
     "type system to expose",
     _any(_jit_class,
          _named("parse_ir", "parse_schema", "parse_type_comment", "merge_type_from_type_comment",
                 "unify_type_list", "import_ir_module", "import_ir_module_from_buffer", "fork", "wait",
                 "classproperty", "candidate", "obj", "attr", "ScriptModule", "ScriptFunction",
                 "CompilationUnit", "ExecutionPlan", "StaticModule", "read_vitals", "set_vital", "vitals_enabled",
                 "Tag", "DisableTorchFunction", "get_file_path", "prepare_multiprocessing_environment",
                 "typename", "BufferDict", "ModuleDict", "ParameterDict", "MobileOptimizerType", "AggregationType",
                 "CONV_BN_FUSION", "FUSE_ADD_RELU", "HOIST_CONV_PACKED_PARAMS", "INSERT_FOLD_PREPACK_OPS",
                 "REMOVE_DROPOUT", "AVG", "SUM", "USE_GLOBAL_DEPS", "USE_RTLD_GLOBAL_WITH_LIBTORCH",
                 "BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "boolean_dispatch",
                 "assert_int_or_pair", "Container", "reinforce", "volatile", "output_nr",
                 "compiled_with_cxx11_abi", "init_num_threads", "PRIVATE_OPS", "TYPE_CHECKING"))),
    ("quantization",
     "out of scope: lazytensor has no quantized dtypes or observers",
     _matches(r"quantiz", r"fake_quant", r"^q_", r"^qint", r"^quint", r"qscheme", r"^per_(tensor|channel)", r"fbgemm",
              r"^int_repr$", r"qparams", r"^Q[A-Z]")),
    ("complex numbers",
     "out of scope until there is a complex dtype: for real tensors these are identities or errors",
     _matches(r"complex", r"conj", r"^(real|imag|angle|polar)$", r"^c(float|double)$", r"_neg$", r"^is_neg$",
              r"^adjoint$", r"^m?H$")),
    ("sparse layouts",
     "out of scope: the only sparse form is the COO object of lazytensor.sparse, not a Tensor layout",
     _matches(r"sparse", r"csr", r"csc", r"bsr", r"bsc", r"coo", r"^(c?col_|crow_|row_)?indices", r"coalesce", r"^values",
              r"^(smm|hsmm|dsmm|saddmm|sspaddmm|hspmm|to_dense)$", r"^(dense|sparse)_dim$")),
    ("backend- and device-specific",
     "out of scope: cuDNN, MIOpen, MKL-DNN, Vulkan, XPU, IPU, MPS and pinned memory have no meaning for the "
     "lazy CPU/GPU backends",
     _matches(r"^cudnn", r"miopen", r"mkldnn", r"vulkan", r"xpu", r"ipu", r"^is_ort$", r"mps", r"pin_memory", r"is_pinned", r"^has_",
              r"record_stream", r"^is_meta$", r"channels_last", r"_format$", r"^Stream$",
              r"flush_denormal", r"^get_device$", r"^is_(cpu|distributed|nested|shared)$", r"to_padded_tensor",
              r"^layout$", r"^(strided|sparse_coo)$")),
    ("storages and raw memory",
     "out of scope: lazy values have no storage; tensors are immutable nodes",
     _matches(r"[Ss]torage", r"^as_strided", r"empty_strided", r"^resize", r"^set_$", r"share_memory",
              r"^from_file$", r"^frombuffer$", r"^is_set_to$", r"^new_empty_strided$")),
    ("named tensors",
     "out of scope: named tensors are a prototype in PyTorch 1.13",
     _named("align_as", "align_to", "align_tensors", "has_names", "names", "refine_names", "rename", "rename_",
            "name")),
    ("view-copy variants (`*_copy`)",
     "out of scope: functionalization helpers; every lazytensor op already returns a new value",
     _matches(r"_copy$")),
    ("low-precision dtypes",
     "needs a dtype the low-precision issue adds (float16, bfloat16, int8, int16, uint8)",
     _named(*_LOW_PRECISION)),
    ("deprecated in PyTorch 1.13",
     "not built on purpose: deprecated in 1.13 and removed later; the replacement exists where listed in "
     "parentheses (torch.range: arange; upsample_bilinear: interpolate; NLLLoss2d: NLLLoss; solve, eig, symeig, "
     "lstsq, matrix_rank: torch.linalg)",
     _named("range", "upsample_bilinear", "NLLLoss2d", "solve", "eig", "symeig", "lstsq", "matrix_rank", "new")),
    ("lazily initialised nn layers",
     "not yet built: `nn.Lazy*` layers and `UninitializedBuffer` shape their parameters at the first call",
     _matches(r"^Lazy", r"^Uninitialized")),
    ("fused kernels and backward entry points",
     "out of scope: PyTorch's internal kernels that its nn layers call (`native_*`, `*_backward*`, "
     "batch-norm statistics, RNN cells as functions); the layers and `nn.functional` are the API",
     _matches(r"^native_", r"backward", r"^batch_norm_", r"^(gru|lstm|rnn_relu|rnn_tanh)(_cell)?$",
              r"^(quantized_)?(gru|lstm)_cell$", r"^(convolution|conv_tbc|constant_pad_nd|grid_sampler.*|"
              r"affine_grid_generator|embedding_renorm_|norm_except_dim|native_norm|segment_reduce)$",
              r"^_")),
    ("anomaly mode, determinism and global switches",
     "not yet built: inference tensors (`is_inference`, `is_inference_mode_enabled`: inference_mode here is "
     "no_grad, so no tensor is one); the determinism, matmul-precision, warn-always, anomaly and "
     "default-tensor-type switches are built (`_switches.py`)",
     _matches(r"anomaly", r"deterministic", r"warn_always", r"matmul_precision", r"default_tensor_type",
              r"^is_inference", r"^(is_grad|is_anomaly)")),
    ("signal processing (STFT and windows)",
     "not yet built: STFT needs an FFT, which lazytensor does not have; the window functions are built "
     "(`_windows.py`)",
     _matches(r"stft", r"_window$")),
    ("linear algebra under torch.*",
     "not yet built as torch.* names, whose signatures are older than torch.linalg's (torch.svd returns V and "
     "takes some=, torch.qr some=, torch.lu packed pivots); `lazytensor.linalg` has cholesky, qr, svd, solve and "
     "lstsq (on the host); det, slogdet, logdet, inverse, pinverse, matrix_power and chain_matmul are built",
     _named(*_LINALG)),
    ("special functions and integer number theory",
     "not yet built: gamma-family, Bessel and erfinv need series the C++ ops do not provide; gcd/lcm and "
     "frexp/nextafter need integer loops or bit access; binomial/poisson need samplers",
     _named(*_SPECIAL_FUNCTIONS)),
    ("random sampling in place",
     "not yet built: in-place samplers beyond uniform_, normal_, bernoulli_, random_, exponential_, cauchy_, "
     "log_normal_ and geometric_",
     _named("cauchy_", "exponential_", "geometric_", "log_normal_", "random_")),
    ("in-place variants (`*_`)",
     "not yet built: in-place forms whose function is missing too (the special functions, "
     "renorm, ...), that change a view's shape (`t_`, `transpose_`, `squeeze_`, `unsqueeze_`, `swapaxes_`), or "
     "that call Python per element (`apply_`, `map_`)",
     _matches(r"[a-z0-9]_$")),
    ("nn ops also under torch.* and Tensor",
     "not yet built: the losses under torch.* take ATen's integer reduction enum, not nn.functional's string; "
     "use `torch.nn.functional`, which has them except ctc_loss and feature_alpha_dropout",
     _nn_op_at_torch),
    ("order statistics and histograms",
     "not yet built: nanmedian (values and indices) and mode (the most frequent value per row) are sort-family "
     "compositions still to write; histograms and unique_consecutive have data-dependent output sizes (a sync, "
     "as unique)",
     _named("nanmedian", "mode", "histc", "histogram", "histogramdd", "unique_consecutive")),
    ("nn layers and functions",
     "not yet built: adaptive max pooling in 3-D, fractional pooling (random windows), grid_sample/affine_grid, "
     "CTC loss "
     "(a dynamic program over the alignment), AdaptiveLogSoftmaxWithLoss, SyncBatchNorm (needs a process group) "
     "and a few rarer layers",
     lambda name, value, prefix: prefix in ("nn.", "F.")),
]
OTHER = ("other", "not yet built")


def category_of(name, value, prefix):
    for category, reason, rule in CATEGORIES:
        if rule(name, value, prefix):
            return category, reason
    return OTHER


# -- report ---------------------------------------------------------------------------------------

def sweep():
    """(rows of the counts table, {category: (reason, [qualified missing names])})."""
    rows, missing = [], {}
    prefixes = {"torch.nn classes": "nn.", "torch.nn.functional": "F.", "Tensor methods and properties": "Tensor."}
    torch_objects = {"torch.nn classes": torch.nn, "torch.nn.functional": torch.nn.functional,
                     "Tensor methods and properties": torch.Tensor}
    for label, ours, names in namespaces():
        absent = [n for n in names if not hasattr(ours, n)]
        rows.append((label, len(names), len(names) - len(absent), len(absent)))
        source = torch_objects.get(label, torch)
        for name in absent:
            prefix = prefixes.get(label, "torch.")
            category, reason = category_of(name, getattr(source, name, None), prefix)
            missing.setdefault(category, (reason, []))[1].append(prefix + name)
    return rows, missing


def _ordered(missing):
    order = [c for c, _, _ in CATEGORIES] + [OTHER[0]]
    return [(c, missing[c]) for c in order if c in missing]


def _wrap(names, width=110):
    lines, line = [], ""
    for name in names:
        item = "`" + name + "`"
        if line and len(line) + len(item) + 1 > width:
            lines.append(line)
            line = ""
        line = item if not line else line + " " + item
    if line:
        lines.append(line)
    return lines


def markdown(rows, missing):
    out = ["| namespace | in PyTorch %s | present | missing |" % VERSION, "|---|---|---|---|"]
    for label, total, present, absent in rows:
        out.append("| %s | %d | %d | %d |" % (label, total, present, absent))
    total = sum(r[1] for r in rows)
    present = sum(r[2] for r in rows)
    out.append("| **all** | %d | %d | %d |" % (total, present, total - present))
    for category, (reason, names) in _ordered(missing):
        out += ["", "**%s** (%d): %s." % (category, len(names), reason), ""]
        out += _wrap(names)
    return "\n".join(out)


def plain(rows, missing):
    out = ["%-32s %6s %8s %8s" % ("namespace", "torch", "present", "missing")]
    for label, total, present, absent in rows:
        out.append("%-32s %6d %8d %8d" % (label, total, present, absent))
    for category, (reason, names) in _ordered(missing):
        out += ["", "%s (%d): %s" % (category, len(names), reason)]
        out += ["  " + line for line in _wrap(names)]
    return "\n".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the docs/python.md section body")
    args = parser.parse_args(argv)
    if not torch.__version__.startswith(VERSION):
        sys.exit("expected PyTorch %s, got %s (run with /usr/bin/python3)" % (VERSION, torch.__version__))
    rows, missing = sweep()
    print(markdown(rows, missing) if args.markdown else plain(rows, missing))


if __name__ == "__main__":
    main(sys.argv[1:])
