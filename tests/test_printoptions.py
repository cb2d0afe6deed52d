"""torch.set_printoptions: tensors print as PyTorch's do under the same options."""

import numpy
import pytest
from _reference import reference

import minigrad as mg
from minigrad._formatting import get_printoptions

VALUES = {
    "decimals": numpy.array([[1.23456, -2.5, 3.0], [0.000123, 10.0, -7.25]]),
    "long": numpy.arange(30, dtype=numpy.float32) / 7,
    "wide range": numpy.array([1e-8, 1.0, 3e5]),
    "integers": numpy.arange(12, dtype=numpy.int64).reshape(3, 4),
    "big": numpy.linspace(-1, 1, 1200).reshape(40, 30),
}
OPTIONS = [dict(precision=2), dict(precision=6), dict(threshold=5, edgeitems=1), dict(threshold=10),
           dict(linewidth=30), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"),
           dict(profile="full", linewidth=200), dict(precision=1, profile="default")]
DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def _torch_repr(torch, values, options):
    """PyTorch's repr under ``options``, its own options restored after."""
    saved = torch._tensor_str.get_printoptions()
    torch.set_printoptions(**options)
    try:
        return repr(torch.tensor(values, requires_grad=values.dtype.kind == "f"))
    finally:
        torch.set_printoptions(**saved)


@pytest.fixture(autouse=True)
def restore_print_options():
    saved = get_printoptions()
    yield
    mg.set_printoptions(**saved)


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
@pytest.mark.parametrize("name", VALUES)
def test_repr_under_print_options_matches_torch(name, options):
    values = VALUES[name]
    mg.set_printoptions(**options)
    ours = repr(mg.tensor(values, requires_grad=values.dtype.kind == "f"))
    theirs = reference(lambda torch: _torch_repr(torch, values, options),
                       inputs={"values": values, "options": repr(sorted(options.items()))})
    assert ours.replace("minigrad.", "torch.") == theirs


def test_options_stay_until_set_again_and_profiles_reset_them():
    mg.set_printoptions(precision=2)
    assert repr(mg.tensor([1.23456])) == "tensor([1.23])"
    mg.set_printoptions(profile="default")
    assert repr(mg.tensor([1.23456])) == "tensor([1.2346])"
    assert get_printoptions() == DEFAULTS
