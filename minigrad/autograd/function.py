"""The Function API: one class per differentiable operation, forward and backward side by side.

``MyOp.apply(*args)`` runs ``MyOp.forward(ctx, *args)`` with grad mode off and, when
any Tensor argument requires grad, records a node in the graph. That node *is* the
``ctx`` the forward received (an instance of ``MyOpBackward``), so it carries what the
forward saved, and it is what ``output.grad_fn`` shows. Built-in operations and a
user's own Functions build exactly the same kind of graph.
"""

from __future__ import annotations

import functools
import itertools
import traceback
import weakref
from typing import Any

from minigrad.autograd.grad_mode import _GradMode
from minigrad.performance.layout import contiguous_copy
from minigrad.tensor import Tensor

__all__ = ["Function", "FunctionCtx", "Node", "AccumulateGrad", "accumulate_grad", "once_differentiable",
           "check_same_device"]

# Where minigrad's own ops are defined. A Function anywhere else (a user's, a course's) is a
# user's Function, as in PyTorch: its node is ``<Name>Backward`` and ``apply`` always records.
BUILTIN_PACKAGES = ("minigrad.ops.", "minigrad.autograd.")

_sequence = itertools.count()  # creation order of nodes; backward runs newest first
_LEAF_PRIORITY = float("inf")


class _Profiling:
    recorder: Any = None  # the running ``profiler.profile``'s event recorder, or None


class Node:
    """A node of the backward graph: ``tensor.grad_fn`` is one.

    ``next_functions[i]`` is ``(node, output_nr)`` for the i-th forward input:
    where that input's gradient goes next, or ``(None, 0)`` if it needs none.
    """

    next_functions: tuple = ()
    _tensor_hooks: dict | None = None  # output_nr -> hooks registered on that output tensor
    _retained: dict | None = None      # output_nr -> weak reference to a tensor that retains grad
    _post_hooks: list | None = None
    _output_meta: Any = (None,)  # (shape, dtype, array type) per output, set when recorded
    _grad_positions: tuple = ()  # which forward arguments the edges stand for (see ``_record``)
    _input_meta: tuple = ()      # (shape, dtype, array type) per input edge, None where no gradient goes
    _num_inputs = 0
    _sequence_nr: float = 0      # creation order; a leaf's is infinite
    _trace: list | None = None
    materialize_grads = True

    @property
    def _name(self) -> str:
        return type(self).__name__

    @_name.setter
    def _name(self, name: str) -> None:
        """Where the PyTorch overload a node stands for is known only when the op runs (``pow`` of a
        tensor or of a number), the node becomes an instance of a subclass of that name, so that
        ``type(grad_fn).__name__`` is PyTorch's too. (A name known in advance is a subclass of
        the Function instead: ``T`` and ``Transpose`` are ``Permute``.)"""
        if name != type(self).__name__:
            self.__class__ = _renamed_class(type(self), name)

    def name(self) -> str:
        return type(self).__name__

    def apply(self, *grad_outputs: Tensor) -> Any:
        """Run this node's backward: one gradient per forward argument (a Function's ``backward``)."""
        raise NotImplementedError(f"{self.name()} has no backward to run")

    def _release(self) -> None:
        """Free what the backward needed, once it ran (a Function's saved tensors)."""

    def register_hook(self, hook: Any) -> None:
        """``hook(grad_inputs, grad_outputs)`` runs after this node's backward (for inspection)."""
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(hook)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


_RENAMED: dict[tuple[type, str], type] = {}


def _renamed_class(cls: type, name: str) -> type:
    """``cls`` under another name (one subclass per name, made once)."""
    renamed = _RENAMED.get((cls, name))
    if renamed is None:
        base = getattr(cls, "_renamed_from", cls)
        renamed = _RENAMED[(cls, name)] = type(name, (base,), {"_renamed_from": base})
    return renamed


class AccumulateGrad(Node):
    """The node at a leaf tensor: adds the incoming gradient to ``leaf.grad``."""

    def __init__(self, leaf: Tensor):
        self.variable = leaf
        self._sequence_nr = _LEAF_PRIORITY  # as PyTorch: a leaf's .grad is filled as soon as it is ready

    def run_hooks(self, grad: Tensor) -> Tensor:
        """The gradient after the leaf's hooks (``leaf.register_hook``), which may replace it."""
        hooks: list = self.variable._hooks or []
        for hook in hooks:
            result = hook(grad)
            if result is not None:
                grad = checked_hook_result(hook, grad, result)
        return grad

    def accumulate(self, grad: Tensor, create_graph: bool = False) -> None:
        accumulate_grad(self.variable, grad, create_graph)


def accumulate_grad(tensor: Tensor, grad: Tensor, create_graph: bool = False) -> None:
    """``tensor.grad += grad``: in place, or, with ``create_graph``, as recorded operations (a
    copy first, then a new sum), so that ``tensor.grad`` has a history, as PyTorch's has."""
    if create_graph:
        previous = _GradMode.enabled
        _GradMode.enabled = True
        try:
            tensor._grad = recorded_copy(grad) if tensor._grad is None else tensor._grad + grad
        finally:
            _GradMode.enabled = previous
    elif tensor._grad is None:
        # A fresh, writable array that nothing else holds (the gradient may be a
        # broadcast view, or be shared with another input's gradient).
        tensor._grad = Tensor(contiguous_copy(grad._array))
    else:
        tensor._grad._array += grad._array
        tensor._grad._bump_version("AccumulateGrad")


def recorded_copy(grad: Tensor) -> Tensor:
    """A copy of ``grad`` that keeps its history: the first ``.grad`` of a recorded backward pass
    (named ``CopyBackwards``, as PyTorch's copy into a new tensor is)."""
    copy = grad.clone()
    if copy._grad_fn is not None:
        copy._grad_fn._name = "CopyBackwards"
    return copy


def checked_hook_result(hook: Any, grad: Tensor, result: Any) -> Tensor:
    """A tensor hook's replacement gradient, which must keep the gradient's shape and dtype (as PyTorch)."""
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if result.shape != grad.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (was {list(grad.shape)}, "
                           f"got {list(result.shape)})")
    if result.dtype is not grad.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {grad.dtype.name} "
                           f"got {result.dtype.name})")
    return result


class FunctionCtx:
    """What ``forward`` and ``backward`` share: saved tensors and any free attributes."""

    needs_input_grad: tuple = ()
    _saved: tuple | None = ()
    _saved_versions: tuple = ()
    _saved_outputs: dict | None = None   # index in _saved -> output_nr, for saved outputs (see saved_tensors)
    _released = False
    _dirty: tuple = ()                   # mark_dirty's tensors
    _dirty_bumped = False                # their version bump already done (through a view's base)
    _non_differentiable: Any = frozenset()   # ids of mark_non_differentiable's tensors
    materialize_grads = True

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep ``tensors`` for backward; changing one in place afterwards is an error."""
        for index, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {index} is of type "
                                f"{type(t).__name__} (save Tensors or None; keep other values as ctx "
                                f"attributes)")
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, checked to be unchanged since."""
        saved = self._saved
        if saved is None:  # released by a backward pass without retain_graph
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the graph "
                "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
                "you need to backward through the graph a second time or if you need to access saved "
                "tensors after calling backward.")
        for t, version in zip(saved, self._saved_versions):
            if t is not None and t._version != version:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: [{t.dtype.name} tensor of shape {list(t.shape)}], which is "
                    f"output 0 of {t._last_inplace_op or 'an operation'}, is at version {t._version}; "
                    f"expected version {version} instead. It was saved for backward by "
                    f"{type(self).__name__}.")
        if self._saved_outputs and _GradMode.enabled:
            return self._relinked_outputs(saved)
        return saved

    def _relinked_outputs(self, saved: tuple) -> tuple:
        """The saved tensors, with each saved *output* linked to this node again.

        An output is stored without its ``grad_fn`` (this node: a reference cycle otherwise).
        Where the backward is itself recorded (``create_graph=True``), a derivative through
        that output (exp's y in ``grad · y``) must reach the input, so the output comes back as
        an alias whose history is this node, as PyTorch's saved outputs do.
        """
        relinked = list(saved)
        for index, output_nr in (self._saved_outputs or {}).items():
            alias = saved[index]._alias()
            alias._grad_fn, alias._output_nr, alias._requires_grad = self, output_nr, True
            relinked[index] = alias
        return tuple(relinked)

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs that carry no gradient (e.g. the indices of ``max``): they do not require grad, and
        ``backward`` receives zeros for them (None with ``set_materialize_grads(False)``)."""
        self._non_differentiable = {id(t) for t in tensors}

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Inputs that ``forward`` changed in place (and must return as outputs).

        As in PyTorch, each such tensor's version counter goes up and the tensor itself takes
        this node as its ``grad_fn`` (a view's base is rebased through ``CopySlices``); a leaf
        that requires grad may not be changed in place while the graph is recorded.
        """
        self._dirty = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Accepted for PyTorch compatibility and kept in ``ctx.saved_for_forward``; minigrad has no
        forward-mode AD (``Function.jvp``, ``forward_ad``), so nothing reads them
        (``autograd.functional.jvp`` uses the double-backward trick instead; see docs/compatibility.md)."""
        self.saved_for_forward = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """If False, ``backward`` receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = value

    def _release(self) -> None:
        if self._saved:
            self._saved = None
            self._released = True


class BackwardCFunction(FunctionCtx, Node):
    """Base of the generated ``<Name>Backward`` classes: a ctx that is also a graph node.

    Built-in ops' nodes end in 0 as PyTorch's do (``MulBackward0``; PyTorch numbers an op's
    overloads, a minigrad Function has one); a user's Function's do not (``MyOpBackward``).
    """

    _forward_cls: type[Function]

    def apply(self, *grad_outputs: Tensor) -> Any:
        cls = self._forward_cls
        if not _GradMode.enabled or cls._backward_is_differentiable:
            return cls.backward(self, *grad_outputs)
        return _refused_twice(self, grad_outputs)  # a recorded backward (create_graph) it cannot give


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``.

    Call it as ``MyFunction.apply(*args)``. ``backward`` returns one gradient (or None)
    per argument of ``forward``.
    """

    _backward_cls: type[BackwardCFunction] = BackwardCFunction
    _uses_setup_context = False  # set per subclass: PyTorch 2's forward(*args) + setup_context
    node_name: str | None = None
    """The node's name where PyTorch's differs from ``<ClassName>Backward0`` (``ConvolutionBackward0``)."""
    differentiable_backward = True
    """Whether ``backward`` is written in minigrad's tensor operations, so that with
    ``create_graph=True`` it is recorded and can be differentiated again: PyTorch's contract,
    and true of every built-in op. A Function whose backward computes on raw arrays says False;
    it is then treated as ``@once_differentiable`` when a graph of it is asked for:
    differentiating its result raises PyTorch's error, rather than silently giving a zero
    second derivative.
    """
    _backward_is_differentiable = True  # differentiable_backward, resolved per subclass
    _builtin = False                    # one of minigrad's own ops (its forward takes ctx)
    graph_inputs: tuple[int, ...] | None = None
    """Which arguments of ``forward`` are the node's inputs (its ``next_functions``), by position.

    None (a user's Function, as in PyTorch): every Tensor argument. A built-in op lists the
    inputs PyTorch's node has: a Python number in a tensor slot (``x + 1``: the edge
    ``(None, 0)`` for 1), an optional tensor passed as None (conv2d's bias), but not a
    non-differentiable tensor (a loss's class indices) nor options (``dim``, ``stride``).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        builtin = cls.__module__.startswith(BUILTIN_PACKAGES)
        # As PyTorch names them: MulBackward0 for a built-in op, MyFunctionBackward for a user's Function.
        name = cls.__dict__.get("node_name") or cls.__name__ + ("Backward0" if builtin else "Backward")
        cls._backward_cls = type(name, (BackwardCFunction,), {"_forward_cls": cls})
        cls._backward_is_differentiable = bool(cls.differentiable_backward)
        # PyTorch 2's form: ``forward(*args)`` without ctx, then ``setup_context(ctx, inputs, output)``
        cls._uses_setup_context = cls.setup_context is not Function.setup_context
        cls._builtin = builtin and not cls._uses_setup_context

    # Typed as PyTorch's own stubs type them, so that a subclass's ``forward(ctx, x, w)`` and
    # ``backward(ctx, grad_output)`` are valid overrides for a type checker.
    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement forward(ctx, *args)")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Override to use PyTorch 2's form: ``forward(*args)`` takes no ctx, and this saves what
        ``backward`` needs from the forward's ``inputs`` (a tuple) and ``output``."""
        raise NotImplementedError("setup_context is not overridden: forward receives ctx itself")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement backward(ctx, *grad_outputs)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"a Function is not called on an instance: use {type(self).__name__}.apply(...) "
                           f"(PyTorch's legacy non-static autograd Functions are not supported)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` without recording inside it, then record one node for the whole call."""
        if not _GradMode.enabled and cls._builtin and _Profiling.recorder is None:
            return cls._apply_unrecorded(args, kwargs)
        profiler = _Profiling.recorder
        event = profiler.begin() if profiler is not None else None
        ctx = cls._backward_cls()
        # a view reads ``requires_grad``, which first catches up with in-place changes of its base
        needs_grad = tuple([isinstance(a, Tensor) and (a._requires_grad if a._base is None
                                                       else a.requires_grad) for a in args])
        ctx.needs_input_grad = needs_grad
        check_same_device(args, cls.__name__)
        grad_enabled = _GradMode.enabled
        _GradMode.enabled = False
        try:
            if cls._uses_setup_context:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        except MemoryError as error:
            raise out_of_memory(error) from None
        finally:
            _GradMode.enabled = grad_enabled
        recording = grad_enabled and True in needs_grad
        if ctx._dirty:
            _check_dirty(ctx, args, outputs, recording)
        if recording:
            outputs = _record(ctx, args, needs_grad, outputs)
        if ctx._dirty:
            _bump_dirty_versions(ctx)
        if event is not None:
            profiler.end(event, profiler.forward_name(ctx.name()), args)
        return outputs

    @classmethod
    def _apply_unrecorded(cls, args: tuple, kwargs: dict) -> Any:
        """``apply`` of a built-in op with grad mode off (``no_grad``, and every first-order backward's
        own operations): nothing is recorded, so no input needs a gradient and nothing is saved for one."""
        ctx = cls._backward_cls()
        ctx.needs_input_grad = (False,) * len(args)
        check_same_device(args, cls.__name__)
        try:
            outputs = cls.forward(ctx, *args, **kwargs)
        except MemoryError as error:
            raise out_of_memory(error) from None
        if ctx._dirty:
            _check_dirty(ctx, args, outputs, recording=False)
            _bump_dirty_versions(ctx)
        return outputs


def out_of_memory(error: MemoryError) -> RuntimeError:
    """NumPy's (or CuPy's) MemoryError as PyTorch's allocators report it: a RuntimeError."""
    return RuntimeError(f"can't allocate memory: {error}")


def check_same_device(args: tuple, operation: str) -> None:
    """All Tensor arguments of ``operation`` must live on one device (compared cheaply by array type)."""
    first = None
    for a in args:
        if isinstance(a, Tensor):
            if first is None:
                first = a
            elif type(a._array) is not type(first._array) and a.device != first.device:
                raise RuntimeError(
                    f"Expected all tensors to be on the same device, but found at least two devices, "
                    f"{first.device} and {a.device}! (in {operation}: tensors of shape "
                    f"{list(first.shape)} on {first.device} and {list(a.shape)} on {a.device})")


_NO_EDGE = (None, 0)


def _record(ctx: BackwardCFunction, args: tuple, needs_grad: tuple, outputs: Any) -> Any:
    """Link ``ctx`` into the graph: edges to the inputs' nodes, ``grad_fn`` on the outputs.

    The node's inputs are the forward arguments at ``graph_inputs`` (every Tensor argument
    by default); ``_grad_positions`` remembers which, so the engine can pick their gradients
    out of what ``backward`` returns (one per forward argument). ``_input_meta`` and
    ``_output_meta`` keep (shape, NumPy dtype, array type) of each input and output, so the
    engine can check gradients and make zeros without the tensors.
    """
    positions = ctx._forward_cls.graph_inputs
    if positions is None:
        positions = tuple(index for index, arg in enumerate(args) if isinstance(arg, Tensor))
    edges = []
    input_meta: list[tuple | None] = []
    for position in positions:
        if position < len(args) and needs_grad[position]:
            arg = args[position]
            node = arg._grad_fn
            edges.append((node, arg._output_nr) if node is not None else arg._gradient_edge())
            array = arg._array
            input_meta.append((array.shape, array.dtype, type(array)))
        else:
            edges.append(_NO_EDGE)
            input_meta.append(None)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = tuple(input_meta)
    ctx._grad_positions = positions
    ctx._num_inputs = len(args)
    ctx._sequence_nr = next(_sequence)
    if _GradMode.anomaly:
        ctx._trace = traceback.extract_stack()[:-3]

    is_tuple = isinstance(outputs, tuple)
    output_list = list(outputs) if is_tuple else [outputs]
    dirty = ctx._dirty
    non_differentiable = ctx._non_differentiable
    output_meta: list[tuple | None] = []
    for index, out in enumerate(output_list):
        if not isinstance(out, Tensor):
            output_meta.append(None)
            continue
        if dirty and any(out is t for t in dirty):
            _record_dirty(ctx, out, index)
        else:
            for a in args:
                if out is a:  # forward returned an input: give the output its own identity
                    out = output_list[index] = out._alias()
                    break
            if out._array.dtype.kind == "f" and id(out) not in non_differentiable:
                out._grad_fn = ctx
                out._output_nr = index
                out._requires_grad = True
        array = out._array
        output_meta.append((array.shape, array.dtype, type(array)))
    ctx._output_meta = output_meta
    _check_no_inference_saved(ctx)
    _unlink_saved_outputs(ctx)
    return tuple(output_list) if is_tuple else output_list[0]


def _check_dirty(ctx: BackwardCFunction, args: tuple, outputs: Any, recording: bool) -> None:
    """``mark_dirty``'s rules, as PyTorch's: dirty tensors are outputs, and no leaf that requires grad."""
    returned = outputs if isinstance(outputs, tuple) else (outputs,)
    for t in ctx._dirty:
        if not any(t is out for out in returned):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned "
                               "as output. The inputs that are modified inplace must all be outputs of the "
                               "Function.")
        if not recording:
            continue
        if t._base is None and t._grad_fn is None and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        base = t._view.base if t._view is not None else None
        if base is not None and base._grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad has been used in an in-place "
                               "operation.")


def _record_dirty(ctx: BackwardCFunction, tensor: Tensor, output_nr: int) -> None:
    """A tensor changed in place by ``ctx``'s forward takes ``ctx`` as its history; a view does so
    through its base, as ``ops/inplace.py`` records any in-place change of a view."""
    if tensor._base is None or tensor._view is None:
        rebase_history(tensor, ctx, output_nr)
        return
    from minigrad.ops import inplace  # noqa: PLC0415 (ops build on this module)

    new_value = tensor._alias()
    new_value._grad_fn, new_value._output_nr, new_value._requires_grad = ctx, output_nr, True
    inplace.write_to_view(tensor, tensor._view, new_value, ctx.name())
    ctx._dirty_bumped = True


def rebase_history(tensor: Tensor, node: Any, output_nr: int, requires_grad: bool = True) -> None:
    """``tensor`` was changed in place: its history is now output ``output_nr`` of ``node``. A
    ``retain_grad`` moves to the new node, so that ``.grad`` is the gradient of the new value
    (PyTorch's rule), not of the value it replaced."""
    old_node, old_output_nr = tensor._grad_fn, tensor._output_nr
    tensor._grad_fn, tensor._output_nr, tensor._requires_grad = node, output_nr, requires_grad
    retained = old_node._retained if old_node is not None else None
    if not retained or node is old_node:
        return
    reference = retained.get(old_output_nr)
    if reference is None or reference() is not tensor:
        return
    del retained[old_output_nr]
    if node._retained is None:
        node._retained = {}
    node._retained[output_nr] = weakref.ref(tensor)


def _bump_dirty_versions(ctx: BackwardCFunction) -> None:
    """Each dirty tensor's storage changed: its version goes up, and what forward saved of it is the
    new value (the saved versions follow)."""
    if not ctx._dirty_bumped:
        for t in ctx._dirty:
            t._bump_version(ctx.name())
    if ctx._saved:
        ctx._saved_versions = tuple(None if t is None else t._version for t in ctx._saved)


def _check_no_inference_saved(ctx: BackwardCFunction) -> None:
    """A tensor made in ``inference_mode`` cannot be saved for a backward pass (PyTorch's rule)."""
    if ctx._saved and not _GradMode.inference:
        for t in ctx._saved:
            if t is not None and t._inference:
                raise RuntimeError("Inference tensors cannot be saved for backward. To work around you can "
                                   "make a clone to get a normal tensor and use it in autograd.")


def _unlink_saved_outputs(ctx: BackwardCFunction) -> None:
    """A saved output would hold its own grad_fn (a reference cycle): keep a detached alias, and
    remember which output it was (``saved_tensors`` links it again for a recorded backward)."""
    saved = ctx._saved
    if not saved:
        return
    outputs = {index: t._output_nr for index, t in enumerate(saved) if t is not None and t._grad_fn is ctx}
    if outputs:
        ctx._saved = tuple(t._alias() if index in outputs else t for index, t in enumerate(saved))
        ctx._saved_outputs = outputs


def once_differentiable(backward: Any) -> Any:
    """Decorate a Function's ``backward`` that cannot itself be differentiated (PyTorch's decorator).

    The backward runs with grad mode off. Where a graph of the backward would be recorded
    (grad mode on, a gradient that requires grad), its results get a node that raises PyTorch's
    error when differentiated: a second backward through this Function is refused.
    """

    @functools.wraps(backward)
    def wrapper(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        # PyTorch's decorator looks at the incoming gradients only
        inputs = [g for g in grad_outputs if isinstance(g, Tensor)]
        return _run_refusing_twice(backward, ctx, grad_outputs, inputs)

    return wrapper


def _refused_twice(ctx: BackwardCFunction, grad_outputs: tuple) -> Any:
    """A built-in backward that is not differentiable, where a graph of it is asked for: as
    ``@once_differentiable``, but what it saved counts too (a second derivative through a saved
    input is refused as well, never silently zero)."""
    inputs = [g for g in grad_outputs if isinstance(g, Tensor)]
    inputs += [t for t in ctx._saved or () if t is not None]
    return _run_refusing_twice(ctx._forward_cls.backward, ctx, grad_outputs, inputs,
                               refuse=bool(ctx._saved_outputs))


def _run_refusing_twice(backward: Any, ctx: Any, grad_outputs: tuple, inputs: list,
                        refuse: bool = False) -> Any:
    """Run ``backward`` unrecorded; where a graph of it was asked for (grad mode on) and one of
    ``inputs`` requires grad (or ``refuse``), its results come through a node that refuses to be
    differentiated."""
    grad_enabled = _GradMode.enabled
    _GradMode.enabled = False
    try:
        results = backward(ctx, *grad_outputs)
    finally:
        _GradMode.enabled = grad_enabled
    if not grad_enabled or not (refuse or any(t.requires_grad for t in inputs)):
        return results
    if not isinstance(results, tuple):
        return _refusing(results)
    return tuple(_refusing(r) for r in results)


def _refusing(result: Any) -> Any:
    """``result`` made to require grad through a node that refuses to be differentiated (as PyTorch)."""
    if not isinstance(result, Tensor) or result._array.dtype.kind != "f":
        return result
    return _DelayedError.apply(result.detach().requires_grad_())


class _DelayedError(Function):
    """y = a, with a backward that refuses: the gradient of a ``@once_differentiable`` backward."""

    node_name = "DelayedError"  # PyTorch's
    differentiable_backward = False

    @staticmethod
    def forward(ctx, a):
        return Tensor(a._array)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")
