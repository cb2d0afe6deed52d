"""Looking at tensors with matplotlib, as notebooks do: a curve ``plt.plot(x, y)`` straight from
tensors, a histogram of activations, a heat map of which units saturate.

``plt.plot(tensor)`` copies its data with ``copy.copy``, so a tensor must support it.
"""

import matplotlib

matplotlib.use("Agg")  # no window: the figures are only inspected
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)
import numpy as np  # noqa: E402


def main(torch):
    x = torch.linspace(-3, 3, 61)
    y = torch.tanh(x)
    weights = torch.tensor(np.random.default_rng(1).standard_normal((40, 30)) * 2.0, dtype=torch.float32)
    h = torch.tanh(weights)

    fig, (left, middle, right) = plt.subplots(1, 3)
    (line,) = left.plot(x, y)
    counts, edges, _ = middle.hist(h.view(-1).tolist(), 20)
    image = right.imshow(h.abs() > 0.99, cmap="gray", interpolation="nearest")
    fig.canvas.draw()
    result = {"xdata": np.asarray(line.get_xdata(), dtype=float).tolist(),
              "ydata": np.asarray(line.get_ydata(), dtype=float).tolist(),
              "hist": counts.tolist(), "edges": edges.tolist(),
              "saturated": np.asarray(image.get_array()).astype(bool).tolist()}
    plt.close(fig)
    return result


def compare(ours, theirs):
    np.testing.assert_allclose(ours["ydata"], np.tanh(ours["xdata"]), rtol=1e-6, atol=1e-6)
    assert sum(ours["hist"]) == 40 * 30
    assert 0 < np.mean(ours["saturated"]) < 1
    if theirs is not None:
        np.testing.assert_allclose(ours["xdata"], theirs["xdata"], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(ours["ydata"], theirs["ydata"], rtol=1e-6, atol=1e-6)
        assert ours["hist"] == theirs["hist"]
        assert ours["saturated"] == theirs["saturated"]
