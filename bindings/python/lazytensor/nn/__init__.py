"""lazytensor.nn — Module, Parameter, layers, losses, init and functional."""
from . import functional, init, modules, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .parameter import Parameter, UninitializedParameter  # noqa: F401
