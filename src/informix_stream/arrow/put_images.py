"""Arrow record batches -> insert-cursor row images, a column at a time.

executemany's insert cursor (insert_cursor.py) sends each row as a row image
in SQ_TUPLE's layout.  Built from Python values that costs a ``Decimal`` and
a ``datetime`` per cell; built from Arrow it needs neither: each column's
cells are computed with numpy straight from the Arrow buffers (integers,
floats, dates, timestamps, decimal128 up to 18 digits, strings), scattered
into one buffer holding every row's image, and each image is one slice of it.

A row is put only where ``InsertCursor.item`` would put it: every cell
passes the column's value check (insert_cursor.value_check).  Any other row
goes as bind blocks, so the server decides about it as on the bind path.  A
column with no numpy rule here takes each value's Python form and the
column's cell encoder, the way ``InsertCursor.item`` does.

``reference_items`` is the plain path: ``InsertCursor.item`` on each row's
Python values.  tests/test_arrow_put.py holds the two to the same bytes over
hypothesis-generated batches; bench/throughput/ingest_compare.py measures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..codec.rowencode import make_row_encoder
from ..codec.scalars import EPOCH_ORDINAL, INT_NULL, bcd_head, temporal_exponent
from ..codec.typeinfo import VARCHAR_CODES, ColumnType, TypeCode
from ..core import statement as st
from ..errors import DataError, Error
from ..insert_cursor import InsertCursor
from . import base100, civil
from ._deps import load
from .ingest import column_order, record_batches, zoned_column_error

_DATE_SHIFT = 719163 - EPOCH_ORDINAL          # date32 day 0 (1970-01-01) as an Informix day
_MIN_DATE32, _MAX_DATE32 = -719162, 2932896   # 0001-01-01 and 9999-12-31 (Python's range)
_INT_CODES = {TypeCode.SMALLINT: ">i2", TypeCode.INTEGER: ">i4", TypeCode.SERIAL: ">i4",
              TypeCode.BIGINT: ">i8", TypeCode.BIGSERIAL: ">i8"}
_TEXT_CODES = {TypeCode.CHAR, TypeCode.NCHAR, *VARCHAR_CODES}
_SECONDS_PER = {"s": 1, "ms": 1_000, "us": 1_000_000}


class Cells(NamedTuple):
    """One column's cells for a batch: their bytes end to end, each cell's
    length, and whether each row's value may be put (checked as the insert
    cursor checks it)."""

    flat: Any       # numpy uint8
    lengths: Any    # numpy int64, one per row
    ok: Any         # numpy bool, one per row


def put_items(source: Any, order: list[int] | None, count: int, put: InsertCursor,
              encoding: str, unencodable: type[Exception]) -> Iterator[Any]:
    """Each row's insert-cursor item (its image, or its bind blocks), built a
    column at a time.  A row that cannot be bound at all ends the items just
    before it with ``unencodable(error)``."""
    np, _ = load()
    picked: list[int] | None = None
    for batch in record_batches(source):
        if picked is None:
            picked = column_order(batch.schema.names, order, count)
            zoned = zoned_column_error(batch.schema, picked)
            if zoned is not None:
                raise unencodable(zoned)
        yield from batch_items(np, batch, picked, put, encoding, unencodable)


def batch_items(np, batch, picked: list[int], put: InsertCursor, encoding: str,
                unencodable: type[Exception]) -> Iterator[Any]:
    """The items of one record batch, in row order."""
    n = batch.num_rows
    if n == 0:
        return
    columns = [column_cells(np, batch.column(i), ctype, check, encoding)
               for i, ctype, check in zip(picked, put.types, put.checks)]
    ok = np.logical_and.reduce([c.ok for c in columns])
    blob, starts = _images(np, columns, n)
    if ok.all():
        yield from map(blob.__getitem__, map(slice, starts[:-1].tolist(), starts[1:].tolist()))
        return
    bounds = starts.tolist()
    for row, good in enumerate(ok.tolist()):
        if good:
            yield blob[bounds[row]:bounds[row + 1]]
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


def _images(np, columns: list[Cells], n: int) -> tuple[bytes, Any]:
    """Every row's image in one buffer, and where each starts (n + 1 bounds)."""
    row_len = np.add.reduce([c.lengths for c in columns])
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(row_len, out=starts[1:])
    buf = np.empty(int(starts[-1]), dtype=np.uint8)
    at = starts[:-1].copy()
    for c in columns:
        buf[_spread(np, at, c.lengths)] = c.flat
        at += c.lengths
    return buf.tobytes(), starts


def _spread(np, starts, lengths):
    """Indices start[r] .. start[r] + lengths[r] - 1 for every r, end to end."""
    total = int(lengths.sum())
    before = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=before[1:])
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)


# -- one column ---------------------------------------------------------------

def column_cells(np, array, ctype: ColumnType, check: Callable[[Any], bool],
                 encoding: str) -> Cells:
    """A column's cells by its numpy rule, or value by value without one."""
    rule = _rule(array.type, ctype, encoding)
    if rule is not None:
        return rule(np, array, ctype)
    return _python_cells(np, array, ctype, check, encoding)


def _rule(atype, ctype: ColumnType, encoding: str):
    import pyarrow as pa
    code = ctype.code
    t = pa.types
    if code in _INT_CODES and t.is_integer(atype) and atype != pa.uint64():
        return _int_cells
    if code is TypeCode.FLOAT and t.is_floating(atype) and atype != pa.float16():
        return _float_cells
    if code is TypeCode.DATE and atype == pa.date32():
        return _date_cells
    if code is TypeCode.DATETIME and t.is_timestamp(atype) and atype.tz is None \
            and atype.unit in _SECONDS_PER:
        return _datetime_cells             # value_check admits YEAR TO SECOND only
    if code in (TypeCode.DECIMAL, TypeCode.MONEY) and t.is_decimal128(atype) \
            and ctype.scale is not None and ctype.precision <= 18 and atype.precision <= 18:
        return _decimal_cells
    if code in _TEXT_CODES and (t.is_string(atype) or t.is_large_string(atype)) \
            and _ascii_compatible(encoding):
        return lambda np, array, ctype: _text_cells(np, array, ctype, encoding)
    return None


def _valid(np, array):
    if array.null_count == 0:
        return np.ones(len(array), dtype=bool)
    return array.is_valid().to_numpy(zero_copy_only=False)


def _fixed(np, valid, values, null: bytes) -> Cells:
    """Cells of one width: ``values`` (n, width) uint8, NULL rows as ``null``."""
    n, width = values.shape
    if not valid.all():
        values = values.copy()
        values[~valid] = np.frombuffer(null, dtype=np.uint8)
    return Cells(values.reshape(-1), np.full(n, width, dtype=np.int64),
                 np.ones(n, dtype=bool))


def _numbers(np, array, dtype):
    return array.fill_null(0).to_numpy(zero_copy_only=False).astype(dtype)


def _int_cells(np, array, ctype: ColumnType) -> Cells:
    # the smallest value of each width is its NULL: such a value is not put
    big = _INT_CODES[ctype.code]
    null = INT_NULL[ctype.code]
    values = _numbers(np, array, np.int64)
    valid = _valid(np, array)
    limit = -null - 1
    ok = ~valid | ((values >= -limit) & (values <= limit))
    wide = values.astype(big).view(np.uint8).reshape(len(values), -1)
    cells = _fixed(np, valid, wide, null.to_bytes(wide.shape[1], "big", signed=True))
    return cells._replace(ok=ok)


def _float_cells(np, array, ctype: ColumnType) -> Cells:
    values = _numbers(np, array, np.float64)
    valid = _valid(np, array)
    cells = _fixed(np, valid, values.astype(">f8").view(np.uint8).reshape(-1, 8), b"\xff" * 8)
    return cells._replace(ok=~valid | (values == values))


def _date_cells(np, array, ctype: ColumnType) -> Cells:
    days = _numbers(np, array, np.int64)
    valid = _valid(np, array)
    ok = ~valid | ((days >= _MIN_DATE32) & (days <= _MAX_DATE32))
    ints = (days + _DATE_SHIFT).astype(">i4").view(np.uint8).reshape(-1, 4)
    return _fixed(np, valid, ints, b"\x80\x00\x00\x00")._replace(ok=ok)


def _datetime_cells(np, array, ctype: ColumnType) -> Cells:
    """DATETIME YEAR TO SECOND: head, then the pairs yy yy mm dd hh mi ss;
    the date by civil.py's tables."""
    ticks = _numbers(np, array, np.int64)
    valid = _valid(np, array)
    seconds = np.floor_divide(ticks, _SECONDS_PER[array.type.unit])
    days = np.floor_divide(seconds, 86400)
    clock = seconds - days * 86400
    ok = ~valid | ((days >= civil.FIRST_DAY) & (days <= civil.LAST_DAY))
    year, month, day = civil.civil_from_days(np, np.clip(days, civil.FIRST_DAY,
                                                         civil.LAST_DAY))
    hour = clock // 3600
    minutes = clock // 60
    width = ctype.wire_width
    cells = np.zeros((len(ticks), width), dtype=np.uint8)
    cells[:, 0] = bcd_head(temporal_exponent(ctype.length), False)
    century = year // 100
    fields = (century, year - century * 100, month, day, hour, minutes - hour * 60,
              clock - minutes * 60)
    for k, field in enumerate(fields, 1):
        cells[:, k] = field
    return _fixed(np, valid, cells, bytes(width))._replace(ok=ok)


def _decimal_cells(np, array, ctype: ColumnType) -> Cells:
    """DECIMAL(p,s)/MONEY from decimal128 of at most 18 digits: the unscaled
    value at the column's scale, paired in base 100 (scalars.decimal_pairs,
    aligned on the decimal point), complemented when negative."""
    precision, scale = ctype.precision, ctype.scale
    source_scale = array.type.scale
    n = len(array)
    valid = _valid(np, array)
    words = np.frombuffer(array.buffers()[1], dtype="<i8",
                          count=2 * (array.offset + n))[2 * array.offset:].reshape(n, 2)
    low, high = words[:, 0], words[:, 1]
    fits = high == (low >> 63)                         # the high word only extends the sign
    widen = scale - source_scale
    negative = low < 0
    magnitude = np.abs(np.where(fits, low, 0)).astype(np.uint64)
    digits = precision - scale + source_scale          # at most 18 when widen >= 0
    small = magnitude < np.uint64(10 ** min(max(digits, 0), 19))
    ok = ~valid | (fits & (widen >= 0) & (digits >= 1) & small)
    if widen > 0:
        magnitude = magnitude * np.uint64(10 ** widen)
    if scale & 1:
        magnitude = magnitude * np.uint64(10)         # the point falls between pairs
    magnitude = np.where(ok & valid, magnitude, np.uint64(0))
    width = ctype.wire_width
    pairs = width - 1
    # `used` base-100 digits; the number moved left so its first pair
    # leads (its exponent says where the point is), complemented when
    # negative as a number: 100**k - L is scalars.complement of L's pairs
    used = np.zeros(n, dtype=np.int64)
    for j in range(pairs):
        used += magnitude >= np.uint64(100 ** j)
    negative &= used > 0
    if pairs <= 9:
        left = magnitude * base100.pow100(np).take(pairs - used)
        left = np.where(negative, np.uint64(100 ** pairs) - left, left)
        body = base100.pair_bytes(np, left, pairs)
    else:
        body = _ten_pairs(np, magnitude, used, negative)
    exp100 = used - (scale + (scale & 1)) // 2
    biased = (exp100 + 64) & 0x7F
    head = np.where(negative, biased ^ 0x7F, biased | 0x80)
    head = np.where(used > 0, head, 0xC0)              # zero: exponent 0, no pairs
    cells = np.empty((n, width), dtype=np.uint8)
    cells[:, 0] = head
    cells[:, 1:] = body
    return _fixed(np, valid, cells, bytes(width))._replace(ok=ok)


def _ten_pairs(np, magnitude, used, negative):
    """The ten pairs of DECIMAL(18, odd s) (magnitude < 10**19, whose
    left-aligned form would pass uint64): nine pairs and the last one."""
    u = np.uint64
    full = used == 10
    head = np.where(full, magnitude // u(100), magnitude * base100.pow100(np).take(np.clip(9 - used, 0, 9)))
    last = np.where(full, magnitude % u(100), u(0))
    carry = negative & (last == 0)
    head = np.where(negative, np.where(carry, u(100 ** 9), u(100 ** 9 - 1)) - head, head)
    last = np.where(negative & ~carry, u(100) - last, last)
    return np.concatenate([base100.pair_bytes(np, head, 9), last.astype(np.uint8)[:, None]],
                          axis=1)


def _text_cells(np, array, ctype: ColumnType, encoding: str) -> Cells:
    """CHAR/VARCHAR from Arrow strings whose bytes are already the session's:
    UTF-8 sessions take them as they are, other code sets only when every
    byte is ASCII (else the column goes value by value)."""
    n = len(array)
    valid = _valid(np, array)
    offsets_type = np.int64 if str(array.type) == "large_string" else np.int32
    validity, offsets_buf, data_buf = array.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=offsets_type,
                            count=array.offset + n + 1)[array.offset:].astype(np.int64)
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None \
        else np.zeros(0, dtype=np.uint8)
    spans = offsets[1:] - offsets[:-1]
    sizes = np.where(valid, spans, 0)
    code = ctype.code
    width = ctype.length & 0xFF if code in VARCHAR_CODES else ctype.length
    if (spans == sizes).all() and (sizes <= width).all():
        # the common column: NULLs take no bytes and every value fits, so
        # the text is one slice of Arrow's data buffer, placed in one pass
        text = data[offsets[0]:offsets[-1]]
        packed = True
    else:
        text = data[_spread(np, offsets[:-1], sizes)]
        packed = False
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8") and (text >= 0x80).any():
        check = _text_check_of(ctype, encoding)
        return _python_cells(np, array, ctype, check, encoding)
    if code in VARCHAR_CODES:
        return _varchar_cells(np, text, sizes, valid, width)
    lengths = np.full(n, width, dtype=np.int64)
    full = packed and width and len(text) == int(valid.sum()) * width
    if full and len(text) == n * width:
        flat = text.copy()                     # every value fills its cell
    elif full:                                 # so does every non-NULL one
        cells = np.full((n, width), 0x20, dtype=np.uint8)
        cells[valid] = text.reshape(-1, width)
        flat = cells.reshape(-1)
    elif packed:
        # each row's first `size` bytes are its text, the rest blanks
        cells = np.full((n, width), 0x20, dtype=np.uint8)
        cells[np.arange(width)[None, :] < sizes[:, None]] = text
        flat = cells.reshape(-1)
    else:
        ok_sizes = np.minimum(sizes, width)
        flat = np.full(n * width, 0x20, dtype=np.uint8)
        starts = np.arange(n, dtype=np.int64) * width
        kept = _spread(np, offsets[:-1], ok_sizes)
        flat[_spread(np, starts, ok_sizes)] = data[kept]
    flat[np.arange(n, dtype=np.int64)[~valid] * width] = 0
    return Cells(flat, lengths, ~valid | (sizes <= width))


def _varchar_cells(np, text, sizes, valid, width: int) -> Cells:
    """[length byte][bytes] a row, NULL as [1][0]: the text goes to every
    byte that is not a row's first (or a NULL's second) in one masked copy."""
    n = len(sizes)
    lengths = np.where(valid, sizes + 1, 2)
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    flat = np.empty(int(starts[-1] + lengths[-1]) if n else 0, dtype=np.uint8)
    is_text = np.ones(len(flat), dtype=bool)
    is_text[starts] = False
    nulls = starts[~valid] + 1
    is_text[nulls] = False
    flat[is_text] = text
    flat[starts] = np.where(valid, np.minimum(sizes, 255), 1)
    flat[nulls] = 0
    return Cells(flat, lengths, ~valid | (sizes <= width))


def _text_check_of(ctype: ColumnType, encoding: str):
    from ..insert_cursor import value_check
    return value_check(ctype, encoding)


_ASCII = "".join(map(chr, range(128)))


def _ascii_compatible(encoding: str) -> bool:
    """Whether ASCII text is the same bytes in ``encoding`` as in UTF-8."""
    try:
        return _ASCII.encode(encoding) == _ASCII.encode("ascii")
    except (LookupError, UnicodeError):
        return False


def _python_cells(np, array, ctype: ColumnType, check: Callable[[Any], bool],
                  encoding: str) -> Cells:
    """Value by value, as ``InsertCursor.item`` decides: the Python value,
    the column's check, then its cell encoder (an Error means: not put)."""
    encode = make_row_encoder([ctype], encoding)
    cells: list[bytes] = []
    ok: list[bool] = []
    for index in range(len(array)):
        try:
            value = array[index].as_py()
        except (ValueError, OverflowError, ArithmeticError):
            cells.append(b"")
            ok.append(False)
            continue
        cell = b""
        good = value is None or check(value)
        if good:
            try:
                cell = encode((value,))
            except Error:
                good = False
        cells.append(cell)
        ok.append(good)
    return Cells(np.frombuffer(b"".join(cells), dtype=np.uint8),
                 np.fromiter(map(len, cells), dtype=np.int64, count=len(cells)),
                 np.array(ok, dtype=bool))

