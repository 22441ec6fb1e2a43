"""Peers for bench/bench_matmul.cpp: numpy matmul (OpenBLAS), torch addmm + relu and torch bfloat16 matmul.

Prints "key milliseconds" lines (medians) and one "info ..." line naming the
BLAS core OpenBLAS chose. Run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE as
the caller sets them (tools/run-bench unsets both).
"""
import ctypes
import ctypes.util
import os
import time

import numpy as np


def median_ms(fn, repeat):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def openblas_info():
    for name in ("libopenblas.so.0", "libopenblasp-r0.3.21.so", "libblas.so.3"):
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            lib.openblas_get_config.restype = ctypes.c_char_p
            return "%s core=%s threads=%d" % (lib.openblas_get_config().decode(), lib.openblas_get_corename().decode(),
                                              lib.openblas_get_num_threads())
        except (OSError, AttributeError):
            continue
    return "numpy BLAS is not OpenBLAS (reference BLAS?)"


# torch.matmul of bfloat16 tensors (oneDNN; float32 accumulation on AVX-512 BF16 / AMX), before numpy's products, so
# OpenBLAS's threads are not spinning beside torch's.
try:
    import torch

    torch.set_num_threads(os.cpu_count())
    for n in (1024, 2048):
        a = torch.randn(n, n).bfloat16()
        b = torch.randn(n, n).bfloat16()
        print("matmul_bf16_%d %.4f" % (n, median_ms(lambda: torch.matmul(a, b), 5 if n >= 2048 else 11)), flush=True)
except ImportError:
    pass

rng = np.random.default_rng(0)
for n in (512, 1024, 2048):
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    print("matmul_%d %.4f" % (n, median_ms(lambda: a @ b, 5 if n >= 2048 else 11)), flush=True)
print("info numpy %s; %s; OPENBLAS_CORETYPE=%s" % (np.__version__, openblas_info(), os.environ.get("OPENBLAS_CORETYPE", "unset")))

try:
    import torch

    torch.set_num_threads(os.cpu_count())
    n = 1024
    x = torch.randn(n, n)
    w = torch.randn(n, n)
    bias = torch.randn(n)
    print("linear_bias_relu_1024 %.4f" % median_ms(lambda: torch.relu(torch.addmm(bias, x, w.t())), 11), flush=True)
except ImportError:
    pass
