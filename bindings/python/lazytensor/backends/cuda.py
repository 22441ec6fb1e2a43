"""torch.backends.cuda: flags kept for programs that set them; no CUDA backend in this build."""


class _MatmulFlags:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    return False
