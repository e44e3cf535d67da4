"""The SQL helpers SQLite calls over stored DECIMAL/MONEY values: the
``ifx_decimal`` collation (numeric order of exact decimal text) and the
exact SUM/AVG aggregates (SQLite's would add doubles).  Registered on each
connection by catalog.py."""

from __future__ import annotations

import decimal
from decimal import Decimal

from .values import _DEC_CONTEXT, DEC_CONTEXT, centesimal, sql_decimal, to_decimal


def decimal_order(a: str, b: str) -> int:
    """The ifx_decimal collation: exact decimal text in numeric order."""
    try:
        x, y = Decimal(a), Decimal(b)
        return (x > y) - (x < y)
    except decimal.InvalidOperation:
        return (a > b) - (a < b)


class ExactSum:
    """SUM of DECIMAL/MONEY values of any width (REAL or exact text); SQLite's
    sum() would add doubles, so ten 0.1s would make 0.9999999999999999."""

    def __init__(self) -> None:
        self.total: Decimal | None = None
        self.count = 0

    def step(self, value: object) -> None:
        if value is not None:
            d = to_decimal(value)
            self.total = d if self.total is None else _DEC_CONTEXT.add(self.total, d)
            self.count += 1

    def finalize(self) -> float | str | None:
        return None if self.total is None else sql_decimal(self.total)


class ExactAvg(ExactSum):
    def finalize(self) -> float | str | None:
        if self.total is None:
            return None
        return sql_decimal(centesimal(DEC_CONTEXT.divide(self.total, self.count)))
