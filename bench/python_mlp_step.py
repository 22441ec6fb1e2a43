"""MLP training step, 784-512-512-10 at batch 256 with SGD: lazytensor against PyTorch eager.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_mlp_step.py [steps]

The same PyTorch-style program (Linear/ReLU/Linear/ReLU/Linear, cross_entropy,
SGD with momentum 0.9, one `loss.item()` per step) runs on lazytensor in this
process and on PyTorch eager in child processes, in the same run, under each
setting the issue asks for: all threads as-is, all threads with
GLIBC_TUNABLES=glibc.malloc.hugetlb=1, and one thread with huge pages (on 2
vCPUs torch's threads and OpenBLAS's oversubscribe; one thread is often its
best). Reports the median step time over the timed steps, and the ratio
lazytensor / best PyTorch in steps per second.
"""
import json
import os
import statistics
import subprocess
import sys
import time

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 60
WARMUP = 5
BATCH, IN, HIDDEN, CLASSES = 256, 784, 512, 10


def run(torch, steps):
    import numpy as np

    nn = torch.nn
    rng = np.random.default_rng(0)
    x_all = rng.standard_normal((4096, IN)).astype(np.float32)
    y_all = rng.integers(0, CLASSES, 4096).astype(np.int64)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                          nn.Linear(HIDDEN, CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return train_steps(torch, model, opt, x_all, y_all, BATCH, steps, rng)


def train_steps(torch, model, opt, x_all, y_all, batch, steps, rng):
    """WARMUP + steps cross-entropy training steps on random batches; the timed steps' median and min."""
    times, loss_value = [], None
    for step in range(WARMUP + steps):
        idx = rng.integers(0, len(x_all), batch)
        x, y = torch.from_numpy(x_all[idx]), torch.from_numpy(y_all[idx])
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss_value = loss.item()  # the sync point of a lazy step
        if step >= WARMUP:
            times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times), "loss": loss_value}


def infer_steps(torch, model, x_all, batch, steps, rng):
    """WARMUP + steps forward passes in eval mode without autograd, each synced by `.sum().item()`; the timed
    steps' median and min ("loss" is the last step's output sum)."""
    model.eval()
    times, value = [], None
    with torch.no_grad():
        for step in range(WARMUP + steps):
            x = torch.from_numpy(x_all[rng.integers(0, len(x_all), batch)])
            t0 = time.perf_counter()
            value = model(x).sum().item()
            if step >= WARMUP:
                times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times), "loss": value}


def torch_child(threads, hugetlb, module="python_mlp_step", fn="run", steps=None):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if hugetlb:
        env["GLIBC_TUNABLES"] = "glibc.malloc.hugetlb=1"
    # torch "at its best": Debian's libblas.so.3 alternative may point at the
    # reference BLAS (it does on this machine), which makes torch ~30x slower.
    openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
    if os.path.isdir(openblas):
        env["LD_LIBRARY_PATH"] = openblas + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    code = ("import json, sys, torch; sys.path.insert(0, %r); import %s as b; "
            "torch.set_num_threads(%d); print(json.dumps(b.%s(torch, %d)))" %
            (os.path.dirname(os.path.abspath(__file__)), module, threads, fn, STEPS if steps is None else steps))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(run_step, module, title, steps=None):
    """Runs `run_step` on lazytensor here and on PyTorch eager in children (the function of that name in
    `module`), `steps` timed steps each (default: the command line's, else 60); prints the table."""
    import lazytensor

    steps = STEPS if steps is None else steps
    results = {}
    before = lazytensor.debug.counters()
    results["lazytensor"] = run_step(lazytensor, steps)
    after = lazytensor.debug.counters()
    compiles = after.get("kernels_compiled", 0) - before.get("kernels_compiled", 0)
    ncpu = os.cpu_count()
    for name, threads, huge in (("torch eager, %d threads" % ncpu, ncpu, False),
                                ("torch eager, %d threads, hugetlb" % ncpu, ncpu, True),
                                ("torch eager, 1 thread, hugetlb", 1, True)):
        try:
            results[name] = torch_child(threads, huge, module, run_step.__name__, steps)
        except (subprocess.CalledProcessError, ImportError) as e:
            print("%s: failed: %s" % (name, e))
    print("%s; median of %d steps after %d warm-up steps" % (title, steps, WARMUP))
    for name, r in results.items():
        print("  %-34s %7.2f ms/step  %7.1f steps/s  (min %.2f ms, final loss %.4f)" %
              (name, r["median_s"] * 1e3, 1 / r["median_s"], r["min_s"] * 1e3, r["loss"]))
    torch_best = min((r["median_s"] for n, r in results.items() if n.startswith("torch")), default=None)
    if torch_best:
        print("  lazytensor / best torch eager: %.2fx steps per second" % (torch_best / results["lazytensor"]["median_s"]))
    print("  lazytensor kernels compiled during the run (warm-up included): %d" % compiles)


def main():
    compare(run, "python_mlp_step", "MLP %d-%d-%d-%d, batch %d, SGD momentum" % (IN, HIDDEN, HIDDEN, CLASSES, BATCH))


if __name__ == "__main__":
    main()
