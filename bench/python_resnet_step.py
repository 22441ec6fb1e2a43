"""ResNet-style CNN at batch 32 on 3x32x32 and 3x64x64 inputs: a training step (forward, backward, SGD with
momentum) and an inference step (eval mode, no autograd, forward + `.sum().item()`), lazytensor against
PyTorch eager, in the same run and settings as bench/python_mlp_step.py.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_resnet_step.py [steps]

The network: a stem conv3x3(3->16)-BN-ReLU; BasicBlocks (conv3x3-BN-ReLU-conv3x3-BN, plus the skip, then
ReLU) 16->16, 16->32 with stride 2 and a 1x1 conv-BN projection skip, and 32->32; global average pool;
linear to 10 classes. Without a steps argument each image size times its own default number of steps
(DEFAULT_STEPS): a size's four rows, the PyTorch children included, take about 15 s (32x32) and 25 s
(64x64) on an idle 2-vCPU host.
"""
import sys

from python_mlp_step import compare, infer_steps, train_steps

BATCH = 32
SIZES = (32, 64)
DEFAULT_STEPS = {32: 40, 64: 15}


def _model(torch):
    nn = torch.nn
    F = nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.skip = None
            if stride != 1 or cin != cout:
                self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + (x if self.skip is None else self.skip(x)))

    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                         BasicBlock(16, 16, 1), BasicBlock(16, 32, 2), BasicBlock(32, 32, 1),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def _data(size):
    import numpy as np

    rng = np.random.default_rng(0)
    x_all = rng.standard_normal((256, 3, size, size)).astype(np.float32)
    y_all = rng.integers(0, 10, 256).astype(np.int64)
    return x_all, y_all, rng


def _train(torch, steps, size):
    x_all, y_all, rng = _data(size)
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_steps(torch, model, opt, x_all, y_all, BATCH, steps, rng)


def _infer(torch, steps, size):
    x_all, _, rng = _data(size)
    return infer_steps(torch, _model(torch), x_all, BATCH, steps, rng)


# One function per row, by name: the PyTorch children call them as python_resnet_step.<name>(torch, steps).
def train32(torch, steps):
    return _train(torch, steps, 32)


def train64(torch, steps):
    return _train(torch, steps, 64)


def infer32(torch, steps):
    return _infer(torch, steps, 32)


def infer64(torch, steps):
    return _infer(torch, steps, 64)


def main():
    arg = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else None
    rows = {32: (train32, infer32), 64: (train64, infer64)}
    for size in SIZES:
        steps = arg or DEFAULT_STEPS[size]
        train, infer = rows[size]
        shape = "batch %d of 3x%dx%d" % (BATCH, size, size)
        compare(train, "python_resnet_step", "ResNet stem16, blocks 16, 16->32/2, 32, gap, linear; %s, training "
                "step, SGD momentum" % shape, steps)
        compare(infer, "python_resnet_step", "ResNet stem16, blocks 16, 16->32/2, 32, gap, linear; %s, inference "
                "(eval, no_grad, forward + sum().item(); final loss = that sum)" % shape, steps)


if __name__ == "__main__":
    main()
