"""minigrad's thread pool under concurrency: it gives the right answers and never hangs.

Each scenario runs in a fresh interpreter (the pool and the BLAS's thread count belong to the
process) for a fixed number of rounds, under two watchdogs: ``faulthandler`` prints every
thread's stack and ends the process if it runs past its time, and ``subprocess.run``'s timeout
backs it up. A hang fails the test, with the stacks in its message; nothing is timed otherwise.

In every scenario, every product and copy is cut between the threads, however small
(the thresholds down to 1), so that pieces are handed over as often as possible.

Run the scenarios on their own (``python tests/test_pool_stress.py resize``) to watch one.
"""

from __future__ import annotations

import faulthandler
import os
import random
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest

HANG = 120   # seconds after which a scenario counts as hung (each takes a few)
CHILD_HANG = 30


def _cut_everything() -> None:
    from minigrad.performance import parallel

    parallel.MIN_CHUNK_BYTES = parallel.MIN_PRODUCT_WORK = parallel.SMALL_PRODUCT_WORK = 1


def _arrays(seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((96, 64)), rng.standard_normal((64, 120)), rng.standard_normal((48, 500))


def _right(parallel, a, b, x, product, out) -> bool:
    """One pooled product and one pooled copy, checked: the product to rounding (pieces may round
    their edges differently), the copy exactly."""
    parallel.copy_into(out, x)
    close = np.allclose(parallel.matmul(a, b), product, rtol=1e-12, atol=1e-12)
    return bool(close) and np.array_equal(out, x)


def _threads_end(count: int) -> bool:
    """True once only ``count`` threads are left (a retired pool's threads end when its last call is done)."""
    deadline = time.monotonic() + 30
    while threading.active_count() > count and time.monotonic() < deadline:
        time.sleep(0.01)
    return threading.active_count() == count


def resize_while_computing(rounds: int = 150, callers: int = 3) -> None:
    """``set_num_threads`` again and again while other threads are inside pooled operations."""
    import minigrad as mg
    from minigrad.performance import parallel

    _cut_everything()
    a, b, x = _arrays()
    product = a @ b
    stop, wrong, done = threading.Event(), [], []

    def compute() -> None:
        out, count = np.empty_like(x), 0
        while not stop.is_set() or count < 20:
            if not _right(parallel, a, b, x, product, out):
                wrong.append(count)
            count += 1
        done.append(count)

    workers = [threading.Thread(target=compute) for _ in range(callers)]
    for worker in workers:
        worker.start()
    for round_ in range(rounds):
        mg.set_num_threads(1 + round_ % 4)
    stop.set()
    for worker in workers:
        worker.join()
    mg.set_num_threads(1)
    assert len(done) == callers and not wrong, f"wrong answers in rounds {wrong}"
    assert _threads_end(1), f"{threading.active_count() - 1} threads left after set_num_threads(1)"


def many_threads_computing(callers: int = 4, rounds: int = 30) -> None:
    """Several Python threads run a small network's forward and backward on the pool at once;
    each gets, bit for bit, what one thread alone gets (the pieces are the same)."""
    import minigrad as mg
    import minigrad.nn.functional as F

    _cut_everything()
    mg.set_num_threads(3)

    def network() -> tuple:
        mg.manual_seed(0)
        return mg.nn.Linear(64, 120), mg.nn.Conv2d(3, 8, 3, padding=1), mg.randn(4, 3, 12, 12)

    def step(layer: mg.nn.Linear, conv: mg.nn.Conv2d, images: mg.Tensor, x: mg.Tensor) -> list:
        layer.zero_grad()
        conv.zero_grad()
        loss = F.relu(layer(x)).sum() + F.max_pool2d(F.relu(conv(images)), 2).sum()
        loss.backward()
        return [array.tobytes() for array in (loss.detach().numpy(), layer.weight.grad.numpy(),
                                              conv.weight.grad.numpy(), conv.bias.grad.numpy())]

    inputs = [mg.tensor(np.random.default_rng(seed).standard_normal((96, 64)).astype(np.float32))
              for seed in range(callers)]
    networks = [network() for _ in range(callers)]   # one each: a parameter's .grad is shared state
    alone = [step(*networks[index], inputs[index]) for index in range(callers)]
    results: list = [None] * callers
    start = threading.Barrier(callers)

    def run(index: int) -> None:
        start.wait()
        results[index] = [step(*networks[index], inputs[index]) for _ in range(rounds)]

    workers = [threading.Thread(target=run, args=(index,)) for index in range(callers)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for index in range(callers):
        assert results[index] is not None and all(answer == alone[index] for answer in results[index]), index


def _wait_child(pid: int) -> int:
    """The child's exit status; a child that has not ended within CHILD_HANG seconds is killed (-1)."""
    deadline = time.monotonic() + CHILD_HANG
    while time.monotonic() < deadline:
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.005)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


def fork_while_computing(forks: int = 24, callers: int = 2) -> None:
    """``os.fork()`` from the main thread and from other threads while threads are inside pooled
    products; the child computes on a pool of its own, and the parent goes on computing."""
    import minigrad as mg
    from minigrad.performance import parallel

    _cut_everything()
    mg.set_num_threads(3)
    a, b, x = _arrays()
    product = a @ b
    stop, wrong = threading.Event(), []

    def compute() -> None:
        out = np.empty_like(x)
        while not stop.is_set():
            if not _right(parallel, a, b, x, product, out):
                wrong.append(1)

    def fork_once(statuses: list) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)   # Python 3.12's note on fork with threads
            pid = os.fork()
        if pid == 0:
            os._exit(0 if _right(parallel, a, b, x, product, np.empty_like(x)) else 1)
        statuses.append(_wait_child(pid))

    workers = [threading.Thread(target=compute) for _ in range(callers)]
    for worker in workers:
        worker.start()
    statuses: list = []
    for number in range(forks):
        if number % 2:
            fork_once(statuses)
        else:
            forker = threading.Thread(target=fork_once, args=(statuses,))
            forker.start()
            forker.join()
    stop.set()
    for worker in workers:
        worker.join()
    assert statuses == [0] * forks, f"children's exit codes (-1: hung, killed): {statuses}"
    assert not wrong and _right(parallel, a, b, x, product, np.empty_like(x))


def interrupt_while_computing(interrupts: int = 40) -> None:
    """SIGINT (Ctrl-C) in the calling thread while pieces run: the call raises KeyboardInterrupt once
    its pieces are done, and the pool, the BLAS's thread count and grad mode are as before."""
    import minigrad as mg
    from minigrad.performance import blas, parallel

    _cut_everything()
    mg.set_num_threads(3)
    a, b, x = _arrays()
    product = a @ b
    blas_before = blas.thread_counts()
    armed = False

    def on_sigint(signum: int, frame: object) -> None:
        if armed:   # a signal before or after the loop is dropped
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    main = threading.main_thread().ident
    sent = threading.Event()

    def interrupter() -> None:
        pace = random.Random(0)
        for _ in range(interrupts):
            time.sleep(pace.uniform(0, 0.003))
            signal.pthread_kill(main, signal.SIGINT)
        sent.set()

    caught = completed = 0
    out = np.empty_like(x)
    thread = threading.Thread(target=interrupter)
    thread.start()
    try:
        armed = True
        while not sent.is_set():
            try:
                assert _right(parallel, a, b, x, product, out)
                completed += 1
            except KeyboardInterrupt:
                caught += 1
    finally:
        armed = False
        thread.join()
        signal.signal(signal.SIGINT, previous)
    assert caught and completed, (caught, completed)
    assert all(_right(parallel, a, b, x, product, out) for _ in range(5))
    assert not blas._open and not blas._lowered and blas.thread_counts() == blas_before
    assert mg.is_grad_enabled() and not getattr(parallel._local, "inside", False)


SCENARIOS = {"resize": resize_while_computing, "many": many_threads_computing,
             "fork": fork_while_computing, "interrupt": interrupt_while_computing}


def _watched(name: str) -> None:
    """Run scenario ``name`` in a fresh interpreter under the watchdogs; fail with its output if not clean."""
    try:
        completed = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True,
                                   timeout=HANG + 30)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"{name}: hung past the watchdog\n{expired.stderr}")
    assert completed.returncode == 0, f"{name} (exit {completed.returncode}):\n{completed.stderr[-6000:]}"


def test_resizing_the_pool_while_threads_compute_never_hangs():
    _watched("resize")


def test_several_threads_computing_at_once_get_one_threads_answers():
    _watched("many")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_fork_from_any_thread_while_others_compute_never_hangs():
    _watched("fork")


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="signals to a thread are POSIX only")
def test_an_interrupted_call_leaves_the_pool_usable():
    _watched("interrupt")


if __name__ == "__main__":
    faulthandler.dump_traceback_later(HANG, exit=True)   # a hang prints every thread's stack and ends
    SCENARIOS[sys.argv[1]]()
    print("ok")
