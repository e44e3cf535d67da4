"""Adversary round 6: the Arrow load's DECIMAL/MONEY rule (arrow/put_cells.py
``_decimal_cells``) over every column precision 1..18 and scale 0..p, from
decimal128 sources of the column's scale, one more, one less, 0 and 18:
unscaled values either side of every power of 100 (where the pair count
and with it the head byte change), each sign, the column's limit and one
past it, a value whose high word is not the low word's sign (too wide for
the rule's int64 read), on a slice with an offset and NULLs: the rule's
items are the plain path's (put_images.reference_items), the first
refused row ending both alike.  And DATETIME YEAR TO SECOND from
timestamps of each unit at the first and last second of years 1 and 9999,
one second outside, and the int64 extremes (a subtraction that wraps).
"""

from __future__ import annotations

import datetime as dt

import pytest

pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
np = pytest.importorskip("numpy", reason="Arrow ingest needs the arrow extra")

from informix_stream.codec.typeinfo import ColumnType, TypeCode  # noqa: E402
from test_arrow_put import YEAR_TO_SECOND, same  # noqa: E402


def _unscaled(limit_digits: int) -> list[int]:
    out = [0, 1]
    for k in range(1, 10):
        out += [100 ** k - 1, 100 ** k, 100 ** k + 1]
    out += [10 ** limit_digits - 1, 10 ** limit_digits]
    out = sorted({u for u in out if u < 10 ** 18})
    return [v for u in out for v in (u, -u)]


def _column(values: list[int | None], scale: int):
    """decimal128(38, scale) (any unscaled int128) cast down by buffer to
    precision 18: Arrow's own constructor refuses values past 18 digits,
    and a server-side load must cope with whatever a buffer holds."""
    wide = pa.array([None if v is None else
                     __import__("decimal").Decimal(v).scaleb(-scale) for v in values],
                    pa.decimal128(38, scale))
    return pa.Array.from_buffers(pa.decimal128(18, scale), len(wide), wide.buffers(),
                                 wide.null_count)


@pytest.mark.parametrize("p", range(1, 19))
def test_decimal_rule_at_every_power_of_100_every_scale(p):
    for s in range(0, p + 1):
        for source in sorted({s, max(s - 1, 0), min(s + 1, 18), 0, 18}):
            digits = p - s + source
            values: list[int | None] = [None, *_unscaled(min(max(digits, 0), 18)), None]
            # one value whose high word is not its low word's sign
            values.insert(3, 2 ** 64 + 5)
            column = _column(values, source)[1:]          # an offset slice
            batch = pa.record_batch([column], names=["x"])
            for code, scale in ((TypeCode.DECIMAL, s), (TypeCode.MONEY, s)):
                same(batch, [ColumnType(code, (p << 8) | scale)])
            # the refused values alone, then the rest without them
            good = [v for v in values if v is None or abs(v) < 10 ** max(digits, 0)]
            column = _column(good, source)
            same(pa.record_batch([column.slice(1)], names=["x"]),
                 [ColumnType(TypeCode.DECIMAL, (p << 8) | s)])


_FIRST = int(dt.datetime(1, 1, 1).replace(tzinfo=dt.timezone.utc).timestamp())
_LAST = int(dt.datetime(9999, 12, 31, 23, 59, 59).replace(tzinfo=dt.timezone.utc).timestamp())


@pytest.mark.parametrize("unit, per", [("s", 1), ("ms", 1000), ("us", 1_000_000)])
def test_timestamps_at_the_era_ends_and_int64_extremes(unit, per):
    seconds = [_FIRST, _FIRST + 86399, _LAST - 86399, _LAST, 0, -1, 951782400]  # 2000-02-29
    ticks = [s * per for s in seconds] + [(_FIRST * per) + per - 1, _LAST * per + per - 1]
    for bad in ([(_FIRST - 1) * per], [(_LAST + 1) * per], [-2 ** 63 + 1], [2 ** 63 - 1],
                [_FIRST * per - 1]):
        for where in (0, len(ticks) // 2, len(ticks)):
            column = ticks[:where] + bad + ticks[where:]
            arr = pa.array([None, *column, None], pa.timestamp(unit))
            batch = pa.record_batch([arr.slice(1)], names=["t"])
            same(batch, [YEAR_TO_SECOND])
    arr = pa.array([None, *ticks], pa.timestamp(unit)).slice(1)
    same(pa.record_batch([arr], names=["t"]), [YEAR_TO_SECOND])


# -- through a load into a server ------------------------------------------------

from test_driver import connect, unique  # noqa: E402

import informix_stream as ifx  # noqa: E402

_YEAR_10000 = int(dt.datetime(9999, 12, 31, 23, 59, 59).replace(
    tzinfo=dt.timezone.utc).timestamp()) + 1


@pytest.mark.parametrize("bad_tick, unit", [(_YEAR_10000, "s"), (_FIRST - 1, "s"),
                                            (_YEAR_10000 * 1000, "ms"),
                                            (2 ** 63 - 1, "us"), (-2 ** 63 + 1, "s")])
@pytest.mark.parametrize("row", [0, 9, 10, 33, 59])
def test_a_timestamp_outside_the_calendar_mid_load_is_refused_at_its_row(ifx_target,
                                                                          bad_tick, unit, row):
    """A DATETIME the rule does not put is bound, and the value path refuses
    it: DataError naming the column and carrying its row, the rows before
    it in the table (chunks of 10: at a chunk's first row, its last, and
    mid-chunk), none after."""
    t = unique("put_ts_edge")
    per = {"s": 1, "ms": 1000, "us": 1_000_000}[unit]
    ticks = [(_FIRST + 86400 * 400 * i + i) * per for i in range(60)]
    ticks[row] = bad_tick
    ticks[5] = None
    table = pa.table({"id": pa.array(range(60), pa.int32()),
                      "ts": pa.array(ticks, pa.timestamp(unit))})
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER, ts DATETIME YEAR TO SECOND)")
        try:
            with pytest.raises(ifx.DataError) as info:
                cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", table, chunk_size=10)
            assert info.value.row_index == row
            assert "ts" in str(info.value) or "column 2" in str(info.value), str(info.value)
            cur.execute(f"SELECT id FROM {t} ORDER BY id")
            assert [r[0] for r in cur.fetchall()] == list(range(row))
        finally:
            cur.execute(f"DROP TABLE {t}")
