"""Per-op cost of the Python API (record only; sync amortised over the loop).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_op_overhead.py
"""
import time

import lazytensor as torch

N = 200000


def bench(name, fn):
    fn()
    t0 = time.perf_counter()
    for _ in range(N):
        fn()
    torch.sync()
    dt = (time.perf_counter() - t0) / N * 1e6
    print("%-28s %.3f us/op" % (name, dt))
    return dt


a = torch.ones(16)
b = torch.ones(16)
w = torch.ones(16, 16)
bench("a + b", lambda: a + b)
bench("a * 2.0", lambda: a * 2.0)
bench("2.0 - a (reflected)", lambda: 2.0 - a)
bench("a.relu()", lambda: a.relu())
bench("torch.exp(a)", lambda: torch.exp(a))
bench("a < b", lambda: a < b)
bench("w @ w", lambda: w @ w)
bench("w.sum(1)", lambda: w.sum(1))
bench("w.t()", lambda: w.t())
bench("w[0]", lambda: w[0])
bench("a.shape", lambda: a.shape)
