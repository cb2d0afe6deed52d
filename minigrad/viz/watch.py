"""Watch a model train: per-layer statistics and histograms from hooks, and the plots lectures show.

    watcher = watch(model)                  # hooks on every layer; nothing else changes
    for images, labels in loader:           # the usual loop
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    watcher.plot().savefig("watch.png")     # histograms, saturation, update:data ratio, gradient flow
    watcher.remove()                        # or use `with watch(model) as watcher:`

What is recorded, at every training step (a forward with the model in training mode and
gradients enabled):

- each layer's output (its *activation*): mean, standard deviation and, after a ``Tanh``
  or ``Sigmoid``, the fraction of saturated units (|tanh| > 0.97, sigmoid outside
  [0.03, 0.97]), where the local gradient is nearly zero and learning stalls;
- the gradient arriving at each layer's output (a hook on the output tensor);
- each parameter's gradient: its standard deviation against the parameter's (the
  grad:data ratio), and the mean and largest absolute gradient ("plot_grad_flow");
- each parameter's **update:data ratio**, std(update) / std(parameter), from the change
  between two training steps, so it works with any optimiser (about 1e-3 is healthy;
  much smaller learns slowly, much larger is unstable).

Histograms of the activations, their gradients and the weight gradients are taken every
``histogram_every`` steps; the latest are kept. The statistics cost a few reductions per
layer per step (and a device-to-host copy of each number on a GPU).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minigrad import backend
from minigrad._files import atomic_file
from minigrad.autograd.grad_mode import is_grad_enabled, no_grad
from minigrad.tensor import Tensor
from minigrad.viz._mpl import pyplot

__all__ = ["watch", "Watch", "LayerRecord", "ParameterRecord"]

TANH_SATURATED = 0.97
"""|tanh(x)| above this counts as saturated: the local gradient 1 - tanh² is below 0.06."""


@dataclass
class LayerRecord:
    """Per step: the layer's output statistics, and the gradient arriving at the output.

    Attributes:
        kind: the layer's class name (``'Tanh'``).
        mean: the output's mean at each step.
        std: its standard deviation.
        saturated: the fraction of saturated units (None for a layer other than Tanh or Sigmoid).
        grad_mean: the mean of the gradient arriving at the output.
        grad_std: its standard deviation.
        histogram: the latest (bin centres, densities) of the output.
        grad_histogram: the latest of the gradient.
    """

    kind: str
    mean: list = field(default_factory=list)
    std: list = field(default_factory=list)
    saturated: list = field(default_factory=list)
    grad_mean: list = field(default_factory=list)
    grad_std: list = field(default_factory=list)
    histogram: tuple | None = None
    grad_histogram: tuple | None = None


@dataclass
class ParameterRecord:
    """Per step: the gradient's statistics and the size of the update against the data.

    Attributes:
        shape: the parameter's shape.
        grad_abs_mean: the mean |gradient| at each step.
        grad_abs_max: the largest |gradient|.
        grad_data_ratio: std(gradient) / std(parameter).
        update_data_ratio: std(update) / std(parameter), the update being the change that
            each optimiser step made.
        grad_histogram: the latest (bin centres, densities) of the gradient.
    """

    shape: tuple
    grad_abs_mean: list = field(default_factory=list)
    grad_abs_max: list = field(default_factory=list)
    grad_data_ratio: list = field(default_factory=list)
    update_data_ratio: list = field(default_factory=list)
    grad_histogram: tuple | None = None


def _array(t: Tensor) -> Any:
    array = t.detach().array
    xp = backend.get_array_module(array)
    return array.astype(xp.float64, copy=False), xp


def _std(array: Any, xp: Any) -> float:
    return float(xp.std(array).item()) if array.size else float("nan")


def _histogram(array: Any, xp: Any, bins: int) -> tuple | None:
    """(centres, densities) as host NumPy arrays, over the finite values (None where there are none)."""
    finite = array[xp.isfinite(array)]
    if finite.size == 0:
        return None
    counts, edges = xp.histogram(finite, bins=bins, density=True)
    counts, edges = backend.to_host(counts), backend.to_host(edges)
    return (edges[:-1] + edges[1:]) / 2, counts


def _saturation(kind: str, array: Any, xp: Any) -> float | None:
    if kind == "Tanh":
        return float((xp.abs(array) > TANH_SATURATED).mean().item())
    if kind == "Sigmoid":
        return float(((array < 1 - TANH_SATURATED) | (array > TANH_SATURATED)).mean().item())
    return None


class Watch:
    """Hooks on ``model``'s layers that record training statistics; :func:`watch` makes one.

    Args:
        model: the ``nn.Module`` to watch: every layer without sub-layers, and every
            parameter that requires grad.
        histogram_every: take histograms at step 1 and every this many steps after it.
        bins: bins per histogram.
    """

    def __init__(self, model: Any, histogram_every: int = 10, bins: int = 60):
        if histogram_every < 1 or bins < 1:
            raise ValueError(f"histogram_every and bins must be positive, got {histogram_every} and {bins}")
        self.model = model
        self.histogram_every = histogram_every
        self.bins = bins
        self.step = 0  # training forwards seen
        self.layers: dict[str, LayerRecord] = {}
        self.parameters: dict[str, ParameterRecord] = {}
        self._previous: dict[str, Any] = {}  # each parameter at the last training forward
        self._handles = [model.register_forward_pre_hook(self._before_forward)]
        for name, module in model.named_modules():
            if next(iter(module.children()), None) is None:  # a layer, not a container
                key = name or type(module).__name__
                self.layers[key] = LayerRecord(type(module).__name__)
                self._handles.append(module.register_forward_hook(self._after_layer(key)))
        for name, parameter in model.named_parameters():
            if parameter.requires_grad:
                self.parameters[name] = ParameterRecord(tuple(parameter.shape))

    # --- recording -----------------------------------------------------------------------------

    def _training(self) -> bool:
        return bool(self.model.training) and is_grad_enabled()

    def _histogram_now(self) -> bool:
        return (self.step - 1) % self.histogram_every == 0

    def _before_forward(self, module: Any, args: tuple) -> None:
        if not self._training():
            return
        self._record_parameters()
        self.step += 1

    def _record_parameters(self) -> None:
        """The gradients and updates of the step that just ended (once per step)."""
        with no_grad():
            for name, parameter in self.model.named_parameters():
                record = self.parameters.get(name)
                if record is None:
                    continue
                data, xp = _array(parameter)
                previous = self._previous.get(name)
                changed = previous is not None and bool((previous != data).any().item())
                if previous is not None and changed:
                    record.update_data_ratio.append(_std(data - previous, xp) / (_std(data, xp) or math.nan))
                if parameter.grad is not None and (changed or previous is None) and self.step > 0:
                    grad, _ = _array(parameter.grad)
                    record.grad_abs_mean.append(float(xp.abs(grad).mean().item()))
                    record.grad_abs_max.append(float(xp.abs(grad).max().item()))
                    record.grad_data_ratio.append(_std(grad, xp) / (_std(data, xp) or math.nan))
                    if self._histogram_now() or record.grad_histogram is None:
                        record.grad_histogram = _histogram(grad, xp, self.bins)
                self._previous[name] = data.copy()

    def _after_layer(self, name: str) -> Any:
        record = self.layers[name]

        def hook(module: Any, args: tuple, output: Any) -> None:
            if not self._training() or not isinstance(output, Tensor):
                return
            array, xp = _array(output)
            record.mean.append(float(array.mean().item()))
            record.std.append(_std(array, xp))
            record.saturated.append(_saturation(record.kind, array, xp))
            histogram_now = self._histogram_now()
            if histogram_now:
                record.histogram = _histogram(array, xp, self.bins)
            if output.requires_grad:
                output.register_hook(self._gradient_hook(record, histogram_now))

        return hook

    def _gradient_hook(self, record: LayerRecord, histogram_now: bool) -> Any:
        def hook(grad: Tensor) -> None:
            array, xp = _array(grad)
            record.grad_mean.append(float(array.mean().item()))
            record.grad_std.append(_std(array, xp))
            if histogram_now:
                record.grad_histogram = _histogram(array, xp, self.bins)

        return hook

    def remove(self) -> None:
        """Detach every hook; the records stay."""
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<Watch: {len(self.layers)} layers, {len(self.parameters)} parameters, {self.step} steps>"

    # --- plots -------------------------------------------------------------------------------------

    def _weights(self) -> list:
        """Parameters drawn in the per-parameter plots: weights (2-D or more), as in makemore."""
        return [name for name, record in self.parameters.items() if len(record.shape) >= 2] or \
            list(self.parameters)

    def plot(self) -> Any:
        """One figure with every plot: activation and gradient histograms, saturation, update:data
        ratio over steps and gradient flow. Returns the Figure."""
        self._record_parameters_if_pending()
        figure, axes = pyplot().subplots(3, 2, figsize=(13, 11))
        self.plot_histograms(axes[0, 0], "activation")
        self.plot_histograms(axes[0, 1], "gradient")
        self.plot_weight_gradients(axes[1, 0])
        self.plot_saturation(axes[1, 1])
        self.plot_update_ratio(axes[2, 0])
        self.plot_grad_flow(axes[2, 1])
        figure.suptitle(f"training statistics over {self.step} steps", fontsize=11)
        figure.tight_layout()
        return figure

    def save(self, path: str | os.PathLike) -> Path:
        """Write :meth:`plot`'s figure to ``path`` (format from the suffix; atomically, by renaming
        a finished file over it) and return the path."""
        path = Path(path)
        figure = self.plot()
        try:
            with atomic_file(path) as file:
                figure.savefig(file, format=path.suffix.lstrip(".") or "png")
        finally:
            pyplot().close(figure)
        return path

    def _record_parameters_if_pending(self) -> None:
        """The last step's gradients and update, which no later forward has recorded."""
        if self.step > 0:
            self._record_parameters()

    def plot_histograms(self, ax: Any = None, what: str = "activation") -> Any:
        """Histograms of every layer's output (``what='activation'``) or of the gradient
        arriving there (``'gradient'``), from the latest step that took them."""
        if what not in ("activation", "gradient"):
            raise ValueError(f"what must be 'activation' or 'gradient', got {what!r}")
        figure, ax = _axes(ax)
        for name, record in self.layers.items():
            histogram = record.histogram if what == "activation" else record.grad_histogram
            if histogram is None:
                continue
            stats = (record.mean, record.std) if what == "activation" else (record.grad_mean, record.grad_std)
            label = f"{name} ({record.kind}): mean {stats[0][-1]:+.2g}, std {stats[1][-1]:.2g}"
            if what == "activation" and record.saturated and record.saturated[-1] is not None:
                label += f", saturated {record.saturated[-1]:.0%}"
            ax.plot(*histogram, label=label)
        ax.set_title(f"{what} distribution per layer", fontsize=10)
        ax.set_xlabel("value")
        ax.set_ylabel("density")
        _legend(ax)
        return figure

    def plot_weight_gradients(self, ax: Any = None) -> Any:
        """Histograms of each weight's gradient, with its grad:data ratio."""
        figure, ax = _axes(ax)
        for name in self._weights():
            record = self.parameters[name]
            if record.grad_histogram is not None:
                ratio = record.grad_data_ratio[-1] if record.grad_data_ratio else math.nan
                ax.plot(*record.grad_histogram, label=f"{name} {list(record.shape)}: grad:data {ratio:.2g}")
        ax.set_title("weight gradient distribution", fontsize=10)
        ax.set_xlabel("gradient")
        ax.set_ylabel("density")
        _legend(ax)
        return figure

    def plot_saturation(self, ax: Any = None) -> Any:
        """The fraction of saturated units after each Tanh and Sigmoid, step by step."""
        figure, ax = _axes(ax)
        drawn = False
        for name, record in self.layers.items():
            if record.kind in ("Tanh", "Sigmoid") and record.saturated:
                ax.plot(range(1, len(record.saturated) + 1), [100 * s for s in record.saturated],
                        label=f"{name} ({record.kind})")
                drawn = True
        ax.set_title("saturated units (|tanh| > 0.97, sigmoid outside [0.03, 0.97])", fontsize=10)
        ax.set_xlabel("step")
        ax.set_ylabel("% saturated")
        if not drawn:
            ax.text(0.5, 0.5, "no Tanh or Sigmoid layer", ha="center", va="center", transform=ax.transAxes)
        _legend(ax)
        return figure

    def plot_update_ratio(self, ax: Any = None) -> Any:
        """log10 of each weight's update:data ratio over the steps, with the 1e-3 guide line."""
        figure, ax = _axes(ax)
        for name in self._weights():
            ratios = self.parameters[name].update_data_ratio
            if ratios:
                ax.plot(range(1, len(ratios) + 1), [math.log10(r) if r > 0 else math.nan for r in ratios],
                        label=name)
        ax.axhline(-3, color="black", linestyle="--", linewidth=1, label="1e-3")
        ax.set_title("update:data ratio (log10 std(update) / std(data))", fontsize=10)
        ax.set_xlabel("step")
        ax.set_ylabel("log10 ratio")
        _legend(ax)
        return figure

    def plot_grad_flow(self, ax: Any = None) -> Any:
        """The mean and largest absolute gradient of every parameter at the last step, from the
        input side to the output side: a vanishing or exploding gradient shows as a slope."""
        self._record_parameters_if_pending()
        figure, ax = _axes(ax)
        names = [name for name, record in self.parameters.items() if record.grad_abs_mean]
        positions = range(len(names))
        ax.bar(positions, [self.parameters[n].grad_abs_max[-1] for n in names], alpha=0.35, color="tab:cyan",
               label="max |grad|")
        ax.bar(positions, [self.parameters[n].grad_abs_mean[-1] for n in names], alpha=0.9, color="tab:blue",
               label="mean |grad|")
        ax.set_xticks(list(positions), names, rotation=60, ha="right", fontsize=7)
        if names and min(self.parameters[n].grad_abs_mean[-1] for n in names) > 0:
            ax.set_yscale("log")
        ax.set_title("gradient flow (last step)", fontsize=10)
        ax.set_ylabel("|gradient|")
        _legend(ax)
        return figure


def _axes(ax: Any) -> tuple:
    if ax is not None:
        return ax.figure, ax
    return pyplot().subplots(figsize=(7, 4))


def _legend(ax: Any) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)


def watch(model: Any, histogram_every: int = 10, bins: int = 60) -> Watch:
    """Attach hooks to ``model`` that record what :class:`Watch` plots, at every training step.

    Args:
        model: an ``nn.Module``; every layer without sub-layers is watched, and every
            parameter that requires grad.
        histogram_every: take histograms at step 1 and every this many steps after it.
        bins: bins per histogram.

    Returns:
        The :class:`Watch`: ``.plot()`` draws everything, ``.plot_grad_flow()``,
        ``.plot_update_ratio()``... one plot each; ``.remove()`` detaches the hooks.
    """
    return Watch(model, histogram_every, bins)
