"""docs/compatibility.md is true: every supported row names something minigrad has and a test
file that exercises it, every not-supported row raises NotImplementedError, and every name left
out on purpose (minigrad/compat/unsupported.py) is listed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import minigrad
from minigrad.compat.unsupported import UNSUPPORTED

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "compatibility.md"
ROW = re.compile(r"^\| `(?P<name>[^`]+)` \| (?P<status>[a-z ]+) \| (?P<notes>.*) \| (?P<test>.*) \|$")
PREFIXES = {"torch": minigrad, "nn": minigrad.nn, "F": minigrad.nn.functional, "optim": minigrad.optim}


def _rows() -> list[dict]:
    return [match.groupdict() for line in PAGE.read_text(encoding="utf-8").splitlines()
            if (match := ROW.match(line))]


ROWS = _rows()
SUPPORTED = [row for row in ROWS if row["status"] in ("supported", "differs")]
LEFT_OUT = [row for row in ROWS if row["status"] == "not supported"]


def _resolve(name: str):
    """The object the row's name is in minigrad (``Tensor.x`` on the class, else on a tensor)."""
    head, *rest = name.split(".")
    if head == "Tensor":
        owner = minigrad.Tensor if hasattr(minigrad.Tensor, rest[0]) else minigrad.ones(1)
        return getattr(owner, rest[0])
    value = PREFIXES[head]
    for part in rest:
        value = getattr(value, part)
    return value


def test_the_page_has_the_survey_and_the_statuses():
    assert len(ROWS) > 250
    assert {row["status"] for row in ROWS} == {"supported", "differs", "not supported"}
    assert "## Where minigrad's graph differs from PyTorch's" in PAGE.read_text(encoding="utf-8")


@pytest.mark.parametrize("row", SUPPORTED, ids=[row["name"] for row in SUPPORTED])
def test_supported_rows_exist_and_name_a_test_that_uses_them(row):
    _resolve(row["name"])
    test = row["test"].strip().strip("`")
    path = ROOT / test
    assert test.startswith("tests/") and path.is_file(), f"{row['name']}: no test file {test!r}"
    last = row["name"].rsplit(".", 1)[-1]
    # a protocol method is used through its function: __copy__ through copy.copy(...)
    pattern = rf"\.{last.strip('_')}\(" if last.startswith("__") else rf"(?<![\w]){re.escape(last)}(?![\w])"
    assert re.search(pattern, path.read_text(encoding="utf-8")), f"{test} does not use {last}"


@pytest.mark.parametrize("row", LEFT_OUT, ids=[row["name"] for row in LEFT_OUT])
def test_not_supported_rows_raise_not_implemented(row):
    if row["name"].split(".")[0] not in PREFIXES:  # another package (torchvision)
        return
    with pytest.raises(NotImplementedError, match="docs/compatibility.md"):
        _resolve(row["name"])


def test_every_name_left_out_on_purpose_is_listed():
    text = PAGE.read_text(encoding="utf-8")
    missing = [f"{namespace}.{name}" for namespace, table in UNSUPPORTED.items() for name in table
               if f"`{name}`" not in text]
    assert not missing


def test_the_page_is_in_the_site_navigation():
    assert "compatibility.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
