"""lazytensor.cuda — no CUDA tensors from Python in this build; the calls programs make at the top still work."""
from . import amp  # noqa: F401


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def synchronize(device=None):
    pass
