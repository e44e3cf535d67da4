"""SQLite-backed SQL engine that behaves like an Informix logged database.

Storage choices, made so fetch stays cheap and comparisons stay right:

* integers, floats, VARCHAR-family text: SQLite's native classes, returned
  without any per-value work;
* DATE: INTEGER Informix day numbers (day 0 = 1899-12-31), so arithmetic and
  ordering work in SQL and fetch is one dict lookup;
* DECIMAL/MONEY of precision <= 15: a column without affinity holding REAL
  (a double round-trips 15 significant digits exactly, and SQLite compares,
  sorts and sums them natively);
* wider DECIMAL/MONEY: exact canonical TEXT in a column collated by
  ``ifx_decimal``, which compares values as numbers.  A compared literal
  takes the column's TEXT affinity and then that collation, so ``<``, ``=``,
  ORDER BY, MIN/MAX, GROUP BY and indexes are numeric and exact; SUM and AVG
  are exact through the ``ifx_exact_*`` aggregates the dialect substitutes;
  other arithmetic converts the text to a double (approximate);
* DATETIME: TEXT in Informix literal form for exactly its qualifier fields,
  which sorts correctly and compares with Informix literals;
* INTERVAL: INTEGER microseconds (day-time) or months (year-month);
* BOOLEAN: INTEGER 0/1.

Every user table whose column types all have a row encoding also keeps each
row's complete SQ_TUPLE message in a hidden column (dialect.IMAGE_COLUMN),
so a SELECT of whole rows is served without encoding a value: INSERTs that
bind every column supply the image themselves, triggers compute it for every
other INSERT and for UPDATEs from the stored values, inside the same
statement and so under the same transaction.

Each database is a SQLite file in WAL mode (in memory: a temporary directory,
on /dev/shm when available).  WAL gives what shared-cache in-memory SQLite
cannot: readers never block, each connection sees only committed data, and a
writer waits a bounded time for the write lock instead of failing at once.
"""

from __future__ import annotations

import datetime as dt
import functools
import decimal
import itertools
import operator
import os
import re
import shutil
import sqlite3
import struct
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Iterable, Sequence

from informix_stream.codecs import (TU_DAY, TU_HOUR, TU_SECOND, TU_YEAR, ColumnType,
                                    IntervalYM, TypeCode, make_tuple_encoder, parse_type)
from informix_stream.errors import DataError

from .dialect import (IMAGE_COLUMN, NOT_SUPPORTED, Bind, ColumnDef, CreateIndex, CreateTable, Drop,
                      ResultColumn, SqlError, StatementKind, TableDef, Translation,
                      exact_decimal, translate)

__all__ = ["Engine", "Session", "Prepared", "ExecResult", "RowSource", "ResultColumn",
           "StatementKind", "SqlError"]

SERVER_VERSION = "IBM Informix Dynamic Server Version 14.10.FC10"
"""What dbinfo('version', 'full') reports; the login reply announces the same."""
OWNER = "informix"
DEFAULT_LOCK_WAIT_MS = 1000
# SQLite virtual-machine steps between two looks for a cancel (~a millisecond).
_PROGRESS_STEPS = 20_000
# Reported for SQL the emulator does not implement (its own code, not the
# server's: a real server would either run the statement or say otherwise).
INTERNAL_NOT_SUPPORTED = NOT_SUPPORTED
# Idle reader connections a session keeps (it opens one per concurrently
# open cursor outside a transaction, never sharing a busy one).
_IDLE_READERS = 4
_SAVEPOINT_ACTIONS = ("SAVEPOINT", "ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT")
"""Wait for SQLite's database-wide write lock.  Informix locks rows, so two
sessions writing different rows never conflict there; a short wait here
stands in for that finer granularity before reporting a lock error."""

_DAY0 = dt.date(1899, 12, 31).toordinal()
_INT_RANGE = {TypeCode.SMALLINT: (32767, -1214), TypeCode.INTEGER: (2147483647, -1215),
              TypeCode.SERIAL: (2147483647, -1215)}
_BIG_INT = (9223372036854775807, -1215)
_SERIAL_CODES = frozenset({TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL})
_TEXT_CODES = frozenset({TypeCode.CHAR, TypeCode.NCHAR, TypeCode.VARCHAR,
                         TypeCode.NVARCHAR, TypeCode.LVARCHAR, TypeCode.TEXT})
_STORAGE = {TypeCode.FLOAT: "REAL", TypeCode.SMALLFLOAT: "REAL", TypeCode.DECIMAL: "BLOB",
            TypeCode.MONEY: "BLOB", TypeCode.DATETIME: "TEXT", TypeCode.BYTE: "BLOB"}
_DEC_CONTEXT = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_UP)


# ---------------------------------------------------------------------------
# Python value -> stored value
# ---------------------------------------------------------------------------

Converter = Callable[[object], object]


def _conversion_error(code: int, value: object) -> SqlError:
    return SqlError(code, message=f"cannot convert {value!r}")


def _to_decimal(v: object) -> Decimal:
    if isinstance(v, Decimal):
        return v
    if isinstance(v, bool):
        return Decimal(int(v))
    if isinstance(v, (int, float)):
        return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
    if isinstance(v, str):
        try:
            d = Decimal(v.strip())
        except decimal.InvalidOperation:
            raise _conversion_error(-1213, v) from None
        if not d.is_finite():
            raise _conversion_error(-1213, v)
        return d
    raise _conversion_error(-1213, v)


def _int_writer(code: TypeCode) -> Converter:
    limit, err = _INT_RANGE.get(code, _BIG_INT)

    def slow(v: object) -> object:
        if v is None:
            return None
        n = int(_to_decimal(v).to_integral_value(decimal.ROUND_DOWN)) \
            if not isinstance(v, int) else int(v)
        if not -limit <= n <= limit:
            raise _conversion_error(err, v)
        return n

    def write(v: object) -> object:
        if v.__class__ is int and -limit <= v <= limit:
            return v
        return slow(v)
    return write


def _float_writer(v: object) -> object:
    if v is None or v.__class__ is float:
        return v
    if isinstance(v, str):
        return float(_to_decimal(v))
    return float(v)


def _decimal_writer(ctype: ColumnType) -> Converter:
    precision, scale = ctype.precision, ctype.scale
    quantum = Decimal(1).scaleb(-scale) if scale is not None else None

    def write(v: object) -> object:
        if v is None:
            return None
        d = _to_decimal(v)
        if quantum is not None:
            d = d.quantize(quantum, context=_DEC_CONTEXT)
            whole_digits = d.adjusted() + 1 if d else 0
            if whole_digits > precision - scale:
                raise _conversion_error(-1226, v)
        else:
            d = _DEC_CONTEXT.create_decimal(d)
            if len(d.as_tuple().digits) > precision:
                d = decimal.Context(prec=precision, rounding=decimal.ROUND_HALF_UP).plus(d)
            if d and abs(d.adjusted()) > 125:
                raise _conversion_error(-1226, v)
        return str(d) if exact else float(d)
    exact = exact_decimal(ctype)
    return write


def _text_writer(ctype: ColumnType) -> Converter:
    limit = ctype.length & 0xFF if ctype.code in (TypeCode.VARCHAR, TypeCode.NVARCHAR) \
        else ctype.length
    pad = ctype.code in (TypeCode.CHAR, TypeCode.NCHAR)

    def write(v: object) -> object:
        if v is None:
            return None
        s = v if isinstance(v, str) else _text_of(v)
        if len(s) > limit:
            s = s[:limit]
        return s.rstrip(" ") if pad else s
    return write


def _text_of(v: object) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return v.strftime("%m/%d/%Y")
    return str(v)


_DATE_RE = re.compile(r"\s*(\d{1,4})([-/.])(\d{1,2})\2(\d{1,4})\s*$")


def parse_date(text: str) -> dt.date:
    """Informix DATE text: ISO 'YYYY-MM-DD' or DBDATE's default 'MM/DD/YYYY'."""
    m = _DATE_RE.match(text)
    if not m:
        raise _conversion_error(-1218, text)
    a, _, b, c = m.groups()
    if len(a) == 4:
        year, month, day = int(a), int(b), int(c)
    else:
        month, day, year = int(a), int(b), int(c)
        if len(c) <= 2:
            year += 1900 if year >= 50 else 2000
    if not 1 <= year <= 9999:
        raise _conversion_error(-1204, text)
    if not 1 <= month <= 12:
        raise _conversion_error(-1205, text)
    try:
        return dt.date(year, month, day)
    except ValueError:
        raise _conversion_error(-1206, text) from None


def _date_writer(v: object) -> object:
    if v is None or v.__class__ is int:
        return v
    if isinstance(v, dt.datetime):
        return v.date().toordinal() - _DAY0
    if isinstance(v, dt.date):
        return v.toordinal() - _DAY0
    if isinstance(v, str):
        return parse_date(v).toordinal() - _DAY0
    raise _conversion_error(-1218, v)


_FIELD_NAMES = ("year", "month", "day", "hour", "minute", "second")
_FIELD_LIMITS = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59),
                 "second": (0, 59)}


def _qualifier_fields(ctype: ColumnType) -> list[str]:
    last = min(ctype.end, TU_SECOND)
    return [_FIELD_NAMES[u // 2] for u in range(ctype.start, last + 1, 2)]


def _datetime_fields(v: object, ctype: ColumnType) -> dict[str, object]:
    """Field values of a Python or text DATETIME, keyed by unit name."""
    if isinstance(v, str):
        return _parse_datetime_text(v, ctype)
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        out: dict[str, object] = {n: getattr(v, n, 0) for n in _FIELD_NAMES}
        out["fraction"] = f"{getattr(v, 'microsecond', 0):06d}"
        return out
    raise _conversion_error(-1262, v)


def _parse_datetime_text(text: str, ctype: ColumnType) -> dict[str, object]:
    if re.search(r"[^0-9\s:.\-]", text):
        raise _conversion_error(-1262, text)
    parts = re.split(r"[\s:\-.]+", text.strip())
    names = _qualifier_fields(ctype)
    if ctype.fraction_digits and len(parts) == len(names) + 1:
        fraction = parts.pop()
    else:
        fraction = ""
    if len(parts) != len(names):
        raise _conversion_error(-1264 if len(parts) > len(names) else -1263, text)
    fields: dict[str, object] = {"fraction": fraction.ljust(6, "0")[:6]}
    for name, part in zip(names, parts):
        value = int(part)
        lo, hi = _FIELD_LIMITS.get(name, (1, 9999))
        if not lo <= value <= hi:
            raise _conversion_error(-1263, text)
        fields[name] = value
    return fields


def _datetime_writer(ctype: ColumnType) -> Converter:
    names = _qualifier_fields(ctype)
    digits = ctype.fraction_digits
    seps = {"year": "", "month": "-", "day": "-", "hour": " ", "minute": ":", "second": ":"}

    def write(v: object) -> object:
        if v is None:
            return None
        f = _datetime_fields(v, ctype)
        text = "".join((seps[n] if i else "") + (f"{f.get(n, 0):04d}" if n == "year"
                                                   else f"{f.get(n, 0):02d}")
                       for i, n in enumerate(names))
        if digits:
            text += "." + str(f["fraction"])[:digits]
        return text
    return write


_INTERVAL_RE = re.compile(r"\s*(-?)\s*([\d\s:.\-]+?)\s*$")
_US = {TU_DAY: 86_400_000_000, TU_HOUR: 3_600_000_000, 8: 60_000_000,
       TU_SECOND: 1_000_000}


def _interval_writer(ctype: ColumnType) -> Converter:
    def write(v: object) -> object:
        if v is None:
            return None
        if isinstance(v, IntervalYM):
            return v.months
        if isinstance(v, dt.timedelta):
            return (v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds
        if isinstance(v, int):
            return v
        if isinstance(v, str):
            return _parse_interval(v, ctype)
        raise _conversion_error(-1262, v)
    return write


def _parse_interval(text: str, ctype: ColumnType) -> int:
    m = _INTERVAL_RE.match(text)
    if not m or re.search(r"[^0-9\s:.\-]", text):
        raise _conversion_error(-1262, text)
    sign = -1 if m.group(1) else 1
    parts = [p for p in re.split(r"[\s:\-.]+", m.group(2)) if p]
    units = list(range(ctype.start, min(ctype.end, TU_SECOND) + 1, 2))
    fraction = parts.pop() if ctype.fraction_digits and len(parts) == len(units) + 1 else ""
    if len(parts) != len(units):
        raise _conversion_error(-1263, text)
    if ctype.is_year_month:
        total = sum(int(p) * (12 if u == TU_YEAR else 1) for p, u in zip(parts, units))
    else:
        total = sum(int(p) * _US[u] for p, u in zip(parts, units))
        total += int(fraction.ljust(6, "0")[:6]) if fraction else 0
    return sign * total


def _bool_writer(v: object) -> object:
    if v is None:
        return None
    if isinstance(v, str):
        word = v.strip().lower()
        if word in ("t", "true", "1"):
            return 1
        if word in ("f", "false", "0"):
            return 0
        raise _conversion_error(-1213, v)
    return 1 if v else 0


def _generic_writer(v: object) -> object:
    """Storage form of a value whose target column is unknown."""
    cls = v.__class__
    if cls in (int, str, float) or v is None:
        return v
    if cls is Decimal:
        return float(v) if len(v.as_tuple().digits) <= 15 else str(v)
    if cls is bool:
        return int(v)
    if cls is dt.date:
        return v.toordinal() - _DAY0
    if cls is dt.datetime:
        return v.isoformat(" ")
    if cls is dt.timedelta:
        return (v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds
    if cls is IntervalYM:
        return v.months
    return v


def writer_for(ctype: ColumnType | None) -> Converter:
    """The converter from client values to this column's stored form."""
    if ctype is None:
        return _generic_writer
    code = ctype.code
    if code in _INT_RANGE or code in (TypeCode.INT8, TypeCode.BIGINT, TypeCode.SERIAL8,
                                      TypeCode.BIGSERIAL):
        return _int_writer(code)
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return _float_writer
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimal_writer(ctype)
    if code in _TEXT_CODES:
        return _text_writer(ctype)
    if code == TypeCode.DATE:
        return _date_writer
    if code == TypeCode.DATETIME:
        return _datetime_writer(ctype)
    if code == TypeCode.INTERVAL:
        return _interval_writer(ctype)
    if code == TypeCode.BOOLEAN:
        return _bool_writer
    return _generic_writer


# ---------------------------------------------------------------------------
# Stored value -> Python value
# ---------------------------------------------------------------------------

class _DayCache(dict):
    """Informix day number -> date; dict lookups keep DATE fetch in C."""

    def __missing__(self, key: object) -> dt.date | None:
        value = None if key is None else dt.date.fromordinal(int(key) + _DAY0)
        if len(self) < 1_000_000:
            self[key] = value
        return value


_DAYS = _DayCache()
_BOOLS = {0: False, 1: True, None: None}


def _maybe(func: Callable[[object], object]) -> Converter:
    return lambda v: None if v is None else func(v)


def _decimal_reader(ctype: ColumnType) -> Converter:
    scale = ctype.scale
    quantum = Decimal(1).scaleb(-scale) if scale is not None else None

    def read(v: object) -> object:
        if v is None:
            return None
        d = Decimal(repr(v)) if isinstance(v, float) else Decimal(v if not isinstance(v, bytes)
                                                                   else v.decode())
        return d.quantize(quantum, context=_DEC_CONTEXT) if quantum is not None else d
    return read


def _datetime_reader(ctype: ColumnType) -> Converter:
    if ctype.start >= TU_HOUR:
        return _maybe(lambda v: _time_from_text(str(v), ctype))
    if ctype.start == TU_YEAR and ctype.end == TU_DAY:
        return _maybe(lambda v: dt.date.fromisoformat(str(v)))
    if ctype.start == TU_YEAR and ctype.end > TU_DAY:
        return _maybe(lambda v: dt.datetime.fromisoformat(_fraction6(str(v))))
    return _maybe(lambda v: _datetime_from_fields(str(v), ctype))


def _fraction6(text: str) -> str:
    """fromisoformat wants 3 or 6 fraction digits; Informix has 1 to 5."""
    head, dot, frac = text.partition(".")
    return f"{head}.{frac.ljust(6, '0')}" if dot else text


def _time_from_text(text: str, ctype: ColumnType) -> dt.time:
    f = _parse_datetime_text(text, ctype)
    return dt.time(f.get("hour", 0), f.get("minute", 0), f.get("second", 0),
                   int(f["fraction"]))


def _datetime_from_fields(text: str, ctype: ColumnType) -> dt.datetime | dt.date:
    f = _parse_datetime_text(text, ctype)
    if ctype.end <= TU_DAY:
        return dt.date(f.get("year", 1900), f.get("month", 1), f.get("day", 1))
    return dt.datetime(f.get("year", 1900), f.get("month", 1), f.get("day", 1),
                       f.get("hour", 0), f.get("minute", 0), f.get("second", 0),
                       int(f["fraction"]))


def _to_int(v: object) -> object:
    if v is None or v.__class__ is int:
        return v
    return int(_to_decimal(v if not isinstance(v, float) else repr(v)))


def reader_for(col: ResultColumn) -> Converter | None:
    """Converter from SQLite's value to the Python type of ``col``; None if none needed."""
    ctype, stored = col.type, col.stored
    code = ctype.code
    if code in _INT_RANGE or code in (TypeCode.INT8, TypeCode.BIGINT, TypeCode.SERIAL8,
                                      TypeCode.BIGSERIAL):
        return None if stored else _to_int
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return None if stored else _maybe(float)
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimal_reader(ctype)
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        width = ctype.length
        return _maybe(lambda v: (v if isinstance(v, str) else str(v)).ljust(width))
    if code in _TEXT_CODES:
        return None if stored else _maybe(str)
    if code == TypeCode.DATE:
        return _DAYS.__getitem__
    if code == TypeCode.DATETIME:
        return _datetime_reader(ctype)
    if code == TypeCode.INTERVAL:
        if ctype.is_year_month:
            return _maybe(lambda v: IntervalYM(int(v)))
        return _maybe(lambda v: dt.timedelta(microseconds=int(v)))
    if code == TypeCode.BOOLEAN:
        return _BOOLS.__getitem__
    return None


def row_converter(columns: Sequence[ResultColumn]) -> Callable[[list], list] | None:
    """Build one function converting a batch of rows; None when rows pass as-is.

    The function is generated source (a list comprehension naming every
    column) because a per-row Python loop over per-column converters costs
    several times more than one comprehension with the calls inlined.
    """
    readers = [reader_for(c) for c in columns]
    if not any(readers):
        return None
    names = [f"c{i}" for i in range(len(columns))]
    exprs = [f"f{i}({n})" if r else n for i, (n, r) in enumerate(zip(names, readers))]
    src = (f"def convert(rows):\n"
           f"    return [({', '.join(exprs)},) for ({', '.join(names)},) in rows]\n")
    namespace: dict[str, object] = {f"f{i}": r for i, r in enumerate(readers) if r}
    exec(src, namespace)  # noqa: S102 - source built only from column indexes
    return namespace["convert"]  # type: ignore[return-value]


def _image_maker(columns: Sequence[ColumnDef]) -> Callable[[Sequence[object]], bytes] | None:
    """Stored values of one row -> its SQ_TUPLE message, exactly what the
    server would send after reading them; None if a type has no row encoding."""
    try:
        encode = make_tuple_encoder([c.type for c in columns])
    except ValueError:
        return None
    convert = row_converter([ResultColumn(c.name, c.type, True) for c in columns])
    if convert is None:
        return encode
    return lambda values: encode(convert((values,))[0])


def _image_failure(exc: DataError) -> SqlError:
    """Informix's error for a value its row encoding rejects."""
    cause = exc.__cause__
    if isinstance(cause, UnicodeError):
        code = -23103          # code-set conversion failed
    elif isinstance(cause, (struct.error, OverflowError)):
        code = -1215           # value exceeds the column's range
    else:
        code = -1213
    return SqlError(code, 0, "", str(exc))


def _decimal_order(a: str, b: str) -> int:
    """The ifx_decimal collation: exact decimal text in numeric order."""
    try:
        x, y = Decimal(a), Decimal(b)
        return (x > y) - (x < y)
    except decimal.InvalidOperation:
        return (a > b) - (a < b)


class _ExactSum:
    """SUM of exact-text DECIMALs; SQLite's sum() would add doubles."""

    def __init__(self) -> None:
        self.total: Decimal | None = None
        self.count = 0

    def step(self, value: object) -> None:
        if value is not None:
            d = _to_decimal(value)
            self.total = d if self.total is None else _DEC_CONTEXT.add(self.total, d)
            self.count += 1

    def finalize(self) -> str | None:
        return None if self.total is None else str(self.total)


class _ExactAvg(_ExactSum):
    def finalize(self) -> str | None:
        if self.total is None:
            return None
        return str(_AVG_CONTEXT.divide(self.total, self.count))


_AVG_CONTEXT = decimal.Context(prec=32, rounding=decimal.ROUND_HALF_UP)


# ---------------------------------------------------------------------------
# Public result types
# ---------------------------------------------------------------------------

@dataclass
class ExecResult:
    rowcount: int
    serial: int = 0
    serial8: int = 0


@dataclass
class Prepared:
    sql: str
    kind: StatementKind
    columns: list[ResultColumn]
    param_count: int
    param_types: list[ColumnType | None]
    table: str | None
    translation: Translation = field(repr=False, default=None)  # type: ignore[assignment]
    # (client index or None, converted constant, converter) per SQLite '?'
    binds: list[tuple[int | None, object, Converter]] = field(repr=False, default_factory=list)
    direct: bool = field(repr=False, default=False)   # binds are params in order
    convert: Callable[[list], list] | None = field(repr=False, default=None)
    # INSERT: converted bind values -> the row image bound after them
    image: Callable[[list], bytes | None] | None = field(repr=False, default=None)
    # table name -> its version when prepared (see _Database.table_versions)
    depends: dict[str, int] = field(repr=False, default_factory=dict)


class RowSource:
    """A lazily stepped SQLite cursor; rows are converted one batch at a time.

    When ``encoded`` is True, fetch returns each row as its complete SQ_TUPLE
    message (bytes) instead of a tuple of values.
    """

    def __init__(self, cursor: sqlite3.Cursor, columns: list[ResultColumn],
                 convert: Callable[[list], list] | None, kind: StatementKind,
                 encoded: bool = False, on_close: Callable[[], None] | None = None) -> None:
        self.columns = columns
        self.encoded = encoded
        self._cursor: sqlite3.Cursor | None = cursor
        self._convert = convert
        self._kind = kind
        self._on_close = on_close
        self._rest: list | None = None        # rows read ahead by keep_rest()
        self._error: SqlError | None = None   # what keep_rest() ran into

    def fetch(self, n: int) -> list[tuple]:
        cur = self._cursor
        if cur is None:
            return self._fetch_kept(n)
        try:
            rows = cur.fetchmany(n)
        except sqlite3.Error as exc:
            self.close()
            raise _map_error(exc, self._kind) from None
        if not rows:
            self.close()
            return rows
        return self._convert(rows) if self._convert is not None else rows

    def close(self) -> None:
        self._rest = self._error = None
        self._release()

    def _release(self) -> None:
        if self._cursor is not None:
            self._cursor.close()
            self._cursor = None
            if self._on_close is not None:
                self._on_close()

    def keep_rest(self) -> None:
        """Read the remaining rows now and let go of the SQLite statement.

        For a hold cursor reading on the session's main connection when its
        transaction ends: a statement left pending there would pin its WAL
        snapshot, and every later write of the session would then fail with
        SQLITE_BUSY_SNAPSHOT once another session commits.  A failure is
        kept and raised by the next fetch, as the server would answer it.
        """
        cur = self._cursor
        if cur is None:
            return
        try:
            self._rest = cur.fetchall()
        except sqlite3.Error as exc:
            self._rest, self._error = [], _map_error(exc, self._kind)
        self._release()

    def _fetch_kept(self, n: int) -> list[tuple]:
        if self._error is not None:
            err, self._error = self._error, None
            raise err
        rows = self._rest
        if not rows:
            self._rest = None
            return []
        batch, self._rest = rows[:n], rows[n:]
        return self._convert(batch) if self._convert is not None else batch


# ---------------------------------------------------------------------------
# SQLite error mapping
# ---------------------------------------------------------------------------

_LOCK_CODES = {StatementKind.INSERT: -271, StatementKind.UPDATE: -346,
               StatementKind.DELETE: -240, StatementKind.SELECT: -244,
               StatementKind.DDL: -242}


def _map_error(exc: sqlite3.Error, kind: StatementKind,
               db: "_Database | None" = None) -> SqlError:
    """Informix's sqlcode/ISAM/near for a SQLite failure."""
    msg = str(exc)
    failed = getattr(db.failures, "error", None) if db is not None else None
    if failed is not None and "user-defined function raised exception" in msg:
        db.failures.error = None
        return _image_failure(failed)
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in msg:
        return SqlError(_LOCK_CODES.get(kind, -244), -107, "", "record is locked")
    if msg == "interrupted":
        # A cancel (or the server stopping) ended the statement.
        return SqlError(-213, 0, "", "statement interrupted by user")
    patterns: list[tuple[str, Callable[[re.Match[str]], SqlError]]] = [
        (r"no such table: (?:\w+\.)?(\w+)", lambda m: SqlError(-206, -111, m[1])),
        (r"no such column: (?:\w+\.)?(\w+)", lambda m: SqlError(-217, 0, m[1])),
        (r"ambiguous column name: (?:\w+\.)?(\w+)", lambda m: SqlError(-324, 0, m[1])),
        (r"UNIQUE constraint failed: (.*)", lambda m: _unique_error(m[1], db)),
        (r"NOT NULL constraint failed: (\S+)", lambda m: SqlError(-391, 0, m[1])),
        (r"CHECK constraint failed: (.*)", lambda m: SqlError(-530, 0, m[1].strip())),
        (r"table (\S+) already exists", lambda m: SqlError(-310, 0, m[1])),
        (r"index (\S+) already exists", lambda m: SqlError(-316, 0, m[1])),
        (r"no such function: (\w+)", lambda m: SqlError(-674, 0, m[1])),
        (r"Incorrect number of bindings", lambda m: SqlError(-254)),
    ]
    for pattern, build in patterns:
        m = re.search(pattern, msg)
        if m:
            err = build(m)
            err.args = (f"{msg}",)
            err.message = msg
            return err
    return SqlError(-201, 0, "", msg)


def _unique_error(columns: str, db: "_Database | None") -> SqlError:
    """-268 when a constraint's index fired, -239 for a plain unique index."""
    pairs = [c.strip().split(".", 1) for c in columns.split(",")]
    table = pairs[0][0] if pairs and len(pairs[0]) == 2 else ""
    cols = [p[-1] for p in pairs]
    if db is not None:
        for idx in db.indexes.values():
            if idx.table == table and idx.columns == cols and idx.unique:
                if idx.constraint:
                    return SqlError(-268, -100, f"{OWNER}.{idx.name}")
                return SqlError(-239, -100, idx.name)
    return SqlError(-239, -100, "")


# ---------------------------------------------------------------------------
# Catalog
# ---------------------------------------------------------------------------

@dataclass
class _Index:
    name: str
    table: str
    columns: list[str]
    unique: bool
    constraint: str | None      # 'P', 'U' or None for a plain index


def _system_tables() -> dict[str, list[tuple[str, str]]]:
    v128, c32 = "VARCHAR(128)", "CHAR(32)"
    return {
        "systables": [("tabname", v128), ("owner", c32), ("partnum", "INTEGER"),
                      ("tabid", "INTEGER"), ("rowsize", "SMALLINT"), ("ncols", "SMALLINT"),
                      ("nindexes", "SMALLINT"), ("nrows", "FLOAT"), ("created", "DATE"),
                      ("version", "INTEGER"), ("tabtype", "CHAR(1)"),
                      ("locklevel", "CHAR(1)"), ("npused", "FLOAT"),
                      ("fextsize", "INTEGER"), ("nextsize", "INTEGER"),
                      ("flags", "SMALLINT"), ("site", v128), ("dbname", v128)],
        "syscolumns": [("colname", v128), ("tabid", "INTEGER"), ("colno", "SMALLINT"),
                       ("coltype", "SMALLINT"), ("collength", "SMALLINT"),
                       ("colmin", "INTEGER"), ("colmax", "INTEGER"),
                       ("extended_id", "INTEGER")],
        "sysindexes": [("idxname", v128), ("owner", c32), ("tabid", "INTEGER"),
                       ("idxtype", "CHAR(1)"), ("clustered", "CHAR(1)"),
                       *[(f"part{i}", "SMALLINT") for i in range(1, 9)]],
        "sysconstraints": [("constrid", "INTEGER"), ("constrname", v128), ("owner", c32),
                           ("tabid", "INTEGER"), ("constrtype", "CHAR(1)"),
                           ("idxname", v128)],
    }


_META_DDL = f"""
CREATE TABLE IF NOT EXISTS _ifx_tables (
    tabid INTEGER PRIMARY KEY, tabname TEXT UNIQUE NOT NULL, owner TEXT, created INTEGER,
    tabtype TEXT, ncols INTEGER, rowsize INTEGER, serial_hw INTEGER DEFAULT 0,
    serial8_hw INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS _ifx_columns (
    tabid INTEGER, colno INTEGER, colname TEXT, coltype INTEGER, collength INTEGER,
    defsql TEXT, serial_start INTEGER DEFAULT 1, syscoltype INTEGER,
    extended_id INTEGER DEFAULT 0, PRIMARY KEY (tabid, colno));
CREATE TABLE IF NOT EXISTS _ifx_indexes (
    idxname TEXT PRIMARY KEY, tabid INTEGER, idxtype TEXT, constrtype TEXT, cols TEXT,
    constrid INTEGER);
CREATE VIEW IF NOT EXISTS systables AS SELECT tabname, owner, tabid * 1048576 AS partnum,
    tabid, rowsize, ncols,
    (SELECT count(*) FROM _ifx_indexes i WHERE i.tabid = t.tabid) AS nindexes,
    0.0 AS nrows, created, 1 AS version, tabtype, 'R' AS locklevel, 0.0 AS npused,
    16 AS fextsize, 16 AS nextsize, 0 AS flags, NULL AS site, NULL AS dbname
    FROM _ifx_tables t;
CREATE VIEW IF NOT EXISTS syscolumns AS SELECT colname, tabid, colno,
    syscoltype AS coltype, collength, NULL AS colmin, NULL AS colmax, extended_id
    FROM _ifx_columns;
CREATE VIEW IF NOT EXISTS sysindexes AS SELECT idxname, '{OWNER}' AS owner, tabid, idxtype,
    'F' AS clustered, {", ".join(
        f"(SELECT c.colno FROM _ifx_columns c WHERE c.tabid = i.tabid AND c.colname = "
        f"(SELECT value FROM json_each(i.cols) WHERE key = {k})) AS part{k + 1}"
        for k in range(8))}
    FROM _ifx_indexes i;
CREATE VIEW IF NOT EXISTS sysconstraints AS SELECT constrid, idxname AS constrname,
    '{OWNER}' AS owner, tabid, constrtype, idxname FROM _ifx_indexes
    WHERE constrtype IS NOT NULL;
"""


class _Database:
    """One named database: its SQLite file, catalog and SERIAL counters."""

    def __init__(self, name: str, path: str, durable: bool) -> None:
        self.name = name
        self.path = path
        self.durable = durable
        self.lock = threading.RLock()
        self.tables: dict[str, TableDef] = {}
        self.tabids: dict[str, int] = {}
        self.indexes: dict[str, _Index] = {}
        self.counters: dict[tuple[str, int], int] = {}
        self.images: dict[str, Callable[[Sequence[object]], bytes]] = {}
        self.failures = threading.local()     # why ifx_image last failed, per thread
        # Bumped when a table is created or dropped: a statement prepared
        # against an earlier version gets -710 at OPEN/EXECUTE, as Informix
        # answers a prepared statement whose table was dropped or altered.
        self.table_versions: dict[str, int] = {}
        self.keeper = self.connect(0)
        self.keeper.execute("PRAGMA journal_mode=WAL")
        if not self.keeper.execute(
                "SELECT 1 FROM sqlite_master WHERE name = '_ifx_tables'").fetchone():
            self.keeper.executescript(_META_DDL)
            self._register_system_tables()
        self.reload(self.keeper)

    def connect(self, wait_ms: int) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=wait_ms / 1000, isolation_level=None,
                               check_same_thread=False, cached_statements=256)
        conn.execute(f"PRAGMA synchronous={'NORMAL' if self.durable else 'OFF'}")
        conn.execute("PRAGMA case_sensitive_like=ON")
        # Every connection: the schema names the collation and the triggers
        # call ifx_image, so no connection may lack them.
        conn.create_collation("ifx_decimal", _decimal_order)
        conn.create_aggregate("ifx_exact_sum", 1, _ExactSum)
        conn.create_aggregate("ifx_exact_avg", 1, _ExactAvg)
        conn.create_function("ifx_image", -1, self._image)
        return conn

    def _image(self, table: str, *values: object) -> bytes:
        try:
            return self.images[table](values)
        except DataError as exc:
            self.failures.error = exc
            raise

    def _register_system_tables(self) -> None:
        today = dt.date.today().toordinal() - _DAY0
        with self.keeper:
            self.keeper.execute("BEGIN")
            for tabid, (tabname, cols) in enumerate(_system_tables().items(), start=1):
                self.keeper.execute(
                    "INSERT INTO _ifx_tables (tabid, tabname, owner, created, tabtype, ncols,"
                    " rowsize) VALUES (?, ?, ?, ?, 'T', ?, 0)",
                    (tabid, tabname, OWNER, today, len(cols)))
                for colno, (colname, type_text) in enumerate(cols, start=1):
                    ctype = parse_type(type_text)
                    _add_column(self.keeper, tabid, colno, ColumnDef(colname, ctype))

    def reload(self, conn: sqlite3.Connection) -> None:
        """Rebuild the in-memory catalog from the meta tables."""
        with self.lock:
            tables: dict[str, TableDef] = {}
            tabids: dict[str, int] = {}
            names = {}
            imaged = {name for (name,) in conn.execute(
                "SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p"
                " WHERE m.type = 'table' AND p.name = ?", (IMAGE_COLUMN,))}
            for tabid, tabname in conn.execute("SELECT tabid, tabname FROM _ifx_tables"):
                tables[tabname] = TableDef(tabname, [], tabname in imaged)
                tabids[tabname] = tabid
                names[tabid] = tabname
            for tabid, colname, coltype, collength, defsql, start in conn.execute(
                    "SELECT tabid, colname, coltype, collength, defsql, serial_start"
                    " FROM _ifx_columns ORDER BY tabid, colno"):
                ctype = ColumnType(TypeCode(coltype & 0xFF), collength, not coltype & 0x100)
                tables[names[tabid]].columns.append(
                    ColumnDef(colname, ctype, defsql, start or 1))
            self.indexes = {
                idxname: _Index(idxname, names[tabid], _json_list(cols), idxtype == "U",
                                constrtype)
                for idxname, tabid, idxtype, constrtype, cols in conn.execute(
                    "SELECT idxname, tabid, idxtype, constrtype, cols FROM _ifx_indexes")}
            self.tables, self.tabids = tables, tabids
            self.images = {name: _image_maker(t.columns) for name, t in tables.items()
                           if t.image}
            self._load_counters(conn)

    def _load_counters(self, conn: sqlite3.Connection) -> None:
        counters: dict[tuple[str, int], int] = {}
        for name, tdef in self.tables.items():
            for col in tdef.serial_columns:
                hw_col = "serial_hw" if col.type.code == TypeCode.SERIAL else "serial8_hw"
                hw = conn.execute(f"SELECT {hw_col} FROM _ifx_tables WHERE tabname = ?",
                                  (name,)).fetchone()[0] or 0
                top = conn.execute(f'SELECT max("{col.name}") FROM "{name}"').fetchone()[0]
                counters[(name, int(col.type.code))] = max(hw, top or 0,
                                                           col.serial_start - 1)
        self.counters = {**self.counters, **counters}

    def next_serial(self, table: str, code: int, value: object) -> int:
        """Informix SERIAL rule: 0/NULL takes the next number, others move it on."""
        key = (table, code)
        with self.lock:
            current = self.counters.get(key, 0)
            if value is None or value == 0:
                value = current + 1
                self.counters[key] = value
                return value
            if not isinstance(value, int):
                value = int(value)
            if value < 0:
                raise sqlite3.IntegrityError("negative SERIAL value")
            if value > current:
                self.counters[key] = value
            return value

    def save_counters(self, conn: sqlite3.Connection, table: str) -> None:
        """Persist a table's high-water marks so deleted numbers stay unused."""
        serial = self.counters.get((table, int(TypeCode.SERIAL)), 0)
        serial8 = max(self.counters.get((table, int(TypeCode.SERIAL8)), 0),
                      self.counters.get((table, int(TypeCode.BIGSERIAL)), 0))
        conn.execute("UPDATE _ifx_tables SET serial_hw = ?, serial8_hw = ? WHERE tabname = ?",
                     (serial, serial8, table))

    def close(self) -> None:
        with self.lock:
            for table in list(self.tables):
                if self.tables[table].serial_columns:
                    self.save_counters(self.keeper, table)
            self.keeper.close()


def _json_list(text: str) -> list[str]:
    return [part for part in re.findall(r'"((?:[^"\\]|\\.)*)"', text or "")]


def _json_text(items: Iterable[str]) -> str:
    return "[" + ",".join(f'"{i}"' for i in items) + "]"


# ---------------------------------------------------------------------------
# Engine and sessions
# ---------------------------------------------------------------------------

class Engine:
    """The set of named databases one emulator serves."""

    def __init__(self, databases: Iterable[str], data_dir: str | os.PathLike | None = None
                 ) -> None:
        self._tempdir: str | None = None
        if data_dir is None:
            shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
            self._tempdir = tempfile.mkdtemp(prefix="ifx-emulator-", dir=shm)
            root = self._tempdir
        else:
            root = os.fspath(data_dir)
            os.makedirs(root, exist_ok=True)
        self._dbs = {name.lower(): _Database(name.lower(), os.path.join(root, f"{name.lower()}.db"),
                                             durable=data_dir is not None)
                     for name in databases}
        self._sessions: weakref.WeakSet[Session] = weakref.WeakSet()
        self._ids = itertools.count(1)

    def has_database(self, name: str) -> bool:
        return name.lower() in self._dbs

    def connect(self, database: str) -> "Session":
        db = self._dbs.get(database.lower())
        if db is None:
            raise SqlError(-329, -111, database, f"database {database} not found")
        session = Session(db, next(self._ids))
        self._sessions.add(session)
        return session

    def close(self) -> None:
        for session in list(self._sessions):
            session.close()
        for db in self._dbs.values():
            db.close()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None


class Session:
    """One client's connection to one database; one thread at a time."""

    def __init__(self, db: _Database, session_id: int) -> None:
        self._db = db
        self._id = session_id
        # Set by the socket layer: True when the statement must stop now.
        self.interrupt_requested: Callable[[], bool] | None = None
        self._wait_ms = DEFAULT_LOCK_WAIT_MS
        self._conn = self._open()
        # Connections for reads outside a transaction, each with its count of
        # open cursors: a cursor gets a reader with none open, so it reads a
        # fresh snapshot (one left open would pin an old one).
        self._readers: list[list] = []
        self._dml = self._conn.cursor()
        self._in_tx = False
        self._ddl_in_tx = False
        self._tx_changes = 0                   # total_changes at BEGIN
        # Row sources reading on the main connection, kept until their
        # transaction ends (see RowSource.keep_rest).
        self._main_sources: list[RowSource] = []
        self._savepoints: dict[str, bool] = {}    # name -> declared UNIQUE
        self.last_serial = 0
        self.last_serial8 = 0
        self.last_rowcount = 0

    def _open(self) -> sqlite3.Connection:
        conn = self._db.connect(self._wait_ms)
        # Every so many SQLite steps: has the client asked to cancel (its
        # urgent byte), or is the server shutting down?  Non-zero aborts the
        # statement with "interrupted", which becomes -213.
        conn.set_progress_handler(self._should_stop, _PROGRESS_STEPS)
        conn.create_function("ifx_serial", 3, self._serial)
        conn.create_function("ifx_dbinfo", -1, self._dbinfo)
        conn.create_function("ifx_mod", 2, lambda a, b: None if a is None or not b else a % b,
                             deterministic=True)
        for name, part in (("ifx_year", "year"), ("ifx_month", "month"), ("ifx_day", "day")):
            conn.create_function(name, 1, _date_part(part), deterministic=True)
        conn.create_function("ifx_weekday", 1, lambda d: None if d is None else
                             (d + _DAY0) % 7, deterministic=True)
        conn.create_function("ifx_length", 1, _informix_length, deterministic=True)
        conn.create_function("ifx_octet_length", 2, _octet_length, deterministic=True)
        conn.create_function("ifx_mdy", 3, lambda m, d, y: dt.date(y, m, d).toordinal() - _DAY0,
                             deterministic=True)
        return conn

    # -- SQL functions bound to the session -------------------------------------
    def _serial(self, table: str, code: int, value: object) -> int:
        result = self._db.next_serial(table, code, value)
        if code == TypeCode.SERIAL:
            self.last_serial = result
        else:
            self.last_serial8 = result
        return result

    def _dbinfo(self, what: str, *args: object) -> object:
        key = str(what).lower()
        if key == "sqlca.sqlerrd1":
            return self.last_serial
        if key == "sqlca.sqlerrd2":
            return self.last_rowcount
        if key in ("serial8", "bigserial"):
            return self.last_serial8
        if key == "sessionid":
            return self._id
        if key == "dbname":
            return self._db.name
        if key == "version":
            part = str(args[0]).lower() if args else "full"
            return {"full": SERVER_VERSION, "major": 14, "minor": 10, "level": "FC10",
                    "os": "U", "server-type": "IBM Informix Dynamic Server"}.get(part)
        if key == "utc_current":
            return int(dt.datetime.now(dt.timezone.utc).timestamp())
        return None

    # -- transactions ---------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self._in_tx

    def begin(self) -> None:
        if self._in_tx:
            raise SqlError(-535, message="already in transaction")
        self._conn.execute("BEGIN")
        self._in_tx = True
        self._tx_changes = self._conn.total_changes

    def commit(self) -> None:
        if not self._in_tx:
            raise SqlError(-255, message="not in transaction")
        try:
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _map_error(exc, StatementKind.COMMIT, self._db) from None
        self._end_tx()

    def rollback(self) -> None:
        if not self._in_tx:
            raise SqlError(-255, message="not in transaction")
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            # A transaction that never wrote has nothing for SQLite to undo;
            # the Informix transaction still ends here.
            if "no transaction is active" not in str(exc):
                raise
        if self._ddl_in_tx:
            self._db.reload(self._conn)
        self._end_tx()

    def _end_tx(self) -> None:
        self._in_tx = False
        self._ddl_in_tx = False
        self._savepoints.clear()
        sources, self._main_sources = self._main_sources, []
        for source in sources:       # only hold cursors are still open here
            source.keep_rest()

    def close(self) -> None:
        if self._conn is None:
            return
        if self._in_tx:
            self.rollback()
        for conn in [r[0] for r in self._readers] + [self._conn]:
            if conn is not None:
                conn.close()
        self._readers = []
        self._conn = None  # type: ignore[assignment]

    # -- prepare ---------------------------------------------------------------------
    def prepare(self, sql: str) -> Prepared:
        """Translate and validate now, as Informix's PREPARE does."""
        t = translate(sql, self._db.tables.get)
        if t.sql:
            self._validate(t)
        binds = []
        for b in t.binds:
            conv = writer_for(b.type)
            binds.append((b.index, None if b.index is not None else conv(b.const), conv))
        param_types: list[ColumnType | None] = [None] * t.param_count
        for b in t.binds:
            if b.index is not None and param_types[b.index] is None:
                param_types[b.index] = b.type
        direct = [b.index for b in t.binds] == list(range(t.param_count))
        versions = self._db.table_versions
        depends = {name: versions.get(name, 0)
                   for name in set(_WORD.findall(sql.lower())) if name in self._db.tables}
        return Prepared(sql, t.kind, t.columns, t.param_count, param_types, t.table, t,
                        binds, direct, image=self._image_binder(t), depends=depends)

    def check_current(self, stmt: Prepared) -> None:
        """-710 when a table the statement was prepared against changed since."""
        versions = self._db.table_versions
        for name, version in stmt.depends.items():
            if versions.get(name, 0) != version:
                raise SqlError(-710, message=f"table {name} has been dropped, altered, "
                                             "or renamed since the statement was prepared")

    def _image_binder(self, t: Translation) -> Callable[[list], bytes | None] | None:
        """For an INSERT binding every column: bind values -> row image."""
        picks = t.image_binds
        if picks is None:
            return None
        make = self._db.images.get(t.table or "")
        if make is None:           # the trigger computes it instead
            return lambda values: None
        if picks == list(range(len(t.binds))):
            return make
        return lambda values: make([values[p] for p in picks])

    def _validate(self, t: Translation) -> None:
        slots = len(t.binds) + (t.image_binds is not None)
        try:
            self._conn.execute("EXPLAIN " + t.sql, [None] * slots).close()
        except sqlite3.Error as exc:
            raise _map_error(exc, t.kind, self._db) from None

    def _values(self, stmt: Prepared, params: Sequence[object]) -> list[object]:
        if len(params) != stmt.param_count:
            raise SqlError(-254, message=f"{len(params)} values for {stmt.param_count} "
                           "placeholders")
        if stmt.direct:
            values = [conv(v) for (_, _, conv), v in zip(stmt.binds, params)]
        else:
            values = [conv(params[i]) if i is not None else const
                      for i, const, conv in stmt.binds]
        if stmt.image is not None:
            try:
                values.append(stmt.image(values))
            except DataError as exc:
                raise _image_failure(exc) from None
        return values

    # -- execute ----------------------------------------------------------------------
    def execute(self, stmt: Prepared, params: Sequence[object] = ()) -> ExecResult:
        kind = stmt.kind
        if kind in (StatementKind.INSERT, StatementKind.UPDATE, StatementKind.DELETE):
            return self._dml_execute(stmt, params)
        if kind is StatementKind.BEGIN:
            self.begin()
        elif kind is StatementKind.COMMIT:
            self.commit()
        elif kind is StatementKind.ROLLBACK:
            self.rollback()
        elif kind is StatementKind.DDL:
            self._ddl(stmt.translation)
        elif kind is StatementKind.OTHER:
            self._option(stmt.translation.option)
        elif kind is StatementKind.SELECT:
            self.open_cursor(stmt, params).close()
        return ExecResult(0)

    def can_batch(self, stmt: object) -> bool:
        """True for an INSERT ... VALUES binding every column of a table without
        SERIAL columns: one row per execution, nothing generated to report."""
        return isinstance(stmt, Prepared) and stmt.kind is StatementKind.INSERT \
            and stmt.image is not None

    def execute_many(self, stmt: Prepared, rows: Iterable[Sequence[object]]) -> ExecResult:
        """Run one DML statement for many parameter rows as a single unit."""
        total = 0
        self.last_serial = self.last_serial8 = 0
        with self._atomic(stmt.kind):
            cur = self._conn.cursor()
            cur.executemany(stmt.translation.sql, (self._values(stmt, r) for r in rows))
            total = cur.rowcount
        self.last_rowcount = total
        return ExecResult(total, self.last_serial, self.last_serial8)

    def _dml_execute(self, stmt: Prepared, params: Sequence[object]) -> ExecResult:
        values = self._values(stmt, params)
        self.last_serial = self.last_serial8 = 0
        if stmt.kind is StatementKind.DELETE and stmt.table in self._db.tables and \
                self._db.tables[stmt.table].serial_columns:
            with self._atomic(stmt.kind):
                self._db.save_counters(self._conn, stmt.table)
                count = self._conn.execute(stmt.translation.sql, values).rowcount
        else:
            try:
                count = self._dml.execute(stmt.translation.sql, values).rowcount
            except sqlite3.Error as exc:
                raise _map_error(exc, stmt.kind, self._db) from None
        self.last_rowcount = count
        return ExecResult(count, self.last_serial, self.last_serial8)

    def _atomic(self, kind: StatementKind) -> "_Savepoint":
        return _Savepoint(self._conn, kind, self._db)

    def open_cursor(self, stmt: Prepared, params: Sequence[object] = (), *,
                    hold: bool = False) -> RowSource:
        """``hold``: the cursor outlives its transaction (WITH HOLD)."""
        if stmt.kind is not StatementKind.SELECT:
            raise SqlError(-481, message="statement is not a SELECT")
        values = self._values(stmt, params)
        reader = None if self._reads_on_main(hold) else self._reading_connection()
        conn = self._conn if reader is None else reader[0]
        try:
            cursor = conn.execute(stmt.translation.sql, values)
        except sqlite3.Error as exc:
            raise _map_error(exc, stmt.kind, self._db) from None
        encoded = stmt.translation.encoded
        if stmt.convert is None and stmt.columns:
            stmt.convert = _images if encoded else row_converter(stmt.columns) or _identity
        convert = None if stmt.convert is _identity else stmt.convert
        source = RowSource(cursor, stmt.columns, convert, stmt.kind, encoded)
        if reader is not None:
            reader[1] += 1
            source._on_close = functools.partial(_release_reader, reader)
        else:
            self._main_sources.append(source)
            source._on_close = functools.partial(_forget_source, self._main_sources, source)
        return source

    def _reads_on_main(self, hold: bool) -> bool:
        """Inside a transaction a cursor reads on the main connection, to see
        the transaction's own writes.  A hold cursor opened before the
        transaction wrote anything reads on a reader instead: it sees the
        same rows, and its snapshot does not pin the main connection after
        COMMIT (RowSource.keep_rest covers one opened after writes)."""
        if not self._in_tx:
            return False
        return not hold or self._ddl_in_tx or self._conn.total_changes != self._tx_changes

    def _should_stop(self) -> int:
        check = self.interrupt_requested
        return 1 if check is not None and check() else 0

    def _reading_connection(self) -> list:
        """A reader connection with no cursor open on it, as ``[conn, open]``.

        Cursors outside a transaction read on connections of their own: an
        open read on the main connection would hold back the commit of later
        autocommit writes on it (SQLite commits when the last statement of a
        connection finishes); Informix commits those at once.  And a reader
        with a cursor still open would give a new cursor that cursor's old
        snapshot, hiding this session's own later commits.
        """
        idle = [r for r in self._readers if r[1] == 0]
        for extra in idle[_IDLE_READERS:]:
            extra[0].close()
            self._readers.remove(extra)
        if idle:
            return idle[0]
        reader = [self._open(), 0]
        self._readers.append(reader)
        return reader

    # -- DDL and session options ---------------------------------------------------
    def _option(self, option: tuple) -> None:
        if option and option[0] in _SAVEPOINT_ACTIONS:
            self._savepoint(option)
            return
        if option[:3] != ("SET", "LOCK", "MODE"):
            return
        words = option[3:]
        if words[:2] == ("TO", "WAIT"):
            wait = int(words[2]) * 1000 if len(words) > 2 else 2**31 - 1
        else:
            wait = DEFAULT_LOCK_WAIT_MS
        self._wait_ms = wait
        for conn in [self._conn] + [r[0] for r in self._readers]:
            if conn is not None:
                conn.execute(f"PRAGMA busy_timeout = {wait}")

    def _savepoint(self, option: tuple) -> None:
        """SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT inside a
        transaction (IBM: "SAVEPOINT statement", Informix 11.50+)."""
        action, name = option[0], option[1]
        if not self._in_tx:
            raise SqlError(-255, message="savepoints exist only inside a transaction")
        names = self._savepoints
        if action == "SAVEPOINT":
            if name in names and names[name]:
                raise SqlError(INTERNAL_NOT_SUPPORTED, message=(
                    f"savepoint {name} was declared UNIQUE; the emulator does not know "
                    "the server's error code for reusing it"))
            if name in names:
                # A reused name replaces the earlier savepoint: release it first.
                self._conn.execute(f"RELEASE SAVEPOINT sp_{name}")
                del names[name]
            self._conn.execute(f"SAVEPOINT sp_{name}")
            names[name] = option[2]
            return
        if name is None:
            raise SqlError(INTERNAL_NOT_SUPPORTED,
                           message="ROLLBACK TO SAVEPOINT without a name is not supported "
                                   "by the emulator")
        if name not in names:
            raise SqlError(-201, message=f"savepoint {name} does not exist")
        if action == "ROLLBACK TO SAVEPOINT":
            self._conn.execute(f"ROLLBACK TO SAVEPOINT sp_{name}")
            later = list(names)[list(names).index(name) + 1:]
            for other in later:
                del names[other]
            if self._ddl_in_tx:
                self._db.reload(self._conn)
        else:
            self._conn.execute(f"RELEASE SAVEPOINT sp_{name}")
            later = list(names)[list(names).index(name):]
            for other in later:
                del names[other]

    def _ddl(self, t: Translation) -> None:
        ddl = t.ddl
        with self._db.lock, self._atomic(StatementKind.DDL):
            if isinstance(ddl, CreateTable):
                _create_table(self._db, self._conn, ddl)
            elif isinstance(ddl, CreateIndex):
                _create_index(self._db, self._conn, ddl)
            elif isinstance(ddl, Drop):
                _drop(self._db, self._conn, ddl)
        if isinstance(ddl, CreateTable) or (isinstance(ddl, Drop) and ddl.what == "TABLE"):
            versions = self._db.table_versions
            versions[ddl.name] = versions.get(ddl.name, 0) + 1
        if self._in_tx:
            self._ddl_in_tx = True


_WORD = re.compile(r"[a-z_][a-z0-9_$]*")


def _release_reader(reader: list) -> None:
    reader[1] -= 1


def _forget_source(sources: list, source: RowSource) -> None:
    if source in sources:
        sources.remove(source)


def _identity(rows: list) -> list:
    return rows


_first = operator.itemgetter(0)


def _images(rows: list) -> list:
    return list(map(_first, rows))


def _informix_length(value: object) -> int | None:
    """Informix LENGTH: bytes without the trailing blanks, for any text."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return len(text.rstrip(" ").encode("iso-8859-1", "replace"))


def _octet_length(value: object, width: int) -> int | None:
    """OCTET_LENGTH counts trailing blanks, so a CHAR(n) is always n bytes."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return max(len(text.encode("iso-8859-1", "replace")), width)


def _date_part(part: str) -> Callable[[object], object]:
    def get(day: object) -> object:
        if day is None:
            return None
        return getattr(dt.date.fromordinal(int(day) + _DAY0), part)
    return get


class _Savepoint:
    """Make several SQLite statements one unit, inside or outside BEGIN WORK."""

    _names = itertools.count(1)

    def __init__(self, conn: sqlite3.Connection, kind: StatementKind, db: _Database) -> None:
        self.conn, self.kind, self.db = conn, kind, db
        self.name = f"ifx_sp{next(self._names)}"

    def __enter__(self) -> "_Savepoint":
        self.conn.execute(f"SAVEPOINT {self.name}")
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self.conn.execute(f"RELEASE {self.name}")
                return
            except sqlite3.Error as err:
                exc = err
        self.conn.execute(f"ROLLBACK TO {self.name}")
        self.conn.execute(f"RELEASE {self.name}")
        if isinstance(exc, sqlite3.Error):
            raise _map_error(exc, self.kind, self.db) from None


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def _storage(ctype: ColumnType) -> str:
    """SQLite declared type, which fixes the column's affinity and collation."""
    if exact_decimal(ctype):
        return "TEXT COLLATE ifx_decimal"
    return _STORAGE.get(ctype.code, "TEXT" if ctype.code in _TEXT_CODES else "INTEGER")


def _column_sql(col: ColumnDef) -> str:
    parts = [f'"{col.name}"', _storage(col.type)]
    if not col.type.nullable:
        parts.append("NOT NULL")
    if isinstance(col.default, Bind):
        parts.append("DEFAULT " + _literal(writer_for(col.type)(col.default.const)))
    elif isinstance(col.default, str):
        parts.append(f"DEFAULT ({col.default})")
    return " ".join(parts)


def _create_table(db: _Database, conn: sqlite3.Connection, ddl: CreateTable) -> None:
    if ddl.name in db.tables:
        if ddl.if_not_exists:
            return
        raise SqlError(-310, 0, ddl.name, f"table {ddl.name} already exists")
    names = [c.name for c in ddl.columns]
    for _, cols, _ in ddl.uniques:
        for col in cols:
            if col not in names:
                raise SqlError(-217, 0, col, f"column {col} not found")
    tabid = max([99, *db.tabids.values()]) + 1
    body = [_column_sql(c) for c in ddl.columns]
    imaged = _image_maker(ddl.columns) is not None
    if imaged:
        body.append(f"{IMAGE_COLUMN} BLOB")
    body += [f"CHECK {c}" for c in ddl.checks]
    conn.execute(f'CREATE TABLE "{ddl.name}" ({", ".join(body)})')
    if imaged:
        for trigger in _image_triggers(ddl.name, ddl.columns):
            conn.execute(trigger)
    conn.execute("INSERT INTO _ifx_tables (tabid, tabname, owner, created, tabtype, ncols,"
                 " rowsize) VALUES (?, ?, ?, ?, 'T', ?, ?)",
                 (tabid, ddl.name, OWNER, dt.date.today().toordinal() - _DAY0,
                  len(ddl.columns), sum(c.type.wire_width for c in ddl.columns)))
    for colno, col in enumerate(ddl.columns, start=1):
        _add_column(conn, tabid, colno, col)
    for seq, (cname, cols, primary) in enumerate(ddl.uniques, start=1):
        name = cname or f"u{tabid}_{seq}"
        _add_index(db, conn, _Index(name, ddl.name, cols, True, "P" if primary else "U"),
                   tabid)
    db.reload(conn)


def _image_triggers(table: str, columns: Sequence[ColumnDef]) -> list[str]:
    """Triggers recomputing a row's image from what was actually stored, so
    defaults, SERIAL numbers, INSERT ... SELECT and UPDATE expressions are all
    covered.  An INSERT that supplied the image itself skips the work."""
    names = ", ".join(f'"{c.name}"' for c in columns)
    args = ", ".join(f'new."{c.name}"' for c in columns)
    refresh = (f'UPDATE "{table}" SET {IMAGE_COLUMN} = ifx_image({_literal(table)}, {args})'
               " WHERE rowid = new.rowid;")
    return [f'CREATE TRIGGER "_ifx_image_ins_{table}" AFTER INSERT ON "{table}"'
            f" WHEN new.{IMAGE_COLUMN} IS NULL BEGIN {refresh} END",
            f'CREATE TRIGGER "_ifx_image_upd_{table}" AFTER UPDATE OF {names} ON "{table}"'
            f" BEGIN {refresh} END"]


def _add_column(conn: sqlite3.Connection, tabid: int, colno: int, col: ColumnDef) -> None:
    """Record a column: ``coltype`` is the type the engine stores, while
    syscolumns shows ``syscoltype``/``extended_id`` as Informix does, with
    LVARCHAR and BOOLEAN as built-in opaque types."""
    ctype = col.type
    conn.execute("INSERT INTO _ifx_columns (tabid, colno, colname, coltype, collength,"
                 " serial_start, syscoltype, extended_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (tabid, colno, col.name, ctype.wire_code, ctype.length, col.serial_start,
                  ctype.describe_code, ctype.extended_id))


def _add_index(db: _Database, conn: sqlite3.Connection, idx: _Index, tabid: int) -> None:
    if idx.name in db.indexes:
        raise SqlError(-316, 0, idx.name, f"index {idx.name} already exists")
    cols = ", ".join(f'"{c}"' for c in idx.columns)
    unique = "UNIQUE " if idx.unique else ""
    try:
        conn.execute(f'CREATE {unique}INDEX "{idx.name}" ON "{idx.table}" ({cols})')
    except sqlite3.IntegrityError:
        raise SqlError(-371, -100, idx.name, "duplicate values for unique index") from None
    conn.execute("INSERT INTO _ifx_indexes VALUES (?, ?, ?, ?, ?, ?)",
                 (idx.name, tabid, "U" if idx.unique else "D", idx.constraint,
                  _json_text(idx.columns), len(db.indexes) + 1))
    db.indexes[idx.name] = idx


def _create_index(db: _Database, conn: sqlite3.Connection, ddl: CreateIndex) -> None:
    tdef = db.tables.get(ddl.table)
    if tdef is None:
        raise SqlError(-206, -111, ddl.table, f"table {ddl.table} not found")
    for col in ddl.columns:
        if tdef.column(col) is None:
            raise SqlError(-217, 0, col, f"column {col} not found")
    _add_index(db, conn, _Index(ddl.name, ddl.table, ddl.columns, ddl.unique, None),
               db.tabids[ddl.table])


def _drop(db: _Database, conn: sqlite3.Connection, ddl: Drop) -> None:
    if ddl.what == "INDEX":
        if ddl.name not in db.indexes:
            if ddl.if_exists:
                return
            raise SqlError(-319, 0, ddl.name, f"index {ddl.name} does not exist")
        conn.execute(f'DROP INDEX "{ddl.name}"')
        conn.execute("DELETE FROM _ifx_indexes WHERE idxname = ?", (ddl.name,))
        del db.indexes[ddl.name]
        return
    tabid = db.tabids.get(ddl.name)
    if tabid is None:
        if ddl.if_exists:
            return
        raise SqlError(-206, -111, ddl.name, f"table {ddl.name} not found")
    if tabid < 100:
        raise SqlError(-201, 0, ddl.name, "system catalog tables cannot be dropped")
    conn.execute(f'DROP TABLE "{ddl.name}"')
    for meta in ("_ifx_tables", "_ifx_columns", "_ifx_indexes"):
        conn.execute(f"DELETE FROM {meta} WHERE tabid = ?", (tabid,))
    for key in [k for k in db.counters if k[0] == ddl.name]:
        del db.counters[key]
    db.reload(conn)
