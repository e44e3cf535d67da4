"""The encode benchmark (bench/throughput/encode_per_type.py) compares like
with like: each way it times for finding a column's Nones finds exactly
the Nones (a faster wrong way would make colencode's look slow), and its
table's floor column is (INTEGER's column-wise figure + the type's
fields) / the fields of the same run."""

from __future__ import annotations

import re
import sys
from decimal import Decimal
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the encode benchmark measures Arrow columns too")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "throughput"))
import encode_per_type as bench  # noqa: E402


@pytest.mark.parametrize("column", [
    [None, 1, 2, None, None, 5, None], [1, 2, 3], [None] * 4, [],
    [Decimal(0), None, Decimal("1.5"), None], ["", None, "a", None, None],
], ids=["ints", "no-nulls", "all-nulls", "empty", "decimals", "texts"])
def test_every_timed_way_finds_exactly_the_nones(column: list) -> None:
    want = [i for i, v in enumerate(column) if v is None]
    for way, find in bench.NULL_FINDERS.items():
        if way == "types: set(map(type))":
            assert find(column) == set(map(type, column))
        else:
            assert list(find(column) or []) == want, way


def test_floor_column_is_integers_share_plus_the_fields_over_the_fields() -> None:
    text = bench.table(800, 1, ["DATE"])
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 11 and cells[0] in ("INTEGER", "DATE"):
            rows[cells[0], cells[1]] = cells
    assert set(rows) == {(t, n) for t in ("INTEGER", "DATE") for n in ("-", "10%")}
    for nulls in ("-", "10%"):
        integer, date = float(rows["INTEGER", nulls][5]), rows["DATE", nulls]
        fields = float(date[6])
        floor = float(re.sub(r"[^\d.]", "", date[8]))
        # the table rounds its figures to whole ns: allow for that
        low, high = (integer - 0.5 + fields - 0.5) / (fields + 0.5), \
            (integer + 0.5 + fields + 0.5) / max(fields - 0.5, 0.1)
        assert low - 0.01 <= floor <= high + 0.01, (nulls, integer, fields, floor)
