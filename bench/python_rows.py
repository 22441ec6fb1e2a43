"""Row reductions through the Python API (docs/cpu-jit.md, "Rows reductions"): steady-state median ms of softmax,
layer norms, logsumexp and var over short and long rows, each beside torch eager in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_rows.py [NAME,NAME]

Inputs are materialised first; each timing is one call plus its sync, median of 15 after 3 warm-up calls (by then
the kernels run compiled). A benchmark, not a test: it asserts nothing."""
import sys
import time

import numpy as np
import lazytensor as lt
import torch

WORKLOADS = [  # name, shape, program (written once for both modules)
    ("softmax_77", (16384, 77), lambda m, x: m.softmax(x, -1)),
    ("softmax_64", (32768, 64), lambda m, x: m.softmax(x, -1)),
    ("softmax_4096", (1024, 4096), lambda m, x: m.softmax(x, -1)),
    ("layer_norm_gelu_77", (1 << 17, 77), lambda m, x: m.nn.functional.layer_norm(m.nn.functional.gelu(x), (77,))),
    ("layer_norm_77", (1 << 17, 77), lambda m, x: m.nn.functional.layer_norm(x, (77,))),
    ("layer_norm_128", (4096, 128), lambda m, x: m.nn.functional.layer_norm(x, (128,))),
    ("layer_norm_1024", (8192, 1024), lambda m, x: m.nn.functional.layer_norm(x, (1024,))),
    ("logsumexp_65", (32768, 65), lambda m, x: m.logsumexp(x, -1)),
    ("var_300", (20000, 300), lambda m, x: x.var(-1)),
    ("sum_rows_4096", (4096, 4096), lambda m, x: x.sum(-1)),
]


def median_ms(call, sync, reps=15):
    for _ in range(3):
        sync(call())
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        sync(call())
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[reps // 2] * 1e3


only = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else None
print("| workload | lazytensor ms | torch eager ms | x faster |")
print("|---|---|---|---|")
for name, shape, f in WORKLOADS:
    if only and name not in only:
        continue
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = lt.from_numpy(a)
    lt.sync(x)
    ours = median_ms(lambda: f(lt, x), lambda y: lt.sync(y))
    t = torch.from_numpy(a)
    theirs = median_ms(lambda: f(torch, t), lambda y: None)
    print("| %s %s | %.3f | %.3f | %.2f |" % (name, "x".join(map(str, shape)), ours, theirs, theirs / ours), flush=True)
