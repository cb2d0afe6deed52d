"""``minigrad.cuda``: is a GPU usable? (CuPy installed and a CUDA device present.)"""

from __future__ import annotations

from minigrad import backend


def is_available() -> bool:
    """True when tensors can be placed on ``'cuda'``."""
    return backend.cuda_available()


def device_count() -> int:
    if not is_available():
        return 0
    return int(backend.array_module_for(backend.CUDA).cuda.runtime.getDeviceCount())


def manual_seed(seed: int) -> None:
    """Accepted for PyTorch's scripts (``torch.cuda.manual_seed(s)``); changes nothing.

    minigrad draws every random number, for every device, from the host generator that
    ``mg.manual_seed`` seeds, so there is no separate GPU generator to seed. As in PyTorch, it
    does not reseed the CPU generator either.
    """
    int(seed)  # PyTorch's check: anything int() refuses is an error here too


def manual_seed_all(seed: int) -> None:
    """As :func:`manual_seed`, for all GPUs: changes nothing (see there)."""
    int(seed)


def synchronize(device: object = None) -> None:
    """Wait for the GPU to finish its queued work (``torch.cuda.synchronize()``); as PyTorch on
    a machine without a GPU, an error when there is none."""
    if not is_available():
        raise RuntimeError("torch.cuda.synchronize(): no CUDA GPU is available (minigrad uses one through "
                           "CuPy)")
    backend.array_module_for(backend.CUDA).cuda.Device().synchronize()
