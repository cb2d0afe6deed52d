"""``gradcheck`` and ``gradgradcheck``: compare gradients with central finite differences, in float64.

For every input that requires grad and every element x of it, the numeric derivative
of each output is (f(x + eps) - f(x - eps)) / (2 eps); it must match the analytic one,
obtained by backpropagating a one-hot gradient through the graph.

``gradgradcheck`` applies the same check one level up: the function it checks is
x, v ↦ vᵀ ∂f/∂x, the gradient of f computed with ``create_graph=True``, so the analytic side
is a backward pass through a recorded backward pass (second derivatives), and the numeric
side is finite differences of first derivatives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from minigrad import backend
from minigrad.tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised when an analytic gradient and its finite-difference estimate disagree."""


def _outputs(fn: Callable, inputs: tuple) -> tuple:
    """The floating-point Tensors ``fn`` returns: integer and bool outputs (indices) have no gradient
    to check, as in PyTorch's gradcheck."""
    result = fn(*inputs)
    results = result if isinstance(result, (tuple, list)) else (result,)
    return tuple(r for r in results if isinstance(r, Tensor) and r.dtype.is_floating_point)


def _numeric_jacobian_column(fn: Callable, inputs: tuple, tensor: Tensor, flat_index: int,
                             eps: float) -> list:
    """d(outputs)/d(tensor[flat_index]) by central differences, one flat array per output."""
    from minigrad.autograd.grad_mode import no_grad  # noqa: PLC0415

    array = tensor.array
    index = _unravel(flat_index, array.shape)  # not a flat view: the input may be non-contiguous
    original = array[index].copy() if hasattr(array[index], "copy") else array[index]
    with no_grad():
        array[index] = original + eps
        plus = [o.array.astype("float64").reshape(-1).copy() for o in _outputs(fn, inputs)]
        array[index] = original - eps
        minus = [o.array.astype("float64").reshape(-1).copy() for o in _outputs(fn, inputs)]
        array[index] = original
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def gradcheck(fn: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **_ignored: Any) -> bool:
    """True if ``fn``'s analytic gradients match finite differences for every input element.

    ``inputs`` is a Tensor or a tuple of arguments; the floating ones that require grad
    are checked and should be float64. On a mismatch, raises naming the input index,
    the element, and both values (or returns False with ``raise_exception=False``).
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in checked:
        if inputs[i].dtype.name != "float64":
            import warnings  # noqa: PLC0415

            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point; "
                          "gradcheck compares in float64 and may fail for it", stacklevel=2)
    outputs = _outputs(fn, inputs)
    numeric = {i: _numeric_jacobian(fn, inputs, inputs[i], eps) for i in checked}
    for out_index, out in enumerate(outputs):
        analytic = _analytic_jacobian(fn, inputs, checked, out_index, out)
        for i in checked:
            for out_flat in range(out.numel()):
                for element in range(inputs[i].numel()):
                    a = float(analytic[i][out_flat][element])
                    n = float(numeric[i][out_index][out_flat][element])
                    if abs(a - n) <= atol + rtol * abs(n):
                        continue
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        f"Jacobian mismatch for output {out_index} with respect to input {i}: at element "
                        f"{_unravel(element, inputs[i].shape)} of input {i} (shape {list(inputs[i].shape)}) "
                        f"and output element {_unravel(out_flat, out.shape)}: analytic {a!r} but numerical "
                        f"{n!r} (atol={atol}, rtol={rtol}).")
    return True


def _numeric_jacobian(fn: Callable, inputs: tuple, tensor: Tensor, eps: float) -> list:
    """For each output, a nested list J[out_element][input_element] by central differences."""
    columns = [_numeric_jacobian_column(fn, inputs, tensor, k, eps) for k in range(tensor.numel())]
    jacobians = []
    for out_index in range(len(columns[0]) if columns else 0):
        host = [backend.to_host(column[out_index]) for column in columns]
        size = host[0].size if host else 0
        jacobians.append([[host[k][r] for k in range(len(host))] for r in range(size)])
    return jacobians


def _analytic_jacobian(fn: Callable, inputs: tuple, checked: list, out_index: int, out: Tensor) -> dict:
    """J[input][out_element] = the gradient of that output element, by one backward each."""
    from minigrad.autograd.api import grad as autograd_grad  # noqa: PLC0415
    from minigrad.creation import zeros_like  # noqa: PLC0415

    rows: dict[int, list[Any]] = {i: [] for i in checked}  # per input: one row per output element
    for out_flat in range(out.numel()):
        fresh = _outputs(fn, inputs)[out_index]  # a new graph each time: backward frees it
        grads = (None,) * len(checked)
        if fresh.requires_grad:
            seed = zeros_like(fresh)
            seed.array.reshape(-1)[out_flat] = 1
            grads = autograd_grad([fresh], [inputs[i] for i in checked], [seed], allow_unused=True)
        for i, g in zip(checked, grads):
            numel = inputs[i].numel()
            if g is None:
                rows[i].append([0.0] * numel)
            else:
                rows[i].append(backend.to_host(g.array).astype("float64").reshape(-1))
    return rows


def _unravel(flat_index: int, shape: tuple) -> tuple:
    index = []
    for size in reversed(shape):
        index.append(flat_index % size)
        flat_index //= size
    return tuple(reversed(index))


_GRAD_OUTPUTS_SEED = 0  # gradgradcheck's random grad_outputs are the same on every call


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """True if the gradients of ``func``'s gradients match finite differences (PyTorch's ``gradgradcheck``).

    It runs :func:`gradcheck` on ``(*inputs, *grad_outputs) ↦ grad(func(*inputs), inputs,
    grad_outputs, create_graph=True)``: the first derivative, computed by a backward pass that is
    itself recorded, is checked against central differences of that first derivative, with
    respect to the inputs (second derivatives) and to ``grad_outputs`` (the backward's
    linearity). ``grad_outputs`` default to random values in [-1, 1), one per floating output,
    drawn from a fixed seed so that a failure reproduces. ``gen_non_contig_grad_outputs``,
    ``nondet_tol`` and the ``check_*`` options are accepted for PyTorch's signature; minigrad has
    no forward-mode AD, so ``check_fwd_over_rev=True`` is refused.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    if check_fwd_over_rev:
        raise NotImplementedError("gradgradcheck(check_fwd_over_rev=True) needs forward-mode AD, which "
                                  "minigrad does not have; see docs/compatibility.md")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if grad_outputs is None:
        grad_outputs = _random_grad_outputs(_differentiable_outputs(func, inputs))
    else:
        grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    differentiable = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    count = len(grad_outputs)

    def first_derivative(*args: Any) -> tuple:
        """The gradients of ``func``'s outputs, weighted by the last ``count`` arguments (recorded)."""
        from minigrad.autograd.api import grad  # noqa: PLC0415 (api imports the engine, which imports ops)
        from minigrad.autograd.grad_mode import enable_grad  # noqa: PLC0415

        with enable_grad():  # also where gradcheck's finite differences call it under no_grad
            outputs = _differentiable_outputs(func, args[:len(args) - count])
            if not outputs:
                return ()
            targets = [args[i] for i in differentiable]
            weights = list(args[len(args) - count:])
            grads = grad(outputs, targets, weights, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


def _differentiable_outputs(func: Callable, inputs: tuple) -> tuple:
    """The outputs of ``func`` that require grad: those ``gradgradcheck`` gives a grad_output."""
    return tuple(out for out in _outputs(func, inputs) if out.requires_grad)


def _random_grad_outputs(outputs: tuple) -> tuple:
    """One tensor per output, uniform in [-1, 1), of its shape, dtype and device, requiring grad."""
    from minigrad.creation import tensor  # noqa: PLC0415 (creation imports autograd)

    rng = numpy.random.default_rng(_GRAD_OUTPUTS_SEED)  # on the host: the same numbers on any device
    return tuple(tensor(rng.uniform(-1.0, 1.0, tuple(out.shape)), dtype=out.dtype, device=out.device,
                        requires_grad=True) for out in outputs)
