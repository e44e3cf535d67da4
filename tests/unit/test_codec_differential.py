"""Differential tests: the generated row codecs against their plain
references, on hypothesis-generated shapes, values and arbitrary bytes.

* every generated row encodes to the same bytes by the generated and the
  reference encoder, and decodes -- by the generated and the reference
  decoder alike -- to the values stored, ending exactly where its image ends
  (bytes after it are never read into it);
* arbitrary bytes, and valid images cut, extended or with bytes flipped,
  give both decoders the same values and end, or the same PEP 249 error,
  never another exception and never an end past the buffer;
* arbitrary values give both encoders the same bytes or the same error.

The strategies live in codec_harness.py for the decoders still to come.
"""

from __future__ import annotations

import datetime as dt
from decimal import Context, Decimal

import pytest
from codec_harness import (comparable, decode_outcome, packed_images, packed_types, same_values,
                           shape_and_rows, shapes)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from informix_stream.codec import rowdecode
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.rowencode_ref import cellwise_encoder, cellwise_tuple_encoder
from informix_stream.codecs import (IntervalYM, make_row_decoder, make_row_encoder,
                                    make_tuple_encoder, parse_type)
from informix_stream.errors import DataError, ProtocolError

# Bounded: a few seconds for the whole file on the shared two-core machine.
_SETTINGS = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _decoders(columns):
    return make_row_decoder(columns), reference_decoder(columns)


@_SETTINGS
@given(shape_and_rows(), st.binary(max_size=3), st.binary(max_size=3))
def test_rows_round_trip_through_both_codecs(shape_rows, before, after) -> None:
    columns, rows = shape_rows
    fast_enc, ref_enc = make_row_encoder(columns), cellwise_encoder(columns, "iso-8859-1")
    fast_dec, ref_dec = _decoders(columns)
    for stored, expected in rows:
        image = ref_enc(stored)
        assert fast_enc(stored) == image
        buf = before + image + after
        for decode in (fast_dec, ref_dec):
            row, end = decode(buf, len(before))
            assert end == len(before) + len(image), "the row must end where its image ends"
            assert same_values(row, expected, columns), (row, expected)
        assert comparable(fast_dec(buf, len(before))[0]) == comparable(ref_dec(buf, len(before))[0])


@_SETTINGS
@given(shape_and_rows(max_rows=2))
def test_tuple_messages_match_the_reference(shape_rows) -> None:
    columns, rows = shape_rows
    fast, ref = make_tuple_encoder(columns), cellwise_tuple_encoder(columns, "iso-8859-1")
    for stored, _ in rows:
        message = ref(stored)
        assert fast(stored) == message and len(message) % 2 == 0


def _mutations(image: bytes):
    """Strategies of byte buffers near a valid image."""
    flips = st.lists(st.tuples(st.integers(0, max(len(image) - 1, 0)), st.integers(0, 255)),
                     max_size=4)

    def flip(changes):
        buf = bytearray(image)
        for at, byte in changes:
            if at < len(buf):
                buf[at] = byte
        return bytes(buf)
    return st.one_of(
        flips.map(flip),
        st.integers(0, len(image)).map(lambda n: image[:n]),
        st.binary(min_size=1, max_size=8).map(lambda extra: image + extra),
        st.binary(max_size=80))


@_SETTINGS
@given(st.data(), shape_and_rows(max_rows=1))
def test_any_bytes_decode_the_same_or_fail_the_same(data, shape_rows) -> None:
    columns, rows = shape_rows
    image = cellwise_encoder(columns, "iso-8859-1")(rows[0][0])
    buf = data.draw(_mutations(image), label="buf")
    start = data.draw(st.integers(0, 2), label="start")
    stop = data.draw(st.none() | st.integers(start, len(buf) + 2), label="stop")
    encoding = data.draw(st.sampled_from(["iso-8859-1", "utf-8"]), label="encoding")
    fast, ref = make_row_decoder(columns, encoding), reference_decoder(columns, encoding)
    expected = decode_outcome(ref, buf, start, stop)
    for form in (buf, bytearray(buf), memoryview(buf)):
        assert decode_outcome(fast, form, start, stop) == expected
    if stop is not None and expected[0] == "error" and expected[1] is DataError:
        assert decode_outcome(ref, buf, start)[0] == "error"  # framing ended at stop


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), packed_types())
def test_base100_cells_of_any_digits_decode_as_the_reference(data, ctype) -> None:
    """The fast DECIMAL/MONEY/DATETIME/INTERVAL code against the reference
    on one cell of near-valid bytes: negatives, pairs of 100 (valid as a
    complemented last digit), exponents off the qualifier's, NULL heads."""
    buf = data.draw(packed_images(ctype), label="cell")
    fast, ref = _decoders([ctype])
    expected = decode_outcome(ref, buf, 0, len(buf))
    assert decode_outcome(fast, buf, 0, len(buf)) == expected
    assert decode_outcome(fast, b"x" + buf, 1) == decode_outcome(ref, b"x" + buf, 1)


@_SETTINGS
@given(shape_and_rows())
def test_valid_rows_decode_without_the_reference(shape_rows) -> None:
    """The generated decoder hands a row to the reference only for bytes it
    cannot vouch for; every value the encoder writes it decodes itself (or
    it would be exact but as slow as the reference)."""
    columns, rows = shape_rows
    fast = make_row_decoder(columns)
    encode = cellwise_encoder(columns, "iso-8859-1")
    before = rowdecode.slow_rows
    for stored, expected in rows:
        row, _ = fast(encode(stored), 0)
        assert same_values(row, expected, columns)
    assert rowdecode.slow_rows == before


@pytest.mark.parametrize(("text", "cell", "expected"), [
    # 50E-6 at scale 3: once read as 0.005 (a cut longer than the digits
    # wrapped to a negative index); 0.00005 has no DECIMAL(5,3) value
    ("decimal(5,3)", "c0000032", DataError),
    ("decimal(5,3)", "c0003200", Decimal("0.005")),
    # -0.05 as written (3f5f00), and with its last non-zero pair stored as
    # 100, which the complement turns into 0 as well
    ("decimal(4,2)", "3f5f00", Decimal("-0.05")),
    ("decimal(4,2)", "3f5e64", Decimal("-0.05")),
    ("decimal(4,2)", "3f0000", Decimal("-0.00")),
    ("decimal(6)", "c101000000", Decimal("1")),
    ("decimal(6)", "c000000000", Decimal("0E-8")),
    ("decimal(6)", "c201000000", Decimal("100")),
    ("decimal(6)", "c0011e0000", Decimal("0.013")),
    ("money(4,2)", "c06500", DataError),  # a digit pair of 101
    # DATETIME HOUR TO MINUTE 00:30 with its leading zero pair dropped and the
    # exponent lowered (a normalised dec_t): the same value as c3001e
    ("datetime hour to minute", "c21e00", dt.time(0, 30)),
    ("datetime hour to minute", "c3001e", dt.time(0, 30)),
    ("datetime year to second", "c7000101010000ff", DataError),
    ("datetime year to day", "c763630c1f", dt.date(9999, 12, 31)),
    ("datetime year to day", "c700010101", dt.date(1, 1, 1)),
    ("datetime year to day", "c700010d01", DataError),  # month 13
    ("interval day(3) to hour", "c500010c", dt.timedelta(days=1, hours=12)),
    ("interval day(3) to hour", "3a636263", -dt.timedelta(days=1, hours=1)),
    ("interval month(1) to month", "c564", DataError),  # once IntervalYM(None)
])
def test_base100_named_cases(text, cell, expected) -> None:
    columns = [parse_type(text)]
    raw = bytes.fromhex(cell)
    for decode in _decoders(columns):
        if expected is DataError:
            with pytest.raises(DataError, match="column 1"):
                decode(raw, 0, len(raw))
        else:
            assert comparable(decode(raw, 0, len(raw))[0]) == comparable((expected,))


def test_a_value_error_in_a_row_that_does_not_fill_its_tuple_is_a_protocol_error() -> None:
    """Told where the tuple ends, a decoder whose columns framed elsewhere
    reports the mismatch (the stream's problem), not the bad value it met."""
    columns = [parse_type("decimal(4,2)")]
    bad = b"\xc1\xff\x00"  # a digit pair of 255
    for decode in _decoders(columns):
        with pytest.raises(DataError, match=r"column 1 \(DECIMAL\(4,2\)\)"):
            decode(bad + b"next", 0, 3)
        with pytest.raises(ProtocolError):
            decode(bad + b"next", 0, 5)
        with pytest.raises(DataError):
            decode(bad + b"next", 0)


_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12),
    st.binary(max_size=4), st.decimals(allow_nan=True), st.dates(), st.datetimes(), st.times(),
    st.timedeltas(), st.builds(IntervalYM, st.integers(-(10**12), 10**12)))


def _encode_outcome(encode, row):
    try:
        return encode(row)
    except DataError as exc:
        return DataError
    except ValueError as exc:  # only for a row of the wrong length, which we never make
        raise AssertionError(f"ValueError escaped: {exc}") from exc


@_SETTINGS
@given(st.data(), shapes(max_columns=5))
def test_any_values_encode_the_same_or_fail_with_data_error(data, columns) -> None:
    row = data.draw(st.lists(_ODD, min_size=len(columns), max_size=len(columns)), label="row")
    fast, ref = make_row_encoder(columns), cellwise_encoder(columns, "iso-8859-1")
    assert _encode_outcome(fast, row) == _encode_outcome(ref, row)


# ------------------------------------------------ named bugs, one test each

@pytest.mark.parametrize("text", ["char(1)", "char(6)", "nchar(3)"])
def test_null_char_is_none_and_empty_char_is_blanks(text) -> None:
    """Issue 9 item 9: a NULL CHAR read as '' is indistinguishable from an
    empty value; both decoders keep them apart (wire evidence for CHAR(6),
    informix-driver's converters: '' is six blanks, NULL a leading NUL)."""
    columns = [parse_type(text)]
    n = columns[0].length
    encode = make_row_encoder(columns)
    assert encode([None])[:1] == b"\x00"
    for decode in _decoders(columns):
        assert decode(encode([None]), 0) == ((None,), n)
        assert decode(b"\x00" * n, 0) == ((None,), n)
        assert decode(encode([""]), 0) == ((" " * n,), n)


@pytest.mark.parametrize(("digits", "micro", "kept"), [
    (5, 123456, 123450), (3, 123456, 123000), (1, 987654, 900000), (5, 10, 10), (2, 9999, 0)])
def test_datetime_fraction_survives_to_the_qualifiers_digits(digits, micro, kept) -> None:
    """Issue 9 item 9: DATETIME fractions dropped on insert.  A value with
    microseconds keeps the fraction digits its qualifier holds."""
    columns = [parse_type(f"datetime year to fraction({digits})")]
    value = dt.datetime(2024, 5, 6, 7, 8, 9, micro)
    image = make_row_encoder(columns)([value])
    for decode in _decoders(columns):
        assert decode(image, 0)[0] == (value.replace(microsecond=kept),)


def test_decoders_refuse_a_described_length_no_value_fits() -> None:
    from informix_stream.codecs import ColumnType, TypeCode, column_type_from_describe
    from informix_stream.errors import NotSupportedError
    for code, length in ((TypeCode.DECIMAL, 0), (TypeCode.DATETIME, 0x0FA0),
                         (TypeCode.INTERVAL, 0x0000), (TypeCode.CHAR, 0)):
        with pytest.raises(NotSupportedError):
            column_type_from_describe(int(code), 0, length)
        with pytest.raises(ValueError):
            make_row_decoder([ColumnType(code, length)])
        with pytest.raises(ValueError):
            reference_decoder([ColumnType(code, length)])


def test_decoders_agree_on_framing_before_values() -> None:
    """A row both cut short and holding a bad value is a framing error in
    both decoders, whichever column comes first."""
    columns = [parse_type("varchar(5)"), parse_type("integer")]
    buf = b"\x01\xff\x00\x00"  # a VARCHAR invalid in UTF-8, then an INTEGER cut short
    for decode in (make_row_decoder(columns, "utf-8"), reference_decoder(columns, "utf-8")):
        with pytest.raises(ProtocolError):
            decode(buf, 0)
        with pytest.raises(DataError):
            decode(buf + b"\x00\x07", 0)


def test_big_floating_decimal_row_round_trip() -> None:
    """A 17-digit DECIMAL with many trailing zeros is a floating DECIMAL value."""
    value = Decimal("4939368971576805600000000000000000000000000000")
    columns = [parse_type("decimal(32)")]
    image = make_row_encoder(columns)([value])
    for decode in _decoders(columns):
        assert decode(image, 0)[0] == (value,)


def test_smallfloat_signalling_nan_is_not_null() -> None:
    """Only all-ones bytes are SMALLFLOAT's NULL.  0xffbfffff is a NaN that
    turns into all ones on its way through a Python float, so a decoder
    that compares the unpacked value instead of the bytes calls it NULL."""
    columns = [parse_type("smallfloat")]
    for decode in _decoders(columns):
        (value,), end = decode(bytes.fromhex("ffbfffff"), 0)
        assert value is not None and value != value and end == 4
        assert decode(b"\xff" * 4, 0) == ((None,), 4)


# ------------------------------------------------ SQ_BIND parameter blocks

from informix_stream.codecs import encode_param, read_param  # noqa: E402
from informix_stream.framing import Incomplete, Reader  # noqa: E402

_DAY9 = dt.timedelta(days=10**9 - 1)


def _param_expected(value: object) -> object:
    """What the server reads back for a bound value: bool travels as 't'/'f',
    DATETIME keeps FRACTION(5), INTERVAL DAY(9) TO FRACTION(5) likewise."""
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, (dt.datetime, dt.time)):
        return value.replace(microsecond=value.microsecond // 10 * 10)
    if isinstance(value, dt.timedelta):
        sign = -1 if value < dt.timedelta(0) else 1
        whole = abs(value)
        return sign * (whole - dt.timedelta(microseconds=whole.microseconds % 10))
    return value


_BINDABLE = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63) + 1, 2**63 - 1),
    st.floats(allow_nan=False), st.text(st.characters(max_codepoint=255), max_size=40),
    st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
        lambda d: len(d.normalize(Context(prec=100)).as_tuple().digits) <= 32
        and -120 < d.adjusted() < 120),
    st.dates(), st.datetimes(), st.times(),
    st.timedeltas(min_value=-_DAY9, max_value=_DAY9),
    st.builds(IntervalYM, st.integers(-(10**9 - 1) * 12, (10**9 - 1) * 12)))


@_SETTINGS
@given(_BINDABLE)
def test_bound_values_read_back(value) -> None:
    block = encode_param(value)
    reader = Reader(block)
    got = read_param(reader)
    assert reader.remaining() == 0
    want = _param_expected(value)
    assert type(got) is type(want) and got == want


@_SETTINGS
@given(st.one_of(_ODD, st.text(max_size=40), st.integers(), st.decimals(),
                 st.integers(32760, 32775).map(lambda n: "x" * n)))
def test_encode_param_raises_only_data_error(value) -> None:
    try:
        encode_param(value)
    except DataError:
        pass


@_SETTINGS
@given(st.binary(max_size=40))
def test_read_param_on_any_bytes_is_a_value_or_a_protocol_error(buf) -> None:
    try:
        read_param(Reader(buf), "utf-8")
    except (Incomplete, ProtocolError):
        pass


@pytest.mark.parametrize("text", [
    "4939368971576805600000000000000000000000000000",  # issue 12 item 4
    "-4939368971576805600000000000000000000000000000",
    "1.000000000000000000000000000000000000000",         # 40 digits, 1 significant
    "123456789012345678901234567890120000000000",         # 32 significant digits
])
def test_decimal_with_many_trailing_zeros_binds(text) -> None:
    """Trailing zeros are not significant digits: such a value is a valid
    floating DECIMAL and binds (refused once as "more than 32 digits")."""
    value = Decimal(text)
    assert read_param(Reader(encode_param(value))) == value


def test_decimal_with_33_significant_digits_is_refused() -> None:
    with pytest.raises(DataError, match="32 significant digits"):
        encode_param(Decimal("1234567890123456789012345678901234"))


@pytest.mark.parametrize("value", ["x" * 40000, "\u20ac", Decimal("NaN"), Decimal("Infinity"),
                                   2**64, object(), b"bytes", Decimal("1E+200")])
def test_unbindable_values_raise_data_error(value) -> None:
    """Never a struct.error, UnicodeError or ValueError: a DataError, which
    the driver prefixes with the parameter's position."""
    with pytest.raises(DataError):
        encode_param(value)


def test_datetime_fraction_binds_to_fraction5() -> None:
    """Issue 9 item 9 on the bind side: microseconds travel as FRACTION(5)."""
    value = dt.datetime(2024, 5, 6, 7, 8, 9, 123456)
    assert read_param(Reader(encode_param(value))) == value.replace(microsecond=123450)
    t = dt.time(1, 2, 3, 999999)
    assert read_param(Reader(encode_param(t))) == t.replace(microsecond=999990)


def test_an_unknown_code_set_is_refused_when_the_decoder_is_built() -> None:
    """Not a LookupError in the middle of a fetch."""
    from informix_stream.errors import NotSupportedError
    for make in (make_row_decoder, reference_decoder):
        with pytest.raises(NotSupportedError, match="no-such-codeset"):
            make([parse_type("varchar(5)")], "no-such-codeset")


def test_an_interval_beyond_timedelta_is_a_data_error() -> None:
    """INTERVAL DAY(9) holds -999999999 days 23 hours; timedelta stops one
    day short of that on the negative side.  The value is refused plainly,
    never an OverflowError."""
    columns = [parse_type("interval day(9) to hour")]
    # -999999999 23: the positive c8 09 63 63 63 63 17, complemented
    image = bytes.fromhex("375a000000004d")
    for decode in _decoders(columns):
        with pytest.raises(DataError, match="column 1"):
            decode(image, 0)
    positive = make_row_encoder(columns)([dt.timedelta(days=999999999, hours=23)])
    for decode in _decoders(columns):
        assert decode(positive, 0)[0] == (dt.timedelta(days=999999999, hours=23),)


def test_a_bad_row_costs_the_row_not_the_buffer() -> None:
    """The client session skips a row whose value is bad and reads on; each
    such row must cost the row, not a copy of the whole receive buffer
    (which would make a reply of bad rows quadratic)."""
    import time
    columns = [parse_type("decimal(4,2)"), parse_type("lvarchar(10)")]
    row = b"\xc1\xff\x00" + b"\x00\x00\x00\x00\x02ab"  # a bad DECIMAL, then 'ab'
    decode = make_row_decoder(columns)

    def cost(tail: int) -> float:
        buf = bytearray(row * 200 + bytes(tail))
        best = float("inf")
        for _ in range(3):
            began = time.perf_counter()
            for i in range(0, 200 * len(row), len(row)):
                with pytest.raises(DataError):
                    decode(buf, i, i + len(row))
            best = min(best, time.perf_counter() - began)
        return best
    small, large = cost(0), cost(8 << 20)
    assert large < small * 3 + 0.01, (small, large)  # a copy per row: ~100x


def test_a_kept_decode_error_does_not_pin_the_receive_buffer() -> None:
    """The session keeps the first DataError of a reply and then trims its
    bytearray; a memoryview left alive in the error's traceback would make
    that trim raise BufferError."""
    columns = [parse_type("decimal(4,2)")]
    for decode in _decoders(columns):
        buf = bytearray(b"\xc1\xff\x00" + b"rest")
        try:
            decode(buf, 0, 3)
        except DataError as exc:
            kept = exc
        del buf[:3]  # BufferError if an export of buf were still alive
        assert kept is not None and bytes(buf) == b"rest"


# ------------------------------------------------ UTF-8 (issue 12 item 1)
# Any character but a NUL (a lone NUL is VARCHAR's NULL) and surrogates,
# weighted towards the multibyte ones: accented Latin, Greek, CJK, emoji.
_UTF8_TEXT = st.text(st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0xA0, max_codepoint=0x24F),
    st.characters(min_codepoint=0x370, max_codepoint=0x3FF),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)), max_size=30)
_UTF8_COLUMNS = st.lists(st.sampled_from(
    ["varchar(1)", "varchar(7)", "varchar(40)", "varchar(255)", "nvarchar(20)", "char(5)",
     "char(30)", "nchar(9)", "lvarchar(60)", "integer"]), min_size=1, max_size=5)


def _fits(text: str, ctype) -> str:
    """What a column of n bytes keeps of ``text``: whole characters only."""
    width = ctype.length & 0xFF if "VARCHAR" in ctype.sql() and "LVARCHAR" not in ctype.sql() \
        else ctype.length
    out, used = "", 0
    for ch in text:
        size = len(ch.encode("utf-8"))
        if used + size > width:
            break
        out, used = out + ch, used + size
    return out


@_SETTINGS
@given(st.data(), _UTF8_COLUMNS)
def test_utf8_text_round_trips_through_both_codecs(data, names) -> None:
    columns = [parse_type(n) for n in names]
    row = [data.draw(st.integers(-2**31 + 1, 2**31 - 1) if c.sql() == "INTEGER" else _UTF8_TEXT,
                     label=c.sql()) for c in columns]
    fast_enc, ref_enc = make_row_encoder(columns, "utf-8"), cellwise_encoder(columns, "utf-8")
    image = ref_enc(row)
    assert fast_enc(row) == image
    expected = []
    for value, ctype in zip(row, columns):
        if isinstance(value, int):
            expected.append(value)
            continue
        kept = _fits(value, ctype)
        if ctype.sql().startswith(("CHAR", "NCHAR")):
            kept += " " * (ctype.length - len(kept.encode("utf-8")))
        expected.append(kept)
    fast, ref = make_row_decoder(columns, "utf-8"), reference_decoder(columns, "utf-8")
    for decode in (fast, ref):
        assert decode(image, 0, len(image)) == (tuple(expected), len(image))


# -- fast DECIMAL/DATETIME cell encoders (codec.fastcells) --------------------

from informix_stream.codec.fastcells import fast_cell_encoder  # noqa: E402
from informix_stream.codec.rowencode_ref import CELL_ENCODERS  # noqa: E402
from informix_stream.codecs import ColumnType, TypeCode  # noqa: E402


def _cell_outcome(encode, value):
    # a cell encoder alone may raise TypeError/ValueError (the row encoders
    # turn those into DataError); fast and reference must raise alike
    try:
        return encode(value)
    except (DataError, TypeError, ValueError, ArithmeticError) as exc:
        return type(exc).__name__


@st.composite
def decimal_columns(draw):
    precision = draw(st.integers(1, 32))
    scale = draw(st.integers(0, precision))
    code = draw(st.sampled_from([TypeCode.DECIMAL, TypeCode.MONEY]))
    return ColumnType(code, (precision << 8) | scale)


@settings(max_examples=400, deadline=None)
@given(decimal_columns(), st.data())
def test_fast_decimal_cells_are_the_reference_cells(ctype, data) -> None:
    scale = ctype.scale
    at_scale = st.integers(-(10 ** 34), 10 ** 34).map(lambda u: Decimal(u).scaleb(-scale))
    value = data.draw(st.one_of(
        at_scale, st.decimals(allow_nan=True, allow_infinity=True, places=None),
        st.sampled_from([Decimal(0).scaleb(-scale), Decimal("-0").scaleb(-scale),
                         Decimal(10 ** ctype.precision - 1).scaleb(-scale),
                         Decimal(10 ** ctype.precision).scaleb(-scale), Decimal("5E+2"),
                         Decimal("1E-7"), 7, 2.5, "1.5"]),
        st.none()))
    slow = CELL_ENCODERS[ctype.code](ctype, "iso-8859-1")
    fast = fast_cell_encoder(ctype, slow)
    assert _cell_outcome(fast, value) == _cell_outcome(slow, value)


@st.composite
def datetime_columns(draw):
    start = draw(st.sampled_from([0, 2, 4, 6, 8, 10]))
    end = draw(st.integers(max(start, 10), 15))
    digits = (4 if start == 0 else 2) + (min(end, 10) - start) + (end - 10)
    return ColumnType(TypeCode.DATETIME, (digits << 8) | (start << 4) | end)


@settings(max_examples=400, deadline=None)
@given(datetime_columns(), st.one_of(
    st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59,
                                                                      999999)),
    st.dates(), st.times(), st.none(), st.just("2024-01-01 00:00:00")))
def test_fast_datetime_cells_are_the_reference_cells(ctype, value) -> None:
    slow = CELL_ENCODERS[ctype.code](ctype, "iso-8859-1")
    fast = fast_cell_encoder(ctype, slow)
    assert fast is not None
    assert _cell_outcome(fast, value) == _cell_outcome(slow, value)
