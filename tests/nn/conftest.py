"""Fixtures shared by the nn tests."""

import pytest
import standin_cupy

import minigrad as mg


@pytest.fixture
def cuda():
    standin_cupy.install()
    try:
        yield mg.device("cuda")
    finally:
        mg.set_backend("numpy")
        standin_cupy.uninstall()
