"""Arrow record batches -> insert-cursor row images, a column at a time.

executemany's insert cursor (insert_cursor.py) sends each row as a row image
in SQ_TUPLE's layout.  Built from Python values that costs a ``Decimal`` and
a ``datetime`` per cell; built from Arrow it needs neither: each column's
cells are computed with numpy straight from the Arrow buffers (integers,
floats, dates, timestamps, decimal128 up to 18 digits, strings, put_cells.py),
written into one buffer holding every row's image, and each image is one
slice of it.

A row is put only where ``InsertCursor.item`` would put it: every cell
passes the column's value check (insert_cursor.value_check).  Any other row
goes as bind blocks, so the server decides about it as on the bind path.  A
column with no numpy rule here takes each value's Python form and the
column's cell encoder, the way ``InsertCursor.item`` does.

``reference_items`` is the plain path: ``InsertCursor.item`` on each row's
Python values.  tests/test_arrow_put.py holds the two to the same bytes over
hypothesis-generated batches; bench/throughput/ingest_compare.py measures.
The per-type rules (one column -> its cells) are put_cells.py.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any

from ..core import statement as st
from ..errors import DataError, Error
from ..insert_cursor import InsertCursor
from ._deps import load
from .ingest import column_order, record_batches, zoned_column_error
from .put_cells import Cells, column_cells, flat_of

# A batch's images go into one row-major matrix of the columns' widest
# cells (rows may then be written a column at a time without a byte
# index) unless that matrix would be this many times the images' bytes
# (a column with one long value): then end to end, by a byte index.
_GAPPED_LIMIT = 4


def put_items(source: Any, order: list[int] | None, count: int, put: InsertCursor,
              encoding: str, unencodable: type[Exception]) -> Iterator[Any]:
    """Each row's insert-cursor item (its image, or its bind blocks), built a
    column at a time.  A row that cannot be bound at all ends the items just
    before it with ``unencodable(error)``.  The items of a batch come from
    a tuple through ``chain`` (a C-level step a row, where a generator's
    resumption costs several times more)."""
    return chain.from_iterable(_batches(source, order, count, put, encoding, unencodable))


def _batches(source: Any, order: list[int] | None, count: int, put: InsertCursor,
             encoding: str, unencodable: type[Exception]) -> Iterator[Iterable[Any]]:
    """Each batch's items, lazily: nothing is read before the first item is
    asked for."""
    np, _ = load()
    picked: list[int] | None = None
    for batch in record_batches(source):
        if picked is None:
            picked = column_order(batch.schema.names, order, count)
            zoned = zoned_column_error(batch.schema, picked)
            if zoned is not None:
                raise unencodable(zoned)
        yield batch_items(np, batch, picked, put, encoding, unencodable)


def batch_items(np, batch, picked: list[int], put: InsertCursor, encoding: str,
                unencodable: type[Exception]) -> Iterable[Any]:
    """The items of one record batch, in row order: its images when every
    row is put, else a generator that binds the others (and stops at a row
    that cannot be bound)."""
    n = batch.num_rows
    if n == 0:
        return ()
    columns = [column_cells(np, batch.column(i), ctype, check, encoding)
               for i, ctype, check in zip(picked, put.types, put.checks)]
    ok = np.logical_and.reduce([c.ok for c in columns])
    images = _cut(np, *_images(np, columns, n))
    if ok.all():
        return images
    return _mixed_items(batch, picked, ok.tolist(), images, encoding, unencodable)


def _mixed_items(batch, picked: list[int], ok: list[bool], images: Sequence[bytes],
                 encoding: str, unencodable: type[Exception]) -> Iterator[Any]:
    for row, (good, image) in enumerate(zip(ok, images)):
        if good:
            yield image
            continue
        try:
            yield _bind_blocks(batch, picked, row, encoding)
        except Error as exc:
            raise unencodable(exc) from None


def reference_items(source: Any, order: list[int] | None, count: int, put: InsertCursor,
                    encoding: str) -> Iterator[Any]:
    """The plain path: ``InsertCursor.item`` on each row's Python values."""
    for batch in record_batches(source):
        picked = column_order(batch.schema.names, order, count)
        zoned = zoned_column_error(batch.schema, picked)
        if zoned is not None:
            raise zoned
        for row in range(batch.num_rows):
            yield put.item(_row_values(batch, picked, row), None, len(picked), encoding)


def _bind_blocks(batch, picked: list[int], row: int, encoding: str) -> list[bytes]:
    """A row that is not put: its bind blocks, or a DataError naming the
    column whose value cannot be bound."""
    values = _row_values(batch, picked, row)
    try:
        return st.encode_params(values, None, len(picked), encoding)
    except Error:
        pass
    for i, value in zip(picked, values):
        try:
            st.encode_params([value], None, 1, encoding)
        except Error as exc:
            raise DataError(f"column {batch.schema.names[i]!r}: {exc}") from None
    raise DataError(f"row {row} cannot be bound")    # not reached: some value failed


def _row_values(batch, picked: list[int], row: int) -> list[Any]:
    """One row's Python values; a value Python cannot hold (a date32 past
    9999, say) is a DataError naming its column."""
    values = []
    for i in picked:
        try:
            values.append(batch.column(i)[row].as_py())
        except (ValueError, OverflowError, ArithmeticError) as exc:
            raise DataError(f"column {batch.schema.names[i]!r}: row {row} has no Python "
                            f"value ({exc})") from None
    return values


def _cut(np, blob: bytes, starts, ends, stride: int | None) -> Sequence[bytes]:
    """Each row's image as bytes.  Rows ``stride`` apart are cut by one
    struct of "<length>s<gap>x" a row, compiled for the batch (about half the
    cost of a slice a row, format and compile included); otherwise sliced."""
    if stride is None:
        return list(map(blob.__getitem__, map(slice, starts.tolist(), ends.tolist())))
    lengths = (ends - starts).tolist()
    tokens = [f"{k}s{stride - k}x" for k in range(stride + 1)] if stride <= 2 * len(lengths) \
        else {k: f"{k}s{stride - k}x" for k in set(lengths)}
    return struct.Struct("".join(map(tokens.__getitem__, lengths))).unpack_from(blob)


def _images(np, columns: list[Cells], n: int) -> tuple[bytes, Any, Any, int | None]:
    """Every row's image in one buffer, where each starts and ends, and the
    rows' stride when they are evenly spaced.

    Row r's image starts at r * stride, stride being the sum of the columns'
    widest cells, so a column's padded cells (put_cells.Cells) go in as
    whole items (a void dtype of the cell matrix's width, copied by numpy
    one memcpy an item): through a strided view while every column before
    it is fixed width, else through a view with an item at every byte,
    indexed by each row's offset.  A padded row runs past its cell into
    the columns after it, which are written later, and never past its own
    row."""
    widths = [_width(c) for c in columns]
    stride = sum(widths)
    row_len = np.add.reduce([c.lengths for c in columns])
    if n * stride > _GAPPED_LIMIT * int(row_len.sum()) + (1 << 16):
        return _packed_images(np, columns, n, row_len)
    buf = np.empty(n * stride, dtype=np.uint8)
    starts = np.arange(n, dtype=np.int64) * stride
    offset, at = 0, None
    for c, width in zip(columns, widths):
        if c.padded is None:
            if at is None:
                at = starts + offset
            buf[_spread(np, at, c.lengths)] = c.flat
            at += c.lengths
            continue
        _put_rows(np, buf, c, n, stride, offset, at)
        if at is None and (c.lengths == width).all():
            offset += width
            continue
        if at is None:
            at = starts + offset
        at += c.lengths
    return buf.tobytes(), starts, starts + row_len, stride


def _width(c: Cells) -> int:
    if c.padded is None:
        return int(c.lengths.max())
    return c.padded.shape[1]


def _put_rows(np, buf, c: Cells, n: int, stride: int, offset: int, at) -> None:
    """A column's padded cells into the image matrix: at ``offset`` in every
    row when ``at`` is None (a strided view), else at each row's ``at``."""
    width = c.padded.shape[1]
    if not width:
        return
    item = np.dtype((np.void, width))
    cells = np.ascontiguousarray(c.padded).view(item).reshape(n)
    if at is None:
        np.ndarray((n,), item, buf, offset, (stride,))[...] = cells
    else:
        np.ndarray((len(buf) - width + 1,), item, buf, 0, (1,))[at] = cells


def _packed_images(np, columns: list[Cells], n: int,
                   row_len) -> tuple[bytes, Any, Any, None]:
    """The images end to end, each column's cells placed by a byte index."""
    bounds = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(row_len, out=bounds[1:])
    buf = np.empty(int(bounds[-1]), dtype=np.uint8)
    at = bounds[:-1].copy()
    for c in columns:
        buf[_spread(np, at, c.lengths)] = flat_of(np, c)
        at += c.lengths
    return buf.tobytes(), bounds[:-1], bounds[1:], None


def _spread(np, starts, lengths):
    """Indices start[r] .. start[r] + lengths[r] - 1 for every r, end to end."""
    total = int(lengths.sum())
    before = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=before[1:])
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)
