"""bench/torch_cuda_bench.py — the same workloads as bench_cuda in PyTorch on the
GPU (CUDA events, median of 20 after warm-up); prints TORCH lines in
bench_cuda's format for scripts/device-check's table."""
import sys

try:
    import torch
except ImportError:
    print("torch_cuda_bench: skipped: no torch")
    sys.exit(0)
if not torch.cuda.is_available():
    print("torch_cuda_bench: skipped: torch sees no GPU")
    sys.exit(0)
torch.backends.cuda.matmul.allow_tf32 = False


def median_ms(fn, reps=20):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def report(name, fn, work, unit):
    ms = median_ms(fn)
    print(f"TORCH {name:<22} {ms:9.4f} ms {work / (ms * 1e-3) / 1e9:10.1f} {unit}", flush=True)


n = 1 << 26
x = torch.rand(n, device="cuda") * 2 - 1
rows = torch.rand(8192, 4096, device="cuda") * 2 - 1
a = torch.rand(2048, 2048, device="cuda")
b = torch.rand(2048, 2048, device="cuda")
report("add_mul_64M", lambda: x * 0.5 + 0.5, 8.0 * n, "GB/s")
report("gelu_64M", lambda: torch.nn.functional.gelu(x), 8.0 * n, "GB/s")
report("softmax_8192x4096", lambda: torch.softmax(rows, -1), 8.0 * 8192 * 4096, "GB/s")
report("layer_norm_8192x4096", lambda: torch.nn.functional.layer_norm(rows, (4096,)), 8.0 * 8192 * 4096, "GB/s")
report("sum_rows_8192x4096", lambda: rows.sum(1), 4.0 * 8192 * 4096, "GB/s")
report("sum_all_64M", lambda: x.sum(), 4.0 * n, "GB/s")
report("matmul_2048_f32", lambda: a @ b, 2.0 * 2048**3, "GFLOP/s")
