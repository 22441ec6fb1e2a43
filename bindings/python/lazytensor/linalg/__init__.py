"""lazytensor.linalg — torch.linalg's functions.

Lazy (traced like any op): vector_norm, matrix_norm with 'fro'/inf/-inf/1/-1, norm over those, cross, matmul,
multi_dot, matrix_power (n < 0 inverts on the host). Decompositions run on the host through numpy.linalg
(LAPACK), which syncs the input and returns a new tensor: det, slogdet, inv, solve, cholesky, qr, eigh,
eigvalsh, svd, svdvals, pinv, matrix_rank, lstsq, and matrix_norm with ord 'nuc'/2/-2. det, slogdet, inv and solve keep gradients: the host result enters a lazy
first-order expansion whose value is the host result and whose derivative is the exact one: inv(A) is
X0 - X0 (A - A.detach()) X0 with X0 the host inverse, whose gradient is -A^-T g A^-T. The other host functions raise when their input requires grad.
"""
import math
from collections import namedtuple

import numpy as np

from .. import _C
from .._creation import tensor as _tensor
from .._linalg import cross as _cross

__all__ = ["norm", "vector_norm", "matrix_norm", "det", "slogdet", "inv", "solve", "cholesky", "qr", "eigh",
           "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "lstsq", "cross", "matmul", "multi_dot",
           "matrix_power"]

_SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])
_QRResult = namedtuple("qr", ["Q", "R"])
_EighResult = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
_SVDResult = namedtuple("svd", ["U", "S", "Vh"])
_LstsqResult = namedtuple("lstsq", ["solution", "residuals", "rank", "singular_values"])


def _host(name, A, grad_ok=False):
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"linalg.{name}(): expected a Tensor, got {type(A).__name__}")
    if A.requires_grad and not grad_ok:
        raise RuntimeError(f"linalg.{name}(): gradients are not supported; it runs on the host through LAPACK. "
                           "Pass a tensor that does not require grad (e.g. A.detach()).")
    if A.dim() < 2 and name not in ("solve",):
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    return A.detach().numpy()


def _square(name, a):
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _new(array, like):
    # np.ascontiguousarray makes a 0-d result (det of one matrix) 1-d: keep its shape
    return _tensor(np.ascontiguousarray(array).reshape(np.shape(array)), dtype=like.dtype)


def _mT(x):
    return x.transpose(-2, -1)


def _delta(A):
    """A - A.detach(): zero in value, the identity in the gradient."""
    return A - A.detach()


# ---- lazy norms ----

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    if dtype is not None:
        x = x.to(dtype)
    if dim is None and not keepdim:
        x, dim = x.reshape(-1), 0
    elif dim is None:
        dim = tuple(range(x.dim()))
    return x.norm(float(ord), dim, keepdim)  # Tensor.norm: PyTorch's gradient at zeros (0, not NaN)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    if dtype is not None:
        A = A.to(dtype)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    r, c = (d % A.dim() for d in dim)
    if ord == "fro":
        return A.norm("fro", (r, c), keepdim)
    if ord in (math.inf, -math.inf, 1, -1):
        over, across = (c, r) if ord in (math.inf, -math.inf) else (r, c)
        s = A.abs().sum(dim=over, keepdim=True)
        out = s.amax(dim=across, keepdim=True) if ord > 0 else s.amin(dim=across, keepdim=True)
        return out if keepdim else out.squeeze(max(r, c)).squeeze(min(r, c))
    if ord in ("nuc", 2, -2):
        a = _host("matrix_norm", A.movedim((r, c), (-2, -1)) if (r, c) != (A.dim() - 2, A.dim() - 1) else A)
        s = np.linalg.svd(a, compute_uv=False)
        v = s.sum(-1) if ord == "nuc" else (s.max(-1) if ord == 2 else s.min(-1))
        out = _new(v, A)
        if keepdim:
            out = out.unsqueeze(min(r, c)).unsqueeze(max(r, c))
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2):
        if dim is None and A.dim() != 2:
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D.")
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if dim is None and A.dim() != 1:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


# ---- host decompositions with lazy gradients ----

def inv(A, *, out=None):
    a = _host("inv", A, grad_ok=True)
    _square("inv", a)
    X0 = _new(np.linalg.inv(a), A)
    if not A.requires_grad:
        return X0
    return X0 - X0 @ _delta(A) @ X0


def det(A):
    a = _host("det", A, grad_ok=True)
    _square("det", a)
    d0 = _new(np.linalg.det(a), A)
    if not A.requires_grad:
        return d0
    inv0 = _new(np.linalg.inv(a), A)
    return d0 + d0 * (_mT(inv0) * _delta(A)).sum(dim=(-2, -1))


def slogdet(A):
    a = _host("slogdet", A, grad_ok=True)
    _square("slogdet", a)
    sign, logabs = np.linalg.slogdet(a)
    sign, l0 = _new(sign, A), _new(logabs, A)
    if A.requires_grad:
        inv0 = _new(np.linalg.inv(a), A)
        l0 = l0 + (_mT(inv0) * _delta(A)).sum(dim=(-2, -1))
    return _SlogdetResult(sign, l0)


def solve(A, B, *, left=True):
    if not left:
        return _mT(solve(_mT(A), _mT(B)))
    a = _host("solve", A, grad_ok=True)
    _square("solve", a)
    b = B.detach().numpy()
    vec = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    x = np.linalg.solve(a, b[..., None])[..., 0] if vec else np.linalg.solve(a, b)
    X0 = _new(x, A)
    if not (A.requires_grad or B.requires_grad):
        return X0
    inv0 = _new(np.linalg.inv(a), A)
    if vec:
        r = B - (A @ X0.unsqueeze(-1)).squeeze(-1)
        return X0 + (inv0 @ r.unsqueeze(-1)).squeeze(-1)
    return X0 + inv0 @ (B - A @ X0)


# ---- host decompositions without gradients ----

def cholesky(A, *, upper=False):
    a = _host("cholesky", A)
    _square("cholesky", a)
    try:
        L = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.cholesky: The factorization could not be completed because the input is not "
                           "positive-definite.") from None
    return _new(np.swapaxes(L, -1, -2) if upper else L, A)


def qr(A, mode="reduced"):
    a = _host("qr", A)
    if mode == "r":
        return _QRResult(_C.empty(0, dtype=A.dtype), _new(np.linalg.qr(a, mode="r"), A))
    Q, R = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    return _QRResult(_new(Q, A), _new(R, A))


def eigh(A, UPLO="L"):
    a = _host("eigh", A)
    _square("eigh", a)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return _EighResult(_new(w, A), _new(v, A))


def eigvalsh(A, UPLO="L"):
    a = _host("eigvalsh", A)
    _square("eigvalsh", a)
    return _new(np.linalg.eigvalsh(a, UPLO=UPLO), A)


def svd(A, full_matrices=True):
    U, S, Vh = np.linalg.svd(_host("svd", A), full_matrices=full_matrices)
    return _SVDResult(_new(U, A), _new(S, A), _new(Vh, A))


def svdvals(A):
    return _new(np.linalg.svd(_host("svdvals", A), compute_uv=False), A)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    a = _host("pinv", A)
    if atol is None and rtol is None:
        rtol = max(a.shape[-2:]) * np.finfo(a.dtype).eps
    s = np.linalg.svd(a, compute_uv=False)
    smax = s.max(-1, keepdims=True) if s.size else np.zeros(a.shape[:-2] + (1,), a.dtype)
    tol = np.maximum(atol or 0.0, (rtol or 0.0) * smax)
    U, S, Vh = np.linalg.svd(a, full_matrices=False)
    Sinv = np.where(S > tol, 1.0 / np.where(S == 0, 1, S), 0).astype(a.dtype)
    return _new(np.swapaxes(Vh, -1, -2) @ (Sinv[..., :, None] * np.swapaxes(U, -1, -2)), A)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    a = _host("matrix_rank", A)
    s = np.linalg.svd(a, compute_uv=False)
    if tol is not None:
        atol, rtol = tol, 0.0
    if atol is None and rtol is None:
        rtol = max(a.shape[-2:]) * np.finfo(a.dtype).eps
    smax = s.max(-1, keepdims=True) if s.size else 0.0
    thr = np.maximum(atol or 0.0, (rtol or 0.0) * smax)
    return _tensor((s > thr).sum(-1), dtype=_C.int64)


def lstsq(A, B, rcond=None, *, driver=None):
    a = _host("lstsq", A)
    b = B.detach().numpy()
    if a.ndim != 2:
        sol = np.linalg.pinv(a) @ b
        e = _C.empty(0, dtype=A.dtype)
        return _LstsqResult(_new(sol, A), e, _C.empty(0, dtype=_C.int64), e)
    sol, res, rank, sv = np.linalg.lstsq(a, b, rcond=rcond)
    # torch's default CPU driver ('gelsy') returns the rank but no residuals or singular values
    return _LstsqResult(_new(sol, A), _C.empty(0, dtype=A.dtype), _tensor(int(rank)),
                        _C.empty(0, dtype=A.dtype))


# ---- lazy products ----

def cross(input, other, *, dim=-1):  # noqa: A002
    return _cross(input, other, dim=dim)


def matrix_power(A, n):
    """A^n by repeated squaring of lazy matmuls (n >= 0), or of inv(A) for n < 0 (a host inverse)."""
    if not isinstance(A, _C.Tensor):
        raise TypeError("linalg.matrix_power(): argument 'input' must be Tensor, not " + type(A).__name__)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are {} by {} "
                           "matrices".format(A.shape[-2] if A.dim() >= 2 else 1, A.shape[-1] if A.dim() else 1))
    if not isinstance(n, int):
        raise TypeError("linalg.matrix_power(): argument 'n' must be int, not " + type(n).__name__)
    if n == 0:  # the identity, still connected to A (a zero gradient), as PyTorch
        eye = _C.zeros(list(A.shape), dtype=A.dtype) + _C.eye(A.shape[-1], dtype=A.dtype)
        return _C._where3(_C.ones(list(A.shape), dtype=_C.bool), eye, A)
    base = inv(A) if n < 0 else A
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def matmul(input, other, *, out=None):  # noqa: A002
    return _C.matmul(input, other)


def multi_dot(tensors, *, out=None):
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got " + str(len(tensors)))
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    if first_vec:
        tensors[0] = tensors[0].unsqueeze(0)
    if last_vec:
        tensors[-1] = tensors[-1].unsqueeze(-1)
    out_t = tensors[0]
    for t in tensors[1:]:
        out_t = out_t @ t
    if first_vec:
        out_t = out_t.squeeze(0)
    if last_vec:
        out_t = out_t.squeeze(-1)
    return out_t
