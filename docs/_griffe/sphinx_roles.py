"""A griffe extension for the API pages: Sphinx roles in docstrings become Markdown code.

Some docstrings say :func:`to_device` or :class:`~minigrad.autograd.engine.BackwardPass`
(Sphinx's cross-reference roles). Markdown has no roles, so this shows them as inline
code with the name as written (a leading ``~`` keeps only the last part, as in Sphinx).
Loaded from mkdocs.yml; the library's docstrings stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc):`(~?)([^`]+)`")


def _as_code(match: re.Match) -> str:
    short, name = match.groups()
    return f"`{name.rsplit('.', 1)[-1] if short else name}`"


class SphinxRoles(Extension):
    """Rewrite ``:role:`name``` as ```name``` in every docstring griffe loads."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_as_code, obj.docstring.value)
