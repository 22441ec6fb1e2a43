"""The torch.* names (and Tensor methods) PyTorch 1.13 keeps for torch.linalg functions: det, slogdet, logdet,
inverse, pinverse, matrix_power, chain_matmul. They share linalg's implementations: the decompositions run on
the host with lazy gradients (see linalg/__init__.py), matrix_power and chain_matmul are lazy matmuls.
"""
import math

from . import _C, linalg


def det(input):
    return linalg.det(input)


def slogdet(input):
    return linalg.slogdet(input)


def logdet(input):
    """log(det): NaN for a negative determinant, -inf for a zero one, as PyTorch."""
    sign, logabsdet = linalg.slogdet(input)
    return _C._where3(sign < 0, math.nan, _C._where3(sign == 0, -math.inf, logabsdet))


def inverse(input, *, out=None):
    return linalg.inv(input, out=out)


def pinverse(input, rcond=1e-15):
    return linalg.pinv(input, rtol=rcond)


def matrix_power(input, n):
    return linalg.matrix_power(input, n)


def chain_matmul(*matrices, out=None):
    """The deprecated product of 2-D matrices (linalg.multi_dot without its vector ends)."""
    for i, m in enumerate(matrices):
        if not isinstance(m, _C.Tensor) or m.dim() != 2:
            raise RuntimeError("chain_matmul(): Tensor dimension is {}, expected 2 instead.".format(
                m.dim() if isinstance(m, _C.Tensor) else type(m).__name__))
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    return matrices[0].clone() if len(matrices) == 1 else linalg.multi_dot(matrices)


__all__ = ["det", "slogdet", "logdet", "inverse", "pinverse", "matrix_power", "chain_matmul"]
TENSOR_METHODS = ["det", "slogdet", "logdet", "inverse", "pinverse", "matrix_power"]
