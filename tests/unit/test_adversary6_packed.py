"""Adversary round 6: the block decoder's column-at-a-time DECIMAL/MONEY
and INTERVAL forms (codec/packedcolumns.py, branch s23c) attacked where
their arithmetic could leak between rows.

Both forms compute a whole column in one big integer: negative DECIMALs
are un-complemented by a carry that must stop at its own cell (a negative
zero carries into its guard byte), INTERVAL fields are summed in 8-byte
lanes that must not carry into the neighbour row.  Here, every cell a
column form answers is the reference converter's value (type and repr),
for columns of identical maximal cells (every pair 99, past each field's
range but not base-100's) of 1, 2, 3 and 33 rows, maximal cells next to
zeros and NULLs, and for every DECIMAL precision and even scale the
largest, smallest, +-one-unit, zero, NULL and bent cells (negative zero,
a zero head with pairs, all-99 pairs at the highest exponent) in every
ordered pair of neighbours.
"""

from __future__ import annotations

import itertools
import struct
from decimal import Decimal

import pytest

from informix_stream.codec.packedcells import temporal_head
from informix_stream.codec.packedcolumns import packed_column
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.typeinfo import ColumnType, TypeCode
from informix_stream.codecs import make_row_encoder, parse_type
from informix_stream.errors import DataError


def _reference(ctype: ColumnType, cell: bytes) -> tuple[str, object]:
    try:
        return "value", reference_decoder([ctype])(cell)[0][0]
    except DataError as exc:
        return "error", str(exc)


def _column(ctype: ColumnType, cells: list[bytes]) -> list | None:
    """The column form's answer over SQ_TUPLE messages of one cell each:
    its values, or None (None answered, or raised: the cell code's turn)."""
    width = ctype.wire_width
    pad = b"\0" * (width & 1)
    data = b"".join(struct.pack("!hhI", 14, 0, width) + c + pad for c in cells)
    convert = packed_column(ctype, 8, 8 + width + (width & 1))
    assert convert is not None
    try:
        got = convert(data, len(cells))
        return None if got is None else list(got)
    except (ValueError, TypeError, OverflowError, ArithmeticError):
        return None


def _holds(ctype: ColumnType, cells: list[bytes]) -> None:
    got = _column(ctype, cells)
    if got is None:
        return
    assert len(got) == len(cells)
    for i, (cell, value) in enumerate(zip(cells, got)):
        kind, want = _reference(ctype, cell)
        assert kind == "value", (ctype.sql(), i, cell.hex(), value, want)
        assert type(value) is type(want) and repr(value) == repr(want), \
            (ctype.sql(), i, cell.hex(), value, want)


_INTERVALS = ["interval day(9) to fraction(5)", "interval hour(9) to second",
              "interval year(9) to month", "interval minute(9) to fraction(3)",
              "interval second(9) to fraction(5)", "interval day(1) to hour",
              "interval day(9) to day", "interval hour(2) to minute",
              "interval month(9) to month", "interval day(3) to second",
              "interval year(1) to year", "interval hour(8) to fraction(1)"]


@pytest.mark.parametrize("spec", _INTERVALS)
@pytest.mark.parametrize("fill", [99, 98, 59, 23, 9, 1, 0])
def test_interval_maxima_side_by_side_do_not_carry(spec, fill):
    ctype = parse_type(spec)
    cell = bytes([temporal_head(ctype)]) + bytes([fill]) * (ctype.wire_width - 1)
    for n in (1, 2, 3, 33):
        _holds(ctype, [cell] * n)
    if fill in (1, 0):
        assert _column(ctype, [cell] * 3) is not None, "clean cells left the column form"


@pytest.mark.parametrize("spec", _INTERVALS)
def test_interval_maxima_between_zeros_and_nulls(spec):
    ctype = parse_type(spec)
    head, width = temporal_head(ctype), ctype.wire_width
    top = bytes([head]) + b"\x63" * (width - 1)
    zero = bytes([head]) + bytes(width - 1)
    null = bytes(width)
    # a NULL (head and first pair zero) whose other pairs are not
    junk_null = bytes(2) + b"\x63" * (width - 2)
    # a zero head before a non-zero first pair: no NULL
    no_null = bytes(1) + b"\x01" * (width - 1)
    for combo in itertools.product([top, zero, null, junk_null, no_null], repeat=3):
        _holds(ctype, list(combo) * 11)


def _edge_cells(ctype: ColumnType) -> list[bytes]:
    """Largest, smallest, one unit either side of zero, zero, NULL, and
    bent cells: a negative zero, an all-99 cell at exponent 1 and at the
    cell's highest, a zero head before pairs."""
    encode = make_row_encoder([ctype])
    width = ctype.wire_width
    scale = 0 if ctype.scale is None else ctype.scale
    unit = Decimal(1).scaleb(-scale)
    top = Decimal(10) ** (ctype.precision - scale) - unit
    cells = []
    for value in (top, -top, Decimal(0), unit, -unit, None):
        try:
            cells.append(encode((value,)))
        except Exception:                 # noqa: BLE001 - a value the type cannot hold
            pass
    pairs = width - 1
    cells += [bytes([0x3F]) + bytes(pairs),                 # negative zero
              bytes([0xC1]) + b"\x63" * pairs,               # 0.99.. * 100
              bytes([0xC0 + pairs]) + b"\x63" * pairs,       # all digits, integer
              bytes([0x3F - pairs]) + b"\x00" * pairs,       # negative, all pairs 0
              bytes(1) + b"\x01" + bytes(pairs - 1)]         # zero head, pair 1
    return cells


def _decimal_types() -> list[ColumnType]:
    out = []
    for p in range(1, 33):
        for s in [*range(0, p + 1, 2), 0xFF]:
            out.append(ColumnType(TypeCode.DECIMAL, (p << 8) | s))
        out.append(ColumnType(TypeCode.MONEY, (p << 8) | (p & ~1)))
    return out


@pytest.mark.parametrize("ctype", _decimal_types(), ids=lambda c: c.sql().lower())
def test_decimal_edges_in_every_pair_of_neighbours(ctype):
    cells = _edge_cells(ctype)
    clean = cells[:-5]
    assert _column(ctype, clean * 3) is not None, "clean cells left the column form"
    for a, b in itertools.product(cells, repeat=2):
        _holds(ctype, [a, b, a])
