"""The documentation site builds with ``mkdocs build --strict``: any warning is an error.

Strict mode catches broken links and anchors, pages missing from the navigation, and
docstrings that mkdocstrings cannot render. MkDocs, Material and mkdocstrings are in the
``dev`` extra, so CI always runs this build; they are not optional here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = [f"notebooks/{path.stem}" for path in sorted((ROOT / "notebooks").glob("*.ipynb"))]


def _require_mkdocs() -> None:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
        import mkdocs_jupyter  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError as error:
        pytest.fail(f"building the docs needs the 'docs' packages (pip install -e '.[dev]'): {error}",
                    pytrace=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for this module into a temporary folder."""
    _require_mkdocs()
    if not (ROOT / "node_modules" / "mathjax" / "es5").is_dir() and shutil.which("npm") is None:
        pytest.skip("the docs site ships MathJax from npm: install Node.js, then `npm ci` in the "
                    "repository root (CI does both)")
    out = tmp_path_factory.mktemp("site")
    # Material prints a notice about MkDocs 2.0 on every build; it is not a warning about our docs.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # The build executes the notebooks; the MNIST one reads $MINIGRAD_DATA, else ../shared/data/mnist
    # where a checkout has it there, else downloads.
    shared_mnist = ROOT.parent / "shared" / "data" / "mnist"
    if "MINIGRAD_DATA" not in env and shared_mnist.is_dir():
        env["MINIGRAD_DATA"] = str(shared_mnist)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    print(f"mkdocs build --strict: {seconds:.1f} s")
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text(encoding="utf-8")


def test_every_page_in_the_nav_is_built(site: Path) -> None:
    for page in ["getting-started", "backprop-linear", "backprop-conv", "conv-algorithms", "gpu",
                 "custom-function", "notebooks", "api/tensor", "api/autograd", "api/nn", "api/functional",
                 "api/conv", "api/optim", "api/data", "api/viz", "api/backend", *NOTEBOOKS]:
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


def test_the_notebooks_are_rendered_executed_with_their_outputs(site: Path) -> None:
    assert len(NOTEBOOKS) == 5
    pages = {name: _page(site, name) for name in NOTEBOOKS}
    for name, page in pages.items():
        assert "data:image/png;base64," in page, name      # its pictures
        assert "Traceback (most recent call last)" not in page, name
    # Outputs that only running the code produces.
    assert "AccumulateGrad (a)" in pages["notebooks/01_autograd_from_zero"]       # the stepper's table
    assert "Δb by hand: Σ δ = (1) + (-1) + (2) + (0) = 2.0" in pages["notebooks/03_conv2d_backward"]
    assert re.search(r"test accuracy on 2000 images: \d+\.\d+%", pages["notebooks/04_mnist_cnn"])
    assert "Cube:         gradcheck True   gradgradcheck True" in pages["notebooks/05_hessians_and_newton"]
    assert (site / "notebooks" / "03_conv2d_backward" / "index.html").stat().st_size > 200_000


def test_each_math_page_links_its_notebook(site: Path) -> None:
    links = [("backprop-linear", "02_linear_backward"), ("backprop-conv", "03_conv2d_backward"),
             ("conv-algorithms", "03_conv2d_backward"), ("custom-function", "01_autograd_from_zero"),
             ("getting-started", "04_mnist_cnn"), ("custom-function", "05_hessians_and_newton"),
             ("architecture", "05_hessians_and_newton")]
    for page, notebook in links:
        assert f'href="../notebooks/{notebook}/"' in _page(site, page), (page, notebook)
    overview = _page(site, "notebooks")
    assert all(f'href="{path.stem}/"' in overview for path in (ROOT / "notebooks").glob("*.ipynb"))


def _signature(page: str, anchor: str) -> str:
    """The text of the signature shown under a class's heading (tags stripped)."""
    start = page.index(f'id="{anchor}"')
    block = page[start:page.index("</code></pre>", start)]
    return re.sub(r"<[^>]+>", "", block)


def test_classes_show_their_constructor_signature_and_arguments(site: Path) -> None:
    nn_page = _page(site, "api/nn")
    conv = _signature(nn_page, "minigrad.nn.modules.conv.Conv2d")
    for name in ["in_channels", "out_channels", "kernel_size", "groups", "padding_mode", "algorithm"]:
        assert name in conv, name
    stepper = _signature(_page(site, "api/autograd"), "minigrad.autograd.stepper.BackwardStepper")
    for name in ["output", "gradient", "retain_graph", "params"]:
        assert name in stepper, name
    # The Args section is rendered as a table of parameters with their descriptions.
    assert "minigrad only: how this layer" in nn_page


def test_math_is_left_for_mathjax(site: Path) -> None:
    conv = _page(site, "backprop-conv")
    assert 'class="arithmatex"' in conv
    assert r"\operatorname{rot180}" in conv
    assert "javascripts/mathjax.js" in conv


def test_mathjax_ships_with_the_site_and_no_page_loads_a_cdn(site: Path) -> None:
    bundle = site / "javascripts" / "vendor" / "mathjax" / "tex-mml-chtml.js"
    assert bundle.is_file() and bundle.stat().st_size > 500_000
    assert list((site / "javascripts" / "vendor" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert re.search(r'<script[^>]+src="https?://', text) is None, page
    assert "javascripts/vendor/mathjax/tex-mml-chtml.js" in _page(site, "backprop-conv")


def _chromium() -> str | None:
    return next(filter(None, map(shutil.which, ["chromium", "chromium-browser", "google-chrome"])), None)


def _render(browser: str, page: Path, profile: Path) -> str:
    """The page's DOM after its scripts ran, in Chromium with no network: every host name is
    unresolvable and the proxy is a closed port."""
    result = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--proxy-server=http://127.0.0.1:9", "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_math_renders_offline_in_a_headless_browser(site: Path, tmp_path: Path) -> None:
    """MathJax replaces each formula's TeX with an ``mjx-container``, on a page and in a notebook."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium (apt-get install chromium): the rendered-math check needs a browser")
    dom = _render(browser, site / "backprop-conv" / "index.html", tmp_path / "profile")
    formulas = dom.count('class="arithmatex"')
    assert formulas > 10, dom[:2000]
    assert dom.count("<mjx-container") >= formulas, "some formulas were left as raw TeX"
    raw = re.findall(r'class="arithmatex">\s*\\[(\[]', dom)   # a formula still written as TeX
    assert not raw, f"{len(raw)} formulas were not rendered"
    notebook = _render(browser, site / "notebooks" / "03_conv2d_backward" / "index.html", tmp_path / "nb")
    assert notebook.count("<mjx-container") > 20
    assert "$\\Delta W" not in notebook             # the notebook's $...$ math was typeset too


def test_the_griffe_extension_is_not_published(site: Path) -> None:
    assert not (site / "_griffe").exists()
    assert not (site / "_hooks").exists()
