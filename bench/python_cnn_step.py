"""Small CNN training step (conv-BN-ReLU-maxpool, conv-BN-ReLU, global average pool, linear) at batch 32 on
3x32x32 inputs with SGD: lazytensor against PyTorch eager, in the same run and settings as
bench/python_mlp_step.py.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_cnn_step.py [steps]
"""
import statistics
import time

from python_mlp_step import STEPS, WARMUP, compare

BATCH = 32


def run(torch, steps):
    import numpy as np

    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(0)
    x_all = rng.standard_normal((512, 3, 32, 32)).astype(np.float32)
    y_all = rng.integers(0, 10, 512).astype(np.int64)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    times, loss_value = [], None
    for step in range(WARMUP + steps):
        idx = rng.integers(0, len(x_all), BATCH)
        x, y = torch.from_numpy(x_all[idx]), torch.from_numpy(y_all[idx])
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss_value = loss.item()  # the sync point of a lazy step
        if step >= WARMUP:
            times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times), "loss": loss_value}


if __name__ == "__main__":
    compare(run, "python_cnn_step", "CNN conv16-bn-relu-pool, conv32-bn-relu-gap, linear; batch %d of 3x32x32, "
            "SGD momentum" % BATCH)
