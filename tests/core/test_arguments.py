"""int_argument and bool_argument: PyTorch's argument-parser TypeErrors, in one place."""

import numpy as np
import pytest

from minigrad._arguments import bool_argument, int_argument


def test_int_argument_takes_python_and_numpy_ints():
    assert int_argument(3, "f", "n") == 3 and int_argument(np.int64(-2), "f", "n") == -2


@pytest.mark.parametrize("value", [2.0, True, np.bool_(True), "3", None])
def test_int_argument_refuses_other_types_naming_function_argument_position_and_type(value):
    with pytest.raises(TypeError, match=rf"^topk\(\): argument 'k' \(position 1\) must be int, not "
                                        rf"{type(value).__name__}$"):
        int_argument(value, "topk", "k", position=1)


def test_bool_argument_takes_python_and_numpy_bools_and_refuses_numbers():
    assert bool_argument(np.bool_(True), "f", "flag") is True and bool_argument(False, "f", "flag") is False
    for value in (0, 1, None, "yes"):
        with pytest.raises(TypeError, match=f"^dropout\\(\\): argument 'train' must be bool, not "
                                            f"{type(value).__name__}$"):
            bool_argument(value, "dropout", "train")
