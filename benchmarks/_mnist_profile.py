"""Where a minigrad training step spends its time, operation by operation.

Every ``Function`` subclass gets its ``forward`` and ``backward`` wrapped in a timer (only
the outermost call counts, so an operation built from others is not counted twice). What
the step takes beyond the operations and the optimiser is the framework's own work: the
autograd engine walking the graph, ``Module.__call__``, recording nodes, accumulating grads.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

_totals: dict = defaultdict(float)  # (operation, 'forward' | 'backward') -> seconds
_depth = [0]


def _timed(function: Callable, key: tuple) -> Callable:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _depth[0] += 1
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _depth[0] -= 1
            if _depth[0] == 0:
                _totals[key] += time.perf_counter() - start
    return wrapper


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def instrument() -> None:
    """Wrap forward and backward of every Function subclass defined so far."""
    from minigrad.autograd.function import Function

    for cls in _subclasses(Function):
        for method in ("forward", "backward"):
            if method in cls.__dict__:
                function = cls.__dict__[method].__func__
                setattr(cls, method, staticmethod(_timed(function, (cls.__name__, method))))


def profile(setup: Callable, steps: int, batch_size: int) -> None:
    import minigrad as mg
    import minigrad.nn.functional as F
    import minigrad.optim  # noqa: F401  (makes mg.optim available to setup)
    mg.memory.keep_freed_memory()  # as examples/mnist_cnn.py and the timed runs opt in

    model, optimizer, images, labels = setup(mg, batch_size)

    def step() -> None:
        loss = F.cross_entropy(model(images), labels)
        start = time.perf_counter()
        optimizer.zero_grad()
        _totals["zero_grad", "-"] += time.perf_counter() - start
        loss.backward()
        start = time.perf_counter()
        optimizer.step()
        _totals[type(optimizer).__name__ + ".step", "-"] += time.perf_counter() - start

    for _ in range(3):
        step()
    instrument()
    _totals.clear()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    total = (time.perf_counter() - start) / steps
    rows = sorted(((seconds / steps, name, phase) for (name, phase), seconds in _totals.items()),
                  reverse=True)
    print(f"minigrad, MNIST CNN, batch {batch_size}: {total * 1e3:.1f} ms per step (mean of {steps}, "
          "timers on)")
    print(f"{'operation':<28}{'phase':<10}{'ms/step':>9}{'share':>8}")
    for seconds, name, phase in rows:
        print(f"{name:<28}{phase:<10}{seconds * 1e3:>9.2f}{seconds / total:>8.1%}")
    rest = total - sum(row[0] for row in rows)
    print(f"{'engine, modules, glue':<38}{rest * 1e3:>9.2f}{rest / total:>8.1%}")

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        step()
    profiler.disable()
    print(f"\ncProfile, {steps} steps, the 25 functions with the most time of their own:")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
