"""Informix built-in functions the dialect maps onto SQLite user functions.

The dialect renames a call such as ``LENGTH(x)`` or ``MDY(m, d, y)`` to an
``ifx_*`` function (see dialect._FUNCTION_RENAMES); this module defines them
over stored values (DATE as an Informix day number, text as str) and
registers them on each SQLite connection a session opens.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from typing import Callable, NoReturn

from .arith import ARITH_FUNCTIONS
from .casts import cast_value
from .statements import SqlError
from .values import DAY0

_raised = threading.local()


def fail(err: SqlError) -> NoReturn:
    """Raise ``err`` out of a SQLite user function.

    SQLite reports any exception from a user function as one generic
    OperationalError; the SqlError is kept here (per thread: one session runs
    on one thread at a time) for sqlite_errors.map_error to take back, so the
    client gets the server's sqlcode instead of a generic failure.
    """
    _raised.error = err
    raise err


def take_raised() -> SqlError | None:
    """The SqlError a user function last raised on this thread, once."""
    err = getattr(_raised, "error", None)
    _raised.error = None
    return err


def _reporting(func: Callable[..., object]) -> Callable[..., object]:
    """Wrap a user function so a SqlError it raises reaches the client."""
    def call(*args: object) -> object:
        try:
            return func(*args)
        except SqlError as err:
            fail(err)
    return call


def register_builtins(conn: sqlite3.Connection, codec: str = "iso-8859-1") -> None:
    """The session-independent ``ifx_*`` functions, on one connection;
    ``codec`` is the database's code set (lengths count its bytes)."""
    for name, (nargs, func) in ARITH_FUNCTIONS.items():
        conn.create_function(name, nargs, _reporting(func), deterministic=True)
    conn.create_function("ifx_cast", 5, _reporting(cast_value), deterministic=True)
    for name, part in (("ifx_year", "year"), ("ifx_month", "month"), ("ifx_day", "day")):
        conn.create_function(name, 1, date_part(part), deterministic=True)
    conn.create_function("ifx_weekday", 1, lambda d: None if d is None else
                         (d + DAY0) % 7, deterministic=True)
    conn.create_function("ifx_length", 1, lambda v: informix_length(v, codec),
                         deterministic=True)
    conn.create_function("ifx_octet_length", 2, lambda v, w: octet_length(v, w, codec),
                         deterministic=True)
    conn.create_function("ifx_mdy", 3, lambda m, d, y: dt.date(y, m, d).toordinal() - DAY0,
                         deterministic=True)


def informix_length(value: object, codec: str = "iso-8859-1") -> int | None:
    """Informix LENGTH: bytes without the trailing blanks, for any text."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return len(text.rstrip(" ").encode(codec, "replace"))


def octet_length(value: object, width: int, codec: str = "iso-8859-1") -> int | None:
    """OCTET_LENGTH counts trailing blanks, so a CHAR(n) is always n bytes."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return max(len(text.encode(codec, "replace")), width)


def date_part(part: str) -> Callable[[object], object]:
    def get(day: object) -> object:
        if day is None:
            return None
        return getattr(dt.date.fromordinal(int(day) + DAY0), part)
    return get
