"""``minigrad.nn``: layers (``Module`` subclasses), ``Parameter``, ``functional``, ``init``, ``utils``.

``with nn.conv_algorithm('rot180'): ...`` chooses how convolutions in the block compute
their forward and backward ('im2col' by default, 'im2col_tuned', 'rot180' or 'naive').
"""

from minigrad.nn.parameter import Parameter  # noqa: I001  (first: the modules need it)
from minigrad.nn import functional, init
from minigrad.nn.modules import (AvgPool2d, BatchNorm1d, BatchNorm2d, BCELoss, BCEWithLogitsLoss, Conv2d,
                                 CrossEntropyLoss, Dropout, Flatten, Identity, Linear, LogSoftmax, MaxPool2d,
                                 Module, ModuleDict, ModuleList, MSELoss, NLLLoss, ReLU, Sequential, Sigmoid,
                                 Softmax, Tanh)
from minigrad.nn.modules import LeakyReLU, ParameterDict, ParameterList
from minigrad.nn.modules import (ELU, GELU, AdaptiveAvgPool2d, AdaptiveMaxPool2d, Dropout2d, HuberLoss,
                                 L1Loss, LayerNorm, SiLU, SmoothL1Loss, Softplus, Unflatten)
from minigrad.nn import grad, modules, utils
from minigrad.ops.conv.algorithms import conv_algorithm
from minigrad.nn.modules import AvgPool1d, Conv1d, Embedding, MaxPool1d
from minigrad.nn.modules import CosineSimilarity, KLDivLoss, PairwiseDistance, Softmin

__all__ = ["Softmin", "CosineSimilarity", "PairwiseDistance", "KLDivLoss",
           "Embedding", "Conv1d", "MaxPool1d", "AvgPool1d", "ParameterList", "ParameterDict", "LeakyReLU",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "LayerNorm", "GELU", "SiLU", "ELU", "Softplus",
           "Dropout2d", "Unflatten", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "Parameter", "Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "Conv2d",
           "MaxPool2d", "AvgPool2d", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Flatten", "Dropout",
           "BatchNorm1d", "BatchNorm2d", "CrossEntropyLoss", "NLLLoss", "MSELoss", "BCELoss",
           "BCEWithLogitsLoss", "functional", "init", "utils", "grad", "modules", "conv_algorithm"]

from minigrad.compat.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr("minigrad.nn")  # NotImplementedError for names left out on purpose
