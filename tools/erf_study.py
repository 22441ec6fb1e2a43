"""Float32 erf study for jit/cpu/math.cpp (docs/cpu-jit.md, "Cheaper float32 erf").

Fits x P(x^2)/Q(x^2) on [0, 4] for several degrees and one polynomial in |x|
(relative error, exact arithmetic), then evaluates the JIT's current coefficients in emulated
float32 (every operation rounded; an FMA is exact in double then rounded):
worst relative error against math.erf rounded to float32, and whether P/Q
exceeds 1 (the output clamp). Needs numpy: /usr/bin/python3 tools/erf_study.py
"""
import math

import numpy as np

erf = np.vectorize(math.erf)


def r32(a):
    return np.asarray(a, np.float64).astype(np.float32).astype(np.float64)


def fit_rational(deg_p, deg_q, top=4.0, iters=60):
    xs = np.linspace(1e-4, top, 40001)
    ys = erf(xs)
    t = xs * xs / (top * top)
    q_prev, w, best = np.ones_like(xs), np.ones_like(xs) / len(xs), None
    for _ in range(iters):  # linearised x P - y Q = 0, reweighted towards the worst points
        a = np.concatenate([np.stack([xs * t**k for k in range(deg_p + 1)], 1),
                            np.stack([-ys * t**k for k in range(1, deg_q + 1)], 1)], 1)
        a, b = a / (ys * q_prev)[:, None], 1 / q_prev
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], b * sw, rcond=None)
        p = sum(c[k] * t**k for k in range(deg_p + 1))
        q = 1 + sum(c[deg_p + k] * t**k for k in range(1, deg_q + 1))
        e = np.abs(xs * p / q - ys) / ys
        if best is None or e.max() < best:
            best = e.max()
        q_prev, w = q, w * e / (w * e).sum()
    return best


def fit_odd_poly(degree, top=3.92, iters=200):
    """x q(x), q of degree - 1 in x (x >= 0; copysign restores the sign)."""
    xs = np.linspace(1e-6, top, 20001)
    ys = erf(xs)
    a = np.stack([xs ** (k + 1) for k in range(degree)], 1) / ys[:, None]
    w, best = np.ones_like(xs) / len(xs), None
    for _ in range(iters):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], sw, rcond=None)
        e = np.abs(a @ c - 1)
        if best is None or e.max() < best:
            best = e.max()
        w = w * e / (w * e).sum()
    return best


ALPHA = [-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04, -5.69250639462346e-05,
         -2.10102402082508e-06, 2.77068142495902e-08, -2.72614225801306e-10]
BETA = [-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03, -2.13374055278905e-04,
        -1.45660718464996e-05]


def erf_f32(x, estrin=False):
    a, b = [float(np.float32(v)) for v in ALPHA], [float(np.float32(v)) for v in BETA]
    xc = np.clip(x, -4, 4)
    z = r32(xc * xc)

    def horner(cs):
        p = np.full_like(z, cs[-1])
        for c in reversed(cs[:-1]):
            p = r32(p * z + c)
        return p

    def estrin_(cs):
        z2 = r32(z * z)
        pairs = [r32(cs[i + 1] * z + cs[i]) if i + 1 < len(cs) else np.full_like(z, cs[i]) for i in range(0, len(cs), 2)]
        p = pairs[-1]
        for q in reversed(pairs[:-1]):
            p = r32(p * z2 + q)
        return p

    poly = estrin_ if estrin else horner
    return r32(r32(xc * poly(a)) / poly(b))


if __name__ == "__main__":
    for dp, dq in [(6, 4), (5, 4), (6, 3), (4, 5), (4, 4)]:
        print(f"rational deg P {dp}, deg Q {dq}: max relative error {fit_rational(dp, dq):.3g} (exact arithmetic)")
    for d in (8, 10, 12):
        print(f"polynomial x q(x), degree {d} on [0, 3.92]: max relative error {fit_odd_poly(d):.3g}")
    every = np.arange(np.float32(1.5).view(np.int32), np.float32(4.0).view(np.int32) + 1, dtype=np.int32)
    x = every.view(np.float32).astype(np.float64)
    for est in (False, True):
        name = "estrin" if est else "horner"
        y = erf_f32(x, est)
        print(f"{name}: P/Q > 1 for {(y > 1).sum()} float32 inputs in [1.5, 4] (max {y.max():.8f})")
        worst = 0.0
        for xs in (np.linspace(-6, 6, 200001), np.linspace(0, 4, 2000001)):
            xs = r32(xs)
            want, got = r32(erf(xs)), np.clip(erf_f32(xs, est), -1, 1)
            m = want != 0
            worst = max(worst, (np.abs(got[m] - want[m]) / np.abs(want[m])).max())
        print(f"{name}: float32 max relative error {worst:.3g}")
