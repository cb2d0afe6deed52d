"""2-D convolution, written out three ways a reader can select and compare.

    algo_im2col.py   unfold into columns, one batched GEMM (the default; what libraries do)
    algo_rot180.py   δˡ = δˡ⁺¹ ∗ rot180(W): the backward as correlations with a flipped kernel
    algo_naive.py    the definition, in plain loops
    im2col.py        im2col / col2im, the array helpers (col2im is im2col's adjoint)
    algorithms.py    choosing one: ``algorithm=`` per call, ``with conv_algorithm(name):`` per scope
    functional.py    the autograd Functions and ``conv2d``, ``conv2d_input``, ``conv2d_weight``
    fold.py          ``unfold`` / ``fold`` (PyTorch's names for im2col / col2im)
"""

from minigrad.ops.conv.algorithms import ALGORITHMS, conv_algorithm, get_conv_algorithm
from minigrad.ops.conv.fold import fold, unfold
from minigrad.ops.conv.functional import (
    Conv2dFunction,
    Conv2dInputFunction,
    Conv2dWeightFunction,
    conv2d,
    conv2d_input,
    conv2d_weight,
)

__all__ = ["conv2d", "conv2d_input", "conv2d_weight", "conv_algorithm", "get_conv_algorithm", "ALGORITHMS",
           "unfold", "fold", "Conv2dFunction", "Conv2dInputFunction", "Conv2dWeightFunction"]
