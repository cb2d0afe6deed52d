"""Every core test runs twice: on NumPy ('cpu') and on the strict CuPy stand-in ('cuda').

The tests create tensors on the default device and read results back with
``helpers.to_numpy``, so the same test body exercises both array modules; the stand-in
refuses what real CuPy refuses (implicit host copies, host arrays mixed into device ops).
"""

from __future__ import annotations

import pytest
import standin_cupy

import minigrad as mg
from minigrad import backend


@pytest.fixture(autouse=True, params=["numpy", "cupy"], ids=["cpu", "standin-cuda"])
def device(request):
    """The device new tensors land on in this run: ``mg.device('cpu')`` or ``mg.device('cuda')``.

    For the 'cupy' run the CuPy stand-in serves 'cuda' and ``mg.set_backend('cupy')`` makes it
    the default; afterwards the backend is NumPy again and the stand-in is forgotten (also after
    tests that installed it themselves).
    """
    if request.param == "cupy":
        standin_cupy.install()
    mg.set_backend(request.param)
    try:
        yield backend.default_device()
    finally:
        mg.set_backend("numpy")
        standin_cupy.uninstall()


@pytest.fixture
def cuda_standin():
    """Make 'cuda' usable (the stand-in) for a test that mixes devices, whatever the default device."""
    return standin_cupy.install()
