"""Row factories: what a cursor hands out for each row (psycopg 3's protocol).

A row factory is called once per result and returns a function from the
decoded tuple to the row object.  What it is called with is a ``ResultShape``:
the tuple of column names that informix-driver's factories take, which also
carries ``.description`` and ``.cursor`` as psycopg 3's factories expect of a
cursor, so factories written for either driver work unchanged::

    conn = informix_stream.connect(..., row_factory=dict_row)
    cur = conn.cursor(row_factory=namedtuple_row)

Tuples are the default and cost nothing; a factory is applied once per
fetched batch, not per ``fetchone`` call.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any

__all__ = ["tuple_row", "dict_row", "namedtuple_row", "ResultShape"]


class ResultShape(tuple):
    """Column names of a result, with the cursor's ``description``."""

    description: list
    cursor: Any

    def __new__(cls, cursor: Any) -> ResultShape:
        shape = super().__new__(cls, (d[0] for d in cursor.description or ()))
        shape.description = cursor.description
        shape.cursor = cursor
        return shape

    @property
    def connection(self) -> Any:
        return self.cursor.connection


def tuple_row(cursor: Any) -> Callable[[tuple], tuple]:
    """Rows as tuples (the default)."""
    return tuple


def _names(cursor: Any) -> list[str]:
    return [d[0] for d in cursor.description or ()]


def dict_row(cursor: Any) -> Callable[[tuple], dict[str, Any]]:
    """Rows as ``{column name: value}`` dicts."""
    names = _names(cursor)
    return lambda values: dict(zip(names, values))


@functools.lru_cache(maxsize=256)
def _row_type(names: tuple[str, ...]) -> type:
    return namedtuple("Row", names, rename=True)  # noqa: PYI024 - names known only at run time


def namedtuple_row(cursor: Any) -> Callable[[tuple], tuple]:
    """Rows as named tuples (invalid column names become _0, _1, ...)."""
    make = _row_type(tuple(_names(cursor)))._make
    return make
