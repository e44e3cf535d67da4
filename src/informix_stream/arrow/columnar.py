"""Columnar decoding: a batch of row images -> one RecordBatch, column by
column with numpy over the bytes, never through Python row tuples.

The row images are joined into one buffer.  Framing comes first, for every
row, one column at a time: each column's cell offsets are an int64 array
(constant offsets when every column has a fixed width, so the buffer is
just an (n, width) matrix); a cell running past its row, or columns that
end short of the row's end, is a ProtocolError as in the tuple path.  Then
each column converts its (n, w) byte matrix with a few array operations.

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
from ..codec.typeinfo import PACKED_CODES, VARCHAR_CODES, ColumnType, TypeCode
from ..errors import DataError, ProtocolError
from ._deps import load
from . import packed_columns, word_cells
from .text_bytes import gather_ranges, latin1_to_utf8
from .reference import column_error, values_to_array
from .types import arrow_schema, arrow_type

_INT_BE = {TypeCode.SMALLINT: ">i2", TypeCode.INTEGER: ">i4", TypeCode.SERIAL: ">i4",
           TypeCode.BIGINT: ">i8", TypeCode.BIGSERIAL: ">i8"}
_FIXED_SIMPLE = {TypeCode.DATE: 4, TypeCode.FLOAT: 8, TypeCode.SMALLFLOAT: 4,
                 TypeCode.INT8: 10, TypeCode.SERIAL8: 10, TypeCode.SMALLINT: 2,
                 TypeCode.INTEGER: 4, TypeCode.SERIAL: 4, TypeCode.BIGINT: 8,
                 TypeCode.BIGSERIAL: 8}
# Arrow storage of a numpy (kind, itemsize).
_STORAGE = {("i", 2): lambda pa: pa.int16(), ("i", 4): lambda pa: pa.int32(),
            ("i", 8): lambda pa: pa.int64(), ("f", 4): lambda pa: pa.float32(),
            ("f", 8): lambda pa: pa.float64()}
# Informix DATE 0 is 1899-12-31; Arrow's date32 0 is 1970-01-01.
_DATE_SHIFT = 719163 - EPOCH_ORDINAL
_MAX_ORDINAL = 3652059          # 9999-12-31


def cell_width(ctype: ColumnType) -> int | None:
    """Bytes of one cell of a fixed-width column; None when it varies."""
    code = ctype.code
    if code in _FIXED_SIMPLE:
        return _FIXED_SIMPLE[code]
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return ctype.length
    if code in PACKED_CODES:
        return ctype.wire_width
    return None


def fixed_row_width(types: Sequence[ColumnType]) -> int | None:
    """The row image size when every column is fixed-width, else None."""
    widths = [cell_width(t) for t in types]
    return None if None in widths else sum(widths)


class ImageBlock:
    """Row images packed for the decoder: one buffer, and each image's
    length (None when every image has the shape's fixed width).  A batch is
    packed one fetch reply at a time, so it never holds a Python object per
    row for longer than one reply."""

    __slots__ = ("blob", "lengths", "n")

    def __init__(self, blob: bytes, lengths, n: int) -> None:
        self.blob, self.lengths, self.n = blob, lengths, n


def pack_images(np, images: Sequence, width: int | None) -> ImageBlock:
    n = len(images)
    blob = b"".join(images)
    if width is not None and len(blob) == n * width and (
            not n or set(map(len, images)) == {width}):
        return ImageBlock(blob, None, n)
    return ImageBlock(blob, np.fromiter(map(len, images), np.int64, n), n)


def concat_blocks(np, blocks: Sequence[ImageBlock], width: int | None) -> ImageBlock:
    if len(blocks) == 1:
        return blocks[0]
    blob = b"".join(b.blob for b in blocks)
    n = sum(b.n for b in blocks)
    if all(b.lengths is None for b in blocks):
        return ImageBlock(blob, None, n)
    return ImageBlock(blob, np.concatenate([
        np.full(b.n, width, np.int64) if b.lengths is None else b.lengths
        for b in blocks]), n)


class _Frame:
    """Where every cell of a batch lies: the joined buffer and, per column,
    the cell start offsets and (for variable cells) the value lengths."""

    def __init__(self, np, block: ImageBlock, types: Sequence[ColumnType]) -> None:
        self.np = np
        self.n = n = block.n
        self.buf = np.frombuffer(block.blob, np.uint8)
        width = fixed_row_width(types)
        self.starts: list = []
        self.lengths: list = []
        lengths = block.lengths
        if lengths is None and width is None:
            raise ValueError("an ImageBlock without lengths for a variable-width shape")
        if lengths is None:
            self._as_matrix(types, width)
            return
        if self._uniform_booleans(types, lengths):
            return
        self.matrix = None
        ends = np.cumsum(lengths)
        if self._frame_unchecked(types, ends - lengths, ends):
            return
        self.starts.clear()
        self.lengths.clear()
        pos = ends - lengths
        for k, t in enumerate(types):
            pos = self._frame_column(k, t, pos, ends)
        if n and (pos != ends).any():
            row = int(np.argmax(pos != ends))
            raise ProtocolError(f"row image of {int(lengths[row])} bytes decoded as "
                                f"{int(pos[row] - ends[row] + lengths[row])}: the described "
                                "columns do not match the row")

    def _as_matrix(self, types: Sequence[ColumnType], width: int) -> None:
        """Every row is ``width`` bytes with each cell at a constant offset:
        the buffer is an (n, width) matrix."""
        self.matrix = self.buf.reshape(self.n, width)
        offset = 0
        for t in types:
            self.starts.append(offset)           # a constant column offset
            self.lengths.append(None)
            offset += _BOOLEAN_CELL if t.code == TypeCode.BOOLEAN else cell_width(t)

    def _uniform_booleans(self, types: Sequence[ColumnType], lengths) -> bool:
        """A shape whose only variable cells are BOOLEANs, each with its usual
        length 1 in every row, is framed as a matrix; any other row length or
        BOOLEAN length field leaves the batch to the general framing (which
        then accepts or refuses it exactly as before).  The BOOLEAN cells
        read here are kept for the columns (``self.booleans``)."""
        widths = [_BOOLEAN_CELL if t.code == TypeCode.BOOLEAN else cell_width(t)
                  for t in types]
        n = self.n
        if not n or None in widths or len(self.buf) != n * sum(widths) or \
                lengths.min() != sum(widths) or lengths.max() != sum(widths):
            return False
        width, offset = sum(widths), 0
        self.booleans = {}
        for k, (t, w) in enumerate(zip(types, widths)):
            if t.code == TypeCode.BOOLEAN:
                words = boolean_words(self.np, self.buf, offset, width, n)
                if words is None:
                    return False
                self.booleans[k] = words
            offset += w
        self._as_matrix(types, width)
        return True

    def _frame_unchecked(self, types: Sequence[ColumnType], pos, ends) -> bool:
        """Frame every column with no check on the way, then one: no length
        is negative and every row ends where its image does.  Offsets only
        grow then, so no cell or length ran past its row, and the checked
        framing would have accepted the batch and framed it alike.  False
        for any other batch (including one whose reads left the buffer),
        which the checked framing then refuses with its precise error."""
        np = self.np
        padded = self.padded()
        ints = None
        # a gather from the contiguous buffer by take (a fancy index costs 1.3x);
        # from the overlapping int view by fancy index (take copies its source first)
        try:
            for ctype in types:
                self.starts.append(pos)
                width = cell_width(ctype)
                if width is not None:
                    self.lengths.append(None)
                    pos = pos + width
                    continue
                if ctype.code in VARCHAR_CODES:
                    size = padded.take(pos).astype(np.int64)
                    head = 1
                else:
                    if ints is None:     # the big-endian int at every byte offset
                        ints = np.ndarray((len(padded) - 3,), ">i4", padded, 0, (1,))
                    size = ints[pos + 1].astype(np.int64)
                    head = 5
                    if self.n and size.min() < 0:
                        return False
                self.lengths.append(size)
                pos = pos + size
                pos += head
        except IndexError:
            return False
        return not (self.n and (pos != ends).any())

    def _frame_column(self, k: int, ctype: ColumnType, pos, ends):
        np, buf = self.np, self.buf
        self.starts.append(pos)
        width = cell_width(ctype)
        if width is not None:
            self.lengths.append(None)
            nxt = pos + width
        else:
            head = 1 if ctype.code in VARCHAR_CODES else 5
            if (pos + head > ends).any():
                raise ProtocolError(f"column {k + 1}: a length runs past the row image")
            if head == 1:
                size = buf[pos].astype(np.int64)
            else:
                # one gather from a view holding the int at every byte
                # offset (an (n, 4) fancy index is many times slower)
                ints = np.ndarray((max(len(buf) - 3, 0),), ">i4", buf, 0, (1,))
                size = ints[pos + 1].astype(np.int64)
                if (size < 0).any():
                    raise ProtocolError(f"column {k + 1}: an opaque-type value runs past "
                                        "the row image")
            self.lengths.append(size)
            nxt = pos + head + size
        if (nxt > ends).any():
            raise ProtocolError(f"column {k + 1}: a value runs past the row image")
        return nxt

    def padded(self):
        """The buffer with 16 zero bytes after it, so an 8-byte read at any
        cell's offset (+ 8) stays inside (made once per batch)."""
        if getattr(self, "_padded", None) is None:
            self._padded = self.np.concatenate([self.buf, self.np.zeros(16, self.np.uint8)])
        return self._padded

    def cells(self, k: int, width: int):
        """The (n, width) byte matrix of fixed-width column ``k``."""
        np = self.np
        start = self.starts[k]
        if self.matrix is not None:
            return self.matrix[:, start:start + width]
        # eight bytes at a time, by a gather from a view holding the uint64
        # at every byte offset of the padded buffer (a cell's last word may
        # read up to 7 bytes past it); an (n, width) index array would cost
        # 8 bytes of memory per cell byte, a gather per byte is 3x slower
        padded = self.padded()
        size = 2 if width <= 2 else 4 if width <= 4 else 8    # so INTEGER, DATE... are
        words = -(-width // size)                              # contiguous as gathered
        wide = np.ndarray((len(padded) - size + 1,), f"<u{size}", padded, 0, (1,))
        out = np.empty((self.n, words), f"<u{size}")
        for j in range(words):
            out[:, j] = wide[start + size * j]
        return out.view(np.uint8)[:, :width]

    def cell_bytes(self, k: int, ctype: ColumnType) -> list[bytes]:
        """Each row's cell of column ``k`` as bytes (the slow path's input)."""
        width = cell_width(ctype)
        if width is None and self.matrix is not None:
            width = _BOOLEAN_CELL             # a BOOLEAN framed as a matrix cell
        if width is not None:
            return [bytes(row) for row in self.cells(k, width)]
        head = 1 if ctype.code in VARCHAR_CODES else 5
        blob = self.buf.tobytes() if not hasattr(self, "_blob") else self._blob
        self._blob = blob
        return [blob[s:s + head + n] for s, n in zip(self.starts[k].tolist(),
                                                     self.lengths[k].tolist())]


class _Column:
    """Converts one column of a framed batch; see the module docstring."""

    def __init__(self, frame: _Frame, k: int, ctype: ColumnType, name: str,
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
        return self.np.ascontiguousarray(self.frame.cells(self.k, self.ctype.wire_width))

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
        pa = self.pa
        return pa.Array.from_buffers(self.type, self.frame.n,
                                     [self.validity(null), pa.py_buffer(data)])

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
        if frame.matrix is not None:          # every length 1 (_uniform_booleans)
            flag, value = frame.booleans[self.k]
            null = flag == 1
            # a value byte of 0 or 1 is its own truth (packbits packs nonzero as 1)
            truth = value if value.max() <= 1 else _true_bytes(np).take(value)
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
            return self.from_buffer(usual[0], usual[1])
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
            try:
                array.validate(full=True)
            except pa.ArrowInvalid:
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


# A BOOLEAN cell as a server sends it: [null flag][int length 1][byte].
_BOOLEAN_CELL = 6


def boolean_words(np, buf, offset: int, width: int, n: int):
    """The BOOLEAN cells at ``offset`` of ``n`` rows of ``width`` bytes as
    (flag, value byte), uint8 columns, when every length field is 1; else
    None.  Two strided reads a column, a little-endian uint32 (the flag and
    the length's first three bytes) and a uint16 (the length's last byte
    and the value), checked by reductions: the uint32 is at most 0xFF (the
    flag alone) and every last length byte is 1.  The plain form is the
    big-endian length read and compared, which the general framing does."""
    first = np.ndarray((n,), "<u4", buf, offset, (width,)).copy()
    if first.max() > 0xFF:
        return None
    last = np.ndarray((n,), "<u2", buf, offset + 4, (width,)).copy()
    size = last.astype(np.uint8)                # the low byte: the length's last
    if size.min() != 1 or size.max() != 1:
        return None
    last >>= np.uint16(8)
    return first.astype(np.uint8), last.astype(np.uint8)


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
    frame = _Frame(np, block, types)
    arrays = [_Column(frame, k, t, name, encoding).decode()
              for k, (t, name) in enumerate(zip(types, names))]
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(pa, list(names),
                                                                   list(types)))
