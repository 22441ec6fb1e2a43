"""A fused elementwise chain in float32, bfloat16 and float16 (docs/dtypes.md): time and bytes per second."""
import time, lazytensor as lt
n = 1 << 24
for name in ["float32", "bfloat16", "float16"]:
    x = lt.rand(n, dtype=getattr(lt, name)); y = lt.rand(n, dtype=getattr(lt, name)); lt.sync(x, y)
    best = 1e9
    for i in range(7):
        z = x * y + x * 0.5 - y
        t0 = time.perf_counter(); lt.sync(z); best = min(best, time.perf_counter() - t0)
    print(name, "x*y + x*0.5 - y over 2^24: %.2f ms, %.1f GB/s" % (best * 1e3, 3 * n * z.element_size() / best / 1e9))
