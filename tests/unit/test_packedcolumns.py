"""The column-at-a-time DECIMAL/MONEY and INTERVAL converters of the block
decoder (codec/packedcolumns.py) against the plain reference converter,
cell by cell: on columns of generated values (every precision, even
scales, 32 digits, negatives, zero, NULLs; every INTERVAL qualifier at its
limits) they answer, and answer the reference's values with their
exponents; on columns holding bent cells (any head, pairs over 99, a
negative zero, NULL heads with other pairs, digits below the scale, a
negative INTERVAL, days past timedelta's range) they answer the
reference's values or None (the cell code's turn), and raise only where
the reference raises too.  rowblock's differential tests check the same
converters end to end through parse_reply."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pytest
from codec_harness import cells, non_null_cells, packed_images, packed_types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from informix_stream.codec.packedcolumns import packed_column
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.typeinfo import ColumnType, TypeCode
from informix_stream.codecs import IntervalYM, make_row_encoder, parse_type
from informix_stream.errors import DataError

_SETTINGS = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def scaled_types(draw) -> ColumnType:
    """DECIMAL(p,s)/MONEY(p,s) with an even scale, or floating DECIMAL(p):
    the column forms' types."""
    code = draw(st.sampled_from([TypeCode.DECIMAL, TypeCode.MONEY]))
    p = draw(st.integers(1, 32))
    if code == TypeCode.DECIMAL and draw(st.booleans()):
        return ColumnType(code, (p << 8) | 0xFF, draw(st.booleans()))
    s = draw(st.sampled_from([0, 2, 4, 10, 32]) | st.integers(0, p))
    s = min(s, p) & ~1
    return ColumnType(code, (p << 8) | s, draw(st.booleans()))


def exponent(image: bytes) -> int:
    """The base-100 exponent of a cell's head byte, either sign."""
    head = image[0]
    return (head & 0x7F) - 64 if head & 0x80 else (head ^ 0x7F) - 64


def handled(ctype: ColumnType, images: list[bytes]) -> bool:
    """Whether every cell is in the column form's range: any value of a
    scaled type; a floating DECIMAL from 1E-12 up to its pairs' integers."""
    return ctype.scale is not None or all(
        not image[0] or -5 <= exponent(image) <= ctype.wire_width - 1 for image in images)


def block(ctype: ColumnType, images: list[bytes], lead: int = 0) -> tuple[bytes, int, int]:
    """SQ_TUPLE messages of one ``ctype`` cell each (after ``lead`` bytes of
    another column): the block bytes, the cell's offset and the stride."""
    width = lead + ctype.wire_width
    pad = b"\x00" * (width & 1)
    data = b"".join(struct.pack("!hhI", 14, 0, width) + b"\x5a" * lead + image + pad
                    for image in images)
    return data, 8 + lead, 8 + width + (width & 1)


def reference(ctype: ColumnType, image: bytes) -> tuple[str, object]:
    try:
        return "value", reference_decoder([ctype])(image)[0][0]
    except DataError as exc:
        return "error", str(exc)


def same(got: object, want: object) -> bool:
    return type(got) is type(want) and repr(got) == repr(want)


def column(ctype: ColumnType, images: list[bytes], lead: int) -> list | None:
    data, at, stride = block(ctype, images, lead)
    convert = packed_column(ctype, at, stride)
    assert convert is not None
    got = convert(data, len(images))
    return None if got is None else list(got)


def agrees(ctype: ColumnType, got: list, images: list[bytes], values: list) -> None:
    """The column form's values are the reference converter's, and the
    values the generated cells were made from."""
    for value, image, (_, expected) in zip(got, images, values, strict=True):
        kind, want = reference(ctype, image)
        assert kind == "value" and same(value, want), (value, want)
        assert value == expected


def interval_types() -> st.SearchStrategy[ColumnType]:
    return packed_types().filter(lambda t: t.code == TypeCode.INTERVAL)


@_SETTINGS
@given(interval_types().flatmap(lambda t: st.tuples(
    st.just(t), st.lists(cells(t), min_size=1, max_size=70))), st.integers(0, 3))
def test_generated_interval_columns(case, lead):
    ctype, values = case
    encode = make_row_encoder([ctype])
    images = [encode((stored,)) for stored, _ in values]
    got = column(ctype, images, lead)
    negative = any(v is not None and (v.months < 0 if ctype.is_year_month else v < v * 0)
                   for v, _ in values)
    if not negative:
        assert got is not None, "positive values must not fall back to the cell code"
    if got is None:
        return
    agrees(ctype, got, images, values)


@_SETTINGS
@given(interval_types().flatmap(lambda t: st.tuples(
    st.just(t), st.lists(cells(t), min_size=1, max_size=40))), st.data())
def test_bent_interval_cells(case, data):
    ctype, values = case
    encode = make_row_encoder([ctype])
    images = [encode((stored,)) for stored, _ in values]
    pairs = ctype.wire_width - 1
    for _ in range(data.draw(st.integers(1, 4))):
        k = data.draw(st.integers(0, len(images) - 1))
        usual = images[k][:1] if images[k][0] else b"\xff"
        edges = st.sampled_from([b"\x00\x05" + bytes(pairs - 1),            # zero head, pair 5
                                 b"\x00" + bytes(pairs - 1) + b"\x07",      # NULL head, pair 7
                                 usual + b"\x63" * pairs,                    # every pair 99
                                 usual + bytes(pairs - 1) + b"\xc8",          # a pair of 200
                                 usual + b"\x64" + bytes(pairs - 1)])         # a pair of 100
        images[k] = data.draw(st.one_of(packed_images(ctype), edges))[:1 + pairs]
    data_, at, stride = block(ctype, images, data.draw(st.integers(0, 2)))
    got = packed_column(ctype, at, stride)(data_, len(images))
    outcomes = [reference(ctype, image) for image in images]
    if got is None:
        return
    try:
        got = list(got)
    except (ValueError, OverflowError):
        assert any(kind == "error" for kind, _ in outcomes), "raised where the reference did not"
        return
    for value, image, (kind, want) in zip(got, images, outcomes):
        assert kind == "value", f"{image.hex()}: the reference raises {want}, got {value!r}"
        assert same(value, want), (image.hex(), value, want)


@_SETTINGS
@given(scaled_types().flatmap(lambda t: st.tuples(
    st.just(t), st.lists(cells(t), min_size=1, max_size=70))), st.integers(0, 3))
def test_generated_columns_take_the_column_form(case, lead):
    ctype, values = case
    encode = make_row_encoder([ctype])
    images = [encode((stored,)) for stored, _ in values]
    got = column(ctype, images, lead)
    if handled(ctype, images):
        assert got is not None, "clean values must not fall back to the cell code"
    if got is None:
        return
    agrees(ctype, got, images, values)


@_SETTINGS
@given(scaled_types().flatmap(lambda t: st.tuples(
    st.just(t), st.lists(cells(t), min_size=1, max_size=40))), st.data())
def test_bent_cells_give_the_reference_values_or_the_cell_code(case, data):
    ctype, values = case
    encode = make_row_encoder([ctype])
    images = [encode((stored,)) for stored, _ in values]
    for _ in range(data.draw(st.integers(1, 4))):
        k = data.draw(st.integers(0, len(images) - 1))
        images[k] = data.draw(st.one_of(packed_images(ctype), _edge_cells(ctype)))
    got = column(ctype, images, data.draw(st.integers(0, 2)))
    if got is None:
        return
    for value, image in zip(got, images):
        kind, want = reference(ctype, image)
        assert kind == "value", f"{image.hex()}: the reference raises {want}, got {value!r}"
        assert same(value, want), (image.hex(), value, want)


def _edge_cells(ctype: ColumnType) -> st.SearchStrategy[bytes]:
    """Cells the column form must notice: a negative zero, a NULL head with
    pairs after a zero first pair, a zero head before a non-zero pair, a
    complemented pair of 100, a digit just below the scale."""
    pairs = ctype.wire_width - 1
    zeros = bytes(pairs + 2)                    # cut to the cell's width below
    unit = 0x80 | (64 + 1)                      # exponent 1: 1 <= value < 100
    rows = [bytes([0x7F ^ (64 + 1)]) + zeros,                  # negative zero
            bytes([0]) + bytes(pairs - 1) + b"\x07",          # NULL head, a pair after
            bytes([0, 5]) + zeros,                            # zero head, pair 5
            bytes([0x7F ^ (64 + 1), 5, 100]) + zeros,          # complemented 100
            bytes([unit]) + bytes(pairs - 1) + b"\x01",       # lowest digit set
            bytes([0x7F ^ (64 + 1), 200]) + zeros,             # 200 ^ 0xFF looks like 55
            bytes([unit, 0xF0]) + zeros]                       # a pair like a guard's role
    return st.sampled_from([r[:1 + pairs] for r in rows if len(r) >= 1 + pairs])


@pytest.mark.parametrize("ddl, values", [
    ("decimal(16)", ["0", "-0", "1200", "-1200.5", "0.000000000001", "12345678901234.56", None,
                     "99999999999999999", "1E+10", "-0.00125"]),
    ("decimal(32)", ["1" * 32, "-0." + "1" * 32, "1.5", None, "100"]),
    ("decimal(12,2)", ["0.00", "-0.01", "9999999999.99", "-9999999999.99", None, "0.50"]),
    ("money(16,2)", ["12.34", None, None, "-5.00", "100.00"]),
    ("decimal(32,10)", ["-1234567890123456789012.3456789012", "0.0000000001",
                        "1E-10", "-0.0000000001", None]),
    ("decimal(10,0)", ["0", "-1", "9999999999", "-100", None]),
    ("decimal(32,32)", ["0." + "9" * 32, "-0." + "0" * 31 + "1", "0E-32"]),
])
def test_edges_of_each_scale(ddl, values):
    ctype = parse_type(ddl)
    encode = make_row_encoder([ctype])
    stored = [None if v is None else Decimal(v) for v in values]
    images = [encode((v,)) for v in stored]
    got = column(ctype, images, 0)
    assert got is not None
    assert [repr(v) for v in got] == [repr(reference(ctype, i)[1]) for i in images]
    assert got == stored


@pytest.mark.parametrize("ddl, cell, why", [
    ("decimal(16)", bytes([0, 5]) + bytes(8), "a zero head before a pair is no NULL"),
    ("decimal(16)", bytes([0xC1, 1, 101]) + bytes(7), "a pair over 99"),
    ("decimal(16)", bytes([0xC0 + 10, 1]) + bytes(8), "a positive exponent of ten"),
    ("decimal(16)", bytes([0xC0 - 7, 1]) + bytes(8), "below the leading zero pairs"),
    ("decimal(16)", bytes([0xC0 - 6, 1]) + bytes(8), "the point before the leading zeros"),
    ("decimal(12,2)", bytes([0x7F ^ 65]) + bytes(6), "a negative zero carries into its guard byte"),
    ("decimal(12,2)", bytes([0xC1, 1, 0, 0, 0, 0, 101]), "a pair over 99"),
    ("decimal(12,2)", bytes([0x7F ^ 65, 200, 0, 0, 0, 0, 0]), "a pair over 99 in a negative cell"),
    ("decimal(12,2)", bytes([0xC1, 0xF0, 0, 0, 0, 0, 0]), "a pair reading as a separator"),
    ("decimal(12,2)", bytes([0xC6, 1, 2, 3, 4, 5, 6]), "a digit below the scale"),
    ("decimal(12,2)", bytes([0, 5, 0, 0, 0, 0, 0]), "a zero head before a non-zero pair is no NULL"),
    ("decimal(12,2)", bytes([0xC7, 1, 2, 3, 4, 5, 6]), "an exponent past the cell's pairs"),
])
def test_cells_the_column_form_leaves_to_the_cell_code(ddl, cell, why):
    ctype = parse_type(ddl)
    encode = make_row_encoder([ctype])
    images = [encode((Decimal("1.25"),)), cell, encode((None,))]
    assert column(ctype, images, 1) is None, why


@pytest.mark.parametrize("ddl", ["decimal(12,3)", "money(9,1)",
                                 "datetime year to second"])
def test_other_packed_types_keep_the_cell_code(ddl):
    assert packed_column(parse_type(ddl), 8, 20) is None


@pytest.mark.parametrize("ddl, lead", [("interval day(9) to second", [43, 0, 0, 0, 0]),
                                       ("interval hour(9) to second", [99, 99, 99, 99, 99]),
                                       ("interval year(9) to month", [99, 99, 99, 99, 99])])
def test_leading_fields_past_their_digits_are_not_wrapped(ddl, lead):
    """A leading field's pairs may spell more than its digits (4,300,000,000
    days, which is 5,032,704 modulo 2**32): the value is the reference's
    (an error for timedelta, the months for IntervalYM), never a wrapped
    one, and the neighbours keep theirs."""
    ctype = parse_type(ddl)
    encode = make_row_encoder([ctype])
    good = encode((IntervalYM(7) if ctype.is_year_month else dt.timedelta(days=3),))
    bent = good[:1] + bytes(lead) + good[1 + len(lead):]
    images = [good, bent, good]
    data, at, stride = block(ctype, images)
    got = packed_column(ctype, at, stride)(data, 3)
    outcomes = [reference(ctype, image) for image in images]
    try:
        got = None if got is None else list(got)
    except OverflowError:
        assert outcomes[1][0] == "error"
        return
    if got is not None:
        assert [repr(v) for v in got] == [repr(v) for _, v in outcomes]


def test_floating_columns_longer_than_a_part():
    """Floating DECIMAL converts 2,048 rows at a time: a column of several
    parts reads as the reference, and a bent cell in a later part still
    hands the whole column to the cell code."""
    ctype = parse_type("decimal(16)")
    encode = make_row_encoder([ctype])
    stored = [None if i % 7 == 0 else Decimal(0) if i % 11 == 0
              else Decimal(f"{i}.{i % 97}E{i % 13 - 6}") * (-1 if i & 1 else 1)
              for i in range(5000)]
    images = [encode((v,)) for v in stored]
    got = column(ctype, images, 1)
    assert got is not None
    assert [repr(v) for v in got] == [repr(reference(ctype, i)[1]) for i in images]
    images[4500] = bytes([0, 5]) + bytes(ctype.wire_width - 2)
    assert column(ctype, images, 1) is None


def test_a_converter_losing_a_row_hands_the_block_to_the_per_row_decoder(monkeypatch):
    """zip() stops at its shortest column: a column converter giving one
    value too few must cost the block its fast path, never a row."""
    from informix_stream.codec import rowblock, rowdecode
    from informix_stream.messages import Reply, parse_reply

    monkeypatch.setattr(rowblock, "packed_column",
                        lambda ctype, at, stride: lambda data, n: [Decimal(7)] * (n - 1))
    rowdecode._compiled_decoder.cache_clear()
    try:
        ctype = parse_type("decimal(12,2)")
        decode = rowdecode.make_row_decoder([ctype])
        assert hasattr(decode, "bulk")
        stored = [Decimal(i).scaleb(-2) for i in range(40)]
        encode = make_row_encoder([ctype])
        data, _, _ = block(ctype, [encode((v,)) for v in stored])
        reply = Reply()
        parse_reply(bytearray(data), 0, reply, decode, 1 << 20)
        assert [row[0] for row in reply.rows] == stored
    finally:
        monkeypatch.undo()
        rowdecode._compiled_decoder.cache_clear()


# ------------------------------------------------ NULL patterns and trimmed fractions

_NULL_PATTERN_TYPES = ["decimal(16)", "decimal(32)", "decimal(5)", "decimal(12,2)",
                       "interval day(9) to second", "interval year to month",
                       "interval day(2) to fraction(5)", "interval day(9) to fraction(5)",
                       "interval hour to minute", "interval minute(9) to second"]


@_SETTINGS
@given(st.sampled_from(_NULL_PATTERN_TYPES).flatmap(lambda ddl: st.tuples(
    st.just(parse_type(ddl)),
    st.sampled_from(["none", "heavy", "all", "first", "last", "first and last"]),
    st.lists(non_null_cells(parse_type(ddl)), min_size=1, max_size=60))),
    st.integers(0, 3))
def test_null_patterns_read_as_the_reference(case, lead):
    """Columns with no NULL, mostly NULLs, only NULLs, a NULL as the first
    or last row: the column form answers (these are all clean cells) and
    answers the reference's values, None at every NULL."""
    ctype, pattern, values = case
    n = len(values)
    null_rows = {"none": set(), "heavy": set(range(0, n, 3)) | set(range(1, n, 3)),
                 "all": set(range(n)), "first": {0}, "last": {n - 1},
                 "first and last": {0, n - 1}}[pattern]
    values = [(None, None) if i in null_rows else v for i, v in enumerate(values)]
    encode = make_row_encoder([ctype])
    images = [encode((stored,)) for stored, _ in values]
    got = column(ctype, images, lead)
    negative = any(v is not None and (v.months < 0 if ctype.is_year_month else v < v * 0)
                   for v, _ in values) if ctype.code == TypeCode.INTERVAL else False
    if handled(ctype, images) and not negative:
        assert got is not None, "clean values must not fall back to the cell code"
    if got is None:
        return
    agrees(ctype, got, images, values)
    assert [i for i, v in enumerate(got) if v is None] == sorted(null_rows)


@pytest.mark.parametrize("ddl", ["decimal(16)", "decimal(12,2)", "interval day(9) to second",
                                 "interval year to month"])
@pytest.mark.parametrize("where", [0, 1, -1])
def test_bent_null_cells_read_as_the_reference_or_the_cell_code(ddl, where):
    """A NULL head with non-zero pairs after it, as the first, a middle or
    the last row among NULLs and values: the reference's answer is the
    contract (None or its error); the column form gives it or hands the
    column to the cell code."""
    ctype = parse_type(ddl)
    encode = make_row_encoder([ctype])
    value = (IntervalYM(7) if ctype.is_year_month else dt.timedelta(days=3, seconds=5)
             ) if ctype.code == TypeCode.INTERVAL else Decimal("12.5")
    pairs = ctype.wire_width - 1
    for bent in (b"\x00" + bytes(pairs - 1) + b"\x07", b"\x00\x00\x63" + bytes(pairs - 2),
                 b"\x00" + b"\x63" * pairs):
        images = [encode((value,)), encode((None,)), encode((value,)), encode((None,))]
        images.insert(len(images) if where == -1 else where * 2, bent[:1 + pairs])
        data, at, stride = block(ctype, images, 1)
        got = packed_column(ctype, at, stride)(data, len(images))
        if got is None:
            continue
        outcomes = [reference(ctype, image) for image in images]
        try:
            got = list(got)
        except (ValueError, OverflowError):
            assert any(kind == "error" for kind, _ in outcomes)
            continue
        for v, (kind, want) in zip(got, outcomes, strict=True):
            assert kind == "value" and same(v, want), (bent.hex(), v, want)


@pytest.mark.parametrize("text", ["12.5", "1200", "0.004", "10.05", "100.10", "0.0000000001",
                                  "99999999999999.99", "1E+15", "-12.50", "-0.0040", "7",
                                  "1.000000000000001", "0.10"])
def test_floating_fractions_lose_only_their_trailing_zeros(text):
    """Trailing fraction zeros are blanks (a whole zero pair, or the units
    digit of the last non-zero pair), never the integer's zeros nor zeros
    between digits: the exponents are the reference's."""
    ctype = parse_type("decimal(16)")
    encode = make_row_encoder([ctype])
    images = [encode((Decimal(text),)), encode((None,)), encode((Decimal(text),))]
    got = column(ctype, images, 0)
    assert got is not None
    assert [repr(v) for v in got] == [repr(reference(ctype, i)[1]) for i in images]


# ------------------------------------------------ IntervalYM built without __init__

def test_interval_ym_many_rests_on_the_one_field_and_no_post_init():
    """interval_ym_many stores ``months`` as the dataclass's own __init__
    does; a second field or a __post_init__ (a check it would skip) must
    fail here before it builds a wrong object."""
    import dataclasses
    assert [f.name for f in dataclasses.fields(IntervalYM)] == ["months"]
    assert not hasattr(IntervalYM, "__post_init__")
    assert IntervalYM.__new__ is object.__new__


@_SETTINGS
@given(st.lists(st.integers(-(1 << 40), 1 << 40), max_size=40))
def test_interval_ym_many_builds_the_constructors_objects(months):
    """The same public objects as ``IntervalYM(m)``: type, fields, equality,
    hash, repr, str, pickle and copy round trips, still frozen."""
    import copy
    import dataclasses
    import pickle

    from informix_stream.codec.scalars import interval_ym_many
    built = interval_ym_many(iter(months), len(months))
    want = [IntervalYM(m) for m in months]
    assert built == want
    for got, ref in zip(built, want, strict=True):
        assert type(got) is IntervalYM and vars(got) == vars(ref)
        assert (hash(got), repr(got), str(got)) == (hash(ref), repr(ref), str(ref))
        assert pickle.loads(pickle.dumps(got)) == ref and copy.deepcopy(got) == ref
        assert pickle.dumps(got) == pickle.dumps(ref)
        with pytest.raises(dataclasses.FrozenInstanceError):
            got.months = 0
