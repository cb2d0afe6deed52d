"""Every public class of nn, optim, data, the stepper and viz documents its constructor: help(nn.Conv2d) lists
in_channels ... algorithm with what each means (the API pages render the same Args sections)."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

MODULES = ["minigrad.nn.modules.module", "minigrad.nn.parameter", "minigrad.nn.modules.container",
           "minigrad.nn.modules.sequential",
           "minigrad.nn.modules.linear", "minigrad.nn.modules.conv", "minigrad.nn.modules.pooling",
           "minigrad.nn.modules.activation", "minigrad.nn.modules.batchnorm", "minigrad.nn.modules.dropout",
           "minigrad.nn.modules.flatten", "minigrad.nn.modules.loss", "minigrad.autograd.stepper",
           "minigrad.viz.graph", "minigrad.viz.layout", "minigrad.viz.watch", "minigrad.optim.optimizer",
           "minigrad.optim.sgd", "minigrad.optim.adam", "minigrad.optim.adadelta", "minigrad.optim.adagrad",
           "minigrad.optim.rmsprop", "minigrad.optim.lr_scheduler", "minigrad.data.dataloader",
           "minigrad.data.dataset", "minigrad.data.sampler", "minigrad.data.mnist",
           "minigrad.autograd.anomaly", "minigrad.nn.modules.normalization", "minigrad.nn.modules.sparse",
           "minigrad.nn.modules.distance",
           "minigrad.autograd.grad_mode"]


def public_classes():
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if inspect.isclass(value) and not attribute.startswith("_") and value.__module__ == name:
                yield pytest.param(value, id=f"{name.rsplit('.', 1)[-1]}.{attribute}")


def constructor_arguments(cls) -> list[str]:
    if not any("__init__" in vars(base) for base in cls.__mro__ if base.__module__.startswith("minigrad")):
        return []  # a builtin's constructor (str, tuple)
    return [p.name for p in inspect.signature(cls).parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@pytest.mark.parametrize("cls", list(public_classes()))
def test_every_constructor_argument_is_documented(cls):
    arguments = constructor_arguments(cls)
    doc = inspect.getdoc(cls) or ""
    section = re.split(r"^(?:Args|Attributes):\s*$", doc, maxsplit=1, flags=re.M)
    documented = set(re.findall(r"^    (\w+):", section[1], flags=re.M)) if len(section) == 2 else set()
    assert not set(arguments) - documented, f"{cls.__name__} does not document {set(arguments) - documented}"


def test_help_of_conv2d_shows_its_signature_and_arguments():
    import pydoc

    import minigrad.nn as nn

    text = pydoc.render_doc(nn.Conv2d, renderer=pydoc.plaintext)
    signature = text.split("\n")[3]
    for name in ["in_channels", "out_channels", "kernel_size", "groups", "padding_mode", "algorithm"]:
        assert name in signature, name
        assert re.search(rf"^ \|      {name}: \S", text, flags=re.M), name
    assert "Args:" in text
