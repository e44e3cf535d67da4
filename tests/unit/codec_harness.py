"""Reusable hypothesis harness for the value codecs: column shapes, values
with the values a decoder must give back, and the differential checks.

Written once for the row codecs (test_codec_differential.py) so that every
later decoder -- per-type fast paths, the columnar (Arrow) batch decoder,
the loading path -- is held to the same reference on the same generated
shapes and bytes: add the new decoder to the list given to
``decode_outcomes`` and the existing strategies exercise it.

``column_types()`` draws every type, every DECIMAL precision/scale
(floating DECIMAL too), every DATETIME/INTERVAL qualifier, nullable or not.
``packed_images(ctype)`` draws near-valid and invalid bytes of one
DECIMAL/MONEY/DATETIME/INTERVAL cell for the fast base-100 decoders.
``cells(ctype)`` draws ``(value to store, value a decoder must return)``
pairs: DECIMAL with 32 digits, negatives, DATETIME years 1 and 9999,
fractions beyond the qualifier's digits (which must come back truncated to
them), NULLs, CHAR with trailing blanks, empty strings.
"""

from __future__ import annotations

import datetime as dt
import math
import struct
from collections.abc import Callable, Sequence
from decimal import Decimal

from hypothesis import strategies as st

from informix_stream.codecs import (TU_DAY, TU_HOUR, TU_MINUTE, TU_MONTH, TU_SECOND, TU_YEAR,
                                    ColumnType, IntervalYM, TypeCode, qualifier)
from informix_stream.codec.packedcells import temporal_layout
from informix_stream.errors import DataError, ProtocolError

# Every exception a decoder may raise on any bytes: PEP 249 ones only.
DECODE_ERRORS = (DataError, ProtocolError)

_FIXED = {TypeCode.SMALLINT: 2, TypeCode.INTEGER: 4, TypeCode.SERIAL: 4, TypeCode.BIGINT: 8,
          TypeCode.BIGSERIAL: 8, TypeCode.INT8: 10, TypeCode.SERIAL8: 10, TypeCode.DATE: 4,
          TypeCode.FLOAT: 8, TypeCode.SMALLFLOAT: 4, TypeCode.BOOLEAN: 1}
_INT_RANGE = {TypeCode.SMALLINT: 2**15 - 1, TypeCode.INTEGER: 2**31 - 1,
              TypeCode.SERIAL: 2**31 - 1, TypeCode.BIGINT: 2**63 - 1,
              TypeCode.BIGSERIAL: 2**63 - 1, TypeCode.INT8: 2**63 - 1,
              TypeCode.SERIAL8: 2**63 - 1}
# The DATETIME units in qualifier order, with their datetime attribute.
_UNITS = [TU_YEAR, TU_MONTH, TU_DAY, TU_HOUR, TU_MINUTE, TU_SECOND]
_ATTR = dict(zip(_UNITS, ["year", "month", "day", "hour", "minute", "second"]))
_UNIT_SECONDS = {TU_DAY: 86400, TU_HOUR: 3600, TU_MINUTE: 60, TU_SECOND: 1}
_LATIN1 = st.characters(min_codepoint=1, max_codepoint=255)


# ---------------------------------------------------------------- column shapes

def _fixed(code: TypeCode) -> st.SearchStrategy[ColumnType]:
    return st.just(ColumnType(code, _FIXED[code]))


def _decimal_type(code: TypeCode) -> st.SearchStrategy[ColumnType]:
    def build(p: int, s: int | None) -> ColumnType:
        return ColumnType(code, (p << 8) | (0xFF if s is None else min(s, p)))
    scale = st.integers(0, 32) if code == TypeCode.MONEY else st.none() | st.integers(0, 32)
    return st.builds(build, st.integers(1, 32), scale)


@st.composite
def _datetime_type(draw) -> ColumnType:
    start = draw(st.sampled_from(_UNITS))
    end = draw(st.sampled_from([u for u in _UNITS if u >= start] + [TU_SECOND + n for n in
                                                                      range(1, 6)]))
    lead = 4 if start == TU_YEAR else 2
    return ColumnType(TypeCode.DATETIME, qualifier(lead + end - start, start, end))


@st.composite
def _interval_type(draw) -> ColumnType:
    start = draw(st.sampled_from(_UNITS))
    if start <= TU_MONTH:
        end = draw(st.sampled_from([u for u in (TU_YEAR, TU_MONTH) if u >= start]))
    else:
        end = draw(st.sampled_from([u for u in _UNITS if u >= start]
                                   + [TU_SECOND + n for n in range(1, 6)]))
    lead = draw(st.integers(1, 9))
    return ColumnType(TypeCode.INTERVAL, qualifier(lead + end - start, start, end))


def _sized(code: TypeCode, most: int) -> st.SearchStrategy[ColumnType]:
    return st.integers(1, most).map(lambda n: ColumnType(code, n))


def _varchar(code: TypeCode) -> st.SearchStrategy[ColumnType]:
    return st.builds(lambda n, m: ColumnType(code, (min(m, n) << 8) | n),
                     st.integers(1, 255), st.integers(0, 255))


def _nullable(types: st.SearchStrategy[ColumnType]) -> st.SearchStrategy[ColumnType]:
    return st.builds(lambda t, nullable: ColumnType(t.code, t.length, nullable),
                     types, st.booleans())


def column_types() -> st.SearchStrategy[ColumnType]:
    """Any column type the row codecs handle."""
    return _nullable(st.one_of(
        *[_fixed(c) for c in _FIXED],
        _sized(TypeCode.CHAR, 40), _sized(TypeCode.NCHAR, 40), _sized(TypeCode.LVARCHAR, 300),
        _varchar(TypeCode.VARCHAR), _varchar(TypeCode.NVARCHAR),
        _decimal_type(TypeCode.DECIMAL), _decimal_type(TypeCode.MONEY),
        _datetime_type(), _interval_type()))


def packed_types() -> st.SearchStrategy[ColumnType]:
    """DECIMAL/MONEY (every precision and scale, floating too), DATETIME and
    INTERVAL (every qualifier): the base-100 columns with fast decoders."""
    return _nullable(st.one_of(_decimal_type(TypeCode.DECIMAL), _decimal_type(TypeCode.MONEY),
                               _datetime_type(), _interval_type()))


def datetime_types() -> st.SearchStrategy[ColumnType]:
    """Every DATETIME qualifier."""
    return _datetime_type()


_FIELD_NAMES = {0: "year", 2: "month", 4: "day", 6: "hour", 8: "minute", 10: "second"}


def datetime_fields(ctype: ColumnType) -> list[tuple[str, int]]:
    """(field name, offset of its pair in the cell) of a DATETIME, for tests
    that bend one field at a time."""
    out, at = [], 1
    for unit in range(ctype.start, min(ctype.end, 10) + 1, 2):
        if unit == 0:
            out += [("century", 1), ("year", 2)]
            at = 3
        else:
            out.append((_FIELD_NAMES[unit], at))
            at += 1
    return out + [(f"fraction{j}", at + j) for j in range(temporal_layout(ctype)[3])]


@st.composite
def packed_images(draw, ctype: ColumnType) -> bytes:
    """One base-100 cell's bytes, mostly near valid: any head byte (the
    NULL head 0, heads around the qualifier's, any other), then pairs that
    are valid digits, the edges 0/99/100 (a complemented 0), or any byte."""
    pairs = ctype.wire_width - 1
    usual = 0x80 | (((ctype.length >> 8) + 10 - (ctype.length & 0xF) + 1) // 2 + 64)
    head = draw(st.one_of(st.sampled_from([0, usual, usual - 1, usual - 2, usual ^ 0x7F,
                                           0x80 | 64, 0x7F ^ 64, 0xFF, 0x7F, 0x80, 1]),
                          st.integers(0, 255)))
    digit = st.one_of(st.integers(0, 99), st.sampled_from([0, 99, 100, 101, 255]),
                      st.integers(0, 255))
    body = draw(st.lists(digit, min_size=pairs, max_size=pairs))
    if draw(st.booleans()):  # trailing zero pairs, as values at a coarser scale have
        cut = draw(st.integers(0, pairs))
        body[pairs - cut:] = [0] * cut
    return bytes([head, *body])


def shapes(max_columns: int = 8) -> st.SearchStrategy[list[ColumnType]]:
    return st.lists(column_types(), min_size=1, max_size=max_columns)


# ---------------------------------------------------------------- values

Cell = tuple[object, object]  # (value to store, value a decoder must return)


def _ints(code: TypeCode) -> st.SearchStrategy[Cell]:
    top = _INT_RANGE[code]
    edges = st.sampled_from([0, 1, -1, top, -top])
    return st.one_of(edges, st.integers(-top, top)).map(lambda v: (v, v))


def _pairs_spanned(coeff: int, exp: int) -> int:
    """Base-100 pairs from the lowest non-zero digit of ``coeff * 10**exp``
    to its highest."""
    while coeff % 10 == 0:
        coeff, exp = coeff // 10, exp + 1
    top = exp + len(str(coeff)) - 1
    return top // 2 - exp // 2 + 1


def _decimals(ctype: ColumnType) -> st.SearchStrategy[Cell]:
    p, s = ctype.precision, ctype.scale
    if s is None:
        # floating DECIMAL(p): up to p significant digits at any exponent in range
        @st.composite
        def floating(draw) -> Cell:
            digits = draw(st.integers(1, p))
            coeff = draw(st.integers(0, 10**digits - 1) | st.just(10**digits - 1))
            exp = draw(st.integers(-100, 90))
            sign = draw(st.sampled_from([0, 1]))
            # A dec_t holds (p + 1) // 2 base-100 pairs aligned on even powers
            # of ten, so p digits fit only when they start on a pair boundary
            # (32 nines at 10**1..10**32 need 17 pairs): drop low digits
            # until the value fits, as the value a DECIMAL(p) can hold.
            while coeff and _pairs_spanned(coeff, exp) > (p + 1) // 2:
                coeff, exp = coeff // 10, exp + 1
            value = Decimal((sign, tuple(int(d) for d in str(coeff)), exp))
            return value, value
        return floating()
    top = 10**p - 1

    def build(n: int) -> Cell:
        # exact: Decimal arithmetic would round to the context's 28 digits
        value = Decimal((int(n < 0), tuple(int(d) for d in str(abs(n))), -s))
        return value, value
    return st.one_of(st.sampled_from([0, top, -top, 1, -1]), st.integers(-top, top)).map(build)


def _dates() -> st.SearchStrategy[Cell]:
    values = st.one_of(st.sampled_from([dt.date(1, 1, 1), dt.date(9999, 12, 31),
                                        dt.date(1899, 12, 31), dt.date(2000, 2, 29)]),
                       st.dates())
    return values.map(lambda d: (d, d))


_DT_EDGES = [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
             dt.datetime(2000, 2, 29, 12, 0, 0, 1), dt.datetime(1, 1, 1, 0, 0, 0, 10)]


def _truncate_micro(micro: int, digits: int) -> int:
    unit = 10 ** (6 - digits)
    return micro // unit * unit


def _datetime_expected(value: dt.datetime, ctype: ColumnType) -> object:
    """What a DATETIME column of this qualifier gives back for ``value``:
    its fields, 2000-01-01 / midnight for the rest, the fraction cut to the
    qualifier's digits."""
    start, end = ctype.start, ctype.end
    parts = {"year": 2000, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0}
    for unit in _UNITS:
        if start <= unit <= min(end, TU_SECOND):
            parts[_ATTR[unit]] = getattr(value, _ATTR[unit])
    micro = _truncate_micro(value.microsecond, end - TU_SECOND) if end > TU_SECOND else 0
    if start >= TU_HOUR:
        return dt.time(parts["hour"], parts["minute"], parts["second"], micro)
    if end <= TU_DAY:
        return dt.date(parts["year"], parts["month"], parts["day"])
    return dt.datetime(*parts.values(), micro)


def _datetimes(ctype: ColumnType) -> st.SearchStrategy[Cell]:
    values = st.one_of(st.sampled_from(_DT_EDGES), st.datetimes())
    return values.map(lambda v: (v, _datetime_expected(v, ctype)))


@st.composite
def _intervals(draw, ctype: ColumnType) -> Cell:
    start, end, lead = ctype.start, ctype.end, ctype.leading_digits
    top = 10**lead - 1
    first = draw(st.one_of(st.sampled_from([0, top]), st.integers(0, top)))
    sign = draw(st.sampled_from([1, -1]))
    if ctype.is_year_month:
        months = first if start == TU_MONTH else first * 12
        if start == TU_YEAR and end == TU_MONTH:
            months += draw(st.integers(0, 11))
        return IntervalYM(sign * months), IntervalYM(sign * months)
    secs = first * _UNIT_SECONDS[start]
    limits = {TU_HOUR: 23, TU_MINUTE: 59, TU_SECOND: 59}
    for unit in range(start + 2, min(end, TU_SECOND) + 1, 2):
        secs += draw(st.integers(0, limits[unit])) * _UNIT_SECONDS[unit]
    micro = draw(st.integers(0, 999999)) if end > TU_SECOND else 0
    value = dt.timedelta(seconds=secs, microseconds=micro)
    kept = dt.timedelta(seconds=secs, microseconds=_truncate_micro(micro, end - TU_SECOND)
                        if end > TU_SECOND else 0)
    if sign < 0 and kept.days >= 999999999:
        sign = 1  # -999999999 days and some hours is beyond timedelta's range
    return sign * value, sign * kept


def _texts(ctype: ColumnType) -> st.SearchStrategy[Cell]:
    code = ctype.code
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        n = ctype.length
        # a CHAR cannot begin with NUL (that is its NULL); blanks pad it
        text = st.one_of(st.just(""), st.just(" " * n), st.text(_LATIN1, max_size=n + 3)
                         .map(lambda t: t.lstrip("\x00")), st.text(_LATIN1, max_size=n)
                         .map(lambda t: (t + "  ").lstrip("\x00")))
        return text.map(lambda t: (t, t[:n].ljust(n)))
    n = ctype.length & 0xFF if code != TypeCode.LVARCHAR else ctype.length
    text = st.one_of(st.just(""), st.text(_LATIN1, max_size=n + 3), st.just(" " * n))
    if code != TypeCode.LVARCHAR:
        text = text.filter(lambda t: t[:n] != "\x00")  # a lone NUL is VARCHAR's NULL
    return text.map(lambda t: (t, t[:n]))


def _floats(ctype: ColumnType) -> st.SearchStrategy[Cell]:
    width = 64 if ctype.code == TypeCode.FLOAT else 32
    packer = struct.Struct("!d" if width == 64 else "!f")
    null = b"\xff" * packer.size

    def expect(v: float) -> Cell:
        # the one NaN whose bits are all ones is FLOAT's NULL
        return v, None if packer.pack(v) == null else v
    edges = st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan,
                             packer.unpack(null)[0]])
    return st.one_of(edges, st.floats(width=width, allow_nan=True)).map(expect)


def non_null_cells(ctype: ColumnType) -> st.SearchStrategy[Cell]:
    code = ctype.code
    if code in _INT_RANGE:
        return _ints(code)
    if code == TypeCode.DATE:
        return _dates()
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return _floats(ctype)
    if code == TypeCode.BOOLEAN:
        return st.booleans().map(lambda b: (b, b))
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimals(ctype)
    if code == TypeCode.DATETIME:
        return _datetimes(ctype)
    if code == TypeCode.INTERVAL:
        return _intervals(ctype)
    return _texts(ctype)


def cells(ctype: ColumnType) -> st.SearchStrategy[Cell]:
    """(value to store, value to get back), NULL now and then."""
    return st.one_of(st.just((None, None)), non_null_cells(ctype))


@st.composite
def shape_and_rows(draw, max_columns: int = 8, max_rows: int = 4):
    """(columns, [(stored values, expected values), ...])."""
    columns = draw(shapes(max_columns))
    rows = []
    for _ in range(draw(st.integers(1, max_rows))):
        pairs = [draw(cells(c)) for c in columns]
        rows.append((tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)))
    return columns, rows


# ---------------------------------------------------------------- checks

def comparable(row: Sequence[object]) -> tuple:
    """A row with its exact types and Decimal exponents, NaN equal to NaN."""
    return tuple("NaN" if isinstance(v, float) and math.isnan(v) else (type(v).__name__, repr(v))
                 for v in row)


def same_values(got: Sequence[object], expected: Sequence[object],
                columns: Sequence[ColumnType]) -> bool:
    """Decoded values equal the stored ones: by value, by type, NaN equal to
    NaN, and DECIMAL(p,s)/MONEY at exactly the column's scale."""
    if len(got) != len(expected):
        return False
    for value, want, ctype in zip(got, expected, columns):
        if isinstance(want, float) and math.isnan(want):
            if not (isinstance(value, float) and math.isnan(value)):
                return False
            continue
        if type(value) is not type(want) or value != want:
            return False
        if isinstance(want, Decimal) and ctype.scale is not None:
            if value.as_tuple().exponent != -ctype.scale:
                return False
    return True


Decoder = Callable[..., tuple[tuple, int]]


def decode_outcome(decode: Decoder, buf: bytes | bytearray | memoryview, start: int,
                   stop: int | None = None) -> tuple:
    """("ok", row, end) or ("error", class, message of a DataError); anything
    but a PEP 249 decode error propagates and fails the test."""
    try:
        row, end = decode(buf, start) if stop is None else decode(buf, start, stop)
    except DECODE_ERRORS as exc:
        # a DataError's wording names the column, and must be the same
        return ("error", type(exc), str(exc) if isinstance(exc, DataError) else "")
    assert start <= end <= len(buf), f"decoder says it ended at {end} of {len(buf)}"
    return ("ok", comparable(row), end)
