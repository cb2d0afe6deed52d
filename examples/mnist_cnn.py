"""Train a small CNN on MNIST with minigrad: the README's first command.

    python examples/mnist_cnn.py                   # 3 epochs on all 60,000 images: 99.3% test accuracy
    python examples/mnist_cnn.py --resume          # continue from the last checkpoint
    python examples/mnist_cnn.py --train-subset 10000 --batch-size 32 --epochs 2   # quicker: about 98%

The model is two convolutions (each followed by ReLU and 2x2 max-pooling), then two linear
layers. It is ordinary PyTorch code with ``torch`` spelled ``mg``.

After every epoch the output folder (``--out``) gets ``checkpoint.mg`` (model and optimiser
state, the epoch, both random generators' states, the history) and ``metrics.json``; at the end,
``curves.png`` (loss and accuracy) and ``filters.png`` (the first layer's learned filters).
The same seed gives the same numbers, and ``--resume`` continues at the next epoch with exactly
the numbers an uninterrupted run would have produced. Ctrl-C stops cleanly (exit code 130),
keeping the last complete checkpoint.

After a crash: the checkpoint is the record. It is replaced in one step (``mg.save`` renames a
finished file over it), it holds the whole history, and ``--resume`` rewrites ``metrics.json``
and the plots from it, so a run killed between the two writes loses nothing. Temporary files
that a killed run left in ``--out`` are removed when the next run starts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from tqdm import tqdm

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad import optim
from minigrad.data import MNIST, DataLoader, Subset
from minigrad.viz import watch

MEAN, STD = 0.1307, 0.3081  # of MNIST's training pixels (scaled to [0, 1]): inputs become ~N(0, 1)
CHECKPOINT = "checkpoint.mg"
METRICS = "metrics.json"
# The settings that change the numbers: --resume refuses a checkpoint made with others.
RUN_SETTINGS = ("seed", "batch_size", "lr", "optimizer", "train_subset", "freeze_conv")
CHECKPOINT_KEYS = ("epoch", "model", "optimizer", "scheduler", "rng_state", "loader_rng_state", "history",
                   "settings")
# Temporary files of this program's own naming, left behind when a run is killed while writing:
# mg.save's ".checkpoint.mg.<12 hex digits>.tmp" and write_json's "metrics.json.tmp".
STALE_TEMPORARY = re.compile(rf"\.{re.escape(CHECKPOINT)}\.[0-9a-f]{{12}}\.tmp|{re.escape(METRICS)}\.tmp")
# What to expect against PyTorch, as measured (docs/performance.md, "Where the training step stands"):
# this model's training step, batch 64, minigrad's time over PyTorch's, both in one interleaved run.
# Images/s depend on the machine; this ratio much less.
PYTORCH_RATIO = ("a step takes 0.89x PyTorch's time on 1 thread, 1.00x on 2 "
                 "(quiet 2-core AMD EPYC, OpenBLAS 0.3.31; docs/performance.md)")


def make_model(nn: ModuleType = nn) -> Any:
    """The CNN: images (N, 1, 28, 28) -> logits (N, 10).

    ``nn`` is a parameter so that ``benchmarks/mnist.py`` can build the identical model with
    PyTorch's ``torch.nn``.
    """
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool2d(2),   # -> 32 x 14 x 14
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # -> 64 x 7 x 7
        nn.Flatten(),
        nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
        nn.Linear(128, 10),
    )


def make_optimizer(name: str, params: list, lr: float) -> Any:
    if name == "adam":
        return optim.Adam(params, lr=lr)
    return optim.SGD(params, lr=lr, momentum=0.9)


DEFAULT_LR = {"adam": 2e-3, "sgd": 0.05}
LR_DECAY = 0.3  # the learning rate is multiplied by this after every epoch


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Train a CNN on MNIST with minigrad.")
    parser.add_argument("--epochs", type=int, default=3, help="number of passes over the training set (3)")
    parser.add_argument("--batch-size", type=int, default=64, help="training images per step (64)")
    parser.add_argument("--optimizer", choices=["adam", "sgd"], default="adam",
                        help="Adam, or SGD with momentum 0.9 (adam)")
    parser.add_argument("--lr", type=float, default=None,
                        help="learning rate of the first epoch, multiplied by 0.3 after each epoch "
                             "(adam: 2e-3, sgd: 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seeds initialisation and shuffling (0)")
    parser.add_argument("--data", default=None,
                        help="folder with the four MNIST files (default: $MINIGRAD_DATA, else "
                             "~/.cache/minigrad/mnist)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (cpu)")
    parser.add_argument("--out", default="runs/mnist_cnn", help="output folder (runs/mnist_cnn)")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    parser.add_argument("--train-subset", type=int, default=None, metavar="N",
                        help="train on the first N training images only")
    parser.add_argument("--test-subset", type=int, default=None, metavar="M",
                        help="test on the first M test images only")
    parser.add_argument("--freeze-conv", action="store_true",
                        help="train only the linear layers, on top of the random initial convolutions")
    parser.add_argument("--watch", action="store_true",
                        help="record per-layer statistics while training and write them to watch.png")
    args = parser.parse_args(argv)
    if args.lr is None:
        args.lr = DEFAULT_LR[args.optimizer]
    return args


# --- data ------------------------------------------------------------------------------------

def first(dataset: Any, count: int | None) -> Any:
    """The first ``count`` samples of ``dataset`` (all of them when ``count`` is None)."""
    if count is None:
        return dataset
    if not 0 < count <= len(dataset):
        raise SystemExit(f"error: a subset of {count} images, but the set has {len(dataset)}")
    return Subset(dataset, range(count))


def normalise(images: mg.Tensor) -> mg.Tensor:
    return (images - MEAN) / STD


# --- one epoch of training, and a test pass --------------------------------------------------

def train_one_epoch(model: Any, loader: DataLoader, optimizer: Any, device: mg.device, desc: str,
                    history: dict) -> dict:
    """One pass over ``loader``; appends each step's loss and accuracy to ``history``."""
    model.train()
    seen = correct = 0
    loss_sum = 0.0
    start = time.perf_counter()
    with tqdm(loader, desc=desc, unit="batch", leave=True, dynamic_ncols=True) as bar:
        for images, labels in bar:
            images, labels = normalise(images.to(device)), labels.to(device)
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            batch_loss = loss.item()
            batch_correct = (logits.argmax(1) == labels).sum().item()
            history["step_loss"].append(batch_loss)
            history["step_acc"].append(batch_correct / len(labels))
            seen += len(labels)
            correct += batch_correct
            loss_sum += batch_loss * len(labels)
            rate = seen / (time.perf_counter() - start)
            bar.set_postfix({"loss": f"{loss_sum / seen:.4f}", "acc": f"{correct / seen:.2%}",
                             "img/s": f"{rate:.0f}"}, refresh=False)
    seconds = time.perf_counter() - start
    return {"train_loss": loss_sum / seen, "train_acc": correct / seen, "seconds": seconds,
            "images_per_second": seen / seconds}


@mg.no_grad()
def evaluate(model: Any, loader: DataLoader, device: mg.device) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of ``model`` over ``loader``."""
    model.eval()
    seen = correct = 0
    loss_sum = 0.0
    for images, labels in loader:
        images, labels = normalise(images.to(device)), labels.to(device)
        logits = model(images)
        loss_sum += F.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(1) == labels).sum().item()
        seen += len(labels)
    return loss_sum / seen, correct / seen


# --- checkpoints -----------------------------------------------------------------------------

def save_checkpoint(path: Path, epoch: int, model: Any, optimizer: Any, scheduler: Any,
                    loader_generator: mg.Generator, history: dict, settings: dict) -> None:
    """Everything needed to continue exactly where epoch ``epoch`` ended.

    ``mg.save`` writes to a temporary file in the same folder and then renames it over
    ``path`` in one step, so ``path`` always holds a complete checkpoint, even after a crash
    or a Ctrl-C in the middle of saving.
    """
    mg.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "scheduler": scheduler.state_dict(), "rng_state": mg.get_rng_state(),
             "loader_rng_state": loader_generator.get_state(), "history": history,
             "settings": settings}, path)


def load_checkpoint(path: Path, model: Any, optimizer: Any, scheduler: Any, loader_generator: mg.Generator,
                    device: mg.device, settings: dict | None = None) -> tuple[int, dict, dict]:
    """Restore what :func:`save_checkpoint` stored; returns (epoch, history, settings).

    The file is checked before anything is restored: it must be readable, hold every key, and
    (when ``settings`` is given) come from a run with the same settings. Each failure is a
    SystemExit naming the file.
    """
    try:
        state = mg.load(path, map_location=device)
    except RuntimeError as error:
        raise SystemExit(f"error: can't resume: {error}. Delete it to start afresh, or use another --out.") \
            from error
    missing = [key for key in CHECKPOINT_KEYS if key not in state] if isinstance(state, dict) else ["epoch"]
    if missing:
        raise SystemExit(f"error: {path} is not a checkpoint of this program: it lacks the key "
                         f"{missing[0]!r}. Delete it to start afresh, or use another --out.")
    if settings is not None:  # before the optimiser sees a state dict for other parameters
        check_same_settings(state["settings"], settings, path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    mg.set_rng_state(state["rng_state"])
    loader_generator.set_state(state["loader_rng_state"])
    return state["epoch"], state["history"], state["settings"]


def check_same_settings(saved: dict, current: dict, path: Path) -> None:
    saved = saved if isinstance(saved, dict) else {}
    different = [f"--{key.replace('_', '-')} {saved.get(key)} (now {current[key]})"
                 for key in RUN_SETTINGS if saved.get(key) != current[key]]
    if different:
        raise SystemExit(f"error: {path} was trained with other settings: {', '.join(different)}. "
                         "Use the same ones to resume, or another --out to start afresh.")


def write_metrics(out: Path, settings: dict, history: dict) -> None:
    """metrics.json: the settings and each epoch's record, all taken from the history."""
    write_json(out / METRICS, {"settings": settings, "epochs": history["epochs"]})


def prepare_output_folder(out: Path) -> None:
    """Make sure ``out`` is a folder we can write in (before any training), and remove the
    temporary files a killed run of this program left there."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as error:
        raise SystemExit(f"error: can't write to the output folder {out}: {error.strerror or error}. "
                         "Choose another with --out.") from error
    for leftover in out.iterdir():
        if STALE_TEMPORARY.fullmatch(leftover.name) and leftover.is_file():
            leftover.unlink(missing_ok=True)
            print(f"Removed {leftover}, left by an interrupted run")


def write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as JSON, atomically (temporary file, then rename) like the checkpoint."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(obj, indent=1))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


# --- pictures ----------------------------------------------------------------------------------

def save_plots(history: dict, steps_per_epoch: int, first_conv: Any, out: Path,
               watcher: Any = None) -> list[Path]:
    """curves.png (loss and accuracy), filters.png (first conv layer) and, with ``--watch``,
    watch.png (layer statistics); [] without matplotlib."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed, so no plots (pip install -e '.[plot]' installs it)")
        return []
    curves, filters = out / "curves.png", out / "filters.png"
    figure = Figure(figsize=(10, 4), layout="constrained")
    plot_curves(figure, history, steps_per_epoch)
    FigureCanvasAgg(figure).print_png(curves)
    weight = first_conv.weight.detach().cpu().numpy()
    figure = Figure(figsize=(8, 4.4), layout="constrained")
    plot_filters(figure, weight)
    FigureCanvasAgg(figure).print_png(filters)
    return [curves, filters] + ([watcher.save(out / "watch.png")] if watcher is not None else [])


def plot_curves(figure: Any, history: dict, steps_per_epoch: int) -> None:
    """Left: loss, right: accuracy; training steps (the loss of each faint) and each test pass."""
    steps = len(history["step_loss"])
    x = [(step + 1) / steps_per_epoch for step in range(steps)]
    window = max(1, steps_per_epoch // 10)
    epochs = [record["epoch"] for record in history["epochs"]]
    for axes, key, test_key, label in zip(figure.subplots(1, 2), ("step_loss", "step_acc"),
                                          ("test_loss", "test_acc"), ("cross-entropy loss", "accuracy")):
        values = history[key]
        running = [sum(values[max(0, i - window + 1):i + 1]) / (i + 1 - max(0, i - window + 1))
                   for i in range(steps)]
        if key == "step_loss":  # one batch's accuracy is too coarse (k / 64) to be worth drawing
            axes.plot(x, values, color="tab:blue", alpha=0.25, linewidth=0.5)
        axes.plot(x, running, color="tab:blue", label="training (running mean)")
        axes.plot(epochs, [record[test_key] for record in history["epochs"]], "o-", color="tab:red",
                  label="test")
        axes.set_xlabel("epoch")
        axes.set_ylabel(label)
        axes.grid(alpha=0.3)
        axes.legend()
    figure.axes[0].set_yscale("log")
    lowest_test = min((record["test_acc"] for record in history["epochs"]), default=1.0)
    figure.axes[1].set_ylim(max(0.0, min(0.9, lowest_test - 0.02)), 1.0)


def plot_filters(figure: Any, weight: Any) -> None:
    """The first layer's filters, weight (C_out, 1, kh, kw), on one colour scale: red +, blue -."""
    limit = abs(weight).max()
    columns = 8
    rows = -(-len(weight) // columns)
    for i, axes in enumerate(figure.subplots(rows, columns).flat):
        axes.set_axis_off()
        if i < len(weight):
            axes.imshow(weight[i, 0], cmap="RdBu_r", vmin=-limit, vmax=limit)
    figure.suptitle(f"First-layer filters ({weight.shape[2]}x{weight.shape[3]}), after training")


# --- the whole run -----------------------------------------------------------------------------

def train(args: argparse.Namespace, out: Path) -> None:
    """Train for ``args.epochs`` epochs (continuing a checkpoint with ``--resume``), then plot."""
    settings = {key: getattr(args, key) for key in RUN_SETTINGS}
    device = mg.device(args.device)
    checkpoint = out / CHECKPOINT

    # Two generators: the global one initialises the weights, the loader's shuffles the data.
    # Both go into every checkpoint, so a resumed run continues both sequences exactly.
    mg.manual_seed(args.seed)
    loader_generator = mg.Generator().manual_seed(args.seed)

    train_set = first(MNIST(args.data, train=True), args.train_subset)
    test_set = first(MNIST(args.data, train=False), args.test_subset)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, generator=loader_generator)
    test_loader = DataLoader(test_set, batch_size=500)

    model = make_model().to(device)
    if args.freeze_conv:  # a baseline: how far do random convolutions and trained linear layers get?
        for layer in model:
            if isinstance(layer, nn.Conv2d):
                layer.requires_grad_(False)
    optimizer = make_optimizer(args.optimizer, [p for p in model.parameters() if p.requires_grad], args.lr)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=LR_DECAY)

    history: dict = {"step_loss": [], "step_acc": [], "epochs": []}
    watcher = watch(model) if args.watch else None  # minigrad.viz: histograms, update:data ratio
    done = 0
    if args.resume and checkpoint.exists():
        done, history, _ = load_checkpoint(checkpoint, model, optimizer, scheduler, loader_generator, device,
                                           settings)
        # The checkpoint may be newer than metrics.json (a run killed between the two writes).
        write_metrics(out, settings, history)
        print(f"Resuming from {checkpoint}: {done} epoch(s) done")
    elif args.resume:
        print(f"No checkpoint at {checkpoint}: starting from the beginning")

    print(f"Training on {len(train_set)} images, testing on {len(test_set)}; {args.optimizer}, lr {args.lr}, "
          f"batch {args.batch_size}, seed {args.seed}, device {device}, {mg.get_num_threads()} thread(s)")
    if device.type == "cpu":
        print(f"Speed against PyTorch, as measured: {PYTORCH_RATIO}")
    for epoch in range(done + 1, args.epochs + 1):
        desc = f"epoch {epoch}/{args.epochs}"
        stats = train_one_epoch(model, train_loader, optimizer, device, desc, history)
        scheduler.step()
        stats["test_loss"], stats["test_acc"] = evaluate(model, test_loader, device)
        history["epochs"].append({"epoch": epoch, **stats})
        print(f"epoch {epoch}: test accuracy {stats['test_acc']:.2%}, test loss {stats['test_loss']:.4f}, "
              f"{stats['seconds']:.1f} s ({stats['images_per_second']:.0f} images/s)", flush=True)
        save_checkpoint(checkpoint, epoch, model, optimizer, scheduler, loader_generator, history, settings)
        write_metrics(out, settings, history)

    print(f"Checkpoint: {checkpoint}\nMetrics: {out / METRICS}")
    for picture in save_plots(history, len(train_loader), model[0], out, watcher):
        print(f"Plot: {picture}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A training script's own choice, for its whole process: glibc keeps freed arrays for reuse
    # instead of page-faulting them in anew every step (see minigrad/memory.py).
    mg.memory.keep_freed_memory()
    out = Path(args.out)
    prepare_output_folder(out)
    try:
        train(args, out)
    except KeyboardInterrupt:
        print(f"\n{interrupted_message(out / CHECKPOINT)}", flush=True)
        return 130
    return 0


def interrupted_message(checkpoint: Path) -> str:
    """One line for Ctrl-C. A checkpoint this run wrote is complete (mg.save only ever renames a
    finished file over it), so the file itself says which epoch it holds; one that can't be read
    (say, a damaged copy from elsewhere) is named, not raised."""
    if not checkpoint.exists():
        return "Interrupted before the first checkpoint."
    try:
        epoch = mg.load(checkpoint)["epoch"]
    except (RuntimeError, OSError, KeyError, TypeError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return f"Interrupted. {checkpoint} can't be read ({reason}); it can't be resumed from."
    return (f"Interrupted. The last complete checkpoint is {checkpoint} (epoch {epoch}); "
            "run again with --resume to continue.")


if __name__ == "__main__":
    sys.exit(main())
