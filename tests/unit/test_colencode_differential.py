"""Differential tests: the column-wise batch encoder (codec/colencode.py)
against its reference, ``InsertCursor.item`` one row at a time.

For every batch of rows, each row the batch encoder makes an image of must
get exactly the reference's image; a row it declines goes to the reference
anyway (``InsertCursor.batch_items``), so the items -- images, bind blocks
and errors alike -- are the reference's.  Values are drawn both from the
clean forms the fast column paths take (which must then decline nothing)
and from the odd ones they must hand over: subclasses, bool for int, NaN
and infinities, too many digits or digits beyond the scale, zeros with odd
exponents, aware datetimes, texts too long or outside the code set, wrong
types; texts in UTF-8, GB18030 and cp1252, where bytes and not characters
decide what fits.  A row is declined exactly when the reference does not
put it either, and ``batch_items`` gives the reference's items and errors
(same type and text).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from informix_stream.codec import colencode
from informix_stream.codecs import parse_type
from informix_stream.errors import Error
from informix_stream.insert_cursor import InsertCursor, value_check

_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TYPES = ["smallint", "integer", "bigint", "serial", "float", "date",
         "datetime year to second", "decimal(12,2)", "money(16,2)", "decimal(5,1)",
         "decimal(7,3)", "decimal(2,2)", "decimal(31,0)", "decimal(30,9)", "decimal(8)",
         "char(1)", "char(20)", "varchar(1)", "varchar(64)", "nchar(5)", "nvarchar(10)",
         "int8", "boolean"]


class MyInt(int):
    pass


class MyStr(str):
    pass


class MyDecimal(Decimal):
    pass


def _decimals(precision: int, scale: int):
    """Decimals that fit DECIMAL(p,s) without rounding: the fast path's diet."""
    return st.builds(lambda n, shift: Decimal(n).scaleb(-shift),
                     st.integers(-(10**precision - 1), 10**precision - 1),
                     st.integers(0, scale))


def _clean(ddl: str):
    """Values the column takes as they are (None included): its check passes."""
    ctype = parse_type(ddl)
    base = ddl.split("(")[0]
    if base in ("smallint", "integer", "bigint", "serial"):
        limit = {"smallint": 2**15 - 1, "bigint": 2**63 - 1}.get(base, 2**31 - 1)
        values = st.integers(-limit, limit)
    elif base == "float":
        values = st.floats(allow_nan=False)
    elif base == "date":
        values = st.dates()
    elif base.startswith("datetime"):
        values = st.datetimes()
    elif base in ("decimal", "money") and ctype.scale is not None:
        values = _decimals(ctype.precision, ctype.scale)
    elif base in ("char", "nchar", "varchar", "nvarchar"):
        width = ctype.length if base in ("char", "nchar") else ctype.length & 0xFF
        values = st.text(st.characters(max_codepoint=255), max_size=width)
    elif base == "decimal":             # floating: any exponent
        values = st.builds(lambda n, shift: Decimal(n).scaleb(shift),
                           st.integers(-(10**ctype.precision - 1), 10**ctype.precision - 1),
                           st.integers(-12, 12))
    elif base == "int8":
        values = st.integers(-(2**63 - 1), 2**63 - 1)
    else:
        assert base == "boolean", ddl
        values = st.booleans()
    return st.none() | values.filter(value_check(ctype, "iso-8859-1"))


_ODD = st.sampled_from([
    True, False, MyInt(5), 2**31, -2**31, 2**63, -2**15, 1.5, float("nan"), float("inf"),
    float("-inf"), "text", MyStr("x"), "€uro", "x" * 70, "\x00a", "", b"bytes",
    Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-Infinity"),
    Decimal("1.234"), Decimal("1.230"), Decimal("0E+5"), Decimal("0E-7"), Decimal("-0"),
    Decimal("-0.00"), Decimal("1E+2"), Decimal("1E+30"), Decimal("12345678901.25"),
    Decimal("-0.01"), Decimal("-1"), Decimal("0.0000001"), MyDecimal("1.5"),
    dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), dt.datetime(1, 1, 1),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999), dt.date(1, 1, 1), dt.date(9999, 12, 31),
    dt.time(1, 2), dt.timedelta(1), [1], object()])


def _cursor(ddls: list[str]) -> InsertCursor:
    types = [parse_type(d) for d in ddls]
    checks = [value_check(t, "iso-8859-1") for t in types]
    return InsertCursor(1, types, checks, "iso-8859-1", lambda blocks: b"")


def _outcome(put: InsertCursor, row: tuple, count: int, encoding: str = "iso-8859-1"):
    try:
        return put.item(row, None, count, encoding)
    except Error as exc:
        return type(exc), str(exc)


def _batch_outcomes(put: InsertCursor, rows: list, count: int) -> list:
    out, items = [], put.batch_items(rows, None, count, "iso-8859-1")
    while True:
        try:
            out.append(next(items))
        except StopIteration:
            return out
        except Error as exc:            # the reference raised for this row: it ends the batch
            out.append((type(exc), str(exc)))
            return out


def _reference_outcomes(put: InsertCursor, rows: list, count: int) -> list:
    out = []
    for row in rows:
        out.append(_outcome(put, row, count))
        if type(out[-1]) is tuple:
            break
    return out


@_SETTINGS
@given(st.data())
def test_clean_columns_take_the_fast_path_and_equal_the_reference(data) -> None:
    ddls = data.draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=5))
    rows = data.draw(st.lists(st.tuples(*map(_clean, ddls)), min_size=1, max_size=40))
    put = _cursor(ddls)
    images = put.encode_batch(rows)
    for row, image in zip(rows, images):
        assert image is not None, row                  # nothing clean is declined
        assert image == put.item(row, None, len(ddls), "iso-8859-1"), row


@_SETTINGS
@given(st.data())
def test_odd_values_give_the_reference_items_and_errors(data) -> None:
    ddls = data.draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4))
    cells = [_clean(d) | _ODD for d in ddls]
    rows = data.draw(st.lists(st.tuples(*cells), min_size=1, max_size=30))
    put = _cursor(ddls)
    for row, image in zip(rows, put.encode_batch(rows)):
        reference = _outcome(put, row, len(ddls))
        # declined exactly when the reference does not put the row either
        assert image == (reference if type(reference) is bytes else None), row
    assert _batch_outcomes(put, rows, len(ddls)) == _reference_outcomes(put, rows, len(ddls))


@_SETTINGS
@given(st.data())
def test_each_fast_column_path_is_taken(data) -> None:
    """The fast path itself (not the value-by-value fallback) answers a clean
    column, so the tests above do exercise it."""
    ddl = data.draw(st.sampled_from([d for d in TYPES if d not in ("int8", "boolean",
                                                                    "decimal(8)")]))
    ctype = parse_type(ddl)
    fast = colencode.fast_column(ctype, value_check(ctype, "iso-8859-1"), "iso-8859-1")
    assert fast is not None
    values = data.draw(st.lists(_clean(ddl), min_size=1, max_size=20))
    assert fast(values) is not None, values


def test_a_negative_zero_and_carries_of_the_complement() -> None:
    put = _cursor(["decimal(12,2)", "decimal(5,1)"])
    rows = [(Decimal("-0.00"), Decimal("-0.1")), (Decimal("-100"), Decimal("-1000.0")),
            (Decimal("-0.01"), Decimal("-9999.9")), (Decimal("-99.99"), Decimal("-0.5"))]
    images = put.encode_batch(rows)
    assert images == [put.item(r, None, 2, "iso-8859-1") for r in rows]


def test_cells_of_two_widths_in_a_generic_column() -> None:
    """BOOLEAN takes the value-by-value path: a NULL's envelope is a byte
    shorter than a value's, and a column of values only is one width."""
    put = _cursor(["integer", "boolean", "boolean"])
    for rows in ([(1, True, True), (2, False, False)], [(1, True, None), (2, None, False)]):
        assert put.encode_batch(rows) == [put.item(r, None, 3, "iso-8859-1") for r in rows]


def test_rows_of_the_wrong_shape_are_declined_whole() -> None:
    put = _cursor(["integer", "integer"])
    assert put.encode_batch([(1, 2), (1,), [3, 4]]) == [None, None, None]
    assert put.encode_batch([(1, 2), [3, 4]]) == [put.item(r, None, 2, "iso-8859-1")
                                                  for r in [(1, 2), [3, 4]]]


def test_utf8_texts_count_bytes() -> None:
    types = [parse_type("varchar(4)"), parse_type("char(4)")]
    checks = [value_check(t, "utf-8") for t in types]
    put = InsertCursor(1, types, checks, "utf-8", lambda blocks: b"")
    rows = [("éé", "éé"), ("ééé", "a"), ("a", "ééé"), (None, None)]
    images = put.encode_batch(rows)
    assert images[1] is None and images[2] is None
    for row, image in zip(rows, images):
        if image is not None:
            assert image == put.item(row, None, 2, "utf-8")


@_SETTINGS
@given(st.data())
def test_texts_in_other_code_sets_equal_the_reference(data) -> None:
    """Byte lengths, not characters, decide what fits (issue 12): UTF-8 and
    GB18030 text in CHAR/VARCHAR, and cp1252 (single-byte, with characters
    it lacks), against the reference row by row."""
    encoding = data.draw(st.sampled_from(["utf-8", "cp1252", "gb18030", "iso-8859-1"]))
    ddls = data.draw(st.lists(st.sampled_from(["char(1)", "char(6)", "varchar(5)",
                                               "nvarchar(12)", "integer"]),
                              min_size=1, max_size=3))
    texts = st.text(st.characters(codec=None, blacklist_categories=("Cs",)), max_size=8)
    cells = [st.none() | (st.integers(-5, 5) if d == "integer" else texts) for d in ddls]
    rows = data.draw(st.lists(st.tuples(*cells), min_size=1, max_size=20))
    types = [parse_type(d) for d in ddls]
    put = InsertCursor(1, types, [value_check(t, encoding) for t in types], encoding,
                       lambda blocks: b"")
    for row, image in zip(rows, put.encode_batch(rows)):
        reference = _outcome(put, row, len(ddls), encoding)
        # declined exactly when the reference does not put the row either
        assert image == (reference if type(reference) is bytes else None), (row, encoding)


def test_the_callers_decimal_context_changes_nothing() -> None:
    """str() of a Decimal follows the thread's context (capitals=0 writes
    "1e-7"); the encoder's own context and checks make the same images."""
    import decimal
    put = _cursor(["decimal(12,2)", "decimal(30,9)", "decimal(8,7)"])
    rows = [(Decimal("-1.5"), Decimal("1E-9"), Decimal("1E-7")),
            (Decimal("12.25"), Decimal("-0.000000001"), Decimal("-0.0000001")),
            (Decimal("100"), Decimal("1E+10"), None)]
    expected = [put.item(r, None, 3, "iso-8859-1") for r in rows]
    with decimal.localcontext() as ctx:
        ctx.capitals, ctx.prec = 0, 3
        assert put.encode_batch(rows) == expected


def _signed_decimals(precision: int, scale: int):
    """Decimals of every pair count, negative more often than not, with the
    ones whose complement carries (a last pair 00) or starts with 00 (a
    first pair 99), at the limits of the column, and NULLs."""
    top = 10**precision - 1
    magnitudes = st.one_of(st.integers(1, top), st.sampled_from([m for m in (1, 99, 100, top, top - 99) if 1 <= m <= top]),
                           st.builds(lambda k, lead: lead * 100**k, st.integers(0, precision // 2),
                                     st.integers(1, 99)).filter(lambda m: m <= top))
    values = st.builds(lambda m, neg: Decimal(f"{'-' if neg else ''}{m}E-{scale}"),
                       magnitudes, st.booleans() | st.just(True))
    return st.none() | values | st.sampled_from([Decimal(f"-0E-{scale}"), Decimal(0)])


@_SETTINGS
@given(st.data())
def test_negative_decimals_of_every_length_equal_the_reference(data) -> None:
    """The whole-column complement (M - 1 by one subtraction, the byte mask)
    gives each negative row the reference's pairs, next to positives,
    zeros, -0 and NULLs in any order, and declines exactly the rows the
    reference binds (a value too wide: 0 or -1.00 in DECIMAL(2,2))."""
    ddl = data.draw(st.sampled_from(["decimal(12,2)", "money(16,2)", "decimal(5,1)",
                                     "decimal(7,3)", "decimal(2,2)", "decimal(31,0)",
                                     "decimal(30,9)", "decimal(1,0)"]))
    ctype = parse_type(ddl)
    column = data.draw(st.lists(_signed_decimals(ctype.precision, ctype.scale),
                                min_size=1, max_size=40))
    put = _cursor([ddl, "integer"])
    rows = [(v, i) for i, v in enumerate(column)]
    reference = [put.item(r, None, 2, "iso-8859-1") for r in rows]
    images = put.encode_batch(rows)
    for v, image, item in zip(column, images, reference):
        assert image == (item if type(item) is bytes else None), v


class _EqualsEverything(int):
    """An int subclass that says it equals None (``list.index(None)`` would
    stop at it): it must decline the column, never count as a NULL."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


class _LyingMeta(type):
    """A metaclass whose classes say they equal every type (``int`` too)."""

    def __eq__(cls, other: object) -> bool:
        return True

    __hash__ = type.__hash__


class _Impostor(metaclass=_LyingMeta):
    pass


_KINDS = {int: st.integers(), float: st.floats(), str: st.text(max_size=3),
          Decimal: st.decimals(allow_nan=False), dt.date: st.dates(),
          dt.datetime: st.datetimes()}


@_SETTINGS
@given(st.data())
def test_nulls_are_found_exactly_at_any_share(data) -> None:
    """colencode._nulls against a plain scan: every None's index, in order,
    whatever their share (the ``list.index`` walk below a quarter and the
    ``compress`` pass above it), and None (decline) as soon as one value is
    not exactly of the column's kind -- a NaN, a subclass whose ``==`` says
    it is None, a class whose metaclass says it is the kind."""
    kind = data.draw(st.sampled_from(sorted(_KINDS, key=str)))
    share = data.draw(st.sampled_from([0.0, 0.05, 0.3, 0.9, 1.0]))
    values = data.draw(st.lists(st.floats(0, 1).flatmap(
        lambda r: st.none() if r < share else _KINDS[kind]), min_size=1, max_size=80))
    assert colencode._nulls(values, kind) == [i for i, v in enumerate(values) if v is None]
    odd = data.draw(st.sampled_from([_EqualsEverything(3), _Impostor(), True, object()]))
    at = data.draw(st.integers(0, len(values)))
    assert colencode._nulls(values[:at] + [odd] + values[at:], kind) is None


def test_an_int_that_equals_none_is_not_taken_for_a_null() -> None:
    put = _cursor(["integer", "integer"])
    rows = [(None, 1), (_EqualsEverything(7), None), (None, 2)]
    assert put.encode_batch(rows)[1] is None
    assert _batch_outcomes(put, rows, 2) == _reference_outcomes(put, rows, 2)


def test_decimal_nulls_stand_in_as_the_least_unit_beside_real_zeros() -> None:
    """A NULL is encoded from the column's least unit (0.01 of DECIMAL(2,2),
    the tightest a scale allows), not from a zero, so zeros -- whose
    exponent the check reads one by one -- are exactly the real ones: the
    fast path takes the column, declines 0E+5 in DECIMAL(5,1) and 0.000 in
    DECIMAL(2,2) as the reference does, and the NULL rows are NULLs."""
    for ddl, zeros in (("decimal(2,2)", [Decimal("0.00"), Decimal("0.000"), Decimal("-0.0")]),
                       ("decimal(5,1)", [Decimal(0), Decimal("0E+5"), Decimal("-0.0")])):
        ctype = parse_type(ddl)
        values = [None, *zeros, None, Decimal("0.01") if "2,2" in ddl else Decimal("1.5"), None]
        fast = colencode.fast_column(ctype, value_check(ctype, "iso-8859-1"), "iso-8859-1")
        assert fast(values) is not None
        put = _cursor([ddl])
        rows = [(v,) for v in values]
        for row, image in zip(rows, put.encode_batch(rows)):
            reference = _outcome(put, row, 1)
            assert image == (reference if type(reference) is bytes else None), row
        assert put.encode_batch([(None,)]) == [put.item((None,), None, 1, "iso-8859-1")]


def test_each_sign_mix_of_a_decimal_column_equals_the_reference() -> None:
    """The sign pass runs only when the column's text has a "-": columns of
    positives alone, negatives alone, -0 beside positives (a "-" but no
    negative pairs), and each with NULLs, give the reference's images, in
    every scale parity and the widest pair counts."""
    mixes = {                          # units of the column's scale; None is -0
        "positive": [1, 5, 99, 10025, 0],
        "negative": [-1, -5, -99, -10025, -100],
        "minus zero": [None, 15, 0, None, 7],
        "mixed": [-1, 2, None, 100, -9999],
    }
    for ddl in ("decimal(12,2)", "money(16,2)", "decimal(7,3)", "decimal(31,0)",
                "decimal(30,9)", "decimal(5,1)"):
        ctype = parse_type(ddl)
        fast = colencode.fast_column(ctype, value_check(ctype, "iso-8859-1"), "iso-8859-1")
        top = 10**ctype.precision - 1
        put = _cursor([ddl])
        for name, units in mixes.items():
            units = [*units, -top if name == "negative" else top]
            column = [Decimal(f"{'-0' if u is None else u}E-{ctype.scale}") for u in units]
            for values in (column, [None, *column, None]):
                assert fast(values) is not None, (ddl, name)
                rows = [(v,) for v in values]
                assert put.encode_batch(rows) == [put.item(r, None, 1, "iso-8859-1")
                                                  for r in rows], (ddl, name)
