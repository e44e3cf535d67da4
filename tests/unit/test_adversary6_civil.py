"""Adversary round 6: the block decoder's DATE and DATETIME column path
(codec/civilblock.py, branch s23b) attacked where its own tests sample.

civilblock builds DATETIME values from their pickle states, which no
constructor checks, so every cell must be proven valid first.  Here, for
EVERY DATETIME qualifier that has a column path (each start and end,
FRACTION(1) to FRACTION(5)), every field takes each of its invalid values
(month 0 and 13, each month's day past its last, February 29th of 1900,
2100 and year 4's neighbours, hour 24, minute/second 60, pairs over 99,
fraction pairs over 99), one cell at a time, at the first, a middle and
the last row of blocks whose sizes straddle the decoder's run sizes (1,
31-33, 127-129 rows), and:

* the converter itself answers None or raises, never a value list;
* parse_reply through the block path gives exactly the per-row path's
  rows and error (class and message);
* every value a clean column gives re-validates through its field
  constructor and round-trips through ``fromisoformat``.

DATE: day counts at both edges of ``date``'s range and just past them,
the most negative and positive 32-bit day counts, a top byte 0x80 that is
not the NULL sentinel, and a bad lane next to a valid ordinal 1 (the lane
arithmetic borrows from its neighbour).
"""

from __future__ import annotations

import datetime as dt
import struct

import pytest
from codec_harness import datetime_fields
from test_rowblock_differential import same, tail, tuple_msg

from informix_stream.codec.civilblock import date_column, datetime_column
from informix_stream.codec.packedcells import temporal_head, temporal_layout
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.scalars import EPOCH_ORDINAL
from informix_stream.codec.typeinfo import ColumnType, TypeCode, qualifier
from informix_stream.codecs import make_row_encoder
from informix_stream.errors import DataError

_UNITS = [0, 2, 4, 6, 8, 10]


def _qualifiers() -> list[ColumnType]:
    """Every DATETIME qualifier with a column path."""
    out = []
    for start in _UNITS:
        for end in [*_UNITS, 11, 12, 13, 14, 15]:
            if end < start:
                continue
            lead = 4 if start == 0 else 2
            ctype = ColumnType(TypeCode.DATETIME, qualifier(lead + end - start, start, end))
            if temporal_layout(ctype) is not None:
                out.append(ctype)
    return out


_ALL = _qualifiers()


def _ids(ctype: ColumnType) -> str:
    return ctype.sql().lower().replace(" ", "_")


def _converter(ctype: ColumnType):
    civil = (date_column() if ctype.code == TypeCode.DATE
             else datetime_column(ctype, temporal_head(ctype), temporal_layout(ctype)[3]))

    def convert(cells: list[bytes]):
        try:
            got = civil(b"".join(cells), 0, ctype.wire_width, len(cells))
            return None if got is None else list(got)
        except (ValueError, TypeError, OverflowError):
            return None                   # the block then goes to the per-row decoder
    return convert


def _revalidates(v: object) -> bool:
    """What a field constructor would build, and what isoformat round-trips."""
    if isinstance(v, dt.datetime):
        return (v == dt.datetime(v.year, v.month, v.day, v.hour, v.minute, v.second,
                                 v.microsecond)
                and dt.datetime.fromisoformat(v.isoformat()) == v)
    if isinstance(v, dt.date):
        return v == dt.date(v.year, v.month, v.day) and dt.date.fromisoformat(v.isoformat()) == v
    if isinstance(v, dt.time):
        return (v == dt.time(v.hour, v.minute, v.second, v.microsecond)
                and dt.time.fromisoformat(v.isoformat()) == v)
    return v is None


_FIRST_BAD = {"century": 100, "year": 100, "month": 13, "day": 32, "hour": 24, "minute": 60,
              "second": 60}


def _bad_values(field: str) -> list[int]:
    low = _FIRST_BAD.get(field, 100)
    zero = [0] if field in ("month", "day") else []
    return zero + [low, 99 if low < 99 else 101, 155, 156, 255]


def _base(i: int) -> dt.datetime:
    # every month's last day and leap days, years 1..9999, each clock edge
    days = [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
            dt.datetime(2000, 2, 29, 12), dt.datetime(2024, 4, 30, 0, 0, 0, 10),
            dt.datetime(1900, 2, 28, 23, 59), dt.datetime(4, 2, 29, 1, 2, 3, 990000)]
    return days[i % len(days)]


def _rows(ctype: ColumnType, n: int) -> list[bytearray]:
    encode = make_row_encoder([ctype])
    return [bytearray(encode((_base(i),))) for i in range(n)]


def _reference(ctype: ColumnType, cell: bytes) -> tuple[str, object]:
    try:
        return "value", reference_decoder([ctype])(bytes(cell))[0][0]
    except DataError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("ctype", _ALL, ids=_ids)
def test_clean_columns_at_the_calendar_edges_revalidate(ctype):
    rows = _rows(ctype, 40)
    got = _converter(ctype)(rows)
    assert got is not None, "a clean column left the column path"
    assert [repr(v) for v in got] == [repr(_reference(ctype, r)[1]) for r in rows]
    assert all(map(_revalidates, got))


@pytest.mark.parametrize("ctype", _ALL, ids=_ids)
def test_every_invalid_field_at_every_block_position_is_refused(ctype):
    """The converter never answers a value list for a column holding one
    invalid cell, wherever it sits and whatever the block size."""
    for field, at in datetime_fields(ctype):
        for bad in _bad_values(field):
            for n in (1, 31, 32, 33, 129):
                for row in sorted({0, n // 2, n - 1}):
                    rows = _rows(ctype, n)
                    rows[row][at] = bad
                    kind, _ = _reference(ctype, rows[row])
                    got = _converter(ctype)(rows)
                    if kind == "error":
                        assert got is None, (field, bad, n, row)
                    elif got is not None:
                        # a pair the reference reads anyway (e.g. a fraction
                        # digit past the qualifier's): its value, valid
                        assert repr(got[row]) == repr(_reference(ctype, rows[row])[1])
                        assert _revalidates(got[row])


@pytest.mark.parametrize("ctype", _ALL, ids=_ids)
def test_invalid_cells_through_parse_reply_fail_as_per_row(ctype):
    """Block path and per-row path over the same reply: same rows, same
    recorded error, at the first, middle and last row of 33- and 129-row
    replies, and for a reply of a single bad row."""
    fields = datetime_fields(ctype)
    for field, at in fields:
        bad = _bad_values(field)[0]
        for n in (1, 33, 129):
            for row in sorted({0, n // 2, n - 1}):
                rows = _rows(ctype, n)
                rows[row][at] = bad
                blob = b"".join(tuple_msg(bytes(r)) for r in rows) + tail(n)
                stops, raised, _, error, got = same([ctype], blob)
                if _reference(ctype, rows[row])[0] == "error":
                    assert error is not None or raised is not None, (field, bad, n, row)
                    assert len(got) < n       # the bad row is never a row


def _february_29(ctype: ColumnType, year: int) -> bytearray:
    rows = _rows(ctype, 1)
    cell = rows[0]
    cell[1], cell[2], cell[3], cell[4] = year // 100, year % 100, 2, 29
    return cell


@pytest.mark.parametrize("year, leap", [(1900, False), (2000, True), (2100, False),
                                        (4, True), (3, False), (5, False), (400, True),
                                        (9996, True), (9999, False), (1, False)])
def test_february_29th_of_each_kind_of_year(year, leap):
    for spec in ("datetime year to day", "datetime year to second",
                 "datetime year to fraction(5)"):
        ctype = next(c for c in _ALL if c.sql().lower() == spec)
        rows = _rows(ctype, 33)
        rows[16] = _february_29(ctype, year)
        got = _converter(ctype)(rows)
        if leap:
            assert got is not None and (got[16].month, got[16].day) == (2, 29)
            assert got[16].year == year and _revalidates(got[16])
        else:
            assert got is None
            assert _reference(ctype, rows[16])[0] == "error"


def test_a_null_with_stray_pairs_among_values():
    """A NULL cell (head and first pair zero) whose other pairs are anything:
    None, like the reference, and its neighbours' values untouched."""
    for ctype in _ALL:
        rows = _rows(ctype, 33)
        for k, stray in ((0, 0), (16, 99), (32, 255)):
            rows[k] = bytearray(2) + bytearray([stray] * (ctype.wire_width - 2))
        got = _converter(ctype)(rows)
        want = [_reference(ctype, r) for r in rows]
        if got is not None:
            assert all(kind == "value" for kind, _ in want), ctype.sql()
            assert [repr(v) for v in got] == [repr(v) for _, v in want], ctype.sql()


def test_a_zero_head_before_a_value_is_no_null():
    """Head zero but a non-zero first pair: not a NULL (the reference's
    error or value), never None or a value from the column path."""
    for ctype in _ALL:
        rows = _rows(ctype, 33)
        cell = bytearray(rows[5])
        cell[0] = 0
        cell[1] = cell[1] or 1
        rows[5] = cell
        got = _converter(ctype)(rows)
        kind, value = _reference(ctype, rows[5])
        if got is not None:
            assert kind == "value" and repr(got[5]) == repr(value), ctype.sql()


@pytest.mark.parametrize("delta", [-1, 1, 2, 0x40, 0x80])
def test_a_head_the_qualifier_does_not_have(delta):
    for ctype in _ALL:
        rows = _rows(ctype, 33)
        rows[32][0] = (rows[32][0] + delta) & 0xFF
        got = _converter(ctype)(rows)
        kind, value = _reference(ctype, rows[32])
        if got is not None:
            assert kind == "value" and repr(got[32]) == repr(value), ctype.sql()
            assert _revalidates(got[32])


# ---------------------------------------------------------------- DATE

_DATE = ColumnType(TypeCode.DATE, 4)
_FIRST_DAY = 1 - EPOCH_ORDINAL                     # 0001-01-01
_LAST_DAY = dt.date.max.toordinal() - EPOCH_ORDINAL   # 9999-12-31


def _days(*counts: int) -> list[bytes]:
    return [struct.pack("!i", c) for c in counts]


@pytest.mark.parametrize("bad", [_FIRST_DAY - 1, _LAST_DAY + 1, -2**31 + 1, 2**31 - 1,
                                 -2**31 + 2, 2**24 - EPOCH_ORDINAL, -EPOCH_ORDINAL - 2**24])
@pytest.mark.parametrize("where", [0, 1, 16, 32])
def test_date_counts_past_the_range_are_refused(bad, where):
    counts = [_FIRST_DAY if k % 2 else _LAST_DAY for k in range(33)]
    counts[where] = bad
    # the row before a borrowing lane holds ordinal 1: a borrow would make it 0
    if where:
        counts[where - 1] = _FIRST_DAY
    cells = _days(*counts)
    assert _converter(_DATE)(cells) is None
    blob = b"".join(tuple_msg(c) for c in cells) + tail(33)
    _, raised, _, error, got = same([_DATE], blob)
    assert (error or raised) is not None and len(got) < 33


def test_date_edges_and_nulls_mixed():
    counts = [_FIRST_DAY, _LAST_DAY, -2**31, 0, -1, 1, -2**31, _FIRST_DAY, _LAST_DAY, -2**31]
    got = _converter(_DATE)(_days(*counts))
    assert got == [dt.date(1, 1, 1), dt.date(9999, 12, 31), None, dt.date(1899, 12, 31),
                   dt.date(1899, 12, 30), dt.date(1900, 1, 1), None, dt.date(1, 1, 1),
                   dt.date(9999, 12, 31), None]


@pytest.mark.parametrize("image", [b"\x80\x00\x00\x01", b"\x80\x00\x01\x00", b"\x80\xff\xff\xff",
                                   b"\x00\x80\x00\x00"])
def test_a_top_byte_0x80_that_is_no_null(image):
    cells = _days(_FIRST_DAY, 5) + [image] + _days(7, _LAST_DAY)
    got = _converter(_DATE)(cells)
    want = [_reference(_DATE, c) for c in cells]
    if got is None:
        assert any(kind == "error" for kind, _ in want)
    else:
        assert [repr(v) for v in got] == [repr(v) for _, v in want]
    blob = b"".join(tuple_msg(c) for c in cells) + tail(len(cells))
    same([_DATE], blob)
