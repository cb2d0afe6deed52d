"""``torch.linalg``'s part that a first course meets: ``det``, ``inv``, ``cross`` and ``matmul``
(their maths is in ``minigrad/ops/matrices.py``). Decompositions and solvers are left out on purpose:
they raise ``NotImplementedError`` naming docs/compatibility.md."""

from minigrad._unsupported import module_getattr as _module_getattr
from minigrad.ops.linalg import matmul
from minigrad.ops.matrices import LinAlgError, det
from minigrad.ops.matrices import inverse as inv
from minigrad.ops.matrices import linalg_cross as cross

__all__ = ["LinAlgError", "cross", "det", "inv", "matmul"]
__getattr__ = _module_getattr("minigrad.linalg")
