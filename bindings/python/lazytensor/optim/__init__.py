"""lazytensor.optim — SGD, Adam, AdamW, LBFGS and the rest, and lr schedulers.

Updates are lazy tensor ops under no_grad that rebind each parameter's slot.
Hyperparameters (lr, betas, bias corrections) enter as Python numbers, i.e.
runtime scalar parameters of the trace: changing lr never recompiles.
"""
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
