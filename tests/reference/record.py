"""Rewrite the recorded PyTorch answers: ``python tests/reference/record.py [pytest arguments]``.

Runs the test suite (or the tests named) once with PyTorch and ``MINIGRAD_RECORD=1``, so every
``reference()`` call stores its live answer in ``tests/reference/records/`` (see
``tests/_reference.py``). Needs the PyTorch the records name (``pip install torch==2.13.0``);
runs in one process, since the answers are written when the session ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Suites that never ask for a reference, and are slow: not worth a serial run.
SKIP = ["tests/docs", "tests/notebooks", "tests/examples", "tests/package", "tests/memory"]


def main(arguments: list[str]) -> int:
    environment = {**os.environ, "MINIGRAD_RECORD": "1"}
    targets = arguments or ["tests", *(f"--ignore={path}" for path in SKIP)]
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", *targets]
    return subprocess.call(command, cwd=ROOT, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
