"""lazytensor.optim — SGD, Adam, AdamW and lr schedulers.

Updates are lazy tensor ops under no_grad that rebind each parameter's slot.
Hyperparameters (lr, betas, bias corrections) enter as Python numbers, i.e.
runtime scalar parameters of the trace: changing lr never recompiles.
"""
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
