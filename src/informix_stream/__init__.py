"""informix_stream: a pure-Python streaming driver for IBM Informix (PEP 249).

``connect()`` opens an SQLI session over a socket; ``conn.cursor()`` streams
results a fetch buffer at a time; ``conn.cursor(materialize=True)`` reads
everything at execute; ``conn.cursor(scrollable=True)`` moves freely.
"""

from __future__ import annotations

import datetime as _dt
import time as _time

from .codecs import IntervalYM, TypeCode
from .codec.lob import Text
from .async_connection import AsyncConnection, connect_async
from .async_cursors import AsyncCursor, AsyncMaterializingCursor, AsyncScrollableCursor
from .async_pool import AsyncConnectionPool
from .connection import Connection, connect
from .pool import ConnectionPool
from .pool_base import PoolClosed, PoolTimeout
from .rows import dict_row, namedtuple_row, tuple_row
from .cursors import Cursor, MaterializingCursor, ScrollableCursor
from .errors import (DatabaseError, DataError, Error, IntegrityError,
                     InterfaceError, InternalError, NotSupportedError,
                     OperationalError, ProgrammingError, Warning)

__version__ = "0.1.0"

apilevel = "2.0"
threadsafety = 2          # threads may share connections; a cursor is one thread's at a time
paramstyle = "qmark"      # ":1" numeric markers are accepted as well

__all__ = [
    "connect", "Connection", "Cursor", "MaterializingCursor", "ScrollableCursor",
    "connect_async", "AsyncConnection", "AsyncCursor", "AsyncMaterializingCursor",
    "AsyncScrollableCursor", "ConnectionPool", "AsyncConnectionPool", "PoolTimeout",
    "PoolClosed", "tuple_row", "dict_row", "namedtuple_row", "IntervalYM", "Text", "apilevel", "threadsafety",
    "paramstyle", "Warning", "Error", "InterfaceError", "DatabaseError", "DataError",
    "OperationalError", "IntegrityError", "InternalError", "ProgrammingError",
    "NotSupportedError", "Date", "Time", "Timestamp", "DateFromTicks", "TimeFromTicks",
    "TimestampFromTicks", "Binary", "STRING", "BINARY", "NUMBER", "DATETIME", "ROWID",
]

Date = _dt.date
Time = _dt.time
Timestamp = _dt.datetime
Binary = bytes


def DateFromTicks(ticks: float) -> _dt.date:  # noqa: N802 - PEP 249 name
    return Date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks: float) -> _dt.time:  # noqa: N802 - PEP 249 name
    return Time(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks: float) -> _dt.datetime:  # noqa: N802 - PEP 249 name
    return Timestamp(*_time.localtime(ticks)[:6])


class _TypeSet(frozenset):
    """A PEP 249 type object: equal to every type code it stands for."""

    def __eq__(self, other: object) -> bool:
        return other in self if isinstance(other, int) else frozenset.__eq__(self, other)

    __hash__ = frozenset.__hash__


STRING = _TypeSet({TypeCode.CHAR, TypeCode.VARCHAR, TypeCode.NCHAR, TypeCode.NVARCHAR,
                   TypeCode.LVARCHAR, TypeCode.TEXT})
BINARY = _TypeSet({TypeCode.BYTE})
NUMBER = _TypeSet({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.BIGINT, TypeCode.INT8,
                   TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL, TypeCode.FLOAT,
                   TypeCode.SMALLFLOAT, TypeCode.DECIMAL, TypeCode.MONEY, TypeCode.BOOLEAN})
DATETIME = _TypeSet({TypeCode.DATE, TypeCode.DATETIME, TypeCode.INTERVAL})
ROWID = _TypeSet({TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL})
