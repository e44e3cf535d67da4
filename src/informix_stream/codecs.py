"""Informix column types and the byte layouts of their values.

One module serves both ends of the wire: the driver decodes SQ_TUPLE rows and
encodes SQ_BIND parameters, the emulator does the reverse.  Keeping both
directions here means a layout mistake shows up as a failed round trip in one
place instead of two programs that agree with each other and with nobody else.

Two byte layouts exist for the same values:

* row images (inside SQ_TUPLE) carry no type information; the reader needs the
  DESCRIBE column list to know where each value ends, and NULL is an in-band
  sentinel chosen per type;
* parameter blocks (inside SQ_BIND) are self-describing: a type code, a NULL
  indicator and a precision/qualifier short precede each value.

See docs/protocol.md (section "Value encodings") for the byte tables.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from .errors import DataError, NotSupportedError, ProtocolError
from .framing import Reader, Writer

__all__ = [
    "TypeCode", "NOT_NULL_FLAG", "ColumnType", "parse_type", "IntervalYM",
    "BlobParam", "make_row_encoder", "make_row_decoder", "encode_param",
    "read_param", "qualifier", "packed_width",
    "TU_YEAR", "TU_MONTH", "TU_DAY", "TU_HOUR", "TU_MINUTE", "TU_SECOND",
]


class TypeCode(IntEnum):
    """Informix's numeric type codes (syscolumns.coltype low byte)."""

    CHAR = 0
    SMALLINT = 1
    INTEGER = 2
    FLOAT = 3
    SMALLFLOAT = 4
    DECIMAL = 5
    SERIAL = 6
    DATE = 7
    MONEY = 8
    NULL = 9
    DATETIME = 10
    BYTE = 11
    TEXT = 12
    VARCHAR = 13
    INTERVAL = 14
    NCHAR = 15
    NVARCHAR = 16
    INT8 = 17
    SERIAL8 = 18
    UDTVAR = 40
    UDTFIXED = 41
    LVARCHAR = 43
    BOOLEAN = 45
    BIGINT = 52
    BIGSERIAL = 53


NOT_NULL_FLAG = 0x100

# Extended ids the server uses when it describes built-in "opaque" types.
XID_LVARCHAR = 1
XID_BOOLEAN = 5

# Time units of DATETIME / INTERVAL qualifiers; FRACTION(n) is TU_SECOND + n.
TU_YEAR, TU_MONTH, TU_DAY, TU_HOUR, TU_MINUTE, TU_SECOND = 0, 2, 4, 6, 8, 10
TU_FRACTION = 12  # start code of a qualifier that begins at FRACTION
_TU_NAMES = {TU_YEAR: "YEAR", TU_MONTH: "MONTH", TU_DAY: "DAY",
             TU_HOUR: "HOUR", TU_MINUTE: "MINUTE", TU_SECOND: "SECOND"}
_TU_BY_NAME = {v: k for k, v in _TU_NAMES.items()}

_FIXED_LENGTH = {
    TypeCode.SMALLINT: 2, TypeCode.INTEGER: 4, TypeCode.SERIAL: 4,
    TypeCode.FLOAT: 8, TypeCode.SMALLFLOAT: 4, TypeCode.DATE: 4,
    TypeCode.INT8: 10, TypeCode.SERIAL8: 10, TypeCode.BIGINT: 8,
    TypeCode.BIGSERIAL: 8, TypeCode.BOOLEAN: 1, TypeCode.BYTE: 56,
    TypeCode.TEXT: 56, TypeCode.NULL: 0,
}
# Decimal digits of precision a DESCRIBE-style metadata consumer expects.
_NUMERIC_PRECISION = {
    TypeCode.SMALLINT: 5, TypeCode.INTEGER: 10, TypeCode.SERIAL: 10,
    TypeCode.INT8: 19, TypeCode.SERIAL8: 19, TypeCode.BIGINT: 19,
    TypeCode.BIGSERIAL: 19, TypeCode.FLOAT: 15, TypeCode.SMALLFLOAT: 7,
}
_PACKED = frozenset({TypeCode.DECIMAL, TypeCode.MONEY, TypeCode.DATETIME,
                     TypeCode.INTERVAL})
_VARCHARS = frozenset({TypeCode.VARCHAR, TypeCode.NVARCHAR})


def qualifier(digits: int, start: int, end: int) -> int:
    """Pack a DATETIME/INTERVAL qualifier the way collength stores it."""
    return (digits << 8) | (start << 4) | end


def packed_width(length: int) -> int:
    """Bytes of a DECIMAL/MONEY/DATETIME/INTERVAL value in a row image.

    One exponent byte plus one byte per two digits.  The odd-low-byte term
    matters for DECIMAL(p) (scale 255): both clients size it this way, so
    DECIMAL(16) is 10 bytes, not 9.
    """
    return ((length >> 8) + (length & 1) + 3) // 2


@dataclass(frozen=True, slots=True)
class ColumnType:
    """A column's type exactly as Informix encodes it in metadata.

    ``length`` is syscolumns.collength / the DESCRIBE encoded length, so the
    emulator can hand it to clients unchanged and the driver can use what the
    server sent without translation.
    """

    code: TypeCode
    length: int
    nullable: bool = True

    # -- numeric and string metadata -------------------------------------
    @property
    def precision(self) -> int:
        """Digits for numbers and DATETIME/INTERVAL, max characters for text."""
        if self.code in _PACKED:
            return self.length >> 8
        if self.code in _VARCHARS:
            return self.length & 0xFF
        return _NUMERIC_PRECISION.get(self.code, self.length)

    @property
    def scale(self) -> int | None:
        """DECIMAL/MONEY scale; None for floating DECIMAL(p) (collength 255)."""
        if self.code in (TypeCode.DECIMAL, TypeCode.MONEY):
            s = self.length & 0xFF
            return None if s == 0xFF else s
        if self.code in (TypeCode.DATETIME, TypeCode.INTERVAL):
            return self.fraction_digits
        return 0

    @property
    def min_length(self) -> int:
        """VARCHAR's reserved length m in VARCHAR(n,m); 0 for other types."""
        return self.length >> 8 if self.code in _VARCHARS else 0

    # -- DATETIME / INTERVAL qualifier -----------------------------------
    @property
    def start(self) -> int:
        """First time unit of a DATETIME/INTERVAL qualifier (TU_* code)."""
        return (self.length >> 4) & 0xF

    @property
    def end(self) -> int:
        """Last time unit; TU_SECOND + n for FRACTION(n)."""
        return self.length & 0xF

    @property
    def fraction_digits(self) -> int:
        return max(0, self.end - TU_SECOND)

    @property
    def leading_digits(self) -> int:
        """Digits of the first field: 4 for DATETIME YEAR, p in INTERVAL DAY(p)."""
        return (self.length >> 8) - (self.end - self.start)

    @property
    def is_year_month(self) -> bool:
        """An INTERVAL counted in months (YEAR TO MONTH family)."""
        return self.code == TypeCode.INTERVAL and self.start <= TU_MONTH

    # -- wire metadata ---------------------------------------------------
    @property
    def wire_code(self) -> int:
        """Type short as stored in syscolumns.coltype (NOT NULL bit included)."""
        return int(self.code) | (0 if self.nullable else NOT_NULL_FLAG)

    @property
    def describe_code(self) -> int:
        """Type short a real server puts in DESCRIBE for this column.

        BOOLEAN and LVARCHAR are described as the opaque types UDTFIXED and
        UDTVAR (with an extended id/name) and their row values carry a UDT
        envelope.  JDBC and informix-driver disagree on how a bare 43/45 is
        laid out in a row, but both read the opaque form identically.
        """
        code = {TypeCode.BOOLEAN: TypeCode.UDTFIXED,
                TypeCode.LVARCHAR: TypeCode.UDTVAR}.get(self.code, self.code)
        return int(code) | (0 if self.nullable else NOT_NULL_FLAG)

    @property
    def extended_id(self) -> int:
        return {TypeCode.BOOLEAN: XID_BOOLEAN,
                TypeCode.LVARCHAR: XID_LVARCHAR}.get(self.code, 0)

    @property
    def extended_name(self) -> str:
        return {TypeCode.BOOLEAN: "boolean",
                TypeCode.LVARCHAR: "lvarchar"}.get(self.code, "")

    @property
    def wire_width(self) -> int:
        """Most bytes one value of this column takes in a row image.

        Summed over the columns this is the DESCRIBE tuple size; running sums
        give the column start positions.  BYTE/TEXT rows carry the 56-byte
        blob descriptor.
        """
        code = self.code
        if code in _PACKED:
            return packed_width(self.length)
        if code in _VARCHARS:
            return 1 + (self.length & 0xFF)
        if code in (TypeCode.BOOLEAN, TypeCode.LVARCHAR):
            return 5 + self.length
        return self.length

    # -- DDL -------------------------------------------------------------
    def sql(self) -> str:
        """The type as DDL text, e.g. ``DECIMAL(10,2)``."""
        return _SQL_RENDERERS.get(self.code, _sql_plain)(self)


def _sql_plain(t: ColumnType) -> str:
    return {TypeCode.SMALLFLOAT: "SMALLFLOAT", TypeCode.NVARCHAR: "NVARCHAR",
            TypeCode.NULL: "NULL"}.get(t.code, t.code.name)


def _sql_sized(t: ColumnType) -> str:
    return f"{t.code.name}({t.length})"


def _sql_varchar(t: ColumnType) -> str:
    name = t.code.name
    n, m = t.length & 0xFF, t.length >> 8
    return f"{name}({n},{m})" if m else f"{name}({n})"


def _sql_decimal(t: ColumnType) -> str:
    s = t.scale
    if s is None:
        return f"{t.code.name}({t.precision})"
    return f"{t.code.name}({t.precision},{s})"


def _unit_text(tu: int) -> str:
    if tu > TU_SECOND:
        return f"FRACTION({tu - TU_SECOND})"
    return _TU_NAMES[tu]


def _sql_datetime(t: ColumnType) -> str:
    return f"DATETIME {_unit_text(t.start)} TO {_unit_text(t.end)}"


def _sql_interval(t: ColumnType) -> str:
    first = _TU_NAMES[t.start]
    if t.start == t.end:
        return f"INTERVAL {first}({t.leading_digits}) TO {first}"
    return f"INTERVAL {first}({t.leading_digits}) TO {_unit_text(t.end)}"


_SQL_RENDERERS = {
    TypeCode.CHAR: _sql_sized, TypeCode.NCHAR: _sql_sized,
    TypeCode.LVARCHAR: _sql_sized,
    TypeCode.VARCHAR: _sql_varchar, TypeCode.NVARCHAR: _sql_varchar,
    TypeCode.DECIMAL: _sql_decimal, TypeCode.MONEY: _sql_decimal,
    TypeCode.DATETIME: _sql_datetime, TypeCode.INTERVAL: _sql_interval,
}


# ---------------------------------------------------------------------------
# DDL parsing
# ---------------------------------------------------------------------------

_SIMPLE_TYPES = {
    "SMALLINT": TypeCode.SMALLINT, "INTEGER": TypeCode.INTEGER,
    "INT": TypeCode.INTEGER, "SERIAL": TypeCode.SERIAL,
    "INT8": TypeCode.INT8, "SERIAL8": TypeCode.SERIAL8,
    "BIGINT": TypeCode.BIGINT, "BIGSERIAL": TypeCode.BIGSERIAL,
    "SMALLFLOAT": TypeCode.SMALLFLOAT, "REAL": TypeCode.SMALLFLOAT,
    "FLOAT": TypeCode.FLOAT, "DOUBLE PRECISION": TypeCode.FLOAT,
    "DATE": TypeCode.DATE, "BOOLEAN": TypeCode.BOOLEAN,
    "BYTE": TypeCode.BYTE, "TEXT": TypeCode.TEXT,
}
_DECIMAL_NAMES = {"DECIMAL": TypeCode.DECIMAL, "DEC": TypeCode.DECIMAL,
                  "NUMERIC": TypeCode.DECIMAL, "MONEY": TypeCode.MONEY}
_CHAR_NAMES = {"CHAR": TypeCode.CHAR, "CHARACTER": TypeCode.CHAR,
               "NCHAR": TypeCode.NCHAR}
_VARCHAR_NAMES = {"VARCHAR": TypeCode.VARCHAR,
                  "CHARACTER VARYING": TypeCode.VARCHAR,
                  "NVARCHAR": TypeCode.NVARCHAR}

_ARGS = r"(?:\((?P<a>\d+)(?:,(?P<b>\d+))?\))?"
_NAMED = re.compile(r"(?P<name>[A-Z][A-Z0-9]*(?:\s+(?:PRECISION|VARYING))?)"
                    + _ARGS + r"$")
_UNIT = r"(?:YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|FRACTION)"
_TEMPORAL = re.compile(
    r"(?P<kind>DATETIME|INTERVAL) (?P<first>" + _UNIT + r")(?:\((?P<p>\d+)\))?"
    r" ?TO (?P<last>" + _UNIT + r")(?:\((?P<f>\d+)\))?$")


def parse_type(text: str, nullable: bool = True) -> ColumnType:
    """Build a ColumnType from DDL type text such as ``decimal(10, 2)``.

    Accepts Informix's synonyms (DEC, NUMERIC, INT, REAL, DOUBLE PRECISION,
    CHARACTER [VARYING]) and applies its defaults (CHAR -> CHAR(1), DECIMAL
    -> DECIMAL(16), MONEY -> MONEY(16,2), LVARCHAR -> LVARCHAR(2048)).
    """
    norm = re.sub(r"\s*([(),])\s*", r"\1", " ".join(text.upper().split()))
    temporal = _TEMPORAL.match(norm)
    if temporal:
        return _parse_temporal(temporal, nullable, text)
    named = _NAMED.match(norm)
    if not named:
        raise ValueError(f"not an Informix type: {text!r}")
    name, a, b = named["name"], named["a"], named["b"]
    args = tuple(int(x) for x in (a, b) if x is not None)
    return ColumnType(_parse_named(name, args, text), _length_of(name, args, text),
                      nullable)


def _parse_named(name: str, args: tuple[int, ...], text: str) -> TypeCode:
    for table in (_SIMPLE_TYPES, _DECIMAL_NAMES, _CHAR_NAMES, _VARCHAR_NAMES):
        if name in table:
            return table[name]
    if name == "LVARCHAR":
        return TypeCode.LVARCHAR
    raise ValueError(f"not an Informix type: {text!r}")


def _length_of(name: str, args: tuple[int, ...], text: str) -> int:
    """The encoded collength for a non-temporal type and its arguments."""
    def bad(why: str) -> ValueError:
        return ValueError(f"{why}: {text!r}")

    if name in _SIMPLE_TYPES:
        code = _SIMPLE_TYPES[name]
        if args and not (code == TypeCode.FLOAT and len(args) == 1):
            raise bad("type takes no size")
        return _FIXED_LENGTH[code]
    if name in _DECIMAL_NAMES:
        money = name == "MONEY"
        p = args[0] if args else 16
        s = args[1] if len(args) > 1 else (2 if money else 0xFF)
        if not 1 <= p <= 32 or (s != 0xFF and s > p):
            raise bad("invalid precision/scale")
        return (p << 8) | s
    if name in _CHAR_NAMES:
        n = args[0] if args else 1
        if len(args) > 1 or not 1 <= n <= 32767:
            raise bad("invalid CHAR length")
        return n
    if name in _VARCHAR_NAMES:
        if not args:
            raise bad("VARCHAR needs a length")
        n, m = args[0], args[1] if len(args) > 1 else 0
        if not 1 <= n <= 255 or m > n:
            raise bad("invalid VARCHAR length")
        return (m << 8) | n
    n = args[0] if args else 2048  # LVARCHAR
    if len(args) > 1 or not 1 <= n <= 32739:
        raise bad("invalid LVARCHAR length")
    return n


def _unit_code(word: str, digits: str | None, text: str) -> int:
    if word != "FRACTION":
        return _TU_BY_NAME[word]
    n = int(digits) if digits is not None else 3
    if not 1 <= n <= 5:
        raise ValueError(f"FRACTION precision must be 1..5: {text!r}")
    return TU_SECOND + n


def _parse_temporal(m: re.Match[str], nullable: bool, text: str) -> ColumnType:
    kind, first, last = m["kind"], m["first"], m["last"]
    if first == "FRACTION":
        raise ValueError(f"qualifiers starting at FRACTION are not supported: {text!r}")
    start = _TU_BY_NAME[first]
    end = _unit_code(last, m["f"], text)
    if m["f"] is not None and last != "FRACTION":
        raise ValueError(f"only FRACTION takes a precision after TO: {text!r}")
    if end < start:
        raise ValueError(f"qualifier runs backwards: {text!r}")
    if kind == "DATETIME":
        if m["p"] is not None:
            raise ValueError(f"DATETIME fields take no precision: {text!r}")
        lead = 4 if start == TU_YEAR else 2
        code = TypeCode.DATETIME
    else:
        lead = int(m["p"]) if m["p"] is not None else (4 if start == TU_YEAR else 2)
        if not 1 <= lead <= 9:
            raise ValueError(f"INTERVAL leading precision must be 1..9: {text!r}")
        if start <= TU_MONTH < end:
            raise ValueError(f"INTERVAL cannot mix months and days: {text!r}")
        code = TypeCode.INTERVAL
    digits = lead + (end - start)
    return ColumnType(code, qualifier(digits, start, end), nullable)


@dataclass(frozen=True)
class IntervalYM:
    """A year-month INTERVAL value, held as a signed month count.

    timedelta cannot hold months (their length varies), so year-month
    intervals get their own type.  ``str()`` renders Informix's style,
    e.g. ``1-06`` or ``-2-03``.
    """

    months: int

    @property
    def years(self) -> int:
        """Whole years, signed like the interval."""
        y = abs(self.months) // 12
        return -y if self.months < 0 else y

    @property
    def remainder_months(self) -> int:
        """Months beyond the whole years, signed like the interval."""
        r = abs(self.months) % 12
        return -r if self.months < 0 else r

    def __str__(self) -> str:
        sign = "-" if self.months < 0 else ""
        m = abs(self.months)
        return f"{sign}{m // 12}-{m % 12:02d}"


# ---------------------------------------------------------------------------
# Base-100 "decimal" bytes shared by DECIMAL, MONEY, DATETIME and INTERVAL
# ---------------------------------------------------------------------------
#
# [head][digit pair]...: each pair byte holds 0..99.  head bit 7 set means
# positive, and the low 7 bits hold the base-100 exponent + 64.  A negative
# value stores the complemented exponent (head ^ 0x7F, bit 7 clear) and the
# pairs complemented from the right: trailing zero pairs stay, the last
# non-zero pair becomes 100 - d and every pair before it 99 - d.
# An all-zero head and first pair is NULL.

_PAIR_TEXT = tuple(f"{d:02d}" for d in range(100))


def _complement(pairs: bytearray) -> None:
    """Apply (or undo: it is its own inverse) the negative-value complement."""
    sub = 100
    for i in range(len(pairs) - 1, -1, -1):
        if pairs[i] == 0 and sub == 100:
            continue
        pairs[i] = sub - pairs[i]
        sub = 99


def _head(exp100: int, negative: bool) -> int:
    biased = (exp100 + 64) & 0x7F
    return biased ^ 0x7F if negative else biased | 0x80


def _split_bcd(raw: bytes | memoryview) -> tuple[bool, int, bytearray]:
    """(negative, base-100 exponent, uncomplemented pairs) of non-NULL bytes."""
    head = raw[0]
    negative = not head & 0x80
    pairs = bytearray(raw[1:])
    if negative:
        _complement(pairs)
        head ^= 0x7F
    if max(pairs, default=0) > 99:
        raise ProtocolError(f"invalid base-100 digit in {bytes(raw).hex()}")
    return negative, (head & 0x7F) - 64, pairs


def _is_bcd_null(raw: bytes | memoryview) -> bool:
    return raw[0] == 0 and raw[1] == 0


def _decimal_pairs(value: decimal.Decimal) -> tuple[bool, int, bytes]:
    """Base-100 form of a finite Decimal: pad the digits so the decimal point
    falls between pairs, then pair them.  Trailing zeros of the value are
    kept, which is how informix-driver binds, byte for byte."""
    if not value.is_finite():
        raise DataError(f"Informix DECIMAL cannot hold {value}")
    sign, digits, exp = value.as_tuple()
    point = len(digits) + exp  # digits before the decimal point
    if point & 1:
        digits = (0, *digits)
        point += 1
    if len(digits) & 1:
        digits = (*digits, 0)
    pairs = bytes(digits[i] * 10 + digits[i + 1] for i in range(0, len(digits), 2))
    exp100 = point // 2
    if not -64 <= exp100 <= 63:
        raise DataError(f"{value} is outside Informix DECIMAL range")
    return bool(sign), exp100, pairs


def _bcd_bytes(negative: bool, exp100: int, pairs: bytes) -> bytes:
    body = bytearray(pairs)
    if negative:
        _complement(body)
    return bytes((_head(exp100, negative),)) + bytes(body)


def _decimal_from_bcd(raw: bytes | memoryview, scale: int | None) -> decimal.Decimal:
    """Exact Decimal: rescaled to ``scale`` for DECIMAL(p,s)/MONEY, and with
    fraction zeros dropped for floating DECIMAL(p), whose scale is unknown."""
    negative, exp100, pairs = _split_bcd(raw)
    text = "".join([_PAIR_TEXT[d] for d in pairs]).lstrip("0")
    exp10 = 2 * exp100 - 2 * len(pairs)
    if scale is None:
        trimmed = text.rstrip("0")
        drop = min(len(text) - len(trimmed), max(0, -exp10))
        text, exp10 = text[:len(text) - drop], exp10 + drop
    elif exp10 < -scale:
        cut = -scale - exp10
        if text[len(text) - cut:].strip("0"):
            raise ProtocolError(f"DECIMAL has more than {scale} fraction digits")
        text, exp10 = text[:len(text) - cut], -scale
    else:
        text, exp10 = text + "0" * (exp10 + scale), -scale
    sign = "-" if negative else ""
    return decimal.Decimal(f"{sign}{text or '0'}E{exp10}")


def _fit_decimal(value: object, ctype: ColumnType) -> decimal.Decimal:
    """Round like Informix on assignment and reject values too wide."""
    if isinstance(value, float):
        value = decimal.Decimal(repr(value))
    elif not isinstance(value, decimal.Decimal):
        value = decimal.Decimal(int(value))  # type: ignore[call-overload]
    p, s = ctype.precision, ctype.scale
    ctx = decimal.Context(prec=p, rounding=decimal.ROUND_HALF_UP, Emin=-130, Emax=130)
    try:
        if s is None:
            return ctx.plus(value)
        return value.quantize(decimal.Decimal(1).scaleb(-s), context=ctx)
    except decimal.DecimalException as exc:
        raise DataError(f"{value} does not fit {ctype.sql()}") from exc


# ---------------------------------------------------------------------------
# DATETIME / INTERVAL fields
# ---------------------------------------------------------------------------

def _exponent(length: int) -> int:
    """Base-100 exponent of a DATETIME/INTERVAL: pairs from the first field
    through SECOND, as both clients compute it from the qualifier."""
    digits, end = length >> 8, length & 0xF
    return (digits + 10 - end + 1) // 2


def _field_pairs(values: Sequence[int], micro: int, ctype: ColumnType) -> bytes:
    """Pairs for leading field value, following whole fields, and fraction."""
    lead, first, *rest = ctype.leading_digits, values[0], *values[1:]
    if first >= 10 ** lead:
        raise DataError(f"{first} overflows the leading field of {ctype.sql()}")
    text = f"{first:0{lead}d}"
    if lead & 1:
        text = "0" + text
    text += "".join(f"{v:02d}" for v in rest)
    n = ctype.fraction_digits
    if n:
        frac = f"{micro:06d}"[:n]
        text += frac + "0" * (n & 1)
    return bytes(int(text[i:i + 2]) for i in range(0, len(text), 2))


def _walk_fields(pairs: bytearray, exp100: int, ctype: ColumnType) -> tuple[list[int], int]:
    """Split digit pairs into [leading, next..., SECOND] values and microseconds."""
    shift = _exponent(ctype.length) - exp100
    if shift < 0:
        raise ProtocolError(f"{ctype.sql()} value exponent {exp100} too large")
    buf = bytes(shift) + bytes(pairs) + bytes(16)
    start, end = ctype.start, ctype.end
    npairs = (ctype.leading_digits + 1) // 2
    lead = 0
    for d in buf[:npairs]:
        lead = lead * 100 + d
    fields, i = [lead], npairs
    for _ in range(start + 2, min(end, TU_SECOND) + 1, 2):
        fields.append(buf[i])
        i += 1
    micro = 0
    if end > TU_SECOND:
        nfrac = (end - TU_SECOND + 1) // 2
        for d in buf[i:i + nfrac]:
            micro = micro * 100 + d
        micro *= 10 ** (6 - 2 * nfrac)
    return fields, micro


_DT_ATTRS = {TU_YEAR: "year", TU_MONTH: "month", TU_DAY: "day",
             TU_HOUR: "hour", TU_MINUTE: "minute", TU_SECOND: "second"}
# Fill-in for DATETIME fields before the qualifier's first one.  2000 is a
# leap year, so MONTH TO DAY '02-29' still has a Python value.
_DT_DEFAULTS = {"year": 2000, "month": 1, "day": 1}


def _datetime_bytes(value: object, ctype: ColumnType) -> bytes:
    start, end = ctype.start, ctype.end
    units = range(start, min(end, TU_SECOND) + 1, 2)
    try:
        fields = [getattr(value, _DT_ATTRS[u]) for u in units]
        micro = getattr(value, "microsecond", 0) if end > TU_SECOND else 0
    except AttributeError as exc:
        raise DataError(f"{value!r} cannot be stored as {ctype.sql()}") from exc
    pairs = _field_pairs(fields, micro, ctype)
    return bytes((_head(_exponent(ctype.length), False),)) + pairs


def _datetime_value(raw: bytes | memoryview, ctype: ColumnType) -> object:
    """datetime for YEAR..>=HOUR, date when the qualifier ends by DAY, time
    when it starts at HOUR or later; leading fields missing from the qualifier
    come from 2000-01-01."""
    _, exp100, pairs = _split_bcd(raw)
    fields, micro = _walk_fields(pairs, exp100, ctype)
    parts = dict(_DT_DEFAULTS)
    for unit, v in zip(range(ctype.start, TU_SECOND + 1, 2), fields):
        parts[_DT_ATTRS[unit]] = v
    try:
        if ctype.start >= TU_HOUR:
            return datetime.time(parts.get("hour", 0), parts.get("minute", 0),
                                 parts.get("second", 0), micro)
        if ctype.end <= TU_DAY:
            return datetime.date(parts["year"], parts["month"], parts["day"])
        return datetime.datetime(parts["year"], parts["month"], parts["day"],
                                 parts.get("hour", 0), parts.get("minute", 0),
                                 parts.get("second", 0), micro)
    except ValueError as exc:
        raise ProtocolError(f"invalid {ctype.sql()} value: {exc}") from exc


_UNIT_SECONDS = {TU_DAY: 86400, TU_HOUR: 3600, TU_MINUTE: 60, TU_SECOND: 1}


def _interval_bytes(value: object, ctype: ColumnType) -> bytes:
    start, end = ctype.start, ctype.end
    if ctype.is_year_month:
        if not isinstance(value, IntervalYM):
            raise DataError(f"{value!r} is not a year-month interval for {ctype.sql()}")
        negative, months = value.months < 0, abs(value.months)
        if start == TU_MONTH:
            fields = [months]
        else:
            fields = [months // 12] + ([months % 12] if end >= TU_MONTH else [])
        micro = 0
    else:
        if not isinstance(value, datetime.timedelta):
            raise DataError(f"{value!r} is not a timedelta for {ctype.sql()}")
        negative = value < datetime.timedelta(0)
        whole = abs(value)
        secs, micro = whole.days * 86400 + whole.seconds, whole.microseconds
        fields = []
        for unit in range(start, min(end, TU_SECOND) + 1, 2):
            size = _UNIT_SECONDS[unit]
            fields.append(secs // size if unit == start else secs % _UNIT_SECONDS[unit - 2] // size)
    pairs = bytearray(_field_pairs(fields, micro, ctype))
    if negative and any(pairs):
        _complement(pairs)
    else:
        negative = False
    return bytes((_head(_exponent(ctype.length), negative),)) + bytes(pairs)


def _interval_value(raw: bytes | memoryview, ctype: ColumnType) -> object:
    """IntervalYM for YEAR/MONTH qualifiers, timedelta for the rest."""
    negative, exp100, pairs = _split_bcd(raw)
    fields, micro = _walk_fields(pairs, exp100, ctype)
    if ctype.is_year_month:
        months = fields[0] if ctype.start == TU_MONTH else (
            fields[0] * 12 + (fields[1] if len(fields) > 1 else 0))
        return IntervalYM(-months if negative else months)
    units = range(ctype.start, TU_SECOND + 1, 2)
    secs = sum(v * _UNIT_SECONDS[u] for u, v in zip(units, fields))
    delta = datetime.timedelta(seconds=secs, microseconds=micro)
    return -delta if negative else delta


# ---------------------------------------------------------------------------
# Row images (SQ_TUPLE payloads)
# ---------------------------------------------------------------------------
#
# Fixed-width numbers use an out-of-range value as NULL; CHAR a leading NUL;
# VARCHAR a one-byte length then the bytes (NULL is length 1 holding NUL);
# BOOLEAN and LVARCHAR the opaque-type envelope [null flag][int len][bytes].

_DATE_EPOCH = datetime.date(1899, 12, 31)
_EPOCH_ORDINAL = _DATE_EPOCH.toordinal()
_SHORT, _INT, _BIGINT = struct.Struct("!h"), struct.Struct("!i"), struct.Struct("!q")
_REAL, _DOUBLE = struct.Struct("!f"), struct.Struct("!d")
_INT8 = struct.Struct("!hII")
_INT_NULL = {TypeCode.SMALLINT: -0x8000, TypeCode.INTEGER: -0x80000000,
             TypeCode.SERIAL: -0x80000000, TypeCode.DATE: -0x80000000,
             TypeCode.BIGINT: -0x8000000000000000,
             TypeCode.BIGSERIAL: -0x8000000000000000}
_INT_STRUCT = {TypeCode.SMALLINT: _SHORT, TypeCode.INTEGER: _INT,
               TypeCode.SERIAL: _INT, TypeCode.DATE: _INT,
               TypeCode.BIGINT: _BIGINT, TypeCode.BIGSERIAL: _BIGINT}
_FLOAT_STRUCT = {TypeCode.FLOAT: _DOUBLE, TypeCode.SMALLFLOAT: _REAL}

CellEncoder = Callable[[object], bytes]


def _int8_bytes(value: int) -> bytes:
    """INT8/SERIAL8: sign short (1 or -1), then the magnitude's low and high
    32-bit words, in that order.  All zeros (sign 0) is NULL."""
    magnitude = abs(value)
    if magnitude >= 1 << 63:
        raise DataError(f"{value} overflows INT8")
    return _INT8.pack(-1 if value < 0 else 1, magnitude & 0xFFFFFFFF, magnitude >> 32)


def _int8_value(sign: int, low: int, high: int) -> int | None:
    if sign == 0:
        return None
    magnitude = (high << 32) | low
    return -magnitude if sign < 0 else magnitude


def _days(value: object) -> int:
    if not isinstance(value, datetime.date):
        raise DataError(f"{value!r} is not a date")
    return value.toordinal() - _EPOCH_ORDINAL


def _enc_int(ctype: ColumnType, encoding: str) -> CellEncoder:
    packer, null = _INT_STRUCT[ctype.code], _INT_NULL[ctype.code]
    null_bytes = packer.pack(null)
    to_int: Callable[[object], int] = _days if ctype.code == TypeCode.DATE else int

    def enc(value: object) -> bytes:
        if value is None:
            return null_bytes
        try:
            n = to_int(value)
            if n == null:
                raise ValueError(n)
            return packer.pack(n)
        except (struct.error, TypeError, ValueError) as exc:
            raise DataError(f"{value!r} is out of range for {ctype.sql()}") from exc
    return enc


def _enc_int8(ctype: ColumnType, encoding: str) -> CellEncoder:
    return lambda v: bytes(10) if v is None else _int8_bytes(int(v))  # type: ignore[call-overload]


def _enc_float(ctype: ColumnType, encoding: str) -> CellEncoder:
    packer = _FLOAT_STRUCT[ctype.code]
    null_bytes = b"\xff" * packer.size
    return lambda v: null_bytes if v is None else packer.pack(float(v))  # type: ignore[arg-type]


def _text(value: object, encoding: str) -> bytes:
    if not isinstance(value, str):
        raise DataError(f"{value!r} is not a string")
    try:
        return value.encode(encoding)
    except UnicodeEncodeError as exc:
        raise DataError(f"{value!r} cannot be encoded as {encoding}") from exc


def _enc_char(ctype: ColumnType, encoding: str) -> CellEncoder:
    n = ctype.length
    null_bytes = b"\x00" + b" " * (n - 1)
    return lambda v: null_bytes if v is None else _text(v, encoding)[:n].ljust(n, b" ")


def _enc_varchar(ctype: ColumnType, encoding: str) -> CellEncoder:
    n = ctype.length & 0xFF

    def enc(value: object) -> bytes:
        if value is None:
            return b"\x01\x00"
        data = _text(value, encoding)[:n]
        return bytes((len(data),)) + data
    return enc


def _envelope(data: bytes | None) -> bytes:
    if data is None:
        return b"\x01\x00\x00\x00\x00"
    return b"\x00" + _INT.pack(len(data)) + data


def _enc_lvarchar(ctype: ColumnType, encoding: str) -> CellEncoder:
    n = ctype.length
    return lambda v: _envelope(None if v is None else _text(v, encoding)[:n])


def _enc_boolean(ctype: ColumnType, encoding: str) -> CellEncoder:
    # 1/0, not 't'/'f': JDBC's boolean reader only knows 1 and 0, and
    # informix-driver accepts 1 as true as well as 't'.
    return lambda v: _envelope(None if v is None else (b"\x01" if v else b"\x00"))


def _packed_encoder(ctype: ColumnType,
                    body: Callable[[object], bytes]) -> CellEncoder:
    width = ctype.wire_width
    null_bytes = bytes(width)

    def enc(value: object) -> bytes:
        if value is None:
            return null_bytes
        data = body(value)
        if len(data) > width:
            raise DataError(f"{value!r} does not fit {ctype.sql()}")
        return data.ljust(width, b"\x00")
    return enc


def _decimal_row_bytes(value: object, ctype: ColumnType) -> bytes:
    fitted = _fit_decimal(value, ctype)
    if not fitted:
        return b"\xc0"  # zero: exponent 0, no significant pairs
    return _bcd_bytes(*_decimal_pairs(fitted))


def _enc_decimal(ctype: ColumnType, encoding: str) -> CellEncoder:
    return _packed_encoder(ctype, lambda v: _decimal_row_bytes(v, ctype))


def _enc_datetime(ctype: ColumnType, encoding: str) -> CellEncoder:
    return _packed_encoder(ctype, lambda v: _datetime_bytes(v, ctype))


def _enc_interval(ctype: ColumnType, encoding: str) -> CellEncoder:
    return _packed_encoder(ctype, lambda v: _interval_bytes(v, ctype))


_CELL_ENCODERS: dict[TypeCode, Callable[[ColumnType, str], CellEncoder]] = {
    TypeCode.SMALLINT: _enc_int, TypeCode.INTEGER: _enc_int,
    TypeCode.SERIAL: _enc_int, TypeCode.BIGINT: _enc_int,
    TypeCode.BIGSERIAL: _enc_int, TypeCode.DATE: _enc_int,
    TypeCode.INT8: _enc_int8, TypeCode.SERIAL8: _enc_int8,
    TypeCode.FLOAT: _enc_float, TypeCode.SMALLFLOAT: _enc_float,
    TypeCode.CHAR: _enc_char, TypeCode.NCHAR: _enc_char,
    TypeCode.VARCHAR: _enc_varchar, TypeCode.NVARCHAR: _enc_varchar,
    TypeCode.LVARCHAR: _enc_lvarchar, TypeCode.BOOLEAN: _enc_boolean,
    TypeCode.DECIMAL: _enc_decimal, TypeCode.MONEY: _enc_decimal,
    TypeCode.DATETIME: _enc_datetime, TypeCode.INTERVAL: _enc_interval,
}


def _cellwise_encoder(columns: Sequence[ColumnType], encoding: str
                      ) -> Callable[[Sequence[object]], bytes]:
    """The reference row encoder: one converter per cell.  The compiled
    encoders fall back to it for NULLs and anything unusual, so it alone
    decides conversions and errors."""
    try:
        encoders = [_CELL_ENCODERS[c.code](c, encoding) for c in columns]
    except KeyError as exc:
        raise ValueError(f"no row encoding for type {exc.args[0]!r}") from None
    count = len(encoders)

    def encode_row(values: Sequence[object]) -> bytes:
        if len(values) != count:
            raise ValueError(f"row has {len(values)} values for {count} columns")
        return b"".join([enc(v) for enc, v in zip(encoders, values)])
    return encode_row


def make_row_encoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1"
                     ) -> Callable[[Sequence[object]], bytes]:
    """Server side: a function turning one row of Python values into the
    SQ_TUPLE row image (without the tag and size header).

    Values are converted as the column requires (int, float, Decimal, str,
    bool, date, datetime, time, timedelta, IntervalYM); None is NULL.  Values
    that cannot be stored raise DataError; CHAR/VARCHAR text longer than the
    column is cut, as Informix does on assignment.  BYTE and TEXT have no row
    image here: their values travel through the blob protocol.
    """
    return _compiled_encoder(tuple(columns), encoding, False)


_TUPLE_HEADER = struct.Struct("!hhi")


def make_tuple_encoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1"
                       ) -> Callable[[Sequence[object]], bytes]:
    """Server side: one row as a complete SQ_TUPLE message.

    ``[short 14][short 0 warnings][int size][row image][pad to even]`` --
    what a fetch reply is made of, so a server can also keep rows in this
    form and send them without re-encoding.
    """
    return _compiled_encoder(tuple(columns), encoding, True)


def _cellwise_tuple_encoder(columns: Sequence[ColumnType], encoding: str
                            ) -> Callable[[Sequence[object]], bytes]:
    encode_row = _cellwise_encoder(columns, encoding)
    head = _TUPLE_HEADER.pack

    def encode_tuple(values: Sequence[object]) -> bytes:
        image = encode_row(values)
        n = len(image)
        return head(14, 0, n) + image + (b"\x00" if n & 1 else b"")
    return encode_tuple


# Converters the compiled decoders call for the rarer fixed-width types.

def _nan_or_null(packer: struct.Struct) -> Callable[[float], float | None]:
    """FLOAT NULL is all-ones bytes, a NaN: only NaNs need their bytes compared."""
    null_bytes = b"\xff" * packer.size
    return lambda v: None if packer.pack(v) == null_bytes else v


def _date_converter(days: int) -> datetime.date | None:
    if days == -0x80000000:
        return None
    return datetime.date.fromordinal(_EPOCH_ORDINAL + days)


def _packed_converter(ctype: ColumnType) -> Callable[[bytes], object]:
    if ctype.code in (TypeCode.DECIMAL, TypeCode.MONEY):
        scale = ctype.scale
        return lambda b: None if _is_bcd_null(b) else _decimal_from_bcd(b, scale)
    decode = _datetime_value if ctype.code == TypeCode.DATETIME else _interval_value
    return lambda b: None if _is_bcd_null(b) else decode(b, ctype)


_OPAQUE_BY_XID = {(TypeCode.UDTFIXED, XID_BOOLEAN): TypeCode.BOOLEAN,
                  (TypeCode.UDTVAR, XID_LVARCHAR): TypeCode.LVARCHAR}


def column_type_from_describe(wire_type: int, extended_id: int, length: int) -> ColumnType:
    """The inverse of ``describe_code``: a described column as a ColumnType.

    Opaque built-ins (BOOLEAN, LVARCHAR) arrive as UDTFIXED/UDTVAR plus an
    extended id; anything else this driver cannot decode is refused here, at
    execute, rather than in the middle of a fetch.
    """
    base = wire_type & 0xFF
    try:
        code = TypeCode(base)
    except ValueError:
        raise NotSupportedError(f"column type {base} is not supported") from None
    code = _OPAQUE_BY_XID.get((code, extended_id), code)
    if code in (TypeCode.UDTFIXED, TypeCode.UDTVAR):
        raise NotSupportedError(f"opaque type with extended id {extended_id} is not supported")
    return ColumnType(code, length, not wire_type & NOT_NULL_FLAG)


def make_row_decoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1"
                     ) -> Callable[[bytes | bytearray | memoryview, int], tuple[tuple, int]]:
    """Client side: a function decoding one row image at an offset into
    ``(row, end_offset)``.  Build it once per result-set shape.

    Python values: SMALLINT/INTEGER/SERIAL/BIGINT/BIGSERIAL/INT8/SERIAL8 ->
    int; SMALLFLOAT/FLOAT -> float; DECIMAL/MONEY -> Decimal at the column's
    scale (floating DECIMAL(p) -> the exact digits, fraction zeros dropped);
    CHAR/NCHAR -> str blank-padded to the column width; VARCHAR/NVARCHAR/
    LVARCHAR -> str; BOOLEAN -> bool; DATE -> date; DATETIME -> datetime,
    or date for qualifiers ending by DAY, or time for qualifiers starting at
    HOUR or later (missing leading fields read as 2000-01-01); INTERVAL ->
    timedelta, or IntervalYM for YEAR/MONTH qualifiers; NULL -> None.
    A row that does not fit the buffer raises ProtocolError.
    """
    return _compiled_decoder(tuple(columns), encoding)


# ---------------------------------------------------------------------------
# Compiled row codecs
# ---------------------------------------------------------------------------
#
# Every fetched row passes through a decoder and every served row through an
# encoder, and a loop calling one converter per cell costs several times the
# work itself.  So each row shape gets its own function of straight-line
# Python, assembled from the fixed templates below: one struct call covers a
# run of fixed-width columns together with the VARCHAR that opens or
# interrupts it (a struct per text length, made on first use), NULL
# sentinels are compared inline.  Only integer literals, struct format
# letters and names chosen here are written into the source; the encoding,
# structs and converters reach the code through its namespace, never as
# text.  Shapes repeat (the same query runs again and again), so the
# functions are cached.  bench/throughput/test_codec_speed.py measures them.

_SHAPE_CACHE_SIZE = 256
_STRUCT_CACHE_SIZE = 4096
_TRUE_BYTES = (b"\x01", b"t", b"T")


def _compile(source: str, namespace: dict, name: str) -> Callable:
    namespace.update(ProtocolError=ProtocolError, StructError=struct.error)
    exec(compile(source, f"<informix_stream.codecs {name}>", "exec"), namespace)
    return namespace[name]


def _indent(lines: list[str], depth: int) -> str:
    pad = " " * depth
    return "".join(f"{pad}{line}\n" for line in lines)


def _struct_maker(fmt: str, cache: dict | list, fixed: int = 0, pad: bool = False,
                  method: str = "pack") -> Callable[[int], Callable]:
    """Lazily build the struct for one text length ``{0}`` in ``fmt``; with
    ``pad`` a zero byte follows when ``fixed`` plus the length is odd."""
    def make(length: int) -> Callable:
        full = fmt.format(length) + ("x" if pad and (fixed + length) & 1 else "")
        if isinstance(cache, dict) and len(cache) >= _STRUCT_CACHE_SIZE:
            cache.clear()
        cache[length] = fn = getattr(struct.Struct(full), method)
        return fn
    return make


# DATE values repeat a lot within a result set, and a dict hit is cheaper
# than building the date.
_DATES: dict[int, datetime.date] = {}


def _new_date(days: int) -> datetime.date:
    if len(_DATES) >= _STRUCT_CACHE_SIZE:
        _DATES.clear()
    _DATES[days] = value = datetime.date.fromordinal(_EPOCH_ORDINAL + days)
    return value


# -- decoding ----------------------------------------------------------------

_DECODER = """\
def decode_row(buf, start=0):
    pos = start
    try:
{body}        return {row}, pos
    except (StructError, IndexError) as exc:
        raise ProtocolError(f"row image ends early: {{exc}}") from exc
    except (ValueError, OverflowError) as exc:
        raise ProtocolError(f"undecodable row value: {{exc}}") from exc
    except AttributeError:
        if type(buf) is not memoryview:
            raise
        # A memoryview slice has no decode(): use a bytes copy of the rest.
        row, end = decode_row(bytes(buf[start:]), 0)
        return row, start + end
"""

_ENVELOPE_CELL = [
    "z = buf[pos]",
    "n = _int_at(buf, pos + 1)[0]",
    "e = pos + 5 + n",
    "if n < 0 or e > len(buf):",
    "    raise ProtocolError('opaque-type value runs past the row image')",
    "{v} = None if z == 1 else {value}",
    "pos = e",
]
_ENVELOPE_VALUES = {TypeCode.LVARCHAR: "buf[pos + 5:e].decode(_enc)",
                    TypeCode.BOOLEAN: "buf[pos + 5:e][:1] in _TRUE_BYTES"}


def _fixed_cell(ctype: ColumnType) -> tuple[str, int, str, object] | None:
    """How a fixed-width column decodes: (struct format, raw values it
    yields, expression over the raws {a} {b} {c}, helper {f} it calls), or
    None for a variable-width column."""
    code = ctype.code
    if code == TypeCode.DATE:
        return "i", 1, "None if {a} == -2147483648 else (_dates.get({a}) or {f}({a}))", _new_date
    if code in _INT_STRUCT:
        null = _INT_NULL[code]
        return _INT_STRUCT[code].format[1:], 1, f"None if {{a}} == {null} else {{a}}", None
    if code in _FLOAT_STRUCT:
        packer = _FLOAT_STRUCT[code]
        return packer.format[1:], 1, "{a} if {a} == {a} else {f}({a})", _nan_or_null(packer)
    if code in (TypeCode.INT8, TypeCode.SERIAL8):
        return "hII", 3, "{f}({a}, {b}, {c})", _int8_value
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return f"{ctype.length}s", 1, "None if {a}[0] == 0 else {a}.decode(_enc)", None
    if code in _PACKED:
        return f"{ctype.wire_width}s", 1, "{f}({a})", _packed_converter(ctype)
    return None


class _DecoderPlan:
    """Columns grouped into struct reads.  A read covers fixed-width
    columns and at most one VARCHAR (``B{0}s``, its length byte and text);
    a second VARCHAR or an opaque-type envelope starts a new read."""

    def __init__(self, ns: dict) -> None:
        self.ns, self.body, self.cells = ns, [], []
        self._fmt, self._raws = "", []
        self._varchar: tuple[int, str] | None = None

    def fixed(self, fmt: str, raws: list[str]) -> None:
        self._fmt += fmt
        self._raws += raws

    def varchar(self, k: int) -> None:
        if self._varchar is not None:
            self.flush()
        # where the length byte sits in the read, and its name
        self._varchar = (struct.calcsize("!" + self._fmt), f"n{k}")
        self.fixed("B{0}s", [f"n{k}", f"t{k}"])
        self.cells.append(f"None if n{k} == 1 and t{k} == b'\\x00' else t{k}.decode(_enc)")

    def statements(self, lines: list[str]) -> None:
        self.flush()
        self.body += lines

    def flush(self) -> None:
        if not self._raws:
            return
        name, target = f"_u{len(self.body)}", ", ".join(self._raws) + ","
        if self._varchar is None:
            packer = struct.Struct("!" + self._fmt)
            self.ns[name] = packer.unpack_from
            self.body += [f"{target} = {name}(buf, pos)", f"pos += {packer.size}"]
        else:
            cache: list = [None] * 256
            self.ns[name], self.ns[f"{name}_new"] = cache, _struct_maker(
                "!" + self._fmt, cache, method="unpack_from")
            fixed = struct.calcsize("!" + self._fmt.replace("{0}s", ""))
            offset, n = self._varchar
            at = f"pos + {offset}" if offset else "pos"
            self.body += [f"{n} = buf[{at}]",
                          f"{target} = ({name}[{n}] or {name}_new({n}))(buf, pos)",
                          f"pos += {fixed} + {n}"]
        self._fmt, self._raws, self._varchar = "", [], None


def _decoder_source(columns: tuple[ColumnType, ...], ns: dict) -> str:
    plan = _DecoderPlan(ns)
    for k, ctype in enumerate(columns):
        cell = _fixed_cell(ctype)
        if cell is not None:
            fmt, count, expr, helper = cell
            raws = [f"r{k}_{i}" for i in range(count)]
            plan.fixed(fmt, raws)
            if helper is not None:
                ns[f"_f{k}"] = helper
            plan.cells.append(expr.format(**dict(zip("abc", raws)), f=f"_f{k}"))
        elif ctype.code in _VARCHARS:
            plan.varchar(k)
        elif ctype.code in _ENVELOPE_VALUES:
            value = _ENVELOPE_VALUES[ctype.code]
            plan.statements([line.format(v=f"c{k}", value=value) for line in _ENVELOPE_CELL])
            plan.cells.append(f"c{k}")
        else:
            raise ValueError(f"no row decoding for {ctype.code!r}")
    plan.flush()
    row = f"({', '.join(plan.cells)},)" if plan.cells else "()"
    return _DECODER.format(body=_indent(plan.body, 8), row=row)


@functools.lru_cache(maxsize=_SHAPE_CACHE_SIZE)
def _compiled_decoder(columns: tuple[ColumnType, ...], encoding: str
                      ) -> Callable[[bytes | bytearray | memoryview, int], tuple[tuple, int]]:
    ns: dict = {"_enc": encoding, "_int_at": _INT.unpack_from, "_TRUE_BYTES": _TRUE_BYTES,
                "_dates": _DATES}
    source = _decoder_source(columns, ns)
    return _compile(source, ns, "decode_row")


# -- encoding ----------------------------------------------------------------

_ENCODER = """\
def encode(values):
    if len(values) != {count}:
        raise ValueError(f"row has {{len(values)}} values for {count} columns")
{unpack}    try:
        if {guard}:
{body}            return {image}
    except Exception:
        pass  # an odd value: the cell-by-cell encoder decides
    return cellwise(values)
"""


class _EncoderPlan:
    """The row image as struct fields (format, argument expression).  A text
    of variable length has the format ``{0}s``, and its length is named in
    ``lengths``."""

    def __init__(self) -> None:
        self.fields: list[tuple[str, str]] = []
        self.prelude: list[str] = []
        self.guards: list[str] = []
        self.lengths: list[str] = []

    def text(self, var: str, make: str) -> None:
        self.prelude += [f"{var} = {make}", f"n{var} = len({var})"]
        self.fields.append(("{0}s", var))
        self.lengths.append(f"n{var}")


def _float_null(packer: struct.Struct) -> float | None:
    """The NaN that packs back to FLOAT's all-ones NULL bytes, or None where
    the platform does not keep NaN payloads (then NULL takes the slow way)."""
    null_bytes = b"\xff" * packer.size
    value = packer.unpack(null_bytes)[0]
    return value if packer.pack(value) == null_bytes else None


def _plan_cell(plan: _EncoderPlan, ctype: ColumnType, k: int, ns: dict, encoding: str) -> None:
    """Add one column; NULL is written inline wherever its bytes are a
    value the struct can pack."""
    code, v = ctype.code, f"v{k}"
    if code == TypeCode.DATE:
        plan.fields.append(("i", f"-2147483648 if {v} is None else _toord({v}) - {_EPOCH_ORDINAL}"))
    elif code in _INT_STRUCT:
        null = _INT_NULL[code]
        plan.fields.append((_INT_STRUCT[code].format[1:], f"{null} if {v} is None else {v}"))
        plan.guards.append(f"{v} != {null}")
    elif code in _FLOAT_STRUCT:
        packer = _FLOAT_STRUCT[code]
        ns[f"_n{k}"] = _float_null(packer)
        if ns[f"_n{k}"] is None:
            plan.guards.append(f"{v} is not None")
        plan.fields.append((packer.format[1:], f"_n{k} if {v} is None else {v}"))
    elif code in (TypeCode.CHAR, TypeCode.NCHAR):
        n = ctype.length
        ns[f"_n{k}"] = b"\x00" + b" " * (n - 1)
        plan.fields.append((f"{n}s", f"_n{k} if {v} is None else "
                                     f"_encode({v}, _enc)[:{n}].ljust({n}, b' ')"))
    elif code in _VARCHARS:
        plan.fields.append(("B", f"nt{k}"))
        plan.text(f"t{k}", f"b'\\x00' if {v} is None else _encode({v}, _enc)[:{ctype.length & 0xFF}]")
    else:
        # INT8, DECIMAL, DATETIME, ... : the cell encoder, whole.
        ns[f"_e{k}"] = _CELL_ENCODERS[code](ctype, encoding)
        if code in (TypeCode.LVARCHAR, TypeCode.BOOLEAN):
            plan.text(f"t{k}", f"_e{k}({v})")
        else:
            width = 10 if code in (TypeCode.INT8, TypeCode.SERIAL8) else ctype.wire_width
            plan.fields.append((f"{width}s", f"_e{k}({v})"))


def _pack_call(fields: list[tuple[str, str]], ns: dict, name: str, length: str | None,
               fixed: int = 0, pad: bool = False) -> str:
    """Source packing ``fields``; ``length`` names the one text length they
    hold, if any.  ``pad`` appends the SQ_TUPLE even-length pad byte."""
    fmt = "!" + "".join(f for f, _ in fields)
    args = ", ".join(e for _, e in fields)
    if length is None:
        ns[name] = struct.Struct(fmt + ("x" if pad and fixed & 1 else "")).pack
        return f"{name}({args})"
    cache: dict = {}
    ns[name], ns[f"{name}_new"] = cache, _struct_maker(fmt, cache, fixed, pad)
    return f"({name}.get({length}) or {name}_new({length}))({args})"


def _packer_source(plan: _EncoderPlan, ns: dict, as_tuple: bool) -> tuple[list[str], str]:
    """(statements, expression) making the row image, or the SQ_TUPLE message.

    With one text at most, the whole row is one struct per text length.
    More texts would multiply the structs, so each gets a struct of its own
    (with the fields before it), the fields after the last one another.
    """
    fixed = struct.calcsize("!" + "".join(f for f, _ in plan.fields).replace("{0}s", ""))
    lines, fields = list(plan.prelude), plan.fields
    if as_tuple:
        fields = [("hhi", "14, 0, size"), *fields]
        lines.append(f"size = {' + '.join([str(fixed), *plan.lengths])}")
    if len(plan.lengths) <= 1:
        length = plan.lengths[0] if plan.lengths else None
        return lines, _pack_call(fields, ns, "_p", length, fixed, as_tuple)
    exprs, segment, texts = [], [], iter(plan.lengths)
    for field in fields:
        segment.append(field)
        if field[0] == "{0}s":
            length = next(texts)
            # an opaque-type envelope alone is already its bytes
            alone = len(segment) == 1
            exprs.append(field[1] if alone else _pack_call(segment, ns, f"_p{len(exprs)}", length))
            segment = []
    if as_tuple:
        fmt = "!" + "".join(f for f, _ in segment)
        ns["_tail"] = (struct.Struct(fmt).pack, struct.Struct(fmt + "x").pack)
        exprs.append(f"_tail[size & 1]({', '.join(e for _, e in segment)})")
    elif segment:
        exprs.append(_pack_call(segment, ns, "_tail", None))
    return lines, " + ".join(exprs)


@functools.lru_cache(maxsize=_SHAPE_CACHE_SIZE)
def _compiled_encoder(columns: tuple[ColumnType, ...], encoding: str, as_tuple: bool
                      ) -> Callable[[Sequence[object]], bytes]:
    cellwise = (_cellwise_tuple_encoder if as_tuple else _cellwise_encoder)(columns, encoding)
    ns: dict = {"_enc": encoding, "_encode": str.encode,
                "_toord": datetime.date.toordinal, "cellwise": cellwise}
    plan = _EncoderPlan()
    for k, ctype in enumerate(columns):
        _plan_cell(plan, ctype, k, ns, encoding)
    lines, image = _packer_source(plan, ns, as_tuple)
    names = [f"v{k}" for k in range(len(columns))]
    source = _ENCODER.format(
        count=len(columns), unpack=f"    {', '.join(names)}, = values\n" if names else "",
        guard=" and ".join(plan.guards) or "True", body=_indent(lines, 12), image=image)
    return _compile(source, ns, "encode")


# ---------------------------------------------------------------------------
# Parameter blocks (inside SQ_BIND)
# ---------------------------------------------------------------------------
#
# [short type]([owner][name] for opaque types > 18 except BIGINT/BIGSERIAL)
# [short indicator: 0 value, -1 NULL, -2 column default]
# [short precision/qualifier][value bytes, padded to even] -- no value bytes
# when the indicator is not 0.

@dataclass(frozen=True, slots=True)
class BlobParam:
    """A BYTE/TEXT parameter: only its size is in SQ_BIND; the bytes follow
    in SQ_BBIND/SQ_BLOB chunks, which the caller must collect."""

    code: TypeCode
    size: int


_DEFAULT_INDICATOR = -2
_DT_SECOND = ColumnType(TypeCode.DATETIME, qualifier(14, TU_YEAR, TU_SECOND))
_DT_FRACTION = ColumnType(TypeCode.DATETIME, qualifier(19, TU_YEAR, TU_SECOND + 5))
_TIME_SECOND = ColumnType(TypeCode.DATETIME, qualifier(6, TU_HOUR, TU_SECOND))
_TIME_FRACTION = ColumnType(TypeCode.DATETIME, qualifier(11, TU_HOUR, TU_SECOND + 5))
_IV_DAY_FRACTION = ColumnType(TypeCode.INTERVAL, qualifier(20, TU_DAY, TU_SECOND + 5))
_IV_YEAR_MONTH = ColumnType(TypeCode.INTERVAL, qualifier(11, TU_YEAR, TU_MONTH))


def _block(code: int, prec: int, data: bytes) -> bytes:
    return Writer().short(code).short(0).short(prec).padded(data).getvalue()


def _short_prefixed(data: bytes) -> bytes:
    return _SHORT.pack(len(data)) + data


def _bind_decimal(value: decimal.Decimal) -> bytes:
    digits = value.as_tuple().digits
    if value.is_finite() and len(digits) > 32:
        raise DataError(f"{value} has more than 32 digits")
    negative, exp100, pairs = _decimal_pairs(value)
    scale = max(0, -value.as_tuple().exponent)  # type: ignore[operator]
    prec = (max(2 * len(pairs), 1) << 8) | (scale & 0xFF)
    return _block(TypeCode.DECIMAL, prec, _short_prefixed(_bcd_bytes(negative, exp100, pairs)))


def _bind_packed(code: TypeCode, ctype: ColumnType, data: bytes) -> bytes:
    return _block(code, ctype.length, _short_prefixed(data))


# Exact-type fast paths for the values executemany binds by the million.
# Each returns the block, or None to leave the value to _encode_any (which
# alone decides what is out of range or unencodable).  Subclasses such as
# IntEnum or datetime miss the type() lookup and take _encode_any too.

_PARAM_HEAD = struct.Struct("!hhh")
_INT_PARAM = struct.Struct("!hhhi").pack
_BIGINT_PARAM = struct.Struct("!hhhq").pack
_FLOAT_PARAM = struct.Struct("!hhhd").pack
_TEXT_PARAM = struct.Struct("!hhhh").pack
_NULL_BLOCK = _PARAM_HEAD.pack(0, -1, 0)
_PAD = (b"", b"\x00")


def _param_int(value: int, encoding: str) -> bytes | None:
    if -0x80000000 <= value <= 0x7FFFFFFF:
        return _INT_PARAM(TypeCode.INTEGER, 0, 0x0A00, value)
    if -0x8000000000000000 < value < 0x8000000000000000:
        return _BIGINT_PARAM(TypeCode.BIGINT, 0, 0x1300, value)
    return None


def _param_str(value: str, encoding: str) -> bytes | None:
    try:
        data = value.encode(encoding)
    except UnicodeEncodeError:
        return None
    n = len(data)
    if n > 0x7FFF:
        return None
    return _TEXT_PARAM(TypeCode.CHAR, 0, 0, n) + data + _PAD[n & 1]


def _param_bool(value: bool, encoding: str) -> bytes | None:
    return _param_str("t" if value else "f", encoding)


def _param_float(value: float, encoding: str) -> bytes:
    return _FLOAT_PARAM(TypeCode.FLOAT, 0, 0, value)


def _param_date(value: datetime.date, encoding: str) -> bytes:
    return _INT_PARAM(TypeCode.DATE, 0, 0, value.toordinal() - _EPOCH_ORDINAL)


_PARAM_ENCODERS: dict[type, Callable[[object, str], bytes | None]] = {
    int: _param_int, str: _param_str, float: _param_float,  # type: ignore[dict-item]
    datetime.date: _param_date, bool: _param_bool,  # type: ignore[dict-item]
    type(None): lambda value, encoding: _NULL_BLOCK,
}


def encode_param(value: object, encoding: str = "iso-8859-1") -> bytes:
    """Client side: one SQ_BIND parameter block for a Python value.

    The forms are the ones informix-driver sends (verified against real
    servers): int -> INTEGER, or BIGINT beyond 32 bits; float -> FLOAT; str
    -> CHAR; bool -> CHAR 't'/'f' (the server casts; it hangs on a BOOLEAN
    bind); Decimal -> DECIMAL; date -> DATE; datetime -> DATETIME YEAR TO
    SECOND, or TO FRACTION(5) when it has microseconds; time -> DATETIME
    HOUR TO SECOND / FRACTION(5) (JDBC's form for setTime); timedelta ->
    INTERVAL DAY(9) TO FRACTION(5); IntervalYM -> INTERVAL YEAR(9) TO MONTH;
    None -> NULL.  Others raise DataError.
    """
    fast = _PARAM_ENCODERS.get(type(value))
    if fast is not None:
        block = fast(value, encoding)
        if block is not None:
            return block
    return _encode_any(value, encoding)


def _encode_any(value: object, encoding: str) -> bytes:
    if value is None:
        return _NULL_BLOCK
    if isinstance(value, bool):
        value = "t" if value else "f"
    if isinstance(value, str):
        return _block(TypeCode.CHAR, 0, _short_prefixed(_text(value, encoding)))
    if isinstance(value, int):
        if -0x80000000 <= value <= 0x7FFFFFFF:
            return _block(TypeCode.INTEGER, 0x0A00, _INT.pack(value))
        if -0x8000000000000000 < value < 0x8000000000000000:
            return _block(TypeCode.BIGINT, 0x1300, _BIGINT.pack(value))
        raise DataError(f"{value} overflows BIGINT")
    if isinstance(value, float):
        return _block(TypeCode.FLOAT, 0, _DOUBLE.pack(value))
    if isinstance(value, decimal.Decimal):
        return _bind_decimal(value)
    if isinstance(value, datetime.datetime):
        ctype = _DT_FRACTION if value.microsecond else _DT_SECOND
        return _bind_packed(TypeCode.DATETIME, ctype, _datetime_bytes(value, ctype))
    if isinstance(value, datetime.date):
        return _block(TypeCode.DATE, 0, _INT.pack(_days(value)))
    if isinstance(value, datetime.time):
        ctype = _TIME_FRACTION if value.microsecond else _TIME_SECOND
        return _bind_packed(TypeCode.DATETIME, ctype, _datetime_bytes(value, ctype))
    if isinstance(value, datetime.timedelta):
        return _bind_packed(TypeCode.INTERVAL, _IV_DAY_FRACTION,
                            _interval_bytes(value, _IV_DAY_FRACTION))
    if isinstance(value, IntervalYM):
        return _bind_packed(TypeCode.INTERVAL, _IV_YEAR_MONTH,
                            _interval_bytes(value, _IV_YEAR_MONTH))
    raise DataError(f"cannot bind a {type(value).__name__} parameter")


def _read_str(r: Reader, encoding: str, n: int) -> str:
    try:
        return r.padded(n).decode(encoding)
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"parameter text is not {encoding}") from exc


def _temporal_type(code: TypeCode, prec: int) -> ColumnType:
    """Validate a DATETIME/INTERVAL qualifier sent by a client."""
    ctype = ColumnType(code, prec & 0xFFFF)
    start, end = ctype.start, ctype.end
    ok = (start in _TU_NAMES and start <= end <= TU_SECOND + 5
          and 1 <= ctype.leading_digits <= 9 and ctype.wire_width <= 17)
    if ok and code == TypeCode.INTERVAL:
        ok = not start <= TU_MONTH < end
    if not ok:
        raise ProtocolError(f"invalid {code.name} qualifier 0x{prec & 0xFFFF:04x}")
    return ctype


def _param_decimal(raw: bytes, prec: int) -> decimal.Decimal:
    """informix-driver sends (precision << 8) | scale, JDBC sends the bare
    scale; either lets the exact scale of the bound value survive."""
    value = _decimal_from_bcd(raw, None)
    scale = prec & 0xFF if prec >> 8 else prec
    exponent = value.as_tuple().exponent
    # Only put back fraction zeros (12.5 bound as 12.50 keeps scale 2); a
    # large value such as 1.5E+100 is left as it is, not spelt out in digits.
    if 0 <= scale <= 64 and -scale <= exponent <= 0:  # type: ignore[operator]
        ctx = decimal.Context(prec=200)
        value = value.quantize(decimal.Decimal(1).scaleb(-scale), context=ctx)
    return value


def _read_packed(r: Reader, code: TypeCode, prec: int) -> object:
    raw = r.padded(r.short())
    if len(raw) < 2 or _is_bcd_null(raw):
        return None
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _param_decimal(raw, prec)
    ctype = _temporal_type(code, prec)
    if code == TypeCode.DATETIME:
        return _datetime_value(raw, ctype)
    return _interval_value(raw, ctype)


def _read_int(r: Reader, code: TypeCode) -> int | None:
    value = {TypeCode.SMALLINT: r.short, TypeCode.BIGINT: r.bigint,
             TypeCode.BIGSERIAL: r.bigint}.get(code, r.int)()
    return None if value == _INT_NULL.get(code, -0x80000000) else value


def _read_value(r: Reader, code: TypeCode, prec: int, encoding: str) -> object:
    if code in (TypeCode.CHAR, TypeCode.VARCHAR, TypeCode.NCHAR, TypeCode.NVARCHAR):
        return _read_str(r, encoding, r.short())
    if code == TypeCode.LVARCHAR:
        return _read_str(r, encoding, r.int())
    if code == TypeCode.BOOLEAN:
        return r.padded(r.int())[:1] in (b"\x01", b"t", b"T")
    if code in _PACKED:
        return _read_packed(r, code, prec)
    if code in _INT_NULL and code != TypeCode.DATE:
        return _read_int(r, code)
    if code in (TypeCode.INT8, TypeCode.SERIAL8):
        return _int8_value(r.short(), r.int() & 0xFFFFFFFF, r.int() & 0xFFFFFFFF)
    if code == TypeCode.FLOAT:
        return r.double()
    if code == TypeCode.SMALLFLOAT:
        return r.real()
    if code == TypeCode.DATE:
        return _date_converter(r.int())
    if code in (TypeCode.BYTE, TypeCode.TEXT):
        descriptor = r.raw(56)
        return BlobParam(code, _INT.unpack_from(descriptor, 16)[0])
    raise ProtocolError(f"unsupported parameter type {int(code)}")


# Fast readers for the common parameter blocks, keyed by the exact type
# short.  Each reads its value at ``pos`` (just past the 6-byte head) and
# moves the reader on, or returns _SLOW without touching it, so that
# _read_any re-reads the block and raises Incomplete/ProtocolError exactly
# as it always has.

_SLOW = object()
_FastReader = Callable[[Reader, "bytes | bytearray | memoryview", int, str], object]


def _fixed_param_reader(packer: struct.Struct, null: object,
                        convert: Callable[[int], object] | None = None) -> _FastReader:
    """``null`` is the in-band NULL sentinel (None for FLOAT: no value equals it)."""
    size, unpack_from = packer.size, packer.unpack_from

    def read(reader: Reader, buf: bytes | bytearray | memoryview, pos: int,
             encoding: str) -> object:
        stop = pos + size
        if stop > reader.end:
            return _SLOW
        value = unpack_from(buf, pos)[0]
        if value == null:
            value = None
        elif convert is not None:
            try:
                value = convert(value)
            except (ValueError, OverflowError):
                return _SLOW
        reader.pos = stop
        return value
    return read


def _text_param_reader(reader: Reader, buf: bytes | bytearray | memoryview, pos: int,
                       encoding: str) -> object:
    start = pos + 2
    if start > reader.end:
        return _SLOW
    n = _SHORT.unpack_from(buf, pos)[0]
    stop = start + n
    if n < 0 or stop + (n & 1) > reader.end:
        return _SLOW
    try:
        text = buf[start:stop].decode(encoding)
    except (UnicodeDecodeError, AttributeError):  # bad bytes, or a memoryview
        return _SLOW
    reader.pos = stop + (n & 1)
    return text


_INT_PARAM_READER = _fixed_param_reader(_INT, -0x80000000)
_BIGINT_PARAM_READER = _fixed_param_reader(_BIGINT, -0x8000000000000000)
_PARAM_READERS: dict[int, _FastReader] = {
    TypeCode.CHAR: _text_param_reader, TypeCode.VARCHAR: _text_param_reader,
    TypeCode.NCHAR: _text_param_reader, TypeCode.NVARCHAR: _text_param_reader,
    TypeCode.SMALLINT: _fixed_param_reader(_SHORT, -0x8000),
    TypeCode.INTEGER: _INT_PARAM_READER, TypeCode.SERIAL: _INT_PARAM_READER,
    TypeCode.BIGINT: _BIGINT_PARAM_READER, TypeCode.BIGSERIAL: _BIGINT_PARAM_READER,
    TypeCode.FLOAT: _fixed_param_reader(_DOUBLE, None),
    TypeCode.SMALLFLOAT: _fixed_param_reader(_REAL, None),
    TypeCode.DATE: _fixed_param_reader(_INT, None, _date_converter),
}
# Type shorts whose block has no extended owner/name: a NULL needs no more.
_PLAIN_PARAM_CODES = frozenset([*range(TypeCode.SERIAL8 + 1), TypeCode.BIGINT,
                                TypeCode.BIGSERIAL])


def read_param(reader: Reader, encoding: str = "iso-8859-1") -> object:
    """Server side: decode one parameter block as JDBC, informix-driver or
    encode_param send it.

    Returns the Python value (types as for make_row_decoder; CHAR values
    are not padded), None for NULL and for JDBC's "use the column default"
    indicator, or BlobParam for BYTE/TEXT.  Raises framing.Incomplete when the
    block is cut short and ProtocolError for an unknown type or bad bytes.
    """
    pos = reader.pos
    if pos + 6 <= reader.end:
        code, indicator, _ = _PARAM_HEAD.unpack_from(reader.buf, pos)
        if indicator == 0:
            fast = _PARAM_READERS.get(code)
            if fast is not None:
                value = fast(reader, reader.buf, pos + 6, encoding)
                if value is not _SLOW:
                    return value
        elif indicator in (-1, _DEFAULT_INDICATOR) and code in _PLAIN_PARAM_CODES:
            reader.pos = pos + 6
            return None
    return _read_any(reader, encoding)


def _read_any(reader: Reader, encoding: str) -> object:
    raw_code = reader.short()
    base = raw_code & 0xFF
    if base > TypeCode.SERIAL8 and base not in (TypeCode.BIGINT, TypeCode.BIGSERIAL):
        reader.short_string()  # extended type owner
        reader.short_string()  # extended type name
    indicator = reader.short()
    prec = reader.short()
    if indicator in (-1, _DEFAULT_INDICATOR):
        return None
    if indicator != 0:
        raise ProtocolError(f"invalid parameter indicator {indicator}")
    try:
        code = TypeCode(base)
    except ValueError:
        raise ProtocolError(f"unknown parameter type {raw_code}") from None
    try:
        return _read_value(reader, code, prec, encoding)
    except (ValueError, OverflowError) as exc:
        raise ProtocolError(f"invalid {code.name} parameter: {exc}") from exc
