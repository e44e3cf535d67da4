"""Informix's typing rules as the dialect needs them: the type of a literal,
of an expression mixing operand types, of a built-in function's result;
DATETIME qualifiers and the SQLite text of CURRENT."""

from __future__ import annotations

import re

from informix_stream.codecs import TU_SECOND, ColumnType, TypeCode, parse_type

from .statements import SqlError
from .tokens import quote, tokenize


# Shared lookups
# ---------------------------------------------------------------------------

INT_CODES = frozenset({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.SERIAL,
                        TypeCode.INT8, TypeCode.SERIAL8, TypeCode.BIGINT,
                        TypeCode.BIGSERIAL})
BIG_CODES = frozenset({TypeCode.INT8, TypeCode.SERIAL8, TypeCode.BIGINT,
                        TypeCode.BIGSERIAL})
FLOAT_CODES = frozenset({TypeCode.FLOAT, TypeCode.SMALLFLOAT})
DECIMAL_CODES = frozenset({TypeCode.DECIMAL, TypeCode.MONEY})
NUMERIC_CODES = INT_CODES | FLOAT_CODES | DECIMAL_CODES
CMP_OPS = frozenset({"=", "<>", "!=", "<", ">", "<=", ">=", "LIKE", "MATCHES"})
AGGREGATES = frozenset({"COUNT", "SUM", "AVG", "MIN", "MAX"})
CLAUSE_END = frozenset({"WHERE", "GROUP", "HAVING", "ORDER", "UNION", "INTO",
                         "FOR", "LIMIT", "OFFSET", "INTERSECT", "EXCEPT", "MINUS"})
NOT_ROW_PRESERVING = frozenset({"GROUP", "HAVING", "UNION", "INTERSECT", "EXCEPT", "MINUS",
                                "INTO"})
SET_OPERATORS = frozenset({"UNION", "INTERSECT", "EXCEPT", "MINUS"})
JOIN_WORDS = frozenset({"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "OUTER", "CROSS",
                         "NATURAL", "ON", "USING"})

T_INTEGER = ColumnType(TypeCode.INTEGER, 4)
T_BIGINT = ColumnType(TypeCode.BIGINT, 8)
T_FLOAT = ColumnType(TypeCode.FLOAT, 8)
T_DECIMAL = ColumnType(TypeCode.DECIMAL, (32 << 8) | 0xFF)
T_DATE = ColumnType(TypeCode.DATE, 4)
T_VARCHAR = ColumnType(TypeCode.VARCHAR, 255)
T_LVARCHAR = ColumnType(TypeCode.LVARCHAR, 2048)

# Informix day 0 is 1899-12-31; SQLite's julian day of that midnight.
JULIAN_DAY0 = 2415019.5
TODAY_SQL = f"CAST(julianday('now','localtime') - {JULIAN_DAY0} AS INTEGER)"
# 'YYYY-MM-DD HH:MM:SS.FFF' of now; CURRENT qualifiers take a slice of it.
CURRENT_SQL = "strftime('%Y-%m-%d %H:%M:%f','now','localtime')"
# Slice of that text holding each unit: start offset, and end offset (exclusive).
UNIT_START = {0: 0, 2: 5, 4: 8, 6: 11, 8: 14, 10: 17}
UNIT_END = {0: 4, 2: 7, 4: 10, 6: 13, 8: 16, 10: 19, 11: 21, 12: 22, 13: 23, 14: 24, 15: 25}
UNIT_WORDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "FRACTION")
FUNCTION_RENAMES = {"NVL": "coalesce", "CHAR_LENGTH": "length",
                     "CHARACTER_LENGTH": "length", "DBINFO": "ifx_dbinfo",
                     "LENGTH": "ifx_length",
                     "MOD": "ifx_mod", "YEAR": "ifx_year", "MONTH": "ifx_month",
                     "DAY": "ifx_day", "WEEKDAY": "ifx_weekday", "MDY": "ifx_mdy",
                     "FLOOR": "ifx_floor", "CEIL": "ifx_ceil"}


def current_sql(dtype: ColumnType) -> str:
    """SQLite expression for CURRENT with the given DATETIME qualifier."""
    start, end = UNIT_START[dtype.start], UNIT_END[dtype.end]
    text = CURRENT_SQL
    if dtype.end > TU_SECOND + 3:
        text = f"({text} || '00')"
    return f"substr({text}, {start + 1}, {end - start})"


def temporal_type(kind: str, words: list[str]) -> ColumnType:
    """DATETIME/INTERVAL type for a qualifier spelled as words, e.g.
    YEAR TO FRACTION(3)."""
    try:
        return parse_type(f"{kind} " + " ".join(words))
    except ValueError as exc:
        raise SqlError(-201, message=str(exc)) from None


def datetime_type(words: list[str]) -> ColumnType:
    return temporal_type("DATETIME", words)


def collection_values(text: str) -> tuple[list[str], ColumnType]:
    """SQLite literals for the elements of a collection literal, and their type."""
    toks = tokenize(text)
    values: list[str] = []
    types: list[ColumnType] = []
    start = 0
    for end in [k for k, t in enumerate(toks) if t.text == ","] + [len(toks)]:
        part = toks[start:end]
        start = end + 1
        if not part and not toks:
            break
        sign = "-" if len(part) == 2 and part[0].text == "-" else ""
        last = part[-1] if part and len(part) == 1 + bool(sign) else None
        if last is not None and last.kind == "num":
            values.append(sign + last.raw)
            types.append(number_type(last.raw))
        elif last is not None and last.kind == "str" and not sign:
            values.append(quote(last.text))
            types.append(ColumnType(TypeCode.CHAR, max(1, len(last.text))))
        elif last is not None and last.text == "NULL" and not sign:
            values.append("NULL")
        else:
            raise SqlError(-201, message="collection elements must be literals")
    codes = {t.code for t in types}
    if codes == {TypeCode.CHAR}:
        return values, ColumnType(TypeCode.CHAR, max(t.length for t in types))
    if len(codes) == 1 and codes != {TypeCode.DECIMAL}:
        return values, types[0]
    if codes & {TypeCode.DECIMAL} and not codes & FLOAT_CODES:
        # SQLite holds these literals as doubles: 15 digits, not exact text
        return values, ColumnType(TypeCode.DECIMAL, (15 << 8) | 0xFF)
    return values, combine(codes, set()) if codes else T_INTEGER


FUNCTION_TYPES = {
    "LENGTH": TypeCode.INTEGER, "CHAR_LENGTH": TypeCode.INTEGER,
    "OCTET_LENGTH": TypeCode.INTEGER, "YEAR": TypeCode.SMALLINT,
    "MONTH": TypeCode.SMALLINT, "DAY": TypeCode.SMALLINT, "WEEKDAY": TypeCode.SMALLINT,
    "MDY": TypeCode.DATE, "ABS": TypeCode.DECIMAL, "ROUND": TypeCode.DECIMAL,
    "TRUNC": TypeCode.DECIMAL, "MOD": TypeCode.INTEGER, "COUNT": TypeCode.INTEGER,
    "SUM": TypeCode.DECIMAL, "AVG": TypeCode.DECIMAL,
    # FLOOR and CEIL return DECIMAL(32) (HCL Informix Guide to SQL: Syntax,
    # "FLOOR Function" ids_sqs_1475, "CEIL Function" ids_sqs_1474).
    "FLOOR": TypeCode.DECIMAL, "CEIL": TypeCode.DECIMAL,
}


# Functions whose result type does not depend on their arguments.
FUNCTION_RESULTS = {
    name: {TypeCode.INTEGER: T_INTEGER, TypeCode.SMALLINT: ColumnType(TypeCode.SMALLINT, 2),
           TypeCode.DATE: T_DATE}[code]
    for name, code in FUNCTION_TYPES.items()
    if code in (TypeCode.INTEGER, TypeCode.SMALLINT, TypeCode.DATE) and name not in AGGREGATES}


def number_type(raw: str) -> ColumnType:
    if re.fullmatch(r"\d+", raw) and int(raw) < 2**63:
        return T_INTEGER if int(raw) < 2**31 else T_BIGINT
    if "e" in raw.lower():
        return T_FLOAT
    digits = raw.replace(".", "").lstrip("0") or "0"
    scale = len(raw.split(".")[1]) if "." in raw else 0
    precision = max(len(digits), scale, 1)
    return ColumnType(TypeCode.DECIMAL, (min(precision, 32) << 8) | scale)


def combine(codes: set[TypeCode], ops: set[str]) -> ColumnType:
    """Type Informix would give an expression mixing these operand types."""
    if "||" in ops or codes <= {TypeCode.VARCHAR, TypeCode.CHAR, TypeCode.NCHAR,
                                TypeCode.NVARCHAR, TypeCode.LVARCHAR} and codes:
        return T_VARCHAR if TypeCode.LVARCHAR not in codes else T_LVARCHAR
    if TypeCode.DATE in codes and ops & {"+", "-"}:
        return T_DATE if not (codes == {TypeCode.DATE} and "-" in ops) else T_INTEGER
    if codes & FLOAT_CODES:
        return T_FLOAT
    if codes & DECIMAL_CODES or "/" in ops:
        return T_DECIMAL
    if codes and codes <= INT_CODES:
        return T_BIGINT if codes & BIG_CODES else T_INTEGER
    if codes == {TypeCode.DATE}:
        return T_DATE
    return T_DECIMAL if codes & {TypeCode.BOOLEAN} == set() and ops & {"+", "-", "*"} \
        else T_VARCHAR



# Arithmetic result types
# ---------------------------------------------------------------------------
# Informix computes DECIMAL/MONEY arithmetic with its decimal library, whose
# result types are documented in HCL Informix ESQL/C Programmer's Guide,
# "Obtain the DECIMAL data type of the arithmetic result": a floating-point
# operand (DECIMAL(p) without scale) makes the result floating; between
# fixed-point operands, + and - give precision MIN(32, MAX(p1-s1, p2-s2) +
# MAX(s1, s2) + 1) and scale MAX(s1, s2), * gives precision MIN(32, p1+p2)
# and scale s1+s2 (floating when that scale exceeds the precision), and /
# gives a floating-point DECIMAL(32).  Integer operands enter as the
# DECIMAL(p, 0) holding their range.

T_DECIMAL_FLOATING = T_DECIMAL
_INTEGER_DIGITS = {TypeCode.SMALLINT: 5, TypeCode.INTEGER: 10, TypeCode.SERIAL: 10}


def decimal_shape(t: ColumnType) -> tuple[int, int | None]:
    """(precision, scale) of a numeric operand in decimal arithmetic; a
    scale of None is a floating-point decimal."""
    if t.code in DECIMAL_CODES:
        return t.precision, t.scale
    if t.code in INT_CODES:
        return _INTEGER_DIGITS.get(t.code, 19), 0
    return 32, None


def arith_type(op: str, left: ColumnType | None, right: ColumnType | None) -> ColumnType:
    """Informix's type of ``left op right`` for op in + - * / (an operand's
    type is None when unknown, e.g. a bound ``?``)."""
    if left is None or right is None:
        # A bound ? or an untyped call: any number may come, so a numeric
        # partner makes the result a floating DECIMAL that holds it exactly.
        known = left or right
        if known is None or known.code in INT_CODES | DECIMAL_CODES:
            return T_DECIMAL_FLOATING
        left = right = known
    codes = {left.code, right.code}
    if not codes <= NUMERIC_CODES:
        return combine(codes, {op})
    if codes & FLOAT_CODES:
        return T_FLOAT
    if codes <= INT_CODES and op != "/":
        return T_BIGINT if codes & BIG_CODES else T_INTEGER
    (p1, s1), (p2, s2) = decimal_shape(left), decimal_shape(right)
    code = TypeCode.MONEY if TypeCode.MONEY in codes and op != "/" else TypeCode.DECIMAL
    if op == "/" or s1 is None or s2 is None:
        return T_DECIMAL_FLOATING
    if op in ("+", "-"):
        precision, scale = min(32, max(p1 - s1, p2 - s2) + max(s1, s2) + 1), max(s1, s2)
    else:
        precision, scale = min(32, p1 + p2), s1 + s2
        if scale > precision:
            return ColumnType(TypeCode.DECIMAL, (precision << 8) | 0xFF)
    return ColumnType(code, (precision << 8) | scale)
