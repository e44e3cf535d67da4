"""SQ_BIND parameter blocks: a Python value -> its block, and back.

The driver encodes (``encode_param``), the emulator reads
(``read_param``) what JDBC, informix-driver or this driver sent.  Unlike
row images, parameter blocks describe themselves:

    [short type]([owner][name] for opaque types > 18 except BIGINT/BIGSERIAL)
    [short indicator: 0 value, -1 NULL, -2 column default]
    [short precision/qualifier][value bytes, padded to even] -- no value
    bytes when the indicator is not 0.

Errors: a value that cannot be bound raises DataError (never a
struct.error, UnicodeError or ValueError); a block that cannot be read
raises framing.Incomplete when cut short and ProtocolError otherwise.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import struct
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import DataError, ProtocolError
from ..framing import Reader, Writer
from . import composite, scalars
from .scalars import (EPOCH_ORDINAL, INT_NULL, IntervalYM,
                      bcd_bytes, date_from_days, datetime_bytes, datetime_value, days_since_epoch,
                      decimal_from_bcd, decimal_pairs, int8_value, interval_bytes, interval_value,
                      is_bcd_null, text_bytes)
from .slob import Locator
from .typeinfo import (PACKED_CODES, TU_DAY, TU_HOUR, TU_MONTH, TU_NAMES, TU_SECOND, TU_YEAR,
                       ColumnType, TypeCode, qualifier)

__all__ = ["BlobParam", "encode_param", "read_param"]

# Bound by assignment, not by the import: CPython 3.11 compiles a method call
# on an imported name as an attribute load that builds a bound method on
# every call, a tenth of the cost of reading a short text parameter.
_SHORT, _INT, _BIGINT = scalars.SHORT, scalars.INT, scalars.BIGINT
_REAL, _DOUBLE = scalars.REAL, scalars.DOUBLE


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
    if len(data) > 0x7FFF:
        raise DataError(f"a value of {len(data)} bytes is longer than a parameter "
                        "can carry (32767); for a TEXT or CLOB column bind it as "
                        "informix_stream.Text() (bytes go as BYTE, for BYTE or BLOB)")
    return _SHORT.pack(len(data)) + data


_MAX_DIGITS = 32


def _bind_decimal(value: decimal.Decimal) -> bytes:
    digits = value.as_tuple().digits
    if value.is_finite() and len(digits) > _MAX_DIGITS:
        # Trailing zeros are not significant digits: 4939368971576805600000000000000000000000000000
        # is 17 digits and an exponent, a valid floating DECIMAL (issue 12 item 4).
        value = value.normalize(decimal.Context(prec=len(digits)))
        if len(value.as_tuple().digits) > _MAX_DIGITS:
            raise DataError(f"{value} has more than {_MAX_DIGITS} significant digits")
    negative, exp100, pairs = decimal_pairs(value)
    scale = max(0, -value.as_tuple().exponent)  # type: ignore[operator]
    prec = (max(2 * len(pairs), 1) << 8) | (scale & 0xFF)
    return _block(TypeCode.DECIMAL, prec, _short_prefixed(bcd_bytes(negative, exp100, pairs)))


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
    if -0x80000000 < value <= 0x7FFFFFFF:      # INTEGER -2**31 is NULL: BIGINT carries it
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
    return _INT_PARAM(TypeCode.DATE, 0, 0, value.toordinal() - EPOCH_ORDINAL)


_PARAM_ENCODERS: dict[type, Callable[[object, str], bytes | None]] = {
    int: _param_int, str: _param_str, float: _param_float,  # type: ignore[dict-item]
    datetime.date: _param_date, bool: _param_bool,  # type: ignore[dict-item]
    type(None): lambda value, encoding: _NULL_BLOCK,
}


def encode_param(value: object, encoding: str = "iso-8859-1") -> bytes:
    """Client side: one SQ_BIND parameter block for a Python value.

    The forms are the ones informix-driver sends (verified against real
    servers): int -> INTEGER, or BIGINT beyond 32 bits; float -> FLOAT; str
    -> CHAR; set/frozenset, Multiset, list, tuple (or dict) -> the text form
    of a SET, MULTISET, LIST, ROW as CHAR (codec/composite.py);
    bool -> CHAR 't'/'f' (the server casts; it hangs on a BOOLEAN
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
    try:
        return _encode_any(value, encoding)
    except _BIND_ERRORS as exc:
        # a subclass whose conversion misbehaves, a struct out of range: the
        # value cannot be bound, whatever the exception inside said
        raise DataError(f"cannot bind {type(value).__name__} value: {exc}") from exc


_BIND_ERRORS = (TypeError, ValueError, ArithmeticError, LookupError, struct.error)


def _encode_any(value: object, encoding: str) -> bytes:
    if value is None:
        return _NULL_BLOCK
    if isinstance(value, bool):
        value = "t" if value else "f"
    if isinstance(value, str):
        return _block(TypeCode.CHAR, 0, _short_prefixed(text_bytes(value, encoding)))
    if isinstance(value, int):
        if -0x80000000 < value <= 0x7FFFFFFF:  # -2**31 would read as NULL
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
        return _bind_packed(TypeCode.DATETIME, ctype, datetime_bytes(value, ctype))
    if isinstance(value, datetime.date):
        return _block(TypeCode.DATE, 0, _INT.pack(days_since_epoch(value)))
    if isinstance(value, datetime.time):
        ctype = _TIME_FRACTION if value.microsecond else _TIME_SECOND
        return _bind_packed(TypeCode.DATETIME, ctype, datetime_bytes(value, ctype))
    if isinstance(value, datetime.timedelta):
        return _bind_packed(TypeCode.INTERVAL, _IV_DAY_FRACTION,
                            interval_bytes(value, _IV_DAY_FRACTION))
    if isinstance(value, IntervalYM):
        return _bind_packed(TypeCode.INTERVAL, _IV_YEAR_MONTH,
                            interval_bytes(value, _IV_YEAR_MONTH))
    if isinstance(value, (set, frozenset, list, tuple, dict)):
        # ROW/SET/MULTISET/LIST: the value's text form as CHAR, which the
        # server casts to the column's type (codec/composite.py)
        text = composite.literal(value)
        return _block(TypeCode.CHAR, 0, _short_prefixed(text_bytes(text, encoding)))
    raise DataError(f"cannot bind a {type(value).__name__} parameter")


def _read_str(r: Reader, encoding: str, n: int) -> str:
    try:
        return r.padded(n).decode(encoding)
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"parameter text is not {encoding}") from exc


@functools.lru_cache(maxsize=256)
def _temporal_type(code: TypeCode, prec: int) -> ColumnType:
    """Validate a DATETIME/INTERVAL qualifier sent by a client."""
    ctype = ColumnType(code, prec & 0xFFFF)
    start, end = ctype.start, ctype.end
    ok = (start in TU_NAMES and start <= end <= TU_SECOND + 5
          and 1 <= ctype.leading_digits <= 9 and ctype.wire_width <= 17)
    if ok and code == TypeCode.INTERVAL:
        ok = not start <= TU_MONTH < end
    if not ok:
        raise ProtocolError(f"invalid {code.name} qualifier 0x{prec & 0xFFFF:04x}")
    return ctype


def _param_decimal(raw: bytes, prec: int) -> decimal.Decimal:
    """informix-driver sends (precision << 8) | scale, JDBC sends the bare
    scale; either lets the exact scale of the bound value survive."""
    value = decimal_from_bcd(raw, None)
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
    if len(raw) < 2 or is_bcd_null(raw):
        return None
    return _packed_value(raw, code, prec)


def _read_int(r: Reader, code: TypeCode) -> int | None:
    value = {TypeCode.SMALLINT: r.short, TypeCode.BIGINT: r.bigint,
             TypeCode.BIGSERIAL: r.bigint}.get(code, r.int)()
    return None if value == INT_NULL.get(code, -0x80000000) else value


def _read_value(r: Reader, code: TypeCode, prec: int, encoding: str) -> object:
    if code in (TypeCode.CHAR, TypeCode.VARCHAR, TypeCode.NCHAR, TypeCode.NVARCHAR):
        return _read_str(r, encoding, r.short())
    if code == TypeCode.LVARCHAR:
        return _read_str(r, encoding, r.int())
    if code == TypeCode.BOOLEAN:
        return r.padded(r.int())[:1] in (b"\x01", b"t", b"T")
    if code in PACKED_CODES:
        return _read_packed(r, code, prec)
    if code in INT_NULL and code != TypeCode.DATE:
        return _read_int(r, code)
    if code in (TypeCode.INT8, TypeCode.SERIAL8):
        return int8_value(r.short(), r.int() & 0xFFFFFFFF, r.int() & 0xFFFFFFFF)
    if code == TypeCode.FLOAT:
        return r.double()
    if code == TypeCode.SMALLFLOAT:
        return r.real()
    if code == TypeCode.DATE:
        return date_from_days(r.int())
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


def _packed_param_reader(reader: Reader, buf: bytes | bytearray | memoryview, pos: int,
                         encoding: str) -> object:
    """DECIMAL/MONEY/DATETIME/INTERVAL: a short length, then the packed
    bytes.  Only the code and precision it needs are re-read from the head;
    any block the slow reader would refuse or decode otherwise goes to it."""
    start = pos + 2
    if start > reader.end:
        return _SLOW
    n = _SHORT.unpack_from(buf, pos)[0]
    stop = start + n
    if n < 2 or stop + (n & 1) > reader.end:
        return _SLOW
    code, _, prec = _PARAM_HEAD.unpack_from(buf, pos - 6)
    raw = bytes(buf[start:stop])
    if is_bcd_null(raw):
        value = None
    else:
        try:
            value = _packed_value(raw, TypeCode(code), prec)
        except (ProtocolError, DataError, ArithmeticError, ValueError):
            return _SLOW
    reader.pos = stop + (n & 1)
    return value


def _packed_value(raw: bytes, code: TypeCode, prec: int) -> object:
    """What _read_packed makes of a non-NULL block."""
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return _param_decimal(raw, prec)
    ctype = _temporal_type(code, prec)
    if code == TypeCode.DATETIME:
        return datetime_value(raw, ctype)
    return interval_value(raw, ctype)


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
    TypeCode.DATE: _fixed_param_reader(_INT, None, date_from_days),
    **{code: _packed_param_reader for code in PACKED_CODES},
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


# Opaque-type parameters: [int n][bytes][pad] (JDBC ``IfxBaseType.toIfx``); 101/102
# are JDBC's own CLOB/BLOB codes, 44 its SENDRECV for an IfxUDT.
_OPAQUE_PARAM_CODES = frozenset({40, 41, 44, 101, 102})


def _read_opaque(reader: Reader, base: int, name: bytes) -> object:
    """A smart-LOB locator as a Locator; another opaque value (an
    ifx_lo_spec, an ifx_lo_stat) as its bytes."""
    n = reader.int()
    if n < 0:
        raise ProtocolError(f"opaque parameter of {n} bytes")
    data = reader.padded(n)
    if base in (101, 102) or name in (b"blob", b"clob"):
        return Locator(data, base == 101 or name == b"clob")
    return data


def _read_any(reader: Reader, encoding: str) -> object:
    raw_code = reader.short()
    base = raw_code & 0xFF
    name = b""
    if base > TypeCode.SERIAL8 and base not in (TypeCode.BIGINT, TypeCode.BIGSERIAL):
        reader.short_string()  # extended type owner
        name = reader.short_string()  # extended type name
    indicator = reader.short()
    prec = reader.short()
    if indicator in (-1, _DEFAULT_INDICATOR):
        return None
    if indicator != 0:
        raise ProtocolError(f"invalid parameter indicator {indicator}")
    if base in _OPAQUE_PARAM_CODES:
        return _read_opaque(reader, base, name.lower())
    try:
        code = TypeCode(base)
    except ValueError:
        raise ProtocolError(f"unknown parameter type {raw_code}") from None
    try:
        return _read_value(reader, code, prec, encoding)
    except (ValueError, OverflowError, DataError) as exc:
        # bytes a client sent that are no value of their type: for the server
        # reading the request, that is a malformed request
        raise ProtocolError(f"invalid {code.name} parameter: {exc}") from exc
