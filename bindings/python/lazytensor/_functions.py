"""torch.* functions written over the C++ ops."""
import builtins
import functools

import numpy as np

from . import _C
from ._C import Tensor


def _as_tensor_like(x, ref):
    if isinstance(x, Tensor):
        return x
    from ._creation import tensor
    return tensor(x)


def floor_divide(a, b):
    dt = [x.dtype for x in (a, b) if isinstance(x, Tensor)]
    ints = all(not d.is_floating_point for d in dt) and not any(
        isinstance(x, float) for x in (a, b) if not isinstance(x, Tensor))
    if ints:
        # Integer operands divide in float64: int/int is float32 otherwise, which rounds quotients of
        # operands above 2**24 (123456789 // 10 gave 12345679); float64 is exact below 2**53.
        a64 = a.to(_C.float64) if isinstance(a, Tensor) else float(a)
        b64 = b.to(_C.float64) if isinstance(b, Tensor) else float(b)
        q = (a64 / b64).floor()
        out = dt[0] if len(dt) == 1 else _C.promote_types(dt[0], dt[1])
        if out == _C.bool:
            out = _C.int64
        return q.to(out)
    return (a / b).floor()


def remainder(a, b):
    dt = [x.dtype for x in (a, b) if isinstance(x, Tensor)]
    ints = all(not d.is_floating_point for d in dt) and not any(
        isinstance(x, float) for x in (a, b) if not isinstance(x, Tensor))
    if ints:
        return a - floor_divide(a, b) * b
    # Floats: PyTorch's rule, C fmod then + b where the result's sign differs from b's, on the
    # exact fmod (a - floor(a/b)*b in float32 gave 7 % 0.1 == 0, PyTorch 0.0999999).
    out_dtype = _mod_dtype(a, b)
    a64, b64, r = _exact_fmod(a, b)
    wrong_side = _C._where3(b64 < 0, r > 0, r < 0) if isinstance(b, Tensor) else ((r > 0) if b64 < 0 else (r < 0))
    r = _C._where3(wrong_side, r + b64, r)
    value = r.to(out_dtype)
    if not _mod_needs_grad(a, b, out_dtype):
        return value
    # PyTorch's gradient for b is -div(a, b, rounding_mode="floor"), an exact floor: (a - r) / b is an
    # integer up to rounding in float64.
    return _with_mod_grads(value, a, b, out_dtype, lambda: ((a64 - r) / b64).round().to(out_dtype))


def where(condition, input=None, other=None):
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return _C._where3(condition, input, other)


def numel(input):
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


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


def broadcast_to(input, size):
    return input.expand(*size)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(t.expand(*shape) for t in tensors)


def broadcast_shapes(*shapes):
    from ._size import Size
    return Size(np.broadcast_shapes(*shapes))


def result_type(a, b):
    def dt(x):
        if isinstance(x, Tensor):
            return x
        from ._creation import tensor
        return x
    return (_as_tensor_like(a, None) + _as_tensor_like(b, None)).dtype if not isinstance(a, Tensor) or not isinstance(
        b, Tensor) else (a + b).dtype


def hstack(tensors):
    return _C.cat(tensors, 1 if tensors[0].dim() > 1 else 0)


def vstack(tensors):
    return _C.cat([t.reshape(1, -1) if t.dim() == 1 else t for t in tensors], 0)


def concat(tensors, dim=0):
    return _C.cat(tensors, dim)


def repeat_interleave(input, repeats, dim=None):
    if dim is None:
        input, dim = input.reshape(-1), 0
    x = input.unsqueeze(dim + 1 if dim >= 0 else dim)
    shape = list(x.shape)
    d = dim if dim >= 0 else dim + input.dim()
    shape[d + 1] = repeats
    out = list(input.shape)
    out[d] *= repeats
    return x.expand(*shape).reshape(out)


def diag(input, diagonal=0):
    """1-D: a matrix with input on the `diagonal`-th diagonal (zeros elsewhere, also next to inf/NaN);
    2-D: a copy of that diagonal."""
    from ._more import diag_embed, diagonal as _diagonal
    if not isinstance(input, Tensor):
        raise TypeError("diag(): argument 'input' (position 1) must be Tensor, not {}".format(type(input).__name__))
    if input.dim() == 1:
        return diag_embed(input, offset=diagonal)
    if input.dim() == 2:
        return _diagonal(input, offset=diagonal).clone()
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got {}D".format(input.dim()))


def _einsum_parse(equation, operands):
    """Per operand its labels (one per dim, ellipsis dims as internal labels '0', '1', ... shared right-aligned
    across operands), and the output labels."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for ch in eq:
        if not (ch.isalpha() and ch.isascii()) and ch not in ",.->":
            raise RuntimeError("einsum(): invalid subscript given at index {} in the equation string, subscripts must be "
                               "in [a-zA-Z]".format(eq.index(ch)))
    ell = 0
    labels = []
    for i, (term, t) in enumerate(zip(terms, operands)):
        if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
            raise RuntimeError("einsum(): found '.' for operand {} that is not part of any ellipsis".format(i))
        named = len(term) - (3 if "..." in term else 0)
        if "..." not in term and named != t.dim():
            raise RuntimeError("einsum(): the number of subscripts in the equation ({}) does not match the number of "
                               "dimensions ({}) for operand {} and no ellipsis was given".format(named, t.dim(), i))
        if "..." in term and named > t.dim():
            raise RuntimeError("einsum(): the number of subscripts in the equation ({}) is more than the number of "
                               "dimensions ({}) for operand {}".format(named, t.dim(), i))
        k = t.dim() - named
        ell = builtins.max(ell, k) if "..." in term else ell
        labels.append((term, k))
    out_labels = []
    all_labels = []
    for term, k in labels:
        head, dots, tail = term.partition("...")
        lab = list(head) + ([str(ell - k + j) for j in range(k)] if dots else []) + list(tail)
        all_labels.append(lab)
    ell_labels = [str(j) for j in range(ell)]
    if arrow:
        if rhs.count("...") > 1 or rhs.replace("...", "").count(".") > 0:
            raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
        head, dots, tail = rhs.partition("...")
        out_labels = list(head) + (ell_labels if dots else []) + list(tail)
        seen = set()
        for c in out_labels:
            if c in seen and not c.isdigit():
                raise RuntimeError("einsum(): output subscript {} appears more than once in the output".format(c))
            seen.add(c)
            if not c.isdigit() and not any(c in lab for lab in all_labels):
                raise RuntimeError("einsum(): output subscript {} does not appear in the equation for any input "
                                   "operand".format(c))
    else:  # implicit: the ellipsis dims, then the labels seen once, in alphabetical order
        counts = {}
        for lab in all_labels:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out_labels = ell_labels + sorted(c for c, n in counts.items() if n == 1 and not c.isdigit())
    return all_labels, out_labels


def einsum(equation, *operands):
    """torch.einsum over lazy ops: a label repeated in one operand takes its diagonal, labels no one else needs
    are summed first, and operands are contracted pairwise, left to right, as one batched matmul each
    (batch = labels both keep, contracted = labels only they share). Labels broadcast where one side has size 1.
    The sublist form einsum(op, [0, 1], ...) is not supported."""
    from ._more import diagonal as _diagonal
    if not isinstance(equation, str):
        raise NotImplementedError("einsum(): only the equation-string form is supported, not the sublist form")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError("einsum(): argument 'operands' must be tuple of Tensors, not {}".format(type(t).__name__))
    if operands and any(t.dtype != operands[0].dtype for t in operands):
        other = next(t.dtype for t in operands if t.dtype != operands[0].dtype)
        raise RuntimeError("einsum(): expected scalar type {} but found {} (operands must have one dtype)".format(
            repr(operands[0].dtype).replace("torch.", "").replace("lazytensor.", ""),
            repr(other).replace("torch.", "").replace("lazytensor.", "")))
    all_labels, out_labels = _einsum_parse(equation, operands)
    # Sizes per label, broadcasting size 1.
    size = {}
    for i, (lab, t) in enumerate(zip(all_labels, operands)):
        for c, n in zip(lab, t.shape):
            if c in size and size[c] != n and size[c] != 1 and n != 1:
                raise RuntimeError("einsum(): subscript {} has size {} for operand {} which does not broadcast with "
                                   "previously seen size {}".format(c, n, i, size[c]))
            size[c] = n if c not in size or size[c] == 1 else size[c]
    items = []
    for i, (lab, t) in enumerate(zip(all_labels, operands)):
        lab = list(lab)
        while len(set(lab)) < len(lab):  # a repeated label: its diagonal, as the last dim
            c = next(x for x in lab if lab.count(x) > 1)
            p = lab.index(c)
            q = lab.index(c, p + 1)
            if t.shape[p] != t.shape[q]:
                raise RuntimeError("einsum(): subscript {} is repeated for operand {} but the sizes don't match, {} != "
                                   "{}".format(c, i, t.shape[q], t.shape[p]))
            t = _diagonal(t, 0, p, q)
            lab = [x for j, x in enumerate(lab) if j not in (p, q)] + [c]
        items.append((t, lab))

    def needed(k):  # labels the output or another operand than k still needs
        need = set(out_labels)
        for j, (_, lab) in enumerate(items):
            if j != k:
                need.update(lab)
        return need

    # Sum what only one operand has and nobody needs.
    for k, (t, lab) in enumerate(items):
        need = needed(k)
        drop = [j for j, c in enumerate(lab) if c not in need]
        if drop:
            t = t.sum(drop)
            lab = [c for c in lab if c in need]
        items[k] = (t, lab)

    def expand_to_sizes(t, lab):
        want = [size[c] for c in lab]
        return t.expand(*want) if list(t.shape) != want else t

    t, lab = items[0]
    for k in range(1, len(items)):
        u, ulab = items[k]
        rest = set(out_labels)
        for _, l2 in items[k + 1:]:
            rest.update(l2)
        shared = [c for c in lab if c in ulab]
        batch = [c for c in shared if c in rest]
        contract = [c for c in shared if c not in rest]
        a_only = [c for c in lab if c not in ulab]
        b_only = [c for c in ulab if c not in lab]
        a = expand_to_sizes(t.permute(*[lab.index(c) for c in batch + a_only + contract]), batch + a_only + contract)
        b = expand_to_sizes(u.permute(*[ulab.index(c) for c in batch + contract + b_only]), batch + contract + b_only)

        def prod(cs):
            n = 1
            for c in cs:
                n *= size[c]
            return n
        a = a.reshape(prod(batch), prod(a_only), prod(contract))
        b = b.reshape(prod(batch), prod(contract), prod(b_only))
        t = _C.matmul(a, b).reshape(*[size[c] for c in batch + a_only + b_only])
        lab = batch + a_only + b_only
    # Sum what the output does not keep, broadcast what it has at size 1, and order as the output.
    drop = [j for j, c in enumerate(lab) if c not in out_labels]
    if drop:
        t = t.sum(drop)
        lab = [c for c in lab if c in out_labels]
    t = t.permute(*[lab.index(c) for c in out_labels]) if lab else t
    return expand_to_sizes(t, out_labels) if out_labels else t


from ._random import Generator, get_rng_state, manual_seed, seed, set_rng_state  # noqa: E402,F401


# ---- grad mode ----
class _GradMode:
    _enabled = None

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Context manager and decorator that disables gradient recording."""
    _enabled = False


class enable_grad(_GradMode):
    _enabled = True


class inference_mode(_GradMode):
    def __init__(self, mode=True):
        self._enabled = not mode

    def __call__(self, func):
        mode = not self._enabled

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)
        return wrapper


class set_grad_enabled(_GradMode):
    """Sets grad mode at once (as in PyTorch); restores it on exit when used with `with`."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._enabled = builtins.bool(mode)
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        _C._set_grad_enabled(self._prev)
        mode = self._enabled

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper


# ---- printing and defaults ----
def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    from ._tensor import _print_opts
    if profile == "default":
        _print_opts.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _print_opts[k] = v
    _print_opts["sci_mode"] = sci_mode


def get_default_dtype():
    return _C.float32


def set_default_dtype(d):
    if _C._to_dtype(d) != _C.float32:
        raise NotImplementedError("lazytensor's default dtype is float32")


def save(obj, f, **kwargs):
    import pickle
    if isinstance(f, str):
        with open(f, "wb") as fh:
            pickle.dump(obj, fh)
    else:
        pickle.dump(obj, f)


def load(f, map_location=None, **kwargs):
    import pickle
    if isinstance(f, str):
        with open(f, "rb") as fh:
            return pickle.load(fh)
    return pickle.load(f)


import types as _types  # noqa: E402

__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and not isinstance(v, _types.ModuleType) and n not in ("Tensor",)]


# ---- torch.* functions added in session 5 (PyTorch 1.13 semantics, built from lazy ops) ----
import math  # noqa: E402

def _dims_str(t):
    return "x".join(str(s) for s in t.shape)


def _check_same_dtype(msg, a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(msg)


def _scaled_add(input, prod, beta, alpha, name):
    if not prod.dtype.is_floating_point:  # PyTorch 1.13 truncates float alpha/beta for integer tensors
        alpha, beta = builtins.int(alpha), builtins.int(beta)
    out = prod if alpha == 1 else prod * alpha
    shape = tuple(out.shape)
    ishape = tuple(input.shape)
    try:
        ok = tuple(np.broadcast_shapes(ishape, shape)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError("{}: the expanded size of the tensor must match: input of shape {} does not broadcast to "
                           "the result shape {}".format(name, list(ishape), list(shape)))
    if beta == 0:  # PyTorch ignores input then (NaN and inf in it do not propagate) ...
        if input.requires_grad and _C.is_grad_enabled():  # ... and its gradient is zeros, not None
            out = out + _C._where3(_C.zeros(*shape, dtype=_C.bool), input, 0.0)
        return out
    return out + (input if beta == 1 else input * beta)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if mat1.dim() != 2:
        raise RuntimeError("addmm: mat1 must be a matrix, got {}-D tensor".format(mat1.dim()))
    if mat2.dim() != 2:
        raise RuntimeError("addmm: mat2 must be a matrix, got {}-D tensor".format(mat2.dim()))
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError("addmm: mat1 and mat2 shapes cannot be multiplied ({} and {})".format(
            _dims_str(mat1), _dims_str(mat2)))
    _check_same_dtype("addmm: mat1 and mat2 must have the same dtype, got {} and {}".format(mat1.dtype, mat2.dtype),
                      mat1, mat2)
    _check_same_dtype("addmm: self and mat2 must have the same dtype, got {} and {}".format(input.dtype, mat2.dtype),
                      input, mat2)
    return _scaled_add(input, mat1.mm(mat2), beta, alpha, "addmm")


def _check_batches(name, b1, b2):
    for nm, t in (("batch1", b1), ("batch2", b2)):
        if t.dim() != 3:
            raise RuntimeError("{}: {} must be a 3D tensor, got {}-D of shape {}".format(name, nm, t.dim(),
                                                                                           list(t.shape)))
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError("{}: batch1 and batch2 must have same number of batches, got {} and {}".format(
            name, b1.shape[0], b2.shape[0]))
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError("{}: Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: "
                           "[{}, {}].".format(name, b1.shape[0], b1.shape[2], b2.shape[0], b2.shape[1]))
    _check_same_dtype("{}: batch1 and batch2 must have the same dtype, got {} and {}".format(name, b1.dtype, b2.dtype),
                      b1, b2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    _check_batches("baddbmm", batch1, batch2)
    _check_same_dtype("baddbmm: self and batch2 must have the same dtype, got {} and {}".format(
        input.dtype, batch2.dtype), input, batch2)
    return _scaled_add(input, batch1.bmm(batch2), beta, alpha, "baddbmm")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    _check_batches("addbmm", batch1, batch2)
    _check_same_dtype("addbmm: self and batch2 must have the same dtype, got {} and {}".format(
        input.dtype, batch2.dtype), input, batch2)
    return _scaled_add(input, batch1.bmm(batch2).sum(0), beta, alpha, "addbmm")


def _check_mv(name, mat, vec, input_dim=1, input_numel=None):
    if mat.dim() != 2 or vec.dim() != 1 or input_dim > 1:
        raise RuntimeError("{}: vector + matrix @ vector expected, got {}, {}, {}".format(
            name, input_dim, mat.dim(), vec.dim()))
    if mat.shape[1] != vec.shape[0] or (input_numel is not None and input_numel not in (1, mat.shape[0])):
        raise RuntimeError("{}: size mismatch, got {}, {}x{},{}".format(
            name, mat.shape[0] if input_numel is None else input_numel, mat.shape[0], mat.shape[1], vec.shape[0]))
    if mat.dtype != vec.dtype:
        raise RuntimeError("{}: expected scalar type {} but found {} (mat and vec must have the same dtype)".format(
            name, mat.dtype, vec.dtype))


def mv(input, vec, *, out=None):
    _check_mv("mv", input, vec)
    return input.matmul(vec)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    _check_mv("addmv", mat, vec, input.dim(), input.numel())
    _check_same_dtype("addmv: self and mat must have the same dtype, got {} and {}".format(input.dtype, mat.dtype),
                      input, mat)
    return _scaled_add(input, mat.matmul(vec), beta, alpha, "addmv")


def clone(input, *, memory_format=None):
    return input.clone()


def trunc(input, *, out=None):
    if not input.dtype.is_floating_point:
        return input.clone()
    return _C._where3(input >= 0, input.floor(), input.ceil())


fix = trunc


def frac(input, *, out=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError('frac: "frac_cpu" not implemented for \'{}\' (a floating point input is expected)'.format(
            input.dtype))
    return input - trunc(input)


def _mod_dtype(input, other):
    a_t = isinstance(input, Tensor)
    ref = input if a_t else other
    if not isinstance(other, Tensor):
        out_dtype = ref.dtype if (ref.dtype.is_floating_point or not isinstance(other, builtins.float)) \
            else _C.float32
    else:
        out_dtype = _C.promote_types(input.dtype, other.dtype) if a_t else other.dtype
    return _C.int64 if out_dtype == _C.bool else out_dtype


def _exact_fmod(input, other):
    """(a, b, r) in float64, operands detached: r = C fmod(a, b), exact for |a/b| < 2**29 when the
    operands are float32 or integers (below 2**53), with the sign of a on a zero result."""
    a = input.detach().to(_C.float64) if isinstance(input, Tensor) else builtins.float(input)
    b = other.detach().to(_C.float64) if isinstance(other, Tensor) else builtins.float(other)
    r = a - trunc(a / b) * b
    return a, b, _C._where3(r == 0, a * 0.0, r)


def _with_mod_grads(value, input, other, out_dtype, quotient):
    """value (no graph) plus straight-through terms, exactly zero in the forward, whose gradients are
    PyTorch's: 1 for input, -quotient for other."""
    out = value
    if isinstance(input, Tensor) and input.requires_grad:
        ai = input.to(out_dtype)
        out = out + (ai - ai.detach())
    if isinstance(other, Tensor) and other.requires_grad:
        bo = other.to(out_dtype)
        out = out - quotient() * (bo - bo.detach())
    return out


def _mod_needs_grad(input, other, out_dtype):
    return out_dtype.is_floating_point and _C.is_grad_enabled() and any(
        isinstance(t, Tensor) and t.requires_grad for t in (input, other))


def fmod(input, other, *, out=None):
    """C fmod: input - trunc(input / other) * other, sign of input.

    float32 (and integer) operands are computed in float64, where trunc(a/b)*b and the
    subtraction are exact for |a/b| < 2**29, so the result is PyTorch's bit for bit there;
    float64 operands use the same formula in float64 (exact unless |a/b| is huge).
    Integer division by zero is not detected (PyTorch raises; that would need a sync).
    """
    out_dtype = _mod_dtype(input, other)
    _, _, r = _exact_fmod(input, other)
    r = r.to(out_dtype)
    if not _mod_needs_grad(input, other, out_dtype):
        return r
    # PyTorch's gradient for other is -trunc(input / other) with the quotient divided in the operands'
    # dtype (it can differ from the exact one behind the value: 7 / 0.1f rounds to 70).
    def quotient():
        a = input.detach().to(out_dtype) if isinstance(input, Tensor) else builtins.float(input)
        return trunc(a / other.detach().to(out_dtype))
    return _with_mod_grads(r, input, other, out_dtype, quotient)


def logical_xor(input, other, *, out=None):
    a = input if input.dtype == _C.bool else input != 0
    b = other if other.dtype == _C.bool else other != 0
    return a != b


def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got {}".format(n))
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -nd, nd - 1, dim))
    d = dim % nd
    for extra in (prepend, append):
        if extra is None:
            continue
        if extra.dim() != nd:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input (input shape {}, "
                               "got shape {})".format(list(input.shape), list(extra.shape)))
        for k in range(nd):
            if k != d and extra.shape[k] != input.shape[k]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input "
                                   "except along the differencing dimension; input.size({}) = {}, but got "
                                   "tensor.size({}) = {}".format(k, input.shape[k], k, extra.shape[k]))
    x = input
    if prepend is not None or append is not None:
        x = _C.cat([t for t in (prepend, input, append) if t is not None], d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi != lo if x.dtype == _C.bool else hi - lo
    return x


def roll(input, shifts, dims=None):
    shifts = [shifts] if isinstance(shifts, builtins.int) else list(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError("roll: shifts and dimensions must align. shifts: {}, dims:0".format(len(shifts)))
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    dims = [dims] if isinstance(dims, builtins.int) else list(dims)
    if len(shifts) != len(dims):
        raise RuntimeError("roll: shifts and dimensions must align. shifts: {}, dims:{}".format(len(shifts),
                                                                                               len(dims)))
    x = input
    nd = builtins.max(input.dim(), 1)
    for s, dim in zip(shifts, dims):
        if not -nd <= dim < nd:
            raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
                -nd, nd - 1, dim))
        d = dim % nd
        size = x.shape[d]
        if size == 0:
            continue
        s = s % size
        if s:
            x = _C.cat([x.narrow(d, size - s, s), x.narrow(d, 0, size - s)], d)
    return x if x is not input else input.clone()


def tile(input, dims):
    dims = list(dims)
    if any(r < 0 for r in dims):
        raise RuntimeError("tile: Trying to create tensor with negative dimension: dims {}".format(dims))
    if len(dims) < input.dim():
        dims = [1] * (input.dim() - len(dims)) + dims
    return input.repeat(dims)


def movedim(input, source, destination):
    src = [source] if isinstance(source, builtins.int) else list(source)
    dst = [destination] if isinstance(destination, builtins.int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError("movedim: Invalid source or destination dims: source ({} dims) should contain the same "
                           "number of dims as destination ({} dims)".format(src, dst))
    nd = input.dim()
    m = builtins.max(nd, 1)

    def wrap(d):
        if not -m <= d < m:
            raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
                -m, m - 1, d))
        return d % m
    s, t = [wrap(d) for d in src], [wrap(d) for d in dst]
    if len(set(s)) != len(s):
        raise RuntimeError("movedim: repeated dim in `source` ({})".format(src))
    if len(set(t)) != len(t):
        raise RuntimeError("movedim: repeated dim in `destination` ({})".format(dst))
    if nd == 0:
        return input.reshape(())
    order = [None] * nd
    for a, b in zip(s, t):
        order[b] = a
    rest = iter([d for d in range(nd) if d not in s])
    order = [o if o is not None else next(rest) for o in order]
    return input.permute(*order)


moveaxis = movedim


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: {}'.format(indexing))
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               "shape {}".format(list(t.shape)))
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype (got {} and {})".format(
                tensors[0].dtype, t.dtype))
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        out.append(t.reshape(view).expand(*shape))
    if swap:  # as PyTorch: swap the first two inputs, build 'ij' grids, swap the first two grids back
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def kron(input, other, *, out=None):
    nd = builtins.max(input.dim(), other.dim())
    a = input.reshape([1] * (nd - input.dim()) + list(input.shape))
    b = other.reshape([1] * (nd - other.dim()) + list(other.shape))
    ai, bi = [], []
    for sa, sb in zip(a.shape, b.shape):
        ai += [sa, 1]
        bi += [1, sb]
    prod = a.reshape(ai) * b.reshape(bi)
    return prod.reshape([sa * sb for sa, sb in zip(a.shape, b.shape)])


def cross(input, other, dim=None, *, out=None):
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions (got shapes {} and {}).".format(
            list(input.shape), list(other.shape)))
    if input.dtype != other.dtype:
        raise RuntimeError("cross: expected both inputs to have the same dtype, got {} and {}".format(
            input.dtype, other.dtype))
    try:
        shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    except ValueError:
        raise RuntimeError("cross: the shapes {} and {} do not broadcast".format(
            list(input.shape), list(other.shape))) from None
    nd = len(shape)
    if dim is None:
        cands = [k for k in range(nd) if shape[k] == 3]
        if not cands:
            raise RuntimeError("cross: no dimension of size 3 in input (shape {})".format(list(shape)))
        d = cands[0]
    else:
        if not -nd <= dim < builtins.max(nd, 1):
            raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
                -nd, nd - 1, dim))
        d = dim % nd
        if input.shape[d] != 3 or other.shape[d] != 3:
            raise RuntimeError("linalg.cross: inputs dimension {} must have length 3. Got {} and {}".format(
                d, input.shape[d], other.shape[d]))
    a = input.expand(*shape) if tuple(input.shape) != shape else input
    b = other.expand(*shape) if tuple(other.shape) != shape else other
    a1, a2, a3 = (a.narrow(d, k, 1) for k in range(3))
    b1, b2, b3 = (b.narrow(d, k, 1) for k in range(3))
    return _C.cat([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], d)


def _safe_p_norm(x, p, dim):
    """||x||_p over dim with PyTorch's gradient: zero where the norm is zero (no NaN)."""
    if p == 2:
        s = (x * x).sum(dim)
        nz = s > 0
        return _C._where3(nz, _C._where3(nz, s, 1.0).sqrt(), 0.0)
    if p == 1:
        return x.abs().sum(dim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim)
    if p == math.inf:
        return x.abs().amax(dim)
    s = (x.abs() ** p).sum(dim)
    nz = s > 0
    return _C._where3(nz, _C._where3(nz, s, 1.0) ** (1.0 / p), 0.0)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R).

    Always the direct difference form (PyTorch switches to a matmul form for p=2 when P or R > 25,
    which differs from it by rounding).
    """
    for nm, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError("cdist only supports at least 2D tensors, {} got: {}D (shape {})".format(
                nm, t.dim(), list(t.shape)))
        if not t.dtype.is_floating_point:
            raise RuntimeError("cdist only supports floating-point dtypes, {} got: {}".format(nm, t.dtype))
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("cdist: X1 and X2 must have the same number of columns. X1: {} X2: {}".format(
            x1.shape[-1], x2.shape[-1]))
    if x1.dtype != x2.dtype:
        raise RuntimeError("cdist: expected both inputs to have the same dtype, got {} and {}".format(
            x1.dtype, x2.dtype))
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values (got {})".format(p))
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError("{} is not a valid value for compute_mode".format(compute_mode))
    try:
        np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    except ValueError:
        raise RuntimeError("cdist: the batch shapes {} and {} do not broadcast".format(
            list(x1.shape[:-2]), list(x2.shape[:-2]))) from None
    d = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _safe_p_norm(d, p, -1)


def _cumprod_dtype(input, dtype):
    if dtype is not None:
        return _C._to_dtype(dtype)
    return input.dtype if input.dtype.is_floating_point else _C.int64


def cumprod(input, dim, *, dtype=None, out=None):
    """Inclusive product scan: log2(n) rounds of x * (x shifted by 2**k, ones shifted in).

    Only multiplications (no exp/log), so integers are exact (wrapping like PyTorch) and zeros
    and negative numbers are handled; floats differ from PyTorch's sequential product only by
    the rounding of a different association order. The gradient is the exact derivative of
    those products (zeros included).
    """
    x = input.to(_cumprod_dtype(input, dtype))
    if x.dim() == 0:
        if dim not in (0, -1):
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got {})".format(dim))
        return x.clone()
    nd = x.dim()
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -nd, nd - 1, dim))
    d = dim % nd
    n = x.shape[d]
    s = 1
    while s < n:
        shape = list(x.shape)
        shape[d] = s
        shifted = _C.cat([_C.ones(*shape, dtype=x.dtype), x.narrow(d, 0, n - s)], d)
        x = x * shifted
        s *= 2
    return x


def dropout(input, p, train):
    if p < 0.0 or p > 1.0:
        raise RuntimeError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not input.dtype.is_floating_point:
        raise RuntimeError("dropout: result type Float can't be cast to the desired output type {}".format(
            input.dtype))
    from .nn import functional as F
    return F.dropout(input, p, train)


class finfo:
    """Machine limits of a floating dtype (float32, float64), as torch.finfo."""

    def __init__(self, type=None):
        d = _C.float32 if type is None else type
        if not isinstance(d, _C.dtype) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        name = repr(d).replace("torch.", "")
        info = np.finfo(getattr(np, name))
        self.bits = builtins.int(info.bits)
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = builtins.float(info.tiny)
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -builtins.int(info.precision)
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return ("finfo(resolution={:g}, min={:g}, max={:g}, eps={:g}, smallest_normal={:g}, tiny={:g}, "
                "dtype={})".format(self.resolution, self.min, self.max, self.eps, self.smallest_normal, self.tiny,
                                   self.dtype))


class iinfo:
    """Machine limits of an integer dtype (int32, int64), as torch.iinfo."""

    def __init__(self, type):
        if not isinstance(type, _C.dtype):
            raise TypeError("torch.iinfo() requires an integer input type, got {}".format(builtins.type(type)))
        name = repr(type).replace("torch.", "")
        if type == _C.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(getattr(np, name))
        self.bits = builtins.int(info.bits)
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return "iinfo(min={:g}, max={:g}, dtype={})".format(builtins.float(self.min), builtins.float(self.max),
                                                              self.dtype)


__all__ += ["addmm", "baddbmm", "addbmm", "addmv", "mv", "clone", "trunc", "fix", "frac", "fmod", "logical_xor",
            "diff", "roll", "tile", "movedim", "moveaxis", "meshgrid", "kron", "cross", "cdist", "cumprod",
            "dropout", "finfo", "iinfo"]


def _write_out(name, result, out):
    """The out= form: the result is copied into `out`, which must already have the result's shape (lazytensor
    cannot resize a tensor in place; PyTorch resizes with a deprecation warning)."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError("{}(): argument 'out' must be Tensor, not {}".format(name, type(out).__name__))
    if (result.dtype.is_floating_point and not out.dtype.is_floating_point) or \
            (result.dtype != _C.bool and out.dtype == _C.bool):
        raise RuntimeError("{}: result type {} can't be cast to the desired output type {}".format(
            name, result.dtype, out.dtype))
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError("{}: out= has shape {} but the result has shape {} (lazytensor does not resize out= "
                           "tensors)".format(name, list(out.shape), list(result.shape)))
    out.copy_(result)
    return out


def _with_out(fn):
    """fn's out= argument, honoured: the result is written into it (fn itself is called without out)."""
    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        return _write_out(fn.__name__, fn(*args, **kwargs), out)
    return f


# These took out= and ignored it (a silent wrong result for `torch.mv(a, b, out=c)`).
for _name in ("addmm", "baddbmm", "addbmm", "mv", "addmv", "trunc", "frac", "fmod", "logical_xor", "kron", "cross",
              "cumprod"):
    globals()[_name] = _with_out(globals()[_name])
fix = trunc
del _name
