"""Write a file atomically: a reader sees the old file or the whole new one, never half of one.

The content goes to a temporary file in the destination's folder (a rename across file systems
is not atomic), is flushed to disk, the file is closed (Windows cannot rename an open file), and
``os.replace`` renames it over the destination in one step, on POSIX and Windows alike. If
anything fails, Ctrl-C included, the temporary file is removed and the old file is untouched.

Every file minigrad writes goes through here: checkpoints (``mg.save``), downloads, profiler
traces, pictures, the exercises' student copies and grading results.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["atomic_file", "write_atomically"]


@contextlib.contextmanager
def atomic_file(destination: str | os.PathLike, *, text: bool = False) -> Iterator[IO[Any]]:
    """A new file (binary, or UTF-8 text with ``\\n`` line ends) that replaces ``destination``
    when the block ends without error, and is removed when the block raises."""
    destination = os.fspath(destination)
    directory = os.path.dirname(os.path.abspath(destination))
    temporary = os.path.join(directory, f".{os.path.basename(destination)}.{secrets.token_hex(6)}.tmp")
    try:
        # "x": never clobber a file of the same name; permissions follow the umask like any file.
        with open(temporary, "x" if text else "xb", encoding="utf-8" if text else None,
                  newline="\n" if text else None) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
    _fsync_directory(directory)


def write_atomically(destination: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` (bytes, or text as UTF-8) to ``destination`` atomically."""
    with atomic_file(destination, text=isinstance(data, str)) as file:
        file.write(data)


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable on POSIX; Windows has no directory handles to sync."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):  # some file systems refuse; the data is already on disk
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
