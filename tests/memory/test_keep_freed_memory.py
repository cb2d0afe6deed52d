"""minigrad changes no process-wide setting by itself; keeping freed memory is an explicit opt-in.

Each probe runs in a fresh interpreter, since the settings it looks at belong to the process.
"""

import json
import subprocess
import sys

import pytest

from minigrad import memory

# Allocate, fill and free a 16 MiB array 40 times after a first one; report the page faults this cost.
FAULTS = """
import resource
import numpy
def use_an_array():
    a = numpy.empty(4 * 1024 * 1024, dtype=numpy.float32)
    a.fill(1.0)
use_an_array()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(40):
    use_an_array()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
"""

# glibc's allocator: does a fresh 24 MiB block get its own mapping (mallinfo's hblks goes up by one)?
# By default it does (the mmap threshold starts at 128 KiB and only grows to the largest mapped block
# freed so far, far below 24 MiB in this tiny model); after mallopt(M_MMAP_THRESHOLD, 32 MiB), as
# keep_freed_memory() calls it, it comes from the heap instead.
MMAP_PROBE = """
import ctypes
libc = ctypes.CDLL(None)
FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
          "keepcost")
if hasattr(libc, "mallinfo2"):  # glibc 2.33 and later
    info, field = libc.mallinfo2, ctypes.c_size_t
else:
    info, field = libc.mallinfo, ctypes.c_int
info.restype = type("Mallinfo", (ctypes.Structure,), {"_fields_": [(name, field) for name in FIELDS]})
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
before = info().hblks
block = libc.malloc(24 * 1024 * 1024)
mapped = info().hblks - before
libc.free(block)
"""

# NumPy's settings before minigrad, inside a backward hook, and after a whole training step of a small
# CNN (conv, relu, max-pool, linear, cross-entropy; an SGD and an Adam step) that also prints a tensor.
TRAINING_STEP = """
import json
import numpy
def settings():
    return {"bufsize": numpy.getbufsize(), "err": numpy.geterr(), "print": repr(numpy.get_printoptions())}
before = settings()
import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(4 * 7 * 7, 10))
seen = {}
for optimizer in (mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), mg.optim.Adam(model.parameters())):
    hidden = model[:2](mg.randn(8, 1, 14, 14))
    hidden.register_hook(lambda g: seen.update(settings()))
    loss = F.cross_entropy(model[2:](hidden), mg.randint(0, 10, (8,)))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
text = repr(loss) + str(model[0].weight)
after = settings()
"""


def _run(code: str, result: str) -> object:
    completed = subprocess.run([sys.executable, "-c", code + f"\nprint(json.dumps({result}))"],
                               capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_import_and_a_training_step_leave_numpy_settings_alone():
    before, seen, after = _run(TRAINING_STEP, "[before, seen, after]")
    assert seen == before, "a backward hook saw minigrad's NumPy settings"
    assert after == before


@pytest.mark.skipif(not memory._is_glibc(), reason="the allocator tuning exists only for glibc")
def test_the_allocator_is_untouched_unless_the_program_opts_in():
    untouched = _run(TRAINING_STEP + FAULTS, "faults")
    opted_in = _run("import json, minigrad; minigrad.memory.keep_freed_memory()\n" + FAULTS, "faults")
    assert untouched >= 40, f"without the opt-in every array should fault anew ({untouched})"
    assert opted_in < untouched / 10, (opted_in, untouched)


@pytest.mark.skipif(not memory._is_glibc(), reason="mallopt and mallinfo are glibc's: there is nothing to "
                                                     "observe on macOS, Windows or musl")
def test_the_mmap_threshold_is_glibcs_default_after_a_training_step():
    """A direct observable of mallopt: a 24 MiB block is mapped by itself unless the threshold was raised."""
    assert _run(TRAINING_STEP + MMAP_PROBE, "mapped") == 1, "minigrad raised glibc's mmap threshold"
    opted_in = _run("import json, minigrad; minigrad.memory.keep_freed_memory()\n" + MMAP_PROBE, "mapped")
    assert opted_in == 0, "the probe does not see keep_freed_memory's mallopt"


def test_opting_in_says_whether_it_took_effect():
    assert _run("import json, minigrad; ok = minigrad.memory.keep_freed_memory()", "ok") is memory._is_glibc()
