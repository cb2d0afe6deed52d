"""The autograd profiler: PyTorch's interface (profile, record_function, key_averages().table,
export_chrome_trace), forward ops and backward nodes as rows, self and total times consistent."""

from __future__ import annotations

import json
import re

import pytest
from _torch import require_torch

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import profiler
from minigrad.autograd.function import _Profiling


def _mlp_step(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
    x, y = lib.randn(5, 4), lib.tensor([0, 1, 2, 0, 1])
    loss = lib.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    return model


def _columns(table: str) -> list:
    return re.split(r"\s{2,}", table.splitlines()[1].strip())


def test_table_has_pytorchs_columns():
    torch = require_torch()
    tables = []
    for lib in (minigrad, torch):
        with lib.autograd.profiler.profile() as prof:
            _mlp_step(lib)
        tables.append(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5))
    assert _columns(tables[0]) == _columns(tables[1])
    assert "Self CPU time total:" in tables[0]


def test_forward_ops_and_backward_nodes_are_rows_with_their_counts():
    with profiler.profile() as prof:
        model = _mlp_step(minigrad)
    counts = {row.key: row.count for row in prof.key_averages()}
    # the backward runs ops too, as PyTorch's does (its profiler counts aten::t 9 and aten::mm 3 times
    # here): 2 transposes in the forward, 7 and the matrix products in the two addmm's backwards
    assert counts["Addmm"] == 2 and counts["T"] == 9 and counts["Mm"] == 3 and counts["Relu"] == 1
    assert counts["LogSoftmax"] == 1 and counts["NllLoss"] == 1
    assert counts["AddmmBackward0"] == 2 and counts["TBackward0"] == 2 and counts["NllLossBackward0"] == 1
    assert counts["AccumulateGrad"] == len(list(model.parameters()))
    table = prof.key_averages().table()
    assert "AddmmBackward0" in table and "ReluBackward0" in table


def test_sort_by_and_row_limit():
    with profiler.profile() as prof:
        _mlp_step(minigrad)
    averages = prof.key_averages()
    for key in ("self_cpu_time_total", "cpu_time_total", "cpu_time", "count"):
        table = averages.table(sort_by=key, row_limit=4)
        rows = table.splitlines()[3:7]
        assert len(rows) == 4 and table.splitlines()[7].startswith("---")
        expected = sorted(averages, key=lambda row: getattr(row, key), reverse=True)[:4]
        assert [line.split()[0] for line in rows] == [row.key for row in expected]
    with pytest.raises(AttributeError, match="sort_by='wall_time'"):
        averages.table(sort_by="wall_time")


def test_record_function_nests_and_self_time_excludes_children():
    with profiler.profile(record_shapes=True) as prof:
        with profiler.record_function("step"):
            with profiler.record_function("forward"):
                loss = (minigrad.randn(50, 50, requires_grad=True).exp() * 2).sum()
            loss.backward()
    events = {event.name: event for event in prof.events()}
    step, forward = events["step"], events["forward"]
    assert forward.parent is step and events["Exp"].parent is forward
    assert step.cpu_time_total >= forward.cpu_time_total >= events["Exp"].cpu_time_total
    children = sum(e.cpu_time_total for e in prof.events() if e.parent is step)
    assert step.self_cpu_time_total == pytest.approx(step.cpu_time_total - children, abs=1e-3)
    assert events["Exp"].input_shapes == [[50, 50]]
    assert prof.self_cpu_time_total == pytest.approx(step.cpu_time_total, rel=1e-9)
    shapes_table = prof.key_averages(group_by_input_shape=True).table()
    assert "Input Shapes" in shapes_table and "[[50, 50]]" in shapes_table


def test_record_function_is_a_decorator_and_does_nothing_without_a_profiler():
    @profiler.record_function("labelled")
    def work():
        return minigrad.ones(3) * 2

    assert work().tolist() == [2.0, 2.0, 2.0] and _Profiling.recorder is None
    with profiler.profile() as prof:
        work()
    assert [row.key for row in prof.key_averages()].count("labelled") == 1


def test_misuse_raises():
    """Reading the results inside the block, or nesting profiles, is an error (PyTorch 2 returns an
    empty list and warns: minigrad says what is wrong instead)."""
    with profiler.profile() as prof:
        with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
            prof.key_averages()
        with pytest.raises(RuntimeError, match="already enabled"):
            with profiler.profile():
                pass
    assert _Profiling.recorder is None
    with pytest.raises(RuntimeError, match="record_shapes=True"):
        prof.key_averages(group_by_input_shape=True)


def test_an_op_that_raises_leaves_the_profile_usable():
    with profiler.profile() as prof:
        with pytest.raises(RuntimeError):
            minigrad.ones(2, 3) @ minigrad.ones(2, 3)
        minigrad.ones(2).exp()
    assert "Exp" in [row.key for row in prof.key_averages()] and _Profiling.recorder is None


def test_disabled_profile_records_nothing():
    with profiler.profile(enabled=False, use_cuda=True) as prof:
        minigrad.ones(2).exp()
        assert _Profiling.recorder is None
    with pytest.raises(RuntimeError, match="not enabled"):
        prof.key_averages()


def test_export_chrome_trace_writes_the_events(tmp_path):
    with profiler.profile(record_shapes=True, use_device="cpu") as prof:
        model = nn.Linear(3, 2)
        F.mse_loss(model(minigrad.randn(4, 3)), minigrad.zeros(4, 2)).backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    trace = json.loads(path.read_text())["traceEvents"]
    assert list(tmp_path.iterdir()) == [path]  # written through a temporary file, then renamed
    names = {event["name"] for event in trace}
    assert {"Addmm", "MseLoss", "MseLossBackward0", "AddmmBackward0", "AccumulateGrad"} <= names
    assert all(event["ph"] == "X" and event["dur"] >= 0 for event in trace)
