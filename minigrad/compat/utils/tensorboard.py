"""``torch.utils.tensorboard`` is outside minigrad's scope: ``from minigrad.utils.tensorboard import
SummaryWriter`` raises NotImplementedError saying so (see docs/compatibility.md)."""

from minigrad.compat.unsupported import module_getattr

__getattr__ = module_getattr("minigrad.utils.tensorboard")
