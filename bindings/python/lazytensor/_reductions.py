"""Reductions and scans composed from the C++ ones: nansum, nanmean, count_nonzero, cumprod, cummax, cummin,
logcumsumexp, cov, corrcoef, aminmax, dist and the
trapezoid family.

The scans other than cumsum are log2(n) rounds of `x op (x shifted by 2**k)` (Hillis-Steele): every round is
elementwise over the whole tensor, so it stays lazy and fuses, and autograd differentiates it as written.
"""
import builtins
import math
import warnings
from collections import namedtuple

from . import _C
from ._function_args import (_along, _broadcast_shape, _check, _default_float, _dt_name, _reduce_dims, _where,
                             _wrap, _zeros)
from ._out import _with_out, _write_out
from . import _pointwise


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum treating NaN as 0 (and a zero gradient there, as PyTorch)."""
    _check("nansum", input)
    dims = _reduce_dims("nansum", dim, input.dim())
    x = input
    if dtype is not None:
        dtype = _C._to_dtype(dtype)
        if x.dtype.is_floating_point and not dtype.is_floating_point:
            raise RuntimeError("nansum: \"nansum_cpu\" not implemented for '{}'".format(_dt_name(dtype)))
        x = x.to(dtype)
    if x.dtype.is_floating_point:
        x = _where(x.isnan(), _zeros([1], x.dtype), x)
    if dtype is None:
        return x.sum(dims, keepdim)
    return x.sum(dims, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """mean over the non-NaN elements (NaN where there are none)."""
    _check("nanmean", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point dtype but got {}".format(
            _dt_name(input.dtype)))
    dims = _reduce_dims("nanmean", dim, input.dim())
    if dtype is not None and not _C._to_dtype(dtype).is_floating_point:
        raise RuntimeError("nanmean: \"nansum_cpu\" not implemented for '{}' (dtype must be floating)".format(
            _dt_name(_C._to_dtype(dtype))))
    count = input.isnan().logical_not().sum(dims, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def count_nonzero(input, dim=None):
    _check("count_nonzero", input)
    dims = _reduce_dims("count_nonzero", dim, input.dim())
    nz = input if input.dtype == _C.bool else input != 0
    return nz.sum(dims, dtype=_C.int64)


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


def _scan(x, d, combine):
    """Inclusive scan of x along d with an associative combine(earlier, later), one kernel per round.

    Each round reads the previous one at three offsets. Left to fuse, round k would inline 3**k copies of
    the input's expression (cheap combines such as maximum are never stored on their own): cummax over 300
    elements took two minutes to compile. A cumsum over a new size-1 dim is the identity but is always
    materialised, so it stores every round."""
    n = x.shape[d]
    s = 1
    while s < n:
        x = _C.cat([x.narrow(d, 0, s), combine(x.narrow(d, 0, n - s), x.narrow(d, s, n - s))], d)
        x = _stored(x)
        s *= 2
    return x


def _stored(x):
    """x itself, materialised (see _scan)."""
    return x.unsqueeze(-1).cumsum(-1).squeeze(-1).to(x.dtype)


_cummax_t = namedtuple("cummax", ["values", "indices"])
_cummin_t = namedtuple("cummin", ["values", "indices"])


def _cumulative_extreme(name, input, dim, largest):
    """cummax/cummin: values and the index of the *last* element equal to the running extreme (PyTorch 1.13's
    rule, `>=`), and NaN as the extreme from the first NaN on (its index moving to each later NaN).

    An element is a record when it is NaN, or no NaN came before it and it is >= (<=) the running extreme of
    what came before; the index is the running max of the record positions. The values are a gather of the
    input at the indices, so the gradient goes to that element, as PyTorch's."""
    _check(name, input)
    nd = input.dim()
    d = _wrap(dim, nd, name)
    x = input.reshape(1) if nd == 0 else input
    n = x.shape[d]
    if n == 0:
        out = _cummax_t if largest else _cummin_t
        return out(input.clone(), _zeros(list(input.shape), _C.int64))
    v = x.detach()
    pick = _C.maximum if largest else _C.minimum
    if v.dtype.is_floating_point:
        nan = v.isnan()
        clean = _where(nan, -math.inf if largest else math.inf, v)
        nan_before = _C.cat([_zeros(_size_at(v, d, 1), _C.int32), nan.to(_C.int32).narrow(d, 0, n - 1)], d) \
            .cumsum(d) > 0
    else:
        nan, nan_before, clean = None, None, v
    running = _scan(clean, d, pick)
    record = v == running
    if nan is not None:
        record = record.logical_and(nan_before.logical_not()).logical_or(nan)
    pos = _along(_C.arange(n, dtype=_C.int64), d, x.dim())
    indices = _scan(_where(record, pos, -1), d, _C.maximum)
    values = x.gather(d, indices)
    if nd == 0:
        values, indices = values.reshape(()), indices.reshape(())
    return (_cummax_t if largest else _cummin_t)(values, indices)


def _size_at(x, d, size):
    shape = list(x.shape)
    shape[d] = size
    return shape


def _out_pair(name, result, out):
    if out is None:
        return result
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("{}(): argument 'out' must be a tuple of two Tensors (values, indices)".format(name))
    _write_out(name, result.values, out[0])
    _write_out(name, result.indices, out[1])
    return type(result)(out[0], out[1])


def cummax(input, dim, *, out=None):
    return _out_pair("cummax", _cumulative_extreme("cummax", input, dim, True), out)


def cummin(input, dim, *, out=None):
    return _out_pair("cummin", _cumulative_extreme("cummin", input, dim, False), out)


def logcumsumexp(input, dim):
    """log(cumsum(exp(x))) without overflow or underflow: a scan of logaddexp (max + log1p(exp(-|a - b|)))."""
    _check("logcumsumexp", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError("logcumsumexp: \"logcumsumexp_out_cpu\" not implemented for '{}' (expected a floating "
                           "point input)".format(_dt_name(input.dtype)))
    nd = input.dim()
    d = _wrap(dim, nd, "logcumsumexp")
    if nd == 0:
        return input.clone()
    return _scan(input, d, _pointwise.logaddexp)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) over the columns (observations), as torch.cov. Negative weights are
    not detected (PyTorch raises; that would need a sync)."""
    _check("cov", input)
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with {} "
                           "dimensions".format(input.dim()))
    if input.dtype == _C.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    nobs = x.shape[1]
    dt = input.dtype if input.dtype.is_floating_point else _default_float()
    for nm, w, want_float in (("fweights", fweights, False), ("aweights", aweights, True)):
        if w is None:
            continue
        _check("cov", w, nm, 2)
        if w.dim() > 1:
            raise RuntimeError("cov(): expected {} to have one or fewer dimensions but got {} with {} "
                               "dimensions".format(nm, nm, w.dim()))
        if want_float and not w.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with {} "
                               "dtype".format(_dt_name(w.dtype)))
        if not want_float and (w.dtype.is_floating_point or w.dtype == _C.bool):
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with {} "
                               "dtype".format(_dt_name(w.dtype)))
        if w.numel() != nobs:
            raise RuntimeError("cov(): expected {} to have the same numel as there are observations in the input but "
                               "got {} != {}".format(nm, w.numel(), nobs))
        if want_float:
            dt = _C.promote_types(dt, w.dtype)
    x = x.to(dt)
    w = None
    if fweights is not None:
        w = fweights.reshape(-1).to(dt)
    if aweights is not None:
        aw = aweights.reshape(-1).to(dt)
        w = aw if w is None else w * aw
    if w is None:
        avg = x.sum(1) / builtins.float(nobs)  # NaN without observations, as PyTorch
        norm = nobs - correction
        if norm <= 0:
            warnings.warn("cov(): degrees of freedom is <= 0", UserWarning, stacklevel=2)
            norm = 0
        xm = x - avg.unsqueeze(1)
        c = xm.matmul(xm.t()) / builtins.float(norm)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aw).sum() / w_sum
        norm = norm.clamp_min(0)
        xm = x - avg.unsqueeze(1)
        c = (xm * w).matmul(xm.t()) / norm
    return c.squeeze()


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim, with sample points x (1-D, or broadcasting against y) or spacing dx
    (default 1)."""
    _check("trapezoid", y, "y", 1)
    if x is not None and dx is not None:
        raise TypeError("trapezoid(): pass either x (sample points) or dx (spacing), not both")
    if x is not None:
        _check("trapezoid", x, "x", 2)
    if y.dim() == 0:
        raise IndexError("trapezoid: Dimension specified as {} but tensor has no dimensions".format(dim))
    nd = y.dim()
    d = _wrap(dim, nd, "trapezoid")
    if y.dtype == _C.bool or (x is not None and x.dtype == _C.bool):
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    n = y.shape[d]
    if x is not None and x.dim() == 1 and x.shape[0] != n:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point (got {} x values for "
                           "{} samples along dim {})".format(x.shape[0], n, d))
    if n == 0:
        shape = list(y.shape[:d]) + list(y.shape[d + 1:])
        return _zeros(shape, y.dtype)
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is None:
        step = 1 if dx is None else dx
        return (y.sum(d) - (y.select(d, 0) + y.select(d, n - 1)) * 0.5) * step
    if x.dim() == 1:
        xv = _along(x, d, nd)
    elif x.dim() < nd:
        xv = x.reshape([1] * (nd - x.dim()) + list(x.shape))
    else:
        xv = x
    if d >= xv.dim() or xv.shape[d] == 0:
        raise RuntimeError("trapezoid: x of shape {} has no sample points along dim {}".format(list(x.shape), d))
    m = xv.shape[d]
    steps = xv.narrow(d, 1, m - 1) - xv.narrow(d, 0, m - 1)
    _broadcast_shape("trapezoid", steps.shape, left.shape)
    return (steps * (left + right)).sum(d) / 2


def trapz(y, x=None, *, dx=None, dim=-1):
    """PyTorch's older name of trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along dim (one fewer element there): cumsum of the panel areas."""
    _check("cumulative_trapezoid", y, "y", 1)
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid(): pass either x (sample points) or dx (spacing), not both")
    if y.dim() == 0:
        raise IndexError("cumulative_trapezoid: Dimension specified as {} but tensor has no dimensions".format(dim))
    nd = y.dim()
    d = _wrap(dim, nd, "cumulative_trapezoid")
    n = y.shape[d]
    if n == 0:
        return y.narrow(d, 0, 0)
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is None:
        return ((left + right) * ((1 if dx is None else dx) / 2)).cumsum(d)
    _check("cumulative_trapezoid", x, "x", 2)
    xv = _along(x, d, nd) if x.dim() == 1 else x
    if x.dim() == 1 and x.shape[0] != n:
        raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
    m = xv.shape[d]
    steps = xv.narrow(d, 1, m - 1) - xv.narrow(d, 0, m - 1)
    return (steps * (left + right) / 2).cumsum(d)


_AminmaxResult = namedtuple("aminmax", ["min", "max"])


def aminmax(input, *, dim=None, keepdim=False):
    """(amin, amax) in one call, as a named tuple (min, max)."""
    _check("aminmax", input)
    if input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
        return _AminmaxResult(lo, hi)
    return _AminmaxResult(input.amin(dim, keepdim), input.amax(dim, keepdim))


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    _check("dist", input)
    _check("dist", other, "other", 2)
    return (input - other).norm(p)


def corrcoef(input):
    """Pearson correlation coefficients of the rows: cov over the outer product of the standard deviations,
    clipped to [-1, 1] as PyTorch."""
    _check("corrcoef", input)
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1) / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


# The out= argument, honoured.
for _n in ("nansum", "nanmean", "cumprod", "logcumsumexp"):
    globals()[_n] = _with_out(globals()[_n])
del _n

__all__ = ["nansum", "nanmean", "count_nonzero", "cumprod", "cummax", "cummin", "logcumsumexp", "cov", "trapezoid", "trapz",
           "cumulative_trapezoid", "aminmax", "dist", "corrcoef"]
