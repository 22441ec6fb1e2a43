"""A PyTorch-style MLP classifier; runs unchanged on PyTorch and on lazytensor.

    PYTHONPATH=build/python python3 examples/mlp_classifier.py           # lazytensor
    python3 examples/mlp_classifier.py --torch                           # PyTorch

Data and initial weights come from NumPy so both runs start identically; the
loss curves then agree to float32 rounding. Prints the loss curve, steps/s and,
on lazytensor, kernels per step and trace-cache hits from lazytensor.debug.
The last line is JSON (RESULT {...}) for test/python/test_examples.py.
"""
import json
import sys
import time

import numpy as np

if "--torch" in sys.argv:
    import torch
else:
    import lazytensor as torch

nn = torch.nn
F = torch.nn.functional

STEPS = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 60
BATCH, FEATURES, HIDDEN, CLASSES = 128, 20, 64, 4
# Steps 0-2 build distinct traces (no grad yet; first zero_grad; optimizer state
# created): the steady state starts at step 3.
WARMUP = 3


def make_data(rng, n=1024):
    teacher = rng.standard_normal((FEATURES, CLASSES))
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    y = np.argmax(x @ teacher + 0.5 * rng.standard_normal((n, CLASSES)), axis=1).astype(np.int64)
    return x, y


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                                 nn.Linear(HIDDEN, CLASSES))

    def forward(self, x):
        return self.net(x)


def main():
    rng = np.random.default_rng(0)
    x_all, y_all = make_data(rng)
    model = MLP()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy((0.2 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    lazy = hasattr(torch, "debug")
    losses, t0, counters0 = [], None, None
    for step in range(STEPS):
        if step == WARMUP:  # the first steps compile; time and count the steady state
            t0 = time.perf_counter()
            counters0 = torch.debug.counters() if lazy else None
        idx = rng.integers(0, len(x_all), BATCH)
        x, y = torch.from_numpy(x_all[idx]), torch.from_numpy(y_all[idx])
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    elapsed = time.perf_counter() - t0
    c_end = torch.debug.counters() if lazy else None
    result = {"losses": losses, "steps_per_s": (STEPS - WARMUP) / elapsed}
    with torch.no_grad():
        acc = (model(torch.from_numpy(x_all)).argmax(1) == torch.from_numpy(y_all)).float().mean().item()
    result["accuracy"] = acc
    if lazy:
        c1 = c_end
        delta = {k: c1.get(k, 0) - counters0.get(k, 0) for k in c1}
        n = STEPS - WARMUP
        result["kernels_per_step"] = delta.get("kernels_launched", 0) / n
        result["trace_cache_hits"] = delta.get("trace_cache_hits", 0)
        result["trace_cache_misses"] = delta.get("trace_cache_misses", 0)
        result["kernels_compiled_steady_state"] = delta.get("kernels_compiled", 0)
    for i in range(0, STEPS, max(1, STEPS // 10)):
        print("step %3d  loss %.5f" % (i, losses[i]))
    print("final accuracy %.3f, %.1f steps/s" % (acc, result["steps_per_s"]))
    if lazy:
        print("kernels/step %.1f, trace cache hits %d, misses %d (steady state)" % (
            result["kernels_per_step"], result["trace_cache_hits"], result["trace_cache_misses"]))
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
