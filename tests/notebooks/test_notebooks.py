"""Every notebook in notebooks/ runs top to bottom, headless, and is committed without outputs.

The convention (notebooks/README.md): notebooks are committed with no outputs and no
execution counts; this test executes each one in a fresh ``python3`` kernel (ipykernel)
with nbclient and fails if any cell raises. Outputs live only in memory here, so nothing
stale is ever committed.

A notebook that reads MNIST finds it where ``minigrad.data.MNIST`` looks
(``$MINIGRAD_DATA``, else ``~/.cache/minigrad/mnist``); for a developer's convenience the
shared copy beside the checkout (``../shared/data/mnist``, which CI also uses) is tried
too. Such a notebook is skipped only when MNIST is in none of those places and
``MINIGRAD_DATA`` is unset; with ``MINIGRAD_DATA`` set (as in CI) missing files fail.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SHARED_MNIST = ROOT.parent / "shared" / "data" / "mnist"

CELL_TIMEOUT = 600   # seconds for any one cell: generous, for a loaded CI machine
BUDGET = 120         # seconds a notebook may take alone on a 2-core CPU (the limit)
ALLOWANCE = 2        # CI runs the tests in parallel on a shared machine: allow twice the budget


def _nbformat():
    try:
        import nbformat
    except ImportError as error:
        pytest.fail(f"the notebook tests need nbformat, nbclient and ipykernel (pip install -e '.[dev]'): "
                    f"{error}", pytrace=False)
    return nbformat


def _has_mnist(folder: Path) -> bool:
    from minigrad.data.mnist import FILES, find_file

    return all(find_file(folder, spec.name) is not None for pair in FILES.values() for spec in pair)


def _mnist_folder() -> Path:
    """Where the notebook should read MNIST from; skips (or fails, in CI) when it is nowhere."""
    from minigrad.data.mnist import default_root

    if os.environ.get("MINIGRAD_DATA"):
        folder = default_root()
        if not _has_mnist(folder):
            pytest.fail(f"MINIGRAD_DATA={folder} does not hold the four MNIST files", pytrace=False)
        return folder
    for folder in (default_root(), SHARED_MNIST):
        if _has_mnist(folder):
            return folder
    pytest.skip(f"MNIST is not in {default_root()} nor in {SHARED_MNIST}: run "
                "`python -c \"from minigrad.data import MNIST; MNIST(); MNIST(train=False)\"` once with a "
                "network, or set MINIGRAD_DATA to a folder holding the four files")


def _reads_mnist(notebook) -> bool:
    return any(cell.cell_type == "code" and "MNIST(" in cell.source for cell in notebook.cells)


@pytest.fixture
def python3_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The ``python3`` kernel, pinned to this interpreter (not whatever 'python3' kernel is installed)."""
    try:
        from ipykernel.kernelspec import write_kernel_spec
    except ImportError as error:
        pytest.fail(f"the notebook tests need ipykernel (pip install -e '.[dev]'): {error}", pytrace=False)
    write_kernel_spec(path=str(tmp_path / "jupyter" / "kernels" / "python3"))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))  # searched before any other kernel folder
    return "python3"


def test_the_notebooks_are_there() -> None:
    names = [path.stem for path in NOTEBOOKS]
    assert len(names) >= 4, names
    for topic in ("autograd", "linear", "conv2d", "mnist"):
        assert any(topic in name for name in names), f"no notebook about {topic}: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path: Path) -> None:
    notebook = _nbformat().read(path, as_version=4)
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}, cell {number} has outputs: clear them before committing"
            assert cell.execution_count is None, f"{path.name}, cell {number} has an execution count"
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, python3_kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = _nbformat()
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    if _reads_mnist(notebook):
        monkeypatch.setenv("MINIGRAD_DATA", str(_mnist_folder()))  # the kernel inherits the environment
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name=python3_kernel,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError, naming the cell and the exception, if a cell raises
    seconds = time.perf_counter() - start
    print(f"{path.name}: {seconds:.1f} s")
    assert seconds < ALLOWANCE * BUDGET, (
        f"{path.name} took {seconds:.0f} s; a notebook must run in under {BUDGET} s on a 2-core CPU")
