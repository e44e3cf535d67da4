"""Arrow through the insert cursor (issue 14 items 1, 3 and 4).

``arrow.put_images`` builds insert-cursor row images a column at a time with
numpy over the Arrow buffers.  It must give, row for row, exactly what the
plain path gives (``InsertCursor.item`` on each row's Python values): the
same image bytes for a row that is put, the same bind blocks for a row that
is not, and the same refusal for a row that cannot be bound.  Hypothesis
draws the values, edge cases included (DECIMAL at its precision's limit and
past it, negatives, zero, years 1 and 9999, NULLs, text longer than its
column, non-ASCII text, the integer NULL sentinels).  Then a load through
a server: what lands is what the tuple path lands.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
np = pytest.importorskip("numpy", reason="Arrow ingest needs the arrow extra")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import informix_stream as ifx  # noqa: E402
from informix_stream.arrow import put_images  # noqa: E402
from informix_stream.codec.typeinfo import ColumnType, TypeCode  # noqa: E402
from informix_stream.insert_cursor import InsertCursor, value_check  # noqa: E402
from test_driver import connect, theirs, unique  # noqa: E402


def _varchar(n: int) -> ColumnType:
    return ColumnType(TypeCode.VARCHAR, n)


def _decimal(p: int, s: int) -> ColumnType:
    return ColumnType(TypeCode.DECIMAL, (p << 8) | s)


YEAR_TO_SECOND = ColumnType(TypeCode.DATETIME, (14 << 8) | 10)


class Bad(Exception):
    def __init__(self, error):
        super().__init__(error)
        self.error = error


def cursor_for(types: list[ColumnType], encoding: str) -> InsertCursor:
    return InsertCursor(1, types, [value_check(t, encoding) for t in types], encoding,
                        lambda blocks: b"".join(blocks))


def items(fn, *args) -> list:
    """Items until the first refusal; the refusal's class ends the list."""
    out = []
    try:
        for item in fn(*args):
            out.append(item)
    except (Bad, ifx.Error) as exc:
        out.append(type(exc.error if isinstance(exc, Bad) else exc).__name__)
    return out


def same(batch, types: list[ColumnType], encoding: str = "iso-8859-1") -> None:
    put = cursor_for(types, encoding)
    source = pa.Table.from_batches([batch])
    fast = items(put_images.put_items, source, None, len(types), put, encoding, Bad)
    plain = items(put_images.reference_items, source, None, len(types), put, encoding)
    assert fast == plain


def nullable(strategy):
    return st.one_of(st.none(), strategy)


# -- integers, floats, dates ----------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.data())
def test_numbers_and_dates_match_the_plain_path(data):
    target = data.draw(st.sampled_from([TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.BIGINT]))
    arrow_int = data.draw(st.sampled_from(["int16", "int32", "int64", "uint32"]))
    lo, hi = {"int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
              "int64": (-2**63, 2**63 - 1), "uint32": (0, 2**32 - 1)}[arrow_int]
    n = data.draw(st.integers(1, 30))
    ints = data.draw(st.lists(nullable(st.one_of(st.integers(lo, hi), st.sampled_from(
        [v for v in (-2**15, -2**31, -2**63, 2**15 - 1, 0) if lo <= v <= hi]))),
        min_size=n, max_size=n))
    floats = data.draw(st.lists(nullable(st.floats(allow_nan=True, allow_infinity=True)),
                                min_size=n, max_size=n))
    days = data.draw(st.lists(nullable(st.integers(-800_000, 3_000_000)), min_size=n, max_size=n))
    batch = pa.record_batch([pa.array(ints, arrow_int), pa.array(floats, pa.float64()),
                             pa.array(days, pa.int32()).cast(pa.date32())],
                            names=["i", "f", "d"])
    same(batch, [ColumnType(target, 2 if target is TypeCode.SMALLINT else
                            4 if target is TypeCode.INTEGER else 8),
                 ColumnType(TypeCode.FLOAT, 8), ColumnType(TypeCode.DATE, 4)])


# -- DECIMAL ------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.data())
def test_decimals_match_the_plain_path(data):
    precision = data.draw(st.integers(1, 18))
    scale = data.draw(st.integers(0, precision))
    arrow_p = data.draw(st.integers(1, 18))
    arrow_s = data.draw(st.integers(0, arrow_p))
    n = data.draw(st.integers(1, 25))
    limit = 10 ** arrow_p - 1
    unscaled = data.draw(st.lists(nullable(st.one_of(
        st.integers(-limit, limit), st.sampled_from([0, limit, -limit, 1, -1]))),
        min_size=n, max_size=n))
    values = [None if u is None else Decimal(u).scaleb(-arrow_s) for u in unscaled]
    batch = pa.record_batch([pa.array(values, pa.decimal128(arrow_p, arrow_s))], names=["x"])
    code = data.draw(st.sampled_from([TypeCode.DECIMAL, TypeCode.MONEY]))
    same(batch, [ColumnType(code, (precision << 8) | scale)])


@pytest.mark.parametrize("p, s", [(18, 1), (18, 17), (17, 3), (18, 0), (9, 9)])
def test_full_precision_decimals_match_the_plain_path(p, s):
    # DECIMAL(18, odd s) has ten pairs, one more than a left-aligned uint64
    # holds: its last pair is read apart, negatives complemented across both
    top = 10 ** p - 1
    unscaled = [top, -top, 10 ** (p - 1), -10 ** (p - 1), 123456789012345670 % 10 ** p,
                -(123456789012345670 % 10 ** p), 10, -10, 1, -1, 0, None]
    values = [None if u is None else Decimal(u).scaleb(-s) for u in unscaled]
    batch = pa.record_batch([pa.array(values, pa.decimal128(p, s))], names=["x"])
    same(batch, [_decimal(p, s)])
    put = cursor_for([_decimal(p, s)], "iso-8859-1")
    got = items(put_images.put_items, pa.Table.from_batches([batch]), None, 1, put,
                "iso-8859-1", Bad)
    assert all(type(item) is bytes for item in got)      # every row put, none bound


def test_decimal_too_wide_for_the_column_is_bound_not_put():
    batch = pa.record_batch([pa.array([Decimal("123.45"), Decimal("-0.01"), Decimal("0.00")],
                                      pa.decimal128(5, 2))], names=["x"])
    put = cursor_for([_decimal(4, 2)], "iso-8859-1")
    got = list(put_images.put_items(pa.Table.from_batches([batch]), None, 1, put,
                                    "iso-8859-1", Bad))
    assert type(got[0]) is list                      # 123.45 does not fit DECIMAL(4,2)
    # DECIMAL(4,2) is 3 bytes: head, two pairs.  -0.01 has exponent 0 (0x40,
    # complemented to 0x3F) and its pair 01 complemented to 100 - 1 = 99.
    assert got[1] == b"\x3f\x63\x00"
    assert got[2] == b"\xc0\x00\x00"                 # zero: exponent 0, no pairs


# -- DATETIME YEAR TO SECOND ---------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.data())
def test_timestamps_match_the_plain_path(data):
    unit = data.draw(st.sampled_from(["s", "ms", "us"]))
    per = {"s": 1, "ms": 1000, "us": 1_000_000}[unit]
    n = data.draw(st.integers(1, 25))
    lo, hi = -62135596800 * per, 253402300799 * per + per - 1     # years 1 and 9999
    ticks = data.draw(st.lists(nullable(st.one_of(st.integers(lo, hi),
                                                  st.sampled_from([lo, hi, 0, -1]))),
                               min_size=n, max_size=n))
    batch = pa.record_batch([pa.array(ticks, pa.int64()).cast(pa.timestamp(unit))],
                            names=["t"])
    same(batch, [YEAR_TO_SECOND])


# -- text ---------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.data())
def test_text_matches_the_plain_path(data):
    encoding = data.draw(st.sampled_from(["iso-8859-1", "utf-8"]))
    width = data.draw(st.integers(1, 12))
    n = data.draw(st.integers(1, 25))
    alphabet = data.draw(st.sampled_from(["abc xyz", "abcé€中", "a\u00ff"]))
    texts = data.draw(st.lists(nullable(st.text(alphabet, max_size=15)), min_size=n, max_size=n))
    large = data.draw(st.booleans())
    batch = pa.record_batch([pa.array(texts, pa.large_string() if large else pa.string()),
                             pa.array(texts, pa.string())], names=["v", "c"])
    same(batch, [_varchar(width), ColumnType(TypeCode.CHAR, width)], encoding)


def test_text_with_bytes_under_nulls_and_full_cells_matches_the_plain_path():
    # Arrow lets a NULL slot span bytes (here "zz"); the column-wise path
    # must not take them as text.  And CHAR values that fill their cells.
    data = b"abcdzzefgh"
    offsets = np.array([0, 4, 6, 10], "<i4")
    validity = np.packbits(np.array([1, 0, 1], bool), bitorder="little")
    spans = pa.Array.from_buffers(pa.string(), 3, [pa.py_buffer(validity),
                                                   pa.py_buffer(offsets), pa.py_buffer(data)])
    assert spans.to_pylist() == ["abcd", None, "efgh"]
    full = pa.array(["wxyz", "abcd", "0123"])
    gaps = pa.array(["wxyz", None, "0123"])
    batch = pa.record_batch([spans, spans, full, full, gaps], names=["v", "c", "fv", "fc", "g"])
    same(batch, [_varchar(4), ColumnType(TypeCode.CHAR, 4), _varchar(4),
                 ColumnType(TypeCode.CHAR, 4), ColumnType(TypeCode.CHAR, 4)])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_char_values_that_fill_their_cells_match_the_plain_path(data):
    # the filled-CHAR rule (the data are the cells, NULL rows stored between
    # them), over NULLs, slices at odd offsets, large_string, and now and
    # then a value one byte short or long of the cell (the general rule)
    width = data.draw(st.integers(1, 9))
    n = data.draw(st.integers(1, 30))
    sizes = st.just(width) | st.sampled_from([width - 1, width + 1])
    texts = [None if data.draw(st.integers(0, 4)) == 0 else
             "".join(data.draw(st.lists(st.sampled_from("ab z9"), min_size=size,
                                        max_size=size)))
             for size in (data.draw(sizes) if data.draw(st.integers(0, 9)) == 0 else width
                          for _ in range(n))]
    large = data.draw(st.booleans())
    column = pa.array(["x" * width] * 3 + texts, pa.large_string() if large else pa.string())
    start = data.draw(st.integers(0, 3))
    column = column.slice(start, data.draw(st.integers(0, len(column) - start)))
    batch = pa.record_batch([column], names=["c"])
    same(batch, [ColumnType(TypeCode.CHAR, width)])


def test_sliced_batches_use_their_own_rows():
    table = pa.table({"v": pa.array([f"t{i}" for i in range(50)]),
                      "d": pa.array([Decimal(i) / 4 for i in range(50)], pa.decimal128(6, 2))})
    batch = table.to_batches()[0].slice(17, 9)
    same(batch, [_varchar(8), _decimal(8, 2)])


def test_unencodable_row_ends_the_items_after_the_rows_before_it():
    # day 3,000,000 of date32 is past 9999-12-31: no Python date, no bind
    batch = pa.record_batch([pa.array([1, 2, 3], pa.int64()),
                             pa.array([5, 3_000_000, 6], pa.int32()).cast(pa.date32())],
                            names=["a", "b"])
    put = cursor_for([ColumnType(TypeCode.INTEGER, 4), ColumnType(TypeCode.DATE, 4)],
                     "iso-8859-1")
    got = items(put_images.put_items, pa.Table.from_batches([batch]), None, 2, put,
                "iso-8859-1", Bad)
    assert len(got) == 2 and type(got[0]) is bytes and got[1] == "DataError"


# -- through a server ----------------------------------------------------------

SALES = ("id INTEGER, sku VARCHAR(32), amount DECIMAL(12,2), sold DATETIME YEAR TO SECOND, "
         "day DATE, note VARCHAR(64)")


def sales(n: int) -> list[tuple]:
    t0, d0 = dt.datetime(2020, 1, 1, 8), dt.date(2020, 1, 1)
    return [(i, f"SKU-{i:06d}", Decimal(i * 37 % 100000 - 50000) / 100,
             t0 + dt.timedelta(seconds=i * 3607), d0 + dt.timedelta(days=i % 3000),
             None if i % 10 == 0 else f"note é {i}") for i in range(n)]


def arrow_of(rows: list[tuple]):
    cols = list(zip(*rows))
    return pa.table({"id": pa.array(cols[0], pa.int32()), "sku": pa.array(cols[1]),
                     "amount": pa.array(cols[2], pa.decimal128(12, 2)),
                     "sold": pa.array(cols[3], pa.timestamp("s")),
                     "day": pa.array(cols[4], pa.date32()), "note": pa.array(cols[5])})


def test_arrow_load_through_the_insert_cursor_lands_what_tuples_land(ifx_target):
    rows = sales(3000)
    a, b = unique("put_arrow"), unique("put_rows")
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        for t in (a, b):
            cur.execute(f"CREATE TABLE {t} ({SALES})")
        cur.executemany(f"INSERT INTO {a} VALUES (?, ?, ?, ?, ?, ?)", arrow_of(rows),
                        insert_cursor=True, chunk_size=700)
        assert cur.rowcount == len(rows)
        cur.executemany(f"INSERT INTO {b} VALUES (?, ?, ?, ?, ?, ?)", rows, insert_cursor=False)
    with theirs(ifx_target) as them:
        cur = them.cursor()
        cur.execute(f"SELECT * FROM {a} ORDER BY id")
        got_a = cur.fetchall()
        cur.execute(f"SELECT * FROM {b} ORDER BY id")
        got_b = cur.fetchall()
        for t in (a, b):
            cur.execute(f"DROP TABLE {t}")
        them.commit()
    assert len(got_a) == len(rows) and got_a == got_b
    assert got_a[1][2] == Decimal("-499.63") and got_a[0][5] is None


def test_server_refusal_mid_load_applies_exactly_the_rows_before_it(ifx_target):
    # an infinite double bound to a DECIMAL column: the client binds it as
    # FLOAT (the put check wants a Decimal), the server refuses it (-1226)
    t = unique("put_bad")
    ids = pa.array(list(range(40)), pa.int64())
    amounts = pa.array([1.0] * 25 + [float("inf")] + [2.0] * 14)
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER, amount DECIMAL(6,2))")
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                            pa.table({"id": ids, "amount": amounts}), chunk_size=10)
        assert info.value.row_index == 25
        cur.execute(f"SELECT count(*), max(id) FROM {t}")
        assert cur.fetchone() == (25, 24)
        cur.execute(f"DROP TABLE {t}")
