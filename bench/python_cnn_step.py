"""Small CNN training step (conv-BN-ReLU-maxpool, conv-BN-ReLU, global average pool, linear) at batch 32 on
3x32x32 inputs with SGD: lazytensor against PyTorch eager, in the same run and settings as
bench/python_mlp_step.py.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_cnn_step.py [steps]
"""
from python_mlp_step import compare, train_steps

BATCH = 32


def run(torch, steps):
    import numpy as np

    nn = torch.nn
    rng = np.random.default_rng(0)
    x_all = rng.standard_normal((512, 3, 32, 32)).astype(np.float32)
    y_all = rng.integers(0, 10, 512).astype(np.int64)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_steps(torch, model, opt, x_all, y_all, BATCH, steps, rng)


if __name__ == "__main__":
    compare(run, "python_cnn_step", "CNN conv16-bn-relu-pool, conv32-bn-relu-gap, linear; batch %d of 3x32x32, "
            "SGD momentum" % BATCH)
