"""Loading Arrow data: ``executemany(sql, table)`` and ``load_arrow``.

Sources: a ``pyarrow.Table``, ``RecordBatch``, ``RecordBatchReader``, or any
object with ``__arrow_c_stream__`` (polars and pandas-through-pyarrow
frames, DuckDB results).  Rows never become Python tuples: each record
batch is cut into slices of at most ``SLICE_ROWS`` rows, and each slice is
encoded a column at a time into SQ_BIND parameter blocks -- with numpy for
the fixed-width types (integers, floats, dates, booleans), per value for the
rest -- and a row's blocks are joined only to build its request.

The blocks are exactly what a tuple row sends for the Python value of
each cell (``codec.encode_param``; ``cell_binder`` names the two Arrow
types whose Python value differs from a tuple row's; ``reference_rows`` is
that plain path, and a differential test holds the two byte for byte), so
a load from Arrow and a load of the same rows as tuples store the same
values.  A column whose Arrow type cannot load into its column
(load_types.py) is refused before any row is sent.  A cell that cannot be
bound, or has no Python value (cell_values.py: the fast paths check their
range by a min/max over the column instead), is a DataError naming its
column and row; rows before it are sent first, so
``executemany``'s contract holds: exactly the rows before ``row_index``
are applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..codec.lob import lob_block
from ..codec.params import encode_param
from ..codec.scalars import EPOCH_ORDINAL, IntervalYM
from ..codec.typeinfo import ColumnType
from ..errors import DataError, Error, ProgrammingError
from ._deps import load
from .cell_values import NoPythonValue, column_values, no_value_error
from .civil import FIRST_DAY, LAST_DAY
from .load_types import family, load_type_error

SLICE_ROWS = 8192   # 4,096 / 8,192 / 16,384 measured: bench/README.md (branch s24d)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?\Z")
# Informix day numbers count from 1899-12-31; Arrow's date32 from 1970-01-01.
_DATE_SHIFT = 719163 - EPOCH_ORDINAL
_INTEGER_HEAD = bytes.fromhex("0002 0000 0a00")      # INTEGER, indicator 0, prec 0x0A00
_BIGINT_HEAD = bytes.fromhex("0034 0000 1300")       # BIGINT, prec 0x1300
_FLOAT_HEAD = bytes.fromhex("0003 0000 0000")        # FLOAT
_DATE_HEAD = bytes.fromhex("0007 0000 0000")         # DATE


def is_arrow_source(obj: Any) -> bool:
    """Arrow data (checked without importing pyarrow)."""
    if hasattr(obj, "__arrow_c_stream__"):
        return True
    cls = type(obj)
    return cls.__module__.startswith("pyarrow") and cls.__name__ in (
        "Table", "RecordBatch", "RecordBatchReader")


def record_batches(source: Any) -> Iterator[Any]:
    """The source's record batches, each cut to at most SLICE_ROWS rows."""
    _, pa = load()
    if isinstance(source, pa.Table):
        batches = source.to_batches(max_chunksize=SLICE_ROWS)
    elif isinstance(source, pa.RecordBatch):
        batches = [source]
    elif isinstance(source, pa.RecordBatchReader):
        batches = source
    else:
        batches = pa.RecordBatchReader.from_stream(source)
    for batch in batches:
        for offset in range(0, batch.num_rows, SLICE_ROWS):
            yield batch.slice(offset, SLICE_ROWS)


def checked_batches(source: Any, order: list[int] | None, count: int,
                    targets: Sequence[ColumnType | None] | None
                    ) -> tuple[list[int], Iterator[Any]]:
    """Which column feeds each marker, and the source's batches
    (``record_batches``), once the source's schema has passed the load type
    check (load_types.py): a column of the wrong type is refused before a
    first batch is read, however many rows the source has (none included)."""
    _, pa = load()
    if not isinstance(source, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        source = pa.RecordBatchReader.from_stream(source)
    picked = column_order(source.schema.names, order, count)
    refused = load_type_error(source.schema, picked, targets)
    if refused is not None:
        raise refused
    return picked, record_batches(source)


def column_order(names: Sequence[str], order: list[int] | None, count: int) -> list[int]:
    """Which column feeds each ``?`` (``order`` maps ``:N`` markers to columns)."""
    wanted = list(range(count)) if order is None else list(order)
    if order is None and len(names) != count:
        raise ProgrammingError(f"the statement has {count} parameter markers but the Arrow "
                               f"data has {len(names)} columns")
    for index in wanted:
        if index >= len(names):
            raise ProgrammingError(f"parameter :{index + 1} has no column: the Arrow data "
                                   f"has {len(names)} columns")
    return wanted


class Unencodable(Exception):
    """Cell ``row`` of a slice cannot be bound (see executemany.Unencodable)."""

    def __init__(self, error: Error, row: int) -> None:
        super().__init__(error)
        self.error, self.row = error, row


def encoded_rows(source: Any, order: list[int] | None, count: int,
                 unencodable: type[Exception], encoding: str = "iso-8859-1",
                 targets: Sequence[ColumnType | None] | None = None
                 ) -> Iterator[tuple[bytes, ...]]:
    """Each row's parameter blocks, encoded a column at a time.  A cell that
    cannot be bound ends the rows just before its row with ``unencodable``
    (the executemany row source's exception type) carrying its DataError;
    a column whose type cannot load into its target (``targets``, the
    described column of each marker: load_types.py) raises it before the
    first row.  Text goes in ``encoding``, the session's code set, as tuple
    rows do."""
    np, _ = load()
    try:
        picked, batches = checked_batches(source, order, count, targets)
    except DataError as refused:
        raise unencodable(refused) from None
    for batch in batches:
        columns: list[list[bytes]] = []
        first_bad, error = batch.num_rows, None
        for index in picked:
            try:
                columns.append(encode_column(np, batch.column(index),
                                             batch.schema.names[index], encoding))
            except Unencodable as bad:
                if bad.row < first_bad:
                    first_bad, error = bad.row, bad.error
                columns.append([])
        if error is not None:
            yield from zip(*_encode_prefix(np, batch, picked, first_bad, encoding))
            raise unencodable(error)
        yield from zip(*columns)


def _encode_prefix(np, batch, picked: list[int], rows: int,
                   encoding: str) -> list[list[bytes]]:
    """The rows of a slice before its first bad cell, encoded again alone."""
    if rows == 0:
        return [[] for _ in picked]
    head = batch.slice(0, rows)
    return [encode_column(np, head.column(i), head.schema.names[i], encoding)
            for i in picked]


def encode_column(np, array, name: str, encoding: str = "iso-8859-1") -> list[bytes]:
    """One column's parameter blocks, as ``encode_param`` makes them."""
    kind = str(array.type)
    fast = _FAST.get(kind)
    try:
        if fast is not None and array.null_count == 0:
            return fast(np, array)
        values = column_values(array)
    except Unencodable as bad:
        raise Unencodable(DataError(f"column {name!r}: {bad.error}"), bad.row) from None
    except NoPythonValue as bad:
        raise Unencodable(no_value_error(name, bad.row, bad.reason), bad.row) from None
    bind = cell_binder(array.type)
    out = []
    for row, value in enumerate(values):
        try:
            out.append(bind(value, encoding))
        except DataError as exc:
            raise Unencodable(DataError(f"column {name!r}: {exc}"), row) from None
    return out


def cell_binder(atype) -> Callable[[Any, str], bytes]:
    """How one cell of an Arrow type is bound: its Python value through
    ``encode_param``, but for the two types whose Python value is not what
    the tuple paths bind for their column (load_types.py says which
    columns): a month_day_nano_interval (a (months, days, ns) tuple) as
    an ``IntervalYM``, binary as a BYTE parameter (codec.lob, as bytes in a
    tuple row go)."""
    _, pa = load()
    kind = family(pa, atype)
    if kind == "month interval":
        return _bind_months
    if kind == "binary":
        return _bind_bytes
    return encode_param


def _bind_months(value: Any, encoding: str) -> bytes:
    if value is None:
        return encode_param(None, encoding)
    if value.days or value.nanoseconds:
        raise DataError(f"{value} has days or nanoseconds, and a year-month INTERVAL "
                        "holds whole months only")
    return encode_param(IntervalYM(value.months), encoding)


def _bind_bytes(value: Any, encoding: str) -> bytes:
    block = None if value is None else lob_block(value, encoding)
    return encode_param(None, encoding) if block is None else block


def _fixed(np, head: bytes, data, width: int) -> list[bytes]:
    """Blocks of ``head`` + each big-endian value, cut from one buffer."""
    n = len(data)
    size = len(head) + width
    block = np.empty((n, size), dtype=np.uint8)
    block[:, :len(head)] = np.frombuffer(head, dtype=np.uint8)
    block[:, len(head):] = data.view(np.uint8).reshape(n, width)
    blob = block.tobytes()
    return [blob[k:k + size] for k in range(0, n * size, size)]


def _ints(np, array) -> list[bytes]:
    values = array.to_numpy(zero_copy_only=False).astype(np.int64)
    # -2**31 is INTEGER's NULL: encode_param sends it as BIGINT.
    small = (values > -0x80000000) & (values <= 0x7FFFFFFF)
    if small.all():
        return _fixed(np, _INTEGER_HEAD, values.astype(">i4"), 4)
    if (values == -0x8000000000000000).any():
        raise Unencodable(DataError("-9223372036854775808 overflows BIGINT"),
                          int(np.argmax(values == -0x8000000000000000)))
    wide = _fixed(np, _BIGINT_HEAD, values.astype(">i8"), 8)
    narrow = _fixed(np, _INTEGER_HEAD, values.astype(">i4"), 4)
    return [n if s else w for n, w, s in zip(narrow, wide, small.tolist())]


def _floats(np, array) -> list[bytes]:
    return _fixed(np, _FLOAT_HEAD, array.to_numpy(zero_copy_only=False).astype(">f8"), 8)


def _dates(np, array) -> list[bytes]:
    """DATE blocks; a day outside 0001-01-01..9999-12-31 (Python's dates,
    and Informix's: the emulator drops a session sent one) is refused at
    its row, found by one min/max over the column."""
    days = array.cast("int32").to_numpy(zero_copy_only=False).astype(np.int64)
    if len(days) and (days.min() < FIRST_DAY or days.max() > LAST_DAY):
        row = int(np.argmax((days < FIRST_DAY) | (days > LAST_DAY)))
        raise NoPythonValue(row, ValueError(f"date32 day {days[row]} is outside "
                                            "0001-01-01..9999-12-31"))
    return _fixed(np, _DATE_HEAD, (days + _DATE_SHIFT).astype(">i4"), 4)


_FAST = {"int8": _ints, "int16": _ints, "int32": _ints, "int64": _ints, "uint8": _ints,
         "uint16": _ints, "uint32": _ints, "float": _floats, "double": _floats,
         "date32[day]": _dates}


def reference_rows(source: Any, order: list[int] | None, count: int,
                   encoding: str = "iso-8859-1",
                   targets: Sequence[ColumnType | None] | None = None
                   ) -> Iterator[list[bytes]]:
    """The plain path: each cell as a Python value through ``cell_binder``."""
    picked, batches = checked_batches(source, order, count, targets)
    for batch in batches:
        binders = [cell_binder(batch.schema.field(i).type) for i in picked]
        for row in batch.to_pylist():
            values = list(row.values())
            yield [bind(values[i], encoding) for i, bind in zip(picked, binders)]


def insert_statement(table: str, names: Sequence[str]) -> str:
    """``INSERT INTO table (names) VALUES (?, ...)`` for ``load_arrow``; the
    names are checked as identifiers (they are SQL, never data)."""
    for name in [table, *names]:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ProgrammingError(f"{name!r} is not an identifier load_arrow can use")
    if not names:
        raise ProgrammingError("load_arrow needs at least one column")
    return (f"INSERT INTO {table} ({', '.join(names)}) "
            f"VALUES ({', '.join('?' * len(names))})")


def select_columns(source: Any, columns: Sequence[str]) -> Any:
    """The source with only ``columns``, in that order (a reader for streams)."""
    _, pa = load()
    if isinstance(source, (pa.Table, pa.RecordBatch)):
        missing = [c for c in columns if c not in source.schema.names]
        if missing:
            raise ProgrammingError(f"the Arrow data has no column {missing[0]!r}")
        return source.select(list(columns))
    reader = source if isinstance(source, pa.RecordBatchReader) else \
        pa.RecordBatchReader.from_stream(source)
    missing = [c for c in columns if c not in reader.schema.names]
    if missing:
        raise ProgrammingError(f"the Arrow data has no column {missing[0]!r}")
    schema = pa.schema([reader.schema.field(c) for c in columns])
    return pa.RecordBatchReader.from_batches(
        schema, (batch.select(list(columns)) for batch in reader))


def source_names(source: Any) -> list[str]:
    """Column names of an Arrow source without consuming it."""
    _, pa = load()
    if isinstance(source, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        return list(source.schema.names)
    schema = getattr(source, "schema", None)
    if schema is not None and hasattr(schema, "names"):
        return list(schema.names)
    raise ProgrammingError("give load_arrow the column names (columns=...) for this source")
