"""Names PyTorch has and minigrad leaves out on purpose (minigrad/compat/unsupported.py, listed in
docs/compatibility.md): each is really PyTorch's, is really missing here, and raises a
NotImplementedError that names it and the page; any other missing name is an AttributeError."""

from __future__ import annotations

import importlib
import importlib.util
import operator
import types
from pathlib import Path

import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg
from minigrad.compat.unsupported import UNSUPPORTED, pytorch_names

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


# --- every other public PyTorch name: NotImplementedError, listed in minigrad/compat/_pytorch_names.txt -----

NAMESPACES = {"torch": "minigrad", "torch.Tensor": "minigrad.Tensor", "torch.nn": "minigrad.nn",
              "torch.nn.functional": "minigrad.nn.functional", "torch.optim": "minigrad.optim"}
NAMES_FILE = Path(__file__).resolve().parents[2] / "minigrad" / "compat" / "_pytorch_names.txt"


def _owner(namespace: str):
    return mg.ones(2, 2) if namespace == "minigrad.Tensor" else importlib.import_module(namespace)


def _public_names(torch, namespace: str) -> list[str]:
    return sorted(n for n in dir(operator.attrgetter(namespace.partition(".")[2])(torch) if "." in namespace
                                  else torch) if not n.startswith("_"))


def names_file_text(torch) -> str:
    """The contents of ``_pytorch_names.txt`` for the installed PyTorch (``PYTHONPATH=tests python
    tests/programs/test_unsupported.py`` writes it)."""
    version = torch.__version__.split("+")[0]
    lines = [f"# PyTorch {version}'s public names (dir() without the leading-underscore ones), one",
             "# section per namespace. minigrad raises NotImplementedError for those it lacks "
             "(minigrad/compat/unsupported.py);",
             "# tests/programs/test_unsupported.py compares them with the installed PyTorch and rewrites "
             "this file."]
    for namespace in NAMESPACES:
        lines.append(f"[{namespace}]")
        row: list[str] = []
        for name in _public_names(torch, namespace):
            if sum(len(n) + 1 for n in row) + len(name) > 100:
                lines.append(" ".join(row))
                row = []
            row.append(name)
        lines.append(" ".join(row))
    return "\n".join(lines) + "\n"


def test_the_names_file_is_pytorchs_own_list():
    torch = require_torch()
    recorded_version = NAMES_FILE.read_text(encoding="utf-8").split("'", 1)[0].split()[-1]
    if torch.__version__.split("+")[0] != recorded_version:
        pytest.skip(f"the list is PyTorch {recorded_version}'s; this is {torch.__version__}")
    for namespace in NAMESPACES:
        # submodules imported since (by this process) may add names, but none may be missing
        missing = pytorch_names(namespace) - set(_public_names(torch, namespace))
        new = {name for name in set(_public_names(torch, namespace)) - pytorch_names(namespace)
               if not isinstance(getattr(torch, name, None), types.ModuleType)}
        assert not missing and not new, (f"minigrad/compat/_pytorch_names.txt is stale ({namespace}: "
                                         f"{sorted(missing)} gone, {sorted(new)} new): run "
                                         "PYTHONPATH=tests python tests/programs/test_unsupported.py")


@pytest.mark.parametrize("torch_namespace", NAMESPACES)
def test_every_pytorch_name_exists_or_raises_not_implemented(torch_namespace):
    namespace = NAMESPACES[torch_namespace]
    owner = _owner(namespace)
    names = pytorch_names(torch_namespace)
    assert len(names) > 10  # the file was read
    missing = 0
    for name in sorted(names):
        try:
            getattr(owner, name)
        except NotImplementedError as error:
            missing += 1
            assert f"{torch_namespace}.{name} is not supported" in str(error) and "docs/compatibility.md" in \
                str(error)
        # any other exception (an AttributeError) fails the test
    assert missing < len(names)


def test_a_tensor_names_pytorchs_missing_methods_and_keeps_attribute_error_for_the_rest():
    t = mg.ones(2)
    with pytest.raises(NotImplementedError, match=r"torch\.Tensor\.pin_memory is not supported.*compat"):
        t.pin_memory()
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_name'"):
        t.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="'Parameter' object has no attribute '_private'"):
        mg.nn.Parameter(t)._private  # noqa: B018
    assert getattr(t, "no_such_name", 5) == 5 and not hasattr(t, "no_such_name")
    # code that probes (matplotlib's hasattr(x, 'values')) is told "no" quietly, as for any missing name
    assert not hasattr(t, "pin_memory") and getattr(t, "values", None) is None
    assert not hasattr(mg, "meshgrid_not_yet") and not hasattr(mg, "set_flush_denormal")


if __name__ == "__main__":  # rewrite minigrad/compat/_pytorch_names.txt from the installed PyTorch
    import torch as _installed

    NAMES_FILE.write_text(names_file_text(_installed), encoding="utf-8")
