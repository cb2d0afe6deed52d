"""``minigrad.utils.data`` is ``minigrad.data``, so ``from minigrad.utils.data import DataLoader``
works as in PyTorch."""

from minigrad.data import *  # noqa: F403 (a pure alias of minigrad.data)
from minigrad.data import __all__  # noqa: F401
