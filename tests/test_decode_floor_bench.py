"""The per-type decode benchmark's cells floor (bench/throughput/per_type.py)
cuts exactly the cells it is given: a floor that skipped a cell, cut one
short or stopped early would be faster than any true decoder and make the
tuple path's ratio look worse than it is."""

from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "throughput"))
import per_type as bench  # noqa: E402

# every length a VARCHAR cell can have, with bytes that look like tuple
# heads, length bytes and NULLs inside the values
TEXTS = ["", "\x00", "\x01\x00", "\x00\x0e\x00\x00\x00\x00\x00\x10", "é" * 3,
         *("x" * k for k in range(256)), "\xff" * 255]


def _varchar(texts: list[str]) -> bytes:
    return b"".join(bytes([len(t)]) + t.encode("iso-8859-1") for t in texts)


def _lvarchar(texts: list[str], flag: int = 0) -> bytes:
    return b"".join(bytes([flag]) + struct.pack(">i", len(t)) + t.encode("iso-8859-1")
                    for t in texts)


def test_varchar_floor_cuts_every_cell_exactly() -> None:
    assert bench.varchar_cells(_varchar(TEXTS)) == TEXTS
    assert bench.varchar_cells(b"") == []


def test_lvarchar_floor_cuts_every_cell_exactly() -> None:
    long = ["y" * 70_000, "", "z" * 300]
    assert bench.lvarchar_cells(_lvarchar(TEXTS + long)) == TEXTS + long
    # a NULL's flag is not read: the cell still counts, as an empty text
    assert bench.lvarchar_cells(_lvarchar(["", "a"], flag=1)) == ["", "a"]


@pytest.mark.parametrize("cells, buf", [
    (bench.varchar_cells, _varchar(["abc", "de"])[:-1]),
    (bench.varchar_cells, _varchar(["abc"]) + b"\x05ab"),
    (bench.lvarchar_cells, _lvarchar(["abc", "de"])[:-1]),
    (bench.lvarchar_cells, _lvarchar(["abc"]) + b"\x00\x00"),
], ids=["varchar-short", "varchar-length-past-end", "lvarchar-short", "lvarchar-cut-length"])
def test_floor_refuses_a_buffer_its_cells_do_not_fill(cells, buf: bytes) -> None:
    with pytest.raises(ValueError, match="cells end at"):
        cells(buf)


def test_table_shows_the_cells_floor_for_the_length_prefixed_types_only() -> None:
    pytest.importorskip("numpy", reason="per_type packs Arrow images with numpy")
    pytest.importorskip("pyarrow", reason="per_type measures Arrow columns too")
    shown = {}
    for line in bench.table(160, 1).splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 13 and cells[1] in ("-", "10%") and cells[0] != "type":
            shown[cells[0], cells[1]] = (float(cells[6]), cells[9])
    assert len(shown) == 2 * len(bench.TYPES)
    for (name, nulls), (constructor, floor) in shown.items():
        if name not in ("VARCHAR(64)", "LVARCHAR"):
            assert floor == "-", name
            continue
        ns, ratio = map(float, re.fullmatch(r"(\d+) \(([\d.]+)\)", floor).groups())
        # whole ns in the table: allow for the rounding of both figures
        assert (ns - 0.5) / (constructor + 0.5) - 0.01 <= ratio \
            <= (ns + 0.5) / max(constructor - 0.5, 0.1) + 0.01, (name, nulls, floor)
