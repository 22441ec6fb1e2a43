"""Float32 exp of jit/cpu/math.cpp's AVX-512 form (docs/cpu-jit.md, "AVX-512 math").

x = (k/16) ln2 + r, e^x = 2^floor(k/16) * T[k mod 16] * e^r with T[j] =
2^(j/16) rounded to float32 and e^r = 1 + r (1 + r/2 + r^2/6) (|r| <= ln2/32:
the next term is below 1e-8). Evaluates the form exactly as the JIT does
(every FMA rounded once to float32) on a dense sweep and prints the worst
relative error against double exp and the ulp error against exp rounded to
float32. Needs numpy: /usr/bin/python3 tools/exp_table_study.py
"""
import math

import numpy as np

LN2_HI = 2839 / 4096  # 12 bits: (k/16) LN2_HI is exact for |k| < 2^12
MAGIC = 1.5 * 2**19   # float32 ulp 1/16


def r32(a):
    return np.asarray(a, np.float64).astype(np.float32).astype(np.float64)


LOG2E = r32(1 / math.log(2))
LN2_LO = r32(math.log(2) - LN2_HI)
TABLE = r32(2.0 ** (np.arange(16) / 16))


def evaluate(x):
    xc = np.clip(r32(x), -104, 89)
    t1 = r32(xc * LOG2E + MAGIC)  # the product is exact in double: one rounding, as the FMA
    kf = t1 - MAGIC
    r = r32(xc - kf * LN2_HI)
    r = r32(r - kf * LN2_LO)
    tb = TABLE[np.rint(kf * 16).astype(np.int64) & 15]
    q = r32(r32(r * r32(1 / 6) + 0.5) * r + 1)
    y = r32(r32(r * tb) * q + tb)
    return r32(y * 2.0 ** np.floor(kf))


def main():
    xs = r32(np.concatenate([np.linspace(-87, 88, 4000001), np.linspace(-1, 1, 1000001)]))
    want = np.exp(xs)
    got = evaluate(xs)
    rel = np.abs(got - want) / want
    ulp = np.abs(got - r32(want)) / np.spacing(r32(want).astype(np.float32)).astype(np.float64)
    print("LN2_HI %.17g, LN2_LO %.10g" % (LN2_HI, LN2_LO))
    print("max relative error %.3g at x = %.9g" % (rel.max(), xs[rel.argmax()]))
    print("max %.2f ulp against exp rounded to float32; %.1f%% exact" % (ulp.max(), 100 * (ulp == 0).mean()))


if __name__ == "__main__":
    main()
