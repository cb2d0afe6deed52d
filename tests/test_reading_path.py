"""The reading path is a contract: what a default training step runs is what the docs list.

``docs/architecture.md`` ("The reading path of a training step") lists the files and functions
a student steps through in one MLP and one CNN training step (forward, ``cross_entropy``,
backward, SGD), and apart from them the plumbing a student steps over (the engine, Tensor's
bookkeeping, backend, argument checks, the thread pool). This test runs both steps in a fresh
process under a tracer on every thread (``sys.settrace`` and ``threading.settrace``, set before
minigrad starts a thread) and fails when code runs that the lists do not hold: a function of a
reading file that is not named, or a file that is in neither list.

When the path changes on purpose, print the lists as they now read and paste them into the page:

    python tests/test_reading_path.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "minigrad"
READING_LINES_AT_MOST = 5_000      # issue 27: the listed reading files, in all
EXECUTED_LINES_AT_MOST = 10_000    # every file a default step runs (issue 27)
BLOCKS = ("mlp", "cnn", "plumbing")


# --- the two steps, traced (run in a child process) ----------------------------------------------

def _traced_steps() -> dict:
    """{step: {file: [functions]}} of minigrad code run by one MLP and one CNN training step."""
    import threading

    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.nn.functional as F

    package = str(PACKAGE) + os.sep
    seen: dict = {}

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202 (sys.settrace's signature)
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(package) and not code.co_name.startswith("<"):
            path = Path(code.co_filename).relative_to(PACKAGE).as_posix()
            seen.setdefault(path, set()).add(getattr(code, "co_qualname", code.co_name))
        return None

    mg.manual_seed(0)
    mg.set_num_threads(2)  # the pool's threads run too (set before any of them starts)
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 128), nn.ReLU(), nn.Linear(128, 10))
    cnn = nn.Sequential(  # examples/mnist_cnn.py's model
        nn.Conv2d(1, 32, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
    images, labels = mg.randn(8, 1, 28, 28), mg.randint(0, 10, (8,))
    steps = {}
    for name, model in (("mlp", mlp), ("cnn", cnn)):
        optimizer = mg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        seen = {}
        threading.settrace(tracer)
        sys.settrace(tracer)
        try:
            optimizer.zero_grad()
            F.cross_entropy(model(images), labels).backward()
            optimizer.step()
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]
        steps[name] = {path: sorted(functions) for path, functions in seen.items()}
    return steps


def traced_steps() -> dict:
    """:func:`_traced_steps` in a fresh process: no pool thread started before the tracer."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, __file__, "--json"], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- the page's lists ------------------------------------------------------------------------------

def line_count(path: str) -> int:
    with open(PACKAGE / path, encoding="utf-8") as file:
        return sum(1 for _ in file)


def listed() -> dict:
    """{block: {file: (lines, [functions])}} from the page: after a ``<!-- reading-path: block -->``
    line, a fenced block of ``file  lines  function, function, ...`` rows (plumbing: ``# what``)."""
    text = PAGE.read_text(encoding="utf-8")
    lists = {}
    for block in BLOCKS:
        found = re.search(rf"<!-- reading-path: {block} -->\n```text\n(.*?)```", text, re.S)
        assert found, f"docs/architecture.md has no '<!-- reading-path: {block} -->' list"
        rows = {}
        for row in found.group(1).splitlines():
            path, lines, rest = (row.split(None, 2) + ["", ""])[:3]
            functions = [] if rest.startswith("#") else [f.strip() for f in rest.split(",") if f.strip()]
            rows[path] = (int(lines), functions)
        lists[block] = rows
    return lists


def expected_blocks(steps: dict) -> dict:
    """The lists as they should read for ``steps``, keeping the page's choice of reading files (a file
    new to the path goes to plumbing, with a note to say what it is)."""
    page = listed()
    reading = set(page["mlp"]) | set(page["cnn"])
    blocks: dict = {block: {} for block in BLOCKS}
    for step in ("mlp", "cnn"):
        for path, functions in steps[step].items():
            if path not in reading:
                blocks["plumbing"][path] = set()
            elif path in steps["mlp"]:  # the MLP opens it: the list names all that both steps run
                blocks["mlp"].setdefault(path, set()).update(functions)
            else:
                blocks["cnn"].setdefault(path, set()).update(functions)
    return blocks


def format_blocks(blocks: dict) -> str:
    text = PAGE.read_text(encoding="utf-8")
    out = []
    for block in BLOCKS:
        out.append(f"<!-- reading-path: {block} -->\n```text")
        for path in sorted(blocks[block]):
            if block == "plumbing":
                note = re.search(rf"^{re.escape(path)}\s+\d+\s+(#.*)$", text, re.M)
                what = note.group(1) if note else "# new on the path: what is it?"
            else:
                what = ", ".join(sorted(blocks[block][path]))
            out.append(f"{path:36s}{line_count(path):6d}  {what}")
        out.append("```")
    return "\n".join(out)


# --- the contract ----------------------------------------------------------------------------------

def test_a_training_step_runs_only_what_the_docs_list():
    steps = traced_steps()
    page = listed()
    reading = {**page["mlp"], **page["cnn"]}
    problems = []
    for step in ("mlp", "cnn"):
        allowed = {**page["mlp"], **(page["cnn"] if step == "cnn" else {})}
        for path, functions in steps[step].items():
            if path in allowed:
                if sys.version_info >= (3, 11):  # co_qualname: Class.method, as the page names them
                    unlisted = sorted(set(functions) - set(allowed[path][1]))
                    if unlisted:
                        problems.append(f"the {step} step runs {path}: {', '.join(unlisted)}, not listed")
            elif path not in page["plumbing"]:
                problems.append(f"the {step} step runs {path}, which no list holds")
    ran = set(steps["mlp"]) | set(steps["cnn"])
    for path in sorted(set(reading) | set(page["plumbing"])):
        if path not in ran:
            problems.append(f"{path} is listed but no longer runs")
    assert not problems, "\n".join(problems) + "\n\nThe lists as they now read:\n\n" + \
        format_blocks(expected_blocks(steps))


def test_the_listed_line_counts_hold():
    """The page's counts are the files' (within 10%, so that small edits need no docs change), the
    reading files at most 5,000 lines, and everything a default step runs under the ceiling."""
    page = listed()
    stale = []
    for block in BLOCKS:
        for path, (lines, _) in page[block].items():
            actual = line_count(path)
            if abs(actual - lines) > max(20, actual // 10):
                stale.append(f"{path}: listed {lines} lines, has {actual}")
    assert not stale, "update docs/architecture.md (python tests/test_reading_path.py):\n" + "\n".join(stale)
    reading = sum(line_count(p) for p in {**page["mlp"], **page["cnn"]})
    assert reading <= READING_LINES_AT_MOST, f"the reading files hold {reading} lines"
    executed = reading + sum(line_count(p) for p in page["plumbing"])
    assert executed <= EXECUTED_LINES_AT_MOST, f"a default step runs code in {executed} lines"


if __name__ == "__main__":
    if sys.argv[1:] == ["--json"]:
        print(json.dumps(_traced_steps()))
    else:
        print(format_blocks(expected_blocks(traced_steps())))
