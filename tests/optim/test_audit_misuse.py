"""Regression tests from an audit of misuse in ``optim`` and ``mg.load`` against PyTorch.

Pinned here: a learning rate given as a Tensor of several elements (SGD and Adam compared it with 0
and raised "Boolean value ... is ambiguous" instead of PyTorch's ValueError), Adam's refusal of a
Tensor lr with ``foreach=True``, and loading an empty file, which PyTorch reports with EOFError
(minigrad raised only a RuntimeError, so ``except EOFError`` loops written for PyTorch did not end).
"""

import io

import pytest
from _torch import raises_like_torch, require_torch

import minigrad as mg


def _params(lib):
    return [lib.nn.Parameter(lib.ones(2))]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_a_tensor_lr_of_several_elements_is_a_valueerror(name):
    raises_like_torch(lambda m: getattr(m.optim, name)(_params(m), lr=m.tensor([0.1, 0.2])), ValueError,
                      "Tensor lr must be 1-element")


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_refuses_a_tensor_lr_with_foreach(name):
    raises_like_torch(lambda m: getattr(m.optim, name)(_params(m), lr=m.tensor(0.1), foreach=True),
                      ValueError, "capturable=False and foreach=True")


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_a_one_element_tensor_lr_still_trains_as_torch(name):
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        params = _params(lib)
        optimizer = getattr(lib.optim, name)(params, lr=lib.tensor([0.5]))
        params[0].grad = lib.tensor([1.0, -2.0])
        optimizer.step()
        results.append(params[0].detach().numpy().tolist() if lib is torch else params[0].tolist())
    assert results[0] == pytest.approx(results[1], rel=1e-6)


def _empty_file(tmp_path):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    return path


@pytest.mark.parametrize("source", [_empty_file, lambda tmp_path: io.BytesIO(b"")], ids=["file", "stream"])
def test_loading_nothing_is_an_eoferror_as_in_torch(source, tmp_path):
    torch = require_torch()
    with pytest.raises(EOFError):
        torch.load(source(tmp_path), weights_only=True)
    with pytest.raises(EOFError) as raised:
        mg.load(source(tmp_path))
    assert isinstance(raised.value, RuntimeError)   # still the RuntimeError every refused file raises
    assert "empty" in str(raised.value)
