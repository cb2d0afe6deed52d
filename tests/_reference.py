"""Recorded PyTorch answers, so that the comparison tests also run where PyTorch is not installed.

A comparison asks for PyTorch's answer through :func:`reference`::

    expected = reference(lambda torch: torch.softmax(torch.tensor(x), 0), inputs={"x": x})

``compute(torch)`` returns the answer as NumPy arrays, PyTorch tensors (converted to arrays),
dtypes (converted to names like ``"float32"``), strings, numbers, ``None``, and lists, tuples and
dicts of those. What happens then depends on the machine:

- **With PyTorch** the answer is computed live and returned; if a record of it exists, the two
  must agree (a stale record fails the test, naming the command that rewrites them). In CI
  (``MINIGRAD_REQUIRE_TORCH=1``) a missing record fails too, so the records stay complete.
- **Without PyTorch** the recorded answer is returned; a call without a record skips, saying so.
- **Recording** (``MINIGRAD_RECORD=1``, set by ``python tests/reference/record.py``) stores every
  live answer, with its ``inputs`` and the PyTorch version, in ``tests/reference/records/``: one
  compressed ``.npz`` per test module.

An answer is keyed by the test's node id, without the device parameter (a comparison with
PyTorch on the CPU does not depend on where minigrad ran), and the call's index within the test;
``inputs`` are stored beside it and must be the same when replayed, so a record cannot silently
answer a different question.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy
import pytest
from _torch import ENV_VAR, torch_required

RECORD_ENV = "MINIGRAD_RECORD"
TESTS = Path(__file__).resolve().parent
RECORDS = TESTS / "reference" / "records"
RECORD_COMMAND = "python tests/reference/record.py"

# The ids the device fixtures (tests/core/conftest.py) give their parameters: not part of a key.
_DEVICE_ID = re.compile(r"(?<=\[)(cpu|standin-cuda)(-|(?=\]))")
# How closely a live answer must match its record (same PyTorch, possibly another BLAS).
_STALE_TOLERANCE = {"float64": (1e-9, 1e-12), "float32": (1e-5, 1e-6), "float16": (1e-3, 1e-3)}


class _State:
    """The running test's key prefix and call count, and the answers recorded in this session."""

    test: str | None = None
    calls: int = 0
    recorded: dict[str, dict[str, Any]] = {}   # module file -> {key: answer}
    ran: dict[str, set[str]] = {}              # module file -> test keys run while recording
    loaded: dict[str, tuple[dict, Any]] = {}   # module file -> (index, npz file)


def recording() -> bool:
    return os.environ.get(RECORD_ENV, "").strip().lower() not in ("", "0", "false", "no")


def record_key(nodeid: str) -> str:
    """``tests/core/test_ops.py::test_op[cpu-add]`` -> ``tests/core/test_ops.py::test_op[add]``."""
    return _DEVICE_ID.sub("", nodeid).replace("[]", "")


def begin_test(nodeid: str) -> None:
    """Called by the suite's conftest before each test: calls are counted per test."""
    _State.test = record_key(nodeid)
    _State.calls = 0
    if recording():
        module = _State.test.split("::", 1)[0]
        _State.ran.setdefault(module, set()).add(_State.test)


def _in_hypothesis() -> bool:
    """True inside a Hypothesis test (``@given``), whose examples are not the same from run to run."""
    try:
        from hypothesis import currently_in_test_context
    except ImportError:
        return False
    return currently_in_test_context()


def _torch() -> ModuleType | None:
    if torch_required() or recording():
        try:
            import torch
        except ImportError as error:
            pytest.fail(f"{ENV_VAR} or {RECORD_ENV} is set but PyTorch cannot be imported: {error}",
                        pytrace=False)
        return torch
    try:
        import torch
    except ImportError:
        return None
    return torch


# --- answers as plain data ----------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """``value`` with tensors as NumPy arrays and dtypes as names (what a record can hold)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, numpy.ndarray) or value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, numpy.generic):
        return value.item()
    module = type(value).__module__
    if module.startswith("torch") and hasattr(value, "detach"):
        return value.detach().cpu().numpy(force=True).copy()  # force: a ZeroTensor (a second derivative)
    if module.startswith("torch") or isinstance(value, numpy.dtype):
        return str(value).rsplit(".", 1)[-1]
    raise TypeError(f"a reference answer cannot hold {type(value).__name__}: {value!r}")


def plain(value: Any) -> Any:
    """``value`` as a replayed answer looks (tuples as lists, tensors as arrays): for comparing with one."""
    return _plain(value)


def _encode(value: Any, pool: dict[str, list[numpy.ndarray]]) -> Any:
    """JSON-able structure; arrays join ``pool``'s flat buffer of their dtype and stand as
    ``{"@": [dtype, offset, shape]}`` (thousands of tiny arrays would be mostly file headers)."""
    if isinstance(value, numpy.ndarray):
        buffer = pool.setdefault(value.dtype.str, [])
        offset = sum(a.size for a in buffer)
        buffer.append(value.ravel())
        return {"@": [value.dtype.str, offset, list(value.shape)]}
    if isinstance(value, dict):
        return {"{}": {k: _encode(v, pool) for k, v in value.items()}}
    if isinstance(value, list):
        return [_encode(v, pool) for v in value]
    if isinstance(value, float) and not numpy.isfinite(value):
        return {"f": repr(value)}
    return value


def _decode(value: Any, buffers: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v, buffers) for v in value]
    if isinstance(value, dict):
        if "@" in value:
            dtype, offset, shape = value["@"]
            size = int(numpy.prod(shape, dtype=numpy.int64))
            return buffers[dtype][offset:offset + size].reshape(shape).copy()
        if "f" in value:
            return float(value["f"])
        return {k: _decode(v, buffers) for k, v in value["{}"].items()}
    return value


def assert_same(recorded: Any, live: Any, where: str = "answer") -> None:
    """Recorded and live answers agree: same structure, dtypes and shapes, values to a tight tolerance."""
    if isinstance(live, dict):
        assert isinstance(recorded, dict) and sorted(recorded) == sorted(live), \
            f"{where}: keys {sorted(recorded) if isinstance(recorded, dict) else recorded} vs {sorted(live)}"
        for k in live:
            assert_same(recorded[k], live[k], f"{where}[{k!r}]")
    elif isinstance(live, list):
        assert isinstance(recorded, list) and len(recorded) == len(live), f"{where}: {recorded!r} vs {live!r}"
        for i, (r, v) in enumerate(zip(recorded, live)):
            assert_same(r, v, f"{where}[{i}]")
    elif isinstance(live, numpy.ndarray):
        assert isinstance(recorded, numpy.ndarray), f"{where}: recorded {recorded!r}, live an array"
        assert recorded.dtype == live.dtype and recorded.shape == live.shape, \
            f"{where}: recorded {recorded.dtype}{list(recorded.shape)}, live {live.dtype}{list(live.shape)}"
        if live.dtype.kind in "fc":
            rtol, atol = _STALE_TOLERANCE.get(live.dtype.name, (1e-5, 1e-6))
            numpy.testing.assert_allclose(recorded, live, rtol=rtol, atol=atol, err_msg=where)
        else:
            numpy.testing.assert_array_equal(recorded, live, err_msg=where)
    elif isinstance(live, float) and isinstance(recorded, float):
        assert numpy.isclose(recorded, live, rtol=1e-9, atol=1e-12, equal_nan=True), \
            f"{where}: {recorded!r} vs {live!r}"
    else:
        assert recorded == live and type(recorded) is type(live), f"{where}: {recorded!r} vs {live!r}"


# --- the records ---------------------------------------------------------------------------------

def record_file(module: str) -> Path:
    """``tests/core/test_ops.py`` -> ``tests/reference/records/core/test_ops.npz``."""
    relative = Path(module).relative_to("tests") if module.startswith("tests") else Path(module)
    return RECORDS / relative.with_suffix(".npz")


def _load(module: str) -> tuple[dict, Any]:
    if module not in _State.loaded:
        path = record_file(module)
        if path.exists():
            with numpy.load(path, allow_pickle=False) as npz:
                index = json.loads(str(npz["__index__"]))
                buffers = {dtype: npz[f"buffer{i}"] for i, dtype in enumerate(index["dtypes"])}
            _State.loaded[module] = (index, buffers)
        else:
            _State.loaded[module] = ({"answers": {}}, None)
    return _State.loaded[module]


def recorded_answer(key: str) -> Any | None:
    """The recorded ``{"inputs": ..., "answer": ...}`` for ``key``, or None."""
    module = key.split("::", 1)[0]
    index, records = _load(module)
    entry = index["answers"].get(key)
    if entry is None:
        return None
    return _decode(entry, records)


def metadata(module: str) -> dict:
    """The versions a module's records were made with (empty without records)."""
    return _load(module)[0].get("meta", {})


def reference(compute: Callable[[ModuleType], Any], inputs: dict[str, Any] | None = None) -> Any:
    """PyTorch's answer ``compute(torch)``: live where PyTorch is installed, else as recorded."""
    if _State.test is None:
        raise RuntimeError("reference() runs inside a test (tests/conftest.py starts each test's count)")
    if _in_hypothesis():  # its examples are drawn afresh: live PyTorch only, nothing to record or replay
        torch = _torch()
        if torch is None:
            pytest.skip("PyTorch is not installed, and a property test's random examples have no records")
        return _plain(compute(torch))
    key = f"{_State.test}#{_State.calls}"
    _State.calls += 1
    inputs = _plain(inputs or {})
    torch = _torch()
    if torch is None:
        entry = recorded_answer(key)
        if entry is None:
            pytest.skip(f"PyTorch is not installed and {key} has no recorded answer "
                        f"(install PyTorch, see README, or record one with {RECORD_COMMAND})")
        assert_same(entry["inputs"], inputs, f"inputs of the recorded answer {key} (rerun {RECORD_COMMAND})")
        return entry["answer"]
    answer = _plain(compute(torch))
    if recording():
        module = key.split("::", 1)[0]
        _State.recorded.setdefault(module, {})[key] = {"inputs": inputs, "answer": answer}
        return answer
    entry = recorded_answer(key)
    if entry is None:
        if torch_required():
            pytest.fail(f"{key} has no recorded answer: run {RECORD_COMMAND} and commit the records",
                        pytrace=False)
        return answer
    try:
        assert_same(entry, {"inputs": inputs, "answer": answer}, key)
    except AssertionError as error:
        pytest.fail(f"the recorded answer is stale; rerun {RECORD_COMMAND}\n{error}", pytrace=False)
    return answer


def write_records() -> list[Path]:
    """Store what this session recorded (called at the session's end while recording).

    A module's answers from the tests that ran replace that module's old ones; answers of
    tests that did not run are kept, so recording part of the suite is safe.
    """
    import torch

    written = []
    for module, tests in sorted(_State.ran.items()):
        index, _ = _load(module)
        old = {k: recorded_answer(k) for k in index["answers"] if k.split("#", 1)[0] not in tests}
        answers = {**old, **_State.recorded.get(module, {})}
        path = record_file(module)
        if not answers:
            if path.exists():
                path.unlink()
            continue
        pool: dict[str, list[numpy.ndarray]] = {}
        encoded = {k: _encode(v, pool) for k, v in sorted(answers.items())}
        meta = {"torch": torch.__version__, "numpy": numpy.__version__}
        dtypes = sorted(pool)
        payload = {f"buffer{i}": numpy.concatenate(pool[dtype]) for i, dtype in enumerate(dtypes)}
        index = {"meta": meta, "dtypes": dtypes, "answers": encoded}
        payload["__index__"] = numpy.array(json.dumps(index, separators=(",", ":")))
        path.parent.mkdir(parents=True, exist_ok=True)
        _State.loaded.pop(module, None)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        with os.fdopen(handle, "wb") as file:
            numpy.savez_compressed(file, **payload)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
        written.append(path)
    return written
