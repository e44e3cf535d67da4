"""Columnar decoding: a batch of row images -> one RecordBatch, column by
column with numpy over the bytes, never through Python row tuples.

Framing comes first (frame.py: where every cell of every row lies, or the
tuple path's ProtocolError); then each column converts its (n, w) byte
matrix, or its gathered cells, with a few array operations.

Exactness is kept by never guessing: a cell the vectorised path does not
recognise as a clean value of its type (a base-100 digit over 99, an
unexpected exponent, a day that is not in its month, an out-of-range DATE)
is handed to the reference converter of rowdecode_ref, which returns its
value or raises the very DataError the tuple path raises.  Every scalar type
has a vectorised path (the base-100 ones, DECIMAL/MONEY of every precision,
floating DECIMAL, DATETIME and INTERVAL of every qualifier, are in
packed_columns.py); only cells outside it (see there) take the reference.
Text is copied as bytes when it is ASCII or UTF-8 (checked by Arrow's full
validation) and transcoded with array operations from Latin-1 (the default
code set); text in other code sets with bytes over 0x7F, and UTF-8 that
fails validation, goes through the reference converter per cell.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..codec.rowdecode_ref import reference_decoder
from ..codec.scalars import EPOCH_ORDINAL, TRUE_BYTES
from ..codec.typeinfo import VARCHAR_CODES, ColumnType, TypeCode
from ..errors import DataError
from ._deps import load
from .cell_values import fully_valid
from . import packed_columns, word_cells
from .frame import (BOOLEAN_CELL, Frame, ImageBlock, cell_width, concat_blocks,  # noqa: F401
                    fixed_row_width, pack_images)
from .text_bytes import gather_ranges, latin1_to_utf8
from .reference import column_error, values_to_array
from .types import arrow_schema, arrow_type

_INT_BE = {TypeCode.SMALLINT: ">i2", TypeCode.INTEGER: ">i4", TypeCode.SERIAL: ">i4",
           TypeCode.BIGINT: ">i8", TypeCode.BIGSERIAL: ">i8"}
# Arrow storage of a numpy (kind, itemsize).
_STORAGE = {("i", 2): lambda pa: pa.int16(), ("i", 4): lambda pa: pa.int32(),
            ("i", 8): lambda pa: pa.int64(), ("f", 4): lambda pa: pa.float32(),
            ("f", 8): lambda pa: pa.float64()}
# Informix DATE 0 is 1899-12-31; Arrow's date32 0 is 1970-01-01.
_DATE_SHIFT = 719163 - EPOCH_ORDINAL
_MAX_ORDINAL = 3652059          # 9999-12-31


class _Column:
    """Converts one column of a framed batch; see the module docstring."""

    def __init__(self, frame: Frame, k: int, ctype: ColumnType, name: str,
                 encoding: str) -> None:
        self.frame, self.k, self.ctype, self.name = frame, k, ctype, name
        self.encoding = encoding
        self.np, self.pa = frame.np, load()[1]
        self.type = arrow_type(self.pa, ctype)

    # -- the slow, exact path ---------------------------------------------------
    def _reference_values(self, cells: list[bytes]) -> list:
        decode = reference_decoder([self.ctype], self.encoding)
        out = []
        for cell in cells:
            try:
                out.append(decode(cell, 0, len(cell))[0][0])
            except DataError as exc:
                raise DataError(f"column {self.k + 1} ({self.name}): {exc}") from exc
        return out

    def slow(self):
        values = self._reference_values(self.frame.cell_bytes(self.k, self.ctype))
        return values_to_array(values, self.ctype, self.k, self.name)

    def patch(self, bad, cells, convert):
        """Values of the cells the fast path declined, by the reference converter
        (DataError if they are no value); ``convert`` maps each to storage."""
        idx = self.np.flatnonzero(bad)
        values = self._reference_values([bytes(cells[i]) for i in idx])
        return idx, [convert(v) for v in values]

    def fail(self, why: str) -> DataError:
        return column_error(self.k, self.name, self.ctype, ValueError(why))

    def raw(self):
        """The column's (n, wire width) cell matrix, contiguous."""
        return self.np.ascontiguousarray(self.frame.cells(self.k, self.frame.widths[self.k]))

    # -- building arrays ----------------------------------------------------------
    def validity(self, null):
        """Arrow's validity bitmap of ``~null`` (None when nothing is NULL,
        or ``null`` is None): packbits, several times cheaper than
        pa.array's ``mask``."""
        if null is None or not null.any():
            return None
        return self.pa.py_buffer(self.np.packbits(~null, bitorder="little"))

    def array(self, data, null):
        """A primitive Arrow array over ``data`` with ``null`` as its nulls."""
        pa, np = self.pa, self.np
        data = np.ascontiguousarray(data, data.dtype.newbyteorder("<"))
        kind = "f" if np.issubdtype(data.dtype, np.floating) else "i"
        storage = _STORAGE[kind, data.dtype.itemsize](pa)
        arr = pa.Array.from_buffers(storage, len(data), [self.validity(null),
                                                         pa.py_buffer(data)])
        if arr.type == self.type:
            return arr
        return arr.cast(self.type) if kind == "f" else arr.view(self.type)

    def from_buffer(self, data, null):
        """An array of the column's type over ``data`` (its storage, one
        record a row) with ``null`` as its nulls."""
        return self.from_valid(data, None if null is None or not null.any() else ~null)

    def from_valid(self, data, valid):
        """``from_buffer`` given the valid cells' mask instead (None: every
        cell valid), for a decoder that has it at hand: no inversion."""
        pa = self.pa
        bitmap = None if valid is None else pa.py_buffer(
            self.np.packbits(valid, bitorder="little"))
        return pa.Array.from_buffers(self.type, self.frame.n, [bitmap, pa.py_buffer(data)])

    # -- per type -----------------------------------------------------------------------
    def decode(self):
        code, ctype = self.ctype.code, self.ctype
        if code in _INT_BE:
            return self._int(_INT_BE[code])
        if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
            return self._float(8 if code == TypeCode.FLOAT else 4)
        if code == TypeCode.DATE:
            return self._date()
        if code in (TypeCode.INT8, TypeCode.SERIAL8):
            return self._int8()
        if code in (TypeCode.DECIMAL, TypeCode.MONEY):
            if ctype.scale is None:
                return packed_columns.floating_array(self)
            return packed_columns.decimal_array(self)
        if code == TypeCode.DATETIME:
            return packed_columns.datetime_array(self)
        if code == TypeCode.INTERVAL:
            return packed_columns.interval_array(self)
        if code in _TEXT_CODES:
            return self._text()
        if code == TypeCode.BOOLEAN:
            return self._boolean()
        return self.slow()

    def _boolean(self):
        """[null flag][int length][byte]: NULL when the flag is 1, true when
        the first byte is 1, 't' or 'T' (scalars.TRUE_BYTES), else false."""
        np, frame = self.np, self.frame
        pos = frame.starts[self.k]
        cells = frame.booleans.get(self.k)
        if cells is not None:   # every length 1 (_uniform_booleans), or 0 and 1 (_one_boolean)
            flag, value = cells[:2]
            null = flag == 1
            # a value byte of 0 or 1 is its own truth (packbits packs nonzero as 1)
            truth = value if value.max() <= 1 else _true_bytes(np).take(value)
            if len(cells) == 3:                   # a 5-byte cell (length 0) is false
                truth = np.logical_and(truth, cells[2])
        else:
            size = frame.lengths[self.k]
            null = frame.buf.take(pos) == 1
            first = frame.buf.take(np.where(size > 0, pos + 5, pos))
            truth = (size > 0) & _true_bytes(np).take(first)
        return self.pa.Array.from_buffers(self.type, frame.n, [
            self.validity(null), self.pa.py_buffer(np.packbits(truth, bitorder="little"))])

    def _int(self, fmt: str):
        np = self.np
        width = int(fmt[2:])
        raw = np.ascontiguousarray(self.frame.cells(self.k, width))
        values = raw.view(fmt).reshape(-1)
        null = values == np.iinfo(fmt).min
        return self.array(values.astype("<" + fmt[1:]), null)

    def _float(self, width: int):
        np = self.np
        raw = np.ascontiguousarray(self.frame.cells(self.k, width))
        # NULL is every byte 0xFF: one compare of the cell as an unsigned int
        null = raw.view(f"u{width}").reshape(-1) == (1 << 8 * width) - 1
        values = raw.view(f">f{width}").reshape(-1).astype(f"<f{width}")
        return self.array(values, null)

    def _date(self):
        """Days since 1899-12-31 -> date32, in int32 throughout: the range
        check is one unsigned compare of the days shifted to the range's
        start (NULL, -2**31, is outside it and is excluded after)."""
        np = self.np
        raw = np.ascontiguousarray(self.frame.cells(self.k, 4))
        days = raw.view(">i4").reshape(-1).astype("<i4")
        null = days == -0x80000000
        low = 1 - EPOCH_ORDINAL                       # 0001-01-01
        outside = (days - np.int32(low)).view("<u4") > np.uint32(_MAX_ORDINAL - 1)
        if outside.any() and (outside & ~null).any():
            self.patch(outside & ~null, raw, lambda v: v)   # raises the reference DataError
        np.subtract(days, np.int32(_DATE_SHIFT), out=days)   # NULL's wraps; it is masked
        return self.array(days, null)

    def _int8(self):
        """[sign short][low uint32][high uint32], big-endian.  A column of
        the usual signs (1, -1, 0) and magnitudes is word_cells.int8_usual's;
        any other takes this general form, which reads any sign.  Two strided
        reads: the cell's first 8 bytes as a big-endian int64 (the sign in
        its top 16 bits: NULL when they are 0, negative when the top bit is
        set) and the magnitude's 8 bytes as they lie, whose two big-endian
        words become the halves of one little-endian int64 by one byte swap
        of 32-bit words; the rest is in place on those copies.  The plain
        form is scalars.int8_value per cell (the reference decoder), which
        the differential tests of test_arrow_fast_paths hold this to."""
        np = self.np
        raw = np.ascontiguousarray(self.frame.cells(self.k, 10))
        n = len(raw)
        if not n:
            return self.array(np.zeros(0, np.int64), np.zeros(0, bool))
        usual = word_cells.int8_usual(np, raw)
        if usual is not None:
            return self.from_valid(*usual)
        signed = np.ndarray((n,), ">i8", raw, 0, (10,)).astype(np.int64)
        values = np.ndarray((n,), "<u8", raw, 2, (10,)).copy().view(">u4").astype(
            "<u4").view(np.int64)
        null = signed.view(np.uint64) < np.uint64(1 << 48)     # sign 0
        flip = np.right_shift(signed, 63, out=signed)           # -1 where negative, else 0
        # past int64: a magnitude of 2**63 or more, but for -2**63 itself
        # (2**63 read as int64 is its own negative)
        if values.min() < 0:
            over = (values < 0) & ~null & ~((flip < 0) & (values == -(1 << 63)))
            if over.any():
                raise self.fail("an INT8 beyond the int64 range")
        # negated where the sign is negative: x ^ -1 - -1 == -x, x ^ 0 - 0 == x
        values ^= flip
        values -= flip
        if null.any():
            np.multiply(values, ~null, out=values)
        return self.array(values, null)

    def _text(self):
        np, pa, ctype, frame = self.np, self.pa, self.ctype, self.frame
        enc = self.encoding.lower().replace("_", "-")
        large = ctype.code == TypeCode.LVARCHAR
        if ctype.code in VARCHAR_CODES or large:
            data, offsets, null = self._variable_text(1 + 4 * large)
        else:
            width = ctype.length
            cells = np.ascontiguousarray(frame.cells(self.k, width))
            null = cells[:, 0] == 0
            data = cells.reshape(-1)
            # int32 offsets when they fit (a string array's own): no conversion after
            offsets = np.arange(0, (frame.n + 1) * width, width,
                                dtype=np.int32 if (frame.n + 1) * width < 1 << 31 else np.int64)
        high = len(data) and data.max() >= 0x80
        if high and enc in _LATIN1:
            data, offsets = latin1_to_utf8(np, data, offsets)
        elif (high and enc not in _UTF8) or enc not in _ASCII_SUPERSETS:
            return self.slow()
        if not large and offsets[-1] >= 1 << 31:
            return self.slow()
        array = pa.Array.from_buffers(self.type, frame.n,
                                      [self.validity(null), pa.py_buffer(np.asarray(
                                          offsets, "<i8" if large else "<i4")),
                                       pa.py_buffer(data)])
        if high and enc in _UTF8:
            # UTF-8 from the server is used as is once Arrow has checked it;
            # invalid bytes take the reference path, which names the column
            if not fully_valid(array):
                return self.slow()
        return array

    def _variable_text(self, head: int):
        """Text bytes, offsets and NULLs of a VARCHAR ([length byte][bytes],
        NULL a lone 0 byte) or LVARCHAR ([null flag][int length][bytes], NULL
        when the flag is 1) column."""
        np, frame = self.np, self.frame
        starts, lengths = frame.starts[self.k], frame.lengths[self.k]
        padded = frame.padded()
        if head == 1:
            null = (lengths == 1) & (padded.take(starts + 1) == 0)
        else:
            null = frame.buf.take(starts) == 1
        sizes = np.where(null, 0, lengths)
        gathered = gather_ranges(np, self.pa, padded, starts + head, sizes, large=head != 1)
        if gathered is not None:
            return (*gathered, null)
        offsets = np.zeros(frame.n + 1, np.int64)
        np.cumsum(sizes, out=offsets[1:])
        # the text bytes as a mask over the buffer: 1 byte per buffer byte,
        # where an index array would take 8 per text byte
        marks = np.zeros(len(frame.buf) + 1, np.int8)
        marks[starts + head] += 1
        marks[starts + head + sizes] -= 1
        data = frame.buf[np.cumsum(marks[:-1], dtype=np.int8).view(np.bool_)]
        return data, offsets, null



_TRUE_BYTES = None


def _true_bytes(np):
    """byte -> whether a BOOLEAN whose first byte it is reads as true
    (scalars.TRUE_BYTES: 1, 't', 'T')."""
    global _TRUE_BYTES
    if _TRUE_BYTES is None:
        table = np.zeros(256, bool)
        table[[byte for (byte,) in TRUE_BYTES]] = True
        _TRUE_BYTES = table
    return _TRUE_BYTES


_TEXT_CODES = (*VARCHAR_CODES, TypeCode.LVARCHAR, TypeCode.CHAR, TypeCode.NCHAR)
_LATIN1 = ("iso-8859-1", "latin-1", "latin1", "8859-1", "iso8859-1")
_UTF8 = ("utf-8", "utf8")
# Code sets whose bytes below 0x80 are ASCII, so ASCII-only text is already UTF-8.
_ASCII_SUPERSETS = _LATIN1 + ("ascii", "us-ascii", "utf-8", "utf8", "cp1252")


def decode_batch(images: Sequence, types: Sequence[ColumnType], names: Sequence[str],
                 encoding: str = "iso-8859-1"):
    """Row images -> RecordBatch (the fast path; see the module docstring)."""
    np, _ = load()
    return decode_block(pack_images(np, images, fixed_row_width(types)), types, names,
                        encoding)


def decode_block(block: ImageBlock, types: Sequence[ColumnType], names: Sequence[str],
                 encoding: str = "iso-8859-1"):
    """Packed row images -> RecordBatch."""
    np, pa = load()
    frame = Frame(np, block, types)
    arrays = [_Column(frame, k, t, name, encoding).decode()
              for k, (t, name) in enumerate(zip(types, names))]
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(pa, list(names),
                                                                   list(types)))
