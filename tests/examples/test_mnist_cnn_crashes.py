"""examples/mnist_cnn.py after things go wrong: killed between two writes, killed while saving,
resumed with other settings or from a damaged checkpoint, interrupted, or pointed at a folder
it can't write. Each ends in a complete record or a one-line error naming the file or folder.

The runs are tiny (64 training and 64 test images of the shared MNIST files) so each takes a
few seconds. A process is killed abruptly (SIGKILL, or os._exit where there is none) from
inside, at an exact point, by a wrapper that patches one function of the example.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from _example_helpers import EXAMPLES, MNIST_DIR, ROOT, example_env, load_example, needs_mnist

import minigrad as mg

TINY = ("--data", str(MNIST_DIR), "--train-subset", "64", "--test-subset", "64", "--batch-size", "32")

# Runs the example, but dies abruptly at the moment named by KILL_AT:
#   "metrics:<n>"  when metrics.json is about to be written with <n> epochs (the checkpoint of
#                  epoch n has just been renamed into place);
#   "fsync"        while mg.save writes the first checkpoint (its temporary file is complete, not
#                  yet renamed).
KILLING_WRAPPER = """
import importlib.util, os, signal, sys
import minigrad.serialization

def die():
    if hasattr(signal, "SIGKILL"):
        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(137)

spec = importlib.util.spec_from_file_location("mnist_cnn", sys.argv[1])
cnn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cnn)
where = os.environ["KILL_AT"]
if where.startswith("metrics:"):
    write_json = cnn.write_json
    def killing_write_json(path, obj):
        if path.name == "metrics.json" and len(obj["epochs"]) == int(where.split(":")[1]):
            die()
        write_json(path, obj)
    cnn.write_json = killing_write_json
elif where == "fsync":
    minigrad.serialization.os.fsync = lambda fd: die()
sys.exit(cnn.main(sys.argv[2:]))
"""


def run(out: Path, *flags: str, kill_at: str | None = None) -> subprocess.CompletedProcess:
    env = example_env()
    if kill_at is None:
        command = [sys.executable, str(EXAMPLES / "mnist_cnn.py")]
    else:
        command = [sys.executable, "-c", KILLING_WRAPPER, str(EXAMPLES / "mnist_cnn.py")]
        env["KILL_AT"] = kill_at
    return subprocess.run([*command, "--out", str(out), *flags], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


def succeeded(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, f"exit code {result.returncode}\n{result.stdout}\n{result.stderr[-3000:]}"
    return result


def failed_cleanly(result: subprocess.CompletedProcess) -> str:
    """The run stopped with exit code 1 and one 'error:' line, not a traceback; returns that line."""
    assert result.returncode == 1, f"exit code {result.returncode}\n{result.stdout}\n{result.stderr[-3000:]}"
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr[-3000:]
    return lines[0]


def epochs_in_metrics(out: Path) -> list[int]:
    return [record["epoch"] for record in json.loads((out / "metrics.json").read_text())["epochs"]]


@pytest.fixture(scope="module")
def one_epoch(tmp_path_factory) -> Path:
    """A checkpoint and metrics of one tiny epoch, trained once for the tests below to copy."""
    if not MNIST_DIR.is_dir():
        pytest.skip(f"the MNIST files are not at {MNIST_DIR}")
    out = tmp_path_factory.mktemp("one_epoch")
    succeeded(run(out, *TINY, "--epochs", "1"))
    return out


def copy_run(source: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(source, out)
    return out


@needs_mnist
def test_killed_between_checkpoint_and_metrics_resume_rewrites_the_metrics(tmp_path):
    killed = run(tmp_path, *TINY, "--epochs", "2", kill_at="metrics:2")
    assert killed.returncode != 0
    assert mg.load(tmp_path / "checkpoint.mg")["epoch"] == 2  # the checkpoint of epoch 2 was renamed in
    assert epochs_in_metrics(tmp_path) == [1]  # ... and the metrics never got epoch 2

    resumed = succeeded(run(tmp_path, *TINY, "--epochs", "2", "--resume"))
    assert "2 epoch(s) done" in resumed.stdout and "epoch 2: test accuracy" not in resumed.stdout
    assert epochs_in_metrics(tmp_path) == [1, 2]
    history = mg.load(tmp_path / "checkpoint.mg")["history"]
    assert json.loads((tmp_path / "metrics.json").read_text())["epochs"] == history["epochs"]
    if "matplotlib is not installed" not in resumed.stdout:
        assert f"Plot: {tmp_path / 'curves.png'}" in resumed.stdout


@needs_mnist
def test_a_temporary_file_left_by_a_killed_save_is_removed_by_the_next_run(tmp_path):
    killed = run(tmp_path, *TINY, "--epochs", "1", kill_at="fsync")
    assert killed.returncode != 0
    left = [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
    assert len(left) == 1 and left[0].startswith(".checkpoint.mg.")  # what the kill left behind
    others = [".checkpoint.mg.notours.tmp", "notes.tmp", ".other.mg.0123456789ab.tmp"]
    for name in [*others, "metrics.json.tmp"]:
        (tmp_path / name).write_text("x")

    rerun = succeeded(run(tmp_path, *TINY, "--epochs", "1", "--resume"))
    assert f"Removed {tmp_path / left[0]}" in rerun.stdout
    assert sorted(name for name in os.listdir(tmp_path) if name.endswith(".tmp")) == sorted(others)
    assert mg.load(tmp_path / "checkpoint.mg")["epoch"] == 1


@needs_mnist
def test_resume_with_freeze_conv_is_refused_before_the_optimiser_loads(one_epoch, tmp_path):
    out = copy_run(one_epoch, tmp_path)
    line = failed_cleanly(run(out, *TINY, "--epochs", "2", "--resume", "--freeze-conv"))
    assert f"{out / 'checkpoint.mg'} was trained with other settings: --freeze-conv False (now True)" in line


@needs_mnist
def test_a_checkpoint_missing_a_key_is_a_clear_error(one_epoch, tmp_path):
    out = copy_run(one_epoch, tmp_path)
    state = mg.load(out / "checkpoint.mg")
    del state["loader_rng_state"]
    mg.save(state, out / "checkpoint.mg")
    line = failed_cleanly(run(out, *TINY, "--epochs", "2", "--resume"))
    assert f"{out / 'checkpoint.mg'} is not a checkpoint of this program: it lacks the key " \
           "'loader_rng_state'" in line


@needs_mnist
def test_a_truncated_checkpoint_is_a_clear_error_on_resume(one_epoch, tmp_path):
    out = copy_run(one_epoch, tmp_path)
    data = (out / "checkpoint.mg").read_bytes()
    (out / "checkpoint.mg").write_bytes(data[:len(data) // 2])
    line = failed_cleanly(run(out, *TINY, "--epochs", "2", "--resume"))
    assert "can't resume" in line and str(out / "checkpoint.mg") in line


def test_ctrl_c_with_a_truncated_checkpoint_exits_130_with_one_line(tmp_path, monkeypatch, capsys):
    cnn = load_example("mnist_cnn")
    mg.save({"epoch": 1, "weights": mg.ones(1000)}, tmp_path / "checkpoint.mg")
    data = (tmp_path / "checkpoint.mg").read_bytes()
    (tmp_path / "checkpoint.mg").write_bytes(data[:len(data) // 3])

    def interrupted(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(cnn, "train", interrupted)
    assert cnn.main(["--out", str(tmp_path)]) == 130
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1
    assert printed[0].startswith(f"Interrupted. {tmp_path / 'checkpoint.mg'} can't be read (")


def test_ctrl_c_names_the_epoch_of_a_whole_checkpoint(tmp_path, monkeypatch, capsys):
    cnn = load_example("mnist_cnn")
    mg.save({"epoch": 4}, tmp_path / "checkpoint.mg")

    def interrupted(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(cnn, "train", interrupted)
    assert cnn.main(["--out", str(tmp_path)]) == 130
    printed = capsys.readouterr().out
    assert f"The last complete checkpoint is {tmp_path / 'checkpoint.mg'} (epoch 4)" in printed


def test_an_out_that_is_a_file_is_reported_before_training(tmp_path):
    out = tmp_path / "a_file"
    out.write_text("")
    line = failed_cleanly(run(out, *TINY, "--epochs", "1"))
    assert line.startswith(f"error: can't write to the output folder {out}: ")
    assert "--out" in line


def test_an_unwritable_out_is_reported_before_training(tmp_path, monkeypatch):
    """Where permissions can't be taken away (root, Windows), refuse the write itself."""
    cnn = load_example("mnist_cnn")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cnn.tempfile, "TemporaryFile", refuse)
    monkeypatch.setattr(cnn, "train", lambda args, out: pytest.fail("training started"))
    with pytest.raises(SystemExit, match=rf"can't write to the output folder {tmp_path}: Permission denied"):
        cnn.main(["--out", str(tmp_path)])


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="needs POSIX permissions that bind the user")
def test_a_read_only_out_is_reported_before_training(tmp_path):
    tmp_path.chmod(0o555)
    try:
        line = failed_cleanly(run(tmp_path, *TINY, "--epochs", "1"))
    finally:
        tmp_path.chmod(0o755)
    assert f"can't write to the output folder {tmp_path}: Permission denied" in line


def test_the_stale_file_pattern_matches_what_mg_save_writes(tmp_path, monkeypatch):
    """The example's pattern must follow mg.save's temporary names (serialization.py)."""
    cnn = load_example("mnist_cnn")
    seen = []
    real_open = open

    def spying_open(path, mode="r", *args, **kwargs):
        seen.append(Path(path).name)
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spying_open)
    mg.save({"x": 1}, tmp_path / cnn.CHECKPOINT)
    monkeypatch.undo()
    temporary = [name for name in seen if name.endswith(".tmp")]
    assert temporary and all(cnn.STALE_TEMPORARY.fullmatch(name) for name in temporary)
    assert not cnn.STALE_TEMPORARY.fullmatch(tempfile.gettempprefix() + ".tmp")
