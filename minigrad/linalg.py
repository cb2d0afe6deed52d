"""``torch.linalg``'s part that a first course meets: ``det``, ``inv``, ``cross``, ``matmul`` and
``matrix_power`` (their maths is in ``minigrad/ops/matrices.py`` and ``ops/linalg.py``).
Decompositions and solvers are left out on purpose: they raise ``NotImplementedError`` naming
docs/compatibility.md."""

from minigrad.compat.unsupported import module_getattr as _module_getattr
from minigrad.ops.linalg import matmul, matrix_power
from minigrad.ops.matrices import LinAlgError, det
from minigrad.ops.matrices import inverse as inv
from minigrad.ops.matrices import linalg_cross as cross

__all__ = ["LinAlgError", "cross", "det", "inv", "matmul", "matrix_power"]
__getattr__ = _module_getattr("minigrad.linalg")
