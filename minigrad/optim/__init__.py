"""``minigrad.optim``: optimizers that update parameters from their gradients, and LR schedules.

``SGD`` and ``Adam``/``AdamW`` follow ``torch.optim``'s update rules exactly; their
``state_dict()`` has PyTorch's layout. ``lr_scheduler`` holds ``StepLR`` and
``CosineAnnealingLR``.
"""

from minigrad.optim.optimizer import Optimizer  # noqa: I001  (first: the others subclass it)
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.sgd import SGD
from minigrad.optim import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
