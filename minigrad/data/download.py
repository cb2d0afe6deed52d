"""Fetch a file from the first mirror that serves the right bytes, and save it atomically.

A download is only kept when its MD5 matches the published one, and it is streamed to a
temporary file beside the destination and then renamed (``os.replace`` is atomic), so an
interrupted or failed download never leaves a half-written file where a reader would trust it.

Each mirror gets a bounded time: a read that waits ``timeout`` seconds for a byte fails, a
transfer slower than ``min_rate`` bytes per second (measured once it has run ``timeout``
seconds) fails, and so does one still running after ``deadline`` seconds. An optional
:class:`StreamCheck` sees every chunk as it arrives and can refuse the content early (a file
of zeros, a gzip bomb) instead of after the whole file is in.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from tqdm import tqdm

from minigrad._files import atomic_file, write_atomically

__all__ = ["DownloadError", "StreamCheck", "download_verified", "write_atomically"]

USER_AGENT = "minigrad"  # some mirrors refuse urllib's default agent
_CHUNK = 1 << 16


class DownloadError(Exception):
    """One mirror failed; the message says how. The next mirror is tried."""


class StreamCheck(Protocol):
    """Checks a download's content while it streams; raises ``ValueError`` saying what is wrong."""

    def update(self, chunk: bytes) -> None: ...

    def finish(self) -> None: ...


def download_verified(urls: Sequence[str], destination: str | os.PathLike, md5: str,
                      timeout: float = 30.0, *, deadline: float = 600.0, min_rate: float = 20_000.0,
                      max_bytes: int | None = None, check: Callable[[], StreamCheck] | None = None,
                      progress: bool = True) -> Path:
    """Save the first of ``urls`` whose bytes have this MD5 as ``destination``; return its path.

    ``timeout`` bounds each wait for data (seconds), ``deadline`` each mirror's whole transfer,
    ``min_rate`` its average speed (bytes/s, once it has run ``timeout`` seconds); ``max_bytes``
    refuses a larger body (announced or received); ``check`` makes a fresh :class:`StreamCheck`
    for each mirror. A tqdm bar shows bytes and rate on stderr unless ``progress`` is False.

    Before moving on from a failed mirror, says on stderr which one failed and how. Raises
    ``RuntimeError`` listing every URL tried and why it was refused.
    """
    destination = Path(destination)
    failures = []
    for url in urls:
        print(f"Downloading {url}", file=sys.stderr)
        try:
            with atomic_file(destination) as file:
                _fetch_into(file, url, md5, _Limits(timeout, deadline, min_rate, max_bytes),
                            check() if check is not None else None, progress)
            return destination
        except DownloadError as error:
            reason = str(error)
        except (OSError, http.client.HTTPException, ValueError) as error:
            # OSError covers URLError, HTTPError and timeouts; HTTPException a cut-off body;
            # ValueError a malformed URL.
            reason = f"{type(error).__name__}: {error}"
        failures.append(f"{url}: {reason}")
        more = "; trying the next mirror" if url != urls[-1] else ""
        print(f"  failed: {reason}{more}", file=sys.stderr)
    tried = "\n".join(f"  {failure}" for failure in failures) or "  (no mirrors given)"
    raise RuntimeError(f"could not download {destination.name}; tried:\n{tried}")


@dataclass(frozen=True)
class _Limits:
    timeout: float  # seconds one read may wait
    deadline: float  # seconds the whole transfer may take
    min_rate: float  # bytes per second, averaged once the transfer has run `timeout` seconds
    max_bytes: int | None  # the largest body accepted


def _fetch_into(file: IO[bytes], url: str, md5: str, limits: _Limits, check: StreamCheck | None,
                progress: bool) -> None:
    """Stream ``url`` into ``file`` within ``limits``; raises DownloadError saying what went wrong."""
    start = time.monotonic()
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    # Each blocking read waits at most this long, so the deadline is overrun by less than one wait.
    with urllib.request.urlopen(request, timeout=min(limits.timeout, limits.deadline)) as response:
        announced = response.headers.get("Content-Length")
        total = int(announced) if announced and announced.isdigit() else None
        if total is not None and limits.max_bytes is not None and total > limits.max_bytes:
            raise DownloadError(f"the server announces {total} bytes, more than the {limits.max_bytes} "
                                "this file can take")
        digest = hashlib.md5(usedforsecurity=False)
        received = 0
        with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=Path(url).name,
                  file=sys.stderr, disable=not progress, leave=False) as bar:
            while chunk := _read(response, received, limits.timeout):
                received += len(chunk)
                if check is not None:  # first: "not gzip" says more than "too large"
                    try:
                        check.update(chunk)
                    except ValueError as error:
                        raise DownloadError(f"wrong content after {received} bytes: {error}") from error
                _check_pace(received, time.monotonic() - start, limits)
                digest.update(chunk)
                file.write(chunk)
                bar.update(len(chunk))
        if total is not None and received != total:  # http.client stops quietly at a cut connection
            raise DownloadError(f"the connection closed after {received} of {total} bytes")
    if check is not None:
        try:
            check.finish()
        except ValueError as error:
            raise DownloadError(f"wrong content: {error}") from error
    if digest.hexdigest() != md5:
        raise DownloadError(f"received {received} bytes with MD5 {digest.hexdigest()}, expected {md5}")


def _read(response: http.client.HTTPResponse, received: int, timeout: float) -> bytes:
    try:
        return response.read1(_CHUNK)
    except TimeoutError as error:
        raise DownloadError(f"no data for {timeout:g} s (stalled after {received} bytes)") from error


def _check_pace(received: int, elapsed: float, limits: _Limits) -> None:
    if limits.max_bytes is not None and received > limits.max_bytes:
        raise DownloadError(f"more than the {limits.max_bytes} bytes this file can take")
    if elapsed > limits.deadline:
        raise DownloadError(f"still running after the deadline of {limits.deadline:g} s "
                            f"({received} bytes received)")
    if elapsed > limits.timeout and received < limits.min_rate * elapsed:
        raise DownloadError(f"too slow: {received} bytes in {elapsed:.1f} s, below the minimum rate of "
                            f"{limits.min_rate:g} bytes/s")
