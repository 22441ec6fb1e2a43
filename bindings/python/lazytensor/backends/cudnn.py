"""torch.backends.cudnn: flags kept for programs that set them; no cuDNN in this build."""
deterministic = False
benchmark = False
enabled = True
allow_tf32 = True


def is_available():
    return False


def version():
    return None
