"""PyTorch eager baselines for bench_cpu, same workloads and sizes.

Prints one JSON object: workload -> median milliseconds. Run it twice from
tools/run-bench: as-is and with GLIBC_TUNABLES=glibc.malloc.hugetlb=1.
"""
import json
import os
import statistics
import sys
import time

import torch

torch.set_num_threads(os.cpu_count())
REPEAT = int(os.environ.get("BENCH_REPEAT", "7"))


def median_ms(fn):
    fn()
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def chain(x):
    y = x * 1.5 + 0.25
    y = torch.maximum(y, x) - 0.5
    y = torch.minimum(y, x * 2.0)
    y = torch.where(x > 0.0, y, y * 0.5)
    return y + 1.0


def main():
    n = 16 * 1024 * 1024
    x = torch.randn(n)
    out = {}
    out["chain10"] = median_ms(lambda: chain(x))
    a, b = 1.5, 0.25
    out["gelu_expr"] = median_ms(
        lambda: torch.nn.functional.gelu(x * a + b) * torch.sigmoid(x) + 0.5 * x)
    out["sum"] = median_ms(lambda: x.sum())
    s = torch.randn(4096, 4096)
    out["softmax"] = median_ms(lambda: torch.softmax(s, -1))
    l = torch.randn(8192, 1024)
    w = torch.randn(1024)
    bias = torch.randn(1024)
    out["layer_norm"] = median_ms(
        lambda: torch.nn.functional.layer_norm(l, (1024,), w, bias))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
