"""Fixtures for the data tests: IDX files written by hand, and a loopback HTTP mirror."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import os
import struct
import threading
from pathlib import Path

import numpy
import pytest

# The real MNIST files: the folder MINIGRAD_DATA names, else the shared copy some machines keep beside
# the checkout (<repo>/../shared/data/mnist). A fresh clone has neither until MNIST is downloaded.
SHARED_MNIST = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "mnist"
MNIST_NAMES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
               "t10k-labels-idx1-ubyte"]

_TYPE_CODES = {"uint8": 0x08, "int8": 0x09, "int16": 0x0B, "int32": 0x0C, "float32": 0x0D, "float64": 0x0E}


def idx_bytes(array: numpy.ndarray) -> bytes:
    """The IDX encoding of ``array``, built from the format's definition (not by minigrad)."""
    code = _TYPE_CODES[array.dtype.name]
    header = struct.pack(">HBB", 0, code, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


@pytest.fixture(scope="session")
def make_idx():
    return idx_bytes


@pytest.fixture(scope="session")
def shared_mnist() -> Path:
    """The folder holding MNIST's four ``.gz`` IDX files; skips, saying where it looked, without one."""
    candidates = [Path(os.environ["MINIGRAD_DATA"])] if os.environ.get("MINIGRAD_DATA") else []
    candidates.append(SHARED_MNIST)
    for folder in candidates:
        if all((folder / f"{name}.gz").is_file() for name in MNIST_NAMES):
            return folder.resolve()
    looked = " nor in ".join(str(folder) for folder in candidates)
    pytest.skip(f"MNIST's four .gz files are not in {looked}: set MINIGRAD_DATA to a folder holding them "
                f"(python examples/mnist_cnn.py downloads them to ~/.cache/minigrad/mnist)")


# --- a tiny fake MNIST, served by a local mirror ---------------------------------------------

@pytest.fixture(scope="session")
def tiny():
    """Arrays, IDX bytes, gzip bytes and checksums of a 5-image stand-in for each MNIST file."""
    from minigrad.data.mnist import MNISTFile

    rng = numpy.random.default_rng(0)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, size=(5, 28, 28), dtype=numpy.uint8),
        "train-labels-idx1-ubyte": numpy.array([5, 0, 4, 1, 9], dtype=numpy.uint8),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, size=(3, 28, 28), dtype=numpy.uint8),
        "t10k-labels-idx1-ubyte": numpy.array([7, 2, 1], dtype=numpy.uint8),
    }
    raw = {name: idx_bytes(array) for name, array in arrays.items()}
    gz = {name: gzip.compress(data, mtime=0) for name, data in raw.items()}
    specs = {name: MNISTFile(name, arrays[name].shape, hashlib.sha256(raw[name]).hexdigest(),
                             hashlib.md5(gz[name]).hexdigest()) for name in arrays}
    files = {
        "train": (specs["train-images-idx3-ubyte"], specs["train-labels-idx1-ubyte"]),
        "test": (specs["t10k-images-idx3-ubyte"], specs["t10k-labels-idx1-ubyte"]),
    }
    return {"arrays": arrays, "raw": raw, "gz": gz, "files": files}


class _MirrorHandler(http.server.BaseHTTPRequestHandler):
    """Serves ``server.routes[path] = (body, how)``; ``how`` is 'good', 'cut' (connection
    closed halfway through a body whose full length was announced), 'trickle' (one byte every
    ``server.trickle_s`` seconds), 'stall' (ten bytes, then nothing until the test ends) or
    'unannounced' (no Content-Length: the body ends when the connection closes)."""

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        route = self.server.routes.get(self.path)
        if route is None:
            self.send_error(404)
            return
        body, how = route
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if how != "unannounced":
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if how == "cut":
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
        elif how == "trickle":
            for i in range(len(body)):
                if self.server.release.wait(self.server.trickle_s):
                    break
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
        elif how == "stall":
            self.wfile.write(body[:10])
            self.wfile.flush()
            self.server.release.wait(60)
        else:
            self.wfile.write(body)

    def log_message(self, *args) -> None:  # keep the test output quiet
        pass


@pytest.fixture
def mirror_server():
    """A threaded HTTP server on 127.0.0.1 only; set ``.routes`` and read ``.requests``."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _MirrorHandler)
    server.routes, server.requests = {}, []
    server.release, server.trickle_s = threading.Event(), 0.05  # release: ends trickles and stalls
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def closed_port_url():
    """A loopback URL nobody listens on: connecting is refused at once."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
