"""One normaliser (``minigrad._arguments.sizes_argument``) reads the 2-D settings of conv2d, pooling and
unfold/fold and conv1d's single ones; each op keeps PyTorch's exception type and its own wording."""

import pytest
from _torch import raises_like_torch

from minigrad._arguments import pair_argument, sizes_argument

X = [[[[1.0, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]]
LINE = [[[1.0, 2, 3, 4, 5]]]


def test_an_int_or_one_element_is_both_and_two_elements_are_the_pair():
    words = "{name} {function} {count} {length} {values}"
    assert pair_argument(3, "stride", "f", words) == (3, 3)
    assert pair_argument((2,), "stride", "f", words) == (2, 2)
    assert pair_argument([1, 2], "stride", "f", words) == (1, 2)
    assert sizes_argument((4,), 1, "stride", "f", words) == (4,)
    with pytest.raises(RuntimeError, match=r"^stride f 2 1 \[2\]$"):
        pair_argument((2,), "stride", "f", words, one_is_both=False)
    with pytest.raises(RuntimeError, match=r"^padding g 2 3 \[1, 2, 3\]$"):
        pair_argument((1, 2, 3), "padding", "g", words)
    with pytest.raises(TypeError, match=r"^h\(\): argument 'stride' must be tuple of ints, but got 1.5 "):
        pair_argument((1, 1.5), "stride", "h", words)
    with pytest.raises(TypeError, match="must be tuple of ints, but got True of type bool"):
        pair_argument(True, "stride", "h", words)


@pytest.mark.parametrize(("call", "error", "fragments"), [
    (lambda m: m.nn.functional.conv2d(m.tensor(X), m.ones(1, 1, 2, 2), stride=(1, 1, 1)), RuntimeError,
     ["stride", "list of 2 values", "[1, 1, 1]"]),
    (lambda m: m.nn.functional.conv2d(m.tensor(X), m.ones(1, 1, 2, 2), padding=(1.5, 1)), TypeError,
     ["conv2d()", "padding", "1.5"]),
    (lambda m: m.nn.functional.conv1d(m.tensor(LINE), m.ones(1, 1, 2), stride=(1, 2)), RuntimeError,
     ["stride", "list of 1 values", "[1, 2]"]),
    (lambda m: m.nn.functional.max_pool2d(m.tensor(X), (2, 2, 2)), RuntimeError,
     ["max_pool2d", "kernel_size must either be a single int, or a tuple of two ints", "[2, 2, 2]"]),
    (lambda m: m.nn.functional.avg_pool2d(m.tensor(X), 2, stride=2.0), TypeError, ["avg_pool2d()", "stride"]),
    (lambda m: m.nn.functional.unfold(m.tensor(X), (2,)), RuntimeError,
     ["It is expected kernel_size equals to 2, but got size 1"]),
    (lambda m: m.nn.functional.unfold(m.tensor(X), 2.0), TypeError, ["im2col()", "kernel_size", "float"]),
    (lambda m: m.nn.functional.fold(m.ones(1, 4, 9), (4,), 2), RuntimeError,
     ["It is expected output_size equals to 2, but got size 1"]),
])
def test_each_op_keeps_pytorchs_error_and_its_own_wording(call, error, fragments):
    raises_like_torch(call, error, *fragments)
