"""Reference row decoder: one plain loop, one converter per cell.

Slow and obviously correct on purpose: it is what the generated decoders of
rowdecode.py (and the columnar decoders to come) are held to by the
differential tests, on generated values and on arbitrary bytes.  It states
the decoding contract in the simplest code that has it:

1. framing first: walk the columns, cutting each cell's bytes out of the
   buffer; a cell that runs past the end of the buffer (or a negative
   envelope length) is a ProtocolError, and nothing past ``len(buf)`` is
   read;
2. then values, in column order: each cell's bytes to its Python value or
   None; bytes that are no value of the type raise DataError naming the
   column -- unless the caller said where the row must end (``stop``) and
   the framing ended elsewhere: then the columns do not match the row, and
   that is the ProtocolError it really is;
3. the result is ``(row, end)``, ``end`` being just past the last cell.  It
   is the caller's to compare ``end`` with the tuple's end on success.
"""

from __future__ import annotations

import codecs
import datetime
from collections.abc import Callable, Sequence

from ..errors import DataError, NotSupportedError, ProtocolError
from .composite import value_decoder
from .lob import DESCRIPTOR_SIZE, cell_decoder
from .scalars import (DOUBLE, EPOCH_ORDINAL, INT, INT8_STRUCT, INT_NULL, INT_STRUCT, REAL,
                      TRUE_BYTES, int8_value, packed_converter)
from .slob import cell_value
from .typeinfo import (COMPOSITE_CODES, PACKED_CODES, VARCHAR_CODES, ColumnType, TypeCode,
                       check_decodable)

__all__ = ["reference_decoder", "RowDecoder", "check_encoding"]

# decode_row(buf, start=0, stop=None) -> (row, end)
RowDecoder = Callable[..., tuple[tuple, int]]

# take(buf, pos) -> (the cell's bytes, position after it)
Take = Callable[[memoryview, int], tuple[object, int]]
Convert = Callable[[object], object]


def _fixed(width: int) -> Take:
    def take(buf: memoryview, pos: int) -> tuple[object, int]:
        end = pos + width
        if end > len(buf):
            raise ProtocolError(f"a {width}-byte value runs past the row image")
        return bytes(buf[pos:end]), end
    return take


def _take_varchar(buf: memoryview, pos: int) -> tuple[object, int]:
    """[length byte][bytes]"""
    if pos >= len(buf):
        raise ProtocolError("a VARCHAR length runs past the row image")
    end = pos + 1 + buf[pos]
    if end > len(buf):
        raise ProtocolError("a VARCHAR value runs past the row image")
    return bytes(buf[pos + 1:end]), end


def _take_envelope(buf: memoryview, pos: int) -> tuple[object, int]:
    """[null flag][int length][bytes]: (None, ...) for a NULL, else the bytes."""
    if pos + 5 > len(buf):
        raise ProtocolError("an opaque-type header runs past the row image")
    n = INT.unpack(buf[pos + 1:pos + 5])[0]
    end = pos + 5 + n
    if n < 0 or end > len(buf):
        raise ProtocolError("an opaque-type value runs past the row image")
    return (None if buf[pos] == 1 else bytes(buf[pos + 5:end])), end


def _int_converter(ctype: ColumnType) -> Convert:
    unpack, null = INT_STRUCT[ctype.code].unpack, INT_NULL[ctype.code]

    def convert(raw: object) -> object:
        value = unpack(raw)[0]
        return None if value == null else value
    return convert


def _date(raw: object) -> object:
    days = INT.unpack(raw)[0]
    if days == INT_NULL[TypeCode.DATE]:
        return None
    return datetime.date.fromordinal(EPOCH_ORDINAL + days)


def _float_converter(ctype: ColumnType) -> Convert:
    packer = DOUBLE if ctype.code == TypeCode.FLOAT else REAL
    null = b"\xff" * packer.size
    return lambda raw: None if raw == null else packer.unpack(raw)[0]


def _int8(raw: object) -> object:
    return int8_value(*INT8_STRUCT.unpack(raw))


def _cell(ctype: ColumnType, encoding: str, rows: str = "tuple") -> tuple[Take, Convert]:
    """The (take, convert) pair of one column (``rows``: how a ROW decodes)."""
    check_decodable(ctype)
    code = ctype.code
    if code in COMPOSITE_CODES:
        decode = value_decoder(ctype, encoding, rows)
        return _take_envelope, lambda raw: None if raw is None else decode(raw)
    if code == TypeCode.DATE:
        return _fixed(4), _date
    if code in INT_STRUCT:
        return _fixed(INT_STRUCT[code].size), _int_converter(ctype)
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return _fixed(ctype.length), _float_converter(ctype)
    if code in (TypeCode.INT8, TypeCode.SERIAL8):
        return _fixed(10), _int8
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        # a leading NUL is Informix's NULL CHAR; a value keeps its blanks
        return _fixed(ctype.length), lambda raw: None if raw[0] == 0 else raw.decode(encoding)
    if code in VARCHAR_CODES:
        # a one-byte NUL is VARCHAR's NULL; an empty value is length 0
        return _take_varchar, lambda raw: None if raw == b"\x00" else raw.decode(encoding)
    if code == TypeCode.LVARCHAR:
        return _take_envelope, lambda raw: None if raw is None else raw.decode(encoding)
    if code == TypeCode.JSON:       # text in the session's code set, as LVARCHAR
        return _take_envelope, lambda raw: None if raw is None else raw.decode(encoding)
    if code == TypeCode.BSON:
        return _take_envelope, lambda raw: None if raw is None else bytes(raw)
    if code == TypeCode.BOOLEAN:
        return _take_envelope, lambda raw: None if raw is None else raw[:1] in TRUE_BYTES
    if code in (TypeCode.BLOB, TypeCode.CLOB):
        return _take_envelope, lambda raw: cell_value(raw, code)
    if code in PACKED_CODES:
        return _fixed(ctype.wire_width), packed_converter(ctype)
    if code in (TypeCode.BYTE, TypeCode.TEXT):
        return _fixed(DESCRIPTOR_SIZE), cell_decoder(code)
    raise ValueError(f"no row decoding for {code!r}")


def check_encoding(encoding: str) -> None:
    """Refuse an unknown code set when a decoder is built, not mid-fetch."""
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise NotSupportedError(f"unknown code set {encoding!r}") from None


def reference_decoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1",
                      composite_rows: str = "tuple") -> RowDecoder:
    """A decoder with make_row_decoder's contract, written as plainly as possible."""
    check_encoding(encoding)
    columns = tuple(columns)
    cells = [_cell(c, encoding, composite_rows) for c in columns]

    def decode_row(buf: bytes | bytearray | memoryview, start: int = 0,
                   stop: int | None = None) -> tuple[tuple, int]:
        # A view, not a copy: the buffer may be a whole fetch reply, and
        # copying it per row would make a reply of bad rows quadratic.  It is
        # released on the way out, so an exception kept by the caller cannot
        # pin the caller's bytearray (which could then never be resized).
        pos, raws = start, []
        with memoryview(buf) as data:
            for take, _ in cells:
                raw, pos = take(data, pos)
                raws.append(raw)
        values = []
        for k, ((_, convert), raw) in enumerate(zip(cells, raws)):
            try:
                values.append(convert(raw))
            except (ValueError, OverflowError, DataError) as exc:
                if stop is not None and pos != stop:
                    raise ProtocolError(f"row image of {stop - start} bytes decoded as "
                                        f"{pos - start}: the described columns do not "
                                        "match the row") from exc
                raise DataError(f"column {k + 1} ({columns[k].sql()}): cannot decode "
                                f"{raw[:40]!r}: {exc}") from exc
        return tuple(values), pos
    return decode_row
