"""Arithmetic as the server computes it, as SQLite user functions.

SQLite computes ``+ - * /`` in doubles (or 64-bit integers that silently
turn into doubles, and integer division that truncates); Informix computes
DECIMAL and MONEY arithmetic in decimal, divides integers into a DECIMAL,
checks integer results against their type and raises -1202 for a division
by zero.  The dialect (translate_expr) emits the ``ifx_*`` functions below
for every operation whose Informix type needs them; everything else stays
native SQLite arithmetic.

Decimal results follow the server's decimal library (values.centesimal: 16
base-100 digits, so 31 or 32 decimal digits; HCL Informix ESQL/C Guide,
"Obtain the DECIMAL data type of the arithmetic result": results are DECIMAL
of precision at most 32, division gives a floating-point decimal).  Every
result comes back to SQLite as exact text (``decimal_text``), never a REAL for
some values and text for others: SQLite orders every number before every
text, so a mix would sort 0.5 before 0.333... .  The dialect gives each such
expression the ``ifx_decimal`` collation, so ORDER BY, MIN/MAX, GROUP BY and
DISTINCT compare them as numbers; it compares them with anything else through
``ifx_dec_cmp``, and a value assigned to a column goes through ``ifx_store``.
"""

from __future__ import annotations

import decimal
import functools
import operator
from decimal import Decimal
from typing import Callable

from informix_stream.codecs import ColumnType, TypeCode

from .statements import SqlError
from .values import DEC_CONTEXT, centesimal, to_decimal, writer_for

# Informix's INTEGER and INT8/BIGINT ranges exclude the most negative value
# of the C type: that bit pattern is the type's NULL (Guide to SQL:
# Reference, INTEGER and INT8 data types).
_INT_LIMITS = {4: 2_147_483_647, 8: 9_223_372_036_854_775_807}
DIVIDE_BY_ZERO = -1202       # "An attempt was made to divide by zero." (IBM error -1202)
INT_OVERFLOW = -1215         # "Value exceeds limit of INTEGER precision." (IBM error -1215)


def decimal_text(d: Decimal) -> str:
    """A decimal result as SQLite gets it: its exact digits, no exponent."""
    if not d.is_finite():
        raise SqlError(-1226, message="decimal value exceeds maximum precision")
    return format(d, "f")


# An operand as a Decimal: a REAL through its shortest repr (exact for what a
# DECIMAL(p <= 15) column stored), text as written, -1213 for text no number.
_dec = to_decimal


def _binary(op: Callable[[Decimal, Decimal], Decimal]) -> Callable[[object, object], object]:
    def run(a: object, b: object) -> object:
        if a is None or b is None:
            return None
        x, y = _dec(a), _dec(b)
        if not y and op == DEC_CONTEXT.divide:
            raise SqlError(DIVIDE_BY_ZERO, message="An attempt was made to divide by zero.")
        try:
            return decimal_text(centesimal(op(x, y)))
        except (decimal.Overflow, decimal.InvalidOperation):
            raise SqlError(-1226, message="decimal value exceeds maximum precision") from None
    return run


def _dec_neg(a: object) -> object:
    return None if a is None else decimal_text(_dec(a).copy_negate())


def _dec_cmp(a: object, b: object) -> int | None:
    """-1, 0 or 1 comparing two numbers exactly; NULL when either is NULL."""
    if a is None or b is None:
        return None
    x, y = _dec(a), _dec(b)
    return (x > y) - (x < y)


def _dec_key(a: object) -> str | None:
    """One text per numeric value (3, 3.0 and '3.00' all give '3e0'), so
    ``ifx_dec_key(x) IN (ifx_dec_key(...), ...)`` is an exact IN between
    operands of different storage forms (REAL, exact text, integers) with
    SQL's NULL rules intact, which SQLite's IN over mixed affinities is not."""
    if a is None:
        return None
    sign, digits, exp = _dec(a).as_tuple()
    if not any(digits):
        return "0"
    n = len(digits)
    while digits[n - 1] == 0:
        n -= 1
    return f"{'-' if sign else ''}{''.join(map(str, digits[:n]))}e{int(exp) + len(digits) - n}"


def _dec_between(x: object, low: object, high: object) -> int | None:
    """x BETWEEN low AND high compared exactly (1, 0, or NULL for a NULL)."""
    if x is None or low is None or high is None:
        return None
    value = _dec(x)
    return int(_dec(low) <= value <= _dec(high))


def _checked(op: Callable[[int, int], int], exact: Callable[[Decimal, Decimal], Decimal]
             ) -> Callable[[object, object, int], object]:
    """Integer arithmetic checked against the result's type (4 or 8 bytes):
    past its range the server raises -1215 rather than wrap or widen."""
    def run(a: object, b: object, width: int) -> object:
        if a is None or b is None:
            return None
        if a.__class__ is not int or b.__class__ is not int:
            # An operand the typing took for an integer holds something else
            # (a bound parameter): compute exactly instead of guessing.
            return decimal_text(centesimal(exact(_dec(a), _dec(b))))
        result = op(a, b)
        if -_INT_LIMITS[width] <= result <= _INT_LIMITS[width]:
            return result
        raise SqlError(INT_OVERFLOW, message="Value exceeds limit of INTEGER precision.")
    return run


def _float_div(a: object, b: object) -> object:
    if a is None or b is None:
        return None
    if not b:
        raise SqlError(DIVIDE_BY_ZERO, message="An attempt was made to divide by zero.")
    return float(a) / float(b)


def _mod(a: object, b: object) -> object:
    """MOD(dividend, divisor): integer remainder with the dividend's sign (as
    C's %), -1202 for a zero divisor (IBM: MOD function, Guide to SQL: Syntax)."""
    if a is None or b is None:
        return None
    x, y = int(_dec(a)), int(_dec(b))
    if y == 0:
        raise SqlError(DIVIDE_BY_ZERO, message="An attempt was made to divide by zero.")
    r = abs(x) % abs(y)
    return r if x >= 0 else -r


@functools.lru_cache(maxsize=256)
def _integral(rounding: str) -> Callable[[object], object]:
    """FLOOR / CEIL: the integer below / above the argument, exactly (a
    DECIMAL(32) result, not SQLite's double floor()).  An SQLite integer
    where one holds it, so comparisons and ORDER BY see a number; exact
    text only beyond 64 bits."""
    def run(a: object) -> object:
        if a is None:
            return None
        whole = _dec(a).to_integral_value(rounding=rounding)
        return int(whole) if abs(whole) < 2**63 else decimal_text(whole)
    return run


def _column_writer(code: int, length: int) -> Callable[[object], object]:
    return writer_for(ColumnType(TypeCode(code), length))


def _store(value: object, code: int, length: int) -> object:
    """A computed value assigned to a column, converted as a bound value
    would be: rounded to the column's scale, range-checked, stored in the
    column's storage form (REAL or exact text for a DECIMAL)."""
    if value is None:
        return None
    return _column_writer(code, length)(value)


ARITH_FUNCTIONS: dict[str, tuple[int, Callable[..., object]]] = {
    "ifx_dec_add": (2, _binary(DEC_CONTEXT.add)),
    "ifx_dec_sub": (2, _binary(DEC_CONTEXT.subtract)),
    "ifx_dec_mul": (2, _binary(DEC_CONTEXT.multiply)),
    "ifx_dec_div": (2, _binary(DEC_CONTEXT.divide)),
    "ifx_dec_neg": (1, _dec_neg),
    "ifx_dec_cmp": (2, _dec_cmp),
    "ifx_dec_between": (3, _dec_between),
    "ifx_dec_key": (1, _dec_key),
    "ifx_int_add": (3, _checked(operator.add, DEC_CONTEXT.add)),
    "ifx_int_sub": (3, _checked(operator.sub, DEC_CONTEXT.subtract)),
    "ifx_int_mul": (3, _checked(operator.mul, DEC_CONTEXT.multiply)),
    "ifx_float_div": (2, _float_div),
    "ifx_mod": (2, _mod),
    "ifx_store": (3, _store),
    "ifx_floor": (1, _integral(decimal.ROUND_FLOOR)),
    "ifx_ceil": (1, _integral(decimal.ROUND_CEILING)),
}
"""name -> (argument count, function) for sqlfunctions.register_builtins."""
