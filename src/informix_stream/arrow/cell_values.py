"""Arrow cells' Python values, for the value-by-value write paths
(put_cells.python_cells, put_images' bound rows, ingest's BIND route),
refusing the cells pyarrow would turn into another value or cannot turn
into any.

pyarrow reads a time32/time64 outside [0, 24 h) round the clock: 100 hours
comes back as 04:00, -1 s as 23:59:59.  Arrow's format says such a value is
invalid (``Array.validate(full=True)`` refuses it), so the cell has no
Python value, as a date32 past 9999 has none, and its row is refused
(DataError naming the column) instead of storing another time of day.
Other cells with no Python value make pyarrow raise: a date, timestamp or
duration past Python's range (ValueError/OverflowError), string bytes that
are not UTF-8 (UnicodeDecodeError) -- none of which may reach the caller
(only PEP 249 exceptions escape the driver), so ``column_values`` turns the
first such cell into ``NoPythonValue`` carrying its row.
"""

from __future__ import annotations

from typing import Any

from ..errors import DataError
from ._deps import load

# Ticks in a day, by time unit.
_DAY = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000, "ns": 86_400_000_000_000}
# What pyarrow raises for a cell with no Python value (UnicodeDecodeError
# is a ValueError).
NO_VALUE_ERRORS = (ValueError, OverflowError, ArithmeticError)


class NoPythonValue(Exception):
    """Cell ``row`` of a column has no Python value (``reason`` says why)."""

    def __init__(self, row: int, reason: BaseException) -> None:
        super().__init__(row, reason)
        self.row, self.reason = row, reason


def no_value_error(name: str, row: int, reason: BaseException) -> DataError:
    """The DataError for a cell of column ``name`` with no Python value."""
    return DataError(f"column {name!r}: row {row} has no Python value ({reason})")


def python_value(array: Any, row: int) -> Any:
    """Cell ``row``'s Python value; ValueError (or pyarrow's ValueError /
    OverflowError) when it has none."""
    scalar = array[row]
    while type(scalar).__name__ in ("DictionaryScalar", "RunEndEncodedScalar") \
            and scalar.is_valid:
        scalar = scalar.value
    day = _DAY.get(getattr(scalar.type, "unit", None)) if _is_time(scalar) else None
    if day is not None and scalar.is_valid and not 0 <= scalar.value < day:
        raise ValueError(f"{scalar.value} {scalar.type.unit} is no time of day "
                         "(Arrow's time types hold [0, 24 h))")
    return scalar.as_py()


def column_values(array: Any) -> list[Any]:
    """Every cell's Python value, at ``to_pylist``'s speed for a good
    column; ``NoPythonValue`` for the first cell that has none.  A time
    column is checked whole first (Arrow's full validation: each valid
    value, or a dictionary's / run-end column's values, in C); a column
    that fails that or ``to_pylist`` is scanned cell by cell for its first
    bad row (only a failing column pays for that)."""
    if _times_invalid(array):
        return _scan(array)
    try:
        return array.to_pylist()
    except NO_VALUE_ERRORS:
        return _scan(array)


def _scan(array: Any) -> list[Any]:
    values = []
    for row in range(len(array)):
        try:
            values.append(python_value(array, row))
        except NO_VALUE_ERRORS as exc:
            raise NoPythonValue(row, exc) from None
    return values


def _times_invalid(array: Any) -> bool:
    """Whether a time-of-day column may hold a value outside [0, 24 h)
    (a dictionary's unused entries included: the scan then decides)."""
    _, pa = load()
    return pa.types.is_time(value_type(pa, array.type)) and not fully_valid(array)


def value_type(pa, atype) -> Any:
    """The type of a column's cells: a dictionary's or a run-end encoded
    column's value type, any other type itself."""
    is_run_end = getattr(pa.types, "is_run_end_encoded", None)
    while pa.types.is_dictionary(atype) or (is_run_end is not None and is_run_end(atype)):
        atype = atype.value_type
    return atype


def fully_valid(array: Any) -> bool:
    """Whether Arrow's full validation passes (each value checked in C:
    UTF-8 text, times inside a day), without pyarrow.compute."""
    _, pa = load()
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _is_time(scalar: Any) -> bool:
    return type(scalar).__name__ in ("Time32Scalar", "Time64Scalar")
