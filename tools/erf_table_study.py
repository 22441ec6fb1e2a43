"""Float32 erf table for jit/cpu/math.cpp's AVX-512 form (docs/cpu-jit.md, "AVX-512 math").

erf(x) = sign(x) p_i(r), i = round(8|x|) (|x| clamped to TOP, where erf
rounds to 1), r = |x| - i/8 in [-1/16, 1/16] (i = 0: [0, 1/16]), p_i of
degree 4 (degree 5: 1.75e-7 instead of 2.1e-7, for one FMA and one
permute more). The JIT finds i and r without a multiply: |x| + 2^20 rounds |x| to
a multiple of 1/8 (its low mantissa bits are i), and subtracting 2^20 back
and then from |x| is exact. Fits each interval by least squares (relative
weights; p_0 without constant term), rounding one coefficient at a time to
float32 and refitting the higher ones to what is left, then evaluates the
table as the JIT does (float32 Horner with exact FMAs, each rounded once) on
a dense sweep and prints the worst relative error against math.erf rounded
to float32, erf at the clamp, and the C++ table.
Needs numpy: /usr/bin/python3 tools/erf_table_study.py
"""
import math

import numpy as np

erf = np.vectorize(math.erf)
DEGREE, INTERVALS, SCALE, TOP = 4, 32, 8.0, 3.93
MAGIC = 2.0**20  # float32 ulp 1/8


def r32(a):
    return np.asarray(a, np.float64).astype(np.float32).astype(np.float64)


def fit():
    table = np.zeros((INTERVALS, DEGREE + 1))
    for i in range(INTERVALS):
        lo = 0.0 if i == 0 else -0.5 / SCALE
        rs = np.linspace(lo, 0.5 / SCALE, 4001)
        ys = erf(i / SCALE + rs)
        w = 1 / np.maximum(ys, 1e-300)
        for k in range(1 if i == 0 else 0, DEGREE + 1):
            a = np.stack([rs**j for j in range(k, DEGREE + 1)], 1)
            rest = ys - sum(table[i, j] * rs**j for j in range(k))
            c, *_ = np.linalg.lstsq(a * w[:, None], rest * w, rcond=None)
            table[i, k] = r32(c[0])
    return table


def evaluate(table, x):
    ax = np.minimum(np.abs(r32(x)), r32(TOP))
    t1 = r32(ax + MAGIC)  # numpy rounds half to even, as the FPU does
    k8 = t1 - MAGIC
    r = ax - k8  # exact (Sterbenz)
    i = np.rint((t1 - MAGIC) * SCALE).astype(int) & 31
    p = table[i, -1]
    for k in range(DEGREE - 1, -1, -1):
        p = r32(p * r + table[i, k])
    return np.copysign(p, x)


def main():
    table = fit()
    xs = r32(np.concatenate([np.linspace(-6, 6, 4000001), np.geomspace(1e-30, 1e-2, 200001)]))
    want = r32(erf(xs))
    rel = np.abs(evaluate(table, xs) - want) / np.maximum(np.abs(want), 1e-30)
    print("max relative error %.3g at x = %.9g" % (rel.max(), xs[rel.argmax()]))
    print("erf(%g) - 1 = %.3g, erf(1e9) - 1 = %.3g" % ((TOP,) + tuple(evaluate(table, np.array([TOP, 1e9])) - 1)))
    for k in range(DEGREE + 1):
        vals = []
        for v in table[:, k]:
            s = "%.9g" % v
            vals.append(s + ("" if ("." in s or "e" in s) else ".0") + "f")
        print("        {" + ", ".join(vals) + "},")


if __name__ == "__main__":
    main()
