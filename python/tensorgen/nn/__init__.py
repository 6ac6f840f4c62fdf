"""tg.nn: modules and layers (modules.py), functional forms, initialisers."""

from tensorgen.nn import functional, init  # noqa: F401
from tensorgen.nn.modules import *  # noqa: F401,F403
from tensorgen.nn.modules import Module, Parameter  # noqa: F401
