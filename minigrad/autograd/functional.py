"""``torch.autograd.functional``: derivatives of a whole function, as PyTorch computes them.

Each helper runs ``func`` on fresh copies of the inputs (detached leaves, or differentiable
aliases under ``create_graph=True``) and returns plain tensors unless ``create_graph`` asks
for results that can be differentiated again:

- ``vjp(f, x, v)`` is ``(f(x), vᵀ J)``: one backward pass with ``v`` as the output's gradient;
- ``jvp(f, x, v)`` is ``(f(x), J v)``, by the double-backward trick: the backward pass
  u ↦ uᵀ J is linear in u, so differentiating ⟨uᵀ J, v⟩ with respect to u gives J v;
- ``jacobian(f, x)`` is ∂f/∂x of shape ``f(x).shape + x.shape``: one backward pass per
  element of ``f(x)`` (reverse mode), or one ``jvp`` per element of ``x`` (forward mode);
- ``hessian(f, x)`` is the Jacobian of the gradient of a scalar ``f``: the gradient is
  computed with ``create_graph=True``, so that it can be differentiated once more;
- ``vhp(f, x, v)`` is ``vᵀ H`` (the gradient of ⟨∇f, v⟩) and ``hvp(f, x, v)`` is ``H v``
  (the double-backward trick once more): two or three backward passes instead of the
  ``x.numel()`` that the full Hessian costs.

Return structures are PyTorch's: a Tensor where the user gave a Tensor, a tuple where a
tuple; ``jacobian`` and ``hessian`` with several outputs/inputs nest a tuple per output
(per input) of tuples per input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.autograd.api import grad
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from minigrad.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


# --- preparing inputs and results (PyTorch's _as_tuple, _grad_preprocess, _grad_postprocess) -------

def _as_tuple(values: Any, what: str, function: str) -> tuple[bool, tuple]:
    """``(was_tuple, values as a tuple)``, every value a Tensor (PyTorch's TypeError otherwise)."""
    is_tuple = isinstance(values, (tuple, list))
    values = tuple(values) if is_tuple else (values,)
    for index, value in enumerate(values):
        if not isinstance(value, Tensor):
            where = f"value at index {index}" if is_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {function} must be either a Tensor or a tuple of Tensors "
                            f"but the {where} has type {type(value)}.")
    return is_tuple, values


def _prepare(values: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensors for the function's graph to start from: a differentiable alias of a tensor that
    requires grad when the result must stay linked to it (``create_graph``), else a detached copy
    (a leaf that requires grad when ``need_graph``)."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(need_graph)
                 for x in values)


def _finish(values: Any, create_graph: bool) -> Any:
    """Detach (a nested tuple of) results unless the caller asked for a graph."""
    if isinstance(values, tuple):
        return tuple(_finish(v, create_graph) for v in values)
    return values if create_graph else values.detach()


def _unpack(values: Any, was_tuple: bool | tuple[bool, bool]) -> Any:
    """Undo ``_as_tuple``: a Tensor where the user gave one; for two flags, (outer, inner) nesting."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            values = tuple(v[0] for v in values)
        return values if outer else values[0]
    return values if was_tuple else values[0]


def _check_vectors(v: tuple, others: tuple, others_tuple: bool) -> None:
    """``v`` has one tensor per entry of ``others`` and the same shapes (PyTorch's messages)."""
    if len(v) != len(others):
        if others_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(others)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (vector, other) in enumerate(zip(v, others)):
        if vector.shape != other.shape:
            prefix = f"Entry {index} in " if others_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {other.shape} but got {vector.shape}.")


_STRICT_MESSAGES = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be "
               "computed in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
                "respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                "should ensure that your function is twice differentiable and that the jacobian depends on "
                "the inputs (this would be violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the "
               "input. This is not allowed in strict mode. You should ensure that your function is thrice "
               "differentiable and that the hessian depends on the inputs.",
}


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every value must exist and depend on the inputs (it requires grad)."""
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(_INDEPENDENT["back"].format(i=i))
        if not value.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False,
          retain_graph: bool | None = None) -> tuple:
    """``autograd.grad`` over the outputs that require grad; None for every input when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    used = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not used:
        return (None,) * len(inputs)
    return grad([out for out, _ in used], inputs, [g for _, g in used], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
                  "when using the double backward trick to compute forward mode gradients. This is not "
                  "allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
                   "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                         "double backward trick to replace forward mode AD.",
}


def _zeros_for_none(grads: tuple, like: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros (shaped as ``like``) where no gradient arrived; in strict mode, PyTorch's errors instead."""
    result = []
    for i, (g, ref) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = ref.new_zeros(ref.shape)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This "
                               f"is not allowed in strict mode when create_graph=True.")
        result.append(g)
    return tuple(result)


def _vector_or_default(v: Any, like: tuple, like_tuple: bool, create_graph: bool, function: str,
                       none_message: str) -> tuple | None:
    """The user's ``v`` as a checked tuple; None (meaning ones) only where ``like`` is one element."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(none_message)
        return None
    _, vectors = _as_tuple(v, "v", function)
    vectors = _prepare(vectors, create_graph, need_graph=False)
    _check_vectors(vectors, like, like_tuple)
    return vectors


_V_NONE_OUTPUT = ("The vector v can only be None if the user-provided function returns a single Tensor "
                  "with a single element.")
_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single "
                 "Tensor with a single element.")


# --- the helpers ---------------------------------------------------------------------------------------

def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ J)``: the vector-Jacobian product, the gradient ``backward(v)`` would give.

    ``v`` has the structure and shapes of ``func``'s outputs; it may be left out when the output is
    a single one-element tensor. ``create_graph=True`` returns results that can be differentiated
    again; ``strict=True`` makes an input the output does not depend on an error instead of a zero.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        vectors = _vector_or_default(v, outputs, outputs_tuple, create_graph, "vjp", _V_NONE_OUTPUT)
        with set_grad_enabled(create_graph or is_grad_enabled()):
            grads = _grad(outputs, inputs, vectors, create_graph=create_graph)
            product = _zeros_for_none(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(product, create_graph), inputs_tuple))


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J v)``: the Jacobian-vector product, shaped as ``func``'s outputs.

    By the double-backward trick: the backward pass g(u) = uᵀ J is linear in the output gradient
    u, so the gradient of ⟨g(u), v⟩ with respect to u is J v, whatever u is (zeros here). It costs
    two backward passes, the first one recorded.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        vectors = _vector_or_default(v, inputs, inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        dummies = tuple(out.new_zeros(out.shape).requires_grad_() for out in outputs)  # u: any finite value
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(grad_inputs, dummies, vectors, create_graph=create_graph)
        product = _zeros_for_none(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(product, create_graph), outputs_tuple))


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """∂ func(inputs) / ∂ inputs: for one output and one input a Tensor of shape
    ``output.shape + input.shape``; a tuple per input and/or per output where those are tuples.

    ``"reverse-mode"`` takes one backward pass per output element (row k: the gradient of the
    output's k-th element); ``"forward-mode"`` one ``jvp`` per input element (column k: J eₖ),
    cheaper when the inputs are fewer than the outputs. ``vectorize`` is accepted and gives the
    same result (minigrad loops where PyTorch would batch with vmap).
    """
    if strategy not in _STRATEGIES:  # PyTorch checks with an assert: the same exception type here
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more '
                             'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please '
                                      'either set `create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                               "not supported together. Please either set `strict=False` or "
                               "`vectorize=False`.")
        per_output = tuple(tuple(_jacobian_rows(out, inputs, strict, create_graph, index))
                           for index, out in enumerate(outputs))
    return _unpack(_finish(per_output, create_graph), (outputs_tuple, inputs_tuple))


def _jacobian_rows(out: Tensor, inputs: tuple, strict: bool, create_graph: bool, out_index: int) -> list:
    """∂out/∂x for each input x, row by row: row k is the gradient of out's k-th element."""
    from minigrad.creation import eye  # noqa: PLC0415 (creation imports autograd)
    from minigrad.ops.joining import stack  # noqa: PLC0415

    rows: list[list] = [[] for _ in inputs]
    basis = eye(max(out.numel(), 1), dtype=out.dtype, device=out.device)  # row k: one-hot at element k
    for k in range(out.numel()):
        seed = basis[k].reshape(out.shape)
        grads = _grad((out,), inputs, (seed,), create_graph=create_graph, retain_graph=True)
        for input_index, (block, g, x) in enumerate(zip(rows, grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {out_index} of the user-provided function is independent of "
                                       f"input {input_index}. This is not allowed in strict mode.")
                g = x.new_zeros(x.shape)
            elif strict and create_graph and not g.requires_grad:
                # PyTorch's message names the output's index here, as "input"
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                   f"{out_index}. This is not allowed in strict mode when create_graph=True.")
            block.append(g)
    return [stack(block).view(tuple(out.shape) + tuple(x.shape)) if block
            else x.new_zeros(tuple(out.shape) + tuple(x.shape)) for block, x in zip(rows, inputs)]


def _jacobian_forward(func: Callable, inputs: Any, strict: bool, vectorize: bool) -> Any:
    """The Jacobian column by column, each column a ``jvp`` with a one-hot ``v``."""
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                           'are not supported together (yet). Please either set `strict=False` or '
                           '`strategy="reverse-mode"`.')
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:  # PyTorch's forward mode exists only vectorized: the same error
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian "
                                  "isonly implemented for `vectorize=True`.")
    from minigrad.creation import zeros_like  # noqa: PLC0415 (creation imports autograd)
    from minigrad.ops.joining import stack  # noqa: PLC0415

    columns: list[list[tuple]] = []   # [input][element] -> J eₖ, one tensor per output
    outputs_tuple: bool = False  # set by the jvp calls
    outputs: Any = ()
    for j, x in enumerate(inputs):
        per_element = []
        for k in range(x.numel()):
            v = [zeros_like(t) for t in inputs]
            v[j].view(-1)[k] = 1
            outputs, product = jvp(func, inputs, tuple(v))
            per_element.append(product if isinstance(product, tuple) else (product,))
            outputs_tuple = isinstance(outputs, tuple)
        columns.append(per_element)
    if not columns or not columns[0]:  # no input element: evaluate once for the output shapes
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    per_output = []
    for o, out in enumerate(outputs):
        blocks = []
        for x, per_element in zip(inputs, columns):
            shape = tuple(out.shape) + tuple(x.shape)
            if per_element:  # the columns stacked last, then laid out as output.shape + input.shape
                stacked = stack([column[o].reshape(-1) for column in per_element], dim=1)
                blocks.append(stacked.reshape(shape))
            else:
                blocks.append(out.new_zeros(shape))
        per_output.append(blocks)
    return _unpack(per_output, (outputs_tuple, inputs_tuple))  # lists, where PyTorch's forward mode has them


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The matrix of second derivatives ∂²f/∂xᵢ∂xⱼ of a function ``f`` returning one element.

    The Jacobian of the gradient: the gradient is computed with ``create_graph=True``, and
    ``jacobian`` differentiates it once more. For one input of shape S the result has shape
    S + S; for a tuple of inputs, a tuple of tuples (block i, j: ∂²f/∂xᵢ∂xⱼ).
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*args: Tensor) -> Tensor:
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return out.squeeze()

    def gradient(*args: Tensor) -> tuple:
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(t.requires_grad_(True) for t in args)
        jac = jacobian(single_output, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _scalar_function_outputs(func: Callable, inputs: tuple, strict: bool,
                             function: str) -> tuple[bool, tuple]:
    """``func``'s outputs, which must be one Tensor of one element (for ``hvp`` and ``vhp``)."""
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", function)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {function} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {function} should contain a single "
                           f"element")
    return outputs_tuple, outputs


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ H)`` for a function returning one element: the gradient of ⟨∇f, v⟩.

    Two backward passes, the first recorded (``create_graph=True``) so that the second can
    differentiate the gradient; the n×n Hessian is never formed.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        vectors = _vector_or_default(v, inputs, inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_function_outputs(func, inputs, strict, "vhp")
        gradients = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(gradients, "jacobian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(gradients, inputs, vectors, create_graph=create_graph)
        product = _zeros_for_none(grads, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(product, create_graph), inputs_tuple))


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), H v)`` for a function returning one element.

    As PyTorch computes it, by the double-backward trick applied to the vhp: u ↦ uᵀ H is
    linear in u, so the gradient of ⟨uᵀ H, v⟩ with respect to u is H v (three backward
    passes). H is symmetric wherever f is twice continuously differentiable, and there
    ``hvp`` equals ``vhp``, which is cheaper.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        vectors = _vector_or_default(v, inputs, inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_function_outputs(func, inputs, strict, "hvp")
        gradients = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(gradients, "jacobian", strict)
        dummies = tuple(x.new_zeros(x.shape).requires_grad_() for x in inputs)  # u: any finite value
        double_back = _grad(gradients, inputs, dummies, create_graph=True)
        _check_requires_grad(gradients, "hessian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(double_back, dummies, vectors, create_graph=create_graph)
        product = _zeros_for_none(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(product, create_graph), inputs_tuple))
