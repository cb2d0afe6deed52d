"""2-D convolution, written out several ways a reader can select and compare.

Reading order: ``functional.py`` (the autograd Function: which gradients, from where), then
``algo_im2col.py`` (the formulas, one screen: what runs by default), then the other ways:

    functional.py          the autograd Functions and ``conv2d``, ``conv2d_input``, ``conv2d_weight``
    algo_im2col.py         cols = im2col(x), Y = W·cols, dW = δ·colsᵀ, dx = col2im(Wᵀ·δ)   (default)
    im2col.py              im2col / col2im, the array helpers (col2im is im2col's adjoint)
    depthwise.py           the default's path for depthwise convolutions: sums of shifted images
    algo_rot180.py         δˡ = δˡ⁺¹ ∗ rot180(W): the backward as correlations with a flipped kernel
    algo_naive.py          the definition, in plain loops
    algo_im2col_tuned.py   the default's formulas in cache-sized bands: large layers, or 'im2col_tuned'
    algorithms.py          the algorithms by name, as plain functions, and choosing one
                           (``algorithm=`` per call, ``with conv_algorithm(name):``)
    fold.py                ``unfold`` / ``fold`` (PyTorch's names for im2col / col2im)
    conv1d.py              ``conv1d``: a conv2d of height 1
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
