"""Helpers for the tests of ``examples/``: where things are, and running an example as a user would."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# The real MNIST files: the folder MINIGRAD_DATA names, else the shared copy some machines keep beside the
# checkout. A fresh clone has neither until MNIST is downloaded.
_SHARED_MNIST = ROOT.parent / "shared" / "data" / "mnist"
MNIST_DIR = Path(os.environ["MINIGRAD_DATA"]) if os.environ.get("MINIGRAD_DATA") else _SHARED_MNIST

needs_mnist = pytest.mark.skipif(
    not MNIST_DIR.is_dir(),
    reason=f"no MNIST at {MNIST_DIR}: set MINIGRAD_DATA to a folder holding its four IDX files "
           f"(python examples/mnist_cnn.py downloads them to ~/.cache/minigrad/mnist)")


def load_example(name: str) -> ModuleType:
    """Import ``examples/<name>.py`` as a module (the examples folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_example(script: str, *flags: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python examples/<script> <flags>`` from the repository's root, as the README runs it."""
    return subprocess.run([sys.executable, str(Path("examples") / script), *flags], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=example_env())


def example_env() -> dict:
    # One BLAS thread per example process: the test runner already keeps both cores busy,
    # and oversubscribed BLAS threads slow everything down.
    return {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
