"""Informix column types for SQLAlchemy, and catalog type codes read back as them.

The DDL names and qualifiers are Informix's (IBM Informix Guide to SQL:
Reference, "Data types"); decoding ``syscolumns.coltype``/``collength``
reuses the driver's own ``codec.typeinfo.ColumnType`` so the catalog and the
wire share one reading of those numbers.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from sqlalchemy import types as sqltypes
from sqlalchemy.sql import sqltypes as _sqltypes
from sqlalchemy.sql.type_api import NativeForEmulated
from sqlalchemy.types import TypeEngine

from ..codec.typeinfo import (TU_DAY, TU_FRACTION, TU_NAMES, TU_SECOND, ColumnType, TypeCode,
                              column_type_from_describe)
from ..errors import NotSupportedError

__all__ = ["BOOLEAN", "BYTE", "DATETIME", "INTERVAL", "LVARCHAR", "MONEY", "NCHAR",
           "NVARCHAR", "SERIAL", "SERIAL8", "BIGSERIAL", "INT8", "SMALLFLOAT", "TEXT",
           "type_from_catalog"]

# Informix keeps at most five fractional digits (FRACTION(5), i.e. 10 us).
MAX_FRACTION = 5
_UNITS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")


def _unit_text(unit: str) -> str:
    unit = unit.upper().replace(" ", "")
    if re.fullmatch(r"FRACTION(\([1-5]\))?", unit):
        return unit
    if unit not in _UNITS:
        raise ValueError(f"not an Informix time unit: {unit!r}")
    return unit


class DATETIME(sqltypes.DateTime):
    """``DATETIME start TO end``; the default is the full YEAR TO FRACTION(5)."""

    __visit_name__ = "DATETIME"

    def __init__(self, start: str = "YEAR", end: str = "FRACTION(5)") -> None:
        super().__init__(timezone=False)
        self.start = _unit_text(start)
        self.end = _unit_text(end)

    @property
    def qualifier(self) -> str:
        return f"{self.start} TO {self.end}"


class INTERVAL(NativeForEmulated, _sqltypes._AbstractInterval):
    """``INTERVAL first(p) TO last``; DAY TO FRACTION(5) unless told otherwise."""

    __visit_name__ = "INTERVAL"
    native = True

    def __init__(self, start: str = "DAY", end: str = "FRACTION(5)", precision: int = 9) -> None:
        self.start = _unit_text(start)
        self.end = _unit_text(end)
        self.precision = precision

    @classmethod
    def adapt_emulated_to_native(cls, interval: Any, **kw: Any) -> INTERVAL:
        """``sqlalchemy.Interval`` becomes DAY(9) TO FRACTION(5) (or TO SECOND)."""
        seconds = getattr(interval, "second_precision", None)
        end = "SECOND" if seconds == 0 else "FRACTION(5)"
        return cls(start="DAY", end=end, precision=getattr(interval, "day_precision", None) or 9)

    @property
    def _type_affinity(self) -> type:
        return sqltypes.Interval

    def as_generic(self, allow_nulltype: bool = False) -> TypeEngine:
        return sqltypes.Interval(native=True)

    @property
    def python_type(self) -> type:
        return datetime.timedelta


# Column type codes the driver already reads as Python float (codec/rowdecode.py).
_FLOAT_CODES = frozenset({int(TypeCode.FLOAT), int(TypeCode.SMALLFLOAT)})


class FloatResult(sqltypes.Float):
    """``Float`` (and REAL, DOUBLE) read back: no ``float()`` per row when
    the result column is FLOAT/SMALLFLOAT, since the driver hands out
    floats.  Any other column (a DECIMAL one, an expression the driver reads
    as Decimal) keeps SQLAlchemy's conversion.  ``coltype`` is the column's
    PEP 249 type_code, the Informix type number."""

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        if not self.asdecimal and coltype in _FLOAT_CODES:
            return None
        return super().result_processor(dialect, coltype)


class MONEY(sqltypes.Numeric):
    __visit_name__ = "MONEY"


class LVARCHAR(sqltypes.String):
    """Variable text up to 32739 bytes; the default length is 2048."""

    __visit_name__ = "LVARCHAR"


class NCHAR(sqltypes.NCHAR):
    __visit_name__ = "NCHAR"


class NVARCHAR(sqltypes.NVARCHAR):
    __visit_name__ = "NVARCHAR"


class TEXT(sqltypes.Text):
    """The simple large object TEXT (not comparable, not indexable on the server)."""

    __visit_name__ = "TEXT"


class BYTE(sqltypes.LargeBinary):
    __visit_name__ = "BYTE"


class BOOLEAN(sqltypes.Boolean):
    __visit_name__ = "BOOLEAN"


class SMALLFLOAT(sqltypes.REAL):
    __visit_name__ = "SMALLFLOAT"


class INT8(sqltypes.BigInteger):
    __visit_name__ = "INT8"


class SERIAL(sqltypes.Integer):
    __visit_name__ = "SERIAL"


class SERIAL8(sqltypes.BigInteger):
    __visit_name__ = "SERIAL8"


class BIGSERIAL(sqltypes.BigInteger):
    __visit_name__ = "BIGSERIAL"


def _unit_name(code: int) -> str:
    return f"FRACTION({code - TU_SECOND})" if code > TU_SECOND else TU_NAMES[code]


def _temporal(ct: ColumnType) -> TypeEngine:
    if ct.code == TypeCode.INTERVAL:
        return INTERVAL(_unit_name(ct.start), _unit_name(ct.end), ct.leading_digits)
    if ct.start >= TU_FRACTION:
        return DATETIME(_unit_name(ct.start), _unit_name(ct.end))
    if ct.start > TU_DAY:
        # HOUR TO ... reads back as datetime.time: SQLAlchemy's Time.
        return sqltypes.TIME() if (ct.start, ct.end) == (6, TU_SECOND) else \
            DATETIME(_unit_name(ct.start), _unit_name(ct.end))
    if (ct.start, ct.end) == (0, TU_DAY):
        return DATETIME("YEAR", "DAY")
    return DATETIME(_unit_name(ct.start), _unit_name(ct.end))


def _decimal(ct: ColumnType) -> TypeEngine:
    cls = MONEY if ct.code == TypeCode.MONEY else sqltypes.DECIMAL
    return cls(precision=ct.precision, scale=ct.scale)


def _varchar(ct: ColumnType) -> TypeEngine:
    cls = NVARCHAR if ct.code == TypeCode.NVARCHAR else sqltypes.VARCHAR
    return cls(length=ct.precision)


_FIXED: dict[TypeCode, Any] = {
    TypeCode.SMALLINT: sqltypes.SMALLINT, TypeCode.INTEGER: sqltypes.INTEGER,
    # A serial column reflects as its integer type with autoincrement set.
    TypeCode.SERIAL: sqltypes.INTEGER, TypeCode.INT8: INT8, TypeCode.SERIAL8: INT8,
    TypeCode.BIGINT: sqltypes.BIGINT, TypeCode.BIGSERIAL: sqltypes.BIGINT,
    TypeCode.FLOAT: sqltypes.FLOAT, TypeCode.SMALLFLOAT: SMALLFLOAT,
    TypeCode.DATE: sqltypes.DATE, TypeCode.BOOLEAN: BOOLEAN,
    TypeCode.BYTE: BYTE, TypeCode.TEXT: TEXT,
}
_BUILDERS = {
    TypeCode.DECIMAL: _decimal, TypeCode.MONEY: _decimal,
    TypeCode.DATETIME: _temporal, TypeCode.INTERVAL: _temporal,
    TypeCode.VARCHAR: _varchar, TypeCode.NVARCHAR: _varchar,
    TypeCode.CHAR: lambda ct: sqltypes.CHAR(ct.length),
    TypeCode.NCHAR: lambda ct: NCHAR(ct.length),
    TypeCode.LVARCHAR: lambda ct: LVARCHAR(ct.length),
}


def type_from_catalog(coltype: int, collength: int, extended_id: int = 0) -> TypeEngine | None:
    """The SQLAlchemy type of a syscolumns row; None for a type we cannot name.

    BOOLEAN and LVARCHAR may be stored as their own codes (45, 43) or as the
    opaque codes 41/40 with an extended id, as DESCRIBE sends them.
    """
    try:
        ct = column_type_from_describe(coltype, extended_id, collength)
    except NotSupportedError:
        return None
    if ct.code in _FIXED:
        return _FIXED[ct.code]()
    builder = _BUILDERS.get(ct.code)
    return builder(ct) if builder else None
