"""Loading Arrow data: ``executemany(sql, table)`` and ``load_arrow``.

Sources: a ``pyarrow.Table``, ``RecordBatch``, ``RecordBatchReader``, or any
object with ``__arrow_c_stream__`` (polars and pandas-through-pyarrow
frames, DuckDB results).  Rows never become Python tuples: each record
batch is cut into slices of at most ``SLICE_ROWS`` rows, and each slice is
encoded a column at a time into SQ_BIND parameter blocks -- with numpy for
the fixed-width types (integers, floats, dates, booleans), per value for the
rest -- and a row's blocks are joined only to build its request.

The blocks are exactly what ``codec.encode_param`` sends for the Python
value of each cell (``reference_rows`` is that plain path, and a
differential test holds the two byte for byte), so a load from Arrow and a
load of the same rows as tuples store the same values.  A cell that cannot
be bound is a DataError naming its column; rows before it are sent first,
so ``executemany``'s contract holds: exactly the rows before ``row_index``
are applied.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..codec.params import encode_param
from ..codec.scalars import EPOCH_ORDINAL
from ..errors import DataError, Error, ProgrammingError
from ._deps import load

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


def zoned_column_error(schema, picked: list[int]) -> DataError | None:
    """The error for the first bound timestamp column that has a time zone.

    Such a column is refused whole, before any of its rows is sent, as an
    aware ``datetime`` is refused on the Python paths (scalars.refuse_zone):
    Informix DATETIME has no zone, so storing each cell's wall time would
    file 12:00+02:00 and 12:00-05:00 alike, and choosing a zone is the
    caller's decision.  Its type says so for every row, NULLs included.
    """
    _, pa = load()
    for index in picked:
        atype = schema.field(index).type
        if pa.types.is_timestamp(atype) and atype.tz is not None:
            return DataError(
                f"column {schema.names[index]!r}: an Arrow {atype} column carries a time "
                "zone and Informix DATETIME has none, so it cannot be loaded (dropping the "
                "zone would store 12:00+02:00 and 12:00-05:00 alike); give the wall time "
                "you mean to store: pyarrow.compute.local_timestamp(column) for the wall "
                f"time in {atype.tz}, or column.cast(pyarrow.timestamp({atype.unit!r})) "
                "for UTC wall time")
    return None


class Unencodable(Exception):
    """Cell ``row`` of a slice cannot be bound (see executemany.Unencodable)."""

    def __init__(self, error: Error, row: int) -> None:
        super().__init__(error)
        self.error, self.row = error, row


def encoded_rows(source: Any, order: list[int] | None, count: int,
                 unencodable: type[Exception], encoding: str = "iso-8859-1"
                 ) -> Iterator[tuple[bytes, ...]]:
    """Each row's parameter blocks, encoded a column at a time.  A cell that
    cannot be bound ends the rows just before its row with ``unencodable``
    (the executemany row source's exception type) carrying its DataError.
    Text goes in ``encoding``, the session's code set, as tuple rows do."""
    np, _ = load()
    picked: list[int] | None = None
    for batch in record_batches(source):
        if picked is None:
            picked = column_order(batch.schema.names, order, count)
            zoned = zoned_column_error(batch.schema, picked)
            if zoned is not None:
                raise unencodable(zoned)
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
    if fast is not None and array.null_count == 0:
        try:
            return fast(np, array)
        except Unencodable as bad:
            raise Unencodable(DataError(f"column {name!r}: {bad.error}"), bad.row) from None
    values = array.to_pylist()
    out = []
    for row, value in enumerate(values):
        try:
            out.append(encode_param(value, encoding))
        except DataError as exc:
            raise Unencodable(DataError(f"column {name!r}: {exc}"), row) from None
    return out


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
    days = array.cast("int32").to_numpy(zero_copy_only=False).astype(np.int64) + _DATE_SHIFT
    return _fixed(np, _DATE_HEAD, days.astype(">i4"), 4)


_FAST = {"int8": _ints, "int16": _ints, "int32": _ints, "int64": _ints, "uint8": _ints,
         "uint16": _ints, "uint32": _ints, "float": _floats, "double": _floats,
         "date32[day]": _dates}


def reference_rows(source: Any, order: list[int] | None, count: int,
                   encoding: str = "iso-8859-1") -> Iterator[list[bytes]]:
    """The plain path: each cell as a Python value through ``encode_param``."""
    for batch in record_batches(source):
        picked = column_order(batch.schema.names, order, count)
        zoned = zoned_column_error(batch.schema, picked)
        if zoned is not None:
            raise zoned
        for row in batch.to_pylist():
            values = list(row.values())
            yield [encode_param(values[i], encoding) for i in picked]


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
