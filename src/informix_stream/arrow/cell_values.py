"""One Arrow cell's Python value, for the value-by-value write paths
(put_cells.python_cells, put_images' bound rows), refusing the cells
pyarrow would turn into another value.

pyarrow reads a time32/time64 outside [0, 24 h) round the clock: 100 hours
comes back as 04:00, -1 s as 23:59:59.  Arrow's format says such a value is
invalid (``Array.validate(full=True)`` refuses it), so the cell has no
Python value, as a date32 past 9999 has none, and its row is refused
(DataError naming the column) instead of storing another time of day.
"""

from __future__ import annotations

from typing import Any

# Ticks in a day, by time unit.
_DAY = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000, "ns": 86_400_000_000_000}


def python_value(array: Any, row: int) -> Any:
    """Cell ``row``'s Python value; ValueError (or pyarrow's ValueError /
    OverflowError) when it has none."""
    scalar = array[row]
    if type(scalar).__name__ == "DictionaryScalar" and scalar.is_valid:
        scalar = scalar.value
    day = _DAY.get(getattr(scalar.type, "unit", None)) if _is_time(scalar) else None
    if day is not None and scalar.is_valid and not 0 <= scalar.value < day:
        raise ValueError(f"{scalar.value} {scalar.type.unit} is no time of day "
                         "(Arrow's time types hold [0, 24 h))")
    return scalar.as_py()


def _is_time(scalar: Any) -> bool:
    return type(scalar).__name__ in ("Time32Scalar", "Time64Scalar")
