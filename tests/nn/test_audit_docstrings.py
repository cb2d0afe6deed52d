"""Regression tests from an audit of PyTorch's docstring examples (and common tutorial idioms) for
``nn``, ``nn.functional``, ``nn.init``, ``nn.utils``, ``nn.grad``, ``optim`` and ``data``.

The first test takes the ``>>>`` examples straight out of PyTorch's docstrings, runs each one
with PyTorch and again with ``import minigrad as torch``, and compares every tensor and module
both runs leave behind (shapes, dtypes, reprs; the values differ only by the random numbers).
The tests after it pin the divergences the audit found, each against PyTorch.
"""

import ast
import contextlib
import io
import re
import warnings
from collections import OrderedDict

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.data import DataLoader, TensorDataset

from .helpers import host

# --- PyTorch's docstring examples run unchanged on minigrad --------------------------------------

DOCSTRINGS = [
    "nn.Module.apply", "nn.Module.to", "nn.Module.modules", "nn.Module.named_modules", "nn.Sequential.append",
    "nn.Sequential.insert", "nn.Sequential.extend", "nn.Linear", "nn.Conv2d", "nn.MaxPool2d", "nn.AvgPool2d",
    "nn.ReLU", "nn.Sigmoid", "nn.Tanh", "nn.Flatten", "nn.Dropout", "nn.BatchNorm1d", "nn.BatchNorm2d",
    "nn.CrossEntropyLoss", "nn.NLLLoss", "nn.MSELoss", "nn.init.uniform_", "nn.init.normal_",
    "nn.init.constant_", "nn.init.zeros_", "nn.init.ones_", "nn.init.kaiming_uniform_",
    "nn.init.kaiming_normal_", "nn.init.xavier_uniform_", "nn.init.xavier_normal_", "nn.init.calculate_gain",
    "nn.functional.conv2d", "nn.functional.cross_entropy", "nn.functional.nll_loss", "nn.functional.pad",
    "nn.grad.conv2d_input", "utils.data.BatchSampler",
]
SKIPPED = re.compile(r"xdoctest: \+(SKIP|REQUIRES)|cdouble")  # skipped by PyTorch too, or outside SPEC


def docstring_examples(path: str) -> list[str]:
    """The runnable ``>>>`` blocks of ``torch.<path>.__doc__`` (a block ends at a blank line)."""
    torch = require_torch()
    obj = torch
    for part in path.split("."):
        obj = getattr(obj, part)
    blocks, lines = [], []
    for line in (obj.__doc__ or "").splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith(">>>") or (stripped.startswith("...") and lines):
            lines.append(stripped[4:])
        elif not stripped and lines:
            blocks.append(lines)
            lines = []
    runnable = []
    for block in blocks:
        cut = next((i for i, line in enumerate(block) if SKIPPED.search(line)), len(block))
        if cut:
            runnable.append("\n".join(block[:cut]))
    return runnable


def run_example(source: str, lib) -> dict:
    """Run ``source`` with ``lib`` as ``torch`` (imports of torch rewritten); return its variables.

    The value of the i-th statement, when it is an expression, is kept as the variable ``_i``;
    what the example prints is the variable ``stdout`` (with the library's name taken out).
    """
    if lib is mg:
        source = re.sub(r"^import torch$", "import minigrad as torch", source, flags=re.M)
        source = re.sub(r"\bimport torch\.nn as nn\b", "import minigrad.nn as nn", source)
    given = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, **vars(lib.utils.data)}
    namespace = dict(given)
    lib.manual_seed(0)
    printed = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
        warnings.simplefilter("error")
        for i, statement in enumerate(ast.parse(source).body):
            if isinstance(statement, ast.Expr):
                expression = compile(ast.Expression(statement.value), "<example>", "eval")
                namespace[f"_{i}"] = eval(expression, namespace)
            else:
                exec(compile(ast.Module([statement], []), "<example>", "exec"), namespace)
    made = {name: value for name, value in namespace.items()
            if name not in given and not name.startswith("__")}
    return {**made, "stdout": printed.getvalue().replace(f"{lib.__name__}.", "")}


def describe(value):
    """What :func:`assert_alike` compares, as plain data a record can hold: a tensor's shape, dtype and
    requires_grad; a module's repr; items of lists and tuples; the repr of anything else (library's name
    taken out). None for what is not compared."""
    if all(hasattr(value, name) for name in ("shape", "requires_grad", "grad_fn")):  # either library's
        return {"tensor": [list(value.shape), str(value.dtype).rsplit(".", 1)[-1], bool(value.requires_grad)]}
    if all(hasattr(value, name) for name in ("forward", "named_parameters")):
        return {"module": repr(value)}
    if type(value) in (list, tuple):
        return {type(value).__name__: [describe(item) for item in value]}
    if isinstance(value, (int, float, str, tuple)):  # sizes, gains, what the example printed
        return {"repr": repr(value).replace("minigrad.", "").replace("torch.", "")}
    return None


def assert_alike(ours, theirs, what: str) -> None:
    """Same structure: tensors of the same shape, dtype and requires_grad; modules with the same repr;
    anything else with the same repr once the library's name is taken out (random values may differ)."""
    expected = describe(theirs)
    if expected is not None:
        assert describe(ours) == expected, what


@pytest.mark.parametrize("path", DOCSTRINGS)
def test_pytorch_docstring_examples_run_on_minigrad(path):
    def torch_examples(torch):
        examples = docstring_examples(path)
        return [[source, {name: describe(value) for name, value in run_example(source, torch).items()}]
                for source in examples]

    examples = reference(torch_examples)
    assert examples, f"no runnable example left in torch.{path}.__doc__"
    for source, theirs in examples:
        ours = run_example(source, mg)
        for name, value in theirs.items():
            if value is not None:
                assert describe(ours[name]) == value, f"{name} in\n{source}"


def test_docstring_losses_draw_their_targets_with_random_():
    """CrossEntropyLoss's and NLLLoss's examples draw class indices with ``random_`` (minigrad lacked it)."""
    torch = require_torch()
    for lib in (mg, torch):
        lib.manual_seed(0)
        target = lib.empty(300, dtype=lib.long).random_(5)
        assert target.dtype == lib.int64 and set(target.tolist()) == set(range(5))
        pixels = lib.empty(4, 8, 8, dtype=lib.long).random_(2, 4)
        assert set(pixels.tolist()[0][0]) <= {2, 3} and pixels.shape == (4, 8, 8)
        floats = lib.empty(200).random_(0, 3)
        assert floats.dtype == lib.float32 and set(floats.tolist()) == {0.0, 1.0, 2.0}
        assert 0 <= lib.empty(50, dtype=lib.bool).random_().int().sum().item() <= 50
        whole = lib.empty(1000).random_()
        assert whole.min().item() >= 0 and whole.max().item() <= 2 ** 24 and whole.max().item() > 2 ** 20
        same = lib.empty(3, dtype=lib.long)
        assert same.random_(7) is same


@pytest.mark.parametrize("call, error, fragments", [
    (lambda m: m.empty(3).random_(5, 5), RuntimeError, ["from=5 >= to=5"]),
    (lambda m: m.empty(3).random_(6, 2), RuntimeError, ["from=6 >= to=2"]),
    (lambda m: m.ones(3, requires_grad=True).random_(5), RuntimeError, ["leaf"]),
])
def test_random_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_random_with_a_generator_is_reproducible():
    draw = [mg.empty(6, dtype=mg.int64).random_(100, generator=mg.Generator().manual_seed(3)).tolist()
            for _ in range(2)]
    assert draw[0] == draw[1]


def test_nn_grad_is_reachable_as_functional_grad():
    """The docstring of torch.nn.grad.conv2d_input calls ``F.grad.conv2d_input``."""
    torch = require_torch()
    x, w, g = (numpy.random.default_rng(0).standard_normal(shape) for shape in [(1, 2, 5, 5), (3, 2, 2, 3),
                                                                                 (1, 3, 4, 3)])
    ours = F.grad.conv2d_input(x.shape, mg.tensor(w), mg.tensor(g))
    theirs = torch.nn.functional.grad.conv2d_input(x.shape, torch.tensor(w), torch.tensor(g))
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-10)
    ours = F.grad.conv2d_weight(mg.tensor(x), w.shape, mg.tensor(g))
    numpy.testing.assert_allclose(host(ours), host(torch.nn.grad.conv2d_weight(torch.tensor(x), w.shape,
                                                                               torch.tensor(g))), rtol=1e-10)
    assert F.grad is nn.grad


# --- optimizers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("optimizer, options", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {})])
def test_optimizer_repr_separates_groups_with_a_blank_line(optimizer, options):
    torch = require_torch()

    def build(lib):
        layer = lib.nn.Linear(2, 2)
        groups = [{"params": [layer.weight]}, {"params": [layer.bias], "lr": 0.5}]
        return getattr(lib.optim, optimizer)(groups, **options)

    assert repr(build(mg)) == repr(build(torch))
    assert "\n\nParameter Group 1\n" in repr(build(mg))


# --- containers and Module -------------------------------------------------------------------------

@pytest.mark.parametrize("other", ["ModuleList", "Sequential", "list", "generator"])
def test_module_list_extends_with_any_iterable_of_modules(other):
    torch = require_torch()

    def extended(lib):
        layers = [lib.nn.Tanh(), lib.nn.Sigmoid()]
        more = {"ModuleList": lambda: lib.nn.ModuleList(layers),
                "Sequential": lambda: lib.nn.Sequential(*layers),
                "list": lambda: layers, "generator": lambda: iter(layers)}[other]()
        modules = lib.nn.ModuleList([lib.nn.ReLU()])
        assert modules.extend(more) is modules
        modules += lib.nn.ModuleList([lib.nn.ReLU()])
        return modules

    assert repr(extended(mg)) == repr(extended(torch))


@pytest.mark.parametrize("call, error, fragments", [
    (lambda m: m.nn.ModuleList().extend(m.nn.ReLU()), TypeError, ["iterable", "ReLU"]),
    (lambda m: m.nn.ModuleList().extend(3), TypeError, ["iterable", "int"]),
    (lambda m: m.nn.ModuleList().extend("ab"), TypeError, ["str is not a Module subclass"]),
])
def test_module_list_extend_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_modules_takes_remove_duplicate():
    torch = require_torch()

    def names(lib, remove_duplicate):
        shared = lib.nn.Linear(2, 2)
        net = lib.nn.Sequential(OrderedDict([("a", shared), ("b", shared), ("c", lib.nn.ReLU())]))
        return [type(m).__name__ for m in net.modules(remove_duplicate=remove_duplicate)]

    for remove_duplicate in (True, False):
        assert names(mg, remove_duplicate) == names(torch, remove_duplicate)
    assert names(mg, False) == ["Sequential", "Linear", "Linear", "ReLU"]


# --- DataLoader ------------------------------------------------------------------------------------

def test_a_custom_collate_fn_receives_the_list_of_samples():
    """TensorDataset batches are fetched together; a user's collate_fn still sees PyTorch's list of tuples."""
    torch = require_torch()

    def batches(lib):
        data = lib.utils.data
        dataset = data.TensorDataset(lib.arange(6.0), lib.arange(6))
        return list(data.DataLoader(dataset, batch_size=4, collate_fn=lambda batch: batch))

    ours, theirs = batches(mg), batches(torch)
    assert [type(b) for b in ours] == [type(b) for b in theirs] == [list, list]
    assert [[tuple(t.tolist() for t in sample) for sample in b] for b in ours] == \
        [[tuple(t.tolist() for t in sample) for sample in b] for b in theirs]
    assert [type(sample) for sample in ours[0]] == [tuple] * 4


def test_the_default_collate_of_a_tensor_dataset_is_unchanged():
    x, y = mg.arange(10.0).reshape(5, 2), mg.arange(5)
    batches = list(DataLoader(TensorDataset(x, y), batch_size=2, sampler=[4, 0, 3, 1, 2]))
    assert [b[1].tolist() for b in batches] == [[4, 0], [3, 1], [2]]
    assert batches[0][0].tolist() == [[8.0, 9.0], [0.0, 1.0]]


# --- gradient clipping -----------------------------------------------------------------------------

def test_clip_grad_norm_of_infinite_gradients_matches_torch_without_numpy_warnings():
    torch = require_torch()
    for values in ([float("inf"), 1.0], [float("nan"), 1.0], [float("-inf"), float("inf")]):
        results = []
        for lib in (mg, torch):
            weight = lib.nn.Parameter(lib.ones(2))
            weight.grad = lib.tensor(values)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                total = lib.nn.utils.clip_grad_norm_([weight], 1.0)
            results.append((host(total), host(weight.grad)))
        for ours, theirs in zip(*results):
            numpy.testing.assert_array_equal(ours, theirs)


# --- init on tensors that cannot hold random floats ------------------------------------------------

@pytest.mark.parametrize("fill", ["uniform_", "normal_", "kaiming_uniform_", "kaiming_normal_",
                                  "xavier_uniform_", "xavier_normal_"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_random_initialisers_of_integer_tensors_are_not_implemented_as_in_torch(fill, dtype):
    raises_like_torch(lambda m: getattr(m.nn.init, fill)(m.zeros(3, 3, dtype=getattr(m, dtype))),
                      NotImplementedError, dtype)


@pytest.mark.parametrize("method", ["uniform_", "normal_"])
def test_tensor_random_fills_of_integer_tensors_are_not_implemented_as_in_torch(method):
    raises_like_torch(lambda m: getattr(m.zeros(3, dtype=m.int64), method)(), NotImplementedError, "int64",
                      "[3]")


# --- losses: dtypes of weights and probability targets ---------------------------------------------

@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("input_dtype, weight_dtype", [("float64", "float32"), ("float32", "float64")])
def test_class_weights_of_another_dtype_raise_like_torch(loss, input_dtype, weight_dtype):
    def call(m):
        logits = m.tensor(numpy.zeros((2, 3)), dtype=getattr(m, input_dtype))
        return getattr(m.nn.functional, loss)(logits, m.tensor([0, 2]),
                                              weight=m.ones(3, dtype=getattr(m, weight_dtype)))

    raises_like_torch(call, RuntimeError, f"expected scalar type {input_dtype} but found {weight_dtype}")


@pytest.mark.parametrize("input_dtype, target_dtype, weight_dtype", [
    ("float32", "float64", None), ("float64", "float32", None), ("float32", "float32", "float64"),
    ("float64", "float64", "float32"), ("float32", "float64", "float32"),
])
def test_probability_targets_promote_like_torch(input_dtype, target_dtype, weight_dtype):
    """PyTorch computes −Σ w q log_softmax(x) with type promotion: a float64 operand gives a float64 loss."""
    torch = require_torch()
    rng = numpy.random.default_rng(1)
    logits, target, weight = rng.standard_normal((3, 4)), rng.dirichlet(numpy.ones(4), 3), rng.random(4)
    results = []
    for lib in (mg, torch):
        x = lib.tensor(logits.astype(input_dtype), requires_grad=True)
        q = lib.tensor(target.astype(target_dtype), requires_grad=True)
        w = None if weight_dtype is None else lib.tensor(weight.astype(weight_dtype))
        loss = lib.nn.functional.cross_entropy(x, q, weight=w, label_smoothing=0.1)
        loss.backward()
        results.append([loss, x.grad, q.grad])
    for what, ours, theirs in zip(["loss", "input grad", "target grad"], *results):
        assert ours.dtype.name == str(theirs.dtype).removeprefix("torch."), what
        numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_takes_torchs_weight(reduction):
    torch = require_torch()
    rng = numpy.random.default_rng(2)
    x, y, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.random((3, 4))
    results = []
    for lib in (mg, torch):
        inputs, weights = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        loss = lib.nn.functional.mse_loss(inputs, lib.tensor(y), reduction=reduction, weight=weights)
        loss.sum().backward()
        results.append([loss, inputs.grad, weights.grad])
    for ours, theirs in zip(*results):
        assert tuple(ours.shape) == tuple(theirs.shape)
        numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-12)


@pytest.mark.parametrize("input_shape, target_shape, weight_shape, error", [
    ((3, 4), (3, 4), (4,), ValueError),      # the weight must have the input's shape, not broadcast to it
    ((1, 4), (3, 4), (3, 4), ValueError),
    ((3, 4), (5,), (4,), RuntimeError),      # input and target that do not broadcast fail first
])
def test_mse_loss_weight_errors_match_torch(input_shape, target_shape, weight_shape, error):
    def call(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the different target size warns before failing
            return m.nn.functional.mse_loss(m.ones(*input_shape), m.zeros(*target_shape),
                                            weight=m.ones(*weight_shape))

    fragments = [str(list(weight_shape))] if error is ValueError else []
    raises_like_torch(call, error, *fragments)


def test_mse_loss_weight_with_a_broadcast_target_matches_torch():
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.functional.mse_loss(lib.arange(6.0).reshape(2, 3), lib.tensor([1.0, 0.0, 2.0]),
                                              weight=lib.tensor([[1.0, 2.0, 0.0], [0.5, 0.0, 1.0]]))
        results.append((loss.item(), [w.category for w in caught]))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-6)
    assert results[0][1] == results[1][1] == [UserWarning]
