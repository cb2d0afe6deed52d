"""Regenerate what minigrad installs from the reference solutions here (instructors and developers).

    python course/refresh.py            # rewrite the handouts and the recorded answers
    python course/refresh.py --check    # exit 1 if either is out of date (a test in tests/exercises runs it)

The handouts (``minigrad/exercises/handouts/NAME.py``) are the solutions with every block
blanked. The recorded answers (``minigrad/exercises/answers/NAME.npz``) are minigrad's own
results for every value each check compares, on the checks' seeded inputs; the grader's
process judges a student's values against them (see ``minigrad/exercises/_worker.py``).
Recording runs the reference solutions, with MNIST for the capstone (``MINIGRAD_DATA``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from minigrad.exercises import EXERCISES, HANDOUTS, _grading, exercise, grade_one_part, load_folder
from minigrad.exercises._student import handout
from minigrad.exercises._worker import ANSWERS, load_answers, save_answers

SOLUTIONS = Path(__file__).resolve().parent / "solutions"


def record(name: str, context: dict) -> list[list[dict]]:
    """Every part of ``name`` run on the reference solution; the values it compared, per part."""
    parts = []
    for index, (part, _, _) in enumerate(exercise(name).parts):
        _grading.OBSERVER = observed = []
        result = grade_one_part(name, index, context[name], quick=True, context=context)
        _grading.OBSERVER = None
        if not result.passed:
            raise SystemExit(f"the reference solution fails {name}: {part}: {result.message}")
        parts.append([{"expected": o["expected"], "meta": o["meta"]} for o in observed])
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether anything is out of date")
    parser.add_argument("names", nargs="*", help="only these exercises")
    args = parser.parse_args(argv)
    context, errors = load_folder(SOLUTIONS)
    if errors:
        raise SystemExit(f"the reference solutions do not load: {errors}")
    stale = []
    for ex in EXERCISES:
        if args.names and ex.name not in args.names:
            continue
        text = handout((SOLUTIONS / f"{ex.name}.py").read_text(encoding="utf-8"), f"{ex.name}.py")
        if not ex.handout.exists() or ex.handout.read_text(encoding="utf-8") != text:
            stale.append(str(ex.handout))
            if not args.check:
                HANDOUTS.mkdir(exist_ok=True)
                ex.handout.write_text(text, encoding="utf-8", newline="\n")
        answers = record(ex.name, context)
        if not (ANSWERS / f"{ex.name}.npz").exists() or not _same(load_answers(ex.name), answers):
            stale.append(str(ANSWERS / f"{ex.name}.npz"))
            if not args.check:
                save_answers(ex.name, answers)
    if stale:
        print(("out of date: " if args.check else "rewrote: ") + ", ".join(stale))
    return 1 if stale and args.check else 0


def _same(recorded: list[list[dict]], fresh: list[list[dict]]) -> bool:
    """The recorded answers are the fresh ones: same values (to the comparisons' tolerance), same meta."""
    if len(recorded) != len(fresh):
        return False
    for old_part, new_part in zip(recorded, fresh):
        if len(old_part) != len(new_part):
            return False
        for old, new in zip(old_part, new_part):
            if old["meta"] != new["meta"] or _grading.judge(new["expected"], old["expected"], old["meta"]):
                return False
    return True


if __name__ == "__main__":
    sys.exit(main())
