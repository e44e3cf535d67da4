"""Which Arrow column types load into which Informix columns (issue 14).

A load binds each Arrow column to a described column (the DESCRIBE of the
prepared INSERT, one column per marker).  Before any row is sent, every
bound column's Arrow type is checked against its target here, once per
load: a pair this table refuses is a DataError naming the Arrow column,
its type and the column's Informix type, and nothing of the load is sent.
Without the check a value-by-value fallback would bind each cell's Python
form and let the server convert it: a list<int64> into VARCHAR stored as
the text 'LIST{1,2}', a time of day into DATETIME YEAR TO SECOND as
today's date at that time, an integer into DATE as a day count from
1899-12-31 (Arrow's days count from 1970), a bool into INTEGER refused at
row 0 without the column's name.

The table is the read map's inverse (arrow/types.py: what reading gives
for a column loads back into it) plus the conversions the Python paths
already make with the same result (each allowed pair binds exactly what
it bound before this check existed):

===================================  ==========================================
Arrow (dictionary: its value type)   loads into
===================================  ==========================================
int8..int64, uint8..uint64           SMALLINT, INTEGER, INT8, BIGINT, SERIAL,
                                     SERIAL8, BIGSERIAL, FLOAT, SMALLFLOAT,
                                     DECIMAL, MONEY (range checked per value)
float16/32/64                        FLOAT, SMALLFLOAT, DECIMAL, MONEY
decimal(p, s)                        DECIMAL, MONEY, FLOAT, SMALLFLOAT; the
                                     integer types too when s <= 0
string, large_string, string_view    every type but BYTE and BLOB (the server
                                     converts the text, per value)
bool                                 BOOLEAN
date32, date64                       DATE; DATETIME from YEAR/MONTH/DAY
timestamp (no time zone)             DATE and every DATETIME (the fields the
                                     qualifier lacks are dropped, as Informix
                                     does assigning one DATETIME to another)
time32, time64                       DATETIME from HOUR/MINUTE/SECOND/FRACTION
duration                             INTERVAL DAY/HOUR/MINUTE/SECOND/FRACTION
month_day_nano_interval              INTERVAL YEAR/MONTH (whole months: a value
                                     with days or nanoseconds is a DataError)
binary, large_binary, fixed_size_    BYTE, BLOB (as bytes in a tuple row go)
binary, binary_view
list, large_list, fixed_size_list    LIST
struct                               ROW
null                                 every type (all NULL)
===================================  ==========================================

Refused, with why:

- numbers, dates, times, durations, booleans into character columns: the
  text would be the server's formatting of the value (an exponent for
  large or small numbers, asterisks when it does not fit: IBM Informix
  ESQL/C Guide, "Convert numbers and strings"; a date by DBDATE), not
  Arrow's; cast the column to string in Arrow to choose the text.
- floats into integer columns: the fraction would be dropped.
- numbers into DATE, DATETIME or INTERVAL: a number is no date; Informix
  itself needs UNITS for number-to-INTERVAL (IBM Informix Guide to SQL:
  Reference, "Using Built-in Casts").
- anything but bool (or text) into BOOLEAN: Informix has no cast from
  numbers to BOOLEAN.
- a time of day into DATE or a DATETIME with a date: the server would take
  the date from CURRENT (a different one each day); a date into a time of
  day (DATETIME HOUR TO ...): every row would store midnight.
- durations into year-month INTERVALs (the classes differ, error -1266).
- map, union and extension types: the Arrow bind path has no encoding for
  them (a map would go as the text of a LIST of ROWs).
- binary into TEXT/CLOB or anything else: only a large object holds bytes.
- list into SET/MULTISET, struct into anything but ROW, collections into
  scalar columns.
- BYTE/BLOB from text: the bytes of a large object should be binary.

The IBM rules cited: "Built-in casts allow ... a character type to or from
another built-in type, a numeric type to any other numeric type"; "Built-in
casts are unavailable for converting large (BYTE, BLOB, CLOB, and TEXT)
built-in types" (IBM Informix Guide to SQL: Reference, "Using Built-in
Casts").  A column whose type the driver cannot describe (an opaque UDT)
and a statement whose markers are not one per described column (UPDATE,
INSERT ... SELECT) are not checked: the server decides, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..codec.typeinfo import ColumnType, TypeCode, column_type_from_describe
from ..errors import DataError, Error
from ..messages import StmtType
from ._deps import load
from .cell_values import value_type
from .types import temporal_kind

# Column classes: the target side of the table.
INT, FLOAT, DECIMAL, CHAR, DATE, DT_DATE, DT_TIME = (
    "int", "float", "decimal", "char", "date", "datetime", "time of day")
IV_DAY, IV_MONTH, BOOLEAN, LOB_BYTES, LOB_TEXT = (
    "interval day-time", "interval year-month", "boolean", "byte", "text")
LIST, COLLECTION, ROW, JSON = "list", "set", "row", "json"

_CLASS_OF_CODE = {
    TypeCode.SMALLINT: INT, TypeCode.INTEGER: INT, TypeCode.SERIAL: INT,
    TypeCode.INT8: INT, TypeCode.SERIAL8: INT, TypeCode.BIGINT: INT,
    TypeCode.BIGSERIAL: INT, TypeCode.FLOAT: FLOAT, TypeCode.SMALLFLOAT: FLOAT,
    TypeCode.DECIMAL: DECIMAL, TypeCode.MONEY: DECIMAL, TypeCode.CHAR: CHAR,
    TypeCode.NCHAR: CHAR, TypeCode.VARCHAR: CHAR, TypeCode.NVARCHAR: CHAR,
    TypeCode.LVARCHAR: CHAR, TypeCode.DATE: DATE, TypeCode.BOOLEAN: BOOLEAN,
    TypeCode.BYTE: LOB_BYTES, TypeCode.BLOB: LOB_BYTES, TypeCode.TEXT: LOB_TEXT,
    TypeCode.CLOB: LOB_TEXT, TypeCode.LIST: LIST, TypeCode.SET: COLLECTION,
    TypeCode.MULTISET: COLLECTION, TypeCode.ROW: ROW, TypeCode.JSON: JSON,
    TypeCode.BSON: JSON,
}
_NUMBERS = frozenset({INT, FLOAT, DECIMAL})
_DATES = frozenset({DATE, DT_DATE})
_EVERY = frozenset({*_CLASS_OF_CODE.values(), DT_DATE, DT_TIME, IV_DAY, IV_MONTH})

# Arrow family -> the column classes it loads into (the table above).
ALLOWED: dict[str, frozenset[str]] = {
    "integer": _NUMBERS,
    "floating": frozenset({FLOAT, DECIMAL}),
    "decimal": frozenset({FLOAT, DECIMAL}),
    "integral decimal": _NUMBERS,
    "string": _EVERY - {LOB_BYTES},
    "bool": frozenset({BOOLEAN}),
    "date": _DATES,
    "timestamp": _DATES | {DT_TIME},
    "time": frozenset({DT_TIME}),
    "duration": frozenset({IV_DAY}),
    "month interval": frozenset({IV_MONTH}),
    "binary": frozenset({LOB_BYTES}),
    "list": frozenset({LIST}),
    "struct": frozenset({ROW}),
    "null": _EVERY,
}

# What to do instead, by Arrow family (the error's last sentence).
_HINTS = {
    "floating": "round it in Arrow (pyarrow.compute.round, then cast) to load whole numbers",
}


def column_class(ctype: ColumnType) -> str | None:
    """The table's class of a column, or None for one it does not know."""
    if ctype.code is TypeCode.DATETIME:
        return DT_TIME if temporal_kind(ctype) == "time" else DT_DATE
    if ctype.code is TypeCode.INTERVAL:
        return IV_MONTH if ctype.is_year_month else IV_DAY
    return _CLASS_OF_CODE.get(ctype.code)


def family(pa, atype) -> str:
    """The table's name for an Arrow type (a dictionary or run-end encoded
    column by its values: its cells are their values)."""
    t = pa.types
    atype = value_type(pa, atype)
    if t.is_integer(atype):
        return "integer"
    if t.is_floating(atype):
        return "floating"
    if t.is_decimal(atype):
        return "integral decimal" if atype.scale <= 0 else "decimal"
    if t.is_string(atype) or t.is_large_string(atype) or _is(t, "string_view", atype):
        return "string"
    for name in ("boolean", "date", "timestamp", "time", "duration", "struct", "null"):
        if getattr(t, f"is_{name}")(atype):
            return "bool" if name == "boolean" else name
    if t.is_list(atype) or t.is_large_list(atype) or t.is_fixed_size_list(atype):
        return "list"
    if t.is_interval(atype):
        return "month interval"
    if t.is_binary(atype) or t.is_large_binary(atype) or t.is_fixed_size_binary(atype) \
            or _is(t, "binary_view", atype):
        return "binary"
    return "unsupported"


def _is(types, name: str, atype) -> bool:
    """``pyarrow.types.is_<name>``, False where this pyarrow has no such type."""
    test = getattr(types, f"is_{name}", None)
    return test is not None and test(atype)


def described_targets(prepared: Any) -> list[ColumnType | None] | None:
    """The column each marker fills, from the prepared statement's DESCRIBE
    (None for a column the driver cannot describe), or None when the
    markers are not one per described column (nothing to check against)."""
    columns = prepared.describe.columns
    if not columns or len(columns) != prepared.markers:
        return None
    if prepared.describe.stmt_type != StmtType.INSERT:
        return None
    targets: list[ColumnType | None] = []
    for c in columns:
        try:
            targets.append(column_type_from_describe(c.wire_type, c.extended_id,
                                                     c.encoded_length, c.extended_name))
        except (Error, ValueError):     # a column it cannot describe is not checked
            targets.append(None)
    return targets


def load_type_error(schema, picked: Sequence[int],
                    targets: Sequence[ColumnType | None] | None) -> DataError | None:
    """The error for the first bound column that cannot load into its
    target (time zones first: ``zoned_column_error``), or None."""
    zoned = zoned_column_error(schema, picked)
    if zoned is not None or targets is None:
        return zoned
    _, pa = load()
    for marker, (index, ctype) in enumerate(zip(picked, targets)):
        if ctype is None:
            continue
        atype = schema.field(index).type
        kind, target = family(pa, atype), column_class(ctype)
        if target is None or target in ALLOWED.get(kind, ()):
            continue
        hint = _HINTS.get(kind, "cast the column in Arrow to a type that loads into it "
                                "(see informix_stream/arrow/load_types.py)")
        return DataError(
            f"column {schema.names[index]!r}: an Arrow {atype} column cannot be loaded "
            f"into {ctype.sql()} (parameter {marker + 1}); the whole column is refused, "
            f"every row from row 0, and no row of the load was sent; {hint}")
    return None


def zoned_column_error(schema, picked: Sequence[int]) -> DataError | None:
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
