"""The block decoder's DATE and DATETIME columns (codec/civilblock.py)
against the per-row decoder and its reference converter.

DATETIME values there are built from their pickle states, which the
constructors do not check, so the column path must prove every cell valid
itself: here every invalid field value (a pair over 99, month 0 and 13, day
0, 32 and each month's day past its last, February 29th of years that are
not leap years, year 0, hour 24, minute and second 60, heads other than the
qualifier's and NULL's) placed among valid rows gives the reference's
error, class and message, through the block path as through the per-row
one, and never a value; clean columns (years 1 and 9999, leap days, every
FRACTION(n), NULLs) take the column path and give the reference's values.
The streaming-cursor case at the end feeds such a reply from a server.
"""

from __future__ import annotations

import datetime as dt
import struct

import pytest
from codec_harness import cells, datetime_fields, datetime_types, packed_images
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rowblock_differential import same, tail, tuple_msg

from informix_stream.codec.civilblock import date_column, datetime_column
from informix_stream.codec.packedcells import temporal_head, temporal_layout
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.scalars import EPOCH_ORDINAL
from informix_stream.codec.typeinfo import ColumnType
from informix_stream.codecs import make_row_encoder, parse_type
from informix_stream.errors import DataError

_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def converter(ctype: ColumnType):
    """The column converter of ``ctype`` (a DATE, or a DATETIME with a
    column path), called on one column of end-to-end cells."""
    if ctype.sql() == "DATE":
        civil = date_column()
    else:
        layout = temporal_layout(ctype)
        assert layout is not None
        civil = datetime_column(ctype, temporal_head(ctype), layout[3])
    return lambda cells: civil(b"".join(cells), 0, ctype.wire_width, len(cells))


def reference(ctype: ColumnType, cell: bytes) -> tuple[str, object]:
    """The reference decoder's answer for one cell: a value or its error."""
    try:
        return "value", reference_decoder([ctype])(cell)[0][0]
    except DataError as exc:
        return "error", str(exc)


def exact(values) -> list:
    """Values with their types: a date is not a datetime, None is None."""
    return [(type(v).__name__, v) for v in values]


def valid_object(v: object) -> bool:
    """Whether v is an object its field constructor would build (the pickle
    state path checks nothing but the month)."""
    if isinstance(v, dt.datetime):
        return v == dt.datetime(v.year, v.month, v.day, v.hour, v.minute, v.second,
                                v.microsecond)
    if isinstance(v, dt.date):
        return v == dt.date(v.year, v.month, v.day)
    if isinstance(v, dt.time):
        return v == dt.time(v.hour, v.minute, v.second, v.microsecond)
    return v is None


@st.composite
def clean_columns(draw):
    """(column type, cells, the values the reference gives): a DATETIME of
    any qualifier or a DATE, NULLs now and then."""
    ctype = draw(st.one_of(datetime_types(), st.just(parse_type("date"))))
    encode = make_row_encoder([ctype])
    n = draw(st.integers(1, 300))
    stored = [draw(cells(ctype))[0] for _ in range(n)]
    images = [encode((v,)) for v in stored]
    return ctype, images, [reference(ctype, c)[1] for c in images]


@_SETTINGS
@given(clean_columns())
def test_clean_columns_take_the_column_path_with_the_reference_values(case):
    ctype, images, expected = case
    if ctype.sql() != "DATE" and temporal_layout(ctype) is None:
        return                               # no column path for this qualifier
    got = converter(ctype)(images)
    assert got is not None, "a clean column left the column path"
    got = list(got)
    assert exact(got) == exact(expected)
    assert all(map(valid_object, got))


@st.composite
def hostile_columns(draw):
    """(DATETIME type with a column path, cells): valid cells with some
    replaced by near-valid or invalid bytes."""
    ctype = draw(datetime_types().filter(lambda c: temporal_layout(c) is not None))
    encode = make_row_encoder([ctype])
    n = draw(st.integers(1, 120))
    images = [encode((draw(cells(ctype))[0],)) for _ in range(n)]
    for _ in range(draw(st.integers(1, 4))):
        images[draw(st.integers(0, n - 1))] = draw(packed_images(ctype))
    return ctype, images


@_SETTINGS
@given(hostile_columns())
def test_any_cell_bytes_give_the_reference_answer_or_leave_the_path(case):
    """The column path gives the reference's values for every cell, or
    None (the cell code then answers), or raises (the block then goes to
    the per-row decoder): never a value the reference does not give."""
    ctype, images = case
    answers = [reference(ctype, c) for c in images]
    try:
        got = converter(ctype)(images)
        got = None if got is None else list(got)
    except (ValueError, TypeError, OverflowError):
        got = None
    if got is not None:
        assert all(kind == "value" for kind, _ in answers)
        assert exact(got) == exact([v for _, v in answers])
        assert all(map(valid_object, got))


@_SETTINGS
@given(hostile_columns(), st.data())
def test_hostile_cells_through_parse_reply_fail_as_per_row(case, data):
    """The block and the per-row path over the same reply: the same rows,
    recorded error (class and message), stops."""
    ctype, images = case
    blob = b"".join(tuple_msg(i) for i in images) + tail(len(images))
    same([ctype], blob, data.draw(st.lists(st.integers(0, len(blob)), max_size=2)))


# ---------------------------------------------------------------- every invalid field

# a field's smallest invalid values and the rest up to 255, sampled
_LIMITS = {"century": 100, "year": 100, "month": 13, "day": 32, "hour": 24, "minute": 60,
           "second": 60, "fraction0": 100, "fraction1": 100, "fraction2": 100}


def _invalid(field: str) -> list[int]:
    low = _LIMITS[field]
    zero = [0] if field in ("month", "day") else []
    return zero + sorted({low, low + 1, 99, 100, 101, 154, 255} - set(range(low)))


_QUALIFIERS = ["datetime year to second", "datetime year to fraction(5)",
               "datetime year to fraction(2)", "datetime hour to minute",
               "datetime year to day", "datetime month to day", "datetime day to second",
               "datetime hour to fraction(3)", "datetime year to month"]


def _valid_rows(ctype: ColumnType, n: int) -> list[bytearray]:
    encode = make_row_encoder([ctype])
    base = dt.datetime(1996, 2, 28, 23, 59, 58, 999999)
    return [bytearray(encode((base + dt.timedelta(hours=7 * i, microseconds=i),)))
            for i in range(n)]


def _as_block_and_per_row(ctype: ColumnType, images: list[bytes]) -> tuple:
    blob = b"".join(tuple_msg(bytes(i)) for i in images) + tail(len(images))
    return same([ctype], blob)


@pytest.mark.parametrize("spec", _QUALIFIERS)
def test_every_invalid_field_value_gives_the_reference_error(spec):
    ctype = parse_type(spec)
    for field, at in datetime_fields(ctype):
        if field.startswith("fraction") and ctype.end - 10 <= 0:
            continue
        for bad in _invalid(field):
            images = _valid_rows(ctype, 80)
            images[37][at] = bad
            if field == "year" and bad == 0:
                continue
            assert converter(ctype)(images) is None
            stops, raised, _, error, rows = _as_block_and_per_row(ctype, images)
            assert raised is None and error is not None and error[0] == "DataError", \
                (field, bad)
            assert len(rows) == 79
            assert error[1] == reference(ctype, bytes(images[37]))[1]


_DAYS_PAST = [(2, 30), (2, 31), (4, 31), (6, 31), (9, 31), (11, 31)]
_NOT_LEAP = [1, 1900, 2100, 2023, 9999, 1800, 100]


@pytest.mark.parametrize("spec", ["datetime year to second", "datetime year to fraction(5)",
                                  "datetime year to day", "datetime month to day"])
def test_days_past_the_month_and_year_zero_give_the_reference_error(spec):
    """Each month's day past its last, February 29th of years that are not
    leap years, year 0000 -- beside valid February 29ths of leap years."""
    ctype = parse_type(spec)
    offsets = dict(datetime_fields(ctype))
    cases = [{"month": m, "day": d} for m, d in _DAYS_PAST]
    if "year" in offsets:
        cases += [{"century": y // 100, "year": y % 100, "month": 2, "day": 29} for y in
                  _NOT_LEAP]
        cases.append({"century": 0, "year": 0})
    for change in cases:
        images = _valid_rows(ctype, 60)
        for row, leap in ((5, 2000), (50, 1600)):     # valid leap days around it
            if "year" in offsets:
                images[row][offsets["century"]], images[row][offsets["year"]] = divmod(leap, 100)
            images[row][offsets["month"]], images[row][offsets["day"]] = 2, 29
        for field, value in change.items():
            images[21][offsets[field]] = value
        assert converter(ctype)(images) is None, change
        stops, raised, _, error, rows = _as_block_and_per_row(ctype, images)
        assert error is not None and error[1] == reference(ctype, bytes(images[21]))[1], change
        assert len(rows) == 59 and ", 2, 29" in rows[5][0][1]


def test_leap_days_and_year_edges_stay_on_the_column_path():
    ctype = parse_type("datetime year to fraction(5)")
    values = [dt.datetime(y, 2, 29, 23, 59, 59, 999990) for y in (4, 400, 1600, 2000, 2400, 9996)]
    values += [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999990), None]
    encode = make_row_encoder([ctype])
    got = converter(ctype)([encode((v,)) for v in values])
    assert got is not None and list(got) == values


def test_a_null_with_date_pairs_left_in_it_reads_as_null_through_the_cell_code():
    """The reference calls a cell NULL by its head and first pair alone; a
    NULL with other pairs set leaves the column path (whose NULL rows must
    hold zero date pairs) and still reads as None."""
    ctype = parse_type("datetime year to second")
    images = _valid_rows(ctype, 40)
    images[3][:] = bytes((0, 0, 19, 2, 31, 99, 99, 99))     # NULL whatever follows
    assert converter(ctype)(images) is None
    *_, error, rows = _as_block_and_per_row(ctype, images)
    assert error is None and rows[3] == (("NoneType", "None"),)


# ---------------------------------------------------------------- DATE

_DAY_COUNTS = [1 - EPOCH_ORDINAL, 3652059 - EPOCH_ORDINAL, 0, -1, 1]
_BAD_DAY_COUNTS = [-EPOCH_ORDINAL, -EPOCH_ORDINAL - 1, 3652060 - EPOCH_ORDINAL, 2**31 - 1,
                   -2**31 + 1, -2**24, 2**24, -2**31 + 2**24]


def test_date_edges_and_nulls_take_the_column_path():
    ctype = parse_type("date")
    days = _DAY_COUNTS * 20 + [-2**31] * 7
    images = [struct.pack("!i", d) for d in days]
    got = converter(ctype)(images)
    assert got is not None
    assert exact(got) == exact([reference(ctype, c)[1] for c in images])


@pytest.mark.parametrize("bad", _BAD_DAY_COUNTS)
@pytest.mark.parametrize("nulls", [False, True])
def test_day_counts_no_date_has_give_the_reference_error(bad, nulls):
    ctype = parse_type("date")
    days = [d if not nulls or i % 9 else -2**31 for i, d in enumerate(range(-500, 9500, 97))]
    days[40] = bad
    images = [struct.pack("!i", d) for d in days]
    try:
        got = converter(ctype)(images)
        got = None if got is None else list(got)
    except ValueError:
        got = None
    assert got is None
    *_, error, rows = _as_block_and_per_row(ctype, images)
    assert error is not None and error[1] == reference(ctype, images[40])[1]
    assert len(rows) == len(days) - 1


@pytest.mark.parametrize("near", [b"\x80\x00\x00\x01", b"\x80\x00\x01\x00", b"\x80\x01\x00\x00",
                                  b"\x80\xff\xff\xff"], ids=["low", "mid", "high", "all"])
def test_date_nulls_at_every_position_and_near_nulls(near):
    """A NULL (80 00 00 00) at each row of a column, a column of NULLs
    alone, and each row made a day count one bit from NULL (top byte 0x80,
    some other bit set: no date) beside NULLs: the values with None on the
    NULL rows exactly, or the column refused (the cell code then raises)."""
    ctype = parse_type("date")
    days = [struct.pack("!i", d) for d in range(-300, 300, 13)]
    null = b"\x80\x00\x00\x00"
    convert = converter(ctype)
    for at in range(len(days)):
        images = [null if i in (at, len(days) - 1 - at) else c for i, c in enumerate(days)]
        assert exact(convert(images)) == exact([reference(ctype, c)[1] for c in images])
        images[(at + 5) % len(days)] = near
        assert convert(images) is None
    assert exact(convert([null] * 33)) == exact([None] * 33)
