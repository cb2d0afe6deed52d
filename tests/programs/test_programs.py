"""Each course-style program (``prog_*.py``, see conftest.py) runs unchanged on minigrad and on
PyTorch, and the results agree as the program's ``compare`` says."""

from __future__ import annotations


def test_program_runs_alike_on_minigrad_and_pytorch(program, run_program):
    module, ours, theirs = run_program(program)
    module.compare(ours, theirs)
