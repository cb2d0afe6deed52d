"""The layers: every class here is a ``Module`` with PyTorch's constructor, ``forward`` and ``repr``."""

from minigrad.nn.modules.module import Module  # noqa: I001  (first: the layers subclass it)
from minigrad.nn.modules.activation import LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from minigrad.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from minigrad.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList
from minigrad.nn.modules.sequential import Sequential
from minigrad.nn.modules.conv import Conv2d
from minigrad.nn.modules.dropout import Dropout
from minigrad.nn.modules.flatten import Flatten
from minigrad.nn.modules.linear import Identity, Linear
from minigrad.nn.modules.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from minigrad.nn.modules.pooling import AvgPool2d, MaxPool2d
from minigrad.nn.modules.activation import ELU, GELU, SiLU, Softplus
from minigrad.nn.modules.dropout import Dropout2d
from minigrad.nn.modules.flatten import Unflatten
from minigrad.nn.modules.loss import HuberLoss, L1Loss, SmoothL1Loss
from minigrad.nn.modules.normalization import LayerNorm
from minigrad.nn.modules.pooling import AdaptiveAvgPool2d, AdaptiveMaxPool2d
from minigrad.nn.modules.conv import Conv1d
from minigrad.nn.modules.pooling import AvgPool1d, MaxPool1d
from minigrad.nn.modules.sparse import Embedding
from minigrad.nn.modules.activation import Softmin
from minigrad.nn.modules.distance import CosineSimilarity, PairwiseDistance
from minigrad.nn.modules.loss import KLDivLoss

__all__ = ["Softmin", "CosineSimilarity", "PairwiseDistance", "KLDivLoss",
           "Embedding", "Conv1d", "MaxPool1d", "AvgPool1d", "ParameterList", "ParameterDict", "LeakyReLU",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "LayerNorm", "GELU", "SiLU", "ELU", "Softplus",
           "Dropout2d", "Unflatten", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "Conv2d", "MaxPool2d",
           "AvgPool2d", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Flatten", "Dropout",
           "BatchNorm1d", "BatchNorm2d", "CrossEntropyLoss", "NLLLoss", "MSELoss", "BCELoss",
           "BCEWithLogitsLoss"]
