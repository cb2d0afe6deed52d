"""Train a multi-layer perceptron on MNIST with minigrad: the shortest complete training loop.

    python examples/mnist_mlp.py            # 5 epochs, about 98% test accuracy

Each 28x28 image is flattened to 784 numbers and goes through two hidden layers of ReLU
units. This is PyTorch code with ``torch`` spelled ``mg``; for a CNN with checkpoints and
plots, see ``mnist_cnn.py``.
"""

from __future__ import annotations

import argparse
import sys
import time

from tqdm import tqdm

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad import optim
from minigrad.data import MNIST, DataLoader, Dataset, Subset

MEAN, STD = 0.1307, 0.3081  # of MNIST's training pixels: inputs become ~N(0, 1)


def make_model() -> nn.Module:
    """images (N, 1, 28, 28) -> logits (N, 10)."""
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(28 * 28, 256), nn.ReLU(),
        nn.Linear(256, 128), nn.ReLU(),
        nn.Linear(128, 10),
    )


@mg.no_grad()
def accuracy(model: nn.Module, loader: DataLoader, device: mg.device) -> float:
    model.eval()
    correct = 0
    for images, labels in loader:
        logits = model((images.to(device) - MEAN) / STD)
        correct += (logits.argmax(1) == labels.to(device)).sum().item()
    return correct / len(loader.dataset)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train an MLP on MNIST with minigrad.")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate, halved every epoch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=None, help="folder with the MNIST files (default: $MINIGRAD_DATA, "
                                                     "else ~/.cache/minigrad/mnist)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--train-subset", type=int, default=None, metavar="N", help="first N training images")
    parser.add_argument("--test-subset", type=int, default=None, metavar="M", help="first M test images")
    args = parser.parse_args(argv)

    mg.manual_seed(args.seed)
    device = mg.device(args.device)
    train_set: Dataset = MNIST(args.data, train=True)
    test_set: Dataset = MNIST(args.data, train=False)
    if args.train_subset:
        train_set = Subset(train_set, range(args.train_subset))
    if args.test_subset:
        test_set = Subset(test_set, range(args.test_subset))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              generator=mg.Generator().manual_seed(args.seed))
    test_loader = DataLoader(test_set, batch_size=1000)

    model = make_model().to(device)
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(1, args.epochs + 1):
        model.train()
        start, seen = time.perf_counter(), 0
        with tqdm(train_loader, desc=f"epoch {epoch}/{args.epochs}", unit="batch", dynamic_ncols=True) as bar:
            for images, labels in bar:
                logits = model((images.to(device) - MEAN) / STD)
                loss = F.cross_entropy(logits, labels.to(device))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                seen += len(labels)
                bar.set_postfix({"loss": f"{loss.item():.4f}",
                                 "img/s": f"{seen / (time.perf_counter() - start):.0f}"}, refresh=False)
        scheduler.step()
        print(f"epoch {epoch}: test accuracy {accuracy(model, test_loader, device):.2%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
