"""PyTorch's module paths that are not minigrad's core, kept apart so that the package root shows
the core: device modules that answer for minigrad's devices (``cuda``, ``backends``,
``accelerator``, ``xpu``), the legacy tensor types (``legacy``: ``mg.FloatTensor``, ...),
``return_types``, ``utils`` (``torch.utils.data``), and the names left out on purpose
(``unsupported``: ``NotImplementedError`` naming docs/compatibility.md).

Each is also importable under PyTorch's path (``import minigrad.cuda``,
``from minigrad.backends import cudnn``): :func:`register_pytorch_paths` enters them there.
"""

from __future__ import annotations

import sys

# minigrad.compat.<path> is also minigrad.<path>, as torch.<path>
PYTORCH_PATHS = ("accelerator", "backends", "backends.cuda", "backends.cudnn", "backends.mkldnn",
                 "backends.mps", "cuda", "legacy", "return_types", "utils", "utils.data",
                 "utils.data.collate", "utils.data.dataloader", "utils.data.dataset", "utils.data.sampler",
                 "utils.tensorboard", "xpu")


def register_pytorch_paths() -> None:
    """Make ``minigrad.<path>`` the module ``minigrad.compat.<path>`` for each of PYTORCH_PATHS
    (called by ``minigrad/__init__.py`` once they are imported)."""
    for path in PYTORCH_PATHS:
        module = sys.modules[f"minigrad.{path}"] = sys.modules[f"{__name__}.{path}"]
        parent, _, name = f"minigrad.{path}".rpartition(".")
        setattr(sys.modules[parent], name, module)  # minigrad.cuda as an attribute too
