"""Products, contractions and diagonals: addmm, baddbmm, addbmm, addmv, mv, einsum, tensordot, inner, ger,
vdot, kron, cross, cdist, diag, diagonal, diag_embed and trace.

Each is a short decomposition over the C++ ops (matmul, permute, reshape, strided slices), so it stays lazy and
is differentiated by the ordinary autograd of those ops.
"""
import builtins
import math

import numpy as np

from . import _C
from ._C import Tensor
from ._function_args import _check, _dt_name, _is_int, _where, _wrap, _zeros
from ._out import _with_out


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


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes as the last dim. Built from permute, narrow, reshape and a
    strided slice, which are all views here: writing into the result writes into input, as in PyTorch."""
    _check("diagonal", input)
    nd = input.dim()
    d1, d2 = _wrap(dim1, nd, "diagonal"), _wrap(dim2, nd, "diagonal")
    if d1 == d2:
        raise RuntimeError("diagonal: diagonal dimensions cannot be identical {}, {}".format(dim1, dim2))
    rest = [d for d in range(nd) if d not in (d1, d2)]
    x = input.permute(*rest, d1, d2)
    rows, cols = x.shape[-2], x.shape[-1]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = builtins.max(0, builtins.min(rows - r0, cols - c0))
    batch = list(x.shape[:-2])
    if n == 0:
        return x.narrow(-2, 0, 0).narrow(-1, 0, 0).reshape(batch + [0])
    flat = x.narrow(-2, r0, n).narrow(-1, c0, n).reshape(batch + [n * n])
    return flat[..., ::n + 1]


_diagonal = diagonal  # for diag, whose argument `diagonal` hides the function


def trace(input):
    _check("trace", input)
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim {} (shape {})".format(
            input.dim(), list(input.shape)))
    if input.dtype == _C.bool:
        raise RuntimeError("trace: \"trace\" not implemented for 'Bool'")
    return diagonal(input).sum()


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """input's last dim placed on the offset diagonal of the (dim1, dim2) planes of a new tensor; the other dims
    keep their order. Off-diagonal entries are zeros (a `where`, so inf/NaN inputs stay on the diagonal)."""
    _check("diag_embed", input)
    nd = input.dim() + 1
    d1, d2 = _wrap(dim1, nd, "diag_embed"), _wrap(dim2, nd, "diag_embed")
    if d1 == d2:
        raise RuntimeError("diag_embed: diagonal dimensions cannot be identical {}, {}".format(dim1, dim2))
    n = input.shape[-1]
    k = builtins.abs(offset)
    m = n + k
    batch = list(input.shape[:-1])
    mat = _where(_C.eye(n, dtype=_C.bool), input.unsqueeze(-1), _zeros([1], input.dtype))  # [..., n, n]
    if k:
        side = _zeros(batch + [n, k], input.dtype)
        mat = _C.cat([side, mat] if offset > 0 else [mat, side], -1)  # [..., n, m]
        band = _zeros(batch + [k, m], input.dtype)
        mat = _C.cat([mat, band] if offset > 0 else [band, mat], -2)  # [..., m, m]
    order, b = [], iter(range(nd - 2))
    for p in range(nd):
        order.append(nd - 2 if p == d1 else (nd - 1 if p == d2 else next(b)))
    return mat.permute(*order)


def diag(input, diagonal=0):
    """1-D: a matrix with input on the `diagonal`-th diagonal (zeros elsewhere, also next to inf/NaN);
    2-D: a copy of that diagonal."""
    if not isinstance(input, Tensor):
        raise TypeError("diag(): argument 'input' (position 1) must be Tensor, not {}".format(type(input).__name__))
    if input.dim() == 1:
        return diag_embed(input, offset=diagonal)
    if input.dim() == 2:
        return _diagonal(input, offset=diagonal).clone()
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got {}D".format(input.dim()))


def diagflat(input, offset=0):
    """The flattened input on the offset diagonal of a square matrix."""
    _check("diagflat", input)
    return diag_embed(input.reshape(-1), offset=offset)


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


def _tensordot_dims(a, b, dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()  # host values that define the contraction (PyTorch reads them on the host too)
    if _is_int(dims):
        if dims < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims={}".format(dims))
        return list(range(-dims, 0)), list(range(dims))
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = dims
        if isinstance(da, (list, tuple)) and isinstance(db, (list, tuple)) and \
                builtins.all(_is_int(d) for d in list(da) + list(db)):
            return list(da), list(db)
    raise TypeError("tensordot(): dims must be an int or a pair of lists of ints, got {!r}".format(dims))


def tensordot(a, b, dims=2):
    """Contract a's dims_a with b's dims_b: permute both so the contracted dims meet, reshape to matrices,
    one mm, reshape to a's free dims + b's free dims. A contracted size 1 against a larger one is summed
    over first (PyTorch broadcasts such pairs)."""
    _check("tensordot", a, "a", 1)
    _check("tensordot", b, "b", 2)
    da, db = _tensordot_dims(a, b, dims)
    return _tensordot("tensordot", a, b, da, db)


def _tensordot(name, a, b, da, db):
    if len(da) != len(db):
        raise RuntimeError("{}: both dimension lists should have same length (got {} and {})".format(name, da, db))
    wa = [_wrap(d, a.dim(), name) for d in da]
    wb = [_wrap(d, b.dim(), name) for d in db]
    for w in (wa, wb):
        for d in w:
            if w.count(d) > 1:
                raise RuntimeError("{}: dim {} appears multiple times in the list of dims".format(name, d))
    for (ia, oa), (ib, ob) in zip(zip(wa, da), zip(wb, db)):
        sa, sb = a.shape[ia], b.shape[ib]
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError("{}: contracted dimensions need to match, but first has size {} in dim {} and second "
                               "has size {} in dim {} (shapes {} and {})".format(
                                   name, sa, oa, sb, ob, list(a.shape), list(b.shape)))
    fa = [d for d in range(a.dim()) if d not in wa]
    fb = [d for d in range(b.dim()) if d not in wb]
    size_fa = [a.shape[d] for d in fa]
    size_fb = [b.shape[d] for d in fb]
    k = builtins.int(np.prod([builtins.max(a.shape[i], b.shape[j]) for i, j in zip(wa, wb)], dtype=np.int64))
    m = builtins.int(np.prod(size_fa, dtype=np.int64))
    n = builtins.int(np.prod(size_fb, dtype=np.int64))
    if (a.dtype != b.dtype or a.dtype == _C.bool) and (m * n == 0 or k == 0):
        # nothing is multiplied: PyTorch checks neither dtypes nor bool then, and returns zeros of a's dtype
        return _zeros(size_fa + size_fb, a.dtype)
    if a.dtype != b.dtype:
        raise RuntimeError("{}: expected scalar type {} but found {} (both tensors must have the same "
                           "dtype)".format(name, _dt_name(a.dtype), _dt_name(b.dtype)))
    if a.dtype == _C.bool:
        raise RuntimeError("{}: \"addmm_impl_cpu_\" not implemented for 'Bool'".format(name))
    # size-1 against size-k: sum the other side's dim (keepdim), then both are 1
    for ia, ib in zip(wa, wb):
        if a.shape[ia] == 1 and b.shape[ib] != 1:
            b = b.sum(ib, keepdim=True, dtype=b.dtype)
        elif b.shape[ib] == 1 and a.shape[ia] != 1:
            a = a.sum(ia, keepdim=True, dtype=a.dtype)
    k = builtins.int(np.prod([a.shape[d] for d in wa], dtype=np.int64))
    ma = a.permute(*(fa + wa)).reshape(m, k)
    mb = b.permute(*(wb + fb)).reshape(k, n)
    return ma.mm(mb).reshape(size_fa + size_fb)


def inner(input, other):
    _check("inner", input)
    _check("inner", other, "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got shapes {} and "
                           "{}".format(list(input.shape), list(other.shape)))
    return _tensordot("inner", input, other, [-1], [-1])


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2)."""
    _check("addr", input)
    for arg, t in (("vec1", vec1), ("vec2", vec2)):
        _check("addr", t, arg, 2)
        if t.dim() != 1:
            raise RuntimeError("addr: Expected 1-D argument {}, but got {}-D".format(arg, t.dim()))
    return _scaled_add(input, vec1.reshape(-1, 1) * vec2.reshape(1, -1), beta, alpha, "addr")


def ger(input, vec2):
    """torch.ger (the deprecated name of outer): input[i] * vec2[j], with type promotion."""
    _check("ger", input)
    _check("ger", vec2, "vec2", 2)
    for arg, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError("ger (outer): Expected 1-D argument {}, but got {}-D (shape {})".format(
                arg, t.dim(), list(t.shape)))
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


def vdot(input, other):
    """Dot product of two 1-D tensors (real dtypes: no conjugation needed)."""
    _check("vdot", input)
    _check("vdot", other, "other", 2)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError("vdot: 1D tensors expected, but got {}D and {}D tensors".format(input.dim(), other.dim()))
    if input.dtype != other.dtype:
        raise RuntimeError("vdot: expected both vectors to have same dtype, but found {} and {}".format(
            _dt_name(input.dtype), _dt_name(other.dtype)))
    if input.shape[0] != other.shape[0]:
        raise RuntimeError("vdot: inconsistent tensor size, expected tensor [{}] and src [{}] to have the same "
                           "number of elements, but got {} and {} elements respectively".format(
                               input.shape[0], other.shape[0], input.shape[0], other.shape[0]))
    if input.dtype == _C.bool:
        raise RuntimeError("vdot: \"dot\" not implemented for 'Bool'")
    return (input * other).sum(dtype=input.dtype)


# The out= argument, honoured.
for _n in ("addr", "addmm", "baddbmm", "addbmm", "mv", "addmv", "kron", "cross", "tensordot", "inner", "ger", "vdot"):
    globals()[_n] = _with_out(globals()[_n])
del _n

__all__ = ["addr", "addmm", "baddbmm", "addbmm", "addmv", "mv", "kron", "cross", "cdist", "diag", "einsum", "diagonal",
           "trace", "diag_embed", "diagflat", "tensordot", "inner", "ger", "vdot"]
