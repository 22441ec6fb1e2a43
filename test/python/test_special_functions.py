"""torch.special's gamma, error-function and Bessel families and orthogonal polynomials against PyTorch 1.13:
values in float64 and float32 at ordinary and special points (poles, zeros, infinities, NaN, the tails),
gradients, dtypes and errors. Where torch 1.13 itself is off (its trigamma series, erfinv near +-1, ndtr's
lower tail), the value is checked against mpmath at 50 digits and torch against it at torch's accuracy."""
import math
import warnings

import mpmath
import numpy as np
import pytest

from conftest import lt, torch

mpmath.mp.dps = 50
warnings.filterwarnings("ignore", category=UserWarning)
INF, NAN = math.inf, math.nan

# name: (lazytensor function, torch function, float64 points)
GAMMA_POINTS = [1e-300, 1e-10, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.7, 10.3, 100.5, 1e5, 1e20, 0.0, -0.0, -0.5, -1.0,
                -2.5, -3.7, -100.25, INF, -INF, NAN]
ERF_POINTS = [-1e10, -1e3, -40.0, -30.0, -20.0, -10.0, -5.0, -1.0, -1e-10, 0.0, -0.0, 1e-10, 0.5, 1.0, 5.0, 9.99,
              10.0, 10.01, 20.0, 30.0, 1e10, INF, -INF, NAN]
BESSEL_POINTS = [0.0, -0.0, 1e-10, 0.3, 1.0, 2.5, 7.9, 8.1, 15.0, 24.9, 25.1, 30.0, 100.0, 700.0, 720.0, -3.0, -30.0,
                 1e10, INF, -INF, NAN]
UNIT_POINTS = [0.0, -0.0, 1e-300, 1e-10, 0.1, 0.3, 0.5, 0.51, 0.7, 0.9, 0.99, 1.0, -1.0, -0.5, 1.5, -2.0, NAN]
K_POINTS = [0.0, -0.0, -1.0, 1e-300, 1e-10, 0.5, 1.9, 2.0, 2.1, 5.0, 10.0, 24.9, 25.1, 30.0, 100.0, 800.0, 1e10,
            INF, NAN]
PROB_POINTS = [0.0, 1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0, 1.5, -0.1, NAN]

CASES = {
    "gammaln": (lt.special.gammaln, torch.special.gammaln, GAMMA_POINTS),
    "lgamma": (lt.lgamma, torch.lgamma, GAMMA_POINTS),
    "digamma": (lt.special.digamma, torch.special.digamma, [p for p in GAMMA_POINTS if p != -INF]),
    "psi": (lt.special.psi, torch.special.psi, [1e-30, -1e-30, 1e30, 0.25, 7.0]),
    "polygamma3": (lambda t: lt.special.polygamma(3, t), lambda t: torch.special.polygamma(3, t),
                   [p for p in GAMMA_POINTS if p not in (-100.25, INF, -1.0)]),
    "multigammaln": (lambda t: lt.special.multigammaln(t, 3), lambda t: torch.special.multigammaln(t, 3),
                     [0.5, 1.0, 1.2, 2.5, 7.0, 50.0, INF]),
    "erfcx": (lt.special.erfcx, torch.special.erfcx, ERF_POINTS),
    "log_ndtr": (lt.special.log_ndtr, torch.special.log_ndtr, ERF_POINTS),
    "ndtr": (lt.special.ndtr, torch.special.ndtr, [p for p in ERF_POINTS if not -40 < p <= -5]),
    "erfinv": (lt.special.erfinv, torch.special.erfinv, UNIT_POINTS),
    "ndtri": (lt.special.ndtri, torch.special.ndtri, PROB_POINTS),
    "i0": (lt.special.i0, torch.special.i0, BESSEL_POINTS),
    "i0e": (lt.special.i0e, torch.special.i0e, BESSEL_POINTS),
    "i1": (lt.special.i1, torch.special.i1, BESSEL_POINTS),
    "i1e": (lt.special.i1e, torch.special.i1e, BESSEL_POINTS),
    "modified_bessel_i0": (lt.special.modified_bessel_i0, torch.special.modified_bessel_i0, BESSEL_POINTS[:16]),
    "modified_bessel_i1": (lt.special.modified_bessel_i1, torch.special.modified_bessel_i1, BESSEL_POINTS[:16]),
    "spherical_bessel_j0": (lt.special.spherical_bessel_j0, torch.special.spherical_bessel_j0, BESSEL_POINTS),
    "modified_bessel_k0": (lt.special.modified_bessel_k0, torch.special.modified_bessel_k0, K_POINTS),
    "modified_bessel_k1": (lt.special.modified_bessel_k1, torch.special.modified_bessel_k1, K_POINTS),
    "scaled_modified_bessel_k0": (lt.special.scaled_modified_bessel_k0, torch.special.scaled_modified_bessel_k0,
                                  K_POINTS),
    "scaled_modified_bessel_k1": (lt.special.scaled_modified_bessel_k1, torch.special.scaled_modified_bessel_k1,
                                  K_POINTS),
}


def _close(a, b, rtol, atol=0.0):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    same_special = (np.isnan(a) & np.isnan(b)) | (a == b)
    ok = same_special | np.isclose(a, b, rtol=rtol, atol=atol)
    assert ok.all(), [(i, a[i], b[i]) for i in np.where(~ok)[0]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_values_match_torch(name):
    ours, theirs, points = CASES[name]
    x = np.array(points, np.float64)
    _close(ours(lt.tensor(x, dtype=lt.float64)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_values_match_torch(name):
    ours, theirs, points = CASES[name]
    x = np.array(points, np.float64).astype(np.float32)
    a, b = ours(lt.tensor(x)), theirs(torch.tensor(x))
    assert str(a.dtype) == str(b.dtype)
    _close(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-37)


def test_integer_input_computes_in_float32():
    for ours, theirs in ((lt.lgamma, torch.lgamma), (lt.special.i1e, torch.special.i1e),
                         (lt.special.ndtr, torch.special.ndtr)):
        a, b = ours(lt.tensor([1, 2, 5])), theirs(torch.tensor([1, 2, 5]))
        assert str(a.dtype) == str(b.dtype) == "torch.float32"
        _close(a.numpy(), b.numpy(), rtol=1e-6)


def test_trigamma_is_exact_where_torch_is_a_short_series():
    x = np.array([0.1, 0.5, 1.0, 2.5, 10.3, -0.5, -2.5, -3.7])
    ours = lt.special.polygamma(1, lt.tensor(x, dtype=lt.float64)).numpy()
    exact = np.array([float(mpmath.psi(1, v)) for v in x])
    _close(ours, exact, rtol=1e-13)
    _close(torch.special.polygamma(1, torch.tensor(x)).numpy(), exact, rtol=1e-8)  # torch 1.13's accuracy
    assert ours[2] == pytest.approx(math.pi ** 2 / 6, rel=1e-15)


def test_zeta_matches_torch_and_mpmath():
    s = np.array([2.0, 2.0, 2.0, 3.0, 1.0, 0.5, 4.5, 2.0, 10.0, 2.5, 3.0])
    q = np.array([0.0, -1.0, -1.5, -2.5, 1.0, 1.0, 0.3, 1e9, 2.0, 7.0, -20.5])
    ours = lt.special.zeta(lt.tensor(s, dtype=lt.float64), lt.tensor(q, dtype=lt.float64)).numpy()
    _close(ours, torch.special.zeta(torch.tensor(s), torch.tensor(q)).numpy(), rtol=1e-12)
    for i in (2, 3, 6, 8, 9, 10):
        assert ours[i] == pytest.approx(float(mpmath.zeta(s[i], q[i])), rel=1e-13)
    assert lt.special.zeta(2.0, lt.tensor([1.0])).item() == pytest.approx(math.pi ** 2 / 6, rel=1e-7)


def test_erfinv_and_ndtri_near_one_invert_exactly():
    y = np.array([0.99, 1 - 1e-10, 1 - 2 ** -52, -(1 - 1e-12)])
    ours = lt.special.erfinv(lt.tensor(y, dtype=lt.float64)).numpy()
    for v, r in zip(y, ours):
        assert r == pytest.approx(float(mpmath.erfinv(mpmath.mpf(v))), rel=1e-14)
    _close(torch.special.erfinv(torch.tensor(y)).numpy(), ours, rtol=1e-4)  # torch 1.13's accuracy near 1
    p = np.array([1e-300, 1e-20, 1e-5, 1 - 1e-10])
    got = lt.special.ndtri(lt.tensor(p, dtype=lt.float64)).numpy()
    for v, r in zip(p, got):  # ncdf(r) = p, to what the rounding of r allows (|r| ulps of |r|)
        assert float(mpmath.ncdf(mpmath.mpf(r))) == pytest.approx(v, rel=4e-16 * r * r + 1e-15)


def test_bessel_k_matches_mpmath():
    x = np.array([1e-10, 0.5, 1.9, 2.0, 2.1, 5.0, 10.0, 24.9, 25.1, 100.0])
    for nu, f in ((0, lt.special.scaled_modified_bessel_k0), (1, lt.special.scaled_modified_bessel_k1)):
        ours = f(lt.tensor(x, dtype=lt.float64)).numpy()
        exact = np.array([float(mpmath.besselk(nu, v) * mpmath.exp(v)) for v in x])
        _close(ours, exact, rtol=5e-15)


def test_bessel_j_is_exact_where_torch_has_eight_digits():
    x = np.array([0.0, -0.0, 1e-10, 0.5, 2.404825557695773, 3.0, 5.0, 8.0, 10.0, 24.9, 25.1, 30.0, 100.0, 1e3, 1e5,
                  -3.0, -30.0, NAN])
    for nu, ours, theirs in ((0, lt.special.bessel_j0, torch.special.bessel_j0),
                             (1, lt.special.bessel_j1, torch.special.bessel_j1)):
        a = ours(lt.tensor(x, dtype=lt.float64)).numpy()
        exact = np.array([float(mpmath.besselj(nu, v)) if not math.isnan(v) else NAN for v in x])
        _close(a, exact, rtol=0, atol=3e-16)
        _close(theirs(torch.tensor(x)).numpy(), a, rtol=1e-7, atol=1e-8)  # torch 1.13's accuracy
        f32 = ours(lt.tensor(x.astype(np.float32))).numpy()
        _close(f32, exact.astype(np.float32), rtol=0, atol=3e-7)
        assert ours(lt.tensor([INF, -INF])).tolist() == [0.0, 0.0]  # the limit (torch 1.13: NaN)
        assert not ours(lt.tensor([1.0], requires_grad=True)).requires_grad


def test_bessel_y_is_exact_where_torch_has_eight_digits():
    x = np.array([1e-300, 1e-10, 0.5, 0.8935769662791675, 3.0, 5.0, 8.0, 10.0, 24.9, 25.1, 30.0, 100.0, 1e3, 1e5,
                  0.0, -0.0, -1.0, NAN])
    for nu, ours, theirs in ((0, lt.special.bessel_y0, torch.special.bessel_y0),
                             (1, lt.special.bessel_y1, torch.special.bessel_y1)):
        a = ours(lt.tensor(x, dtype=lt.float64)).numpy()
        b = theirs(torch.tensor(x)).numpy()
        exact = np.array([float(mpmath.bessely(nu, v)) if v > 0 else NAN for v in x])
        finite = np.isfinite(exact)
        _close(a[finite], exact[finite], rtol=3e-15, atol=3e-15)
        _close(a[~finite], b[~finite], rtol=0)  # -inf at 0, NaN below and at NaN, as torch
        _close(b[finite], a[finite], rtol=1e-7, atol=1e-8)  # torch 1.13's accuracy
        assert ours(lt.tensor([INF])).tolist() == [0.0]  # the limit (torch 1.13: NaN)
        assert not ours(lt.tensor([1.0], requires_grad=True)).requires_grad


def test_ndtr_lower_tail_has_its_digits():
    x = np.array([-5.0, -10.0, -20.0, -30.0])
    ours = lt.special.ndtr(lt.tensor(x, dtype=lt.float64)).numpy()
    exact = np.array([float(mpmath.ncdf(v)) for v in x])
    _close(ours, exact, rtol=1e-12)  # torch 1.13 computes (1 + erf) / 2 there: 0 below -8


# ---------------------------------------------------------------- gradients

GRAD_CASES = {
    "lgamma": (lt.lgamma, torch.lgamma, [0.3, 1.0, 2.5, 7.0, -0.5, -2.5]),
    "digamma": (lt.digamma, torch.digamma, [0.3, 1.0, 2.5, 7.0, -2.5]),
    "polygamma2": (lambda t: lt.polygamma(2, t), lambda t: torch.polygamma(2, t), [0.3, 1.0, 2.5, 7.0]),
    "mvlgamma": (lambda t: lt.mvlgamma(t, 2), lambda t: torch.mvlgamma(t, 2), [1.5, 2.5, 7.0]),
    "erfinv": (lt.erfinv, torch.erfinv, [-0.9, -0.3, 0.0, 0.5, 0.99]),
    "erfcx": (lt.special.erfcx, torch.special.erfcx, [-3.0, -0.5, 0.0, 2.0, 12.0, 50.0]),
    "ndtr": (lt.special.ndtr, torch.special.ndtr, [-3.0, -0.5, 0.0, 2.0]),
    "ndtri": (lt.special.ndtri, torch.special.ndtri, [1e-5, 0.2, 0.5, 0.9]),
    "log_ndtr": (lt.special.log_ndtr, torch.special.log_ndtr, [-40.0, -5.0, -0.5, 0.0, 2.0, 10.0]),
    "i0": (lt.i0, torch.i0, [-3.0, 0.0, 0.5, 30.0]),
    "i0e": (lt.special.i0e, torch.special.i0e, [-3.0, 0.5, 30.0]),
    "i1": (lt.special.i1, torch.special.i1, [-3.0, 0.0, 0.5, 30.0]),
    "i1e": (lt.special.i1e, torch.special.i1e, [-3.0, 0.0, 0.5, 30.0]),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_torch(name, dtype):
    """float32 gradients are compared with torch's float64 ones at the same points: torch's float32
    formulas cancel where these are computed in float64 (erfcx' = 2x erfcx(x) - 2/sqrt(pi) at x = 12)."""
    ours, theirs, points = GRAD_CASES[name]
    x = np.array(points, np.float64).astype(dtype)
    a = lt.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    b64 = torch.tensor(x.astype(np.float64), requires_grad=True)
    (ours(a) * lt.arange(1.0, len(x) + 1, dtype=a.dtype)).sum().backward()
    theirs(b).sum().backward()
    (theirs(b64) * torch.arange(1.0, len(x) + 1, dtype=b64.dtype)).sum().backward()
    assert str(a.grad.dtype) == str(b.grad.dtype)
    _close(a.grad.numpy(), b64.grad.numpy(), rtol=1e-9 if dtype == "float64" else 1e-5)


def test_gradients_at_the_poles():
    a, b = lt.tensor([0.0, -2.0], requires_grad=True), torch.tensor([0.0, -2.0], requires_grad=True)
    lt.lgamma(a).sum().backward()
    torch.lgamma(b).sum().backward()
    _close(a.grad.numpy(), b.grad.numpy(), rtol=0)  # digamma there: -inf, NaN
    a, b = lt.tensor([0.0, -2.0], requires_grad=True), torch.tensor([0.0, -2.0], requires_grad=True)
    lt.digamma(a).sum().backward()
    torch.digamma(b).sum().backward()
    assert a.grad.tolist() == [INF, INF]  # trigamma's poles; torch 1.13 takes sin(-2 pi) as 2.4e-16 there
    assert b.grad[0].item() == INF and b.grad[1].item() > 1e14


def test_functions_without_a_derivative_do_not_require_grad():
    x = lt.tensor([0.5], requires_grad=True)
    tx = torch.tensor([0.5], requires_grad=True)
    for name in ("spherical_bessel_j0", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
                 "scaled_modified_bessel_k1"):
        assert getattr(lt.special, name)(x).requires_grad == getattr(torch.special, name)(tx).requires_grad
    assert lt.special.chebyshev_polynomial_t(x, 3).requires_grad == \
        torch.special.chebyshev_polynomial_t(tx, 3).requires_grad


def test_zeta_differentiates_only_q():
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        lt.special.zeta(lt.tensor([2.0], requires_grad=True), lt.tensor([1.5]))
    q, tq = lt.tensor([0.7, 3.0], requires_grad=True), torch.tensor([0.7, 3.0], requires_grad=True)
    lt.special.zeta(lt.tensor([2.5, 3.0]), q).sum().backward()
    torch.special.zeta(torch.tensor([2.5, 3.0]), tq).sum().backward()
    _close(q.grad.numpy(), tq.grad.numpy(), rtol=1e-5)


# ---------------------------------------------------------------- polynomials

POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
POLY_X = [-2.5, -1.0, -0.7, -0.3, 0.0, 0.2, 0.5, 0.9, 1.0, 1.7, 3.0, NAN]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch_for_number_and_tensor_degrees(name):
    x = np.array(POLY_X)
    for n in [-1, 0, 1, 2, 3, 5, 7, 9, 12, 20, 2.7]:
        a = getattr(lt.special, name)(lt.tensor(x, dtype=lt.float64), n).numpy()
        b = getattr(torch.special, name)(torch.tensor(x), n).numpy()
        _close(a, b, rtol=1e-10, atol=1e-10)
    n = np.array([0, 1, 2, 5, 9, 3, 4, 6, 1, 0, 2, 3])
    a = getattr(lt.special, name)(lt.tensor(x, dtype=lt.float64), lt.tensor(n)).numpy()
    b = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    _close(a, b, rtol=1e-10, atol=1e-10)


def test_polynomial_dtypes_and_broadcasting_match_torch():
    cases = [(lambda T: T.tensor([1, 2]), 3), (lambda T: 0.3, lambda T: T.tensor([[2], [3]])),
             (lambda T: T.tensor([0.1, 0.4]), lambda T: T.tensor([[2], [3]])),
             (lambda T: 0.3, lambda T: T.tensor([5.0], dtype=T.float64))]
    for make_x, n in cases:
        a = lt.special.hermite_polynomial_h(make_x(lt), n(lt) if callable(n) else n)
        b = torch.special.hermite_polynomial_h(make_x(torch), n(torch) if callable(n) else n)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        _close(a.numpy(), b.numpy(), rtol=1e-6 if a.dtype == lt.float32 else 1e-13)


# ---------------------------------------------------------------- forms and errors

def test_torch_and_tensor_forms():
    x = np.array([0.3, 1.7, 4.0])
    for name in ("lgamma", "digamma", "erfinv", "i0"):
        ours = getattr(lt.tensor(x / 5), name)()
        theirs = getattr(torch.tensor(x / 5), name)()
        _close(ours.numpy(), theirs.numpy(), rtol=1e-6)
        a, b = lt.tensor(x / 5), torch.tensor(x / 5)
        getattr(a, name + "_")()
        getattr(b, name + "_")()
        _close(a.numpy(), b.numpy(), rtol=1e-6)
    a, b = lt.tensor(x), torch.tensor(x)
    _close(a.polygamma(2).numpy(), b.polygamma(2).numpy(), rtol=1e-6)
    _close(a.mvlgamma(2).numpy(), b.mvlgamma(2).numpy(), rtol=1e-6)
    a.polygamma_(1), b.polygamma_(1)
    _close(a.numpy(), b.numpy(), rtol=1e-6)
    c, d = lt.tensor([0.5]), torch.tensor([0.5])
    lt.i0_(c), torch.i0_(d)
    _close(c.numpy(), d.numpy(), rtol=1e-6)
    out = lt.empty(3)
    lt.special.ndtri(lt.tensor([0.1, 0.5, 0.9]), out=out)
    _close(out.numpy(), torch.special.ndtri(torch.tensor([0.1, 0.5, 0.9])).numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda T: T.polygamma(-1, T.tensor([1.0])),
    lambda T: T.mvlgamma(T.tensor([3.0]), 0),
    lambda T: T.special.multigammaln(T.tensor([3.0]), 0),
    lambda T: T.lgamma([1.0]),
])
def test_bad_arguments_raise_what_torch_raises(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(lt)
    assert type(ours.value) is type(theirs.value)
    if isinstance(theirs.value, RuntimeError):
        assert str(theirs.value) in str(ours.value)
