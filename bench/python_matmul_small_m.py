"""Matmuls of few rows against the large-M rate (docs/matmul.md, issue #25's "M <= 64 at least 0.8 of the
large-M rate"), in one process:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_matmul_small_m.py

Prints GFLOP/s of lt.randn(1024, 1024) @ lt.randn(1024, 1024) and of [M, 1024] @ [1024, 4096] for M = 16, 32,
64, best of 30 synced calls after 5 warm-up calls, and each small-M rate over the large one. A benchmark: it
asserts nothing.
"""
import time

import lazytensor as lt


def rate(M, N, K, reps=30):
    a = lt.randn(M, K)
    b = lt.randn(K, N)
    lt.sync(a, b)
    for _ in range(5):
        lt.sync(a @ b)
    best = 1e9
    for _ in range(reps):
        t0 = time.perf_counter()
        lt.sync(a @ b)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * M * N * K / best / 1e9


big = rate(1024, 1024, 1024)
print("M=1024 N=K=1024: %.0f GFLOP/s" % big)
for M in (16, 32, 64):
    r = rate(M, 4096, 1024)
    print("M=%d N=4096 K=1024: %.0f GFLOP/s, %.2f of large-M" % (M, r, r / big))
