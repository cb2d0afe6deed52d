"""Fetch a file from the first mirror that serves the right bytes, and save it atomically.

A download is only kept when its MD5 matches the published one, and it is written under
a temporary name and then renamed (``os.replace`` is atomic), so an interrupted or failed
download never leaves a half-written file where a reader would trust it.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import sys
import tempfile
import urllib.request
from collections.abc import Sequence
from pathlib import Path

__all__ = ["download_verified", "write_atomically"]

USER_AGENT = "minigrad"  # some mirrors refuse urllib's default agent


def _fetch(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read()  # raises IncompleteRead when the body is shorter than announced


def write_atomically(destination: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``destination``, then rename it into place."""
    destination = Path(destination)
    handle, temporary = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}.",
                                         suffix=".part")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes it private; a data file is for everyone
        os.replace(temporary, destination)
    except BaseException:  # including KeyboardInterrupt: remove what we started
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def download_verified(urls: Sequence[str], destination: str | os.PathLike, md5: str,
                      timeout: float = 30.0) -> Path:
    """Save the first of ``urls`` whose bytes have this MD5 as ``destination``; return its path.

    Raises ``RuntimeError`` listing every URL tried and why it was refused.
    """
    destination = Path(destination)
    failures = []
    for url in urls:
        print(f"Downloading {url}", file=sys.stderr)
        try:
            data = _fetch(url, timeout)
        except (OSError, http.client.HTTPException, ValueError) as error:
            # OSError covers URLError, HTTPError and timeouts; HTTPException a cut-off body;
            # ValueError a malformed URL.
            failures.append(f"{url}: {type(error).__name__}: {error}")
            continue
        digest = hashlib.md5(data, usedforsecurity=False).hexdigest()
        if digest != md5:
            failures.append(f"{url}: received {len(data)} bytes with MD5 {digest}, expected {md5}")
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(destination, data)
        return destination
    tried = "\n".join(f"  {failure}" for failure in failures) or "  (no mirrors given)"
    raise RuntimeError(f"could not download {destination.name}; tried:\n{tried}")
