"""One value's bytes <-> one Python value, for every scalar type.

The building blocks every other codec module composes: the base-100
"decimal" bytes shared by DECIMAL, MONEY, DATETIME and INTERVAL, INT8's
split magnitude, DATE's day count, and text in the connection's code set.
Row images, SQ_BIND parameter blocks and (later) columnar batches differ
only in how they frame these bytes, so each layout is written once, here.

Errors: a Python value that cannot be stored raises DataError; bytes that
do not form a valid value of the type raise DataError too.  Neither says
anything about the framing around the value (that is the caller's job, and
a framing fault is a ProtocolError there).
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat

from ..errors import DataError
from .typeinfo import (TU_DAY, TU_HOUR, TU_MINUTE, TU_MONTH, TU_SECOND, TU_YEAR, ColumnType,
                       TypeCode)

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


def interval_ym_many(months: Iterable[int], n: int) -> list[IntervalYM]:
    """``[IntervalYM(m) for m in months]`` (``n`` of them) without a Python
    ``__init__`` frame a value: ``object.__new__`` then the very store the
    frozen dataclass's generated ``__init__`` makes
    (``object.__setattr__(self, "months", m)``), both mapped in C -- the
    same objects (type, ``__dict__``, equality, hash, repr, pickle) at
    ~35 ns a value less, what a column decoder pays beside the constructor.
    Only valid while ``months`` is IntervalYM's one field and it has no
    ``__post_init__``; tests/unit/test_packedcolumns.py pins both."""
    values = list(map(object.__new__, repeat(IntervalYM, n)))
    deque(map(object.__setattr__, values, repeat("months"), months), 0)
    return values


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


def complement(pairs: bytearray) -> None:
    """Apply (or undo: it is its own inverse) the negative-value complement."""
    sub = 100
    for i in range(len(pairs) - 1, -1, -1):
        if pairs[i] == 0 and sub == 100:
            continue
        pairs[i] = sub - pairs[i]
        sub = 99


def bcd_head(exp100: int, negative: bool) -> int:
    biased = (exp100 + 64) & 0x7F
    return biased ^ 0x7F if negative else biased | 0x80


def split_bcd(raw: bytes | memoryview) -> tuple[bool, int, bytearray]:
    """(negative, base-100 exponent, uncomplemented pairs) of non-NULL bytes."""
    head = raw[0]
    negative = not head & 0x80
    pairs = bytearray(raw[1:])
    if negative:
        complement(pairs)
        head ^= 0x7F
    if max(pairs, default=0) > 99:
        raise DataError(f"invalid base-100 digit in {bytes(raw).hex()}")
    return negative, (head & 0x7F) - 64, pairs


def is_bcd_null(raw: bytes | memoryview) -> bool:
    return raw[0] == 0 and raw[1] == 0


def decimal_pairs(value: decimal.Decimal) -> tuple[bool, int, bytes]:
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


def bcd_bytes(negative: bool, exp100: int, pairs: bytes) -> bytes:
    body = bytearray(pairs)
    if negative:
        complement(body)
    return bytes((bcd_head(exp100, negative),)) + bytes(body)


def decimal_from_bcd(raw: bytes | memoryview, scale: int | None) -> decimal.Decimal:
    """Exact Decimal: rescaled to ``scale`` for DECIMAL(p,s)/MONEY, and with
    fraction zeros dropped for floating DECIMAL(p), whose scale is unknown."""
    negative, exp100, pairs = split_bcd(raw)
    text = "".join([_PAIR_TEXT[d] for d in pairs]).lstrip("0")
    exp10 = 2 * exp100 - 2 * len(pairs)
    if scale is None:
        trimmed = text.rstrip("0")
        drop = min(len(text) - len(trimmed), max(0, -exp10))
        text, exp10 = text[:len(text) - drop], exp10 + drop
    elif exp10 < -scale:
        # max(): a cut longer than the digits must not wrap to a negative
        # index (50E-6 read at scale 3 was once 5E-3, not an error)
        keep = max(0, len(text) + scale + exp10)
        if text[keep:].strip("0"):
            raise DataError(f"DECIMAL has more than {scale} fraction digits")
        text, exp10 = text[:keep], -scale
    else:
        text, exp10 = text + "0" * (exp10 + scale), -scale
    sign = "-" if negative else ""
    return decimal.Decimal(f"{sign}{text or '0'}E{exp10}")


def floating_decimal_pairs(precision: int) -> int:
    """Base-100 digit pairs a floating DECIMAL(p) value occupies.

    Its row image is (p + (scale & 1) + 3) // 2 bytes with scale 255 for a
    floating DECIMAL (IBM JDBC IfxColumnInfo/IfxDecimal, informix-driver
    _resultset.py compute it so), one of them the exponent; the server fills
    them all: IBM's DatabaseCompatibilityTest run (dataTypeTest_DECIMAL.json,
    results_java_ifxjdbc.json) reads 4.9393689715768056E45, 17 digits, back
    from a DECIMAL (16) column. At most 16 pairs (32 digits) exist."""
    return min((precision + 4) // 2 - 1, 16)


def floating_decimal_digits(value: decimal.Decimal, precision: int) -> int:
    """Significant digits of `value` that a floating DECIMAL(p) keeps: the
    pairs hold two digits each, but the first holds one when the value has
    an odd number of digits before the decimal point (pairs are aligned on
    the point, as decimal_pairs packs them)."""
    point = value.adjusted() + 1 if value else 0
    return 2 * floating_decimal_pairs(precision) - (point & 1)


def fit_decimal(value: object, ctype: ColumnType) -> decimal.Decimal:
    """Round like Informix on assignment and reject values too wide."""
    if isinstance(value, float):
        value = decimal.Decimal(repr(value))
    elif not isinstance(value, decimal.Decimal):
        value = decimal.Decimal(int(value))  # type: ignore[call-overload]
    p, s = ctype.precision, ctype.scale
    if s is None:
        p = floating_decimal_digits(value, p)
    # Underflow trapped: a value too small for the exponent range was once
    # rounded to 0 here (1E-200 into a floating DECIMAL stored 0 through an
    # insert cursor) where the bind path refuses it (decimal_pairs' range).
    ctx = decimal.Context(prec=p, rounding=decimal.ROUND_HALF_UP, Emin=-130, Emax=130,
                          traps=[decimal.InvalidOperation, decimal.DivisionByZero,
                                 decimal.Overflow, decimal.Underflow])
    try:
        if s is None:
            return ctx.plus(value)
        return value.quantize(decimal.Decimal(1).scaleb(-s), context=ctx)
    except decimal.DecimalException as exc:
        raise DataError(f"{value} does not fit {ctype.sql()}") from exc


# ---------------------------------------------------------------------------
# DATETIME / INTERVAL fields
# ---------------------------------------------------------------------------

def temporal_exponent(length: int) -> int:
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
    shift = temporal_exponent(ctype.length) - exp100
    if shift < 0:
        raise DataError(f"{ctype.sql()} value exponent {exp100} too large")
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


def refuse_zone(value: object) -> None:
    """DataError for a datetime or time that carries a time zone.

    Informix DATETIME has no time zone, and neither informix-driver (its
    converters._encode_datetime writes the wall time and drops the zone)
    nor IBM's JDBC driver defines a conversion: no class of the 15.0.1.0
    jar names OffsetDateTime, ZonedDateTime, OffsetTime or Instant, and
    setObject finds a ``from<Class>`` method by reflection
    (IfxObject.fromObject; IfxDateTime has fromTimestamp, fromLocalDateTime,
    fromLocalTime ...) or maps the class name (IfxTypes.FromJavaToIfxType,
    unknown -> -79728 "Unknown object type"), so it refuses them (javap).  Dropping the zone would store 12:00+02:00 and
    12:00-05:00 as the same 12:00, and converting to some zone would be a
    guess, so the value is refused and the message says how to choose.
    """
    zone = getattr(value, "tzinfo", None)
    if zone is None:
        return
    if isinstance(value, datetime.datetime):
        how = ("value.astimezone(zone).replace(tzinfo=None) for its wall time in a "
               "zone of your choice (datetime.timezone.utc for UTC)")
    else:
        how = "value.replace(tzinfo=None) for its own wall time"
    raise DataError(f"the {type(value).__name__} {value} carries a time zone (tzinfo={zone}) "
                    "and cannot be bound: Informix DATETIME has no time zone, and dropping it would store "
                    "12:00+02:00 and 12:00-05:00 alike; bind the naive wall time you mean "
                    f"to store, e.g. {how}")


def datetime_bytes(value: object, ctype: ColumnType) -> bytes:
    """A DATETIME value's bytes; a value carrying a time zone is refused
    (``refuse_zone``) on every path, since every path comes here."""
    refuse_zone(value)
    start, end = ctype.start, ctype.end
    units = range(start, min(end, TU_SECOND) + 1, 2)
    try:
        fields = [getattr(value, _DT_ATTRS[u]) for u in units]
        micro = getattr(value, "microsecond", 0) if end > TU_SECOND else 0
    except AttributeError as exc:
        raise DataError(f"{value!r} cannot be stored as {ctype.sql()}") from exc
    pairs = _field_pairs(fields, micro, ctype)
    return bytes((bcd_head(temporal_exponent(ctype.length), False),)) + pairs


def datetime_value(raw: bytes | memoryview, ctype: ColumnType) -> object:
    """datetime for YEAR..>=HOUR, date when the qualifier ends by DAY, time
    when it starts at HOUR or later; leading fields missing from the qualifier
    come from 2000-01-01."""
    _, exp100, pairs = split_bcd(raw)
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
        raise DataError(f"invalid {ctype.sql()} value: {exc}") from exc


_UNIT_SECONDS = {TU_DAY: 86400, TU_HOUR: 3600, TU_MINUTE: 60, TU_SECOND: 1}


def interval_bytes(value: object, ctype: ColumnType) -> bytes:
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
        complement(pairs)
    else:
        negative = False
    return bytes((bcd_head(temporal_exponent(ctype.length), negative),)) + bytes(pairs)


def interval_value(raw: bytes | memoryview, ctype: ColumnType) -> object:
    """IntervalYM for YEAR/MONTH qualifiers, timedelta for the rest."""
    negative, exp100, pairs = split_bcd(raw)
    fields, micro = _walk_fields(pairs, exp100, ctype)
    if ctype.is_year_month:
        months = fields[0] if ctype.start == TU_MONTH else (
            fields[0] * 12 + (fields[1] if len(fields) > 1 else 0))
        return IntervalYM(-months if negative else months)
    units = range(ctype.start, TU_SECOND + 1, 2)
    secs = sum(v * _UNIT_SECONDS[u] for u, v in zip(units, fields))
    delta = datetime.timedelta(seconds=secs, microseconds=micro)
    return -delta if negative else delta


DATE_EPOCH = datetime.date(1899, 12, 31)
EPOCH_ORDINAL = DATE_EPOCH.toordinal()
SHORT, INT, BIGINT = struct.Struct("!h"), struct.Struct("!i"), struct.Struct("!q")
REAL, DOUBLE = struct.Struct("!f"), struct.Struct("!d")
INT8_STRUCT = struct.Struct("!hII")
INT_NULL = {TypeCode.SMALLINT: -0x8000, TypeCode.INTEGER: -0x80000000,
             TypeCode.SERIAL: -0x80000000, TypeCode.DATE: -0x80000000,
             TypeCode.BIGINT: -0x8000000000000000,
             TypeCode.BIGSERIAL: -0x8000000000000000}
INT_STRUCT = {TypeCode.SMALLINT: SHORT, TypeCode.INTEGER: INT,
              TypeCode.SERIAL: INT, TypeCode.DATE: INT,
              TypeCode.BIGINT: BIGINT, TypeCode.BIGSERIAL: BIGINT}
FLOAT_STRUCT = {TypeCode.FLOAT: DOUBLE, TypeCode.SMALLFLOAT: REAL}


def int8_bytes(value: int) -> bytes:
    """INT8/SERIAL8: sign short (1 or -1), then the magnitude's low and high
    32-bit words, in that order.  All zeros (sign 0) is NULL."""
    magnitude = abs(value)
    if magnitude >= 1 << 63:
        raise DataError(f"{value} overflows INT8")
    return INT8_STRUCT.pack(-1 if value < 0 else 1, magnitude & 0xFFFFFFFF, magnitude >> 32)


def int8_value(sign: int, low: int, high: int) -> int | None:
    if sign == 0:
        return None
    magnitude = (high << 32) | low
    return -magnitude if sign < 0 else magnitude


def days_since_epoch(value: object) -> int:
    if not isinstance(value, datetime.date):
        raise DataError(f"{value!r} is not a date")
    return value.toordinal() - EPOCH_ORDINAL


def text_bytes(value: object, encoding: str) -> bytes:
    if not isinstance(value, str):
        raise DataError(f"{value!r} is not a string")
    try:
        return value.encode(encoding)
    except UnicodeEncodeError as exc:
        raise DataError(f"{value!r} cannot be encoded as {encoding}") from exc


_UTF8_NAMES = frozenset({"utf-8", "utf8", "UTF-8", "UTF8", "utf_8"})


def fit_encoded(data: bytes, limit: int, encoding: str) -> bytes:
    """The first ``limit`` bytes of encoded text, in UTF-8 backed up to a
    character start: a column of n bytes never ends inside a character."""
    if len(data) <= limit:
        return data
    if encoding in _UTF8_NAMES:
        while limit > 0 and data[limit] & 0xC0 == 0x80:
            limit -= 1
    return data[:limit]


def date_from_days(days: int) -> datetime.date | None:
    if days == -0x80000000:
        return None
    return datetime.date.fromordinal(EPOCH_ORDINAL + days)


# What a BOOLEAN's first byte may be to read as true: JDBC's 1 and the 't'
# informix-driver also accepts.
TRUE_BYTES = (b"\x01", b"t", b"T")


def packed_converter(ctype: ColumnType) -> Callable[[bytes], object]:
    """DECIMAL/MONEY/DATETIME/INTERVAL bytes (all zeros: NULL) -> value."""
    if ctype.code in (TypeCode.DECIMAL, TypeCode.MONEY):
        scale = ctype.scale
        return lambda b: None if is_bcd_null(b) else decimal_from_bcd(b, scale)
    decode = datetime_value if ctype.code == TypeCode.DATETIME else interval_value
    return lambda b: None if is_bcd_null(b) else decode(b, ctype)
