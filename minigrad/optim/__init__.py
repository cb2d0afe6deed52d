"""``minigrad.optim``: optimizers that update parameters from their gradients, and LR schedules.

``SGD``, ``Adam``/``AdamW``, ``RMSprop``, ``Adagrad`` and ``Adadelta`` follow
``torch.optim``'s update rules exactly; their ``state_dict()`` has PyTorch's layout.
``lr_scheduler`` holds PyTorch's most used schedules (``StepLR``, ``CosineAnnealingLR``,
``OneCycleLR``, ``ReduceLROnPlateau`` ...).
"""

from minigrad.optim.optimizer import Optimizer  # noqa: I001  (first: the others subclass it)
from minigrad.optim.adadelta import Adadelta
from minigrad.optim.adagrad import Adagrad
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.rmsprop import RMSprop
from minigrad.optim.sgd import SGD
from minigrad.optim import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "lr_scheduler"]

from minigrad.compat.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr("minigrad.optim")  # NotImplementedError for names left out on purpose
