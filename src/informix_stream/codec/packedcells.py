"""Generated source for the base-100 cells of a row: DECIMAL/MONEY,
DATETIME and INTERVAL, decoded straight from their digit pairs.

scalars.py reads these values the plain way (pairs -> text -> Decimal,
pairs -> field list -> dict -> datetime), several microseconds a cell.
Here each column gets straight-line code that rowdecode.py writes into the
row decoder: the pairs come out of the row's struct read as integers (two
pairs at a time as an unsigned short where they form one number), a
256-entry and a 65,536-entry table turn them into their 0..99 / 0..9999
values, and the value is built by its cheapest exact constructor:

* DECIMAL/MONEY(p,s): the coefficient as an int, rescaled by one divmod,
  then ``Decimal(int) * 1E-s`` in a private context too wide to round
  (and trapping Inexact/Rounded, so it never could silently); the int
  goes to the context's multiply as it is, which converts it exactly
  (no Decimal(int) call of our own: ~35 ns a cell less);
* floating DECIMAL(p): the same, trailing zeros dropped by normalize();
* DATETIME: ``datetime``/``date``/``time`` called on the fields inlined;
* INTERVAL: ``timedelta(days, seconds, micro)`` or ``IntervalYM(months)``.

Exactness, which tests/unit/test_codec_differential.py holds to the
reference on generated values and arbitrary bytes: a fast path covers the
common form only (a positive DATETIME/INTERVAL with its qualifier's
exponent; a DECIMAL whose coefficient fits the column's digits) and hands
anything else to the scalar converter (the reference's own) on the same
bytes, re-packed.  A digit byte over 99 is None in the tables, so
arithmetic on it raises TypeError; a field out of range makes the
constructor raise ValueError; either way the row decoder catches it and
returns what the reference decoder says about the row, value or error.
DATETIME fields after the first go to the constructor unchecked: any byte
the constructor accepts there (<= 59) is a valid pair.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import struct

from .codegen import FixedCell
from .scalars import IntervalYM, packed_converter, temporal_exponent
from .typeinfo import TU_DAY, TU_HOUR, TU_MONTH, TU_SECOND, TU_YEAR, ColumnType, TypeCode

__all__ = ["datetime_args", "packed_cell", "packed_namespace", "scaled_divisors",
           "temporal_head", "temporal_layout"]

# byte -> its value as a base-100 digit pair, None for 100..255
_PAIRS = tuple(range(100)) + (None,) * 156
# Wide enough that no product of a <= 32-digit coefficient ever rounds; a
# rounding would trap rather than pass.
_CTX = decimal.Context(prec=80, Emin=-999999, Emax=999999, traps=[
    decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow, decimal.Inexact,
    decimal.Rounded, decimal.Clamped, decimal.Underflow, decimal.Subnormal])
_EXPONENTS = 200  # beyond any base-100 exponent's 2 * 64 + 32 decimal digits
_POWERS = tuple(10 ** i for i in range(_EXPONENTS))

def _scales(sign: str) -> tuple[decimal.Decimal, ...]:
    """``[e]`` -> Decimal of coefficient 1 (signed) and exponent ``e``, for
    e from -_EXPONENTS to _EXPONENTS - 1 (negative e index from the end)."""
    return tuple(decimal.Decimal(f"{sign}1E{e}") for e in
                 (*range(_EXPONENTS), *range(-_EXPONENTS, 0)))


_SCALE, _NEG_SCALE = _scales(""), _scales("-")
_UNIT_SECONDS = {TU_DAY: 86400, TU_HOUR: 3600, TU_SECOND - 2: 60, TU_SECOND: 1}


@functools.cache
def _quads() -> tuple[int | None, ...]:
    """unsigned short of two pair bytes -> 0..9999, None if either is over 99.
    Built on first use (10k ints and a 64k tuple, about 1 MB)."""
    return tuple(hi * 100 + lo if hi < 100 and lo < 100 else None
                 for hi in range(256) for lo in range(256))


def packed_namespace() -> dict:
    """Names the generated code of this module refers to."""
    return {"_D": _PAIRS, "_Q": _quads(), "_P": _POWERS,
            "_mul": _CTX.multiply, "_norm": _CTX.normalize, "_SCALE": _SCALE,
            "_NEG_SCALE": _NEG_SCALE, "_datetime": datetime.datetime,
            "_date": datetime.date, "_time": datetime.time, "_td": datetime.timedelta,
            "_ym": IntervalYM}


def _group_fmt(pairs: int) -> str:
    """Struct letters for a run of pairs read as one number: two at a time."""
    return "H" * (pairs // 2) + "B" * (pairs % 2)


def _number(names: list[str], fmt: str) -> str:
    """Expression: the base-100 number of the pairs read as ``fmt``."""
    expr = ""
    for name, letter in zip(names, fmt):
        table, scale = ("_Q", 10000) if letter == "H" else ("_D", 100)
        expr = f"{table}[{name}]" if not expr else f"({expr} * {scale} + {table}[{name}])"
    return expr


class _Cell:
    """Names of one cell: the head byte, then the pair groups."""

    def __init__(self, ctype: ColumnType, k: int, ns: dict, fmt: str) -> None:
        self.k, self.fmt = k, fmt
        self.head = f"h{k}"
        self.names = [f"x{k}_{i}" for i in range(len(fmt))]
        ns[f"_f{k}"] = packed_converter(ctype)
        ns[f"_p{k}"] = struct.Struct("!B" + fmt).pack
        # the reference's converter, on the bytes the read took apart
        self.slow = f"_f{k}(_p{k}({', '.join(self.raws)}))"
        self.first_zero = f"{self.names[0]} {'< 256' if fmt[0] == 'H' else '== 0'}"

    @property
    def raws(self) -> list[str]:
        return [self.head, *self.names]

    def cell(self, expr: str, lines: tuple[str, ...] = ()) -> FixedCell:
        return FixedCell("B" + self.fmt, self.raws, expr, lines)


def packed_cell(ctype: ColumnType, k: int, ns: dict) -> FixedCell | None:
    """The fast cell of column ``k``, or None where the plain converter
    serves (a qualifier whose pairs do not match its width)."""
    if ctype.code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimal_cell(ctype, k, ns)
    return _temporal_cell(ctype, k, ns)


def _decimal_cell(ctype: ColumnType, k: int, ns: dict) -> FixedCell:
    pairs = ctype.wire_width - 1
    width = 2 * pairs  # decimal digits the pairs hold
    c = _Cell(ctype, k, ns, _group_fmt(pairs))
    h, v, s = c.head, f"v{k}", ctype.scale
    # value = N * 10**(2 * exp100 - width); exp100 = head - 192 when positive,
    # 63 - head when negative, whose pairs hold 100**pairs - N (0 for 0)
    number, slow = _number(c.names, c.fmt), c.slow
    if s is None:
        positive = _floating_lines(v, slow, f"{h} + {h} - {384 + width}", "_SCALE")
        negative = _floating_lines(v, slow, f"{126 - width} - {h} - {h}", "_NEG_SCALE")
    else:
        ns[f"_E{k}"], ns[f"_N{k}"] = _SCALE[-s], _NEG_SCALE[-s]
        ns[f"_C{k}"] = scaled_divisors(width, s)
        positive = _scaled_lines(v, slow, f"_C{k}[{h}]", f"_E{k}")
        negative = _scaled_lines(v, slow, f"_C{k}[{h}]", f"_N{k}")
    lines = [f"if {h} > 127:",
             f"    n = {number}",
             *positive,
             f"elif {h} == 0 and {c.first_zero}:",
             f"    {v} = None",
             "else:",
             f"    n = {number}",
             "    if n:",
             f"        n = {10 ** width} - n",
             *negative]
    return c.cell(v, tuple(lines))


def _floating_lines(v: str, slow: str, e: str, units: str) -> list[str]:
    """Floating DECIMAL(p) from n at exponent e: the exact digits, fraction
    zeros dropped (never past the decimal point); zero keeps its exponent,
    which the slow path gives it."""
    return [f"    e = {e}",
            "    if not n:",
            f"        {v} = {slow}",
            "    elif e < 0:",
            "        q, rem = divmod(n, _P[-e])",
            f"        {v} = _norm(_mul(n, {units}[e])) if rem else _mul(q, {units}[0])",
            "    else:",
            f"        {v} = _mul(n, {units}[e])"]


def _scaled_lines(v: str, slow: str, divisor: str, unit: str) -> list[str]:
    """DECIMAL(p,s)/MONEY from n: the coefficient at scale s is n without
    its last digits (``divisor``, scaled_divisors), which must be zeros
    (else the slow path raises)."""
    return [f"    d = {divisor}",
            "    if d:",
            "        q, rem = divmod(n, d)",
            f"        {v} = {slow} if rem else _mul(q, {unit})",
            "    else:",
            f"        {v} = {slow}"]


def scaled_divisors(width: int, scale: int) -> tuple[int, ...]:
    """[head byte] -> 10**cut for a DECIMAL(p,s) cell whose pairs hold
    ``width`` digits: cut is how many of the last digits of the number n
    those pairs spell lie below the column's scale (n = coefficient at
    ``scale`` * 10**cut, given the head's exponent); 0 where cut falls
    outside 0..width-1 (the slow path's value).  A table, so a row pays one
    lookup instead of the arithmetic and range test."""
    def cut(h: int) -> int:
        return 384 + width - scale - 2 * h if h > 127 else width - scale - 126 + 2 * h
    return tuple(_POWERS[cut(h)] if 0 <= cut(h) < width else 0 for h in range(256))


def temporal_layout(ctype: ColumnType) -> tuple[str, list[int], str, int] | None:
    """How the fast code reads a DATETIME/INTERVAL cell after its head byte:
    (struct letters of the leading field, the units of the one-pair fields
    after it, struct letters of the fraction pairs, fraction pairs), or None
    where the pairs do not match the qualifier's width (the plain converter
    serves).  The block decoder (rowblock.py) reads the same layout."""
    start, end, lead = ctype.start, ctype.end, ctype.leading_digits
    if ctype.code == TypeCode.DATETIME and lead != (4 if start == TU_YEAR else 2):
        return None
    units = list(range(start + 2, min(end, TU_SECOND) + 1, 2))
    nfrac = (end - TU_SECOND + 1) // 2 if end > TU_SECOND else 0
    if 1 + (lead + 1) // 2 + len(units) + nfrac != ctype.wire_width:
        return None
    return _group_fmt((lead + 1) // 2), units, _group_fmt(nfrac), nfrac


def temporal_head(ctype: ColumnType) -> int:
    """The head byte of a DATETIME/INTERVAL value in its qualifier's form."""
    return 0x80 | (temporal_exponent(ctype.length) + 64)


def _temporal_cell(ctype: ColumnType, k: int, ns: dict) -> FixedCell | None:
    start, end = ctype.start, ctype.end
    dt = ctype.code == TypeCode.DATETIME
    layout = temporal_layout(ctype)
    if layout is None:
        return None
    lead_fmt, units, frac_fmt, nfrac = layout
    fmt = lead_fmt + "B" * len(units) + frac_fmt
    c = _Cell(ctype, k, ns, fmt)
    names = iter(c.names)
    lead_names = [next(names) for _ in lead_fmt]
    field_names = [next(names) for _ in units]
    frac_names = [next(names) for _ in frac_fmt]
    micro: str | int = (f"({_number(frac_names, frac_fmt)}) * {10 ** (6 - 2 * nfrac)}"
                        if nfrac else 0)
    if dt:
        # a 2-digit first field is checked by the constructor, like the rest
        first = _number(lead_names, lead_fmt) if lead_fmt == "H" else lead_names[0]
        expr = _datetime_call(start, end, [first, *field_names], micro)
    else:
        fields = [_number(lead_names, lead_fmt)] + [f"_D[{n}]" for n in field_names]
        expr = _interval_call(ctype, fields, micro)
    head = temporal_head(ctype)
    return c.cell(f"({expr} if {c.head} == {head} else None if {c.head} == 0 and "
                  f"{c.first_zero} else {c.slow})")


def datetime_args(start: int, end: int, fields: list, micro: object) -> tuple[str, list]:
    """The constructor (``_datetime``, ``_date`` or ``_time``) of a DATETIME
    qualifier and its arguments: the fields present (any objects: source
    text here, columns in rowblock.py), the rest int constants from
    2000-01-01 00:00 as scalars.datetime_value fills them, trailing zero
    constants dropped."""
    parts: dict = {TU_YEAR: 2000, TU_MONTH: 1, TU_DAY: 1, TU_HOUR: 0,
                   TU_SECOND - 2: 0, TU_SECOND: 0}
    parts.update(zip(range(start, TU_SECOND + 1, 2), fields))
    values = [parts[u] for u in sorted(parts)] + [micro]
    if start >= TU_HOUR:
        name, values = "_time", values[3:]
    elif end <= TU_DAY:
        name, values = "_date", values[:3]
    else:
        name = "_datetime"
    while len(values) > (3 if name != "_time" else 1) and type(values[-1]) is int \
            and values[-1] == 0:
        values.pop()
    return name, values


def _datetime_call(start: int, end: int, fields: list[str], micro: str | int) -> str:
    name, values = datetime_args(start, end, fields, micro)
    return f"{name}({', '.join(map(str, values))})"


def _interval_call(ctype: ColumnType, fields: list[str], micro: str) -> str:
    start = ctype.start
    if ctype.is_year_month:
        # `+ 0`: a bare table lookup is None for a bad pair, and
        # IntervalYM(None) would not complain
        months = f"{fields[0]} + 0" if start == TU_MONTH else (
            f"{fields[0]} * 12" + (f" + {fields[1]}" if len(fields) > 1 else ""))
        return f"_ym({months})"
    units = range(start, TU_SECOND + 1, 2)
    terms = [(_UNIT_SECONDS[u], f) for u, f in zip(units, fields)]
    if start == TU_DAY:
        days, terms = terms[0][1], terms[1:]
    else:
        days = "0"
    secs = " + ".join(f if size == 1 else f"{f} * {size}" for size, f in terms) or "0"
    return f"_td({days}, {secs}, {micro})"
