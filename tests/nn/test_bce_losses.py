"""Binary cross-entropy, with logits and with probabilities, against PyTorch: values and every input's
gradient over shapes, weights, pos_weights and reductions; extreme logits and exact 0/1 probabilities;
gradcheck; PyTorch's errors; the modules' repr and state_dict; the autograd tutorial's lines.

PyTorch refuses ``weight`` and ``pos_weight`` that require grad; minigrad differentiates them, so their
gradients are compared with PyTorch's autograd through the same formula written out in ordinary ops.
"""

import warnings

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

from .helpers import host
from .test_audit_docstrings import assert_alike, docstring_examples, run_example

SHAPES = {"N": (6,), "NC": (5, 4), "NCHW": (2, 3, 4, 5), "batch-1": (1, 4)}
REDUCTIONS = ("mean", "sum", "none")
RTOL, ATOL = 1e-10, 1e-12


def _arrays(shape, seed, weight_shape=None, pos_shape=None, logits=True):
    """Seeded float64 input, target, weight (or None), pos_weight (or None)."""
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape) * 3 if logits else rng.uniform(0.02, 0.98, shape)
    y = rng.uniform(0, 1, shape)
    y[..., :1] = rng.integers(0, 2, y[..., :1].shape)  # some hard 0/1 labels as well
    w = None if weight_shape is None else rng.uniform(0.2, 2.0, weight_shape)
    p = None if pos_shape is None else rng.uniform(0.2, 3.0, pos_shape)
    return x, y, w, p


def _leaves(lib, arrays, dtype="float64"):
    """One leaf per array (None stays None), all requiring grad."""
    return [None if a is None else lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]


def _backward(out, seed):
    """Backpropagate a seeded random weighting of ``out`` (so 'none' checks every element's gradient)."""
    weights = numpy.random.default_rng(seed).standard_normal(tuple(out.shape))
    lib = mg if isinstance(out, mg.Tensor) else require_torch()
    (out * lib.tensor(weights, dtype=out.dtype)).sum().backward()


def _assert_close(ours, theirs, what, rtol=RTOL, atol=ATOL):
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {ours.shape} vs {theirs.shape}"
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch."), \
        f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=rtol, atol=atol, err_msg=what)


def _torch_logits_reference(torch, x, y, w, p, reduction):
    """The formula in ordinary ops (differentiable in w, p): w·[(1 − y)x + (1 + (p − 1)y)·softplus(−x)]."""
    loss = (1 - y) * x + (1 if p is None else 1 + (p - 1) * y) * torch.nn.functional.softplus(-x)
    loss = loss if w is None else loss * w
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]


def _torch_bce_reference(torch, x, y, w, reduction):
    """−w·[y·max(log x, −100) + (1 − y)·max(log(1 − x), −100)] in ordinary ops (differentiable in w)."""
    loss = -(y * torch.log(x).clamp(min=-100) + (1 - y) * torch.log1p(-x).clamp(min=-100))
    loss = loss if w is None else loss * w
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]


# --- binary_cross_entropy_with_logits: values and gradients against PyTorch -----------------------------

def _weight_shapes(shape):
    """No weight, one per element, one per last-dim entry, and one broadcast over the batch."""
    return [None, shape, shape[-1:], (1,) * (len(shape) - 1) + shape[-1:]]


LOGITS_CASES = [(name, shape, w, p, reduction)
                for name, shape in SHAPES.items()
                for w in (None, shape[-1:])
                for p in _weight_shapes(shape)[:3]
                for reduction in REDUCTIONS]


@pytest.mark.parametrize("name, shape, weight_shape, pos_shape, reduction", LOGITS_CASES,
                         ids=[f"{c[0]}-w{c[2]}-p{c[3]}-{c[4]}" for c in LOGITS_CASES])
def test_with_logits_matches_torch(name, shape, weight_shape, pos_shape, reduction):
    seed = LOGITS_CASES.index((name, shape, weight_shape, pos_shape, reduction))
    arrays = _arrays(shape, seed, weight_shape, pos_shape)

    def torch_answer(torch):
        tx, ty, tw, tp = _leaves(torch, arrays)
        constant = [None if t is None else t.detach() for t in (tw, tp)]  # PyTorch refuses them with grad
        loss = torch.nn.functional.binary_cross_entropy_with_logits(tx, ty, constant[0], reduction=reduction,
                                                                   pos_weight=constant[1])
        _backward(loss, seed)
        answer = {"loss": loss, "node": loss.grad_fn.name(), "x": tx.grad, "y": ty.grad}
        tx.grad = ty.grad = None  # the formula's backward below gives them fresh gradients
        if tw is not None or tp is not None:  # the same loss in ordinary ops, differentiable in w and p
            formula = _torch_logits_reference(torch, tx, ty, tw, tp, reduction)
            _backward(formula, seed)
            answer.update(formula=formula, w=None if tw is None else tw.grad,
                          p=None if tp is None else tp.grad)
        return answer

    theirs = reference(torch_answer, {"arrays": [a for a in arrays if a is not None]})
    x, y, w, p = _leaves(mg, arrays)
    out = F.binary_cross_entropy_with_logits(x, y, weight=w, reduction=reduction, pos_weight=p)
    _assert_close(out, theirs["loss"], "loss")
    assert out.grad_fn.name() == theirs["node"] == "BinaryCrossEntropyWithLogitsBackward0"
    _backward(out, seed)
    _assert_close(x.grad, theirs["x"], "input's gradient")
    _assert_close(y.grad, theirs["y"], "target's gradient")
    if w is not None or p is not None:
        _assert_close(out, theirs["formula"], "loss against the formula")
        for ours, what in ((w, "w"), (p, "p")):
            if ours is not None:
                _assert_close(ours.grad, theirs[what], f"{what}'s gradient")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_with_logits_float32_matches_torch(reduction):
    torch = require_torch()
    arrays = _arrays((4, 3), 1, (3,), (3,))
    x, y, w, p = _leaves(mg, arrays, "float32")
    tx, ty, tw, tp = _leaves(torch, arrays, "float32")
    out = F.binary_cross_entropy_with_logits(x, y, w.detach(), reduction=reduction, pos_weight=p.detach())
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(tx, ty, tw.detach(), reduction=reduction,
                                                                   pos_weight=tp.detach())
    _assert_close(out, theirs, "loss", rtol=1e-5, atol=1e-6)
    _backward(out, 2)
    _backward(theirs, 2)
    _assert_close(x.grad, tx.grad, "input's gradient", rtol=1e-5, atol=1e-6)
    _assert_close(y.grad, ty.grad, "target's gradient", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pos_weight", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_with_logits_is_stable_for_huge_logits(dtype, pos_weight):
    """|x| = 1000 (and 100, past float32's exp range) gives PyTorch's finite values, and NumPy no warning."""
    torch = require_torch()
    x = numpy.array([1000.0, -1000.0, 1000.0, -1000.0, 100.0, -100.0, -120.0, 0.0, 30.0, -30.0])
    y = numpy.array([1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.3, 0.7])
    p = numpy.array([2.5]) if pos_weight else None
    x_ours, y_ours = _leaves(mg, [x, y], dtype)
    x_theirs, y_theirs = _leaves(torch, [x, y], dtype)
    with warnings.catch_warnings(), numpy.errstate(over="raise", divide="raise", invalid="raise"):
        warnings.simplefilter("error")
        out = F.binary_cross_entropy_with_logits(x_ours, y_ours, reduction="none",
                                                 pos_weight=None if p is None else mg.tensor(p.astype(dtype)))
        _backward(out, 3)
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(
        x_theirs, y_theirs, reduction="none", pos_weight=None if p is None else torch.tensor(p.astype(dtype)))
    _backward(theirs, 3)
    assert numpy.isfinite(host(out)).all() and numpy.isfinite(host(x_ours.grad)).all()
    rtol, atol = (RTOL, ATOL) if dtype == "float64" else (1e-6, 1e-5)
    _assert_close(out, theirs, "loss", rtol, atol)
    _assert_close(x_ours.grad, x_theirs.grad, "input's gradient", rtol, atol)
    _assert_close(y_ours.grad, y_theirs.grad, "target's gradient", rtol, atol)


def test_with_logits_gradient_at_zero_is_a_half():
    """PyTorch's test_bce_with_logits_has_correct_grad_at_zero (with and without pos_weight)."""
    for pos_weight in (None, mg.ones(3, 1)):
        x = mg.zeros(3, 1, requires_grad=True)
        nn.BCEWithLogitsLoss(pos_weight=pos_weight, reduction="sum")(x, mg.zeros(3, 1)).backward()
        numpy.testing.assert_array_equal(host(x.grad), numpy.full((3, 1), 0.5, dtype=numpy.float32))


def test_with_logits_equals_bce_of_sigmoid():
    rng = numpy.random.default_rng(4)
    x, y, w = rng.uniform(-3, 3, (64, 4)), rng.uniform(0, 1, (64, 4)), rng.uniform(0, 1, (4,))
    for weight in (None, mg.tensor(w)):
        logits, sig = mg.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
        with_logits = nn.BCEWithLogitsLoss(weight)(logits, mg.tensor(y))
        of_sigmoid = nn.BCELoss(weight)(mg.sigmoid(sig), mg.tensor(y))
        numpy.testing.assert_allclose(with_logits.item(), of_sigmoid.item(), rtol=1e-12)
        with_logits.backward()
        of_sigmoid.backward()
        numpy.testing.assert_allclose(host(logits.grad), host(sig.grad), rtol=1e-9, atol=1e-15)


def test_with_logits_gradcheck():
    x, y, w, p = _leaves(mg, _arrays((3, 4), 5, (4,), (4,)))
    for reduction in REDUCTIONS:
        def loss(x, y, w, p, r=reduction):
            return F.binary_cross_entropy_with_logits(x, y, w, reduction=r, pos_weight=p)
        assert mg.autograd.gradcheck(loss, (x, y, w, p))
    assert mg.autograd.gradcheck(lambda x, y: F.binary_cross_entropy_with_logits(x, y), (x, y))


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float32", "float32")])
def test_with_logits_mixed_dtypes_as_torch(dtypes):
    """The loss has the target's dtype (PyTorch computes 1 - target, then works in place in it)."""
    torch = require_torch()
    x, y, w, p = _arrays((3, 2), 6, (2,), (2,))
    ours = F.binary_cross_entropy_with_logits(mg.tensor(x.astype(dtypes[0])), mg.tensor(y.astype(dtypes[1])),
                                              mg.tensor(w), pos_weight=mg.tensor(p), reduction="none")
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.tensor(x.astype(dtypes[0])), torch.tensor(y.astype(dtypes[1])), torch.tensor(w),
        pos_weight=torch.tensor(p), reduction="none")
    _assert_close(ours, theirs, "loss", rtol=1e-6, atol=1e-6)


# --- binary_cross_entropy ---------------------------------------------------------------------------

BCE_CASES = [(name, shape, w, reduction)
             for name, shape in SHAPES.items()
             for w in _weight_shapes(shape)
             for reduction in REDUCTIONS]


@pytest.mark.parametrize("name, shape, weight_shape, reduction", BCE_CASES,
                         ids=[f"{c[0]}-w{c[2]}-{c[3]}" for c in BCE_CASES])
def test_bce_matches_torch(name, shape, weight_shape, reduction):
    seed = BCE_CASES.index((name, shape, weight_shape, reduction))
    arrays = _arrays(shape, seed, weight_shape, logits=False)[:3]

    def torch_answer(torch):
        tx, ty, tw = _leaves(torch, arrays)
        loss = torch.nn.functional.binary_cross_entropy(tx, ty, None if tw is None else tw.detach(),
                                                        reduction=reduction)
        _backward(loss, seed)
        answer = {"loss": loss, "node": loss.grad_fn.name(), "x": tx.grad, "y": ty.grad}
        tx.grad = ty.grad = None  # the formula's backward below gives them fresh gradients
        if tw is not None:  # the same loss in ordinary ops, differentiable in w
            formula = _torch_bce_reference(torch, tx, ty, tw, reduction)
            _backward(formula, seed)
            answer.update(formula=formula, w=tw.grad)
        return answer

    theirs = reference(torch_answer, {"arrays": [a for a in arrays if a is not None]})
    x, y, w = _leaves(mg, arrays)
    out = F.binary_cross_entropy(x, y, w, reduction=reduction)
    _assert_close(out, theirs["loss"], "loss")
    assert out.grad_fn.name() == theirs["node"] == "BinaryCrossEntropyBackward0"
    _backward(out, seed)
    _assert_close(x.grad, theirs["x"], "input's gradient")
    _assert_close(y.grad, theirs["y"], "target's gradient")
    if w is not None:
        _assert_close(out, theirs["formula"], "loss against the formula")
        _assert_close(w.grad, theirs["w"], "weight's gradient")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_at_exact_zero_and_one_as_torch(reduction):
    """log 0 is clamped to −100; the input's gradient divides by max(x(1 − x), 1e-12); logit(0/1) = ∓inf."""
    torch = require_torch()
    x = numpy.array([0.0, 1.0, 0.0, 1.0, 0.5, 1e-300, 1 - 1e-16])
    y = numpy.array([0.0, 1.0, 1.0, 0.0, 0.3, 1.0, 0.0])
    w = numpy.array([1.0, 2.0, 3.0, 4.0, 5.0, 0.5, 1.5])
    for dtype in ("float64", "float32"):
        x_ours, y_ours, w_ours = _leaves(mg, [x, y, w], dtype)
        x_theirs, y_theirs = _leaves(torch, [x, y], dtype)
        with warnings.catch_warnings(), numpy.errstate(over="raise", divide="raise", invalid="raise"):
            warnings.simplefilter("error")
            out = F.binary_cross_entropy(x_ours, y_ours, w_ours.detach(), reduction=reduction)
            _backward(out, 7)
        theirs = torch.nn.functional.binary_cross_entropy(x_theirs, y_theirs, torch.tensor(w.astype(dtype)),
                                                          reduction=reduction)
        _backward(theirs, 7)
        assert numpy.isfinite(host(out)).all()
        _assert_close(out, theirs, f"loss ({dtype})", rtol=1e-6)
        _assert_close(x_ours.grad, x_theirs.grad, f"input's gradient ({dtype})", rtol=1e-6)
        _assert_close(y_ours.grad, y_theirs.grad, f"target's gradient ({dtype})", rtol=1e-6)


def test_bce_gradcheck():
    """Soft targets inside (0, 1): finite differences step the target too, and it must stay in [0, 1]."""
    rng = numpy.random.default_rng(8)
    x, y, w = _leaves(mg, [rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0.05, 0.95, (3, 4)),
                           rng.uniform(0.5, 2.0, (4,))])
    for reduction in REDUCTIONS:
        def loss(x, y, w, r=reduction):
            return F.binary_cross_entropy(x, y, w, reduction=r)
        assert mg.autograd.gradcheck(loss, (x, y, w))


def test_bce_is_never_negative():
    """PyTorch's test_bce_loss_always_nonnegative: all-ones and all-zeros inputs give a loss of 0."""
    for fill in (mg.ones, mg.zeros):
        assert nn.BCELoss()(fill(5), fill(5)).item() == 0.0


@pytest.mark.parametrize("loss", [F.binary_cross_entropy, F.binary_cross_entropy_with_logits])
def test_mean_of_no_elements_is_nan_without_warnings(loss):
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = loss(mg.zeros(0), mg.zeros(0))
    theirs = getattr(torch.nn.functional, loss.__name__)(torch.zeros(0), torch.zeros(0))
    assert numpy.isnan(ours.item()) and numpy.isnan(theirs.item())
    assert loss(mg.zeros(0), mg.zeros(0), reduction="sum").item() == 0.0


def test_legacy_size_average_and_reduce():
    rng = numpy.random.default_rng(9)
    x, y = mg.tensor(rng.uniform(0.1, 0.9, (3, 2))), mg.tensor(rng.uniform(0, 1, (3, 2)))
    for loss in (F.binary_cross_entropy, F.binary_cross_entropy_with_logits):
        with pytest.warns(UserWarning, match="reduction"):
            summed = loss(x, y, size_average=False)
        assert summed.item() == pytest.approx(loss(x, y, reduction="sum").item(), rel=1e-12)
        with pytest.warns(UserWarning):
            assert loss(x, y, reduce=False).shape == (3, 2)
    with pytest.warns(UserWarning):
        assert nn.BCEWithLogitsLoss(reduce=False).reduction == "none"
    with pytest.warns(UserWarning):
        assert nn.BCELoss(size_average=False).reduction == "sum"


# --- PyTorch's errors -----------------------------------------------------------------------------

def _logits(m, x_shape=(4, 3), y_shape=(4, 3), x_dtype="float32", y_dtype="float32", **options):
    x = m.zeros(x_shape, dtype=getattr(m, x_dtype))
    y = m.zeros(y_shape, dtype=getattr(m, y_dtype))
    return m.nn.functional.binary_cross_entropy_with_logits(x, y, **options)


def _bce(m, x=None, y=None, x_dtype="float32", y_dtype="float32", shape=(4, 3), **options):
    x = m.full(shape, 0.5, dtype=getattr(m, x_dtype)) if x is None else m.tensor(x)
    y = m.full(shape, 0.5, dtype=getattr(m, y_dtype)) if y is None else m.tensor(y)
    return m.nn.functional.binary_cross_entropy(x, y, **options)


@pytest.mark.parametrize("call, error, fragments", [
    (lambda m: _logits(m, y_shape=(3, 3)), ValueError, ["Target size", "[3, 3]", "[4, 3]"]),
    (lambda m: _logits(m, x_shape=(5, 1), y_shape=(5,)), ValueError, ["[5]", "[5, 1]"]),
    (lambda m: _logits(m, reduction="avg"), ValueError, ["avg is not a valid value for reduction"]),
    (lambda m: _logits(m, y_dtype="int64"), RuntimeError, ["can't be cast", "Long"]),
    (lambda m: _logits(m, y_dtype="bool"), RuntimeError, ["bool"]),
    (lambda m: _logits(m, x_dtype="int64"), NotImplementedError, ["not implemented for 'Long'"]),
    (lambda m: _logits(m, weight=m.ones(4)), RuntimeError, ["[4, 3]", "[4]"]),
    (lambda m: _logits(m, weight=m.ones(2, 4, 3)), RuntimeError, ["[4, 3]", "[2, 4, 3]"]),
    (lambda m: _logits(m, pos_weight=m.ones(4)), RuntimeError, ["[4]", "[4, 3]"]),
    (lambda m: _logits(m, pos_weight=m.ones(2, 4, 3)), RuntimeError, ["[4, 3]", "[2, 4, 3]"]),
    (lambda m: _bce(m, y=[0.5, 0.5]), ValueError, ["different to the input size", "[2]", "[4, 3]"]),
    (lambda m: _bce(m, shape=(25,), y=numpy.full((25, 1), 0.5, numpy.float32)), ValueError,
     ["Using a target size", "[25, 1]", "[25]"]),
    (lambda m: _bce(m, reduction="average"), ValueError, ["average is not a valid value for reduction"]),
    (lambda m: _bce(m, x=[0.5, 1.5], y=[0.5, 0.5]), RuntimeError, ["input should be between 0 and 1", "1.5"]),
    (lambda m: _bce(m, x=[-0.25, 0.5], y=[0.5, 0.5]), RuntimeError, ["between 0 and 1", "-0.25"]),
    (lambda m: _bce(m, x=[0.5, float("nan")], y=[0.5, 0.5]), RuntimeError, ["input should be between 0 and"]),
    (lambda m: _bce(m, x=[0.5, 0.5], y=[0.5, 2.0]), RuntimeError, ["target should be between 0 and 1", "2."]),
    (lambda m: _bce(m, y_dtype="float64"), RuntimeError, ["Found dtype Double but expected Float"]),
    (lambda m: _bce(m, x_dtype="float64"), RuntimeError, ["Found dtype Float but expected Double"]),
    (lambda m: _bce(m, y_dtype="int64"), RuntimeError, ["Found dtype Long but expected Float"]),
    (lambda m: _bce(m, x_dtype="int64", y_dtype="int64"), NotImplementedError, ["implemented for 'Long'"]),
    (lambda m: _bce(m, weight=m.ones(4)), RuntimeError, ["[4]", "[4, 3]"]),
    (lambda m: _bce(m, weight=m.ones(2, 4, 3)), RuntimeError, ["[4, 3]", "[2, 4, 3]"]),
    (lambda m: m.nn.BCELoss(reduction="mean_of_all")(m.zeros(2), m.zeros(2)), ValueError,
     ["mean_of_all is not a valid value"]),
    (lambda m: m.nn.BCEWithLogitsLoss(reduction="x")(m.zeros(2), m.zeros(2)), ValueError, ["x is not a"]),
])
def test_errors_as_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_weight_and_pos_weight_broadcast_as_torch():
    """PyTorch's test_bce_*_broadcasts_weights: a weight (C,) or (N, 1) equals its expanded copy."""
    rng = numpy.random.default_rng(10)
    x, y = mg.tensor(rng.uniform(-0.5, 0.5, (16, 4))), mg.tensor(rng.uniform(0, 1, (16, 4)))
    for small in (mg.tensor(rng.uniform(0, 1, (4,))), mg.tensor(rng.uniform(0, 1, (16, 1)))):
        full = small.expand(16, 4)
        assert nn.BCEWithLogitsLoss(small)(x, y).item() == pytest.approx(
            nn.BCEWithLogitsLoss(full)(x, y).item())
        assert nn.BCELoss(small)(mg.sigmoid(x), y).item() == pytest.approx(
            nn.BCELoss(full)(mg.sigmoid(x), y).item())
    pos = mg.tensor(rng.uniform(0, 2, (4,)))
    expected = nn.BCEWithLogitsLoss(pos_weight=pos)(x, y).item()
    for expanded in (pos.expand(1, 4), pos.expand(16, 4)):
        assert nn.BCEWithLogitsLoss(pos_weight=expanded)(x, y).item() == pytest.approx(expected)
    assert nn.BCEWithLogitsLoss(pos_weight=mg.ones(16, 4))(x, y).item() == pytest.approx(
        nn.BCEWithLogitsLoss()(x, y).item())


# --- modules -------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, keys", [
    (lambda m: m.nn.BCELoss(), []),
    (lambda m: m.nn.BCELoss(weight=m.ones(3), reduction="sum"), ["weight"]),
    (lambda m: m.nn.BCEWithLogitsLoss(), []),
    (lambda m: m.nn.BCEWithLogitsLoss(pos_weight=m.ones(3)), ["pos_weight"]),
    (lambda m: m.nn.BCEWithLogitsLoss(weight=m.ones(3), pos_weight=m.ones(3), reduction="none"),
     ["weight", "pos_weight"]),
])
def test_modules_repr_and_state_dict_as_torch(make, keys):
    torch = require_torch()
    ours, theirs = make(mg), make(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == keys
    assert [name for name, _ in ours.named_buffers()] == [name for name, _ in theirs.named_buffers()]
    assert list(ours.parameters()) == []
    assert ours.reduction == theirs.reduction


def test_module_buffers_follow_to_and_load_state_dict():
    torch = require_torch()
    theirs = torch.nn.BCEWithLogitsLoss(weight=torch.tensor([1.0, 2.0]), pos_weight=torch.tensor([3.0, 0.5]))
    ours = nn.BCEWithLogitsLoss(weight=mg.zeros(2), pos_weight=mg.zeros(2))
    ours.load_state_dict({k: mg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    ours.double()
    assert ours.weight.dtype == ours.pos_weight.dtype == mg.float64
    x, y = numpy.array([[0.3, -2.0], [1.5, 0.0]]), numpy.array([[1.0, 0.0], [0.2, 1.0]])
    numpy.testing.assert_allclose(ours(mg.tensor(x), mg.tensor(y)).item(),
                                  theirs.double()(torch.tensor(x), torch.tensor(y)).item(), rtol=1e-12)


@pytest.mark.parametrize("path", ["nn.BCELoss", "nn.BCEWithLogitsLoss", "nn.functional.binary_cross_entropy",
                                  "nn.functional.binary_cross_entropy_with_logits"])
def test_pytorch_docstring_examples_run_on_minigrad(path):
    require_torch()
    for source in docstring_examples(path):
        theirs, ours = run_example(source, require_torch()), run_example(source, mg)
        for name, value in theirs.items():
            assert_alike(ours[name], value, f"{name} in\n{source}")


def test_on_the_standin_device_matches_the_cpu(cuda):
    x, y, w, p = _arrays((3, 4), 11, (4,), (4,))
    results = {}
    for device in ("cpu", cuda):
        leaves = [mg.tensor(a, device=device, requires_grad=True) for a in (x, y, w, p)]
        probs = mg.tensor(1 / (1 + numpy.exp(-x)), device=device, requires_grad=True)
        loss = (F.binary_cross_entropy_with_logits(leaves[0], leaves[1], leaves[2], pos_weight=leaves[3])
                + nn.BCELoss(weight=leaves[2])(probs, leaves[1].detach()))
        loss.backward()
        assert loss.device == mg.device(device)
        results[str(device)] = [host(loss)] + [host(t.grad) for t in leaves + [probs]]
    for ours, expected in zip(results["cuda"], results["cpu"]):
        numpy.testing.assert_allclose(ours, expected, rtol=1e-12)


# --- PyTorch's "Automatic Differentiation with torch.autograd" tutorial ------------------------------

def test_autograd_tutorial_lines_match_torch():
    torch = require_torch()
    rng = numpy.random.default_rng(12)
    w_values, b_values = rng.standard_normal((5, 3)).astype(numpy.float32), rng.standard_normal(3).astype(
        numpy.float32)
    grads = {}
    for lib in (mg, torch):
        x = lib.ones(5)  # input tensor
        y = lib.zeros(3)  # expected output
        w = lib.randn(5, 3, requires_grad=True)
        b = lib.randn(3, requires_grad=True)
        with lib.no_grad():  # the same numbers in both libraries
            w.copy_(lib.tensor(w_values))
            b.copy_(lib.tensor(b_values))
        z = lib.matmul(x, w) + b
        loss = lib.nn.functional.binary_cross_entropy_with_logits(z, y)
        assert type(z.grad_fn).__name__ == "AddBackward0"
        assert type(loss.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
        loss.backward()
        grads[lib] = (loss.item(), host(w.grad), host(b.grad))
    numpy.testing.assert_allclose(grads[mg][0], grads[torch][0], rtol=1e-6)
    numpy.testing.assert_allclose(grads[mg][1], grads[torch][1], rtol=1e-5, atol=1e-7)
    numpy.testing.assert_allclose(grads[mg][2], grads[torch][2], rtol=1e-5, atol=1e-7)
