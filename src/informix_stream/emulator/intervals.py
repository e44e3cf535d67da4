"""INTERVAL values as the emulator stores them: a year-month INTERVAL as
its count of months, a day-time one as SQLite INTEGER microseconds; the
writer that turns a client's value (``IntervalYM``, ``timedelta`` or the
interval's text) into that, raising the server's conversion errors."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Callable

from informix_stream.codecs import (TU_DAY, TU_HOUR, TU_MINUTE, TU_MONTH, TU_SECOND, TU_YEAR,
                                    ColumnType, IntervalYM)

from .statements import NOT_SUPPORTED, SqlError, conversion_error

_INTERVAL_RE = re.compile(r"\s*(-?)\s*([\d\s:.\-]+?)\s*$")
_US = {TU_DAY: 86_400_000_000, TU_HOUR: 3_600_000_000, TU_MINUTE: 60_000_000,
       TU_SECOND: 1_000_000}
# A field after the first holds less than one of the field before it (IBM
# Informix Guide to SQL: Reference, "INTERVAL data type": MONTH 0-11, HOUR
# 0-23, MINUTE and SECOND 0-59 when not the first field).
_FIELD_LIMIT = {TU_MONTH: 12, TU_HOUR: 24, TU_MINUTE: 60, TU_SECOND: 60}

# The leading field of INTERVAL DAY(p) TO ... holds at most p digits, so
# |value| < 10**p days (IBM Informix Guide to SQL: Reference, "INTERVAL data
# type": the precision of the first field is its digit count; a negative
# value has the same bound).  A value past it is refused where it would be
# stored, never kept to fail at fetch.  The codes are the closest ones IBM's
# message catalog documents (IBM JDBC 15.0.1.0 message catalog,
# rds_en_US.properties); neither was observed on a server for this case:
# -1261 "Too many digits in the first field of datetime or interval" for a
# text whose first field is too long; -1265 "Overflow occurred on a datetime
# or interval operation" for an INTERVAL value converted to a narrower
# qualifier (a bound value, a column or a wider INTERVAL literal), the
# error users report for a DATETIME difference cast to an INTERVAL SECOND(9)
# TO SECOND it overflows.
TEXT_TOO_LONG = -1261
VALUE_OVERFLOW = -1265


def writer(ctype: ColumnType) -> Callable[[object], object]:
    def write(v: object) -> object:
        if v is None:
            return None
        if isinstance(v, IntervalYM):
            if not ctype.is_year_month:
                raise other_class(v, ctype)
            return fitted(v.months, ctype, v)
        if isinstance(v, dt.timedelta):
            if ctype.is_year_month:
                raise other_class(v, ctype)
            return fitted((v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds, ctype, v)
        if isinstance(v, str):
            return fitted(_parse_interval(v, ctype), ctype, v)
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


def leading_limit(ctype: ColumnType) -> int:
    """The exclusive bound of |stored value| (months or microseconds) the
    qualifier's leading precision allows: 10**p of its first field."""
    unit = (12 if ctype.start == TU_YEAR else 1) if ctype.is_year_month else _US[ctype.start]
    return 10 ** ctype.leading_digits * unit


def _last_unit(ctype: ColumnType) -> int:
    """The stored amount of one unit of the qualifier's last field."""
    if ctype.is_year_month:
        return 12 if ctype.end == TU_YEAR else 1
    if ctype.end > TU_SECOND:
        return 10 ** max(0, 6 - ctype.fraction_digits)
    return _US[ctype.end]


def fitted(stored: int, ctype: ColumnType, shown: object) -> int:
    """``stored`` as a column of ``ctype`` keeps it: cut to the qualifier's
    last field (what the driver's encoder sends back, so a kept 1.5 days in
    a DAY TO DAY column is never read as 1 yet compared as 1.5; the server
    truncates trailing fields, unconfirmed for this exact case), refused
    when its leading field overflows (see VALUE_OVERFLOW)."""
    unit = _last_unit(ctype)
    if unit > 1:
        stored = -(-stored // unit * unit) if stored < 0 else stored // unit * unit
    if -leading_limit(ctype) < stored < leading_limit(ctype):
        return _day_time_stored(stored)
    raise SqlError(VALUE_OVERFLOW, message=f"{shown!r} overflows the leading field of "
                                           f"{ctype.sql()}")


def _day_time_stored(microseconds: int) -> int:
    """A day-time INTERVAL as stored: SQLite INTEGER microseconds, which hold
    about 106,751,991 days; a DAY(9) interval can hold more.  Beyond that the
    emulator says it lacks the feature (a real server stores the value)."""
    if -_STORED_INTERVAL_LIMIT < microseconds < _STORED_INTERVAL_LIMIT:
        return microseconds
    raise SqlError(NOT_SUPPORTED, message="day-time INTERVAL values beyond 106,751,991 days "
                                          "are not supported by the emulator")


def check_sql(column: str, ctype: ColumnType) -> str | None:
    """A SQLite CHECK keeping what no writer saw (an INSERT ... SELECT, an
    UPDATE from another column, a wider INTERVAL literal) within the
    column's leading precision; None when storage bounds it anyway.  The
    constraint's name carries the column, for sqlite_errors."""
    limit = leading_limit(ctype)
    if limit >= _STORED_INTERVAL_LIMIT:
        return None
    quoted = '"' + column.replace('"', '""') + '"'
    name = '"' + (RANGE_CHECK + column).replace('"', '""') + '"'
    return f"CONSTRAINT {name} CHECK ({quoted} > -{limit} AND {quoted} < {limit})"


RANGE_CHECK = "_ifx_interval_range_"


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
    if len(parts[0].lstrip("0")) > ctype.leading_digits:
        raise conversion_error(TEXT_TOO_LONG, text)
    if any(int(p) >= _FIELD_LIMIT[u] for p, u in zip(parts[1:], units[1:])):
        raise conversion_error(-1263, text)
    if ctype.is_year_month:
        total = sum(int(p) * (12 if u == TU_YEAR else 1) for p, u in zip(parts, units))
    else:
        total = sum(int(p) * _US[u] for p, u in zip(parts, units))
        total += int(fraction.ljust(6, "0")[:6]) if fraction else 0
    return sign * total
