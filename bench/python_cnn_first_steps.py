"""The first training steps of bench/python_cnn_step.py's CNN from a cold kernel cache, beside torch eager.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_cnn_first_steps.py [steps]

Each side runs in a fresh process (lazytensor with an empty LT_CACHE_DIR) and prints the seconds of each
of its first `steps` (4) steps, each synced by loss.item(). A benchmark, not a test.
"""
import os
import subprocess
import sys
import tempfile
import time


def child(module, steps):
    import numpy as np

    torch = __import__(module)
    nn = torch.nn
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    times = []
    for _ in range(steps):
        x = torch.from_numpy(rng.standard_normal((32, 3, 32, 32)).astype(np.float32))
        y = torch.from_numpy(rng.integers(0, 10, 32))
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss.item()
        times.append(time.perf_counter() - t0)
    print("%-10s %s" % (module, "  ".join("%.3f" % t for t in times)))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        sys.exit(0)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    print("CNN training step from a cold kernel cache, seconds per step (steps 1..%d), each side a fresh process" % steps)
    with tempfile.TemporaryDirectory() as cache:
        for module in ("lazytensor", "torch"):
            env = dict(os.environ, LT_CACHE_DIR=cache)
            subprocess.run([sys.executable, os.path.abspath(__file__), "--child", module, str(steps)], env=env, check=True)
