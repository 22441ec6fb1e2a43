"""The MLP training step of python_mlp_step.py in float32 and under bfloat16 autocast, lazytensor and PyTorch.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_autocast_step.py [steps]

One run times, for each library, the float32 step and the step whose forward pass (model and loss)
runs under torch.autocast("cpu", dtype=torch.bfloat16), from the same weights and batches, and prints
both medians and the ratio float32 / autocast (above 1: autocast is faster). lazytensor runs in this
process; PyTorch eager runs in a child process with the settings of python_mlp_step.py that suit it
best on a small machine (one thread, huge pages, OpenBLAS).
"""
import contextlib
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_mlp_step as mlp  # noqa: E402

STEPS = mlp.STEPS


def _steps(torch, model, opt, x_all, y_all, rng, autocast):
    times, loss_value = [], None
    for step in range(mlp.WARMUP + STEPS):
        idx = rng.integers(0, len(x_all), mlp.BATCH)
        x, y = torch.from_numpy(x_all[idx]), torch.from_numpy(y_all[idx])
        t0 = time.perf_counter()
        opt.zero_grad()
        region = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
        with region:
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss_value = loss.item()
        if step >= mlp.WARMUP:
            times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times), "loss": loss_value}


def run(torch, steps=None):
    """{"float32": ..., "autocast": ...}: each from fresh weights (seed 0) and the same batches."""
    import numpy as np

    nn = torch.nn
    out = {}
    for name in ("float32", "autocast"):
        rng = np.random.default_rng(0)
        x_all = rng.standard_normal((4096, mlp.IN)).astype(np.float32)
        y_all = rng.integers(0, mlp.CLASSES, 4096).astype(np.int64)
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(mlp.IN, mlp.HIDDEN), nn.ReLU(), nn.Linear(mlp.HIDDEN, mlp.HIDDEN), nn.ReLU(),
                              nn.Linear(mlp.HIDDEN, mlp.CLASSES))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        out[name] = _steps(torch, model, opt, x_all, y_all, rng, name == "autocast")
    return out


def main():
    import lazytensor

    results = {"lazytensor": run(lazytensor)}
    try:
        results["torch eager, 1 thread, hugetlb"] = mlp.torch_child(1, True, "python_autocast_step")
    except Exception as e:  # noqa: BLE001  (report and go on: the lazytensor numbers still stand)
        print("torch eager: failed: %s" % e)
    print("MLP %d-%d-%d-%d, batch %d, SGD momentum; median of %d steps after %d warm-up steps" %
          (mlp.IN, mlp.HIDDEN, mlp.HIDDEN, mlp.CLASSES, mlp.BATCH, STEPS, mlp.WARMUP))
    for name, r in results.items():
        f32, amp = r["float32"], r["autocast"]
        print("  %-32s float32 %7.2f ms/step   bf16 autocast %7.2f ms/step   float32/autocast %.2fx"
              "   (final losses %.4f, %.4f)" % (name, f32["median_s"] * 1e3, amp["median_s"] * 1e3,
                                                 f32["median_s"] / amp["median_s"], f32["loss"], amp["loss"]))


if __name__ == "__main__":
    main()
