"""Checks of exercise 9: the student's CNN against the same network in minigrad's own ops, then training.

The capstone needs the student's other exercises: ``ns["__context__"]`` maps each
exercise name to the names the student's file for it defines (the grader fills it from
the student's folder; in a notebook, from the ``.py`` files in the current folder).
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypedDict

import numpy
from tqdm import tqdm

import minigrad.nn.functional as F
from minigrad import no_grad
from minigrad.creation import tensor, zeros
from minigrad.data import MNIST, DataLoader, Dataset, Subset
from minigrad.dtypes import float32, int64
from minigrad.exercises._grading import Wrong, expect_accuracy, expect_close, expect_flag, host, running
from minigrad.exercises.checks._common import need
from minigrad.nn.modules.module import Module
from minigrad.random import Generator, manual_seed
from minigrad.tensor import Tensor

NAMES = ("ConvNet", "train_one_epoch", "accuracy")

# where each part of the network comes from: (exercise, name in the student's file)
WHERE = {"linear": ("linear", "linear"), "conv2d": ("conv_im2col", "conv2d"),
         "relu": ("relu_maxpool", "relu"),
         "max_pool2d": ("relu_maxpool", "max_pool2d"), "cross_entropy": ("softmax_xent", "cross_entropy"),
         "SGD": ("sgd", "SGD")}
# The graded run: half an epoch (the first 30,000 training images) of SGD with momentum, tested on all
# 10,000 test images; the full epoch is MINIGRAD_CAPSTONE_TRAIN=60000. The quick run (CI, a smoke test)
# takes 24 larger steps. docs/teaching-with-minigrad.md has the measured time and memory of each.
class _Run(TypedDict):
    train: int
    test: int
    batch: int
    lr: float
    required: float


DEFAULT: _Run = {"train": 30_000, "test": 10_000, "batch": 64, "lr": 0.02, "required": 0.97}
QUICK: _Run = {"train": 768, "test": 500, "batch": 32, "lr": 0.05, "required": 0.70}
MOMENTUM, SEED = 0.9, 0


def student_parts(ns: dict) -> SimpleNamespace:
    """The student's Functions and optimiser, from the context the grader gave (or the current folder)."""
    context = ns.get("__context__")
    if context is None:
        from minigrad.exercises import load_student  # noqa: PLC0415 (the package imports the checks)

        folder, suffix = Path.cwd(), ".ipynb" if ns.get("__notebooks__") else ".py"
        files = {name + suffix for name, _ in WHERE.values()}
        missing = sorted(file for file in files if not (folder / file).exists())
        if missing:
            raise Wrong(f"the capstone uses your earlier exercises, but {', '.join(missing)} are not in "
                        f"{folder}: run it in the folder `make` created")
        context = {name: load_student(folder / (name + suffix)) for name, _ in WHERE.values()}
    found = {}
    for part, (exercise, name) in WHERE.items():
        if name not in context.get(exercise, {}):
            raise Wrong(f"the capstone needs `{name}` from your exercise {exercise!r}, which defines none")
        found[part] = context[exercise][name]
    return SimpleNamespace(**found)


def reference_forward(model: Module, x: Tensor) -> Tensor:
    """The capstone network in minigrad's own ops, with the student's model's parameters."""
    x = F.max_pool2d(F.relu(F.conv2d(x, model.conv1.weight, model.conv1.bias, padding=2)), 2)
    x = F.max_pool2d(F.relu(F.conv2d(x, model.conv2.weight, model.conv2.bias, padding=1)), 2)
    x = F.relu(F.linear(x.reshape(x.shape[0], -1), model.fc1.weight, model.fc1.bias))
    return F.linear(x, model.fc2.weight, model.fc2.bias)


def _batch(seed: int, n: int) -> tuple:
    rng = numpy.random.default_rng(seed)
    return (tensor(rng.uniform(0, 1, size=(n, 1, 28, 28)), dtype=float32),
            tensor(rng.integers(0, 10, size=n), dtype=int64))


def check_forward(ns: dict, quick: bool) -> None:
    parts = student_parts(ns)
    manual_seed(SEED)
    model = need(ns, "ConvNet")(parts)
    for n in (3, 1):
        images, _ = _batch(29, n)
        with running(f"a batch of {n} images (N, 1, 28, 28)"):
            logits = model(images)
        expected = reference_forward(model, images)
        expect_close("the network's logits", logits, expected, f"a batch of {n} images (N, 1, 28, 28)",
                     of="the logits (N, 10)", rtol=1e-4, atol=1e-5, dtype=float32)


def check_gradients(ns: dict, quick: bool) -> None:
    parts = student_parts(ns)
    manual_seed(SEED)
    model = need(ns, "ConvNet")(parts)
    images, labels = _batch(30, 4)
    with running("a batch of 4 images"):
        parts.cross_entropy(model(images), labels).backward()
    mine = {name: p.grad for name, p in model.named_parameters()}
    model.zero_grad()
    F.cross_entropy(reference_forward(model, images), labels).backward()
    for name, p in model.named_parameters():
        if mine[name] is None:
            raise Wrong(f"{name} got no gradient from your network's loss.backward()")
        expect_close(f"the gradient of {name}", mine[name], p.grad, "a batch of 4 images", of=name,
                     rtol=1e-3, atol=1e-5, dtype=float32)


def check_training(ns: dict, quick: bool) -> str:
    parts = student_parts(ns)
    sizes = QUICK if quick else DEFAULT
    if not quick and os.environ.get("MINIGRAD_CAPSTONE_TRAIN"):   # the full epoch: 60000
        sizes = _Run(train=int(os.environ["MINIGRAD_CAPSTONE_TRAIN"]), test=DEFAULT["test"],
                     batch=DEFAULT["batch"], lr=DEFAULT["lr"], required=DEFAULT["required"])
    manual_seed(SEED)
    model = need(ns, "ConvNet")(parts)
    # The student's code first, the data second: an unfinished exercise says so even without MNIST.
    need(ns, "train_one_epoch")
    model(zeros(1, 1, 28, 28))
    train: Dataset
    test: Dataset
    try:
        train, test = MNIST(train=True), MNIST(train=False)
    except RuntimeError as error:
        raise Wrong(f"MNIST is not available, so the training run cannot be graded: {error}") from None
    rehearse(ns, parts, Subset(train, range(16)))
    manual_seed(SEED)
    model = need(ns, "ConvNet")(parts)
    if sizes["train"] < len(train):
        train = Subset(train, range(sizes["train"]))
    if sizes["test"] < len(test):
        test = Subset(test, range(sizes["test"]))
    optimizer = parts.SGD(model.parameters(), lr=sizes["lr"], momentum=MOMENTUM)
    shuffle = Generator().manual_seed(SEED)
    train_loader = DataLoader(train, batch_size=sizes["batch"], shuffle=True, generator=shuffle)
    start = time.perf_counter()
    with running(f"the training run ({sizes['train']} images, batches of {sizes['batch']})"):
        loss = need(ns, "train_one_epoch")(model, optimizer, progress(train_loader, "training"), parts)
    seconds = time.perf_counter() - start
    predicted = predictions(model, progress(DataLoader(test, batch_size=1000), "testing"), ns)
    labels = MNIST(train=False).labels[:sizes["test"]]
    correct = expect_accuracy(predicted, labels, sizes["required"])
    report = (f"one pass over {sizes['train']} training images: mean loss {loss:.4f}, test accuracy "
              f"{correct:.2%} on {sizes['test']} test images ({seconds:.0f} s of training)")
    if not correct >= sizes["required"]:
        raise Wrong(f"{report}; at least {sizes['required']:.0%} is needed. {training_diagnosis(loss)}")
    return report


class _Spy:
    """The student's optimiser, counting the calls the training loop makes to it."""

    def __init__(self, optimizer: Any) -> None:
        self.optimizer, self.zero_grads, self.steps = optimizer, 0, 0

    def zero_grad(self, *args: Any, **kwargs: Any) -> Any:
        self.zero_grads += 1
        return self.optimizer.zero_grad(*args, **kwargs)

    def step(self, *args: Any, **kwargs: Any) -> Any:
        self.steps += 1
        return self.optimizer.step(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.optimizer, name)


def rehearse(ns: dict, parts: SimpleNamespace, images: Dataset) -> None:
    """Two batches through the student's training loop, watching what it does to the optimiser:
    a loop without step() or zero_grad() is named here, before a long run that only shows a loss."""
    manual_seed(SEED)
    model = need(ns, "ConvNet")(parts)
    spy = _Spy(parts.SGD(model.parameters(), lr=0.01, momentum=MOMENTUM))
    with running("a rehearsal: two batches of 8 training images"):
        need(ns, "train_one_epoch")(model, spy, DataLoader(images, batch_size=8), parts)
    expect_flag("the training loop calls optimizer.step()", spy.steps == 2,
                f"your training loop called optimizer.step() {spy.steps} times for 2 batches: once per "
                f"batch, or the parameters never move (the loss stays at ln 10 = 2.303)")
    expect_flag("the training loop calls optimizer.zero_grad()", spy.zero_grads >= 2,
                f"your training loop called optimizer.zero_grad() {spy.zero_grads} times for 2 batches: once "
                f"per batch, or each backward adds its gradients to those of every batch before it")


def predictions(model: Module, batches: Any, ns: dict) -> numpy.ndarray:
    """The class the student's model gives each test image (computed here, not by the student's code)."""
    normalise = ns.get("normalise", lambda images: images)
    model.eval()
    with no_grad():
        return numpy.concatenate([host(model(normalise(images)).argmax(dim=1)) for images, _ in batches])


def training_diagnosis(loss: float) -> str:
    """What a training run that did not learn usually lacks, from its mean loss."""
    if not math.isfinite(loss) or loss > 2.5:
        return (f"The mean loss {loss:.3g} grew past ln 10: the steps diverge — gradients that pile up "
                f"without zero_grad() before each backward, or a learning rate far too large")
    if abs(loss - math.log(10)) < 0.1:
        return (f"The mean loss {loss:.3f} stayed at ln 10 = 2.303, a uniform guess: nothing was learnt — "
                f"no step() of the optimiser, a zero learning rate, or backward() never called")
    return "The network learns, but not enough: compare your forward with the statement's network"


def progress(batches: Any, what: str) -> Any:
    """The batches with a progress bar on stderr (tqdm, a dependency), so a long run shows it is alive."""
    return tqdm(batches, desc=what, unit="batch", file=sys.stderr, mininterval=5.0, leave=False)


PARTS = [("the network's forward", 3, check_forward), ("gradients of one batch", 3, check_gradients),
                ("training run", 4, check_training)]
