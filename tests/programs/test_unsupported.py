"""Names PyTorch has and minigrad leaves out on purpose (minigrad/compat/unsupported.py, listed in
docs/compatibility.md): each is really PyTorch's, is really missing here, and raises a
NotImplementedError that names it and the page; any other missing name is an AttributeError."""

from __future__ import annotations

import importlib
import importlib.util

import pytest
from _reference import reference

from minigrad.compat.unsupported import UNSUPPORTED

LEFT_OUT = [(namespace, name) for namespace, table in UNSUPPORTED.items() for name in table]


@pytest.mark.parametrize("namespace, name", LEFT_OUT, ids=[f"{ns}.{n}" for ns, n in LEFT_OUT])
def test_names_left_out_on_purpose_exist_in_torch_and_raise_not_implemented(namespace, name):
    torch_namespace = namespace.replace("minigrad", "torch", 1)
    assert reference(lambda torch: _torch_has(torch_namespace, name)), \
        f"{torch_namespace}.{name} is not PyTorch's: drop it"
    ours = importlib.import_module(namespace)
    assert name not in vars(ours), f"{namespace}.{name} exists now: drop it from the table"
    with pytest.raises(NotImplementedError) as raised:
        getattr(ours, name)
    message = str(raised.value)
    assert f"{torch_namespace}.{name}" in message and "docs/compatibility.md" in message


def _torch_has(namespace: str, name: str) -> bool:
    """An attribute of PyTorch's module, or a submodule (``torch.utils.cpp_extension``) or a module
    that needs an optional package (``torch.utils.tensorboard`` needs tensorboard) found on disk."""
    try:
        if hasattr(importlib.import_module(namespace), name):
            return True
    except ImportError:
        return importlib.util.find_spec(namespace) is not None and name in _source_of(namespace)
    return importlib.util.find_spec(f"{namespace}.{name}") is not None


def _source_of(module_name: str) -> str:
    with open(importlib.util.find_spec(module_name).origin, encoding="utf-8") as file:
        return file.read()


@pytest.mark.parametrize("namespace", sorted(UNSUPPORTED))
def test_unknown_names_still_raise_attribute_error(namespace):
    module = importlib.import_module(namespace)
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018 (the attribute access is what is tested)
    assert not hasattr(module, "no_such_name")


def test_from_import_of_a_left_out_name_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="tensorboard"):
        from minigrad.utils.tensorboard import SummaryWriter  # noqa: F401, PLC0415
    with pytest.raises(NotImplementedError, match="torch.nn.LSTM"):
        from minigrad.nn import LSTM  # noqa: F401, PLC0415
