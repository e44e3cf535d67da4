"""executemany through an insert cursor: OPEN, SQ_PUT blocks of row images.

The other send strategy beside ``executemany.BindExecute``.  A prepared
``INSERT ... VALUES (?, ...)`` whose DESCRIBE reports one column per marker
(as IBM's JDBC driver requires before it uses PUT) is opened as an insert
cursor; each row becomes a row image in SQ_TUPLE's format for those
columns, and consecutive images of one length travel as one SQ_PUT.  A
request is ``SQ_ID, SQ_CURNAME, SQ_OPEN, SQ_PUT...`` of at most
``PUT_BLOCK_BYTES``; a chunk is several such requests, pipelined.

A value is put only when its column takes it without a conversion the
server would do differently (the Python type of the column, in range, a
string that fits, a DECIMAL needing no rounding); any other row goes as
its own BIND+EXECUTE request in the same chunk, so the server decides
about it exactly as on the bind path.

Which row failed: the server inserts a block's rows in order and on a
failure answers SQ_PUTERR with how many rows of that block went in before
it; the rest of the block is discarded (ESQL/C sqlerrd[2]; docs/protocol.md).
So the failing row is the block's first row plus the rows its SQ_DONEs and
SQ_PUTERR counted, and the executemany contract (rows[:k] applied, the
chunk rolled back and replayed; ``batch_errors``; ``applied_after``) is
kept exactly as on the bind path -- ``executemany.Plan`` does the replay.
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .codec.colencode import make_batch_encoder
from .codec.rowencode import make_row_encoder
from .codec.typeinfo import ColumnType, TypeCode
from .core import requests as rq
from .core import statement as st
from .errors import Error, NotSupportedError
from .framing import Writer
from .messages import StmtType, Tag

# One request's PUT data: about what IBM's JDBC driver sends before it waits
# for an answer (its fetch buffer size), so a real server's insert buffer
# is never asked for more than a client of its own would send.
PUT_BLOCK_BYTES = 32 * 1024
MAX_PUT_ROWS = 0x7FFF        # SQ_PUT's row count is a short
_PUT_HEAD = struct.Struct("!hih")
CURSOR_NAME = b"_ifxs_put"

_INT_RANGE = {TypeCode.SMALLINT: 2**15 - 1, TypeCode.INTEGER: 2**31 - 1, TypeCode.SERIAL: 2**31 - 1,
              TypeCode.INT8: 2**63 - 1, TypeCode.SERIAL8: 2**63 - 1, TypeCode.BIGINT: 2**63 - 1,
              TypeCode.BIGSERIAL: 2**63 - 1}
_TEXT = {TypeCode.CHAR, TypeCode.VARCHAR, TypeCode.NCHAR, TypeCode.NVARCHAR}


def _int_check(limit: int) -> Callable[[Any], bool]:
    # the smallest value of each width is its NULL in a row image
    return lambda v: type(v) is int and -limit <= v <= limit


def _float_check(v: Any) -> bool:
    return type(v) is float and v == v


def _text_check(width: int, encoding: str) -> Callable[[Any], bool]:
    def check(v: Any) -> bool:
        if type(v) is not str or len(v) > width:
            return False
        try:
            return len(v.encode(encoding)) <= width
        except UnicodeEncodeError:
            return False          # the bind path refuses it with a DataError
    return check


def _decimal_check(ctype: ColumnType) -> Callable[[Any], bool]:
    precision, scale = ctype.precision, ctype.scale

    def check(v: Any) -> bool:
        if type(v) is not decimal.Decimal or not v.is_finite():
            return False
        sign, digits, exp = v.as_tuple()
        if scale is None:
            return len(digits) <= precision
        return exp >= -scale and len(digits) + exp + scale <= precision
    return check


def _date_check(v: Any) -> bool:
    return type(v) is datetime.date


def _datetime_check(v: Any) -> bool:
    return type(v) is datetime.datetime and v.tzinfo is None


def value_check(ctype: ColumnType, encoding: str) -> Callable[[Any], bool] | None:
    """Whether a value can go into a row image of this column as the server
    would store it; None for a column type the insert cursor does not send."""
    code = ctype.code
    if code in _INT_RANGE:
        return _int_check(_INT_RANGE[code])
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return _float_check if code is TypeCode.FLOAT else None
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimal_check(ctype)
    if code in _TEXT:
        return _text_check(ctype.length if code in (TypeCode.CHAR, TypeCode.NCHAR)
                           else ctype.length & 0xFF, encoding)
    if code is TypeCode.DATE:
        return _date_check
    if code is TypeCode.DATETIME and ctype.start == 0 and ctype.end >= 10 \
            and ctype.fraction_digits == 0:
        # YEAR TO SECOND only: IBM's JDBC driver encodes other qualifiers
        # differently for PUT (IfxDateTime.toIfx), so they take the bind path.
        return _datetime_check
    if code is TypeCode.BOOLEAN:
        return lambda v: type(v) is bool
    return None


class Blocks(list):
    """A chunk's requests, with what each holds: ``counts[i]`` rows starting
    at row ``starts[i]``; ``items`` is every row's image (bytes) or bind
    blocks (list), so any part of the chunk can be sent again."""

    def __init__(self, requests: list[bytes], counts: list[int], items: list) -> None:
        super().__init__(requests)
        self.counts = counts
        self.items = items


class InsertCursor:
    """The strategy: rows -> row images -> PUT requests (bind for the odd row)."""

    def __init__(self, stmt_id: int, types: list[ColumnType], checks: list,
                 encoding: str, bind_request: Callable[[list[bytes]], bytes]) -> None:
        self.types = types
        self.encode = make_row_encoder(types, encoding)
        self.encode_batch = make_batch_encoder(types, checks, encoding)
        self.checks = checks
        self.bind_request = bind_request
        self.head = (rq.statement_id(stmt_id) + Writer().short(Tag.CURNAME)
                     .short_string(CURSOR_NAME).short(Tag.OPEN).getvalue())

    def item(self, params: Sequence[Any], order, count: int, encoding: str):
        """One row: its image when every value fits, else its bind blocks."""
        if not isinstance(order, tuple) and order is None and len(params) == count:
            try:
                if all(v is None or ok(v) for ok, v in zip(self.checks, params)):
                    return self.encode(params)
            except Error:
                pass
        return st.encode_params(params, order, count, encoding)

    def batch_items(self, rows: list, order, count: int, encoding: str) -> Iterator[Any]:
        """``item`` of each row, in order: images made a column at a time
        (codec.colencode), any row it declines by ``item`` itself."""
        images = [None] * len(rows)
        if order is None:
            try:
                images = self.encode_batch(rows)
            except Exception:  # noqa: BLE001 - a bug there costs speed, not rows:
                pass           # the reference takes every row (the differential test guards)
        for params, image in zip(rows, images):
            yield self.item(params, order, count, encoding) if image is None else image

    def requests(self, items: list) -> tuple[list[bytes], list[int]]:
        """The requests carrying ``items`` in order, and their row counts."""
        out: list[bytes] = []
        counts: list[int] = []
        i, n = 0, len(items)
        while i < n:
            item = items[i]
            if type(item) is not bytes:
                out.append(self.bind_request(item))
                counts.append(1)
                i += 1
                continue
            parts, size, start = [self.head], 0, i
            while i < n and type(items[i]) is bytes and size < PUT_BLOCK_BYTES:
                width = len(items[i])
                j = i
                while (j < n and type(items[j]) is bytes and len(items[j]) == width
                       and j - i < MAX_PUT_ROWS and size < PUT_BLOCK_BYTES):
                    size += width + (width & 1)
                    j += 1
                parts.append(_PUT_HEAD.pack(Tag.PUT, width, j - i))
                pad = b"\x00" if width & 1 else b""
                parts.append((pad.join(items[i:j]) + pad) if pad else b"".join(items[i:j]))
                i = j
            out.append(b"".join(parts))
            counts.append(i - start)
        return out, counts


def put_plan(prepared: st.Prepared, encoding: str, bind_request) -> InsertCursor | None:
    """The insert cursor for a prepared statement, or None when it cannot
    use one (not an INSERT of one marker per described column, or a column
    type the insert cursor does not send)."""
    d = prepared.describe
    if d.stmt_type != StmtType.INSERT or not d.columns or len(d.columns) != prepared.markers:
        return None
    try:
        types = st.column_types(prepared)
    except NotSupportedError:
        return None
    checks = [value_check(t, encoding) for t in types]
    if any(c is None for c in checks):
        return None
    return InsertCursor(prepared.stmt_id, types, checks, encoding, bind_request)


class BadRow(Exception):
    """An item source's row that cannot be bound at all: carries its PEP 249
    error (a failing source raises its own exception instead)."""

    def __init__(self, error: Error) -> None:
        super().__init__(error)
        self.error = error


def chunks(rows: Iterable[Sequence[Any]], put: InsertCursor, order, count: int,
           encoding: str, chunk_size: int, chunk_bytes: int, unencodable,
           start: int = 0) -> Iterator[tuple[int, Blocks]]:
    """(first row, Blocks) per chunk of Python rows (see ``item_chunks``).

    Rows are read in batches of at most ``BATCH_ROWS`` that end where a
    chunk of ``chunk_size`` rows ends, so the source is read no further
    ahead than the chunk being built (when ``chunk_bytes`` ends a chunk
    earlier, at most one batch further); a batch is encoded a column at a
    time.  When the source fails, the rows it gave are sent first, then its
    error goes on; a row that cannot be encoded ends the batch there.
    """
    def items() -> Iterator[Any]:
        source, index = iter(rows), start
        while True:
            batch: list = []
            want = min(BATCH_ROWS, chunk_size - (index - start) % chunk_size)
            failure: BaseException | None = None
            try:
                for params in source:
                    batch.append(params)
                    if len(batch) >= want:
                        break
            except BaseException as exc:   # sent after the rows before it
                failure = exc
            try:
                yield from put.batch_items(batch, order, count, encoding)
            except Error as exc:
                raise BadRow(exc) from exc.__cause__
            index += len(batch)
            if failure is not None:
                raise failure
            if len(batch) < want:
                return
    return item_chunks(items(), put, chunk_size, chunk_bytes, unencodable, start)


# Rows a batch of ``chunks`` reads and encodes together: enough that a
# column's C-level passes amortise, few enough to keep a batch in cache.
BATCH_ROWS = 1024


def item_chunks(items: Iterator[Any], put: InsertCursor, chunk_size: int, chunk_bytes: int,
                unencodable, start: int = 0) -> Iterator[tuple[int, Blocks]]:
    """(first row, Blocks) per chunk of items (row images or bind blocks);
    like ``executemany.chunk``, rows before a bad row (``BadRow``) or a
    failing source are sent first, then ``unencodable(error, row index)``
    or the source's exception is raised."""
    chunk: list = []
    size, first, index = 0, start, start

    def flush():
        return first, Blocks(*put.requests(chunk), chunk)
    while True:
        try:
            item = next(items)
        except StopIteration:
            break
        except BadRow as bad:
            if chunk:
                yield flush()
            raise unencodable(bad.error, index) from bad.error.__cause__
        except BaseException:
            if chunk:
                yield flush()
            raise
        chunk.append(item)
        size += len(item) if type(item) is bytes else sum(map(len, item))
        index += 1
        if len(chunk) >= chunk_size or size >= chunk_bytes:
            yield flush()
            chunk, size, first = [], 0, index
    if chunk:
        yield flush()
