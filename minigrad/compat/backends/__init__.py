"""``torch.backends``: what each PyTorch backend reports, as minigrad runs them.

Course code asks these questions to pick a device (``torch.backends.mps.is_available()``) or
sets their flags (``torch.backends.cudnn.benchmark = True``). minigrad answers as a PyTorch
build without Apple-GPU support would: ``mps`` is absent, ``cudnn`` is available exactly when
minigrad's ``'cuda'`` device is (CuPy and a GPU), ``mkldnn`` is a CPU build's. The flags are
kept and validated so such code runs; minigrad's kernels do not depend on them.
"""

from minigrad.compat.backends import cuda, cudnn, mkldnn, mps

__all__ = ["cuda", "cudnn", "mkldnn", "mps"]
