"""``python -m minigrad.exercises list | make DIR | check [NAMES] --dir DIR [--json FILE]``."""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path
from typing import Any

from minigrad.exercises import EXERCISES, exercise, grade, load_student, names
from minigrad.exercises._grading import gradescope_results, print_report, write_json
from minigrad.exercises._student import count_blocks, make_copy


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m minigrad.exercises",
                                     description="minigrad's backprop exercises: list them, make a student "
                                                 "copy, grade one.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="name the exercises, what each teaches and how long it takes")
    make = commands.add_parser("make", help="write the student copy (.py and .ipynb, solutions blanked)")
    make.add_argument("dir", help="folder to write into (created if needed)")
    make.add_argument("names", nargs="*", help="only these exercises (default: all)")
    make.add_argument("--force", action="store_true", help="overwrite existing exercise files")
    check = commands.add_parser("check", help="grade a student's folder, or the reference solutions")
    check.add_argument("names", nargs="*", help="only these exercises (default: all)")
    source = check.add_mutually_exclusive_group(required=True)
    source.add_argument("--dir", help="the student's folder (as `make` wrote it)")
    source.add_argument("--solutions", action="store_true", help="grade the reference solutions")
    check.add_argument("--json", metavar="FILE", help="also write the results as Gradescope's results.json")
    check.add_argument("--notebooks", action="store_true",
                       help="grade the notebooks (NAME.ipynb) instead of the .py files")
    check.add_argument("--quick", action="store_true",
                       help="the capstone trains on a subset of MNIST (seconds instead of minutes)")
    return parser.parse_args(argv)


def command_list() -> int:
    for number, ex in enumerate(EXERCISES, start=1):
        blocks = count_blocks(Path(inspect.getfile(ex.solution)).read_text(encoding="utf-8"))
        blanks = f"{blocks} blank" + ("s" if blocks != 1 else "")
        print(f"{number}. {ex.name:13s} {ex.title} (~{ex.minutes} min, {blanks})\n"
              f"   {'':13s} {ex.teaches}")
    return 0


def command_make(args: argparse.Namespace) -> int:
    unknown = [name for name in args.names if name not in names()]
    if unknown:
        print(f"error: no exercise named {', '.join(unknown)}; the exercises are: {', '.join(names())}",
              file=sys.stderr)
        return 2
    chosen = [exercise(name) for name in args.names] if args.names else EXERCISES
    try:
        written = make_copy(args.dir, chosen, force=args.force)
    except FileExistsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files to {args.dir}: one .py and one .ipynb per exercise")
    print(f"students fill in the blanks, then:  python -m minigrad.exercises check --dir {args.dir}")
    return 0


def command_check(args: argparse.Namespace) -> int:
    chosen = args.names or names()
    unknown = [name for name in chosen if name not in names()]
    if unknown:
        print(f"error: no exercise named {', '.join(unknown)}; the exercises are: {', '.join(names())}",
              file=sys.stderr)
        return 2
    context: dict[str, dict[str, Any]] = {}
    errors: dict[str, BaseException] = {}
    # every exercise is loaded (the capstone uses the others), but only the chosen ones are graded
    for name in names():
        if args.solutions:
            context[name] = vars(exercise(name).solution)
            continue
        path = Path(args.dir) / f"{name}{'.ipynb' if args.notebooks else '.py'}"
        if not path.exists():
            errors[name] = FileNotFoundError(f"there is no {path}")
            continue
        try:
            context[name] = load_student(path)
        except (Exception, SystemExit) as error:  # noqa: BLE001 (a broken file is a failed exercise)
            errors[name] = error
    results = []
    for name in chosen:
        results += grade(name, context.get(name, {}), quick=args.quick, load_error=errors.get(name),
                         context=context)
    print_report(results)
    if args.json:
        write_json(args.json, gradescope_results(results))
        print(f"wrote {args.json}")
    return 0 if all(r.passed for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "list":
        return command_list()
    if args.command == "make":
        return command_make(args)
    return command_check(args)


if __name__ == "__main__":
    sys.exit(main())
