"""put_rows' generated converters against the reference path, differentially.

The reference is what the emulator does with an SQ_PUT row without them:
the row decoder, each column's writer (values.writer_for), the row image
encoder (values.image_maker).  For any bytes, the fast converter either
declines (None) or answers exactly what the reference answers; for rows a
client encodes from values that fit the columns it must answer (else the
fast path would be dead code and the benchmark a lie).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from informix_stream.codec.rowdecode import make_row_decoder
from informix_stream.codec.rowencode import make_row_encoder
from informix_stream.codec.typeinfo import parse_type
from informix_stream.emulator.put_rows import row_converter
from informix_stream.emulator.statements import ColumnDef
from informix_stream.emulator.values import image_maker, writer_for

SHAPES = {
    "sales": ["INTEGER", "VARCHAR(32)", "DECIMAL(12,2)", "DATETIME YEAR TO SECOND", "DATE",
              "VARCHAR(64)"],
    "narrow": ["INTEGER", "VARCHAR(64)", "INTEGER", "FLOAT", "DATE"],
    "wide_numbers": ["SMALLINT", "BIGINT", "SMALLFLOAT", "DECIMAL(20,4)", "MONEY(8,2)",
                     "DECIMAL(5,0)", "NVARCHAR(10)"],
}


def reference(types, codec):
    """bytes -> stored values + image, as the emulator's reference path does."""
    decode = make_row_decoder(types, codec)
    writers = [writer_for(t, codec) for t in types]
    image = image_maker([ColumnDef(f"c{k}", t) for k, t in enumerate(types)], codec)

    def convert(data: bytes) -> list:
        row, end = decode(data, 0, len(data))
        if end != len(data):
            raise ValueError("row does not end where its columns do")
        stored = [w(v) for w, v in zip(writers, row)]
        return stored + [image(stored)]
    return convert


def mutated(data: bytes, edits, grow: int) -> bytes:
    """``data`` with bytes overwritten (``(at, byte)``, ``at`` wrapped) and
    then ``grow`` zero bytes added, or ``-grow`` cut from the end: what the
    differential tests below feed a fast converter and its reference."""
    out = bytearray(data)
    for at, byte in edits:
        out[at % len(out)] = byte
    if grow > 0:
        out += bytes(grow)
    elif grow < 0:
        del out[grow:]
    return bytes(out)


def same(a: list, b: list) -> bool:
    """Equal values of equal types; floats by their bits (-0.0 is not 0.0)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if struct.pack("!d", x) != struct.pack("!d", y):
                return False
        elif x != y:
            return False
    return True


def value(ctype):
    """Values a column takes without rounding or cutting (and NULL)."""
    code = ctype.sql().split("(")[0].split(" ")[0]
    if code in ("INTEGER",):
        base = st.integers(-(2 ** 31) + 1, 2 ** 31 - 1)
    elif code == "SMALLINT":
        base = st.integers(-(2 ** 15) + 1, 2 ** 15 - 1)
    elif code == "BIGINT":
        base = st.integers(-(2 ** 63) + 1, 2 ** 63 - 1)
    elif code == "FLOAT":
        base = st.floats(allow_nan=False)
    elif code == "SMALLFLOAT":
        base = st.floats(width=32, allow_nan=False)
    elif code in ("VARCHAR", "NVARCHAR"):
        base = st.text(st.characters(min_codepoint=1, max_codepoint=0x2FFF),
                       max_size=ctype.length & 0xFF).filter(
            lambda s: len(s.encode("utf-8")) <= (ctype.length & 0xFF) and s != "\x00")
    elif code in ("DECIMAL", "MONEY"):
        p, s = ctype.precision, ctype.scale
        base = st.integers(-(10 ** p) + 1, 10 ** p - 1).map(lambda n: Decimal(n).scaleb(-s))
    elif code == "DATE":
        base = st.dates()
    elif code == "DATETIME":
        base = st.datetimes().map(lambda d: d.replace(microsecond=0))
    else:
        raise AssertionError(code)
    return st.none() | base


def rows_of(types):
    return st.tuples(*[value(t) for t in types])


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fast_path_answers_like_the_reference(shape):
    types = [parse_type(t) for t in SHAPES[shape]]
    fast, ref = row_converter(types, "utf-8"), reference(types, "utf-8")
    encode = make_row_encoder(types, "utf-8")
    assert fast is not None

    @settings(max_examples=300, deadline=None)
    @given(rows_of(types))
    def check(row):
        image = encode(row)
        got, want = fast(image), ref(image)
        assert got is not None, (row, image)
        assert same(got, want), (row, got, want)
    check()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fast_path_declines_or_agrees_on_any_bytes(shape):
    """Hostile or non-canonical bytes: a client's own encoding of any row,
    with bytes overwritten; the fast converter never answers differently."""
    types = [parse_type(t) for t in SHAPES[shape]]
    fast, ref = row_converter(types, "utf-8"), reference(types, "utf-8")
    encode = make_row_encoder(types, "utf-8")

    @settings(max_examples=400, deadline=None)
    @given(rows_of(types), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)),
                                    max_size=4), st.integers(-2, 2))
    def check(row, edits, grow):
        data = mutated(encode(row), edits, grow)
        got = fast(data)
        try:
            want = ref(data)
        except Exception:  # noqa: BLE001 - the reference refuses: fast must too
            assert got is None, (data.hex(), got)
            return
        assert got is None or same(got, want), (data.hex(), got, want)
    check()


@pytest.mark.parametrize("cell,expected", [
    # DECIMAL(12,2), 7 bytes (exponent + 6 pairs): 12.345 has a digit past the scale -> the reference rounds
    (bytes.fromhex("c10c2232000000"), None),
    # a leading zero pair (same value as c10c...): not the encoder's bytes
    (bytes.fromhex("c2000c1e000000"), None),
    # negative zero and a zero with an exponent: the encoder writes 0xC0 00..
    (bytes.fromhex("3f000000000000"), None),
    (bytes.fromhex("c1000000000000"), None),
    # 12.30 as the encoder writes it
    (bytes.fromhex("c10c1e00000000"), 12.3),
    # -12.30: pairs complemented from the last non-zero one (100 - 30, 99 - 12)
    (bytes.fromhex("3e574600000000"), -12.3),
    # NULL, and a NULL head with digits after it
    (bytes(7), "NULL"),
    (bytes.fromhex("00000000000001"), None),
])
def test_decimal_cells(cell, expected):
    types = [parse_type("DECIMAL(12,2)")]
    got = row_converter(types, "utf-8")(cell)
    if expected is None:
        assert got is None
    elif expected == "NULL":
        assert got[0] is None
    else:
        assert got[0] == expected
        assert same(got, reference(types, "utf-8")(cell))


@pytest.mark.parametrize("text", ["2021-02-29 00:00:00", "2020-01-01 24:00:00",
                                  "2020-13-01 00:00:00", "0000-01-01 00:00:00"])
def test_datetime_that_does_not_exist_is_declined(text):
    y, m, d, h, mi, s = (int(x) for x in text.replace("-", " ").replace(":", " ").split())
    cell = bytes([0xC7, y // 100, y % 100, m, d, h, mi, s])
    assert row_converter([parse_type("DATETIME YEAR TO SECOND")], "utf-8")(cell) is None


def test_types_without_a_fast_cell_have_no_converter():
    for text in ("CHAR(4)", "DATETIME YEAR TO FRACTION(3)", "INTERVAL DAY TO SECOND",
                 "DECIMAL(16)", "BOOLEAN", "LVARCHAR(100)", "INT8"):
        assert row_converter([parse_type("INTEGER"), parse_type(text)], "utf-8") is None, text


def test_a_float_nan_that_is_not_null_is_declined():
    types = [parse_type("FLOAT")]
    assert row_converter(types, "utf-8")(struct.pack("!d", math.nan)) is None
    assert row_converter(types, "utf-8")(b"\xff" * 8)[0] is None
