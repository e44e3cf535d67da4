"""INTERVAL values as the emulator stores them: a year-month INTERVAL as
its count of months, a day-time one as SQLite INTEGER microseconds; the
writer that turns a client's value (``IntervalYM``, ``timedelta`` or the
interval's text) into that, raising the server's conversion errors."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Callable

from informix_stream.codecs import TU_DAY, TU_HOUR, TU_SECOND, TU_YEAR, ColumnType, IntervalYM

from .statements import NOT_SUPPORTED, SqlError, conversion_error

_INTERVAL_RE = re.compile(r"\s*(-?)\s*([\d\s:.\-]+?)\s*$")
_US = {TU_DAY: 86_400_000_000, TU_HOUR: 3_600_000_000, 8: 60_000_000,
       TU_SECOND: 1_000_000}


def writer(ctype: ColumnType) -> Callable[[object], object]:
    def write(v: object) -> object:
        if v is None:
            return None
        if isinstance(v, IntervalYM):
            if not ctype.is_year_month:
                raise other_class(v, ctype)
            return v.months
        if isinstance(v, dt.timedelta):
            if ctype.is_year_month:
                raise other_class(v, ctype)
            return _day_time_stored((v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds)
        if isinstance(v, str):
            return _day_time_stored(_parse_interval(v, ctype))
        if isinstance(v, (int, float, Decimal)):
            raise number_to_interval(v)
        raise conversion_error(-1262, v)
    return write


def number_to_interval(v: object) -> SqlError:
    """A number where an INTERVAL is wanted: no built-in cast converts one
    implicitly ("explicit casts with the UNITS operator are required for
    number-to-INTERVAL conversion", IBM Informix Guide to SQL: Reference,
    "Using Built-in Casts"; the DataBlade API guide's "Implicit data
    conversion": no automatic conversion from numeric variables to DATETIME
    and INTERVAL columns), so the server refuses the conversion: -1260 "It
    is not possible to convert between the specified types" (IBM JDBC
    15.0.1.0 message catalog, rds_en_US.properties; the code is taken from
    the catalog, not observed on a server).  The emulator once stored the
    number as microseconds: a silently wrong INTERVAL."""
    return SqlError(-1260, message=f"cannot convert the number {v!r} to an INTERVAL "
                                   "without UNITS")


def other_class(v: object, ctype: ColumnType) -> SqlError:
    """A day-time INTERVAL (``timedelta``) where a year-month one is wanted,
    or the reverse: the two classes do not convert into each other (a month
    has no fixed number of days; IBM Informix Guide to SQL: Reference,
    "INTERVAL data type": year-month and day-time classes), so the server
    refuses: -1266 "Intervals or datetimes are incompatible for the
    operation" (IBM JDBC 15.0.1.0 message catalog, rds_en_US.properties; the
    code is the catalog's, not observed on a server).  The emulator once
    stored the one's count (months or microseconds) as the other's."""
    kind = "year-month" if ctype.is_year_month else "day-time"
    return SqlError(-1266, message=f"a {type(v).__name__} is not a {kind} INTERVAL "
                                   f"({ctype.sql()})")


_STORED_INTERVAL_LIMIT = 2 ** 63


def _day_time_stored(microseconds: int) -> int:
    """A day-time INTERVAL as stored: SQLite INTEGER microseconds, which hold
    about 106,751,991 days; a DAY(9) interval can hold more.  Beyond that the
    emulator says it lacks the feature (a real server stores the value)."""
    if -_STORED_INTERVAL_LIMIT < microseconds < _STORED_INTERVAL_LIMIT:
        return microseconds
    raise SqlError(NOT_SUPPORTED, message="day-time INTERVAL values beyond 106,751,991 days "
                                          "are not supported by the emulator")


def _parse_interval(text: str, ctype: ColumnType) -> int:
    m = _INTERVAL_RE.match(text)
    if not m or re.search(r"[^0-9\s:.\-]", text):
        raise conversion_error(-1262, text)
    sign = -1 if m.group(1) else 1
    parts = [p for p in re.split(r"[\s:\-.]+", m.group(2)) if p]
    units = list(range(ctype.start, min(ctype.end, TU_SECOND) + 1, 2))
    fraction = parts.pop() if ctype.fraction_digits and len(parts) == len(units) + 1 else ""
    if len(parts) != len(units):
        raise conversion_error(-1263, text)
    if ctype.is_year_month:
        total = sum(int(p) * (12 if u == TU_YEAR else 1) for p, u in zip(parts, units))
    else:
        total = sum(int(p) * _US[u] for p, u in zip(parts, units))
        total += int(fraction.ljust(6, "0")[:6]) if fraction else 0
    return sign * total
