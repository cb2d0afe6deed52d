"""``nn.grad``: the two halves of a convolution's backward pass, usable on their own (as ``torch.nn.grad``).

    conv2d_input(input_size, weight, grad_output, ...)   -> dL/dx, of shape input_size
    conv2d_weight(input, weight_size, grad_output, ...)  -> dL/dW, of shape weight_size

Both take ``stride``, ``padding``, ``dilation``, ``groups`` as the forward did, and the
keyword-only ``algorithm=`` ('im2col', 'im2col_tuned', 'rot180', 'naive'). They live in
``minigrad/ops/conv/``, where conv2d's own backward calls them, and they are differentiable
to any order: their derivatives are conv2d, conv2d_input and conv2d_weight again
(docs/backprop-conv.md, "Differentiating the backward again").
"""

from minigrad.ops.conv import conv2d_input, conv2d_weight

__all__ = ["conv2d_input", "conv2d_weight"]
