"""Teaching-layer tests: every figure a test opened is closed afterwards.

The drawing tests select matplotlib's non-interactive backend themselves (``Agg``); the
stepper tests do not need matplotlib at all.
"""

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
