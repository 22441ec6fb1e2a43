"""Python per-op cost of recording: a 100-op loop on a small tensor, sync included.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_per_op.py [repeats]

Each repeat runs the same 100-op chain (25 x: `y * 1.0001`, `+ 0.5`, `relu`,
`- 0.25`) on a 32-element tensor, then forces the result (`lazytensor.sync()`), and reports
microseconds per op as the median over the repeats. numpy and torch eager run
the identical loop in the same process when they are importable.
"""
import statistics
import sys
import time

REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
OPS = 100


def loop(mod, relu, x):
    y = x
    # 100 ops: 25 x (mul, add, relu, sub)
    for _ in range(25):
        y = y * 1.0001
        y = y + 0.5
        y = relu(y)
        y = y - 0.25
    return y


def bench(name, mod, relu, x, finish):
    for _ in range(20):  # warm-up (also fills the trace cache)
        finish(loop(mod, relu, x))
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        finish(loop(mod, relu, x))
        times.append(time.perf_counter() - t0)
    med = statistics.median(times) / OPS * 1e6
    best = min(times) / OPS * 1e6
    print("%-16s median %.3f us/op   min %.3f us/op   (%d repeats of %d ops, sync included)" % (name, med, best, REPEATS, OPS))
    return med


def main():
    import lazytensor

    x = lazytensor.rand(32)
    bench("lazytensor", lazytensor, lazytensor.relu, x, lambda y: lazytensor.sync())
    try:
        import numpy as np

        xn = np.random.rand(32).astype(np.float32)
        bench("numpy", np, lambda y: np.maximum(y, 0), xn, lambda y: None)
    except ImportError:
        print("numpy            (not installed)")
    try:
        import torch

        xt = torch.rand(32)
        bench("torch eager", torch, torch.relu, xt, lambda y: None)
    except ImportError:
        print("torch eager      (not installed)")


if __name__ == "__main__":
    main()
