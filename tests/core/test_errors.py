"""Misuse raises the exception type PyTorch raises, with a message naming the shapes or values.

Each row runs the same misuse on minigrad and on PyTorch: the exception types must be the
same, and minigrad's message must contain the listed pieces (the offending sizes/values)."""

import numpy
import pytest

import minigrad as mg

from .helpers import assert_misuse_raises_like_torch

MISUSE = {
    "matmul_shapes": (lambda m: m.ones(2, 3) @ m.ones(4, 5), ["2x3", "4x5"]),
    "matmul_1d_shapes": (lambda m: m.ones(3) @ m.ones(4), ["3", "4"]),
    "mm_shapes": (lambda m: m.ones(2, 3).mm(m.ones(2, 3)), ["2x3"]),
    "add_broadcast": (lambda m: m.ones(2, 3) + m.ones(4), ["(3)", "(4)", "[2, 3]", "[4]"]),
    "sub_broadcast": (lambda m: m.ones(2, 3) - m.ones(2, 2), ["(3)", "(2)", "[2, 3]", "[2, 2]"]),
    "mul_broadcast": (lambda m: m.ones(5, 1, 3) * m.ones(2, 4), ["(3)", "(4)", "[5, 1, 3]", "[2, 4]"]),
    "div_broadcast": (lambda m: m.ones(3) / m.ones(2), ["(3)", "(2)"]),
    "pow_broadcast": (lambda m: m.ones(3) ** m.ones(2), ["(3)", "(2)"]),
    "maximum_broadcast": (lambda m: m.maximum(m.ones(3), m.ones(2)), ["(3)", "(2)"]),
    "where_broadcast": (lambda m: m.where(m.ones(3) > 0, m.ones(3), m.ones(2)), ["(3)", "(2)"]),
    "compare_broadcast": (lambda m: m.ones(3) < m.ones(2), ["(3)", "(2)"]),
    "inplace_broadcast": (lambda m: m.ones(2, 3).add_(m.ones(4)), ["(3)", "(4)"]),
    "backward_non_scalar": (lambda m: (m.ones(2, 3, requires_grad=True) * 2).backward(), ["scalar"]),
    "requires_grad_int": (lambda m: m.tensor([1, 2], requires_grad=True), ["floating point"]),
    "requires_grad_int_zeros": (lambda m: m.zeros(2, dtype=m.int64, requires_grad=True), ["floating point"]),
    "requires_grad_flag_int": (lambda m: m.tensor([1, 2]).requires_grad_(), ["floating point"]),
    "index_out_of_range": (lambda m: m.ones(3, 4)[3], ["3", "size 3"]),
    "index_negative_out_of_range": (lambda m: m.ones(3, 4)[:, -5], ["-5", "size 4"]),
    "index_array_out_of_range": (lambda m: m.ones(3, 4)[[0, 7]], ["7", "size 3"]),
    "index_tensor_out_of_range": (lambda m: m.ones(3, 4)[:, m.tensor([1, -9])], ["-9", "size 4"]),
    "too_many_indices": (lambda m: m.ones(3)[0, 0], ["1"]),
    "reshape_size": (lambda m: m.ones(2, 3).reshape(4, 4), ["[4, 4]", "6"]),
    "view_size": (lambda m: m.ones(2, 3).view(-1, 4), ["[-1, 4]", "6"]),
    "reshape_two_unknowns": (lambda m: m.ones(2, 3).reshape(-1, -1), ["one dimension"]),
    "cat_sizes": (lambda m: m.cat([m.ones(2, 3), m.ones(2, 4)]), ["3", "4", "dimension 0"]),
    "cat_ndim": (lambda m: m.cat([m.ones(2, 3), m.ones(3)]), ["2", "1"]),
    "stack_sizes": (lambda m: m.stack([m.ones(2, 3), m.ones(3, 2)]), ["[2, 3]", "[3, 2]"]),
    "expand_size": (lambda m: m.ones(2, 3).expand(4, 3, 2), ["(2)", "(3)"]),
    "sum_dim": (lambda m: m.ones(2, 3).sum(dim=2), ["[-2, 1]", "2"]),
    "sum_negative_dim": (lambda m: m.ones(2, 3).sum(dim=(0, -3)), ["[-2, 1]", "-3"]),
    "mean_dim": (lambda m: m.ones(2, 3).mean(5), ["[-2, 1]", "5"]),
    "max_dim": (lambda m: m.ones(2, 3).max(dim=-3), ["[-2, 1]", "-3"]),
    "argmax_dim": (lambda m: m.ones(2, 3).argmax(dim=2), ["[-2, 1]", "2"]),
    "softmax_dim": (lambda m: m.ones(2, 3).softmax(dim=2), ["[-2, 1]", "2"]),
    "transpose_dim": (lambda m: m.ones(2, 3).transpose(0, 2), ["[-2, 1]", "2"]),
    "unsqueeze_dim": (lambda m: m.ones(2, 3).unsqueeze(4), ["[-3, 2]", "4"]),
    "squeeze_dim": (lambda m: m.ones(2, 1).squeeze(2), ["[-2, 1]", "2"]),
    "flatten_dim": (lambda m: m.ones(2, 3).flatten(0, 2), ["[-2, 1]", "2"]),
    "cat_dim": (lambda m: m.cat([m.ones(2), m.ones(2)], dim=1), ["[-1, 0]", "1"]),
    "size_dim": (lambda m: m.ones(2, 3).size(2), ["[-2, 1]", "2"]),
    "item_of_many": (lambda m: m.ones(3).item(), ["3"]),
    "bool_sub": (lambda m: m.tensor([True]) - m.tensor([False]), ["bool"]),
    "leaf_in_place": (lambda m: m.ones(2, requires_grad=True).add_(1), ["leaf"]),
    "mean_of_ints": (lambda m: m.tensor([1, 2]).mean(), ["int64"]),
    "float_minus_bool": (lambda m: m.ones(3) - m.tensor([True, False, True]), ["bool"]),
    "bool_minus_number": (lambda m: m.tensor([True]) - 1, ["bool"]),
    "cat_empty": (lambda m: m.cat([]), ["non-empty"]),
    "copy_broadcast": (lambda m: m.zeros(2, 3).copy_(m.ones(2)), ["[2]", "[2, 3]"]),
    "setitem_broadcast": (lambda m: m.zeros(2, 3).__setitem__(0, m.ones(2)), ["[2]", "[3]"]),
    "int_of_many": (lambda m: int(m.tensor([1.0, 2.0])), ["2 elements"]),
    "float_of_many": (lambda m: float(m.zeros(2, 2)), ["4 elements"]),
    "integer_floor_divide_by_zero": (lambda m: m.tensor([1, 2]) // 0, ["ZeroDivisionError"]),
    "integer_remainder_by_zero": (lambda m: m.tensor([1, 2]) % m.tensor([1, 0]), ["ZeroDivisionError"]),
    "div_rounding_mode": (lambda m: m.div(m.ones(2), 2, rounding_mode="round"), ["'round'"]),
    "arange_step_sign": (lambda m: m.arange(10, 0), ["10", "0"]),
    "softmax_of_ints": (lambda m: m.tensor([1, 2]).softmax(0), ["int64"]),
    "randn_int": (lambda m: m.randn(2, dtype=m.int64), ["int64"]),
    "rand_int": (lambda m: m.rand(2, dtype=m.int64), ["int64"]),
    "device_string": (lambda m: m.device("cpu:x"), ["cpu:x"]),
    "generator_seed_str": (lambda m: m.Generator().manual_seed("1"), ["str"]),
    "matmul_batch_broadcast": (lambda m: m.ones(2, 3, 4) @ m.ones(3, 4, 5), ["(2)", "(3)"]),
    "matmul_batch_broadcast_4d": (lambda m: m.ones(4, 2, 3, 4) @ m.ones(3, 4, 5), ["(2)", "(3)"]),
    "matmul_number": (lambda m: m.ones(2) @ 2, ["int"]),
    "add_list": (lambda m: m.ones(2) + [1, 2], ["list"]),
    "mul_none": (lambda m: m.ones(2) * None, ["NoneType"]),
    "where_list": (lambda m: m.where(m.ones(2) > 0, m.ones(2), [1.0, 2.0]), ["list"]),
    "expand_negative": (lambda m: m.ones(1, 3).expand(-2, 3), ["-2"]),
    "cat_zero_dim": (lambda m: m.cat([m.tensor(1.0), m.tensor(2.0)]), ["position 0"]),
    "cat_of_a_tensor": (lambda m: m.cat(m.ones(2, 2)), ["Tensor"]),
    "stack_of_a_tensor": (lambda m: m.stack(m.ones(2, 2)), ["Tensor"]),
    "index_by_string": (lambda m: m.ones(3)["a"], ["'a'"]),
    "tensor_ragged": (lambda m: m.tensor([[1, 2], [3]]), ["length 2 at dim 1 (got 1)"]),
    "tensor_ragged_deep": (lambda m: m.tensor([[[1], [2]], [[1], [2, 3]]]), ["length 1 at dim 2 (got 2)"]),
    "tensor_ragged_tuple": (lambda m: m.tensor([[1.0, 2.0], (3.0, 4.0, 5.0)]), ["length 2 at dim 1 (got 3)"]),
    "tensor_of_none": (lambda m: m.tensor([1.0, None]), ["NoneType"]),
    "tensor_of_str": (lambda m: m.tensor([1, "a"]), ["str"]),
    "randperm_negative": (lambda m: m.randperm(-3), ["-3"]),
    "linspace_negative_steps": (lambda m: m.linspace(0, 1, -2), ["-2"]),
    "eye_negative": (lambda m: m.eye(-1), ["-1"]),
    "eye_negative_columns": (lambda m: m.eye(2, -4), ["-4"]),
    "device_negative_index": (lambda m: m.device("cpu", -1), ["-1"]),
    "full_of_a_list": (lambda m: m.full((2,), [1.0]), ["list"]),
    "zeros_like_a_list": (lambda m: m.zeros_like([1.0, 2.0]), ["list"]),
    "argmax_empty": (lambda m: m.ones(0).argmax(), ["numel() == 0", "[0]"]),
    "argmin_empty_dim": (lambda m: m.ones(0, 3).argmin(0), ["dim 0", "[0, 3]"]),
    "allclose_broadcast": (lambda m: m.allclose(m.ones(3), m.ones(2)), ["(3)", "(2)"]),
    "isclose_broadcast": (lambda m: m.isclose(m.ones(2, 3), m.ones(4)), ["(3)", "(4)"]),
    "function_called_on_an_instance": (lambda m: _double(m)()(m.ones(2)), ["Double.apply"]),
    "function_gradient_not_a_tensor": (lambda m: _double(m, grad=5).apply(m.ones(2, requires_grad=True))
                                       .sum().backward(), ["int", "index 0"]),
}


def _double(m, grad=None):
    """A custom Function y = 2x whose backward returns ``grad`` when given (a misuse), else 2 dy."""

    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return dy * 2 if grad is None else grad

    return Double


@pytest.mark.parametrize("name", MISUSE)
def test_misuse_raises_like_torch(name):
    assert_misuse_raises_like_torch(*MISUSE[name])


def test_broadcast_error_message_is_pytorchs():
    with pytest.raises(RuntimeError) as error:
        mg.ones(2, 3) + mg.ones(4)
    assert str(error.value).startswith(
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1")


def test_backward_on_non_scalar_names_its_shape_and_accepts_a_gradient():
    y = mg.ones(2, 3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"\[2, 3\]"):
        y.backward()
    y.backward(mg.ones(2, 3))  # with a gradient it works
    with pytest.raises(RuntimeError, match=r"\[3\]"):
        (mg.ones(3, requires_grad=True) * 2).backward(mg.ones(4))


def test_backward_on_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="grad"):
        mg.ones(1).backward()


def test_operations_across_devices_raise_naming_both(cuda_standin):
    on_cpu = mg.ones(2, 3, device="cpu")
    on_gpu = mg.ones(2, 3, device="cuda")
    for mix in (lambda: on_cpu + on_gpu, lambda: on_gpu * on_cpu, lambda: on_cpu @ mg.ones(3, device="cuda"),
                lambda: mg.cat([on_cpu, on_gpu]), lambda: mg.where(on_cpu > 0, on_gpu, on_gpu),
                lambda: on_cpu < on_gpu, lambda: mg.maximum(on_gpu, on_cpu)):
        with pytest.raises(RuntimeError) as error:
            mix()
        message = str(error.value)
        assert "cpu" in message and "cuda" in message, message


def test_gpu_indices_for_a_cpu_tensor_raise_naming_both_devices(cuda_standin):
    with pytest.raises(RuntimeError) as error:
        mg.ones(3, device="cpu")[mg.tensor([0, 1], device="cuda")]
    assert "cpu" in str(error.value) and "cuda" in str(error.value)


def test_in_place_across_devices_raises(cuda_standin):
    target = mg.zeros(3, device="cuda")
    with pytest.raises(RuntimeError, match="cuda"):
        target.add_(mg.ones(3, device="cpu"))
    target[0] = mg.tensor(1.0, device="cpu").item()  # a Python number is fine anywhere
    assert target.tolist() == [1.0, 0.0, 0.0]


def test_out_of_range_index_raises_on_every_device_even_where_the_array_would_wrap(device):
    """CuPy wraps integer-array indices around; minigrad checks bounds itself."""
    t = mg.arange(6).reshape(2, 3)
    for key in ([0, 2], mg.tensor([2]), (slice(None), [3]), (slice(None), mg.tensor([-4]))):
        with pytest.raises(IndexError):
            t[key]
    numpy.testing.assert_array_equal(t[[1, -2]].tolist(), [[3, 4, 5], [0, 1, 2]])


def test_integer_tensors_to_negative_integer_tensor_powers_truncate_as_in_pytorch():
    """1/b**k truncated towards zero: only 1 and -1 keep a magnitude of 1 (a number exponent raises)."""
    base = mg.tensor([0, 1, -1, 2, -2, 3, -1, 5])
    exponent = mg.tensor([-1, -1, -1, -1, -1, -2, -2, 0])
    assert (base ** exponent).tolist() == [0, 1, -1, 0, 0, 0, 1, 1]
    assert (base ** exponent).dtype is mg.int64
    assert (2 ** mg.tensor([-1, -2, 1])).tolist() == [0, 0, 2]
    assert mg.tensor([1, -1, 4]).pow(mg.tensor(-3)).tolist() == [1, -1, 0]


def test_a_tensor_never_equals_a_list_or_string_as_in_pytorch():
    t = mg.tensor([1, 2])
    assert (t == [1, 2]) is False and (t != [1, 2]) is True
    assert (t == "a") is False and (t != (1, 2)) is True
