"""MkDocs hook: put the repository's notebooks (``notebooks/*.ipynb``) into the site.

They are added as if they were files of ``docs/notebooks/``, before mkdocs-jupyter (the
``mkdocs-jupyter`` plugin in ``mkdocs.yml``) looks for notebooks, and that plugin executes
each one at build time and renders it with its outputs and pictures. The notebooks stay
committed without outputs; what a reader sees is always what the current code produces.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns .ipynb files into pages
def on_files(files: Files, config: dict) -> Files:
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        # A file of the repository root: its place in the site is its path there, notebooks/NAME.
        files.append(File(path.relative_to(ROOT).as_posix(), src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files
