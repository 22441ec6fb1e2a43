"""lazytensor.sparse — a minimal COO sparse tensor and the sparse-dense product.

A sparse tensor here is a Python object over two dense lazy tensors, indices (int64, ndim x nnz) and values
(nnz); it is not a lazytensor.Tensor. sparse.mm gathers the dense rows named by each entry's column, scales them
by the values and index_adds them into the output rows: all lazy ops, differentiable in the dense operand and
the values. coalesce() reads the indices back to the host to find duplicates (a sync); the summing stays lazy.
"""
import numpy as np

from .. import _C
from .._creation import tensor as _tensor
from .._size import Size

__all__ = ["mm", "sparse_coo_tensor", "spmm", "SparseTensor"]


class SparseTensor:
    is_sparse = True
    layout = "torch.sparse_coo"

    def __init__(self, indices, values, size, coalesced=False):
        self._idx = indices
        self._vals = values
        self._size = tuple(int(s) for s in size)
        self._coalesced = coalesced

    @property
    def shape(self):
        return Size(self._size)

    def size(self, dim=None):
        return Size(self._size) if dim is None else self._size[dim]

    def dim(self):
        return len(self._size)

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    def _nnz(self):
        return self._idx.shape[1]

    def sparse_dim(self):
        return self._idx.shape[0]

    def _indices(self):
        return self._idx

    def _values(self):
        return self._vals

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def is_coalesced(self):
        return self._coalesced

    def _flat_index(self):
        strides = np.cumprod((self._size[1:self.sparse_dim()] + (1,))[::-1])[::-1].tolist()
        flat = None
        for d, s in enumerate(strides):
            term = self._idx[d] * int(s)
            flat = term if flat is None else flat + term
        return flat

    def coalesce(self):
        if self._coalesced:
            return self
        flat = self._flat_index().numpy()
        uniq, inverse = np.unique(flat, return_inverse=True)
        sd = self.sparse_dim()
        idx = np.stack(np.unravel_index(uniq, self._size[:sd])) if len(uniq) else np.zeros((sd, 0), np.int64)
        vals = _C.zeros(len(uniq), *self._vals.shape[1:], dtype=self._vals.dtype)
        vals = vals.index_add(0, _tensor(inverse.astype(np.int64)), self._vals)
        return SparseTensor(_tensor(idx.astype(np.int64)), vals, self._size, coalesced=True)

    def to_dense(self):
        sd = self.sparse_dim()
        n = int(np.prod(self._size[:sd]))
        out = _C.zeros(n, *self._size[sd:], dtype=self._vals.dtype)
        if self._nnz():
            out = out.index_add(0, self._flat_index(), self._vals)
        return out.reshape(*self._size)

    def __matmul__(self, other):
        return mm(self, other)

    def __repr__(self):
        return (f"tensor(indices={self._idx!r},\n       values={self._vals!r},\n       size={self._size}, "
                f"nnz={self._nnz()}, layout=torch.sparse_coo)")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, requires_grad=False):
    idx = indices if isinstance(indices, _C.Tensor) else _tensor(indices)
    idx = idx.to(_C.int64)
    vals = values if isinstance(values, _C.Tensor) else _tensor(values, dtype=dtype)
    if dtype is not None:
        vals = vals.to(dtype)
    if idx.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if idx.shape[1] != vals.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {idx.shape[1]}, "
                           f"nnz from values: {vals.shape[0]}")
    host = idx.numpy()
    if size is None:
        size = tuple((host.max(1) + 1).tolist() if host.size else [0] * host.shape[0]) + tuple(vals.shape[1:])
    size = tuple(int(s) for s in size)
    if host.size and ((host < 0).any() or (host.max(1) >= np.array(size[:host.shape[0]])).any()):
        raise RuntimeError(f"sparse_coo_tensor: an index is out of bounds for size {list(size)}")
    if requires_grad:
        vals = vals.detach().requires_grad_(True)
    return SparseTensor(idx, vals, size)


def mm(sparse, dense):
    """sparse (n x m, COO) @ dense (m x k) -> dense (n x k), as lazy gather, scale and index_add."""
    if not isinstance(sparse, SparseTensor):
        return _C.matmul(sparse, dense)
    if sparse.dim() != 2 or sparse.sparse_dim() != 2 or dense.dim() != 2:
        raise RuntimeError("sparse.mm: expected a 2-D sparse matrix and a 2-D dense matrix")
    n, m = sparse.size()
    if dense.shape[0] != m:
        raise RuntimeError(f"sparse.mm: mat1 and mat2 shapes cannot be multiplied ({n}x{m} and "
                           f"{dense.shape[0]}x{dense.shape[1]})")
    rows, cols = sparse._idx[0], sparse._idx[1]
    contrib = dense.index_select(0, cols) * sparse._vals.unsqueeze(1)
    out = _C.zeros(n, dense.shape[1], dtype=contrib.dtype)
    return out.index_add(0, rows, contrib)


spmm = mm
