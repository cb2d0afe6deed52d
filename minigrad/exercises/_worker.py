"""Grading in a process of its own: student code never runs in the grader's process.

The grader (:func:`grade_isolated`, in the process that writes the report) starts one
worker per exercise::

    python -m minigrad.exercises._worker NAME FOLDER SUFFIX FIRST_PART QUICK CHANNEL MEMORY_MB

The worker loads the student's file, runs the exercise's parts from ``FIRST_PART`` on and,
for each, writes one JSON line to ``CHANNEL``: the part's own verdict and every value the
part compared (``_grading.OBSERVER``). The grader then decides the score itself, comparing
those values with the **recorded answers** (``answers/NAME.npz``, minigrad's own results for
the same seeded inputs, written by ``course/refresh.py``) under the recorded tolerances. So
whatever the student's code does inside the worker — patch the checks, ``numpy.testing`` or
minigrad, call ``sys.exit(0)``, print or write a fake result — the only way to a point is
to hand over the right values. The grader takes only lines that carry a one-time token
it gives the worker on stdin (not in argv or the environment, which the student's code sees).

Limits: each part gets ``time_limit`` seconds (the grader kills a worker that runs over and
starts a fresh one for the next part); the worker's address space is capped at
``memory_mb`` with ``resource.setrlimit`` where the platform has it (Linux and macOS; not
Windows, where only the time limit applies). The grader's own files are hashed before and
after each worker: a student's code that edits them fails everything from then on.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy

PACKAGE = Path(__file__).resolve().parent
ANSWERS = PACKAGE / "answers"
TIME_LIMIT = 60.0          # seconds per part
TRAINING_TIME_LIMIT = 600.0   # the capstone's training run
MEMORY_MB = 2048
STARTUP_TIME_LIMIT = 60.0   # importing minigrad and loading the student's files


# --- in the worker ---------------------------------------------------------------------------

def _limit_memory(megabytes: int) -> None:
    try:
        import resource  # noqa: PLC0415 (POSIX only: Windows has no resource module)
    except ImportError:
        return
    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):   # a hard limit already lower, or a platform that refuses RLIMIT_AS
        pass


def worker_main(argv: list[str]) -> int:
    """Run the parts of one exercise on the student's file; one JSON line per part to the channel."""
    name, folder, suffix, first, quick, channel, memory = argv
    # a one-time token from the grader, on stdin (not in argv or the environment, which the student's
    # code can read): the grader takes only results that carry it
    token = sys.stdin.readline().strip()
    sys.stdin.close()
    _limit_memory(int(memory))
    from minigrad.exercises import _grading, exercise, grade_one_part, load_folder  # noqa: PLC0415
    from minigrad.exercises.checks.capstone import WHERE  # noqa: PLC0415

    # only this exercise's file (one student's broken file cannot sink another exercise), and for
    # the capstone the exercises whose Functions it assembles
    needed = [name] + (sorted({where for where, _ in WHERE.values()}) if name == "capstone" else [])
    context, errors = load_folder(Path(folder), suffix, only=needed)
    with open(channel, "a", encoding="utf-8") as out:
        for index in range(int(first), len(exercise(name).parts)):
            out.write(json.dumps({"event": "start", "part": index, "token": token}) + "\n")
            out.flush()
            observations: list[dict] = []
            _grading.OBSERVER = observations
            result = grade_one_part(name, index, context.get(name, {}), quick=quick == "1",
                                    load_error=errors.get(name), context=context)
            _grading.OBSERVER = None
            # the expected values stay here: the grader holds its own (the recorded answers)
            reported = [{"actual": o["actual"], "meta": o["meta"]} for o in observations]
            out.write(json.dumps({"event": "done", "part": index, "token": token, "passed": result.passed,
                                  "message": result.message, "observations": reported}) + "\n")
            out.flush()
    return 0


# --- in the grader ---------------------------------------------------------------------------

def grader_digest() -> str:
    """One hash of the grader's own files (the checks, this module, the recorded answers)."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".npz") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def load_answers(name: str) -> list[list[dict]]:
    """The recorded answers of exercise ``name``: per part, a list of ``{"expected", "meta"}``."""
    path = ANSWERS / f"{name}.npz"
    with numpy.load(path, allow_pickle=False) as data:
        parts = json.loads(str(data["meta"]))
        for part in parts:
            for observation in part:
                key = observation.pop("key", None)
                if key is not None:
                    array = data[key]
                    observation["expected"]["values"] = array.astype(numpy.float64).tolist()
    return parts


def save_answers(name: str, parts: list[list[dict]], folder: Path = ANSWERS) -> Path:
    """Write the answers a reference run observed (``course/refresh.py``): arrays in an npz, the rest JSON."""
    arrays: dict[str, numpy.ndarray] = {}
    meta = []
    for p, part in enumerate(parts):
        rows = []
        for o, observation in enumerate(part):
            expected = dict(observation["expected"])
            row: dict[str, Any] = {"expected": expected, "meta": observation["meta"]}
            if expected["shape"] is not None:
                key = f"p{p}o{o}"
                # float32 answers (the capstone's) are stored as float32: half the size, same values
                dtype = numpy.float32 if expected["dtype"] == "float32" else numpy.float64
                arrays[key] = numpy.asarray(expected["values"], dtype=dtype).reshape(expected["shape"])
                row["key"] = key
                expected["values"] = None
            rows.append(row)
        meta.append(rows)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.npz"
    arrays["meta"] = numpy.array(json.dumps(meta))
    numpy.savez_compressed(path, **arrays)  # type: ignore[arg-type]
    return path


def verdict(done: dict | None, answers: list[dict], quick: bool,
            labels: numpy.ndarray | None = None) -> tuple[bool, str]:
    """The grader's own decision on one part: the worker's report checked against the answers."""
    if done is None:
        return False, "no result (the worker stopped)"
    message = str(done.get("message", ""))
    observations = done.get("observations")
    if not isinstance(observations, list):
        return False, "the part reported no compared values"
    from minigrad.exercises._grading import judge  # noqa: PLC0415 (the grader's own copy, never patched)

    for number, answer in enumerate(answers):
        if number >= len(observations):
            return False, message if not done.get("passed") else \
                f"only {len(observations)} of the {len(answers)} comparisons of this part ran"
        try:
            actual = observations[number]["actual"]
            meta = answer["meta"]
            if meta.get("accuracy"):
                problem = _accuracy_problem(actual, quick, labels)
            else:
                problem = judge(actual, answer["expected"], meta)
        except (KeyError, TypeError, ValueError) as error:
            return False, f"the part's report is malformed ({type(error).__name__}): {error}"
        if problem:
            return False, message if not done.get("passed") else problem
    if len(observations) != len(answers):
        return False, message if not done.get("passed") else \
            f"this part compared {len(observations)} values, not the {len(answers)} recorded"
    if not done.get("passed"):
        return False, message
    return True, message


def mnist_test_labels() -> numpy.ndarray | None:
    """MNIST's test labels, read by the grader before any student code runs (which could rewrite
    the file); None where MNIST is missing (the worker then says so)."""
    from minigrad.data import MNIST  # noqa: PLC0415

    try:
        return MNIST(train=False, download=False).labels.copy()
    except RuntimeError:
        return None


def _accuracy_problem(actual: dict, quick: bool, labels: numpy.ndarray | None) -> str | None:
    """The capstone's test accuracy, computed here from the predictions and MNIST's labels."""
    from minigrad.exercises.checks.capstone import DEFAULT, QUICK  # noqa: PLC0415

    if labels is None:
        return "MNIST is not available to the grader, so the test accuracy cannot be checked"
    spec = QUICK if quick else DEFAULT
    labels = labels[:spec["test"]]
    predicted = numpy.asarray(actual["values"], dtype=numpy.float64).reshape(-1)
    if predicted.shape != labels.shape:
        return f"the predictions have shape {predicted.shape}, not {labels.shape}"
    accuracy = float((predicted == labels).mean())
    if accuracy >= spec["required"]:
        return None
    return (f"test accuracy {accuracy:.2%} (recomputed by the grader); at least {spec['required']:.0%} "
            f"is needed")


GRADER = ("minigrad.exercises", "_grading", "_worker", "OBSERVER", "autograd_grads")


def forbidden_calls(path: Path, builtins: tuple[str, ...]) -> list[str]:
    """Where the student's file names a built-in it should replace, or the grader's insides.

    Read, not run: every dotted name (``nn.grad.conv2d_input``, ``from minigrad.nn.functional
    import linear``) that ends with one of ``builtins`` or mentions the grader. A name
    spelled at run time (``getattr``) escapes this; the recorded answers still require the
    right values.
    """
    if not path.is_file():
        return []
    try:
        tree = ast.parse(_source(path))
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        dotted: list[str] = []
        if isinstance(node, ast.Attribute):
            dotted = [_dotted(node)]
        elif isinstance(node, ast.ImportFrom):
            dotted = [f"{node.module or ''}.{alias.name}" for alias in node.names] + [node.module or ""]
        elif isinstance(node, ast.Import):
            dotted = [alias.name for alias in node.names]
        for name in dotted:
            if any(name == b or name.endswith("." + b) for b in builtins):
                found.append(f"`{name}` (line {getattr(node, 'lineno', '?')}), the built-in this exercise "
                             f"asks you to write")
            elif any(g in name for g in GRADER):
                found.append(f"`{name}` (line {getattr(node, 'lineno', '?')}), the grader's own code")
    return found


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else "?"


def _source(path: Path) -> str:
    from minigrad.exercises._student import notebook_code  # noqa: PLC0415

    return notebook_code(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")


def grade_isolated(name: str, folder: Path, suffix: str = ".py", *, quick: bool = False,
                   time_limit: float = TIME_LIMIT, memory_mb: int = MEMORY_MB) -> list:
    """Exercise ``name`` graded from ``folder`` in worker processes; one ``Result`` per part."""
    from minigrad.exercises import exercise  # noqa: PLC0415 (the package imports this module)
    from minigrad.exercises._grading import Result  # noqa: PLC0415

    parts = exercise(name).parts
    flagged = forbidden_calls(Path(folder) / f"{name}{suffix}", exercise(name).builtins)
    if flagged:
        message = "no credit: your file uses " + "; ".join(flagged)
        return [Result(name, part, False, message, points) for part, points, _ in parts]
    answers = load_answers(name)
    labels = mnist_test_labels() if name == "capstone" else None
    before = grader_digest()
    reports: dict[int, dict] = {}
    failures: dict[int, str] = {}
    first = 0
    with tempfile.TemporaryDirectory(prefix="minigrad-grading-") as scratch:
        while first < len(parts):
            channel_path = Path(scratch) / f"{name}-{first}.jsonl"
            channel_path.touch()
            channel = _Channel(channel_path)
            command = [sys.executable, "-m", "minigrad.exercises._worker", name, str(folder), suffix,
                       str(first), "1" if quick else "0", str(channel_path), str(memory_mb)]
            # the student's prints go to a log, echoed to our stderr afterwards: the report and
            # results.json stay ours; stderr (the capstone's progress bar) is shared, and shows live
            log = open(Path(scratch) / f"{name}-{first}.log", "w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            token = channel.token = secrets.token_hex(16)
            worker = subprocess.Popen(command, stdout=log, stdin=subprocess.PIPE)
            assert worker.stdin is not None
            worker.stdin.write(f"{token}\n".encode())
            worker.stdin.close()
            events, current, timed_out = _watch(worker, channel, parts, first, time_limit)
            if timed_out:
                failures[current] = timed_out
            log.seek(0)
            sys.stderr.write(log.read()[-20_000:])
            log.close()
            _collect(events, reports, failures)
            finished = [e["part"] for e in events if e.get("event") == "done"]
            last = max([current, *finished])
            if last not in reports and last not in failures:
                failures[last] = (f"your code ended the grading process during this part (exit status "
                                  f"{worker.returncode}: sys.exit, os._exit, or a crash such as running "
                                  f"out of the {memory_mb} MB memory limit)")
            if grader_digest() != before:
                for index in range(len(parts)):
                    reports.pop(index, None)
                    failures[index] = "your code changed the grader's own files: no score"
                break
            first = last + 1
    results = []
    for index, (part, points, _) in enumerate(parts):
        if index in failures:
            passed, message = False, failures[index]
        else:
            passed, message = verdict(reports.get(index), answers[index], quick, labels)
        results.append(Result(name, part, passed, message, points))
    return results


def _watch(worker: subprocess.Popen, channel: _Channel, parts: list, first: int,
           time_limit: float) -> tuple[list[dict], int, str]:
    """Follow a worker until it exits or a part runs over its limit (then kill it).

    Returns the channel's events, the part last started, and why it was stopped ("" if it was
    not). A part's clock starts when the worker says it starts; loading minigrad and the
    student's files before the first part has a limit of its own.
    """
    current, started, part_started = first, time.monotonic(), False
    while True:
        events = channel.read()
        starts = [e["part"] for e in events if e.get("event") == "start"]
        if starts and (starts[-1] != current or not part_started):
            current, started, part_started = starts[-1], time.monotonic(), True
        limit = TRAINING_TIME_LIMIT if parts[current][0] == "training run" else time_limit
        if not part_started:
            limit = max(limit, STARTUP_TIME_LIMIT)
        if worker.poll() is not None:
            return channel.read(), current, ""
        if time.monotonic() - started > limit:
            worker.kill()
            worker.wait()
            return channel.read(), current, (f"took longer than the time limit of {limit:g} s for this "
                                             f"part (an endless loop, or a Python loop over every element?)")
        time.sleep(0.05)


class _Channel:
    """The worker's channel, read as it grows: only the new complete lines are parsed each time."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.token = path, 0, ""
        self.events: list[dict] = []

    def read(self) -> list[dict]:
        with open(self.path, "rb") as stream:
            stream.seek(self.offset)
            data = stream.read()
        complete = data[:data.rfind(b"\n") + 1]
        self.offset += len(complete)
        for line in complete.decode("utf-8", errors="replace").splitlines():
            try:
                event = json.loads(line, parse_constant=lambda text: math.nan)
            except ValueError:
                continue
            if isinstance(event, dict) and isinstance(event.get("part"), int) and \
                    event.get("token") == self.token:
                self.events.append(event)
        return self.events


def _collect(events: list[dict], reports: dict[int, dict], failures: dict[int, str]) -> None:
    """The ``done`` events; a part reported twice was written by someone else too, and fails."""
    for event in events:
        if event.get("event") != "done":
            continue
        index = event["part"]
        if index in reports:
            reports.pop(index)
            failures[index] = "the grader's channel holds two results for this part: written by your code?"
        elif index not in failures:
            reports[index] = event


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
