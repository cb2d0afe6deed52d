"""For tests that record which threads ran the pool's pieces."""

import threading
import time


def let_the_pool_start() -> None:
    """On the calling thread, wait a moment before a piece, so that the pool's threads start theirs:
    a caller done with its own piece takes back and runs any piece no pool thread has started
    (``minigrad/performance/parallel.py``), and tiny test pieces would all end up on the caller."""
    if threading.current_thread() is threading.main_thread():
        time.sleep(0.002)
