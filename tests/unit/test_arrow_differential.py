"""Differential tests: the columnar Arrow decoder against the reference (row
decoder -> Python values -> Arrow), on the codec harness's generated shapes
and values and on arbitrary or damaged bytes.  Both must give the same
batch (values, NULLs, types) or the same PEP 249 error class: DataError for
a value its bytes cannot be (or that the Arrow type cannot hold),
ProtocolError (an OperationalError) for rows that do not frame."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest

pytest.importorskip("numpy", reason="the arrow extra (numpy, pyarrow) is not installed")
pa = pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")

from codec_harness import shape_and_rows, shapes  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from informix_stream.arrow.columnar import decode_batch  # noqa: E402
from informix_stream.arrow.reference import reference_batch  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402
from informix_stream.errors import DataError, ProtocolError  # noqa: E402

_SETTINGS = settings(max_examples=200, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _names(types):
    return [f"c{k}" for k in range(len(types))]


def _outcome(decode, images, types):
    try:
        batch = decode(images, types, _names(types))
    except (DataError, ProtocolError) as exc:
        return ("error", type(exc).__name__)
    assert batch.num_rows == len(images)
    return ("ok", str(batch.schema),
            [[("NaN" if isinstance(v, float) and math.isnan(v) else (type(v).__name__, v))
              for v in col.to_pylist()] for col in batch.columns])


def _same(images, types):
    fast, ref = _outcome(decode_batch, images, types), _outcome(reference_batch, images, types)
    assert fast == ref
    return fast


@_SETTINGS
@given(shape_and_rows(max_rows=6))
def test_generated_rows_decode_alike(case):
    columns, rows = case
    encode = make_row_encoder(columns)
    images = [encode(stored) for stored, _ in rows]
    outcome = _same(images, columns)
    # the harness's values all fit their Arrow type, but a 9-digit INTERVAL
    # DAY in microseconds may not: then both paths refuse it alike
    assert outcome[0] == "ok" or any(c.code.name == "INTERVAL" for c in columns)


@_SETTINGS
@given(shape_and_rows(max_rows=4), st.data())
def test_damaged_rows_decode_alike(case, data):
    columns, rows = case
    encode = make_row_encoder(columns)
    images = [bytearray(encode(stored)) for stored, _ in rows]
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(images) - 1))
        image = images[i]
        action = data.draw(st.sampled_from(["flip", "cut", "extend"]))
        if action == "flip" and image:
            image[data.draw(st.integers(0, len(image) - 1))] = data.draw(st.integers(0, 255))
        elif action == "cut" and image:
            del image[data.draw(st.integers(0, len(image) - 1)):]
        else:
            image += data.draw(st.binary(min_size=1, max_size=4))
    _same([bytes(i) for i in images], columns)


@_SETTINGS
@given(shapes(max_columns=4), st.lists(st.binary(max_size=40), min_size=1, max_size=4))
def test_arbitrary_bytes_decode_alike(columns, images):
    _same(images, columns)


def _types(*specs):
    return [parse_type(s) for s in specs]


def test_sales_shape_with_nulls_and_negatives():
    types = _types("integer", "varchar(32)", "decimal(12,2)", "datetime year to second",
                   "date", "varchar(64)")
    encode = make_row_encoder(types)
    rows = [(i, f"SKU-{i}", Decimal(i) / 100 * (-1) ** i,
             dt.datetime(1, 1, 1) + dt.timedelta(days=i * 36500, seconds=i),
             dt.date(9999, 12, 31) - dt.timedelta(days=i), None if i % 10 == 0 else "n")
            for i in range(30)] + [(None,) * 6]
    batch = decode_batch([encode(r) for r in rows], types, _names(types))
    assert [tuple(d.values()) for d in batch.to_pylist()] == rows
    assert _same([encode(r) for r in rows], types)[0] == "ok"


def test_decimal_wider_than_its_column_is_a_data_error_naming_it():
    # A DECIMAL(5,2) cell holding 123456.00: the tuple path gives the Decimal,
    # but decimal128(5,2) cannot hold it -- never a wrapped value.
    wide = make_row_encoder(_types("decimal(10,2)"))([Decimal("123456.00")])
    types = _types("decimal(5,2)")
    image = wide[:len(wide)]
    # keep only the bytes a DECIMAL(5,2) cell has: head + 3 pairs -> 1234.56 would
    # fit, so build the image by hand: exponent 3 (base 100), pairs 12 34 56.
    image = bytes([0x80 | (3 + 64), 12, 34, 56])
    assert types[0].wire_width == 4
    for decode in (decode_batch, reference_batch):
        with pytest.raises(DataError, match=r"column 1 \(c0 DECIMAL\(5,2\)\)"):
            decode([image], types, ["c0"])


def test_int8_beyond_int64_is_a_data_error():
    types = _types("int8")
    image = b"\x00\x01" + b"\xff" * 8          # magnitude 2**64 - 1
    for decode in (decode_batch, reference_batch):
        with pytest.raises(DataError, match="c0"):
            decode([image], types, ["c0"])


def test_rows_that_do_not_frame_are_a_protocol_error():
    types = _types("integer", "varchar(10)")
    images = [b"\x00\x00\x00\x01\x02ab", b"\x00\x00\x00\x02\x05ab"]
    for decode in (decode_batch, reference_batch):
        with pytest.raises(ProtocolError):
            decode(images, types, ["a", "b"])


def test_without_pyarrow_the_error_names_the_extra(monkeypatch):
    import sys

    from informix_stream.arrow import _deps
    from informix_stream.errors import NotSupportedError
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(NotSupportedError, match=r"informix-stream\[arrow\]"):
        _deps.load()


_PACKED = ["decimal(12,2)", "decimal(18,0)", "decimal(17,17)", "money(9,3)", "decimal(5,5)",
           "datetime year to second", "datetime year to fraction(3)",
           "datetime year to fraction(5)", "datetime year to day", "datetime year to month",
           "datetime year to minute", "date", "int8", "smallfloat"]


@st.composite
def _near_valid_cells(draw):
    """Cells of the vectorised types: a valid value with a pair or the head
    changed to something near the valid range -- the cells a vectorised path
    is most tempted to take without checking."""
    ctype = parse_type(draw(st.sampled_from(_PACKED)))
    width = ctype.wire_width
    encode = make_row_encoder([ctype])
    images = []
    for _ in range(draw(st.integers(1, 6))):
        if ctype.code.name in ("DATE", "INT8", "SMALLFLOAT"):
            images.append(draw(st.binary(min_size=width, max_size=width)))
            continue
        if ctype.code.name == "DATETIME":
            value = draw(st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31)))
        else:
            digits = ctype.precision
            value = Decimal(draw(st.integers(-10 ** digits + 1, 10 ** digits - 1))).scaleb(
                -ctype.scale)
        cell = bytearray(encode([value]))
        for _ in range(draw(st.integers(0, 2))):
            at = draw(st.integers(0, width - 1))
            cell[at] = draw(st.integers(0, 101) | st.integers(0, 255)) if at else \
                (cell[0] + draw(st.sampled_from([1, -1, 0x7F]))) & 0xFF
        images.append(bytes(cell))
    return [ctype], images


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_near_valid_cells())
def test_near_valid_packed_cells_decode_alike(case):
    types, images = case
    _same(images, types)


def test_boolean_cells_of_every_form_decode_alike():
    # [null flag][int length][bytes]: JDBC's 1/0, informix-driver's 't'/'f',
    # a stray byte, an empty value, a flag that is neither 0 nor 1, NULL
    types = _types("boolean", "integer")
    images = [bytes([flag]) + len(body).to_bytes(4, "big") + body + (7).to_bytes(4, "big")
              for flag, body in [(0, b"\x01"), (0, b"\x00"), (0, b"t"), (0, b"T"), (0, b"f"),
                                 (0, b"\x02"), (0, b""), (2, b"\x01"), (1, b"\x00"),
                                 (0, b"\x01\x01")]]
    outcome = _same(images, types)
    assert outcome[0] == "ok"
    assert [v for _, v in outcome[2][0]] == [True, False, True, True, False, False, False,
                                             True, None, True]


@pytest.mark.parametrize("spec, values", [
    ("interval day(9) to second", [dt.timedelta(days=-5, seconds=7), dt.timedelta(0),
                                   dt.timedelta(days=999_999_999, seconds=86399),
                                   -dt.timedelta(days=999_999_998, seconds=86399), None]),
    ("interval day(9) to fraction(5)", [dt.timedelta(days=1, microseconds=10),
                                        -dt.timedelta(microseconds=990), None]),
    ("interval day(9) to fraction(5)", [dt.timedelta(days=999_999_999, microseconds=10)]),
    ("interval hour(3) to minute", [dt.timedelta(hours=999, minutes=59),
                                    -dt.timedelta(minutes=1), None]),
    ("interval minute(2) to fraction(3)", [dt.timedelta(minutes=5, milliseconds=250),
                                           -dt.timedelta(seconds=59, milliseconds=999)]),
    ("datetime hour to minute", [dt.time(0, 0), dt.time(23, 59), None]),
    ("datetime hour to fraction(5)", [dt.time(12, 30, 1, 123450), None]),
    ("datetime month to day", [dt.date(2000, 2, 29), dt.date(2000, 12, 31), None]),
    ("datetime day to hour", [dt.datetime(2000, 1, 31, 23), None]),
])
def test_partial_qualifiers_and_negative_intervals_decode_alike(spec, values):
    # every cell either decodes column-wise to the reference's value, or (a
    # DAY(9) interval in microseconds past int64) fails alike
    types = _types(spec)
    encode = make_row_encoder(types)
    _same([encode((v,)) for v in values], types)


# -- every packed width and qualifier column-wise (packed_columns.py) ----------------

from codec_harness import cells, packed_images, packed_types  # noqa: E402


@st.composite
def _packed_column(draw):
    """A DECIMAL/MONEY (any precision, floating too), DATETIME or INTERVAL
    column whose batch mixes valid values, NULLs and near-valid bytes, so
    the vectorised cells and the ones handed to the reference meet in one
    array."""
    ctype = draw(packed_types())
    encode = make_row_encoder([ctype])
    images = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 3)):
            stored, _ = draw(cells(ctype))
            images.append(encode((stored,)))
        else:
            images.append(draw(packed_images(ctype)))
    return [ctype], images


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_packed_column())
def test_every_packed_type_decodes_alike(case):
    types, images = case
    _same(images, types)


def _lowered(cell: bytes) -> bytes:
    """A positive base-100 cell as a server normalises it: leading zero
    pairs dropped and the exponent lowered by as many (scalars._walk_fields
    reads it back by shifting)."""
    head, pairs = cell[0], cell[1:]
    drop = len(pairs) - len(pairs.lstrip(b"\x00"))
    if head < 0x80 or not drop or drop == len(pairs):
        return cell
    return bytes([head - drop]) + pairs[drop:] + bytes(drop)


@pytest.mark.parametrize("spec, values", [
    ("interval day(9) to fraction(5)", [dt.timedelta(days=3, microseconds=10),
                                        dt.timedelta(seconds=5), -dt.timedelta(days=2)]),
    ("interval year(9) to month", [None]),
    ("datetime hour to second", [dt.time(0, 0, 7), dt.time(0, 12, 0)]),
])
def test_lowered_exponents_decode_alike(spec, values):
    from informix_stream.codecs import IntervalYM
    types = _types(spec)
    if values == [None]:
        values = [IntervalYM(5), IntervalYM(-30), IntervalYM(12 * 100_000_000 + 11)]
    encode = make_row_encoder(types)
    images = [_lowered(encode((v,))) for v in values]
    assert images != [encode((v,)) for v in values]
    outcome = _same(images, types)
    assert outcome[0] == "ok"


def test_wide_decimals_fill_both_decimal128_words():
    types = _types("decimal(32,10)", "decimal(32,0)", "money(20,2)")
    top = 10 ** 32 - 1
    rows = [(Decimal(f"{top}E-10"), Decimal(top), Decimal("-123456789012345678.99")),
            (Decimal(f"-{top}E-10"), Decimal(-top), Decimal("0.01")),
            (Decimal("-0.0000000001"), Decimal(10 ** 18), Decimal(-10 ** 17)),
            (None, Decimal(-(10 ** 18) + 1), None),
            (Decimal(0), Decimal(2 ** 64), Decimal("0.00"))]
    encode = make_row_encoder(types)
    images = [encode(r) for r in rows]
    batch = decode_batch(images, types, _names(types))
    assert [tuple(d.values()) for d in batch.to_pylist()] == rows
    assert _same(images, types)[0] == "ok"


def test_a_wide_decimal_past_its_precision_is_a_data_error():
    # DECIMAL(20,2) cell of its 10 pairs holding 20 integer digits
    types = _types("decimal(20,2)")
    image = bytes([0x80 | (10 + 64)] + [99] * 10)
    for decode in (decode_batch, reference_batch):
        with pytest.raises(DataError, match=r"column 1 \(c0 DECIMAL\(20,2\)\)"):
            decode([image], types, ["c0"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["decimal(16)", "decimal(32)", "decimal(5)", "decimal(1)"]),
       st.lists(st.none() | st.decimals(allow_nan=False, allow_infinity=False,
                                        min_value=Decimal("-1E100"), max_value=Decimal("1E100"))
                | st.builds(lambda n, e: Decimal(f"{n}E{e}"), st.integers(-10 ** 32, 10 ** 32),
                            st.integers(-60, 60)), min_size=1, max_size=8))
def test_floating_decimals_are_the_reference_float(spec, values):
    types = _types(spec)
    encode = make_row_encoder(types)
    images = []
    for v in values:
        try:
            images.append(encode((v,)))
        except DataError:
            continue               # out of DECIMAL's range: not a cell
    if images:
        _same(images, types)


def test_interval_year_to_month_is_month_day_nano():
    from informix_stream.codecs import IntervalYM
    types = _types("interval year(9) to month", "interval month(4) to month")
    rows = [(IntervalYM(14), IntervalYM(9999)), (IntervalYM(-25), IntervalYM(-1)),
            (None, None), (IntervalYM(0), IntervalYM(0))]
    encode = make_row_encoder(types)
    batch = decode_batch([encode(r) for r in rows], types, _names(types))
    assert batch.schema.field(0).type == pa.month_day_nano_interval()
    assert [None if v is None else v.months for v in batch.column(0).to_pylist()] == \
        [14, -25, None, 0]
    assert [None if v is None else v.months for v in batch.column(1).to_pylist()] == \
        [9999, -1, None, 0]
    assert _same([encode(r) for r in rows], types)[0] == "ok"


@pytest.mark.parametrize("encoding", ["iso-8859-1", "utf-8"])
def test_lvarchar_is_large_string_with_nulls(encoding):
    types = _types("lvarchar", "integer")
    rows = [("plain", 1), (None, 2), ("", 3), ("caf\u00e9 " + "x" * 300, 4), (None, None)]
    encode = make_row_encoder(types, encoding)
    images = [encode(r) for r in rows]
    batch = decode_batch(images, types, _names(types), encoding)
    assert batch.schema.field(0).type == pa.large_string()
    assert [tuple(d.values()) for d in batch.to_pylist()] == rows
    assert _outcome(lambda i, t, n: decode_batch(i, t, n, encoding), images, types) == \
        _outcome(lambda i, t, n: reference_batch(i, t, n, encoding), images, types)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.none() | st.text(st.characters(min_codepoint=1, max_codepoint=255),
                                    max_size=30), min_size=1, max_size=12),
       st.sampled_from(["iso-8859-1", "utf-8"]))
def test_variable_text_by_views_and_by_mask_decode_alike(texts, encoding):
    # Text is gathered by Arrow's take over the buffer read as texts and the
    # gaps between them; the numpy mask path is what a buffer past 32-bit
    # offsets takes.  Both against the reference.
    from unittest import mock

    from informix_stream.arrow import columnar
    types = _types("varchar(40)", "lvarchar", "integer")
    encode = make_row_encoder(types, encoding)
    images = [encode((t, t, k)) for k, t in enumerate(texts)]
    ref = _outcome(lambda i, t, n: reference_batch(i, t, n, encoding), images, types)
    assert _outcome(lambda i, t, n: decode_batch(i, t, n, encoding), images, types) == ref
    with mock.patch.object(columnar, "gather_ranges", lambda *a, **k: None):
        assert _outcome(lambda i, t, n: decode_batch(i, t, n, encoding), images, types) == ref


def test_no_rows_of_every_type_is_an_empty_batch():
    specs = ["smallint", "integer", "bigint", "int8", "smallfloat", "float", "date",
             "decimal(12,2)", "decimal(32,10)", "decimal(32,1)", "decimal(16)", "money(16,2)",
             "datetime year to second", "datetime hour to fraction(5)",
             "interval day(9) to fraction(5)", "interval year(9) to month", "boolean",
             "char(20)", "varchar(64)", "lvarchar"]
    types = _types(*specs)
    for decode in (decode_batch, reference_batch):
        batch = decode([], types, _names(types))
        assert batch.num_rows == 0 and batch.num_columns == len(specs)


@st.composite
def _boolean_rows(draw):
    """Rows of INTEGER and BOOLEAN columns whose BOOLEAN cells mostly have
    the usual length 1 (so the batch is framed as a matrix) but may have a
    length of 0 or 2 in any row, or a flag that is neither 0 nor 1 -- also
    two BOOLEANs of lengths 0 and 2 in one row, whose row is as long as a
    usual one."""
    specs = draw(st.lists(st.sampled_from(["boolean", "integer"]), min_size=1, max_size=4)
                 .filter(lambda s: "boolean" in s))
    odd = draw(st.booleans())
    images = []
    for _ in range(draw(st.integers(1, 8))):
        image = b""
        for spec in specs:
            if spec == "integer":
                image += draw(st.binary(min_size=4, max_size=4))
                continue
            size = draw(st.sampled_from([0, 1, 2])) if odd else 1
            image += bytes([draw(st.sampled_from([0, 0, 1, 2]))]) + size.to_bytes(4, "big") \
                + draw(st.binary(min_size=size, max_size=size))
        images.append(image)
    return _types(*specs), images


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boolean_rows())
def test_boolean_columns_framed_as_a_matrix_or_not_decode_alike(case):
    types, images = case
    _same(images, types)


def test_booleans_of_swapped_lengths_are_not_taken_as_a_matrix():
    # two BOOLEANs of lengths 0 and 2: the row has the usual 12 bytes, but
    # its cells are not where a matrix would read them
    types = _types("boolean", "boolean")
    usual = b"\x00\x00\x00\x00\x01t" * 2
    swapped = b"\x00\x00\x00\x00\x00" + b"\x00\x00\x00\x00\x02ft"
    assert len(swapped) == len(usual)
    outcome = _same([usual, swapped], types)
    assert outcome[0] == "ok"
    assert [[v for _, v in col] for col in outcome[2]] == [[True, False], [True, False]]


_EDGE_MAGNITUDES = [0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 63 + 1,
                    2 ** 64 - 1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([0, 1, -1, 2, -2, 0x7FFF, -0x8000]),
                          st.sampled_from(_EDGE_MAGNITUDES) | st.integers(0, 2 ** 64 - 1)),
                min_size=1, max_size=6))
def test_int8_cells_at_the_int64_limits_decode_alike(cells):
    # [sign short][low uint32][high uint32]: NULL (sign 0), signs other than
    # +-1, magnitudes either side of 2**63 (-2**63 alone fits when negative)
    images = [sign.to_bytes(2, "big", signed=True) + (mag & 0xFFFFFFFF).to_bytes(4, "big")
              + (mag >> 32).to_bytes(4, "big") for sign, mag in cells]
    _same(images, _types("int8"))


def test_int8_of_minus_two_to_the_63_is_int64_min():
    image = (-1).to_bytes(2, "big", signed=True) + bytes(4) + (1 << 31).to_bytes(4, "big")
    batch = decode_batch([image, bytes(10)], _types("int8"), ["c0"])
    assert batch.column(0).to_pylist() == [-(1 << 63), None]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([-0x80000000, -0x7FFFFFFF, -693595, -693594, -693593, 0,
                                 2958463, 2958464, 2958465, 0x7FFFFFFF])
                | st.integers(-0x80000000, 0x7FFFFFFF), min_size=1, max_size=6))
def test_date_cells_at_the_calendar_limits_decode_alike(days):
    # days since 1899-12-31: 0001-01-01 is -693594, 9999-12-31 is 2958464;
    # NULL is -2**31 and one past either end is the reference's DataError
    _same([d.to_bytes(4, "big", signed=True) for d in days], _types("date"))


@st.composite
def _datetime_cells_with_their_exponent(draw):
    """DATETIME columns whose every cell has the qualifier's exponent (the
    columns read through civil.pair_tables) and pairs anywhere in 0..255:
    hours and minutes either side of 23 and 59, months 0 and 13, day 0 and
    days past the month's end, February 29th of leap and common years,
    fractions over 99, NULLs."""
    from informix_stream.codec.scalars import temporal_exponent
    spec = draw(st.sampled_from([
        "datetime hour to minute", "datetime hour to second", "datetime hour to fraction(3)",
        "datetime hour to fraction(5)", "datetime year to day", "datetime year to minute",
        "datetime year to second", "datetime year to fraction(1)",
        "datetime year to fraction(5)"]))
    ctype = parse_type(spec)
    head = 0x80 | (temporal_exponent(ctype.length) + 64)
    near = st.sampled_from([0, 1, 2, 12, 13, 19, 20, 23, 24, 28, 29, 30, 31, 32, 59, 60, 99,
                            100]) | st.integers(0, 255)
    images = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 5)) == 0:
            images.append(bytes(ctype.wire_width))
        else:
            images.append(bytes([head] + draw(st.lists(near, min_size=ctype.wire_width - 1,
                                                       max_size=ctype.wire_width - 1))))
    return [ctype], images


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_datetime_cells_with_their_exponent())
def test_datetimes_read_by_pair_tables_decode_alike(case):
    types, images = case
    _same(images, types)


def test_datetime_february_29th_by_pair_tables():
    types = _types("datetime year to second")
    encode = make_row_encoder(types)
    leap = encode((dt.datetime(2000, 2, 29, 23, 59, 59),))
    common = bytes([leap[0], 19, 0]) + leap[3:]              # 1900-02-29: no such day
    assert _same([leap], types)[2] == [[("datetime", dt.datetime(2000, 2, 29, 23, 59, 59))]]
    assert _same([leap, common], types)[0] == "error"


@pytest.mark.parametrize("images, message", [
    # the VARCHAR's length runs past its row; the next row's bytes would frame
    ([b"\x00\x00\x00\x01\x09ab", b"\x00\x00\x00\x02\x02ab"], r"column 2: a value runs past"),
    # a row one byte longer than its cells
    ([b"\x00\x00\x00\x01\x02abX"], r"row image of 8 bytes decoded as 7"),
])
def test_variable_rows_that_do_not_frame_keep_the_checked_framings_message(images, message):
    # the unchecked framing declines them and the checked one names the column
    with pytest.raises(ProtocolError, match=message):
        decode_batch(images, _types("integer", "varchar(10)"), ["a", "b"])


def test_a_negative_lvarchar_length_is_the_checked_framings_error():
    image = b"\x00" + (-3).to_bytes(4, "big", signed=True) + b"abc"
    for decode in (decode_batch, reference_batch):
        with pytest.raises(ProtocolError):
            decode([image], _types("lvarchar"), ["a"])
    with pytest.raises(ProtocolError, match="opaque-type value runs past"):
        decode_batch([image], _types("lvarchar"), ["a"])


def test_fixed_cells_of_a_variable_shape_are_gathered_a_word_at_a_time():
    # cells of 7, 8, 11 and 2 bytes after a VARCHAR, so every cell starts at a
    # different offset; the last row's last word reads into the padding
    types = _types("varchar(20)", "decimal(12,2)", "datetime year to second",
                   "datetime year to fraction(5)", "smallint")
    encode = make_row_encoder(types)
    rows = [("x" * i, Decimal(i * 1001) / 100 * (-1) ** i,
             dt.datetime(2000 + i, 1 + i % 12, 1 + i, i, i, i),
             dt.datetime(1 + i, 12, 31, 23, 59, 59, 10 * i), i) for i in range(17)]
    images = [encode(r) for r in rows]
    batch = decode_batch(images, types, _names(types))
    assert [tuple(d.values()) for d in batch.to_pylist()] == rows
    assert _same(images, types)[0] == "ok"
