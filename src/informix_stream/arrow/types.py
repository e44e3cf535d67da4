"""The documented Informix -> Arrow type map, and each column's time unit.

=========================================  ==========================================
Informix                                   Arrow
=========================================  ==========================================
SMALLINT                                   int16
INTEGER, SERIAL                            int32
BIGINT, BIGSERIAL, INT8, SERIAL8           int64
SMALLFLOAT / FLOAT                         float32 / float64
DECIMAL(p,s), MONEY(p,s)                   decimal128(p, s)
floating DECIMAL(p)                        float64 (its scale varies per value; cast
                                           in SQL to DECIMAL(p,s) to keep every digit)
DATE                                       date32
DATETIME YEAR/MONTH/DAY TO DAY or earlier  date32
DATETIME ... TO HOUR/MINUTE/SECOND         timestamp[s]
DATETIME ... TO FRACTION(1..3)             timestamp[ms]
DATETIME ... TO FRACTION(4,5)              timestamp[us]
DATETIME HOUR/MINUTE/SECOND TO ...         time32[s] / time32[ms] / time64[us] (same rule)
INTERVAL YEAR/MONTH ...                    month_day_nano_interval (months only)
INTERVAL DAY ... FRACTION                  duration[s] / duration[ms] / duration[us]
CHAR, NCHAR, VARCHAR, NVARCHAR             string (CHAR keeps its blanks)
LVARCHAR                                   large_string
BOOLEAN                                    bool
=========================================  ==========================================

Partial DATETIME qualifiers follow the tuple path's one rule: fields before
the qualifier's first one read as 2000-01-01 (so MONTH TO DAY '02-29' is a
date), a qualifier ending by DAY is a date, one starting at HOUR is a time of
day.  NULL is a null in the validity bitmap, for every type.
"""

from __future__ import annotations

from ..codec.typeinfo import TU_DAY, TU_HOUR, ColumnType, TypeCode, check_decodable

_INTS = {TypeCode.SMALLINT: "int16", TypeCode.INTEGER: "int32", TypeCode.SERIAL: "int32",
         TypeCode.BIGINT: "int64", TypeCode.BIGSERIAL: "int64", TypeCode.INT8: "int64",
         TypeCode.SERIAL8: "int64"}
_TEXT = (TypeCode.CHAR, TypeCode.NCHAR, TypeCode.VARCHAR, TypeCode.NVARCHAR)
# Ticks per second of each unit.
UNIT_TICKS = {"s": 1, "ms": 1000, "us": 1_000_000}


def time_unit(ctype: ColumnType) -> str:
    """s for whole seconds (or coarser), ms for FRACTION(1..3), us beyond."""
    digits = ctype.fraction_digits
    return "s" if digits == 0 else "ms" if digits <= 3 else "us"


def temporal_kind(ctype: ColumnType) -> str:
    """For DATETIME: 'date', 'time' or 'timestamp' by the qualifier rule above."""
    if ctype.start >= TU_HOUR:
        return "time"
    if ctype.end <= TU_DAY:
        return "date"
    return "timestamp"


def arrow_type(pa, ctype: ColumnType):
    """The Arrow type of one column (see the module docstring)."""
    check_decodable(ctype)
    code = ctype.code
    if code in _INTS:
        return getattr(pa, _INTS[code])()
    if code == TypeCode.SMALLFLOAT:
        return pa.float32()
    if code == TypeCode.FLOAT:
        return pa.float64()
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        if ctype.scale is None:
            return pa.float64()
        return pa.decimal128(ctype.precision, ctype.scale)
    if code == TypeCode.DATE:
        return pa.date32()
    if code == TypeCode.DATETIME:
        kind, unit = temporal_kind(ctype), time_unit(ctype)
        if kind == "date":
            return pa.date32()
        if kind == "time":
            return pa.time64(unit) if unit == "us" else pa.time32(unit)
        return pa.timestamp(unit)
    if code == TypeCode.INTERVAL:
        return pa.month_day_nano_interval() if ctype.is_year_month else pa.duration(
            time_unit(ctype))
    if code in _TEXT:
        return pa.string()
    if code == TypeCode.LVARCHAR:
        return pa.large_string()
    if code == TypeCode.BOOLEAN:
        return pa.bool_()
    raise ValueError(f"no Arrow type for {ctype.sql()}")


def arrow_schema(pa, names: list[str], types: list[ColumnType]):
    return pa.schema([pa.field(name, arrow_type(pa, t))
                      for name, t in zip(names, types)])
