"""Let OpenBLAS's idle threads go to sleep soon, so that they leave the cores to minigrad's own work.

After each matrix product, OpenBLAS's worker threads keep spinning, ready for the next
one, for 2^28 processor cycles (about 0.1 s) before they sleep. A training step runs a
product every few milliseconds, so they never sleep: they keep a core busy while
minigrad copies and adds between the products (im2col, col2im, pooling), on that same
core (see ``parallel.py``) and, where two virtual CPUs share a physical core, beside it.
On this project's 2-core machines the grouped convolution's forward and backward took
27 ms with the default spin and 23 ms with a spin of 2^20 cycles (about 0.4 ms: long
enough to run back-to-back products without a wake-up, short enough to sleep during a
pass of a millisecond or more).

OpenBLAS reads ``OPENBLAS_THREAD_TIMEOUT`` (the spin, as a power of two) once, when
NumPy loads it. So this takes effect only when minigrad is imported before NumPy (as
in the examples), and a value the user has set is left as it is.
"""

from __future__ import annotations

import os
import sys

SPIN_CYCLES_POWER_OF_TWO = "20"


def shorten_idle_spin() -> bool:
    """Ask OpenBLAS for a short idle spin, if NumPy has not loaded it yet; True if it was asked."""
    if "numpy" in sys.modules or "OPENBLAS_THREAD_TIMEOUT" in os.environ:
        return False
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = SPIN_CYCLES_POWER_OF_TWO
    return True
