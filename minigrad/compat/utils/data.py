"""``minigrad.utils.data`` is ``minigrad.data``, so ``from minigrad.utils.data import DataLoader``
works as in PyTorch, and so do PyTorch's submodule spellings
(``from torch.utils.data.dataloader import DataLoader``, ``torch.utils.data.sampler``)."""

import sys

from minigrad.data import *  # noqa: F403 (a pure alias of minigrad.data)
from minigrad.data import (
    __all__,  # noqa: F401
    collate,
    dataloader,
    dataset,
    sampler,
)

# Registered under this module's name so that ``import minigrad.utils.data.sampler`` finds them.
for _submodule in (collate, dataloader, dataset, sampler):
    sys.modules[f"{__name__}.{_submodule.__name__.rsplit('.', 1)[1]}"] = _submodule
