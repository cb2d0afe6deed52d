"""Checks of exercise 8: the student's SGD, step for step, against ``minigrad.optim.SGD`` (PyTorch's rule)."""

from __future__ import annotations

import numpy

from minigrad import optim
from minigrad.exercises._grading import expect_close, expect_flag, host, leaf, running
from minigrad.exercises.checks._common import need
from minigrad.tensor import Tensor

NAMES = ("SGD",)
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("optim.SGD")
SHAPES = [(3, 4), (5,), (1, 1, 2)]
STEPS = 5


def _run(ns: dict, settings: list[dict], seed: int) -> None:
    student_sgd = need(ns, "SGD")
    for options in settings:
        rng = numpy.random.default_rng(seed)
        initial = [rng.normal(size=shape) for shape in SHAPES]
        mine, reference = [leaf(a) for a in initial], [leaf(a) for a in initial]
        optimizer, expected = student_sgd(mine, **options), optim.SGD(reference, **options)
        config_text = ", ".join(f"{k}={v}" for k, v in options.items())
        for step in range(1, STEPS + 1):
            for index, (p, q) in enumerate(zip(mine, reference)):
                # the last parameter skips step 2: a parameter without a gradient is left alone
                if index == len(mine) - 1 and step == 2:
                    p.grad = q.grad = None
                    continue
                grad = rng.normal(size=p.shape)
                p.grad, q.grad = Tensor(grad.copy()), Tensor(grad.copy())
            grads = [None if p.grad is None else host(p.grad).copy() for p in mine]
            with running(f"{config_text}, step {step}"):
                optimizer.step()
            expected.step()
            changed = any(g is not None and p.grad is not None and not numpy.array_equal(host(p.grad), g)
                          for p, g in zip(mine, grads))
            expect_flag("the gradients after step()", not changed,
                        f"step() changed p.grad in place ({config_text}, step {step}): the gradient belongs "
                        f"to backward; work on a copy (g = p.grad.add(...), not p.grad.add_(...))")
            if step == 1 and options.get("momentum"):
                expect_flag("the momentum buffer is a copy", all(_is_copy(optimizer, p) for p in mine),
                            f"the first step's momentum buffer is p.grad itself, not a copy ({config_text}): "
                            f"the next backward accumulates into p.grad in place and would change your "
                            f"buffer; store g.clone()")
            for index, (p, q) in enumerate(zip(mine, reference)):
                expect_close(f"parameter {index} after step {step}", p, q, config_text,
                             of=f"parameter {index}", rtol=1e-10, atol=1e-12)


def _is_copy(optimizer: object, p: Tensor) -> bool:
    """The momentum buffer of ``p`` (if any) shares no memory with ``p.grad``."""
    state = getattr(optimizer, "state", {})
    buffer = state.get(p, {}).get("momentum_buffer") if hasattr(state, "get") else None
    if buffer is None or p.grad is None:
        return True
    if buffer is p.grad:
        return False
    mine, grad = getattr(buffer, "_array", buffer), p.grad._array
    return not numpy.may_share_memory(mine, grad) if isinstance(mine, numpy.ndarray) else mine is not grad


def check_plain(ns: dict, quick: bool) -> None:
    _run(ns, [{"lr": 0.1}, {"lr": 0.03}], 25)


def check_momentum(ns: dict, quick: bool) -> None:
    _run(ns, [{"lr": 0.1, "momentum": 0.9}, {"lr": 0.05, "momentum": 0.5, "dampening": 0.3}], 26)


def check_nesterov(ns: dict, quick: bool) -> None:
    _run(ns, [{"lr": 0.1, "momentum": 0.9, "nesterov": True}], 27)


def check_weight_decay(ns: dict, quick: bool) -> None:
    _run(ns, [{"lr": 0.1, "weight_decay": 0.01}, {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.05},
              {"lr": 0.05, "momentum": 0.8, "weight_decay": 0.1, "nesterov": True}], 28)


PARTS = [("plain SGD", 2, check_plain), ("momentum and dampening", 3, check_momentum),
         ("Nesterov", 2, check_nesterov), ("weight decay", 3, check_weight_decay)]
