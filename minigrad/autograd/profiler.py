"""Where does the time go? An autograd profiler with PyTorch's interface.

    with minigrad.autograd.profiler.profile(record_shapes=True) as prof:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))

Every ``Function.apply`` (the forward of one op) and every node the backward engine runs
becomes an event with its wall-clock time. Forward rows carry the op's name (``Addmm``,
``Relu``, ``NllLoss``: the node's name without ``Backward0``), backward rows the node's own
name (``AddmmBackward0``, ``AccumulateGrad``), so one table shows both passes op by op.
``record_function(name)`` adds a labelled span around any code. Self time is an event's time
minus that of the events inside it; CPU total includes them.

When no profiler is active this costs one attribute read per op and per node.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from typing import Any

from minigrad._files import write_atomically
from minigrad.autograd.function import _Profiling
from minigrad.tensor import Tensor

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]

_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


class FunctionEvent:
    """One timed call: ``name``, start and end (ns), its input shapes, and the time of events inside it."""

    def __init__(self, name: str, start_ns: int, parent: FunctionEvent | None):
        self.name = name
        self.start_ns = start_ns
        self.end_ns = start_ns
        self.parent = parent
        self.children_ns = 0
        self.input_shapes: list = []
        self.thread = threading.get_ident()

    @property
    def cpu_time_total(self) -> float:
        """Microseconds from start to end, events inside included."""
        return (self.end_ns - self.start_ns) / 1e3

    @property
    def self_cpu_time_total(self) -> float:
        """Microseconds spent in this event itself (not in the events inside it)."""
        return (self.end_ns - self.start_ns - self.children_ns) / 1e3

    def __repr__(self) -> str:
        return f"<FunctionEvent {self.name} cpu_time_total={self.cpu_time_total:.3f}us>"


class _Recorder:
    """The events of one ``profile``: a stack of open events, and the finished ones in order."""

    def __init__(self, record_shapes: bool):
        self.record_shapes = record_shapes
        self.events: list[FunctionEvent] = []
        self.stack: list[FunctionEvent] = []

    def begin(self, name: str = "") -> FunctionEvent:
        event = FunctionEvent(name, time.perf_counter_ns(), self.stack[-1] if self.stack else None)
        self.stack.append(event)
        return event

    def end(self, event: FunctionEvent, name: str | None = None, inputs: Any = ()) -> None:
        event.end_ns = time.perf_counter_ns()
        if name is not None:
            event.name = name
        if self.record_shapes:
            event.input_shapes = [list(t.shape) if isinstance(t, Tensor) else [] for t in inputs]
        while self.stack and self.stack.pop() is not event:  # an op that raised left its event open
            pass
        if event.parent is not None:
            event.parent.children_ns += event.end_ns - event.start_ns
        self.events.append(event)

    def forward_name(self, node_name: str) -> str:
        return _BACKWARD_SUFFIX.sub("", node_name) or node_name


class FunctionEventAvg:
    """The events of one name (and input shapes, if grouped by them), added up: a row of the table."""

    def __init__(self, key: str, input_shapes: str | None = None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        # accepted for PyTorch's sort keys; minigrad times the host only
        self.cuda_time_total = self.self_cuda_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0

    def add(self, event: FunctionEvent) -> None:
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total

    @property
    def cpu_time(self) -> float:
        """Average microseconds per call (CPU total / count)."""
        return self.cpu_time_total / max(self.count, 1)

    @property
    def self_cpu_time(self) -> float:
        return self.self_cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} count={self.count}>")


class EventList(list):
    """A list of events (or of averaged rows) that prints as PyTorch's table."""

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """The rows as a table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        # of Calls (and Input Shapes when grouped by them), sorted by ``sort_by`` (descending)."""
        rows: list[Any]
        if self and isinstance(self[0], FunctionEvent):
            rows = _averages([e for e in self if not top_level_events_only or e.parent is None], False)
        else:
            rows = list(self)
        if sort_by is not None and rows:
            if not hasattr(rows[0], sort_by):
                raise AttributeError(f"sort_by={sort_by!r} is not a column of the table; use one of "
                                     f"self_cpu_time_total, cpu_time_total, cpu_time, self_cpu_time, count")
            rows = sorted(rows, key=lambda row: getattr(row, sort_by), reverse=True)
        total = sum(row.self_cpu_time_total for row in rows) or 1.0
        shapes = any(row.input_shapes is not None for row in rows)
        return _render(rows[:row_limit] if row_limit and row_limit > 0 else rows, total, shapes,
                       max_name_column_width, max_shapes_column_width, header)

    def __str__(self) -> str:
        return self.table()


def _averages(events: list, group_by_input_shape: bool) -> EventList:
    rows: dict = {}
    for event in events:
        shapes = str(event.input_shapes) if group_by_input_shape else None
        row = rows.get((event.name, shapes))
        if row is None:
            row = rows[(event.name, shapes)] = FunctionEventAvg(event.name, shapes)
        row.add(event)
    return EventList(rows.values())


def _format_time(time_us: float) -> str:
    """As PyTorch prints a time: microseconds, milliseconds or seconds, three decimals."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _render(rows: list, total_us: float, with_shapes: bool, name_width: int, shapes_width: int,
            header: str | None) -> str:
    width = min(max([len(row.key) for row in rows] + [len("Name")]) + 4, name_width)
    columns = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    shapes_column = min(max([len(row.input_shapes or "") for row in rows] + [12]) + 2, shapes_width)
    rule = "-" * width + "  " + "  ".join(["-" * 12] * len(columns))
    if with_shapes:
        rule += "  " + "-" * shapes_column
    titles = "Name".rjust(width) + "  " + "  ".join(c.rjust(12) for c in columns)
    if with_shapes:
        titles += "  " + "Input Shapes".rjust(shapes_column)
    lines = ([header] if header else []) + [rule, titles, rule]
    for row in rows:
        name = row.key if len(row.key) <= width else row.key[:width - 3] + "..."
        cells = [f"{100 * row.self_cpu_time_total / total_us:.2f}%", _format_time(row.self_cpu_time_total),
                 f"{100 * row.cpu_time_total / total_us:.2f}%", _format_time(row.cpu_time_total),
                 _format_time(row.cpu_time), str(row.count)]
        line = name.rjust(width) + "  " + "  ".join(c.rjust(12) for c in cells)
        if with_shapes:
            line += "  " + (row.input_shapes or "")[:shapes_column].rjust(shapes_column)
        lines.append(line)
    lines += [rule, f"Self CPU time total: {_format_time(total_us)}", ""]
    return "\n".join(lines)


class profile:  # noqa: N801 (PyTorch's name)
    """Record every op's forward and every backward node while the ``with`` block runs.

    ``record_shapes`` keeps each call's input shapes (``key_averages(group_by_input_shape=True)``
    then splits rows by them). ``use_cuda``/``use_device`` and PyTorch's other options are
    accepted; minigrad times the host only (a GPU op's time is its launch time).
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Any = None):
        self.enabled = enabled
        self.use_cuda = use_cuda
        self.use_device = use_device
        self.record_shapes = record_shapes
        self._recorder: _Recorder | None = None
        self._running = False
        self.function_events: EventList | None = None

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if _Profiling.recorder is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self._recorder = _Recorder(self.record_shapes)
        self._running = True
        _Profiling.recorder = self._recorder
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if not self.enabled:
            return
        _Profiling.recorder = None
        self._running = False
        assert self._recorder is not None  # made by __enter__ when enabled
        self.function_events = EventList(sorted(self._recorder.events, key=lambda e: e.start_ns))

    def _events(self) -> EventList:
        if self._running:
            raise RuntimeError("Profiler didn't finish running")
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running" if self.enabled else
                               "The profiler was not enabled (profile(enabled=False))")
        return self.function_events

    def events(self) -> EventList:
        """Every recorded event, in the order they started."""
        return self._events()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """One row per event name (and per input shapes with ``group_by_input_shape``)."""
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("group_by_input_shape needs the shapes: profile(record_shapes=True)")
        return _averages(self._events(), group_by_input_shape)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **options: Any) -> str:
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **options)

    @property
    def self_cpu_time_total(self) -> float:
        """Microseconds of all events' self time: the profiled work."""
        return sum(event.self_cpu_time_total for event in self._events())

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as a Chrome trace (open in chrome://tracing or https://ui.perfetto.dev)."""
        events = self._events()
        origin = events[0].start_ns if events else 0
        trace = [{"name": e.name, "ph": "X", "cat": "cpu_op", "pid": os.getpid(), "tid": e.thread,
                  "ts": (e.start_ns - origin) / 1e3, "dur": e.cpu_time_total,
                  "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}} for e in events]
        write_atomically(path, json.dumps({"traceEvents": trace}))  # a reader never sees half a file

    def __str__(self) -> str:
        return self.table()


class record_function(contextlib.ContextDecorator):  # noqa: N801 (PyTorch's name)
    """A labelled span in the profile (``with record_function("data"): ...``, or as a decorator);
    nothing when no profiler is running."""

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self._event: FunctionEvent | None = None
        self._recorder: _Recorder | None = None

    def __enter__(self) -> record_function:
        self._recorder = _Profiling.recorder
        if self._recorder is not None:
            self._event = self._recorder.begin(self.name)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._recorder is not None and self._event is not None:
            self._recorder.end(self._event)
        self._event = self._recorder = None
