"""A call's outcome on either library, as plain data: the tensors it returns (dtype and values) or
the type of the exception it raises; and the comparison of two outcomes (``test_edges.py`` and
``test_edge_properties.py`` run the same code on PyTorch and on minigrad and compare them)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

import minigrad as mg

from .helpers import to_numpy


def outcome(case: Callable[[Any], Any], lib: Any) -> Any:
    """What ``case(lib)`` gives: its result as plain data (tensors as ``[dtype name, array]``), or
    ``"raises <ExceptionType>"``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's deprecation warnings (uint8 masks, list keys)
            result = case(lib)
    except Exception as error:  # noqa: BLE001 (the exception's type is the answer)
        return f"raises {type(error).__name__}"
    return _plain(result)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, mg.Tensor):
        return [value.dtype.name, to_numpy(value.detach())]
    if hasattr(value, "detach"):  # a torch tensor (force: also a ZeroTensor)
        try:
            return [str(value.dtype).rsplit(".", 1)[-1], value.detach().cpu().numpy(force=True)]
        except ValueError:  # PyTorch's expand(-2) makes a tensor of negative size
            return f"a tensor of invalid size {list(value.shape)}"
    if hasattr(value, "is_floating_point"):  # a dtype
        return str(value).rsplit(".", 1)[-1]
    return value


def assert_same_outcome(ours: Any, theirs: Any, where: str = "outcome") -> None:
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{where}: {ours!r} vs PyTorch {theirs!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            assert_same_outcome(o, t, f"{where}[{i}]")
    elif isinstance(theirs, numpy.ndarray):
        assert isinstance(ours, numpy.ndarray) and ours.shape == theirs.shape, \
            f"{where}: {ours!r} vs {theirs!r}"
        if theirs.dtype.kind == "f":
            tolerance = 1e-3 if theirs.dtype == numpy.float16 else 1e-6
            numpy.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance, equal_nan=True,
                                          err_msg=where)
        else:
            numpy.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert isinstance(ours, float) and math.isnan(ours), f"{where}: {ours!r} vs PyTorch nan"
    else:
        assert ours == theirs, f"{where}: minigrad {ours!r}, PyTorch {theirs!r}"
