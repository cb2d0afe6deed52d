"""Grad mode, inference mode and the default device are per thread and the default dtype per
process, as in PyTorch; anomaly mode is per thread too (minigrad's SPEC; PyTorch's is per process).

Every scenario is written once for a library ``lib`` (minigrad or torch), returns plain values,
and is compared with PyTorch's answer to the same scenario (``reference``: live, and recorded).
The threads meet at events, so each scenario runs in the same order every time; a short switch
interval makes the threads that run freely change places often.
"""

from __future__ import annotations

import sys
import threading
import warnings

import numpy as np
import pytest
from _pool import let_the_pool_start
from _reference import reference

import minigrad as mg
from minigrad import backend
from minigrad.performance import parallel

WAIT = 30   # seconds an event may take before a scenario gives up (it never should)


@pytest.fixture(autouse=True)
def frequent_switches():
    """Threads change places every 10 µs instead of every 5 ms, so that interleavings are many."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(interval)


def in_new_thread(fn):
    """``fn()`` run on a fresh thread; its result."""
    result = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join(WAIT)
    assert result, "the thread did not finish"
    return result[0]


def thread_inside_no_grad_while_main_records(lib):
    """The issue's first example: thread B is inside ``no_grad`` while the main thread records."""
    inside, leave = threading.Event(), threading.Event()
    seen = {}

    def b():
        with lib.no_grad():
            seen["b records"] = (lib.ones(2, requires_grad=True) * 2).requires_grad
            inside.set()
            leave.wait(WAIT)
        seen["b after"] = lib.is_grad_enabled()

    thread = threading.Thread(target=b)
    thread.start()
    assert inside.wait(WAIT)
    main_records = (lib.ones(2, requires_grad=True) * 2).requires_grad
    main_enabled = lib.is_grad_enabled()
    leave.set()
    thread.join(WAIT)
    return {"main records": main_records, "main enabled": main_enabled, **seen}


def what_a_new_thread_starts_with(lib):
    """Each mode switched away from its default in the main thread, then read in a new thread."""
    def modes():
        return {"grad": lib.is_grad_enabled(), "inference": lib.is_inference_mode_enabled(),
                "anomaly": lib.is_anomaly_enabled(), "dtype": str(lib.get_default_dtype()).rsplit(".")[-1],
                "device": str(lib.get_default_device())}

    answers = {"main before": modes()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # detect_anomaly's warning
        with lib.no_grad():
            answers["under no_grad"] = in_new_thread(modes)
        with lib.inference_mode():
            answers["under inference_mode"] = in_new_thread(modes)
        previous = lib.is_grad_enabled()
        lib.set_grad_enabled(False)
        answers["after set_grad_enabled(False)"] = in_new_thread(modes)
        lib.set_grad_enabled(previous)
        with lib.autograd.detect_anomaly():
            answers["under detect_anomaly"] = in_new_thread(modes)
    lib.set_default_dtype(lib.float64)
    try:
        answers["after set_default_dtype"] = in_new_thread(modes)
    finally:
        lib.set_default_dtype(lib.float32)
    with lib.device("cuda"):   # only the setting: no tensor is made there
        answers["under device('cuda')"] = in_new_thread(modes)
    lib.set_default_device("cuda")
    try:
        answers["after set_default_device"] = in_new_thread(modes)
    finally:
        lib.set_default_device(None)
    answers["main after"] = modes()
    return answers


def threads_entering_and_leaving_no_grad(lib, threads=4, rounds=300):
    """Several threads enter and leave ``no_grad`` (and ``inference_mode``) at once, recording in between."""
    start = threading.Barrier(threads + 1)
    recorded = []

    def enter_and_leave():
        start.wait(WAIT)
        x = lib.ones(2, requires_grad=True)
        ok = True
        for _ in range(rounds):
            with lib.no_grad():
                ok &= not (x * 2).requires_grad
            with lib.inference_mode():
                ok &= not (x * 2).requires_grad
            ok &= (x * 2).requires_grad
        recorded.append(ok)

    workers = [threading.Thread(target=enter_and_leave) for _ in range(threads)]
    for worker in workers:
        worker.start()
    start.wait(WAIT)
    for worker in workers:
        worker.join(WAIT)
    return {"each thread recorded exactly outside no_grad": recorded == [True] * threads,
            "main": lib.is_grad_enabled(), "a new thread": in_new_thread(lib.is_grad_enabled)}


def _model(lib, seed):
    """A 4-3-1 network in float64 with weights from ``seed`` (the same in both libraries)."""
    rng = np.random.default_rng(seed)
    model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 1)).double()
    with lib.no_grad():
        for parameter in model.parameters():
            parameter.copy_(lib.tensor(rng.uniform(-0.5, 0.5, tuple(parameter.shape))))
    return model


def _data(lib, seed):
    rng = np.random.default_rng(seed + 100)
    x = rng.standard_normal((8, 4))
    return lib.tensor(x), lib.tensor(np.sin(x).sum(axis=1, keepdims=True))


def _train(lib, model, x, y, steps, report):
    """SGD on the mean squared error; ``report`` gets how many steps raised or left a gradient out."""
    optimizer = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    failures = missing = 0
    for _ in range(steps):
        optimizer.zero_grad()
        try:
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
        except RuntimeError:
            failures += 1
            continue
        missing += any(p.grad is None for p in model.parameters())
        optimizer.step()
    report.update(failures=failures, missing=missing, loss=float(((model(x) - y) ** 2).mean().item()))


def two_models_training_in_two_threads(lib, steps=150):
    """Two models, each trained in its own thread (the optimiser's step runs under ``no_grad``)."""
    start = threading.Barrier(2)
    reports = [{}, {}]

    def train(index):
        model, (x, y) = _model(lib, index), _data(lib, index)
        start.wait(WAIT)
        _train(lib, model, x, y, steps, reports[index])

    workers = [threading.Thread(target=train, args=(index,)) for index in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(WAIT)
    return reports


def evaluator_under_no_grad_while_training(lib, steps=2000):
    """The main thread trains; an evaluator thread runs the same model under ``no_grad`` throughout."""
    model, (x, y) = _model(lib, 7), _data(lib, 7)
    done = threading.Event()
    evaluations = []

    def evaluate():
        while not done.is_set() or not evaluations:
            with lib.no_grad():
                evaluations.append(not model(x).requires_grad)

    evaluator = threading.Thread(target=evaluate)
    evaluator.start()
    report = {}
    try:
        _train(lib, model, x, y, steps, report)
    finally:
        done.set()
        evaluator.join(WAIT)
    report["every evaluation unrecorded"] = all(evaluations)
    return report


def _compare(ours, theirs, tolerance=1e-9):
    """Equal, with floats (the trained losses) equal to ``tolerance``."""
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            _compare(ours[key], theirs[key], tolerance)
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _compare(a, b, tolerance)
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=tolerance, abs=tolerance)
    else:
        assert ours == theirs


def test_a_thread_inside_no_grad_leaves_the_main_thread_recording_like_torch():
    ours = thread_inside_no_grad_while_main_records(mg)
    assert ours == {"main records": True, "main enabled": True, "b records": False, "b after": True}
    _compare(ours, reference(thread_inside_no_grad_while_main_records))


def test_a_new_thread_starts_with_torchs_modes():
    """Grad mode on, inference mode and anomaly mode off and the CPU in a new thread; the default
    dtype is the process's (PyTorch keeps it in one place for all threads).

    Anomaly mode is the one difference: minigrad's SPEC keeps it per thread, where PyTorch 2.13
    keeps it for the process (a new thread started under ``detect_anomaly`` sees it on there)."""
    ours = what_a_new_thread_starts_with(mg)
    fresh = {"grad": True, "inference": False, "anomaly": False, "dtype": "float32", "device": "cpu"}
    assert ours["under no_grad"] == ours["under inference_mode"] == ours["main after"] == fresh
    assert ours["under detect_anomaly"] == fresh and ours["after set_default_dtype"]["dtype"] == "float64"
    torch_answers = reference(what_a_new_thread_starts_with)
    assert torch_answers["under detect_anomaly"]["anomaly"]   # PyTorch's: the process's
    torch_answers["under detect_anomaly"]["anomaly"] = False  # minigrad's: this thread's
    _compare(ours, torch_answers)


def test_threads_entering_and_leaving_no_grad_never_leave_grad_mode_off_like_torch():
    ours = threads_entering_and_leaving_no_grad(mg)
    assert all(ours.values())
    _compare(ours, reference(threads_entering_and_leaving_no_grad))


def test_two_models_train_in_two_threads_like_torch():
    ours = two_models_training_in_two_threads(mg)
    assert [(report["failures"], report["missing"]) for report in ours] == [(0, 0), (0, 0)]
    _compare(ours, reference(two_models_training_in_two_threads))


def test_an_evaluator_under_no_grad_does_not_disturb_training_like_torch():
    ours = evaluator_under_no_grad_while_training(mg)
    assert (ours["failures"], ours["missing"], ours["every evaluation unrecorded"]) == (0, 0, True)
    _compare(ours, reference(evaluator_under_no_grad_while_training), tolerance=1e-7)


def test_pool_threads_compute_under_the_callers_modes(monkeypatch):
    """minigrad's own pool: each piece runs under the modes of the thread that handed it over,
    and the pool's threads go back to their own afterwards."""
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 1)
    parallel.resize(4)
    seen = []

    def record(start, stop):
        let_the_pool_start()
        seen.append((threading.get_ident(), mg.is_grad_enabled(), mg.is_inference_mode_enabled(),
                     mg.is_anomaly_enabled(), str(backend.default_device())))

    try:
        with mg.inference_mode(), mg.device("cuda"), mg.autograd.detect_anomaly():
            parallel.parallel_for(np, 8, 1, record)
        under_inference = set(seen)
        seen.clear()
        parallel.parallel_for(np, 8, 1, record)
    finally:
        parallel.resize(None)
    assert len({entry[0] for entry in under_inference}) > 1
    assert {entry[1:] for entry in under_inference} == {(False, True, True, "cuda")}
    assert len({entry[0] for entry in seen}) > 1
    assert {entry[1:] for entry in seen} == {(True, False, False, "cpu")}
