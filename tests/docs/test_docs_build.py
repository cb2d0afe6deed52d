"""The documentation site builds with ``mkdocs build --strict``: any warning is an error.

Strict mode catches broken links and anchors, pages missing from the navigation, and
docstrings that mkdocstrings cannot render. MkDocs, Material and mkdocstrings are in the
``dev`` extra, so CI always runs this build; they are not optional here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _require_mkdocs() -> None:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError as error:
        pytest.fail(f"building the docs needs the 'docs' packages (pip install -e '.[dev]'): {error}",
                    pytrace=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for this module into a temporary folder."""
    _require_mkdocs()
    out = tmp_path_factory.mktemp("site")
    # Material prints a notice about MkDocs 2.0 on every build; it is not a warning about our docs.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    print(f"mkdocs build --strict: {seconds:.1f} s")
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text(encoding="utf-8")


def test_every_page_in_the_nav_is_built(site: Path) -> None:
    for page in ["getting-started", "backprop-linear", "backprop-conv", "conv-algorithms", "gpu",
                 "custom-function", "notebooks", "api/tensor", "api/autograd", "api/nn", "api/functional",
                 "api/conv", "api/optim", "api/data", "api/viz", "api/backend"]:
        assert (site / page / "index.html").is_file(), page
    assert (site / "index.html").is_file()


def test_api_pages_are_generated_from_the_docstrings(site: Path) -> None:
    autograd = _page(site, "api/autograd")
    for name in ["BackwardStepper", "gradcheck", "save_for_backward", "detect_anomaly"]:
        assert name in autograd, name
    # A docstring's own words, so the page really holds the rendered docstring.
    assert "finite differences" in autograd
    conv = _page(site, "api/conv")
    for name in ["rotate_kernel", "dilate_and_pad_grad", "col2im", "grad_weight"]:
        assert name in conv, name
    # Sphinx roles in docstrings are rewritten to code by docs/_griffe/sphinx_roles.py (a role left
    # as it is would render as ":func:" followed by inline code).
    for page in (autograd, conv, _page(site, "api/tensor"), _page(site, "api/backend")):
        assert re.search(r":(func|class|meth|mod|data):<code>", page) is None


def test_math_is_left_for_mathjax(site: Path) -> None:
    conv = _page(site, "backprop-conv")
    assert 'class="arithmatex"' in conv
    assert r"\operatorname{rot180}" in conv
    assert "javascripts/mathjax.js" in conv


def test_the_griffe_extension_is_not_published(site: Path) -> None:
    assert not (site / "_griffe").exists()
