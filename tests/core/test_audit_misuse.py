"""Regression tests from an audit of misuse: what PyTorch refuses, minigrad refuses with the same type.

Each row of MISUSE runs one misuse on minigrad and on PyTorch: the exception types must be the
same, and minigrad's message must name the listed pieces (the offending sizes, dims or values).
The rows are the cases where minigrad used to differ: it accepted a ``dtype`` given as a string or
a NumPy type, ``t.sum(keepdim=True)``, out-of-range dims on 0-d tensors, a positional ``stable``;
it raised another type for ``&`` on floats, ``permute`` with too many dims, ``t.mT`` on a vector,
``index_select`` along dim 1, assigning a list. The other tests pin behaviour PyTorch has that
minigrad lacked: node names (split, unbind, ``t[:]``, max), ``dtype=float`` as float64, ``2 / t``
as ``t.reciprocal() * 2``, gradcheck skipping integer outputs, device checks.
"""

from __future__ import annotations

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import assert_misuse_raises_like_torch, to_numpy


def _save_a_number(m):
    """A custom Function that saves an int for backward (a misuse: save_for_backward takes Tensors)."""

    class SavesANumber(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return dy

    return SavesANumber.apply(m.ones(2, requires_grad=True))


def _change_a_piece(m, pieces):
    """Change one output of split/unbind in place while the graph is recorded (PyTorch refuses)."""
    y = m.ones(4, 2, requires_grad=True) * 1
    pieces(y)[1].add_(1)


def _linear_with_bias(m, bias_shape):
    """F.linear of a (2, 4) input and a (3, 4) weight: the output is (2, 3)."""
    return m.nn.functional.linear(m.ones(2, 4), m.ones(3, 4), m.ones(*bias_shape))


MISUSE = {
    # a dtype is a minigrad.dtype (or Python's float/int/bool), not a name or a NumPy type
    "ones_dtype_name": (lambda m: m.ones(2, dtype="float32"), ["dtype", "str"]),
    "tensor_dtype_numpy_type": (lambda m: m.tensor([1, 2], dtype=numpy.float32), ["dtype", "type"]),
    "zeros_like_dtype_name": (lambda m: m.zeros_like(m.ones(2), dtype="int"), ["dtype", "str"]),
    "full_dtype_numpy_type": (lambda m: m.full((2,), 1.0, dtype=numpy.float64), ["dtype", "type"]),
    "arange_dtype_name": (lambda m: m.arange(3, dtype="float32"), ["dtype", "str"]),
    "randint_dtype_numpy_type": (lambda m: m.randint(0, 3, (2,), dtype=numpy.int32), ["dtype"]),
    "new_zeros_dtype_name": (lambda m: m.ones(2).new_zeros(2, dtype="int64"), ["dtype", "str"]),
    "sum_dtype_name": (lambda m: m.ones(2).sum(dtype="float64"), ["dtype", "str"]),
    "softmax_dtype_name": (lambda m: m.ones(2).softmax(0, dtype="float64"), ["dtype", "str"]),
    "to_numpy_type": (lambda m: m.ones(2).to(numpy.float64), ["to()", "type"]),
    "to_two_dtypes": (lambda m: m.ones(2).to(m.float64, m.int64), ["to()", "dtype, dtype"]),
    "to_a_tensor_and_a_dtype": (lambda m: m.ones(2).to(m.ones(1), m.float64), ["Tensor, dtype"]),
    "to_device_twice": (lambda m: m.ones(2).to("cpu", device="cpu"), ["device=str"]),
    "type_of_a_bad_name": (lambda m: m.ones(2).type("foo"), ["'foo'"]),
    "type_of_python_float": (lambda m: m.ones(2).type(float), ["'float'"]),
    # requires_grad is a bool
    "zeros_requires_grad_string": (lambda m: m.zeros(2, requires_grad="yes"), ["requires_grad", "str"]),
    "tensor_requires_grad_int": (lambda m: m.tensor([1.0], requires_grad=1), ["requires_grad", "int"]),
    "requires_grad_method_string": (lambda m: m.zeros(2).requires_grad_("yes"), ["requires_grad", "str"]),
    "set_grad_enabled_string": (lambda m: m.set_grad_enabled("yes"), ["str"]),
    # bitwise operations have no float kernel; isclose/allclose compare one dtype
    "and_of_floats": (lambda m: m.ones(3) & m.ones(3), ["bitwise_and", "Float"]),
    "or_of_float_and_bool": (lambda m: m.ones(3) | m.ones(3, dtype=m.bool), ["bitwise_or", "Float"]),
    "xor_with_a_float_number": (lambda m: m.ones(3, dtype=m.bool) ^ 1.5, ["bitwise_xor", "Float"]),
    "allclose_of_two_dtypes": (lambda m: m.allclose(m.ones(3), m.ones(3, dtype=m.float64)),
                               ["Float", "Double"]),
    "isclose_of_two_int_dtypes": (lambda m: m.isclose(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int32)),
                                  ["Long", "Int"]),
    # a 0-d tensor has dims 0 and -1 only
    "max_dim_of_0d": (lambda m: m.tensor(1.0).max(dim=1), ["[-1, 0]", "got 1"]),
    "min_dim_of_0d": (lambda m: m.tensor(1.0).min(1), ["[-1, 0]", "got 1"]),
    "argmax_dim_of_0d": (lambda m: m.tensor(1.0).argmax(dim=1), ["[-1, 0]", "got 1"]),
    "argmin_negative_dim_of_0d": (lambda m: m.tensor(1.0).argmin(dim=-2), ["[-1, 0]", "got -2"]),
    "cumsum_dim_of_0d": (lambda m: m.tensor(1.0).cumsum(1), ["[-1, 0]", "got 1"]),
    "transpose_of_0d": (lambda m: m.tensor(1.0).transpose(0, 1), ["[-1, 0]", "got 1"]),
    "flatten_dim_of_0d": (lambda m: m.tensor(1.0).flatten(1), ["[-1, 0]", "got 1"]),
    "permute_of_0d": (lambda m: m.tensor(1.0).permute(0), ["input.dim() = 0", "len(dims) = 1"]),
    "size_of_0d": (lambda m: m.tensor(1.0).size(0), ["Dimension specified as 0", "no dimensions"]),
    # shapes
    "permute_too_many_dims": (lambda m: m.ones(2, 3).permute(0, 1, 2), ["input.dim() = 2", "len(dims) = 3"]),
    "reshape_negative_size": (lambda m: m.ones(2, 3).reshape(-2, 3), ["-2", "index 0", "[-2, 3]"]),
    "view_ambiguous_empty": (lambda m: m.ones(0, 3).view(-1, 0), ["[-1, 0]", "ambiguous"]),
    "unsqueeze_tuple": (lambda m: m.ones(2, 3).unsqueeze((0, 1)), ["dim", "tuple"]),
    "expand_too_few_sizes": (lambda m: m.ones(2, 3).expand(3), ["[2, 3]", "[3]", "(1)", "(2)"]),
    "broadcast_to_too_few_sizes": (lambda m: m.ones(2, 3).broadcast_to((3,)),
                                   ["[2, 3]", "[3]", "(1)", "(2)"]),
    "repeat_negative": (lambda m: m.ones(2, 3).repeat(2, -1), ["-3", "[4, -3]"]),
    "mT_of_a_vector": (lambda m: m.ones(3).mT, ["1-D"]),
    "index_select_dim_1_out_of_range": (lambda m: m.ones(2, 3).index_select(1, m.tensor([3])),
                                        ["id=3", "axis_dim=3"]),
    "index_select_dim_0_out_of_range": (lambda m: m.ones(2, 3).index_select(0, m.tensor([2])), ["2"]),
    "index_select_negative_index": (lambda m: m.ones(2, 3).index_select(1, m.tensor([-1])), ["-1"]),
    # reductions: keepdim only along with a dim
    "sum_keepdim_without_dim": (lambda m: m.ones(2, 3).sum(keepdim=True), ["keepdim"]),
    "mean_keepdim_without_dim": (lambda m: m.ones(2, 3).mean(keepdim=True), ["keepdim"]),
    "module_sum_keepdim_without_dim": (lambda m: m.sum(m.ones(2, 3), keepdim=True), ["keepdim"]),
    # indexing
    "index_arrays_not_broadcastable": (lambda m: m.ones(3, 3)[[0, 1], [0, 1, 2]], ["[2], [3]"]),
    "index_tensors_not_broadcastable": (lambda m: m.ones(3, 3)[m.tensor([0, 1]), m.tensor([0, 1, 2])],
                                        ["[2], [3]"]),
    "mask_of_the_wrong_size_at_dim_1": (lambda m: m.ones(2, 3)[:, m.tensor([True, False])],
                                        ["[2] at index 0", "[2, 3] at index 1"]),
    "assign_a_list": (lambda m: m.zeros(3).__setitem__(slice(None), [1.0, 2.0, 3.0]), ["list"]),
    "assign_a_numpy_array": (lambda m: m.zeros(3).__setitem__(slice(None), numpy.ones(3)), ["numpy.ndarray"]),
    "assign_a_tuple": (lambda m: m.zeros(3).__setitem__(0, (1.0,)), ["tuple"]),
    # autograd
    "grad_of_a_number": (lambda m: m.autograd.grad((m.ones(2, requires_grad=True) * 2).sum(), [1.0]),
                         ["float"]),
    "grad_of_no_inputs": (lambda m: m.autograd.grad((m.ones(2, requires_grad=True) * 2).sum(), []),
                          ["`inputs`", "grad()"]),
    "backward_of_no_inputs": (lambda m: (m.ones(2, requires_grad=True) * 2).sum().backward(inputs=[]),
                              ["`inputs`", "backward()"]),
    "backward_inputs_a_number": (lambda m: (m.ones(2, requires_grad=True) * 2).sum().backward(inputs=[1.0]),
                                 ["float"]),
    "save_for_backward_a_number": (_save_a_number, ["argument 0", "int"]),
    "in_place_on_a_split_piece": (lambda m: _change_a_piece(m, lambda y: y.split(2)), ["Output 1 of Split"]),
    "in_place_on_an_unbind_piece": (lambda m: _change_a_piece(m, lambda y: y.unbind()),
                                    ["Output 1 of Unbind"]),
    "in_place_on_a_row": (lambda m: _change_a_piece(m, list), ["Output 1 of Unbind"]),
    # sort: stable is a keyword-only bool
    "sort_stable_positional": (lambda m: m.ones(3).sort(0, False, True), ["positional"]),
    "sort_stable_an_int": (lambda m: m.ones(3).sort(stable=1), ["stable"]),
    "argsort_stable_positional": (lambda m: m.ones(3).argsort(0, False, True), ["positional"]),
    # random fills check their parameters (nn.init calls these)
    "normal_negative_std": (lambda m: m.ones(3).normal_(0, -1), ["std >= 0.0", "-1"]),
    "normal_std_a_string": (lambda m: m.ones(3).normal_(0, "x"), ["'std'", "str"]),
    "uniform_from_above_to": (lambda m: m.ones(3).uniform_(2, 1), ["from=2 > to=1"]),
    "uniform_from_nan": (lambda m: m.ones(3).uniform_(float("nan"), 1), ["from is out of bounds"]),
    "uniform_to_inf": (lambda m: m.ones(3).uniform_(0, float("inf")), ["to is out of bounds"]),
    "init_normal_negative_std": (lambda m: m.nn.init.normal_(m.ones(2, 2), std=-1), ["std >= 0.0"]),
    # linear's bias must expand to the output
    "linear_bias_of_another_shape": (lambda m: _linear_with_bias(m, (3, 3)), ["(2)", "(3)", "[3, 3]"]),
    "linear_bias_of_too_many_dims": (lambda m: _linear_with_bias(m, (1, 2, 3)), ["[1, 2, 3]", "(2)"]),
}


@pytest.mark.parametrize("name", MISUSE)
def test_misuse_raises_like_torch(name):
    assert_misuse_raises_like_torch(*MISUSE[name])


def _node_names(m):
    x = m.arange(12.0).reshape(4, 3).requires_grad_()
    y = x * 1
    return [x.split(2)[1].grad_fn.name(), x.split([1, 3])[0].grad_fn.name(), x.chunk(2, 1)[0].grad_fn.name(),
            x.unbind()[2].grad_fn.name(), x.unbind(1)[0].grad_fn.name(), next(iter(y)).grad_fn.name(),
            m.ones(0, 2, requires_grad=True).chunk(2)[0].grad_fn.name(),
            x[:].grad_fn.name(), x[0:4].grad_fn.name(), x[:, :].grad_fn.name(), x[...].grad_fn.name(),
            x[(slice(None),)].grad_fn.name(), x[1:, :].grad_fn.name(),
            x.max().grad_fn.name(), x.min().grad_fn.name(), x.max(0).values.grad_fn.name(),
            x.min(1).values.grad_fn.name(), x.amax(0).grad_fn.name(), x.amin().grad_fn.name(),
            m.maximum(x, y).grad_fn.name(), m.minimum(x, y).grad_fn.name(), x.max(y).grad_fn.name(),
            x.sort().values.grad_fn.name(), x.sort(stable=False).values.grad_fn.name(),
            m.sort(x, stable=True, dim=0).values.grad_fn.name(), (2 / x).grad_fn.name()]


def test_node_names_are_pytorchs():
    """split/chunk → SplitBackward0, unbind (and ``for row in t``) → UnbindBackward0, a lone ``t[:]`` is a
    Slice; max/min/amax/amin/maximum nodes have PyTorch's names (``name()`` used to be a string)."""
    torch = require_torch()
    assert _node_names(mg) == _node_names(torch)


def test_no_grad_reads_stay_out_of_the_graph():
    torch = require_torch()
    for m in (torch, mg):
        x = m.arange(6.0).reshape(2, 3).requires_grad_()
        with m.no_grad():
            pieces = [x[0], x[:, 1], x[[0, 1]], x.view(6), x.t(), x.split(1)[0], x.unbind()[0],
                      x.expand(2, 2, 3)]
        assert all((p.requires_grad, p.is_leaf, p.grad_fn) == (False, True, None) for p in pieces)


def test_python_types_as_dtypes_are_pytorchs():
    """``dtype=float`` is float64 (Python's float is a double), int is int64, bool is bool."""
    torch = require_torch()
    for lib in (torch, mg):
        made = [lib.ones(2, dtype=float), lib.tensor([1], dtype=float), lib.ones(2).to(float),
                lib.zeros(2, dtype=int), lib.ones(2).to("cpu", int), lib.full((1,), 1, dtype=bool),
                lib.ones(2).to(dtype=bool)]
        names = [str(t.dtype).split(".")[1] for t in made]
        assert names == ["float64", "float64", "float64", "int64", "int64", "bool", "bool"]


def test_to_reads_pytorchs_overloads():
    x = mg.ones(2)
    assert x.to(x) is x and x.to(x.device, None) is x
    assert x.to(mg.float32, False, True) is not x  # positional copy=True copies
    assert x.to(mg.float64, copy=False).dtype is mg.float64


def test_a_list_of_floats_indexes_as_int64_as_in_pytorch():
    torch = require_torch()
    for key in ([0.0, 2.0], [0.5, 1.7], [0, 1.0]):
        assert to_numpy(mg.arange(3.0)[key]).tolist() == torch.arange(3.0)[key].tolist()
    assert to_numpy(mg.arange(6.0).reshape(2, 3)[[0.0], [1.9]]).tolist() == [1.0]


def test_a_number_divided_by_a_tensor_is_the_reciprocal_times_the_number():
    """As PyTorch: the same float32 rounding, and the gradient comes from the saved reciprocal, so the
    divisor may change in place before backward (it used to raise a version-counter error)."""
    torch = require_torch()
    results = {}
    for lib in (torch, mg):
        x = lib.tensor([7.0, 2.0, 3.0], requires_grad=True)
        divisor = x * 2
        y = 3 / divisor
        divisor.add_(1)
        y.sum().backward()
        results[lib] = (y.detach().tolist(), x.grad.tolist())
    assert results[mg] == results[torch]
    assert (1 / mg.tensor([0, 2])).tolist() == [float("inf"), 0.5]


def test_gradcheck_skips_integer_outputs():
    torch = require_torch()
    for lib in (torch, mg):
        x = lib.tensor([2.0, 2.0, 1.0], dtype=lib.float64, requires_grad=True)  # a tie: eps moves argmax
        assert lib.autograd.gradcheck(lambda t: t.argmax(), (x,))
        assert lib.autograd.gradcheck(lambda t: (t * 2, t.argmin()), (x,))


@pytest.mark.parametrize("shape", [(0, 3), (0, 3, 2, 2)], ids=["1d", "2d"])
def test_batch_norm_of_an_empty_batch_is_empty_as_in_pytorch(shape):
    """PyTorch refuses one value per channel, not none: an empty batch gives an empty output, γ and β zero
    gradients, and leaves the running estimates alone."""
    torch = require_torch()
    results = []
    for m in (mg, torch):
        layer = (m.nn.BatchNorm1d if len(shape) == 2 else m.nn.BatchNorm2d)(3)
        x = m.ones(*shape, requires_grad=True)
        out = layer(x)
        out.sum().backward()
        read = to_numpy if m is mg else (lambda t: t.detach().numpy())
        statistics = (read(layer.running_mean), read(layer.running_var), layer.num_batches_tracked.item())
        results.append((tuple(out.shape), tuple(x.grad.shape), read(layer.weight.grad), read(layer.bias.grad),
                        *statistics))
    ours, theirs = results
    assert ours[:2] == theirs[:2] and ours[-1] == theirs[-1]
    for mine, its in zip(ours[2:6], theirs[2:6]):
        numpy.testing.assert_array_equal(mine, its)


def test_sum_and_mean_take_keepdim_with_dim_none():
    torch = require_torch()
    for lib in (torch, mg):
        x = lib.ones(2, 3)
        kept = (x.sum(None, keepdim=True), x.mean(dim=None, keepdim=True), lib.sum(x, None, True))
        assert [tuple(t.shape) for t in kept] == [(1, 1)] * 3
    assert mg.ones(2, 3).sum(keepdim=False).shape == ()  # PyTorch refuses even this; minigrad need not


def test_sort_stable_false_is_accepted_as_a_keyword():
    torch = require_torch()
    values = [3.0, 1.0, 2.0, 1.0, 3.0]
    for descending in (False, True):
        ours = mg.tensor(values).sort(descending=descending, stable=False)
        theirs = torch.tensor(values).sort(descending=descending, stable=False)
        assert to_numpy(ours.values).tolist() == theirs.values.tolist()
        assert to_numpy(mg.tensor(values).argsort(descending=descending, stable=True)).tolist() == \
            torch.tensor(values).argsort(descending=descending, stable=True).tolist()


def test_operations_without_a_function_check_devices_too(cuda_standin):
    """Comparisons-like ops that are no Function (floor division, bitwise, isclose/allclose) used to hand
    the array library a host array for a device one; they raise naming both devices."""
    on_cpu, on_gpu = mg.ones(3, device="cpu"), mg.ones(3, device="cuda")
    mixes = (lambda: on_cpu // on_gpu, lambda: mg.div(on_gpu, on_cpu, rounding_mode="trunc"),
             lambda: on_cpu.bool() & on_gpu.bool(), lambda: on_gpu.bool() ^ on_cpu.bool(),
             lambda: mg.allclose(on_cpu, on_gpu), lambda: mg.isclose(on_gpu, on_cpu))
    for mix in mixes:
        with pytest.raises(RuntimeError) as error:
            mix()
        assert "cpu" in str(error.value) and "cuda" in str(error.value), str(error.value)


def test_grad_on_another_device_cannot_be_assigned(cuda_standin):
    leaf = mg.ones(3, device="cpu", requires_grad=True)
    with pytest.raises(RuntimeError, match="different device"):
        leaf.grad = mg.ones(3, device="cuda")


def test_type_as_takes_the_other_tensors_device(cuda_standin):
    """``a.type_as(b)`` is PyTorch's ``a.type(b.type())``: b's dtype and device."""
    moved = mg.ones(2, device="cpu").type_as(mg.zeros(1, dtype=mg.float64, device="cuda"))
    assert moved.device == mg.device("cuda") and moved.dtype is mg.float64
