"""BackwardStepper: stepping one node at a time gives plain backward's gradients, in a valid
order, and a gradient changed between steps flows into every later step."""

from __future__ import annotations

import numpy as np
import pytest
from teaching_graphs import all_nodes, cnn_arrays, cnn_loss, leaves, mlp_arrays, mlp_loss

import minigrad as mg
from minigrad.autograd import BackwardStep, BackwardStepper, Function
from minigrad.autograd.function import AccumulateGrad


def grads_by_plain_backward(make_loss, arrays: dict) -> dict:
    p = leaves(arrays)
    make_loss(p).backward()
    return {name: t.grad.numpy() for name, t in p.items()}


def grads_by_stepping(make_loss, arrays: dict) -> tuple:
    p = leaves(arrays)
    stepper = BackwardStepper(make_loss(p), params=p)
    steps = [stepper.step() for _ in range(3)]  # a few by hand, then the rest
    steps += stepper.run()
    return {name: t.grad.numpy() for name, t in p.items()}, steps, stepper


@pytest.mark.parametrize("make_loss, make_arrays", [(mlp_loss, mlp_arrays), (cnn_loss, cnn_arrays)],
                         ids=["mlp", "cnn"])
def test_stepping_gives_the_gradients_of_plain_backward(make_loss, make_arrays):
    arrays = make_arrays()
    expected = grads_by_plain_backward(make_loss, arrays)
    got, steps, stepper = grads_by_stepping(make_loss, arrays)
    assert stepper.done
    for name in arrays:
        np.testing.assert_array_equal(got[name], expected[name])
    leaf_steps = {s.variable_name: s for s in steps if s.is_leaf}
    assert set(leaf_steps) == set(arrays)
    for name, step in leaf_steps.items():
        assert step.name == "AccumulateGrad"
        np.testing.assert_array_equal(step.grad.numpy(), expected[name])


def test_mlp_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    arrays = mlp_arrays()
    got, _, _ = grads_by_stepping(mlp_loss, arrays)
    rng = np.random.default_rng(1)
    x, target = torch.tensor(rng.normal(size=(6, 4))), torch.tensor(rng.integers(0, 3, size=6))
    p = {name: torch.tensor(a, requires_grad=True) for name, a in arrays.items()}
    h = torch.nn.functional.linear(x, p["fc1.weight"], p["fc1.bias"]).relu()
    logits = torch.nn.functional.linear(h, p["fc2.weight"], p["fc2.bias"])
    torch.nn.functional.cross_entropy(logits, target).backward()
    for name in arrays:
        np.testing.assert_allclose(got[name], p[name].grad.numpy(), rtol=1e-10, atol=1e-12)


def branching_leaves():
    rng = np.random.default_rng(3)
    a = mg.tensor(rng.normal(size=(3, 1)), requires_grad=True)
    b = mg.tensor(rng.normal(size=4), requires_grad=True)
    return a, b


def branching_loss(a, b):
    """u = a * b broadcast to (3, 4), used twice: loss = Σ (u + u·u)."""
    u = a * b
    return (u + u * u).sum()


def test_branches_and_broadcasting_give_the_hand_derived_gradients():
    a, b = branching_leaves()
    stepper = BackwardStepper(branching_loss(a, b))
    stepper.run()
    an, bn = a.numpy(force=True), b.numpy(force=True)
    dl_du = 1 + 2 * an * bn                                       # (3, 4)
    np.testing.assert_allclose(a.grad.numpy(), (dl_du * bn).sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), (dl_du * an).sum(0), rtol=1e-12)
    a2, b2 = branching_leaves()
    branching_loss(a2, b2).backward()
    np.testing.assert_array_equal(a.grad.numpy(), a2.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), b2.grad.numpy())


@pytest.mark.parametrize("build", ["branching", "cnn"])
def test_steps_come_in_a_valid_reverse_topological_order(build):
    if build == "branching":
        loss = branching_loss(*branching_leaves())
    else:
        loss = cnn_loss(leaves(cnn_arrays()))
    nodes = all_nodes(loss)
    consumers = {id(n): [] for n in nodes}
    for node in nodes:
        for child, _ in node.next_functions:
            if child is not None:
                consumers[id(child)].append(node)
    steps = BackwardStepper(loss).run()
    assert sorted(id(s.node) for s in steps) == sorted(id(n) for n in nodes)  # each node exactly once
    position = {id(s.node): k for k, s in enumerate(steps)}
    for node in nodes:
        for consumer in consumers[id(node)]:
            assert position[id(consumer)] < position[id(node)], (consumer.name(), node.name())
    assert [s.index for s in steps] == list(range(len(steps)))


def test_a_record_shows_what_the_node_received_and_sent():
    x_np = np.arange(6.0).reshape(2, 3)
    w = mg.tensor(np.arange(6.0).reshape(3, 2) / 10, requires_grad=True)
    y = mg.tensor(x_np) @ w                    # (2, 2)
    loss = (y * 3).sum()
    stepper = BackwardStepper(loss, params={"w": w})
    first = stepper.step()
    assert isinstance(first, BackwardStep) and first.name == "SumBackward0"
    assert first.output_shapes == ((),) and first.input_shapes[0] == (2, 2)
    assert all(shape is None for shape in first.input_shapes[1:])     # dim, keepdim: no gradient
    np.testing.assert_array_equal(first.grad_output.numpy(), 1.0)
    np.testing.assert_array_equal(first.grad_inputs[0].numpy(), np.ones((2, 2)))
    mul = stepper.step()
    assert mul.name == "MulBackward0"
    np.testing.assert_array_equal(mul.grad_inputs[0].numpy(), np.full((2, 2), 3.0))
    matmul = stepper.step()
    assert matmul.name == "MmBackward0"
    assert matmul.input_shapes == (None, (3, 2)) and matmul.output_shape == (2, 2)
    assert matmul.grad_inputs[0] is None
    np.testing.assert_allclose(matmul.grad_inputs[1].numpy(), x_np.T @ np.full((2, 2), 3.0))
    leaf = stepper.step()
    assert leaf.is_leaf and leaf.variable is w and leaf.variable_name == "w"
    assert leaf.label == "AccumulateGrad (w)" and leaf.grad_inputs == ()
    np.testing.assert_allclose(leaf.grad.numpy(), x_np.T @ np.full((2, 2), 3.0))
    assert stepper.done and stepper.next_node is None
    with pytest.raises(RuntimeError, match="finished"):
        stepper.step()
    assert "MmBackward0" in repr(matmul) and "input 1" in repr(matmul)


def test_changing_the_gradient_before_a_node_changes_every_later_step():
    x_np = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    w = mg.tensor(np.ones((3, 2)), requires_grad=True)
    loss = ((mg.tensor(x_np) @ w) * 3).sum()
    stepper = BackwardStepper(loss)
    node = stepper.run_until("Mm")
    assert node.name() == "MmBackward0" and stepper.next_node is node
    pending = stepper.pending_gradient()
    np.testing.assert_array_equal(pending.numpy(), np.full((2, 2), 3.0))
    pending.array[...] = 0.0                                    # a copy: changing it changes nothing
    np.testing.assert_array_equal(stepper.pending_gradient().numpy(), np.full((2, 2), 3.0))
    new_delta = np.array([[1.0, -2.0], [0.0, 4.0]])
    stepper.set_gradient(mg.tensor(new_delta))
    step = stepper.step()
    np.testing.assert_array_equal(step.grad_output.numpy(), new_delta)
    stepper.run()
    np.testing.assert_allclose(w.grad.numpy(), x_np.T @ new_delta)  # dW = xᵀ δ with the new δ


def test_a_gradient_set_for_a_later_node_is_added_to_what_still_arrives():
    a = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    u = a * 1.0                                   # u feeds two branches
    loss = (u * 2.0).sum() + (u * 5.0).sum()
    stepper = BackwardStepper(loss)
    u_node = u.grad_fn
    assert stepper.pending_gradient(u_node) is None              # nothing has arrived yet
    stepper.run_to("Sum")
    stepper.run_to("Mul")                                        # one branch done: its δ arrived
    first = stepper.pending_gradient(u_node).numpy().copy()
    assert first.tolist() in ([2.0, 2.0], [5.0, 5.0])
    stepper.set_gradient(mg.tensor(np.array([100.0, 0.0])), node=u_node)
    stepper.run()
    other = 7.0 - first                                          # the branch that had not run yet
    np.testing.assert_allclose(a.grad.numpy(), (np.array([100.0, 0.0]) + other) * 1.0)


def test_set_gradient_refuses_a_wrong_shape_and_a_node_that_already_ran():
    w = mg.tensor(np.ones(3), requires_grad=True)
    loss = (w.exp() * 2).sum()
    stepper = BackwardStepper(loss)
    with pytest.raises(RuntimeError, match=r"shape \[\]"):
        stepper.set_gradient(mg.ones(2))
    ran = stepper.step().node
    with pytest.raises(RuntimeError, match="already run"):
        stepper.set_gradient(mg.tensor(1.0), node=ran)
    with pytest.raises(TypeError):
        stepper.set_gradient(np.ones(3))


def test_run_to_stops_on_the_matching_node_and_run_until_just_before_it():
    stepper = BackwardStepper(mlp_loss(p := leaves(mlp_arrays())), params=p)
    step = stepper.run_to("Addmm")
    assert step.name == "AddmmBackward0" and stepper.steps[-1] is step
    assert not any(s.name.startswith("Addmm") for s in stepper.steps[:-1])
    assert [s.name for s in stepper.steps] == ["NegBackward0", "MeanBackward0", "IndexBackward0",
                                                "LogSoftmaxBackward0", "AddmmBackward0"]
    before = len(stepper.steps)
    node = stepper.run_until("fc2.weight")               # a parameter's name finds its leaf
    assert isinstance(node, AccumulateGrad) and node.variable is p["fc2.weight"]
    assert len(stepper.steps) >= before and stepper.next_node is node
    assert p["fc2.weight"].grad is None                   # its AccumulateGrad has not run yet
    assert stepper.run_to(node).variable_name == "fc2.weight"
    with pytest.raises(ValueError, match="no node matching 'Convolution'"):
        stepper.run_to("Convolution")
    assert not stepper.done                                # refused without stepping


def test_run_to_matches_prefixes_function_classes_and_predicates():
    a = mg.tensor(np.ones((2, 2)), requires_grad=True)
    loss = ((a @ a) * a).sum()
    stepper = BackwardStepper(loss)
    assert stepper.run_to("Mul").name == "MulBackward0"            # a prefix: not MmBackward0
    from minigrad.ops.matmul import MatMul
    assert stepper.run_to(MatMul).name == "MmBackward0"  # a subclass of MatMul
    assert stepper.run_to(lambda node: isinstance(node, AccumulateGrad)).is_leaf
    with pytest.raises(TypeError):
        BackwardStepper((a * 2).sum()).run_to(3)


def test_cnn_run_to_the_convolution_sees_its_delta():
    p = leaves(cnn_arrays())
    stepper = BackwardStepper(cnn_loss(p), params=p)
    step = stepper.run_to("Convolution")
    assert step.name == "ConvolutionBackward0"
    assert step.output_shape == (2, 4, 2, 2) and step.grad_output.shape == (2, 4, 2, 2)
    assert step.input_shapes[:3] == ((2, 3, 4, 4), (4, 3, 3, 3), (4,))   # input, weight, bias
    # db = Σ δ over batch and positions: the conv's bias gradient, computed here from δ
    np.testing.assert_allclose(step.grad_inputs[2].numpy(), step.grad_output.numpy().sum(axis=(0, 2, 3)))


class Cube(Function):
    """A user's Function: y = x³, dy/dx = 3x²."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return mg.Tensor(x.array ** 3)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return mg.Tensor(3 * x.array ** 2 * grad.array)


def test_a_user_function_is_stepped_like_a_built_in_one():
    x_np = np.array([1.0, -2.0, 0.5])
    x = mg.tensor(x_np, requires_grad=True)
    loss = (Cube.apply(x) * mg.tensor([1.0, 2.0, 3.0])).sum()
    stepper = BackwardStepper(loss, params={"x": x})
    cube = stepper.run_to(Cube)
    assert cube.name == "CubeBackward"
    np.testing.assert_allclose(cube.grad_output.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(cube.grad_inputs[0].numpy(), 3 * x_np ** 2 * [1.0, 2.0, 3.0])
    stepper.run()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x_np ** 2 * [1.0, 2.0, 3.0])
    assert "CubeBackward" in stepper.table()


def test_the_table_mentions_every_step():
    p = leaves(mlp_arrays())
    stepper = BackwardStepper(mlp_loss(p), params=p)
    stepper.step()
    assert "(next: MeanBackward0)" in stepper.table()
    stepper.run()
    lines = str(stepper).splitlines()
    assert len(lines) == 1 + len(stepper.steps)
    for line, step in zip(lines[1:], stepper.steps):
        assert line.split()[0] == str(step.index) and step.label in line
    for name in p:
        assert f"AccumulateGrad ({name})" in stepper.table()
    norm = np.linalg.norm(p["fc1.weight"].grad.numpy())
    assert f"{norm:.4g}" in lines[-1] or f"{norm:.4g}" in stepper.table()
    assert "<table>" in stepper._repr_html_() and "AddmmBackward0" in stepper._repr_html_()
    assert "done" in repr(stepper)


def test_gradient_and_retain_graph_are_passed_on():
    a = mg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = a * a
    with pytest.raises(RuntimeError, match="scalar outputs"):
        BackwardStepper(y)
    BackwardStepper(y, gradient=mg.tensor([1.0, 0.0, -1.0]), retain_graph=True).run()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.array([1.0, 0.0, -3.0]))
    y.backward(mg.tensor([1.0, 1.0, 1.0]))                      # the graph was retained
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.array([1.0, 0.0, -3.0]) + 2 * np.array([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward(mg.tensor([1.0, 1.0, 1.0]))


def test_multi_output_nodes_report_their_output_shapes():
    a = mg.tensor(np.array([[1.0, 5.0], [7.0, 2.0], [0.0, 3.0]]), requires_grad=True)
    values, _ = a.max(1)
    stepper = BackwardStepper(values.sum())
    step = stepper.run_to("SelectAlong")
    assert step.output_shapes[0] == (3,)
    stepper.run()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 1], [1, 0], [0, 1]])


def test_stepping_works_on_the_cupy_standin():
    standin_cupy = pytest.importorskip("standin_cupy")
    standin_cupy.install()
    try:
        x = mg.tensor(np.array([[1.0, 2.0], [3.0, 4.0]]), device="cuda", requires_grad=True)
        stepper = BackwardStepper((x * x).sum())
        stepper.run_until("Mul")
        stepper.set_gradient(mg.tensor(np.array([[1.0, 0.0], [0.0, 1.0]]), device="cuda"))
        stepper.run()
        assert "MulBackward0" in stepper.table()
        np.testing.assert_allclose(x.grad.cpu().numpy(), [[2.0, 0.0], [0.0, 8.0]])
        with pytest.raises(RuntimeError, match="on cpu"):
            other = BackwardStepper((x * 3).sum())
            other.set_gradient(mg.tensor(1.0))
    finally:
        standin_cupy.uninstall()
