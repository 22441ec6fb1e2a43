"""lazytensor.nn — Module, Parameter, layers, losses, init and functional."""
from . import functional, init, modules, parallel, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .parallel import DataParallel  # noqa: F401,E402
