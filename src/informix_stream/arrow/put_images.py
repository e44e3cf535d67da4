"""Arrow record batches -> insert-cursor row images, a column at a time.

executemany's insert cursor (insert_cursor.py) sends each row as a row image
in SQ_TUPLE's layout.  Built from Python values that costs a ``Decimal`` and
a ``datetime`` per cell; built from Arrow it needs neither: each column's
cells are computed with numpy straight from the Arrow buffers (integers,
floats, dates, timestamps, decimal128 up to 18 digits, strings, put_cells.py),
written into one buffer holding every row's image (``put_batches``, an
``ImageBatch`` a record batch), from which put_requests.py cuts the SQ_PUT
requests a block at a time.

A row is put only where ``InsertCursor.item`` would put it: every cell
passes the column's value check (insert_cursor.value_check).  Any other row
goes as bind blocks, so the server decides about it as on the bind path.  A
column with no numpy rule here takes each value's Python form and the
column's cell encoder, the way ``InsertCursor.item`` does.

``reference_items`` is the plain path: ``InsertCursor.item`` on each row's
Python values.  tests/test_arrow_put.py holds ``put_items`` (the batches'
rows one by one) to it, byte for byte, over hypothesis-generated batches; bench/throughput/ingest_compare.py measures.
The per-type rules (one column -> its cells) are put_cells.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..core import statement as st
from ..errors import DataError, Error
from ..insert_cursor import BadRow, InsertCursor
from ._deps import load
from .cell_values import NO_VALUE_ERRORS, no_value_error, python_value
from .ingest import checked_batches
from .put_cells import Cells, column_cells, flat_of
from .put_requests import HEADROOM, ImageBatch

# A batch's images go into one row-major matrix of the columns' widest
# cells (rows may then be written a column at a time without a byte
# index) unless that matrix would be this many times the images' bytes
# (a column with one long value): then end to end, by a byte index.
_GAPPED_LIMIT = 4


def put_items(source: Any, order: list[int] | None, count: int, put: InsertCursor,
              encoding: str, unencodable: type[Exception]) -> Iterator[Any]:
    """Each row's insert-cursor item (its image, or its bind blocks), built a
    column at a time: ``put_batches`` a row at a time, as the row-by-row
    path (``insert_cursor.item_chunks``) takes them.  A row that cannot be
    bound at all ends the items just before it with ``unencodable(error)``."""
    batches = put_batches(source, order, count, put, encoding)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except BadRow as bad:
            raise unencodable(bad.error) from None
        yield from _batch_rows(batch)


def _batch_rows(batch: ImageBatch) -> list[Any]:
    blob = batch.buf.tobytes()
    starts = batch.starts.tolist()
    rows: list[Any] = list(map(blob.__getitem__, map(
        slice, starts, (batch.starts + batch.lengths).tolist())))
    for row, blocks in batch.binds.items():
        rows[row] = blocks
    return rows


def put_batches(source: Any, order: list[int] | None, count: int, put: InsertCursor,
                encoding: str) -> Iterator[ImageBatch]:
    """Each record batch's rows as one ``ImageBatch`` (put_requests.py cuts
    the requests from it), lazily: nothing is read before the first batch
    is asked for.  A row that cannot be bound at all ends its batch just
    before it, and ``BadRow`` carrying its DataError follows."""
    np, _ = load()
    try:
        picked, batches = checked_batches(source, order, count, put.types)
    except DataError as refused:
        raise BadRow(refused) from None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        images, error = batch_images(np, batch, picked, put, encoding)
        if len(images.starts):
            yield images
        if error is not None:
            raise BadRow(error)


def batch_images(np, batch, picked: list[int], put: InsertCursor,
                 encoding: str) -> tuple[ImageBatch, Error | None]:
    """One record batch's images, with the bind blocks of the rows not put;
    cut short before a row that cannot be bound, whose error comes along."""
    n = batch.num_rows
    columns = [column_cells(np, batch.column(i), ctype, check, encoding)
               for i, ctype, check in zip(picked, put.types, put.checks)]
    ok = np.logical_and.reduce([c.ok for c in columns])
    buf, starts, lengths, dense = _images(np, columns, n)
    binds: dict[int, list[bytes]] = {}
    for row in np.flatnonzero(~ok).tolist():
        try:
            binds[row] = _bind_blocks(batch, picked, row, encoding)
        except Error as exc:
            return ImageBatch(buf, starts[:row], lengths[:row], binds, dense), exc
    return ImageBatch(buf, starts, lengths, binds, dense), None


def reference_items(source: Any, order: list[int] | None, count: int, put: InsertCursor,
                    encoding: str) -> Iterator[Any]:
    """The plain path: ``InsertCursor.item`` on each row's Python values."""
    picked, batches = checked_batches(source, order, count, put.types)
    for batch in batches:
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
    for k, (i, value) in enumerate(zip(picked, values)):
        try:        # NULLs before it: its error says "parameter k + 1", as the row's would
            st.encode_params([None] * k + [value], None, k + 1, encoding)
        except Error as exc:
            raise DataError(f"column {batch.schema.names[i]!r}: {exc}") from None
    raise DataError(f"row {row} cannot be bound")    # not reached: some value failed


def _row_values(batch, picked: list[int], row: int) -> list[Any]:
    """One row's Python values; a value Python cannot hold (a date32 past
    9999, say) is a DataError naming its column."""
    values = []
    for i in picked:
        try:
            values.append(python_value(batch.column(i), row))
        except NO_VALUE_ERRORS as exc:
            raise no_value_error(batch.schema.names[i], row, exc) from None
    return values


def _images(np, columns: list[Cells], n: int) -> tuple[Any, Any, Any, bool]:
    """Every row's image in one buffer, where each starts, its length, and
    whether the images are dense (``_dense_images``); else each has
    put_requests' room beside it (HEADROOM bytes before it, one after it).

    Row r's image starts at r * stride + HEADROOM, the stride holding the
    room and the columns' widest cells, so a column's padded cells
    (put_cells.Cells) go in as whole items (a void dtype of the cell
    matrix's width, copied by numpy one memcpy an item): through a strided
    view while every column before it is fixed width, else through a view
    with an item at every byte, indexed by each row's offset.  A padded row
    runs past its cell into the columns after it, which are written later,
    and never past its own row."""
    widths = [_width(c) for c in columns]
    row_len = np.add.reduce([c.lengths for c in columns])
    fixed = [_fixed_length(c) for c in columns]
    if None not in fixed:
        return _dense_images(np, columns, n, fixed, row_len)
    if n * sum(widths) > _GAPPED_LIMIT * int(row_len.sum()) + (1 << 16):
        return _packed_images(np, columns, n, row_len)
    stride = HEADROOM + sum(widths) + 1
    buf = np.empty(n * stride, dtype=np.uint8)
    starts = np.arange(n, dtype=np.int64) * stride + HEADROOM
    offset, at = HEADROOM, None
    for c, width in zip(columns, widths):
        if c.padded is None:
            if at is None:
                at = starts + (offset - HEADROOM)
            buf[_spread(np, at, c.lengths)] = c.flat
            at += c.lengths
            continue
        _put_rows(np, buf, c, n, stride, offset, at)
        if at is None and (c.lengths == width).all():
            offset += width
            continue
        if at is None:
            at = starts + (offset - HEADROOM)
        at += c.lengths
    return buf, starts, row_len, False


def _fixed_length(c: Cells) -> int | None:
    """The length every cell of the column has, or None."""
    first = int(c.lengths[0])
    return first if (c.lengths == first).all() else None


def _dense_images(np, columns: list[Cells], n: int, fixed: list[int],
                  row_len) -> tuple[Any, Any, Any, bool]:
    """Images of one length end to end, each odd one's pad byte zeroed: a
    column's cells go in as items of its cell length (a strided void view
    of its cell matrix, no copy), so nothing runs past its cell."""
    total = sum(fixed)
    stride = total + (total & 1)
    buf = np.empty(n * stride, dtype=np.uint8)
    offset = 0
    for c, length in zip(columns, fixed):
        if length:
            cells = c.padded if c.padded is not None else c.flat.reshape(n, length)
            if cells.strides[1] != 1:
                cells = np.ascontiguousarray(cells)
            item = np.dtype((np.void, length))
            np.ndarray((n,), item, buf, offset, (stride,))[...] = \
                cells[:, :length].view(item)[:, 0]
        offset += length
    if stride > total:
        buf.reshape(n, stride)[:, total] = 0
    return buf, np.arange(n, dtype=np.int64) * stride, row_len, True


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


def _packed_images(np, columns: list[Cells], n: int, row_len) -> tuple[Any, Any, Any, bool]:
    """The images end to end, each with its room (HEADROOM before, the pad
    of an odd one after), each column's cells placed by a byte index."""
    slots = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(HEADROOM + row_len + (row_len & 1), out=slots[1:])
    buf = np.empty(int(slots[-1]), dtype=np.uint8)
    starts = slots[:-1] + HEADROOM
    at = starts.copy()
    for c in columns:
        buf[_spread(np, at, c.lengths)] = flat_of(np, c)
        at += c.lengths
    return buf, starts, row_len, False


def _spread(np, starts, lengths):
    """Indices start[r] .. start[r] + lengths[r] - 1 for every r, end to end."""
    total = int(lengths.sum())
    before = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=before[1:])
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)
