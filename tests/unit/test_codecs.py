"""Codec tests: exact bytes, NULLs, edge values, and cross-checks against
informix-driver's own decoder and encoder (the outside judge)."""

from __future__ import annotations

import datetime as dt
import io
import struct
from decimal import Decimal

import pytest

from informix_stream.codecs import (
    NOT_NULL_FLAG, BlobParam, ColumnType, IntervalYM, TypeCode, encode_param,
    make_row_decoder, make_row_encoder, parse_type, read_param,
)
from informix_stream.errors import DataError, ProtocolError
from informix_stream.framing import Incomplete, Reader

try:
    from informix_db import converters as ifx_conv
    from informix_db._protocol import IfxStreamReader
    from informix_db._resultset import (
        ColumnInfo, compile_column_readers, compile_row_decoder, parse_tuple_payload,
    )
except ImportError:  # pragma: no cover - depends on the environment
    ifx_conv = None

needs_ifx = pytest.mark.skipif(
    ifx_conv is None, reason="informix-driver (informix_db) is not installed; "
    "pip install informix-driver==2026.9.3 to run the cross-checks")

# ---------------------------------------------------------------- parse_type

PARSE_CASES = [
    ("smallint", TypeCode.SMALLINT, 2, "SMALLINT"),
    ("INT", TypeCode.INTEGER, 4, "INTEGER"),
    ("integer", TypeCode.INTEGER, 4, "INTEGER"),
    ("serial", TypeCode.SERIAL, 4, "SERIAL"),
    ("bigint", TypeCode.BIGINT, 8, "BIGINT"),
    ("bigserial", TypeCode.BIGSERIAL, 8, "BIGSERIAL"),
    ("int8", TypeCode.INT8, 10, "INT8"),
    ("serial8", TypeCode.SERIAL8, 10, "SERIAL8"),
    ("real", TypeCode.SMALLFLOAT, 4, "SMALLFLOAT"),
    ("smallfloat", TypeCode.SMALLFLOAT, 4, "SMALLFLOAT"),
    ("float", TypeCode.FLOAT, 8, "FLOAT"),
    ("double   precision", TypeCode.FLOAT, 8, "FLOAT"),
    ("decimal(10, 2)", TypeCode.DECIMAL, 10 * 256 + 2, "DECIMAL(10,2)"),
    ("dec(5)", TypeCode.DECIMAL, 5 * 256 + 255, "DECIMAL(5)"),
    ("numeric", TypeCode.DECIMAL, 16 * 256 + 255, "DECIMAL(16)"),
    ("decimal(32,32)", TypeCode.DECIMAL, 32 * 256 + 32, "DECIMAL(32,32)"),
    ("money", TypeCode.MONEY, 16 * 256 + 2, "MONEY(16,2)"),
    ("money(8)", TypeCode.MONEY, 8 * 256 + 2, "MONEY(8,2)"),
    ("money(8,3)", TypeCode.MONEY, 8 * 256 + 3, "MONEY(8,3)"),
    ("char", TypeCode.CHAR, 1, "CHAR(1)"),
    ("character(20)", TypeCode.CHAR, 20, "CHAR(20)"),
    ("nchar(10)", TypeCode.NCHAR, 10, "NCHAR(10)"),
    ("varchar(255,10)", TypeCode.VARCHAR, 10 * 256 + 255, "VARCHAR(255,10)"),
    ("character varying(30)", TypeCode.VARCHAR, 30, "VARCHAR(30)"),
    ("nvarchar(20)", TypeCode.NVARCHAR, 20, "NVARCHAR(20)"),
    ("lvarchar", TypeCode.LVARCHAR, 2048, "LVARCHAR(2048)"),
    ("lvarchar(100)", TypeCode.LVARCHAR, 100, "LVARCHAR(100)"),
    ("boolean", TypeCode.BOOLEAN, 1, "BOOLEAN"),
    ("date", TypeCode.DATE, 4, "DATE"),
    ("byte", TypeCode.BYTE, 56, "BYTE"),
    ("text", TypeCode.TEXT, 56, "TEXT"),
    ("datetime year to second", TypeCode.DATETIME, 0x0E0A, "DATETIME YEAR TO SECOND"),
    ("DATETIME YEAR TO FRACTION(5)", TypeCode.DATETIME, 0x130F,
     "DATETIME YEAR TO FRACTION(5)"),
    ("datetime year to fraction", TypeCode.DATETIME, 0x110D,
     "DATETIME YEAR TO FRACTION(3)"),
    ("datetime year to day", TypeCode.DATETIME, 0x0804, "DATETIME YEAR TO DAY"),
    ("datetime hour to second", TypeCode.DATETIME, 0x066A, "DATETIME HOUR TO SECOND"),
    ("datetime month to day", TypeCode.DATETIME, 0x0424, "DATETIME MONTH TO DAY"),
    ("interval day(3) to second", TypeCode.INTERVAL, 0x094A,
     "INTERVAL DAY(3) TO SECOND"),
    ("interval year to month", TypeCode.INTERVAL, 0x0602, "INTERVAL YEAR(4) TO MONTH"),
    ("interval year(9) to month", TypeCode.INTERVAL, 0x0B02,
     "INTERVAL YEAR(9) TO MONTH"),
    ("interval day(9) to fraction(5)", TypeCode.INTERVAL, 0x144F,
     "INTERVAL DAY(9) TO FRACTION(5)"),
    ("interval hour to minute", TypeCode.INTERVAL, 0x0468, "INTERVAL HOUR(2) TO MINUTE"),
    ("interval month(5) to month", TypeCode.INTERVAL, 0x0522,
     "INTERVAL MONTH(5) TO MONTH"),
]


@pytest.mark.parametrize(("text", "code", "length", "sql"), PARSE_CASES)
def test_parse_type(text: str, code: TypeCode, length: int, sql: str) -> None:
    t = parse_type(text)
    assert (t.code, t.length, t.sql()) == (code, length, sql)
    assert parse_type(t.sql()) == t


@pytest.mark.parametrize("bad", [
    "", "foo", "decimal(33)", "decimal(5,6)", "decimal(0)", "varchar", "varchar(256)",
    "varchar(10,11)", "char(0)", "char(32768)", "int(5)", "interval year to day",
    "datetime day to year", "datetime year(4) to day", "datetime year to fraction(6)",
    "interval day(10) to second", "datetime year to second(2)", "date(1)",
])
def test_parse_type_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_type(bad)


def test_column_type_properties() -> None:
    t = parse_type("decimal(10,2)", nullable=False)
    assert (t.precision, t.scale, t.wire_width) == (10, 2, 6)
    assert t.wire_code == TypeCode.DECIMAL | NOT_NULL_FLAG
    assert parse_type("decimal(16)").scale is None
    assert parse_type("decimal(16)").wire_width == 10  # odd scale byte 255
    dt_type = parse_type("datetime year to fraction(3)")
    assert (dt_type.start, dt_type.end, dt_type.fraction_digits) == (0, 13, 3)
    iv = parse_type("interval day(3) to second")
    assert (iv.leading_digits, iv.is_year_month) == (3, False)
    v = parse_type("varchar(200,20)")
    assert (v.precision, v.min_length, v.wire_width) == (200, 20, 201)
    b = parse_type("boolean")
    assert (b.describe_code, b.extended_id, b.extended_name, b.wire_width) == (
        TypeCode.UDTFIXED, 5, "boolean", 6)
    lv = parse_type("lvarchar(10)", nullable=False)
    assert (lv.describe_code, lv.extended_id, lv.wire_width) == (
        TypeCode.UDTVAR | NOT_NULL_FLAG, 1, 15)
    assert parse_type("int8").wire_width == 10


# ------------------------------------------------------------ row byte vectors

ROW_VECTORS = [
    ("smallint", 1, "0001"), ("smallint", None, "8000"),
    ("integer", -2, "fffffffe"), ("integer", None, "80000000"),
    ("serial", 7, "00000007"),
    ("bigint", 1, "0000000000000001"), ("bigint", None, "8000000000000000"),
    # INT8 is sign-magnitude: sign short, low word, high word.
    ("int8", 123456789012, "0001be991a140000001c"),
    ("int8", -123456789012, "ffffbe991a140000001c"),
    ("int8", None, "00000000000000000000"),
    ("float", 1.5, "3ff8000000000000"), ("float", None, "ffffffffffffffff"),
    ("smallfloat", 2.5, "40200000"), ("smallfloat", None, "ffffffff"),
    ("date", dt.date(1899, 12, 31), "00000000"), ("date", dt.date(1900, 1, 1), "00000001"),
    ("date", None, "80000000"),
    ("char(6)", "ab", "616220202020"), ("char(6)", "", "202020202020"),
    ("char(6)", None, "002020202020"), ("nchar(10)", "nch", "6e636820202020202020"),
    ("varchar(20)", "systables", "097379737461626c6573"), ("varchar(20)", "", "00"),
    ("varchar(20)", None, "0100"), ("nvarchar(20)", "nvc", "036e7663"),
    ("lvarchar", "odd", "00000000036f6464"), ("lvarchar", "", "0000000000"),
    ("lvarchar", None, "0100000000"),
    ("boolean", True, "000000000101"), ("boolean", False, "000000000100"),
    ("boolean", None, "0100000000"),
    ("decimal(10,2)", Decimal("123.45"), "c201172d0000"),
    ("decimal(10,2)", Decimal("-123.45"), "3d624c370000"),
    ("decimal(10,2)", Decimal("0"), "c00000000000"),
    ("decimal(10,2)", None, "000000000000"),
    ("decimal(10,2)", Decimal("-0.01"), "3f6300000000"),
    ("decimal(16)", Decimal("1.5"), "c1013200000000000000"),
    ("money(8,3)", Decimal("-1.005"), "3e6263320000"),
    ("datetime year to second", dt.datetime(2024, 5, 6, 7, 8, 9), "c714180506070809"),
    ("datetime year to fraction(5)", dt.datetime(2024, 5, 6, 7, 8, 9, 123450),
     "c7141805060708090c2232"),
    ("datetime year to fraction(3)", dt.datetime(2024, 5, 6, 7, 8, 9, 123000),
     "c7141805060708090c1e"),
    ("datetime year to day", dt.date(2024, 5, 6), "c714180506"),
    ("datetime hour to second", dt.time(0, 1, 2), "c3000102"),
    ("datetime year to second", None, "0000000000000000"),
    ("interval day(3) to second", dt.timedelta(days=123, seconds=3661), "c50117010101"),
    ("interval day(3) to second", -dt.timedelta(days=5, seconds=7), "3a635e63635d"),
    ("interval year to month", IntervalYM(18), "c7000106"),
    ("interval year to month", IntervalYM(-27), "38636161"),
    ("interval year to month", None, "00000000"),
]


@pytest.mark.parametrize(("text", "value", "hexbytes"), ROW_VECTORS)
def test_row_bytes_and_back(text: str, value: object, hexbytes: str) -> None:
    t = parse_type(text)
    data = make_row_encoder([t])([value])
    assert data.hex() == hexbytes
    assert len(data) <= t.wire_width
    row, end = make_row_decoder([t])(data, 0)
    expected = value.ljust(t.length) if isinstance(value, str) and t.code in (
        TypeCode.CHAR, TypeCode.NCHAR) else value
    assert row == (expected,) and end == len(data)


ROUND_TRIPS = [
    ("smallint", [-32767, 32767, 0]), ("integer", [2**31 - 1, -(2**31) + 1]),
    ("bigint", [2**63 - 1, -(2**63) + 1]), ("int8", [2**63 - 1, -(2**63) + 1, 0]),
    ("serial8", [1]), ("bigserial", [5]), ("float", [-0.0, 1e308, float("inf")]),
    ("decimal(32,0)", [Decimal("9" * 32), Decimal("-" + "9" * 32)]),
    ("decimal(32,32)", [Decimal("0." + "9" * 32), Decimal("-0." + "0" * 31 + "1")]),
    ("decimal(16)", [Decimal("1E-100"), Decimal("-123456.789"), Decimal("100"),
                     Decimal("1234567890123456"), Decimal("1E+120")]),
    ("decimal(5,2)", [Decimal("999.99"), Decimal("-999.99"), Decimal("0.50")]),
    ("money", [Decimal("12.34"), Decimal("-0.01")]),
    ("datetime year to fraction(1)", [dt.datetime(2024, 5, 6, 7, 8, 9, 100000)]),
    ("datetime year to fraction(2)", [dt.datetime(1, 1, 1, 0, 0, 0, 120000)]),
    ("datetime year to fraction(4)", [dt.datetime(9999, 12, 31, 23, 59, 59, 999900)]),
    ("datetime year to minute", [dt.datetime(99, 1, 1, 0, 0)]),
    ("datetime hour to fraction(5)", [dt.time(23, 59, 59, 999990)]),
    ("datetime month to day", [dt.date(2000, 2, 29), dt.date(2000, 12, 31)]),
    ("datetime day to hour", [dt.datetime(2000, 1, 31, 23)]),
    ("interval day to fraction(5)", [dt.timedelta(days=1, microseconds=10),
                                     -dt.timedelta(microseconds=120)]),
    ("interval day(9) to fraction(5)", [dt.timedelta(days=999999999, microseconds=999990)]),
    ("interval hour to minute", [dt.timedelta(hours=26, minutes=5)]),
    ("interval minute to second", [dt.timedelta(minutes=90, seconds=3)]),
    ("interval month(5) to month", [IntervalYM(1234), IntervalYM(-99999)]),
    ("interval year(5) to month", [IntervalYM(-99999 * 12 - 11)]),
    ("interval year to year", [IntervalYM(24)]),
]
ALL_ROW_CASES = [(t, v) for t, vs in ROUND_TRIPS for v in [*vs, None]] + [
    (t, v) for t, v, _ in ROW_VECTORS]


@pytest.mark.parametrize(("text", "value"), ALL_ROW_CASES)
def test_row_round_trip(text: str, value: object) -> None:
    t = parse_type(text)
    data = make_row_encoder([t])([value])
    row, _ = make_row_decoder([t])(data, 0)
    if t.code in (TypeCode.CHAR, TypeCode.NCHAR) and value is not None:
        value = value.ljust(t.length)
    assert row[0] == value


def test_multi_column_row_and_offset() -> None:
    types = [parse_type(x) for x in (
        "integer", "int8", "varchar(10)", "char(3)", "decimal(5,2)", "boolean",
        "float", "lvarchar", "date", "interval year to month")]
    values = (1, -5, "hé", "ab ", Decimal("1.50"), True, 2.5, "x" * 300,
              dt.date(2020, 1, 2), IntervalYM(-1))
    data = make_row_encoder(types, "utf-8")(values)
    row, end = make_row_decoder(types, "utf-8")(b"junk" + data + b"more", 4)
    assert row == values and end == 4 + len(data)
    assert make_row_decoder(types)(memoryview(data), 0)[0][0] == 1


def test_row_rounding_and_truncation() -> None:
    enc = make_row_encoder([parse_type("decimal(5,2)"), parse_type("char(2)"),
                            parse_type("varchar(3)")])
    dec = make_row_decoder([parse_type("decimal(5,2)"), parse_type("char(2)"),
                            parse_type("varchar(3)")])
    assert dec(enc([Decimal("1.005"), "abcd", "abcd"]), 0)[0] == (Decimal("1.01"), "ab", "abc")


@pytest.mark.parametrize(("text", "value"), [
    ("decimal(5,2)", Decimal("1000")), ("smallint", 40000), ("integer", -(2**31)),
    ("int8", 2**63), ("date", "2020-01-01"), ("char(3)", 5),
    ("interval day(2) to second", dt.timedelta(days=100)),
    ("interval year to month", dt.timedelta(days=1)), ("decimal(16)", Decimal("NaN")),
    ("datetime year to day", dt.time(1, 2)),
])
def test_row_encoder_rejects(text: str, value: object) -> None:
    with pytest.raises(DataError):
        make_row_encoder([parse_type(text)])([value])


def test_row_decoder_truncated_and_invalid() -> None:
    dec = make_row_decoder([parse_type("integer"), parse_type("varchar(5)")])
    with pytest.raises(ProtocolError):
        dec(b"\x00\x00\x00\x01\x05ab", 0)
    with pytest.raises(ProtocolError):
        dec(b"\x00\x00", 0)
    # framed correctly but no DECIMAL (a digit pair of 255): a value error
    with pytest.raises(DataError):
        make_row_decoder([parse_type("decimal(4,2)")])(b"\xc1\xff\x00", 0)
    with pytest.raises(ValueError):
        make_row_encoder([parse_type("integer")])([1, 2])


# ------------------------------------------------------------ parameter blocks

PARAM_VECTORS = [
    (None, "0000ffff0000"),
    (1, "000200000a0000000001"),
    (2**31, "0034000013000000000080000000"),
    (1.5, "0003000000003ff8000000000000"),
    ("abc", "0000000000000003616263" + "00"),
    (True, "0000000000000001740" + "0"),
    (Decimal("123.45"), "0005000006020004c201172d"),
    (dt.date(1900, 1, 1), "0007000000000000" + "0001"),
    (dt.datetime(2024, 5, 6, 7, 8, 9), "000a00000e0a0008c714180506070809"),
    (dt.time(12, 34, 56), "000a0000066a0004c30c2238"),
    (IntervalYM(18), "000e00000b020007ca00000000010600"),
]


@pytest.mark.parametrize(("value", "hexbytes"), PARAM_VECTORS)
def test_param_bytes(value: object, hexbytes: str) -> None:
    block = encode_param(value)
    assert block.hex() == hexbytes
    r = Reader(block)
    assert read_param(r) == ("t" if value is True else value)
    assert r.remaining() == 0


PARAM_VALUES = [
    None, 0, -1, 2**31 - 1, 2**31, -(2**63) + 1, 2**63 - 1, 1.5, -0.0, "", "abc", "é",
    Decimal("123.45"), Decimal("-123.45"), Decimal("0"), Decimal("0.00"), Decimal("1E+5"),
    Decimal("-0.001"), Decimal("9" * 32), Decimal("1.50"), Decimal("-" + "9" * 32),
    dt.date(2024, 2, 29), dt.date(1, 1, 1), dt.date(9999, 12, 31),
    dt.datetime(2024, 5, 6, 7, 8, 9), dt.datetime(2024, 5, 6, 7, 8, 9, 123450),
    dt.time(0, 0), dt.time(23, 59, 59, 999990),
    dt.timedelta(days=3, seconds=5, microseconds=120),
    -dt.timedelta(days=3, seconds=5, microseconds=120), dt.timedelta(0),
    dt.timedelta(days=999999999), IntervalYM(18), IntervalYM(-27), IntervalYM(0),
]


@pytest.mark.parametrize("value", PARAM_VALUES)
def test_param_round_trip(value: object) -> None:
    r = Reader(encode_param(value))
    assert read_param(r) == value
    assert r.remaining() == 0


def test_param_microseconds_keep_fraction5() -> None:
    r = Reader(encode_param(dt.datetime(2024, 1, 2, 3, 4, 5, 123456)))
    assert read_param(r) == dt.datetime(2024, 1, 2, 3, 4, 5, 123450)


def _jdbc_block(code: int, prec: int, data: bytes, *, ext: bool = False,
                indicator: int = 0) -> bytes:
    head = struct.pack("!h", code)
    if ext:
        head += b"\x00\x00" + struct.pack("!h", 7) + b"boolean\x00"
    head += struct.pack("!hh", indicator, prec)
    return head + data + (b"\x00" if indicator == 0 and len(data) & 1 else b"")


JDBC_BLOCKS = [
    # setBoolean on a BOOLEAN column: type 45, owner/name, [int len][1|0]
    (_jdbc_block(45, 1, b"\x00\x00\x00\x01\x01", ext=True), True),
    (_jdbc_block(45, 1, b"\x00\x00\x00\x01\x00", ext=True), False),
    (_jdbc_block(45, 0, b"", ext=True, indicator=-1), None),
    # setString on an LVARCHAR column: type 43, empty owner and name
    (b"\x00\x2b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03abc\x00", "abc"),
    # setShort, setLong without metadata (BIGINT), INT8 via column metadata
    (_jdbc_block(1, 0x0500, b"\xff\xfe"), -2),
    (_jdbc_block(52, 0x1300, struct.pack("!q", -5)), -5),
    (_jdbc_block(17, 0x1300, bytes.fromhex("ffffbe991a140000001c")), -123456789012),
    (_jdbc_block(18, 0x1300, bytes.fromhex("00010000002a00000000")), 42),
    (_jdbc_block(4, 0, struct.pack("!f", 0.5)), 0.5),
    (_jdbc_block(6, 0x0A00, struct.pack("!i", 9)), 9),
    (_jdbc_block(13, 20, b"\x00\x02hi"), "hi"),
    (_jdbc_block(16, 20, b"\x00\x01x"), "x"),
    (_jdbc_block(15, 4, b"\x00\x02ab"), "ab"),
    # setBigDecimal: precision short is the BigDecimal scale
    (_jdbc_block(5, 2, bytes.fromhex("0003c10132")), Decimal("1.50")),
    (_jdbc_block(8, 0x0402, bytes.fromhex("0003c10c22")), Decimal("12.34")),
    # setTimestamp: YEAR TO FRACTION(5), fraction's sixth digit zero
    (_jdbc_block(10, 0x130F, bytes.fromhex("000bc7141805060708090c2232")),
     dt.datetime(2024, 5, 6, 7, 8, 9, 123450)),
    # setTime: HOUR TO SECOND
    (_jdbc_block(10, 0x066A, bytes.fromhex("0004c30c2238")), dt.time(12, 34, 56)),
    (_jdbc_block(7, 0, struct.pack("!i", 45000)), dt.date(2023, 3, 16)),
    (_jdbc_block(2, 0, b"", indicator=-2), None),
]


@pytest.mark.parametrize(("block", "value"), JDBC_BLOCKS)
def test_read_param_jdbc_forms(block: bytes, value: object) -> None:
    r = Reader(block)
    assert read_param(r) == value
    assert r.remaining() == 0


def test_read_param_blob_descriptor() -> None:
    desc = bytearray(56)
    desc[16:20] = struct.pack("!i", 1234)
    r = Reader(struct.pack("!hhh", 11, 0, 0) + bytes(desc))
    assert read_param(r) == BlobParam(TypeCode.BYTE, 1234)


@pytest.mark.parametrize("value", [v for v in PARAM_VALUES if v is not None])
def test_read_param_truncated(value: object) -> None:
    block = encode_param(value)
    for cut in range(len(block)):
        with pytest.raises(Incomplete):
            read_param(Reader(block[:cut]))


@pytest.mark.parametrize("block", [
    struct.pack("!hhhhh", 99, 0, 0, 0, 0),                # unknown opaque type
    struct.pack("!hhh", 9, 0, 0),                          # NULL type has no value
    struct.pack("!hhh", 2, 5, 0) + b"\x00" * 4,            # bad indicator
    struct.pack("!hhhh", 10, 0, 0x0F0F, 2) + b"\xc7\x14",  # bad qualifier
    struct.pack("!hhhh", 5, 0, 0, 2) + b"\xc1\xff",        # digit pair > 99
    struct.pack("!hhhh", 0, 0, 0, -1),                     # negative length
])
def test_read_param_invalid(block: bytes) -> None:
    with pytest.raises(ProtocolError):
        read_param(Reader(block))


def test_encode_param_rejects() -> None:
    for bad in (2**63, object(), Decimal("1" * 33), Decimal("Infinity")):
        with pytest.raises(DataError):
            encode_param(bad)


def test_interval_ym_value() -> None:
    assert str(IntervalYM(18)) == "1-06" and str(IntervalYM(-27)) == "-2-03"
    assert (IntervalYM(-27).years, IntervalYM(-27).remainder_months) == (-2, -3)


# ------------------------------------------- cross-checks with informix-driver

def _their_columns(types: list[ColumnType]) -> list:
    return [ColumnInfo(name=f"c{i}", type_code=t.describe_code & 0xFF,
                       raw_type_code=t.describe_code, encoded_length=t.length,
                       extended_id=t.extended_id, extended_name=t.extended_name)
            for i, t in enumerate(types)]


def _their_decode(types: list[ColumnType], payload: bytes) -> tuple:
    """Decode with all three of informix-driver's row paths; they must agree."""
    cols = _their_columns(types)
    framed = struct.pack("!hi", 0, len(payload)) + payload + b"\x00" * (len(payload) & 1)
    readers = compile_column_readers(cols)
    slow = parse_tuple_payload(IfxStreamReader(io.BytesIO(framed)), cols)
    fast = parse_tuple_payload(IfxStreamReader(io.BytesIO(framed)), cols, readers=readers)
    generated = compile_row_decoder(readers, cols)(payload, 0, "iso-8859-1")
    assert slow == fast == generated
    return slow


def _comparable(t: ColumnType, value: object) -> object:
    """informix-driver strips CHAR padding and fills DATETIME's missing
    leading fields from year 1; compare only what both keep."""
    if isinstance(value, str):
        return value.rstrip()
    if t.code == TypeCode.DATETIME and 0 < t.start < 6 and isinstance(value, dt.date):
        return value.replace(year=4)
    return value


# informix-driver fills a missing DATETIME year with 1, so it cannot show
# MONTH TO DAY '02-29' at all; that case is left to our own round trip.
CROSS_ROW_CASES = [(t, v) for t, v in ALL_ROW_CASES
                   if v != dt.date(2000, 2, 29)]


@needs_ifx
@pytest.mark.parametrize(("text", "value"), CROSS_ROW_CASES)
def test_informix_driver_decodes_our_rows(text: str, value: object) -> None:
    t = parse_type(text)
    data = make_row_encoder([t])([value])
    (theirs,) = _their_decode([t], data)
    (ours,), _ = make_row_decoder([t])(data, 0)
    if isinstance(theirs, ifx_conv.IntervalYM):
        theirs = IntervalYM(theirs.months)
    assert _comparable(t, theirs) == _comparable(t, ours) == _comparable(t, value)


@needs_ifx
def test_informix_driver_decodes_wide_row() -> None:
    texts = ["smallint", "integer", "bigint", "int8", "serial8", "float", "smallfloat",
             "decimal(10,2)", "decimal(16)", "money", "char(5)", "nchar(3)",
             "varchar(9)", "nvarchar(4)", "lvarchar", "boolean", "date",
             "datetime year to fraction(5)", "datetime hour to second",
             "interval day(5) to fraction(3)", "interval year to month"]
    types = [parse_type(x) for x in texts]
    values = (1, 2, 3, -4, 5, 6.5, 7.25, Decimal("8.10"), Decimal("9.5"), Decimal("10.00"),
              "eleve", "twe", "thirteen", "14", "fifteen odd", True, dt.date(2016, 1, 17),
              dt.datetime(2018, 1, 1, 1, 1, 1, 10), dt.time(19, 0, 0),
              -dt.timedelta(days=20, milliseconds=5), IntervalYM(21))
    for row in (values, (None,) * len(types)):
        data = make_row_encoder(types)(row)
        theirs = tuple(IntervalYM(v.months) if isinstance(v, ifx_conv.IntervalYM) else v
                       for v in _their_decode(types, data))
        ours, end = make_row_decoder(types)(data, 0)
        assert end == len(data)
        assert tuple(_comparable(t, v) for t, v in zip(types, theirs)) == tuple(
            _comparable(t, v) for t, v in zip(types, ours)) == tuple(
            _comparable(t, v) for t, v in zip(types, row))


def _their_block(value: object) -> bytes:
    if value is None:
        return struct.pack("!hhh", 0, -1, 0)
    if isinstance(value, IntervalYM):
        value = ifx_conv.IntervalYM(value.months)
    code, prec, raw = ifx_conv.encode_param(value)
    return struct.pack("!hhh", code, 0, prec) + raw + b"\x00" * (len(raw) & 1)


# informix-driver cannot bind datetime.time at all: there is nothing of its
# to cross-check for that type (our own time binds are tested above).
_THEIR_PARAM_VALUES = [v for v in PARAM_VALUES if not isinstance(v, dt.time)]


@needs_ifx
@pytest.mark.parametrize("value", [*_THEIR_PARAM_VALUES, True, False,
                                   dt.datetime(2024, 5, 6, 7, 8, 9, 123456)])
def test_read_param_decodes_informix_driver(value: object) -> None:
    r = Reader(_their_block(value))
    got = read_param(r)
    assert r.remaining() == 0
    expected = {True: "t", False: "f"}.get(value, value) if isinstance(value, bool) else value
    assert got == expected


@needs_ifx
@pytest.mark.parametrize("value", [*_THEIR_PARAM_VALUES, True, False])
def test_encode_param_matches_informix_driver(value: object) -> None:
    assert encode_param(value) == _their_block(value)


# ------------------------------------- compiled row codecs vs the reference

from informix_stream import codecs as _codecs  # noqa: E402
from informix_stream.codec import codegen, rowdecode, rowencode, rowencode_ref  # noqa: E402

SHAPES = [
    ["integer", "varchar(64)", "integer", "float", "date"],
    ["smallint", "bigint", "smallfloat", "char(4)", "nchar(2)", "serial"],
    ["varchar(3)", "nvarchar(5)", "lvarchar(10)", "int8", "boolean", "char(2)", "varchar(4)"],
    ["decimal(5,2)", "varchar(10)", "datetime year to second", "interval year to month"],
    ["varchar(10)"], ["integer"], ["lvarchar", "boolean"],
]
ODD_VALUES = [None, 0, 1, -1, True, 1.5, -(2**31), -(2**15), -(2**63), 2**31, "7", "",
              "abcdefghijkl", "é", "\u20ac", float("nan"), Decimal("2.5"), dt.date(2020, 1, 2),
              dt.datetime(2020, 1, 2, 3, 4, 5), IntervalYM(3), b"x"]


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # the class is what must agree
        return type(exc)


@pytest.mark.parametrize("texts", SHAPES)
@pytest.mark.parametrize("as_tuple", [False, True])
def test_compiled_encoder_matches_cellwise(texts: list[str], as_tuple: bool) -> None:
    """Every value, odd or not, in every column gives the bytes or the error
    the cell-by-cell encoder gives."""
    types = [parse_type(t) for t in texts]
    make = _codecs.make_tuple_encoder if as_tuple else make_row_encoder
    reference = (rowencode_ref.cellwise_tuple_encoder if as_tuple
                 else rowencode_ref.cellwise_encoder)(
        types, "iso-8859-1")
    fast = make(types)
    base = [None] * len(types)
    for col in range(len(types)):
        for value in ODD_VALUES:
            row = [*base[:col], value, *base[col + 1:]]
            assert _outcome(fast, row) == _outcome(reference, row), (texts[col], value)
    for length in range(0, 12):  # both parities of the SQ_TUPLE pad, many structs
        row = ["x" * length if t.code in (TypeCode.VARCHAR, TypeCode.NVARCHAR, TypeCode.LVARCHAR,
                                          TypeCode.CHAR, TypeCode.NCHAR) else None for t in types]
        assert fast(row) == reference(row)


def test_encoder_struct_cache_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(codegen, "STRUCT_CACHE_SIZE", 3)
    types = [parse_type("lvarchar(100)"), parse_type("integer")]
    enc = rowencode._compiled_encoder.__wrapped__(tuple(types), "iso-8859-1", True)
    dec = make_row_decoder(types)
    for n in range(20):
        msg = enc(["y" * n, n])
        assert dec(msg, 8) == (("y" * n, n), 8 + 5 + n + 4)
        assert len(msg) % 2 == 0
    assert len(enc.__globals__["_p"]) <= 3


def test_dates_decode_without_a_cache() -> None:
    """DATE is date.fromordinal inlined (no value cache: it only wins on
    repeats); its range ends are values, NULL is None, beyond them DataError."""
    dec = make_row_decoder([parse_type("date")])
    for days in range(10):
        assert dec(struct.pack("!i", days), 0)[0] == (dt.date(1899, 12, 31) + dt.timedelta(days),)
    first, last = dt.date(1, 1, 1), dt.date(9999, 12, 31)
    epoch = dt.date(1899, 12, 31).toordinal()
    for day in (first, last):
        assert dec(struct.pack("!i", day.toordinal() - epoch), 0)[0] == (day,)
    assert dec(struct.pack("!i", -2**31), 0)[0] == (None,)
    for days in (first.toordinal() - epoch - 1, last.toordinal() - epoch + 1, 2**31 - 1):
        with pytest.raises(DataError, match="column 1"):
            dec(struct.pack("!i", days), 0)
    assert not hasattr(rowdecode, "_DATES")


def test_decoder_varchars_from_memoryview_and_offsets() -> None:
    types = [parse_type(t) for t in ("varchar(5)", "integer", "varchar(5)", "lvarchar", "char(2)")]
    for row in (("ab", 1, "", "lv", "cd"), (None, None, None, None, None), ("abcde", -5, "\x00", "", "")):
        data = make_row_encoder(types)(row)
        expected = tuple(v.ljust(2) if i == 4 and v is not None else v for i, v in enumerate(row))
        if row[2] == "\x00":  # a one-byte NUL text is VARCHAR's NULL
            expected = (*expected[:2], None, *expected[3:])
        for buf in (b"zz" + data, bytearray(b"zz" + data), memoryview(b"zz" + data)):
            assert make_row_decoder(types)(buf, 2) == (expected, 2 + len(data))


def test_decoder_truncated_varchar_struct() -> None:
    dec = make_row_decoder([parse_type("varchar(5)"), parse_type("integer")])
    assert dec(b"\x02ab\x00\x00\x00\x07", 0) == (("ab", 7), 7)
    for cut in range(7):
        with pytest.raises(ProtocolError):
            dec(b"\x02ab\x00\x00\x00\x07"[:cut], 0)
    with pytest.raises(DataError):  # not UTF-8: a value error, not a framing one
        make_row_decoder([parse_type("varchar(5)")], "utf-8")(b"\x01\xff", 0)


@pytest.mark.parametrize(("block", "value"), [
    (struct.pack("!hhhi", 6, 0, 0, -(2**31)), None),              # SERIAL NULL sentinel
    (struct.pack("!hhhh", 1, 0, 0, -(2**15)), None),              # SMALLINT NULL sentinel
    (struct.pack("!hhhq", 53, 0, 0, 9), 9),                       # BIGSERIAL
    (struct.pack("!hhhi", 0x102, 0, 0, 4), 4),                    # high bits in the type short
    (struct.pack("!hhh", 13, -2, 0), None),                       # column default
    (struct.pack("!hhh", 0x109, -1, 0), None),
    (struct.pack("!hhhi", 7, 0, 0, -(2**31)), None),              # DATE NULL
    (struct.pack("!hhhh", 15, 0, 0, 3) + "é!".encode("utf-8") + b"\x00", "é!"),
])
def test_read_param_fast_forms(block: bytes, value: object) -> None:
    for buf in (block, bytearray(block), memoryview(block)):
        r = Reader(buf)
        assert read_param(r, "utf-8") == value and r.remaining() == 0


def test_read_param_respects_reader_end_and_bad_values() -> None:
    block = encode_param(12345) + encode_param("abc")
    r = Reader(block, 0, 9)
    with pytest.raises(Incomplete):
        read_param(r)
    r = Reader(block, 10, len(block) - 1)
    with pytest.raises(Incomplete):
        read_param(r)
    with pytest.raises(ProtocolError):
        read_param(Reader(struct.pack("!hhhh", 0, 0, 0, 1) + b"\xff\x00"), "utf-8")
    with pytest.raises(ProtocolError):
        read_param(Reader(struct.pack("!hhhi", 7, 0, 0, 2**31 - 1)))
    mv = memoryview(encode_param("hello"))
    r = Reader(mv)
    assert read_param(r) == "hello" and r.remaining() == 0


def test_encode_param_exact_type_fast_path_keeps_forms() -> None:
    import enum

    class Color(enum.IntEnum):
        RED = 3

    class Text(str):
        pass

    assert encode_param(Color.RED) == encode_param(3)
    assert encode_param(Text("ab")) == encode_param("ab")
    assert encode_param(dt.datetime(2024, 1, 1)) != encode_param(dt.date(2024, 1, 1))
    assert encode_param(False) == encode_param("f")
    assert encode_param("ab", "utf-16-be") == bytes.fromhex("000000000000000400610062")
    with pytest.raises(DataError):
        encode_param("\u20ac")
    with pytest.raises(DataError):  # a struct.error once escaped from here
        encode_param("x" * 40000)


@pytest.mark.parametrize("text", ["-1.5E+100", "9.9E+124", "1E+100", "-12.50", "0.000"])
def test_read_param_keeps_large_and_scaled_decimals_exact(text):
    """Values up to DECIMAL's 1E+125 range decode (this once killed the emulator's
    session); a bound scale such as 12.50's survives."""
    value = Decimal(text)
    decoded = read_param(Reader(encode_param(value)))
    assert decoded == value
    if value and value.as_tuple().exponent < 0:
        assert decoded.as_tuple().exponent == value.as_tuple().exponent
