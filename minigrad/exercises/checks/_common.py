"""What every exercise's checks share: finding the student's names."""

from __future__ import annotations

from typing import Any

from minigrad.exercises._grading import Wrong


def need(ns: dict, name: str) -> Any:
    """The object the student's code defines as ``name``."""
    if name not in ns:
        raise Wrong(f"your code defines no `{name}` (the exercise asks for it by that name)")
    return ns[name]
