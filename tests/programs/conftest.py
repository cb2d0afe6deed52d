"""Runs every course-style program here on minigrad and, when installed, on PyTorch.

A program is a file ``prog_*.py`` with ``main(torch) -> dict`` — written as course code is,
against whatever module it is handed as ``torch`` — and ``compare(ours, theirs)``, which asserts
what must hold for minigrad's results alone (trends: a loss that falls, samples that are
well formed) and, given PyTorch's results, that the two agree (values where the program is
deterministic, trends where its random numbers differ). ``theirs`` is None without PyTorch.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _torch import torch_required

import minigrad

HERE = Path(__file__).parent
PROGRAMS = sorted(path.stem for path in HERE.glob("prog_*.py"))


def load_program(name: str) -> ModuleType:
    """The program module, loaded from its file (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"minigrad_course_program_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pytorch() -> ModuleType | None:
    """PyTorch when installed (required when ``MINIGRAD_REQUIRE_TORCH`` is set), else None."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        if torch_required():
            pytest.fail("MINIGRAD_REQUIRE_TORCH is set but PyTorch cannot be imported")
        return None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "program" in metafunc.fixturenames:
        metafunc.parametrize("program", PROGRAMS)


@pytest.fixture
def run_program() -> Callable[[str], tuple[ModuleType, Any, Any]]:
    """``run_program(name)``: the program, its results on minigrad, and on PyTorch (or None);
    each library is seeded with 0 first, as a course notebook seeds at the top."""
    def run(name: str) -> tuple[ModuleType, Any, Any]:
        program = load_program(name)
        minigrad.manual_seed(0)
        ours = program.main(minigrad)
        torch = _pytorch()
        theirs = None
        if torch is not None:
            torch.manual_seed(0)
            theirs = program.main(torch)
        return program, ours, theirs
    return run
