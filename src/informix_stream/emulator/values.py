"""Stored values: what SQLite keeps for each Informix type, and back.

The storage choices (see engine's docstring) are made here: a writer per
column type turns a bound Python value into what is stored, raising the
server's conversion error (-608/-1213/-1214/-1215/-1218/-1262...) for a value the
type cannot hold; a reader per result column turns a stored value into the
Python value the row encoder takes.  Also the SQL helpers SQLite calls over
stored values (the decimal collation, exact SUM/AVG).
"""

from __future__ import annotations

import calendar
import datetime as dt
import decimal
import re
import struct
from decimal import Decimal
from typing import Callable, Sequence

from informix_stream.codecs import (TU_DAY, TU_HOUR, TU_SECOND, TU_YEAR, ColumnType, IntervalYM,
                                    TypeCode, make_tuple_encoder)
from informix_stream.codec.scalars import floating_decimal_digits
from informix_stream.errors import DataError
from informix_stream.locales import fit_bytes

from . import blobs, composite, composite_wire, dbdate, documents, intervals, slobs
from .statements import (ColumnDef, ResultColumn, SqlError, conversion_error,
                         exact_decimal)

DAY0 = dt.date(1899, 12, 31).toordinal()
_INT_RANGE = {TypeCode.SMALLINT: (32767, -1214), TypeCode.INTEGER: (2147483647, -1215),
              TypeCode.SERIAL: (2147483647, -1215)}
_BIG_INT = (9223372036854775807, -1215)
_SERIAL_CODES = frozenset({TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL})
TEXT_CODES = frozenset({TypeCode.CHAR, TypeCode.NCHAR, TypeCode.VARCHAR,
                         TypeCode.NVARCHAR, TypeCode.LVARCHAR, TypeCode.TEXT})
_DEC_CONTEXT = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_UP)
# Arithmetic and aggregates: computed with a few digits to spare, then cut to
# what the server's decimal library holds (see centesimal).
DEC_CONTEXT = decimal.Context(prec=40, rounding=decimal.ROUND_HALF_UP,
                              Emin=-999_999, Emax=999_999)


def centesimal(d: Decimal) -> Decimal:
    """``d`` as the server's dec_t holds it: 16 base-100 digits with the
    decimal point between pairs (HCL Informix DataBlade API Guide, "Internal
    fixed-point decimal format"; ESQL/C Guide, "The decimal structure").  A
    value whose leading digit is the high one of its pair keeps 32 decimal
    digits, one whose leading digit is the low one (0.0333..., 3.333...)
    keeps 31.  Rounded half up, as the server rounds DECIMAL values."""
    digits = len(d.as_tuple().digits)
    if digits <= 31:
        return d
    keep = 32 if d.adjusted() % 2 else 31
    if digits <= keep:
        return d
    return d.quantize(Decimal(1).scaleb(d.adjusted() - keep + 1), rounding=decimal.ROUND_HALF_UP,
                      context=DEC_CONTEXT)


# ---------------------------------------------------------------------------
# Python value -> stored value
# ---------------------------------------------------------------------------

Converter = Callable[[object], object]


_conversion_error = conversion_error


def to_decimal(v: object) -> Decimal:
    """A client or stored value as a Decimal; -1213 for text that is no number."""
    if isinstance(v, Decimal):
        return v
    if isinstance(v, bool):
        return Decimal(int(v))
    if isinstance(v, float):    # NaN/inf: -1226, overflow (unconfirmed on a server)
        if v != v or abs(v) == float("inf"):
            raise _conversion_error(-1226, v)
        return Decimal(repr(v))
    if isinstance(v, int):
        return Decimal(v)
    if isinstance(v, str):
        try:
            d = Decimal(v.strip())
        except decimal.InvalidOperation:
            raise _conversion_error(-1213, v) from None
        if not d.is_finite():
            raise _conversion_error(-1213, v)
        return d
    raise _conversion_error(-1213, v)


def _int_writer(code: TypeCode) -> Converter:
    limit, err = _INT_RANGE.get(code, _BIG_INT)

    def slow(v: object) -> object:
        if v is None:
            return None
        n = int(to_decimal(v).to_integral_value(decimal.ROUND_DOWN)) \
            if not isinstance(v, int) else int(v)
        if not -limit <= n <= limit:
            raise _conversion_error(err, v)
        return n

    def write(v: object) -> object:
        if v.__class__ is int and -limit <= v <= limit:
            return v
        return slow(v)
    return write


def _float_writer(v: object) -> object:
    if v is None or v.__class__ is float:
        return v
    # not float(v): a DATE or bytes is -1213 here as in an INTEGER column
    return float(v) if isinstance(v, (int, Decimal)) else float(to_decimal(v))


def _decimal_writer(ctype: ColumnType) -> Converter:
    precision, scale = ctype.precision, ctype.scale
    quantum = Decimal(1).scaleb(-scale) if scale is not None else None

    def write(v: object) -> object:
        if v is None:
            return None
        d = to_decimal(v)
        if quantum is not None:
            if d and d.adjusted() >= precision - scale:   # else quantize may overflow
                raise _conversion_error(-1226, v)
            d = d.quantize(quantum, context=_DEC_CONTEXT)
            whole_digits = d.adjusted() + 1 if d else 0
            if whole_digits > precision - scale:
                raise _conversion_error(-1226, v)
        else:
            d = _DEC_CONTEXT.create_decimal(d)
            # A floating DECIMAL(p) keeps p + 1 or p + 2 digits (its base-100
            # pairs); one stored as a double (not exact_decimal) keeps at most
            # the 15 a double holds exactly, a known difference (DECIMAL(14)
            # and (15) only).
            kept = floating_decimal_digits(d, precision) if exact else min(
                floating_decimal_digits(d, precision), 15)
            if len(d.as_tuple().digits) > kept:
                d = decimal.Context(prec=kept, rounding=decimal.ROUND_HALF_UP).plus(d)
            if d and abs(d.adjusted()) > 125:
                raise _conversion_error(-1226, v)
        return str(d) if exact else float(d)
    exact = exact_decimal(ctype)
    return write


def _text_writer(ctype: ColumnType, codec: str, ansi: bool, cut: bool = True) -> Converter:
    """A CHAR(n)/VARCHAR(n) holds n BYTES of the database's code set; a
    longer value is cut to fit, in a multibyte code set at a character
    boundary (locales.fit_bytes), in a database that is not ANSI-compliant;
    an ANSI one raises -1279 (HCL Informix 14.10 ESQL/C Guide, "Insert CHAR
    data"/"Insert VARCHAR data"; SQL Syntax, "STRING_TRUNCATE_ERROR").
    Only a value being stored is cut (``cut``): one compared with a column
    (``= ?``, ``LIKE ?``) is compared whole, the shorter side blank-padded
    (Guide to SQL: Reference, "CHAR(n)": trailing blanks do not count in a
    comparison), so ``x = 'ABC'`` never matches a CHAR(2) 'AB' nor a LIKE
    pattern lose its last characters."""
    limit = ctype.length & 0xFF if ctype.code in (TypeCode.VARCHAR, TypeCode.NVARCHAR) \
        else ctype.length
    pad = ctype.code in (TypeCode.CHAR, TypeCode.NCHAR)
    multibyte = codec == "utf-8"

    def write(v: object) -> object:
        if v is None:
            return None
        s = v if isinstance(v, str) else _text_of(v)
        if not cut:
            return s.rstrip(" ") if pad else s
        if (len(s) * 4 if multibyte else len(s)) > limit:
            kept = fit_bytes(s, limit, codec)[0] if multibyte else s[:limit]
            if ansi and kept != s:
                raise SqlError(-1279, message=f"value exceeds string column length ({limit})")
            s = kept
        return s.rstrip(" ") if pad else s
    return write


def _text_of(v: object) -> str:
    blobs.refuse_bytes(v, "a character type")   # bytes were decoded and stored
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return dbdate.current().format(v)
    return str(v)


def parse_date(text: str) -> dt.date:
    """DATE text in the session's DBDATE format (dbdate.py)."""
    return dbdate.current().parse(text)


def _date_writer(v: object) -> object:
    if v is None:
        return v
    if v.__class__ is int:
        # A day number, in DATE's 0001-01-01..9999-12-31; outside, its year
        # is none a DATE holds: -1204 (the code is a guess, unconfirmed)
        if not -693594 <= v <= 2958464:
            raise _conversion_error(-1204, v)
        return v
    if isinstance(v, dt.datetime):
        return v.date().toordinal() - DAY0
    if isinstance(v, dt.date):
        return v.toordinal() - DAY0
    if isinstance(v, str):
        return parse_date(v).toordinal() - DAY0
    raise _conversion_error(-1218, v)


_FIELD_NAMES = ("year", "month", "day", "hour", "minute", "second")
_FIELD_LIMITS = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59),
                 "second": (0, 59)}


def _qualifier_fields(ctype: ColumnType) -> list[str]:
    last = min(ctype.end, TU_SECOND)
    return [_FIELD_NAMES[u // 2] for u in range(ctype.start, last + 1, 2)]


def _datetime_fields(v: object, ctype: ColumnType) -> dict[str, object]:
    """Field values of a Python or text DATETIME, keyed by unit name."""
    if isinstance(v, str):
        return _parse_datetime_text(v, ctype)
    if isinstance(v, dt.time):
        # an HOUR TO x value into a qualifier that starts earlier: EXTEND
        # fills the leading fields from the current date (Guide to SQL:
        # Syntax, "EXTEND Function")
        v = dt.datetime.combine(dt.date.today(), v)
    if isinstance(v, (dt.datetime, dt.date)):
        out: dict[str, object] = {n: getattr(v, n, 0) for n in _FIELD_NAMES}
        out["fraction"] = f"{getattr(v, 'microsecond', 0):06d}"
        return out
    raise _conversion_error(-1262, v)


def _parse_datetime_text(text: str, ctype: ColumnType) -> dict[str, object]:
    if re.search(r"[^0-9\s:.\-]", text):
        raise _conversion_error(-1262, text)
    parts = re.split(r"[\s:\-.]+", text.strip())
    names = _qualifier_fields(ctype)
    if ctype.fraction_digits and len(parts) == len(names) + 1:
        fraction = parts.pop()
    else:
        fraction = ""
    if len(parts) != len(names):
        raise _conversion_error(-1264 if len(parts) > len(names) else -1263, text)
    fields: dict[str, object] = {"fraction": fraction.ljust(6, "0")[:6]}
    for name, part in zip(names, parts):
        value = int(part)
        lo, hi = _FIELD_LIMITS.get(name, (1, 9999))
        if not lo <= value <= hi:
            raise _conversion_error(-1263, text)
        fields[name] = value
    _check_day_of_month(fields, text)
    return fields


# The year a DATETIME without a YEAR field is given to become a Python value:
# a leap year, so MONTH TO DAY '02-29' has one (the driver's codec fills the
# same, codec/scalars.py).
_FILL_YEAR = 2000


def _check_day_of_month(fields: dict[str, object], text: str) -> None:
    """-1263 for a day its month does not have.  The server's DATETIME day
    runs "from 1 to 31, as appropriate for the month" (IBM Guide to SQL:
    Reference, "DATETIME data type", ids_sqr_110; Literal DATETIME,
    ids_sqs_1600: 1 <= dd <= 28, 29, 30, or 31).  Without a YEAR field the
    value belongs to no year, and February has 29 days in some: '02-29' is
    a MONTH TO DAY value, '02-30' and '04-31' are in no year (-1263, "A field
    in a datetime or interval value is incorrect", IBM JDBC 15.0.1.0 message
    catalog).  With a YEAR, that year's calendar decides ('2023-02-29')."""
    month, day = fields.get("month"), fields.get("day")
    if month is None or day is None:
        return
    year = fields.get("year", _FILL_YEAR)
    if day > calendar.monthrange(int(year), int(month))[1]:   # type: ignore[arg-type]
        raise _conversion_error(-1263, text)


def datetime_writer(ctype: ColumnType) -> Converter:
    names = _qualifier_fields(ctype)
    digits = ctype.fraction_digits
    seps = {"year": "", "month": "-", "day": "-", "hour": " ", "minute": ":", "second": ":"}

    def write(v: object) -> object:
        if v is None:
            return None
        f = _datetime_fields(v, ctype)
        text = "".join((seps[n] if i else "") + (f"{f.get(n, 0):04d}" if n == "year"
                                                   else f"{f.get(n, 0):02d}")
                       for i, n in enumerate(names))
        if digits:
            text += "." + str(f["fraction"])[:digits]
        return text
    return write


def _bool_writer(v: object) -> object:
    if v is None:
        return None
    blobs.refuse_bytes(v, "BOOLEAN")          # any non-empty bytes were stored TRUE
    if isinstance(v, str):
        word = v.strip().lower()
        if word in ("t", "true", "1"):
            return 1
        if word in ("f", "false", "0"):
            return 0
        raise _conversion_error(-1213, v)
    return 1 if v else 0


def _generic_writer(v: object) -> object:
    """Storage form of a value whose target column is unknown."""
    cls = v.__class__
    if cls in (int, str, float) or v is None:
        return v
    if cls is Decimal:
        return float(v) if len(v.as_tuple().digits) <= 15 else str(v)
    if cls is bool:
        return int(v)
    if cls is dt.date:
        return v.toordinal() - DAY0
    if cls is dt.datetime:
        return v.isoformat(" ")
    if cls is dt.time:
        # A DATETIME HOUR TO FRACTION(5) parameter (how the driver binds a
        # time) in that type's text, which a CAST or a DATETIME column's
        # writer reads.
        return f"{v:%H:%M:%S}.{v.microsecond // 10:05d}"
    if cls is dt.timedelta:
        return (v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds
    if cls is IntervalYM:
        return v.months
    return v


def writer_for(ctype: ColumnType | None, codec: str = "iso-8859-1", *,
               ansi: bool = False, compared: bool = False) -> Converter:
    """The converter from client values to this column's stored form
    (``codec``: the database's code set, which text lengths count in;
    ``ansi``: an ANSI-compliant database, which refuses a too-long text;
    ``compared``: the value is compared with the column, not stored in it,
    so a text is not cut to the column's width)."""
    if ctype is None:
        return _generic_writer
    code = ctype.code
    if code in blobs.BLOB_CODES:
        return blobs.writer(code, codec)
    if code in slobs.SLOB_CODES:
        return slobs.writer(code, codec)
    if code in _INT_RANGE or code in (TypeCode.INT8, TypeCode.BIGINT, TypeCode.SERIAL8,
                                      TypeCode.BIGSERIAL):
        return _int_writer(code)
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return _float_writer
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimal_writer(ctype)
    if code in TEXT_CODES:
        return _text_writer(ctype, codec, ansi, cut=not compared)
    if code == TypeCode.DATE:
        return _date_writer
    if code == TypeCode.DATETIME:
        return datetime_writer(ctype)
    if code == TypeCode.INTERVAL:
        return intervals.writer(ctype)
    if code == TypeCode.BOOLEAN:
        return _bool_writer
    if code in composite.COMPOSITE_CODES:
        return composite.writer(ctype)
    if code in documents.DOCUMENT_CODES:
        return documents.writer(code)
    return _generic_writer


def sql_decimal(d: Decimal) -> float | str:
    """The SQLite value of a decimal result: a REAL when a double holds it
    exactly (at most 15 significant digits, which a double round-trips, and
    a modest exponent), else its exact digits as text without an exponent."""
    if not d.is_finite():
        raise SqlError(-1226, message="decimal value exceeds maximum precision")
    sign, digits, exponent = d.as_tuple()
    significant = len(digits)
    while significant > 15 and digits[significant - 1] == 0:
        significant -= 1
    if significant <= 15 and -290 < exponent + len(digits) < 290:
        return float(d)
    return format(d, "f")


# ---------------------------------------------------------------------------
# Stored value -> Python value
# ---------------------------------------------------------------------------

class _DayCache(dict):
    """Informix day number -> date; dict lookups keep DATE fetch in C."""

    def __missing__(self, key: object) -> dt.date | None:
        value = None if key is None else dt.date.fromordinal(int(key) + DAY0)
        if len(self) < 1_000_000:
            self[key] = value
        return value


_DAYS = _DayCache()
_BOOLS = {0: False, 1: True, None: None}


def _maybe(func: Callable[[object], object]) -> Converter:
    return lambda v: None if v is None else func(v)


def _decimal_reader(ctype: ColumnType) -> Converter:
    scale = ctype.scale
    quantum = Decimal(1).scaleb(-scale) if scale is not None else None

    def read(v: object) -> object:
        if v is None:
            return None
        d = Decimal(repr(v)) if isinstance(v, float) else Decimal(v if not isinstance(v, bytes)
                                                                   else v.decode())
        return d.quantize(quantum, context=_DEC_CONTEXT) if quantum is not None else d
    return read


def _datetime_reader(ctype: ColumnType) -> Converter:
    if ctype.start >= TU_HOUR:
        return _maybe(lambda v: _time_from_text(str(v), ctype))
    if ctype.start == TU_YEAR and ctype.end == TU_DAY:
        return _maybe(lambda v: dt.date.fromisoformat(str(v)))
    if ctype.start == TU_YEAR and ctype.end > TU_DAY:
        return _maybe(lambda v: dt.datetime.fromisoformat(_fraction6(str(v))))
    return _maybe(lambda v: _datetime_from_fields(str(v), ctype))


def _fraction6(text: str) -> str:
    """fromisoformat wants 3 or 6 fraction digits; Informix has 1 to 5."""
    head, dot, frac = text.partition(".")
    return f"{head}.{frac.ljust(6, '0')}" if dot else text


def _time_from_text(text: str, ctype: ColumnType) -> dt.time:
    f = _parse_datetime_text(text, ctype)
    return dt.time(f.get("hour", 0), f.get("minute", 0), f.get("second", 0),
                   int(f["fraction"]))


def _datetime_from_fields(text: str, ctype: ColumnType) -> dt.datetime | dt.date:
    f = _parse_datetime_text(text, ctype)
    if ctype.end <= TU_DAY:
        return dt.date(f.get("year", _FILL_YEAR), f.get("month", 1), f.get("day", 1))
    return dt.datetime(f.get("year", _FILL_YEAR), f.get("month", 1), f.get("day", 1),
                       f.get("hour", 0), f.get("minute", 0), f.get("second", 0),
                       int(f["fraction"]))


def _to_int(v: object) -> object:
    if v is None or v.__class__ is int:
        return v
    return int(to_decimal(v if not isinstance(v, float) else repr(v)))


def reader_for(col: ResultColumn) -> Converter | None:
    """Converter from SQLite's value to the Python type of ``col``; None if none needed."""
    ctype, stored = col.type, col.stored
    code = ctype.code
    if code in blobs.BLOB_CODES:
        return blobs.reader()
    if code in slobs.SLOB_CODES:
        return slobs.reader()
    if code in _INT_RANGE or code in (TypeCode.INT8, TypeCode.BIGINT, TypeCode.SERIAL8,
                                      TypeCode.BIGSERIAL):
        return None if stored else _to_int
    if code in (TypeCode.FLOAT, TypeCode.SMALLFLOAT):
        return None if stored else _maybe(float)
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _decimal_reader(ctype)
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        width = ctype.length
        return _maybe(lambda v: (v if isinstance(v, str) else str(v)).ljust(width))
    if code in TEXT_CODES:
        return None if stored else _maybe(str)
    if code == TypeCode.DATE:
        return _DAYS.__getitem__
    if code == TypeCode.DATETIME:
        return _datetime_reader(ctype)
    if code == TypeCode.INTERVAL:
        if ctype.is_year_month:
            return _maybe(lambda v: IntervalYM(int(v)))
        return _maybe(lambda v: dt.timedelta(microseconds=int(v)))
    if code == TypeCode.BOOLEAN:
        return _BOOLS.__getitem__
    if code in documents.DOCUMENT_CODES:
        return documents.reader(code)
    return None


def row_converter(columns: Sequence[ResultColumn]) -> Callable[[list], list] | None:
    """Build one function converting a batch of rows; None when rows pass as-is.

    The function is generated source (a list comprehension naming every
    column) because a per-row Python loop over per-column converters costs
    several times more than one comprehension with the calls inlined.
    """
    readers = [reader_for(c) for c in columns]
    if not any(readers):
        return None
    names = [f"c{i}" for i in range(len(columns))]
    exprs = [f"f{i}({n})" if r else n for i, (n, r) in enumerate(zip(names, readers))]
    src = (f"def convert(rows):\n"
           f"    return [({', '.join(exprs)},) for ({', '.join(names)},) in rows]\n")
    namespace: dict[str, object] = {f"f{i}": r for i, r in enumerate(readers) if r}
    exec(src, namespace)  # noqa: S102 - source built only from column indexes
    return namespace["convert"]  # type: ignore[return-value]


def image_maker(columns: Sequence[ColumnDef], codec: str = "iso-8859-1"
                ) -> Callable[[Sequence[object]], bytes] | None:
    """Stored values of one row -> its SQ_TUPLE message (text in the
    database's code set ``codec``), exactly what the server would send
    after reading them; None if a type has no row encoding.
    BYTE/TEXT tables keep none: their cells are references that triggers of
    their own (blobs.py) set after the image would be made; nor do tables
    with ROW/collection/BOOLEAN/BLOB/CLOB columns, whose form depends on the
    client."""
    if blobs.has_blobs(columns):
        return None
    if any(c.type.code in composite_wire.UDT_CODES for c in columns):
        return None   # their form depends on the client's SQ_RET_TYPE (composite_wire.py)
    try:
        encode = make_tuple_encoder([c.type for c in columns], codec)
    except ValueError:
        return None
    convert = row_converter([ResultColumn(c.name, c.type, True) for c in columns])
    if convert is None:
        return encode
    return lambda values: encode(convert((values,))[0])


def image_failure(exc: DataError) -> SqlError:
    """Informix's error for a value its row encoding rejects."""
    cause = exc.__cause__
    if isinstance(cause, UnicodeError):
        code = -23103          # code-set conversion failed
    elif isinstance(cause, (struct.error, OverflowError)):
        code = -1215           # value exceeds the column's range
    else:
        code = -1213
    return SqlError(code, 0, "", str(exc))
