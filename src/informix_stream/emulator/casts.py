"""Casts (``expr::type``, ``CAST(expr AS type)``) and Informix's text forms.

The dialect types a cast's operand and emits ``ifx_cast(value, from_code,
from_length, to_code, to_length)``; this module turns the operand's stored
value into the Python value its type means (values.reader_for), then into
the target: to text through the server's text form of the source type, to
anything else through the target's writer (values.writer_for), which raises
the server's conversion errors (-1213 text to number, -1218/-1204..-1206 text
to DATE, -1262..-1264 text to DATETIME/INTERVAL).

Text forms, with the default environment a client gets from the emulator
(IBM, Guide to SQL: Reference, environment variables DBDATE, DBMONEY,
GL_DATETIME):

* DATE: the session's DBDATE (dbdate.py; MDY4/, ``mm/dd/yyyy``, by default);
* DATETIME: ``YYYY-MM-DD hh:mm:ss.fffff`` restricted to its qualifier's
  fields (the literal form, which is how the engine stores it);
* DECIMAL: plain digits, no exponent, exactly its scale's fraction digits
  (a floating DECIMAL(p) shows the digits it holds);
* MONEY: DBMONEY's default front symbol ``$`` and period: ``$100.50``;
* INTERVAL: its fields with ``-`` between year and month, a blank between
  day and hour, ``:`` between time fields, the first field right-aligned to
  its declared digits;
* BOOLEAN: ``t`` or ``f``.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Callable

from informix_stream.codecs import TU_DAY, TU_HOUR, TU_MONTH, TU_SECOND, TU_YEAR, ColumnType, \
    TypeCode

from . import dbdate
from .statements import NOT_SUPPORTED, ResultColumn, SqlError
from .values import TEXT_CODES, reader_for, writer_for

UNKNOWN = -1
"""``from_code`` of an operand the dialect could not type (a bound ``?``)."""

_NUMERIC = frozenset({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.SERIAL, TypeCode.INT8,
                      TypeCode.SERIAL8, TypeCode.BIGINT, TypeCode.BIGSERIAL, TypeCode.FLOAT,
                      TypeCode.SMALLFLOAT, TypeCode.DECIMAL, TypeCode.MONEY})
_SCALAR = _NUMERIC | TEXT_CODES | {TypeCode.DATE, TypeCode.DATETIME, TypeCode.INTERVAL,
                                   TypeCode.BOOLEAN}
# Source -> target kinds the emulator converts; anything else is refused at
# translation with NOT_SUPPORTED (see check_cast).
_TEMPORAL_FROM = {
    TypeCode.DATE: TEXT_CODES | {TypeCode.DATE, TypeCode.DATETIME} | _NUMERIC,
    TypeCode.DATETIME: TEXT_CODES | {TypeCode.DATE, TypeCode.DATETIME},
    TypeCode.INTERVAL: TEXT_CODES | {TypeCode.INTERVAL},   # same class: see check_cast
    TypeCode.BOOLEAN: TEXT_CODES | {TypeCode.BOOLEAN},
}


TEXT_FORMED = frozenset({TypeCode.DATE, TypeCode.INTERVAL, TypeCode.BOOLEAN}) | \
    frozenset({TypeCode.DECIMAL, TypeCode.MONEY, TypeCode.FLOAT, TypeCode.SMALLFLOAT})
"""Types whose stored SQLite value is not their Informix text (a DATE's day
number, an INTERVAL's microseconds, a DECIMAL(8,2) 1.50 held as 1.5): where
such a value becomes text implicitly (written to a character column,
concatenated) it goes through ifx_cast to a character type, as CAST does."""


def check_cast(source: ColumnType | None, target: ColumnType) -> None:
    """Refuse, at translation, a cast the emulator cannot perform."""
    ok = target.code in _SCALAR
    if ok and source is not None and source.code in _TEMPORAL_FROM:
        ok = target.code in _TEMPORAL_FROM[source.code]
    elif ok and source is not None and source.code in _NUMERIC:
        ok = target.code in _NUMERIC | TEXT_CODES | {TypeCode.DATE, TypeCode.BOOLEAN}
    elif ok and source is not None and source.code not in TEXT_CODES:
        ok = False
    if ok and source is not None and source.code == TypeCode.INTERVAL == target.code:
        ok = source.is_year_month == target.is_year_month
    if not ok:
        what = source.sql() if source is not None else "this value"
        raise SqlError(NOT_SUPPORTED, message=f"a cast from {what} to {target.sql()} is not "
                                              f"supported by the emulator")


def cast_value(value: object, from_code: int, from_length: int, to_code: int,
               to_length: int) -> object:
    """ifx_cast: the stored form of ``value`` converted to the target type."""
    if value is None:
        return None
    return _caster(from_code, from_length, to_code, to_length)(value)


@functools.lru_cache(maxsize=512)
def _caster(from_code: int, from_length: int, to_code: int,
            to_length: int) -> Callable[[object], object]:
    target = ColumnType(TypeCode(to_code), to_length)
    write = writer_for(target)
    if from_code == UNKNOWN:
        return write
    source = ColumnType(TypeCode(from_code), from_length)
    read = reader_for(ResultColumn("", source, False)) or (lambda v: v)
    if target.code in TEXT_CODES:
        form = _text_form(source)
        if source.code in TEXT_CODES:
            return lambda v: write(read(v))          # longer text is cut, as the server does
        limit = target.precision
        return lambda v: write(_fits(form(read(v), v), limit, target))
    if source.code == TypeCode.DATE and target.code in _NUMERIC:
        return write                         # a DATE's number is its day count
    if source.code == TypeCode.BOOLEAN and target.code == TypeCode.BOOLEAN:
        return lambda v: v
    return lambda v: write(read(v))


def _text_form(source: ColumnType) -> Callable[[object, object], str]:
    """(Python value, stored value) -> the server's text for a value of ``source``."""
    code = source.code
    if code == TypeCode.DATE:
        return lambda d, _: dbdate.current().format(d)
    if code == TypeCode.DATETIME:
        return lambda _, stored: str(stored)        # stored in its literal form
    if code == TypeCode.DECIMAL:
        return lambda d, _: format(d, "f")
    if code == TypeCode.MONEY:
        return lambda d, _: ("-$" if d < 0 else "$") + format(abs(d), "f")
    if code == TypeCode.INTERVAL:
        return lambda _, stored: interval_text(int(stored), source)
    if code == TypeCode.BOOLEAN:
        return lambda b, _: "t" if b else "f"
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return lambda f, _: _float_text(f)
    return lambda v, _: str(v)


def _fits(text: str, limit: int, target: ColumnType) -> str:
    """A value's text cut short would be a different value: refuse it."""
    if len(text) > limit:
        raise SqlError(NOT_SUPPORTED, message=f"{text!r} does not fit in {target.sql()}; a "
                                              f"cast that truncates a value is not supported "
                                              f"by the emulator")
    return text


def _float_text(f: float) -> str:
    """A FLOAT as digits without an exponent where that is short, as dbaccess
    shows it; the shortest exact digits otherwise."""
    if f == int(f) and abs(f) < 1e15:
        return str(int(f))
    text = repr(f)
    return format(Decimal(text), "f") if "e" in text and abs(f) >= 1e-6 else text


_YM_UNITS = ((TU_YEAR, 12), (TU_MONTH, 1))
_DT_UNITS = ((TU_DAY, 86_400_000_000), (TU_HOUR, 3_600_000_000), (8, 60_000_000),
             (TU_SECOND, 1_000_000))
_SEPARATORS = {TU_MONTH: "-", TU_HOUR: " ", 8: ":", TU_SECOND: ":"}


def interval_text(stored: int, itype: ColumnType) -> str:
    """An INTERVAL's text: ``  1-06`` for YEAR(4) TO MONTH, ``  3 04:05:06.000``
    for DAY(3) TO FRACTION(3); the sign leads the first field."""
    units = _YM_UNITS if itype.is_year_month else _DT_UNITS
    rest = abs(stored)
    parts: list[str] = []
    for unit, size in units:
        if unit < itype.start or unit > min(itype.end, TU_SECOND):
            continue
        first = not parts
        value, rest = divmod(rest, size)
        if first:
            text = ("-" if stored < 0 else "") + str(value)
            parts.append(text.rjust(itype.leading_digits + (stored < 0)))
        else:
            parts.append(_SEPARATORS[unit] + f"{value:02d}")
    if not itype.is_year_month and itype.fraction_digits:
        parts.append("." + f"{rest:06d}"[:itype.fraction_digits])
    return "".join(parts)
