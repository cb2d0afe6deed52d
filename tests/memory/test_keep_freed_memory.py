"""minigrad keeps freed array memory in the process (glibc), so big arrays do not page-fault anew."""

import json
import os
import subprocess
import sys

import pytest

from minigrad import _memory

# Allocate, fill and free a 16 MiB array 40 times after a first one; report the page faults this cost.
PROBE = """
import json, resource
import numpy
import minigrad
def use_an_array():
    a = numpy.empty(4 * 1024 * 1024, dtype=numpy.float32)
    a.fill(1.0)
use_an_array()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(40):
    use_an_array()
print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before))
"""


def _page_faults(keep: str) -> int:
    env = dict(os.environ, MINIGRAD_KEEP_FREED_MEMORY=keep)
    completed = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env,
                               check=True)
    return json.loads(completed.stdout)


@pytest.mark.skipif(not _memory._is_glibc(), reason="the allocator tuning exists only for glibc")
def test_freed_arrays_are_reused_without_page_faults():
    without = _page_faults("0")
    kept = _page_faults("1")
    assert without >= 40, f"the probe should fault at least once per array without the tuning ({without})"
    assert kept < without / 10, (kept, without)


def test_opting_out_leaves_the_allocator_alone(monkeypatch):
    monkeypatch.setenv("MINIGRAD_KEEP_FREED_MEMORY", "0")
    assert _memory.keep_freed_memory() is False
