"""``minigrad.utils``: holds ``minigrad.utils.data``, the PyTorch spelling of ``minigrad.data``."""

from minigrad.compat.utils import data

__all__ = ["data"]

from minigrad.compat.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr("minigrad.utils")  # NotImplementedError for names left out on purpose
from minigrad.compat.utils import tensorboard  # noqa: E402, F401  (its SummaryWriter raises NotImplementedError)
