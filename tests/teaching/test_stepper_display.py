"""What the stepper's table and records show: signed values for small gradients, a summary for
large ones, and the terms of every δ that is a sum (a tensor used twice)."""

from __future__ import annotations

import numpy as np
from teaching_graphs import leaves, mlp_arrays, mlp_loss

import minigrad as mg
from minigrad.autograd import BackwardStepper
from minigrad.autograd.stepper import SMALL, value_text


def used_twice():
    """Notebook 01's example: L = tanh(a·b + a), so a receives δ from MulBackward0 and from AddBackward0."""
    a = mg.tensor(0.8, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(-2.0, dtype=mg.float64, requires_grad=True)
    return a, b, (a * b + a).tanh()


def test_small_gradients_are_shown_with_their_sign():
    assert value_text(mg.tensor(-1.5734)) == "-1.573"
    assert value_text(mg.tensor([0.5, -2.0])) == "[0.5, -2]"
    assert value_text(mg.tensor([[1.0, -2.0], [3.0, 4.0]])) == "[[1, -2], [3, 4]]"
    assert value_text(None) == "-"


def test_large_gradients_are_shown_as_shape_norm_and_range():
    values = np.linspace(-3.0, 1.0, SMALL + 1).reshape(1, -1)
    text = value_text(mg.tensor(values))
    assert text == (f"[1, {SMALL + 1}] ‖·‖={np.linalg.norm(values):.4g} min=-3 max=1")


def test_a_leaf_used_twice_shows_both_terms_and_their_signed_sum():
    a, b, loss = used_twice()
    stepper = BackwardStepper(loss, params={"a": a, "b": b})
    stepper.run()
    da_dmul, da_dadd = (1 - loss.item() ** 2) * b.item(), 1 - loss.item() ** 2
    row = next(step for step in stepper.steps if step.variable_name == "a")
    assert [source for source, _ in row.arrivals[0]] == ["AddBackward0", "MulBackward0"]
    terms = {source: grad.item() for source, grad in row.arrivals[0]}
    np.testing.assert_allclose([terms["MulBackward0"], terms["AddBackward0"]], [da_dmul, da_dadd])
    expected = (f"{da_dadd:.4g} from AddBackward0 + {da_dmul:.4g} from MulBackward0 = "
                f"{da_dmul + da_dadd:.4g}")
    assert row.received_text() == expected
    assert da_dmul + da_dadd < 0 and f"= {a.grad.item():.4g}" in expected  # the sign is shown
    table = stepper.table()
    assert expected in table and f".grad = {a.grad.item():.4g}" in table
    assert expected in repr(row)


def test_the_table_shows_the_signed_value_the_student_derived():
    a, b, loss = used_twice()
    stepper = BackwardStepper(loss, params={"a": a, "b": b})
    stepper.step()                                   # tanh
    add = stepper.step()                             # AddBackward0 sends 1 - tanh² to both terms
    mul = stepper.step()
    dmul = 1 - loss.item() ** 2
    assert mul.name == "MulBackward0"
    assert f"[]:{dmul * b.item():.4g}" in mul.summary()[-1]   # dL/da through the product: negative
    assert f"{dmul * b.item():.4g}".startswith("-")
    assert add.summary()[3] == f"{dmul:.4g}"         # a single arrival: just the value


def test_a_gradient_set_by_hand_is_named_as_such():
    a, b, loss = used_twice()
    stepper = BackwardStepper(loss, params={"a": a, "b": b})
    stepper.run_until("MulBackward0")
    stepper.set_gradient(mg.tensor(0.0, dtype=mg.float64))
    mul = stepper.step()
    assert mul.received_text() == "0 from set_gradient = 0"
    stepper.run()
    assert b.grad.item() == 0.0                       # b is reached only through the product


def test_large_gradients_in_the_table_are_summaries():
    p = leaves(mlp_arrays())
    stepper = BackwardStepper(mlp_loss(p), params=p)
    stepper.run()
    weight = p["fc1.weight"].grad.numpy()
    row = next(step for step in stepper.steps if step.variable_name == "fc1.weight")
    assert row.summary()[-1] == (f".grad = [{weight.shape[0]}, {weight.shape[1]}] "
                                 f"‖·‖={np.linalg.norm(weight):.4g} min={weight.min():.4g} "
                                 f"max={weight.max():.4g}")
