"""lazytensor.backends — torch.backends' flags. No CUDA, cuDNN or MPS backend in this build."""
from . import cuda, cudnn, mps  # noqa: F401
