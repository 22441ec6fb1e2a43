"""Printing tensors as PyTorch does: the print options, the value formatter and set_printoptions."""
import builtins
import math

import numpy as np

from . import _C


_print_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        prec = _print_opts["precision"]
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = values[np.isfinite(values)]
        nonzero = np.abs(finite[finite != 0])
        if nonzero.size == 0:
            self.max_width = max(self.max_width, 2)  # "0."
            return
        lo, hi = float(nonzero.min()), float(nonzero.max())
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                fmt = "{:.%de}" % prec
            else:
                fmt = "{:.0f}."
        else:
            if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                self.sci_mode = True
                fmt = "{:.%de}" % prec
            else:
                fmt = "{:.%df}" % prec
        if _print_opts["sci_mode"] is not None:
            self.sci_mode = _print_opts["sci_mode"]
            if self.sci_mode:
                fmt = "{:.%de}" % prec
        for v in finite:
            self.max_width = max(self.max_width, len(fmt.format(float(v))))

    def format(self, v):
        if self.floating:
            v = float(v)
            prec = _print_opts["precision"]
            if not math.isfinite(v):
                s = str(v)
            elif self.sci_mode:
                s = ("{:.%de}" % prec).format(v)
            elif self.int_mode:
                s = "{:.0f}.".format(v)
            else:
                s = ("{:.%df}" % prec).format(v)
        elif isinstance(v, (np.bool_, builtins.bool)):
            s = "True" if v else "False"
        else:
            s = str(v)
        return " " * (self.max_width - len(s)) + s


def _summarized(arr, edge):
    if arr.ndim == 0:
        return arr.reshape(1)
    if arr.shape[0] > 2 * edge:
        parts = [arr[:edge], arr[-edge:]]
    else:
        parts = [arr]
    out = [(_summarized(p[i], edge) if p.ndim > 1 else p[i:i + 1]) for p in parts for i in range(p.shape[0])]
    return np.concatenate([o.reshape(-1) for o in out]) if out else arr.reshape(-1)


def _str_rec(arr, indent, fmt, summarize):
    edge = _print_opts["edgeitems"]
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        n = arr.shape[0]
        if summarize and n > 2 * edge:
            items = [fmt.format(v) for v in arr[:edge]] + [" ..."] + [fmt.format(v) for v in arr[-edge:]]
        else:
            items = [fmt.format(v) for v in arr]
        per_line = max(1, (_print_opts["linewidth"] - indent) // (fmt.max_width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        rows = [_str_rec(arr[i], indent + 1, fmt, summarize) for i in range(edge)] + ["..."] + [
            _str_rec(arr[i], indent + 1, fmt, summarize) for i in range(n - edge, n)]
    else:
        rows = [_str_rec(arr[i], indent + 1, fmt, summarize) for i in range(n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _repr(self, prefix="tensor("):
    dt = self.dtype
    # float16 and bfloat16 print through float32 (exact; bfloat16 has no numpy type), as torch's formatter.
    arr = _C._to_numpy(self.float() if dt in (_C.float16, _C.bfloat16) else self)
    floating = dt.is_floating_point
    indent = len(prefix)
    suffixes = []
    if arr.size == 0:
        body = "[]"
        if arr.ndim != 1:
            suffixes.append("size=" + str(tuple(arr.shape)))
    else:
        summarize = arr.size > _print_opts["threshold"]
        vals = _summarized(arr, _print_opts["edgeitems"]) if summarize else arr.reshape(-1)
        fmt = _Formatter(vals, floating)
        body = _str_rec(arr, indent, fmt, summarize)
    # PyTorch leaves out the dtype its values already show, but not for an empty tensor (no values).
    if dt != _C.float32 and (arr.size == 0 or dt not in (_C.int64, _C.bool)):
        suffixes.append("dtype=" + repr(dt))
    if self.requires_grad:
        if self.is_leaf:
            suffixes.append("requires_grad=True")
        else:
            suffixes.append("grad_fn=<LazyBackward>")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    if profile == "default":
        _print_opts.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _print_opts[k] = v
    _print_opts["sci_mode"] = sci_mode
