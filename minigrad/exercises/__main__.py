"""``python -m minigrad.exercises list | make DIR | check [NAMES] --dir DIR | hint NAME | gradescope DIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from minigrad.exercises import EXERCISES, exercise, names, solutions_folder
from minigrad.exercises._grading import gradescope_results, print_report, write_json
from minigrad.exercises._student import make_copy, write_gradescope
from minigrad.exercises._worker import MEMORY_MB, TIME_LIMIT, grade_isolated
from minigrad.exercises.derive import next_hint


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m minigrad.exercises",
                                     description="minigrad's backprop exercises: list them, make a student "
                                                 "copy, grade it, set it up on Gradescope.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="name the exercises, what each teaches and how long it takes")
    make = commands.add_parser("make", help="write the student copy (.py and .ipynb, solutions blanked)")
    make.add_argument("dir", help="folder to write into (created if needed)")
    make.add_argument("names", nargs="*", help="only these exercises (default: all)")
    make.add_argument("--force", action="store_true", help="overwrite existing exercise files")
    make.add_argument("--derive", action="store_true",
                      help="the derive level: statements give the setting and the definitions, not the "
                           "formulas; hints unlock one at a time with `hint`")
    make.add_argument("--solutions", action="store_true",
                      help="instructors, from a checkout: write the reference solutions instead")
    make.add_argument("--solutions-dir", metavar="FOLDER", help="the solutions' folder (default: the "
                                                                 "checkout's course/solutions)")
    check = commands.add_parser("check", help="grade a student's folder, or the reference solutions")
    check.add_argument("names", nargs="*", help="only these exercises (default: all)")
    source = check.add_mutually_exclusive_group(required=True)
    source.add_argument("--dir", help="the student's folder (as `make` wrote it)")
    source.add_argument("--solutions", action="store_true",
                        help="grade the reference solutions (from a checkout)")
    check.add_argument("--solutions-dir", metavar="FOLDER", help="the solutions' folder (default: the "
                                                                  "checkout's course/solutions)")
    check.add_argument("--json", metavar="FILE", help="also write the results as Gradescope's results.json")
    check.add_argument("--notebooks", action="store_true",
                       help="grade the notebooks (NAME.ipynb) instead of the .py files")
    check.add_argument("--quick", action="store_true",
                       help="the capstone trains on a small subset of MNIST (a smoke test)")
    check.add_argument("--time-limit", type=float, default=TIME_LIMIT, metavar="SECONDS",
                       help=f"per graded part (default {TIME_LIMIT:g}; the capstone's training run: 600)")
    check.add_argument("--memory-limit", type=int, default=MEMORY_MB, metavar="MB",
                       help=f"of each grading process, where the platform allows (default {MEMORY_MB})")
    hint = commands.add_parser("hint", help="the derive level: unlock the next hint of an exercise")
    hint.add_argument("name", help="the exercise")
    hint.add_argument("--dir", default=".", help="the student's folder (where the hints used are noted)")
    gradescope = commands.add_parser("gradescope", help="write Gradescope's setup.sh and run_autograder")
    gradescope.add_argument("dir", help="folder to write into (zip it with minigrad's wheel and MNIST)")
    gradescope.add_argument("names", nargs="*", help="only these exercises (default: all)")
    gradescope.add_argument("--quick", action="store_true", help="the capstone's smoke-test size")
    return parser.parse_args(argv)


def command_list(args: argparse.Namespace) -> int:
    for number, ex in enumerate(EXERCISES, start=1):
        blocks = ex.handout.read_text(encoding="utf-8").count("raise NotImplementedError(")
        blanks = f"{blocks} blank" + ("s" if blocks != 1 else "")
        print(f"{number:2d}. {ex.name:13s} {ex.title} (~{ex.minutes} min, {blanks})\n"
              f"    {'':13s} {ex.teaches}")
    return 0


def _unknown(chosen: list[str]) -> bool:
    unknown = [name for name in chosen if name not in names()]
    if unknown:
        print(f"error: no exercise named {', '.join(unknown)}; the exercises are: {', '.join(names())}",
              file=sys.stderr)
    return bool(unknown)


def _solutions(folder: str | None) -> Path | None:
    try:
        return solutions_folder(folder or None)
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return None


def command_make(args: argparse.Namespace) -> int:
    if _unknown(args.names):
        return 2
    solutions = None
    if args.solutions:
        solutions = _solutions(args.solutions_dir)
        if solutions is None:
            return 2
    chosen = [exercise(name) for name in args.names] if args.names else EXERCISES
    try:
        written = make_copy(args.dir, chosen, force=args.force, derive=args.derive, solutions=solutions)
    except FileExistsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    level = "the reference solutions" if solutions else "derive level" if args.derive else "guided level"
    print(f"wrote {len(written)} files ({level}) to {args.dir}: one .py and one .ipynb per exercise")
    print(f"students fill in the blanks, then:  python -m minigrad.exercises check --dir {args.dir}")
    return 0


def command_check(args: argparse.Namespace) -> int:
    chosen = args.names or names()
    if _unknown(chosen):
        return 2
    if args.solutions:
        folder = _solutions(args.solutions_dir)
        if folder is None:
            return 2
    else:
        folder = Path(args.dir)
    suffix = ".ipynb" if args.notebooks else ".py"
    results = []
    for name in chosen:
        results += grade_isolated(name, folder, suffix, quick=args.quick, time_limit=args.time_limit,
                                  memory_mb=args.memory_limit)
    print_report(results)
    if args.json:
        write_json(args.json, gradescope_results(results))
        print(f"wrote {args.json}")
    return 0 if all(r.passed for r in results) else 1


def command_hint(args: argparse.Namespace) -> int:
    if _unknown([args.name]):
        return 2
    print(next_hint(args.name, Path(args.dir)))
    return 0


def command_gradescope(args: argparse.Namespace) -> int:
    if _unknown(args.names):
        return 2
    for path in write_gradescope(Path(args.dir), args.names, quick=args.quick):
        print(f"wrote {path}")
    print(f"then put minigrad's wheel (pip wheel --no-deps .) and MNIST's four files (in mnist/) into "
          f"{args.dir}, zip its contents and upload the zip as the autograder")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    commands = {"list": command_list, "make": command_make, "check": command_check, "hint": command_hint,
                "gradescope": command_gradescope}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
