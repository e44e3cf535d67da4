"""SQ_PUT row images straight to what a table stores, without Python values.

An insert cursor's client sends each row as a row image in SQ_TUPLE's format
(docs/protocol.md, "Insert cursors"), and a table that keeps row images
stores exactly that format.  The reference path turns the bytes into Python
values (the row decoder), those into stored values (values.writer_for) and
those back into an image (values.image_maker) -- three conversions per cell,
most of the cost of an ingest.  When a received cell is *canonical* -- the
bytes the server's own encoder makes from the value it stores -- the stored
value can be read off the bytes and the row image is the received row
itself, sliced: no Decimal, no datetime, no re-encoding.

``row_converter(types, codec)`` generates one function per table shape:
``convert(image) -> [stored values..., stored image]``, or None when any
cell is not canonical (a DECIMAL with more fraction digits than its scale,
an invalid date, a VARCHAR longer than its column, a NaN, bytes that do not
decode, a row that does not end where its columns do...).  A None row goes
the reference way, so every conversion, rounding and error stays the
reference's; the fast converter only ever answers when its answer is the
reference's answer (tests/test_put_rows.py checks that differentially).

Cells handled: SMALLINT, INTEGER, BIGINT, FLOAT, SMALLFLOAT, DATE,
VARCHAR/NVARCHAR, DECIMAL(p,s)/MONEY(p,s) and DATETIME YEAR TO SECOND;
a table with any other column has no fast converter.  bind_rows.py reads
the same cells inside SQ_BIND parameter blocks with these same lines
(``Plan.at_offset``, ``add_cell``): one reader of each cell encoding.
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections.abc import Callable, Sequence
from decimal import Decimal

from ..codec.typeinfo import TU_SECOND, TU_YEAR, ColumnType, TypeCode
from .statements import exact_decimal

RowConverter = Callable[[bytes], "list | None"]

DAY0 = datetime.date(1899, 12, 31).toordinal()
_FIRST_DAY = 1 - DAY0                                    # 0001-01-01
_LAST_DAY = datetime.date(9999, 12, 31).toordinal() - DAY0
_TUPLE_HEAD = struct.Struct("!hhi")                      # SQ_TUPLE, warnings, size
_SQ_TUPLE = 14
# Byte v (a base-100 digit pair, 0..99) -> the byte whose hex form is v's two
# decimal digits (BCD), so int(pairs.translate(_BCD).hex()) reads the pairs as
# one decimal number; any byte over 99 maps to 0xFF, which int() refuses.
_BCD = bytes((v // 10) * 16 + v % 10 if v <= 99 else 0xFF for v in range(256))
_PAIR = tuple(f"{v:02d}" for v in range(100))
_POW10 = tuple(10 ** k for k in range(400))
_DOUBLE_NULL = b"\xff" * 8
_REAL_NULL = b"\xff" * 4
# Code sets whose decode/encode round-trips every byte string they accept,
# so a decoded VARCHAR re-encodes to exactly the received bytes.
ROUND_TRIP_CODECS = frozenset({"utf-8", "iso-8859-1", "latin-1", "ascii"})

_INTS = {TypeCode.SMALLINT: ("h", -(2 ** 15)), TypeCode.INTEGER: ("i", -(2 ** 31)),
         TypeCode.BIGINT: ("q", -(2 ** 63))}
_DECIMALS = (TypeCode.DECIMAL, TypeCode.MONEY)

_SOURCE = """\
def convert(b):
    try:
{body}
    except Exception:
        return None     # not canonical: the reference path decides
    if pos != len(b):
        return None
    return [{values}, _head(14, 0, pos) + b + _pad[pos & 1]]
"""


class Plan:
    """Lines of the generated converter; ``at`` is the offset expression of
    the next cell (a constant until the first VARCHAR, then ``pos`` plus a
    constant).  ``at_offset`` reads one cell at ``base + offset`` of
    ``src`` instead (bind_rows: a cell inside a parameter block)."""

    def __init__(self, src: str = "b") -> None:
        self.lines: list[str] = []
        self.fixed = 0           # bytes since the last variable point
        self.variable = False
        self.base = "pos"        # the variable point's name
        self.src = src           # the name of the bytes the cells are read from

    @classmethod
    def at_offset(cls, src: str, base: str, offset: int) -> "Plan":
        plan = cls(src)
        plan.variable, plan.base, plan.fixed = True, base, offset
        return plan

    @property
    def at(self) -> str:
        if not self.variable:
            return str(self.fixed)
        return f"{self.base} + {self.fixed}" if self.fixed else self.base

    def end(self) -> str:
        return self.at


def _int_cell(plan: Plan, k: int, ctype: ColumnType, ns: dict) -> None:
    fmt, null = _INTS[ctype.code]
    ns[f"_u{k}"] = struct.Struct("!" + fmt).unpack_from
    plan.lines += [f"v{k}, = _u{k}({plan.src}, {plan.at})",
                   f"if v{k} == {null}: v{k} = None"]
    plan.fixed += struct.calcsize(fmt)


def _date_cell(plan: Plan, k: int, ns: dict) -> None:
    ns[f"_u{k}"] = struct.Struct("!i").unpack_from
    plan.lines += [f"v{k}, = _u{k}({plan.src}, {plan.at})",
                   f"if v{k} == -2147483648: v{k} = None",
                   f"elif not {_FIRST_DAY} <= v{k} <= {_LAST_DAY}: return None"]
    plan.fixed += 4


def _float_cell(plan: Plan, k: int, ctype: ColumnType, ns: dict) -> None:
    fmt, null = ("d", "_DOUBLE_NULL") if ctype.code is TypeCode.FLOAT else ("f", "_REAL_NULL")
    size = struct.calcsize(fmt)
    ns[f"_u{k}"] = struct.Struct("!" + fmt).unpack_from
    at, b = plan.at, plan.src
    plan.lines += [f"v{k}, = _u{k}({b}, {at})",
                   f"if v{k} != v{k}:",      # NULL is a NaN; any other NaN: reference
                   f"    if {b}[{at}:{at} + {size}] != {null}: return None",
                   f"    v{k} = None"]
    plan.fixed += size


def _varchar_cell(plan: Plan, k: int, ctype: ColumnType) -> None:
    limit = ctype.length & 0xFF
    at, b = plan.at, plan.src
    plan.lines += [f"start = {at} + 1",
                   f"n = {b}[start - 1]",
                   "pos = start + n",
                   f"t = {b}[start:pos]",
                   "if n == 1 and t == b'\\x00':",
                   f"    v{k} = None",
                   f"elif n > {limit}: return None",
                   f"else: v{k} = t.decode(_codec)"]
    plan.variable, plan.fixed = True, 0


def _decimal_cell(plan: Plan, k: int, ctype: ColumnType, ns: dict) -> None:
    """N = the pairs as one integer; value = N * 10**e10.  Canonical: the
    leading pair non-zero (zero only as the encoder writes it, 0xC0 and zero
    pairs), at most ``scale`` fraction digits, at most p - s whole digits."""
    width = ctype.wire_width
    pairs, p, s = width - 1, ctype.precision, ctype.scale
    at, b = plan.at, plan.src
    store = f"_exact{k}(neg, N, e10)" if exact_decimal(ctype) else \
        "(-(N / _P10[-e10]) if neg else N / _P10[-e10])"
    if exact_decimal(ctype):
        ns[f"_exact{k}"] = _exact_text(s)
    plan.lines += [
        f"h = {b}[{at}]",
        f"N = int({b}[{at} + 1:{at} + {width}].translate(_BCD).hex())",
        "if h == 0:",
        "    if N: return None",
        f"    v{k} = None",
        "else:",
        "    neg = not h & 0x80",
        "    if neg:",
        "        if not N: return None",
        f"        N = {100 ** pairs} - N",
        "        h ^= 0x7F",
        f"    e10 = 2 * ((h & 0x7F) - 64 - {pairs})",
        "    if not N:",
        "        if h != 0xC0 or neg: return None",
        f"    elif N < {100 ** (pairs - 1)}: return None",
        "    if e10 > 0:",
        "        N, e10 = N * _P10[e10], 0",
        f"    if e10 < -{s} and N % _P10[-{s} - e10]: return None",
        f"    if N >= _P10[{p - s} - e10]: return None",
        f"    v{k} = {store}",
    ]
    plan.fixed += width


def _exact_text(scale: int) -> Callable[[bool, int, int], str]:
    """Stored text of an exact DECIMAL(p,s) (values._decimal_writer's form)."""
    quantum = Decimal(1).scaleb(-scale)
    context = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_UP)

    def text(neg: bool, n: int, e10: int) -> str:
        return str(Decimal((int(neg), tuple(map(int, str(n))), e10)).quantize(
            quantum, context=context))
    return text


def _datetime_cell(plan: Plan, k: int) -> None:
    """YEAR TO SECOND: head 0xC7 (exponent 7) and seven pairs of valid fields;
    stored as 'YYYY-MM-DD HH:MM:SS' (values.datetime_writer's text)."""
    at, b = plan.at, plan.src
    plan.lines += [
        f"h = {b}[{at}]",
        f"y1, y2, mo, d, hh, mi, ss = {b}[{at} + 1:{at} + 8]",
        "if h == 0:",
        "    if y1 or y2 or mo or d or hh or mi or ss: return None",
        f"    v{k} = None",
        "else:",
        "    if h != 0xC7: return None",
        f"    v{k} = (_T[y1] + _T[y2] + '-' + _T[mo] + '-' + _T[d] + ' ' + _T[hh] + ':'"
        " + _T[mi] + ':' + _T[ss])",
        f"    _iso(v{k})",      # ValueError for a day, month or time that does not exist
    ]
    plan.fixed += 8


def is_year_to_second(ctype: ColumnType) -> bool:
    return (ctype.code is TypeCode.DATETIME and ctype.start == TU_YEAR
            and ctype.end == TU_SECOND and ctype.leading_digits == 4)


def add_cell(plan: Plan, k: int, ctype: ColumnType, codec: str, ns: dict) -> bool:
    """Add column ``k``'s lines; False when the type has no fast cell."""
    code = ctype.code
    if code in _INTS:
        _int_cell(plan, k, ctype, ns)
    elif code is TypeCode.DATE:
        _date_cell(plan, k, ns)
    elif code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        _float_cell(plan, k, ctype, ns)
    elif code in (TypeCode.VARCHAR, TypeCode.NVARCHAR) and codec in ROUND_TRIP_CODECS:
        _varchar_cell(plan, k, ctype)
    elif code in _DECIMALS and ctype.scale is not None and ctype.precision >= ctype.scale:
        _decimal_cell(plan, k, ctype, ns)
    elif is_year_to_second(ctype):
        _datetime_cell(plan, k)
    else:
        return False
    return True


def row_converter(types: Sequence[ColumnType], codec: str) -> RowConverter | None:
    """The generated converter for rows of these column types, or None when
    a column has no fast cell (then every row takes the reference path)."""
    if not types:
        return None
    plan, ns = Plan(), namespace(codec)
    for k, ctype in enumerate(types):
        if not add_cell(plan, k, ctype, codec, ns):
            return None
    plan.lines.append(f"pos = {plan.end()}")
    body = "\n".join("        " + line for line in plan.lines)
    values = ", ".join(f"v{k}" for k in range(len(types)))
    exec(_SOURCE.format(body=body, values=values), ns)  # noqa: S102 - built from types only
    return ns["convert"]  # type: ignore[no-any-return]


def namespace(codec: str) -> dict:
    return {"_BCD": _BCD, "_P10": _POW10, "_T": _PAIR, "_codec": codec,
            "_DOUBLE_NULL": _DOUBLE_NULL, "_REAL_NULL": _REAL_NULL,
            "_iso": datetime.datetime.fromisoformat, "_head": _TUPLE_HEAD.pack,
            "_pad": (b"", b"\x00")}
