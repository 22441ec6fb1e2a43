"""torch.backends.mps: never available in this build."""


def is_available():
    return False


def is_built():
    return False
