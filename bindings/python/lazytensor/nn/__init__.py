"""lazytensor.nn — Module, Parameter, layers, losses, init and functional."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Parameter, UninitializedParameter  # noqa: F401
from .conv import *  # noqa: F401,F403,E402
from .pooling import *  # noqa: F401,F403,E402
from .normalization import *  # noqa: F401,F403,E402
from .more_modules import *  # noqa: F401,F403,E402  (session 5 pyD)
from .activation_attention import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402
from .rnn import *  # noqa: F401,F403,E402
