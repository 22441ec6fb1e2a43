"""A fused elementwise chain in float32, bfloat16 and float16 (docs/dtypes.md): time, bytes per second, and the
chain's bytes per second over a copy's of the same dtype (`x.flip(0)`: one read and one write per element, the
copy kernel the JIT generates), measured alternately in one run."""
import time, lazytensor as lt
n = 1 << 24


def best_ms(fn, reps=15):
    best = 1e9
    for i in range(reps):
        z = fn()
        t0 = time.perf_counter(); lt.sync(z); best = min(best, time.perf_counter() - t0)
    return best * 1e3, z


for name in ["float32", "bfloat16", "float16"]:
    x = lt.rand(n, dtype=getattr(lt, name)); y = lt.rand(n, dtype=getattr(lt, name)); lt.sync(x, y)
    chain, copy = [], []
    for _ in range(3):  # alternate, so both see the same machine
        t, z = best_ms(lambda: x * y + x * 0.5 - y); chain.append(t)
        t, _ = best_ms(lambda: x.flip(0)); copy.append(t)
    es = z.element_size()
    t_chain, t_copy = min(chain), min(copy)
    chain_gbs, copy_gbs = 3 * n * es / t_chain / 1e6, 2 * n * es / t_copy / 1e6
    print(name, "x*y + x*0.5 - y over 2^24: %.2f ms, %.1f GB/s; copy %.2f ms, %.1f GB/s; chain/copy %.2f"
          % (t_chain, chain_gbs, t_copy, copy_gbs, chain_gbs / copy_gbs))
