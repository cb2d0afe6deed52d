"""Training curves: loss and accuracy per epoch (or step), one panel per kind of metric."""

from __future__ import annotations

import re
from typing import Any

from minigrad.viz._mpl import pyplot

__all__ = ["plot_curves"]


def metric_of(key: str) -> str:
    """The kind of metric a history key holds: its last word (``'val_loss'`` -> ``'loss'``)."""
    return re.split(r"[\s_/.-]+", key.strip())[-1] or key


def plot_curves(history: dict, ax: Any = None, xlabel: str = "epoch", title: str | None = None,
                logy: bool = False, group: bool = True) -> Any:
    """Plot ``history`` (``{"train_loss": [...], "val_loss": [...], "val_acc": [...]}``).

    With ``group``, curves of the same kind of metric (the key's last word: ``loss``,
    ``acc``) share a panel and each kind gets its own; with ``ax``, all curves go into
    that one axes. Point k of a curve is drawn at x = k + 1. Returns the Figure.
    """
    if not history:
        raise ValueError("plot_curves needs at least one curve, got an empty history")
    groups: dict[str, list[str]] = {}
    for key in history:
        groups.setdefault(metric_of(key) if group and ax is None else "", []).append(key)
    if ax is None:
        figure, axes = pyplot().subplots(1, len(groups), figsize=(4.5 * len(groups), 3.2), squeeze=False)
        axes = list(axes[0])
    else:
        figure, axes = ax.figure, [ax]
    for panel, (metric, keys) in zip(axes, groups.items()):
        for key in keys:
            values = [float(v) for v in history[key]]
            panel.plot(range(1, len(values) + 1), values, marker="o" if len(values) <= 30 else None,
                       markersize=3, label=key)
        panel.set_xlabel(xlabel)
        panel.xaxis.get_major_locator().set_params(integer=True)
        if metric:
            panel.set_ylabel(metric)
        if logy:
            panel.set_yscale("log")
        panel.grid(alpha=0.3)
        panel.legend(fontsize=8)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure
