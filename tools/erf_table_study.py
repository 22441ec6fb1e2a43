"""Float32 erf table for jit/cpu/math.cpp's AVX-512 form (docs/cpu-jit.md, "AVX-512 math").

erf(x) = sign(x) p_i(t), i = floor(8|x|) (|x| clamped to 3.99), t = 8|x| - i,
p_i of degree 5. Fits each interval by least squares (relative weights; p_0
without constant term), rounding one coefficient at a time to float32 and
refitting the higher ones to what is left, then evaluates the table as the
JIT does (float32 Horner with exact FMAs, each rounded once) on a dense sweep
and prints the worst relative error against math.erf rounded to float32,
erf at the clamp, and the C++ table. Needs numpy: /usr/bin/python3 tools/erf_table_study.py
"""
import math

import numpy as np

erf = np.vectorize(math.erf)
DEGREE, INTERVALS, SCALE, TOP = 5, 32, 8.0, 3.99


def r32(a):
    return np.asarray(a, np.float64).astype(np.float32).astype(np.float64)


def fit():
    table = np.zeros((INTERVALS, DEGREE + 1))
    ts = np.linspace(0, 1, 4001)
    for i in range(INTERVALS):
        ys = erf((i + ts) / SCALE)
        w = 1 / np.maximum(ys, 1e-300)
        for k in range(1 if i == 0 else 0, DEGREE + 1):
            a = np.stack([ts**j for j in range(k, DEGREE + 1)], 1)
            rest = ys - sum(table[i, j] * ts**j for j in range(k))
            c, *_ = np.linalg.lstsq(a * w[:, None], rest * w, rcond=None)
            table[i, k] = r32(c[0])
    return table


def evaluate(table, x):
    ax = np.minimum(np.abs(r32(x)), r32(TOP))
    y = r32(ax * SCALE)
    fl = np.floor(y)
    t = r32(y - fl)
    i = fl.astype(int) & 31
    p = table[i, -1]
    for k in range(DEGREE - 1, -1, -1):
        p = r32(p * t + table[i, k])
    return np.copysign(p, x)


def main():
    table = fit()
    xs = r32(np.concatenate([np.linspace(-6, 6, 4000001), np.geomspace(1e-30, 1e-2, 200001)]))
    want = r32(erf(xs))
    rel = np.abs(evaluate(table, xs) - want) / np.maximum(np.abs(want), 1e-30)
    print("max relative error %.3g at x = %.9g" % (rel.max(), xs[rel.argmax()]))
    print("erf(3.99) - 1 = %.3g, erf(1e9) - 1 = %.3g" % tuple(evaluate(table, np.array([3.99, 1e9])) - 1))
    for k in range(DEGREE + 1):
        vals = []
        for v in table[:, k]:
            s = "%.9g" % v
            vals.append(s + ("" if ("." in s or "e" in s) else ".0") + "f")
        print("        {" + ", ".join(vals) + "},")


if __name__ == "__main__":
    main()
