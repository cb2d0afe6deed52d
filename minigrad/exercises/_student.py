"""The student copy: solution blocks blanked out, each exercise as a ``.py`` file and as a notebook.

A solution block is marked in the reference solution as::

    # BEGIN SOLUTION: the hint the student sees
    ... the reference code ...
    # END SOLUTION

and becomes ``raise NotImplementedError("the hint the student sees")`` at the same
indentation. Notebooks are written as nbformat-4 JSON with the standard library (nbformat
itself is only a development dependency).
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path
from typing import Any

from minigrad._files import write_atomically

BEGIN = re.compile(r"^(?P<indent>\s*)# BEGIN SOLUTION(?::\s*(?P<hint>.*?))?\s*$")
END = re.compile(r"^\s*# END SOLUTION\s*$")
DEFAULT_HINT = "write this part (see the statement at the top of the file)"


class MarkerError(ValueError):
    """Solution markers that do not pair up."""


def blank_solutions(source: str, filename: str = "<exercise>") -> str:
    """``source`` with every marked solution block replaced by ``raise NotImplementedError(hint)``."""
    out: list[str] = []
    opened: int | None = None
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if opened is not None:
                raise MarkerError(f"{filename}:{number}: BEGIN SOLUTION inside the block opened at line "
                                  f"{opened}")
            opened = number
            hint = begin.group("hint") or DEFAULT_HINT
            out.append(f"{begin.group('indent')}raise NotImplementedError({hint!r})\n")
        elif end:
            if opened is None:
                raise MarkerError(f"{filename}:{number}: END SOLUTION without a BEGIN SOLUTION")
            opened = None
        elif opened is None:
            out.append(line)
    if opened is not None:
        raise MarkerError(f"{filename}:{opened}: BEGIN SOLUTION is never closed by END SOLUTION")
    return "".join(out)


def solution_lines(source: str) -> list[str]:
    """The lines inside ``source``'s marked solution blocks (what ``blank_solutions`` takes out)."""
    lines, inside = [], False
    for line in source.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif inside:
            lines.append(line)
    return lines


def count_blocks(source: str) -> int:
    return sum(1 for line in source.splitlines() if BEGIN.match(line))


def split_statement(source: str) -> tuple[str, str]:
    """(the module docstring — the statement —, the code after it)."""
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return "", source
    lines = source.splitlines(keepends=True)
    return first.value.value, "".join(lines[first.end_lineno:]).lstrip("\n")


def student_file(name: str, source: str) -> str:
    """The ``.py`` a student edits: a line on how to check it, then the blanked solution."""
    return (f"# minigrad course kit, exercise {name!r}. Fill in every `raise NotImplementedError(...)`,\n"
            f"# then check it:  python -m minigrad.exercises check {name} --dir .\n"
            + blank_solutions(source, f"{name}.py"))


def notebook(number: int, name: str, title: str, source: str, blank: bool = True) -> dict:
    """The exercise as a notebook: the statement, the code to complete, a blank cell, and the check."""
    statement, code = split_statement(blank_solutions(source, f"{name}.py") if blank else source)
    code = "".join(line for line in code.splitlines(keepends=True)
                   if line.strip() != "from __future__ import annotations").lstrip("\n")
    heading, _, body = statement.partition("\n")
    markdown = f"# {heading.strip() or f'Exercise {number} — {title}'}\n{body}"
    cells = [_cell("markdown", "statement", markdown), _cell("code", "your-code", code),
             _cell("code", "scratch", "# A blank cell: try things out here.\n"),
             _cell("code", "check", f"from minigrad.exercises import check\n\ncheck({name!r}, globals()"
                   + (", notebooks=True" if name == "capstone" else "") + ")\n")]
    return {"cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def notebook_code(path: Path) -> str:
    """The student's code in a notebook: its "your-code" cell (else every code cell but the check)."""
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    code = [cell for cell in cells if cell.get("cell_type") == "code"]
    chosen = [cell for cell in code if cell.get("id") == "your-code"] or \
        [cell for cell in code if "exercises import check" not in "".join(cell.get("source", []))]
    return "\n".join("".join(cell.get("source", [])) for cell in chosen)


def _cell(kind: str, cell_id: str, text: str) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "id": cell_id, "metadata": {},
                            "source": text.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def make_copy(directory: str | os.PathLike, exercises: list, *, force: bool = False, derive: bool = False,
              solutions: Path | None = None) -> list[Path]:
    """Write the student copy of ``exercises`` into ``directory``; returns the files written.

    The guided level by default; ``derive`` gives the derive level's statements and blanks
    (:mod:`minigrad.exercises.derive`); ``solutions`` (a folder of reference solutions, from a
    checkout) writes the solutions themselves, for instructors. Existing files are never
    overwritten without ``force``: they may hold a student's work.
    """
    from minigrad.exercises.derive import derive_level  # noqa: PLC0415 (derive imports this module)

    directory = Path(directory)
    targets = [(ex, directory / f"{ex.name}.py", directory / f"{ex.name}.ipynb") for ex in exercises]
    existing = [str(path) for _, py, ipynb in targets for path in (py, ipynb) if path.exists()]
    if existing and not force:
        raise FileExistsError(f"refusing to overwrite {', '.join(existing)} (it may hold a student's work; "
                              f"use --force to replace it)")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for number, (ex, py, ipynb) in enumerate(targets, start=1):
        if solutions is not None:
            source = (solutions / f"{ex.name}.py").read_text(encoding="utf-8")
        else:
            source = ex.handout.read_text(encoding="utf-8")
            if derive:
                source = derive_level(ex.name, source)
        write_atomically(py, student_file(ex.name, source) if solutions is None else source)
        cells = notebook(number, ex.name, ex.title, source, blank=solutions is None)
        write_atomically(ipynb, json.dumps(cells, indent=1, ensure_ascii=False) + "\n")
        written += [py, ipynb]
    return written


def handout(source: str, filename: str) -> str:
    """The installed handout of a reference solution: its blocks blanked (``course/refresh.py``)."""
    return blank_solutions(source, filename)


# Gradescope's layout is /autograder/{source,submission,results}; AUTOGRADER and PYTHON let the
# same scripts run elsewhere (the test suite runs them in a fresh virtual environment).
GRADESCOPE_SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image: minigrad from its wheel.
set -euo pipefail
AUTOGRADER="${AUTOGRADER:-/autograder}"
"${PYTHON:-python3}" -m pip install --no-cache-dir "$AUTOGRADER"/source/minigrad_edu-*.whl
"""

GRADESCOPE_RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission: the student's files are in $AUTOGRADER/submission.
set -uo pipefail
AUTOGRADER="${{AUTOGRADER:-/autograder}}"
export MINIGRAD_DATA="${{MINIGRAD_DATA:-$AUTOGRADER/source/mnist}}"
mkdir -p "$AUTOGRADER/results"
"${{PYTHON:-python3}}" -m minigrad.exercises check {names}--dir "$AUTOGRADER/submission" \\
    --json "$AUTOGRADER/results/results.json" {options}
# the score is in results.json: a failed check is not a failed autograder
exit 0
"""


def write_gradescope(directory: Path, names: list[str], *, quick: bool = False) -> list[Path]:
    """Gradescope's ``setup.sh`` and ``run_autograder`` for ``names`` (all exercises if empty)."""
    directory.mkdir(parents=True, exist_ok=True)
    chosen = "".join(f"{name} " for name in names)
    files = {"setup.sh": GRADESCOPE_SETUP,
             "run_autograder": GRADESCOPE_RUN.format(names=chosen, options="--quick" if quick else "")}
    written = []
    for name, text in files.items():
        path = directory / name
        write_atomically(path, text)
        path.chmod(0o755)
        written.append(path)
    return written
