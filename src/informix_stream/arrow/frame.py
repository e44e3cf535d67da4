"""Framing a batch of row images for the columnar decoder: where every
cell lies.

The row images are joined into one buffer (``ImageBlock``: the buffer and,
for a variable-width shape, each image's length).  Each column's cell
offsets are an int64 array, or a constant offset when every column has a
fixed width, so the buffer is just an (n, width) matrix; a cell running
past its row, or columns that end short of the row's end, is a
ProtocolError as in the tuple path.  Shapes whose only variable cells are
BOOLEANs are framed from the row sizes (``_uniform_booleans``,
``_one_boolean``), their cells read by arrow/word_cells.py; any batch those
decline takes the general framing, which accepts or refuses it exactly as
before.  columnar.py converts the framed columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..codec.typeinfo import PACKED_CODES, VARCHAR_CODES, ColumnType, TypeCode
from ..errors import ProtocolError
from . import word_cells

_FIXED_SIMPLE = {TypeCode.DATE: 4, TypeCode.FLOAT: 8, TypeCode.SMALLFLOAT: 4,
                 TypeCode.INT8: 10, TypeCode.SERIAL8: 10, TypeCode.SMALLINT: 2,
                 TypeCode.INTEGER: 4, TypeCode.SERIAL: 4, TypeCode.BIGINT: 8,
                 TypeCode.BIGSERIAL: 8}
# A BOOLEAN cell as a server sends it: [null flag][int length 1][byte].
BOOLEAN_CELL = 6


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


class Frame:
    """Where every cell of a batch lies: the joined buffer and, per column,
    the cell start offsets and (for variable cells) the value lengths."""

    def __init__(self, np, block: ImageBlock, types: Sequence[ColumnType]) -> None:
        self.np = np
        self.n = n = block.n
        self.buf = np.frombuffer(block.blob, np.uint8)
        # each cell's width (None: variable), worked out once a batch
        self.widths = [cell_width(t) for t in types]
        width = None if None in self.widths else sum(self.widths)
        self.starts: list = []
        self.lengths: list = []
        # column -> its BOOLEAN cells as read by a framing that read them
        # (_uniform_booleans, _one_boolean); other columns are read by _boolean
        self.booleans: dict = {}
        lengths = block.lengths
        if lengths is None and width is None:
            raise ValueError("an ImageBlock without lengths for a variable-width shape")
        if lengths is None:
            self._as_matrix(types, width)
            return
        if self._uniform_booleans(types, lengths):
            return
        self.matrix = None
        if self._one_boolean(types, lengths):
            return
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

    def _boolean_widths(self, types: Sequence[ColumnType]) -> list[int | None]:
        """Each cell's width, a BOOLEAN's taken as its usual 6 bytes."""
        return [BOOLEAN_CELL if t.code == TypeCode.BOOLEAN else w
                for t, w in zip(types, self.widths)]

    def _as_matrix(self, types: Sequence[ColumnType], width: int) -> None:
        """Every row is ``width`` bytes with each cell at a constant offset:
        the buffer is an (n, width) matrix."""
        self.matrix = self.buf.reshape(self.n, width)
        offset = 0
        for w in self._boolean_widths(types):
            self.starts.append(offset)           # a constant column offset
            self.lengths.append(None)
            offset += w

    def _uniform_booleans(self, types: Sequence[ColumnType], lengths) -> bool:
        """A shape whose only variable cells are BOOLEANs, each with its usual
        length 1 in every row, is framed as a matrix; any other row length or
        BOOLEAN length field leaves the batch to the general framing (which
        then accepts or refuses it exactly as before).  The BOOLEAN cells
        read here are kept for the columns (``self.booleans``)."""
        widths = self._boolean_widths(types)
        n = self.n
        if not n or None in widths or len(self.buf) != n * sum(widths) or \
                lengths.min() != sum(widths) or lengths.max() != sum(widths):
            return False
        width, offset = sum(widths), 0
        booleans = {}
        for k, (t, w) in enumerate(zip(types, widths)):
            if t.code == TypeCode.BOOLEAN:
                words = word_cells.boolean_words(self.np, self.buf, offset, width, n)
                if words is None:
                    return False
                booleans[k] = words
            offset += w
        self.booleans = booleans
        self._as_matrix(types, width)
        return True

    def _one_boolean(self, types: Sequence[ColumnType], lengths) -> bool:
        """A shape of fixed-width cells and one BOOLEAN whose rows are all
        of its two sizes, W (the 6-byte cell) and W - 1 (the 5-byte NULL
        cell): every cell's offset follows from its row's size, and the
        BOOLEAN is read by word_cells.boolean_cells_by_row_size (a shape of
        the BOOLEAN alone: boolean_cells_alone, half the gathers).  False for
        any other shape or batch (or a length field its row size does not
        imply), which the general framing then frames or refuses as before;
        a column with no NULL is _uniform_booleans' matrix."""
        np, n = self.np, self.n
        widths = self._boolean_widths(types)
        kinds = [t.code == TypeCode.BOOLEAN for t in types]
        if not n or None in widths or kinds.count(True) != 1:
            return False
        width = sum(widths)
        if lengths.min() < width - 1 or lengths.max() > width:
            return False
        k = kinds.index(True)
        at = sum(widths[:k])
        rows = np.cumsum(lengths)
        rows -= lengths                                   # each row's start
        full = lengths == width
        pos = rows + at if at else rows
        if len(types) == 1:
            # its count of the bytes not read needs the images to be the buffer
            if int(rows[-1] + lengths[-1]) != len(self.buf):
                return False
            cells = word_cells.boolean_cells_alone(np, self.buf, pos, full)
        else:
            cells = word_cells.boolean_cells_by_row_size(np, self.padded(), pos, full)
        if cells is None:
            return False
        self.booleans = {k: (*cells, full)}
        offset = 0
        for j, w in enumerate(widths):
            if j < k:
                self.starts.append(rows + offset if offset else rows)
            elif j == k:
                self.starts.append(pos)
                if j + 1 < len(widths):
                    after = pos + 5
                    after += full                  # the cells after it, per row
            else:
                self.starts.append(after + (offset - at - BOOLEAN_CELL))
            self.lengths.append(full.view(np.uint8) if j == k else None)   # 1 or 0
            offset += w
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
            return self._matrix_cells(start, width)
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

    def _matrix_cells(self, start: int, width: int):
        """Column ``start:start + width`` of the row matrix, contiguous
        (every column decoder reads its cells as one): the matrix's own
        slice when it is the whole row, else one strided copy of a cell a
        row, an unsigned word for 1, 2, 4 and 8 bytes, a void item for any
        other width.  numpy copies an (n, width) uint8 slice a row at a
        time, width bytes each: 50-60 us for 20,000 rows, where the word
        copy takes ~6 and the void one ~28."""
        np, n, row = self.np, self.n, self.matrix.shape[1]
        if width == row or not n:
            return self.matrix[:, start:start + width]
        kind = f"<u{width}" if width in (1, 2, 4, 8) else f"V{width}"
        cells = np.ndarray((n,), kind, self.buf, start, (row,)).copy()
        return cells.view(np.uint8).reshape(n, width)

    def cell_bytes(self, k: int, ctype: ColumnType) -> list[bytes]:
        """Each row's cell of column ``k`` as bytes (the slow path's input)."""
        width = cell_width(ctype)
        if width is None and self.matrix is not None:
            width = BOOLEAN_CELL             # a BOOLEAN framed as a matrix cell
        if width is not None:
            return [bytes(row) for row in self.cells(k, width)]
        head = 1 if ctype.code in VARCHAR_CODES else 5
        blob = self.buf.tobytes() if not hasattr(self, "_blob") else self._blob
        self._blob = blob
        return [blob[s:s + head + n] for s, n in zip(self.starts[k].tolist(),
                                                     self.lengths[k].tolist())]
