"""MkDocs hook: ship MathJax with the site, so its math renders without a network.

MathJax comes from the npm registry (``package.json`` pins it, ``package-lock.json`` locks
it) into ``node_modules/``; this hook installs it there with ``npm ci`` when it is missing,
then adds the browser bundle and its fonts to the site as if they were files of ``docs/``
(``javascripts/vendor/mathjax/``). Nothing of MathJax is committed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "node_modules" / "mathjax" / "es5"
TARGET = "javascripts/vendor/mathjax"
# The bundle (TeX and MathML in, HTML-CSS out) and the fonts it loads relative to itself.
SHIPPED = ["tex-mml-chtml.js", "output/chtml/fonts/woff-v2"]


def _install() -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise PluginError(f"the docs ship MathJax from npm, but {BUNDLE} is missing and npm is not "
                          "installed: install Node.js and run `npm ci` in the repository root")
    result = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0 or not BUNDLE.is_dir():
        raise PluginError(f"`npm ci` could not install MathJax into {BUNDLE}:\n{result.stdout}\n{result.stderr}")


def on_files(files: Files, config: dict) -> Files:
    if not (BUNDLE / SHIPPED[0]).is_file():
        _install()
    for name in SHIPPED:
        source = BUNDLE / name
        paths = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [source]
        for path in paths:
            uri = f"{TARGET}/{path.relative_to(BUNDLE).as_posix()}"
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
