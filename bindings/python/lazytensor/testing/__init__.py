"""lazytensor.testing — assert_close with torch 1.13's per-dtype tolerances, and the older assert_allclose."""
import numpy as np

from .._C import Tensor

__all__ = ["assert_close", "assert_allclose"]

# torch.testing's defaults: (rtol, atol) by dtype; integers and bool compare exactly.
_TOLERANCES = {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7), "float16": (1e-3, 1e-5)}


def _as_array(x):
    if isinstance(x, Tensor):
        return x.detach().numpy(), str(x.dtype).replace("torch.", "")
    a = np.asarray(x)
    return a, None


def _dtype_name(a, name):
    return name if name is not None else str(a.dtype)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype, msg=msg)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if actual.keys() != expected.keys():
            raise AssertionError(f"The keys of the mappings do not match: {sorted(actual)} != {sorted(expected)}")
        for k in actual:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    a, adt = _as_array(actual)
    e, edt = _as_array(expected)
    adt, edt = _dtype_name(a, adt), _dtype_name(e, edt)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if check_dtype and adt != edt:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {adt} != {edt}.")
    if rtol is None:
        r1, a1 = _TOLERANCES.get(adt, (0.0, 0.0))
        r2, a2 = _TOLERANCES.get(edt, (0.0, 0.0))
        rtol, atol = max(r1, r2), max(a1, a2)
    a64 = a.astype(np.float64) if a.dtype != np.bool_ else a.astype(np.int64)
    e64 = e.astype(np.float64) if e.dtype != np.bool_ else e.astype(np.int64)
    with np.errstate(invalid="ignore"):
        ok = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if ok.all():
        return
    if msg is not None:
        raise AssertionError(msg)
    bad = int((~ok).sum())
    total = ok.size
    diff = np.abs(a64 - e64)
    diff = np.where(np.isnan(diff), np.inf, diff)
    idx = np.unravel_index(int(np.argmax(np.where(ok, -1, diff))), ok.shape) if ok.ndim else ()
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = diff / np.abs(e64)
    rel = np.where(ok, -1, np.where(np.isnan(rel), np.inf, rel))
    ridx = np.unravel_index(int(np.argmax(rel)), ok.shape) if ok.ndim else ()
    kind = "Scalars" if ok.ndim == 0 else "Tensor-likes"
    raise AssertionError(
        f"{kind} are not close!\n\n"
        f"Mismatched elements: {bad} / {total} ({100.0 * bad / total:.1f}%)\n"
        f"Greatest absolute difference: {diff[idx]} at index {tuple(int(i) for i in idx)} (up to {atol} allowed)\n"
        f"Greatest relative difference: {rel[ridx]} at index {tuple(int(i) for i in ridx)} (up to {rtol} allowed)")


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated torch.testing.assert_allclose: compares values only (no dtype check), NaNs equal."""
    if (rtol is None) != (atol is None):
        raise ValueError("rtol and atol must both be specified or both be unspecified")
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)
