"""The Arrow encode rules of arrow/put_cells.py and the image layout of
put_images._images against the plain path, where their tricks could break.

Each rule reads Arrow's buffers in place: the values under a NULL are
whatever the producer left (so they are filled with junk here), validity
is unpacked from the bitmap at the array's offset (so batches are sliced
at offsets that are not multiples of 8), cells are machine words built
from tables (DECIMAL negatives of every length, DATETIME at years 1 and
9999 and the edges of every day), text is gathered through a window (empty
values, values filling their column, multibyte UTF-8 at the byte limit).
Rows are written into a matrix of the widest cells unless a long value
makes that wasteful (then end to end): both layouts, and columns without a
rule (value by value) between columns with one.  The judge is always the
plain path (``InsertCursor.item`` on each row's Python values), via
test_arrow_put.same.
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
from informix_stream.arrow import base100, put_cells, put_images  # noqa: E402
from informix_stream.codec.typeinfo import ColumnType, TypeCode  # noqa: E402
from test_arrow_put import YEAR_TO_SECOND, Bad, _decimal, _varchar, cursor_for, items, same  # noqa: E402
from test_driver import connect, unique  # noqa: E402


def junk_under_nulls(array, seed: int):
    """``array`` with its fixed-width values buffer refilled at the NULL
    slots (Arrow promises nothing there) with random bytes or with a valid
    row's value (junk that passes every check)."""
    if array.null_count == 0:
        return array
    validity, values = array.buffers()[:2]
    width = array.type.bit_width // 8
    raw = bytearray(values.to_pybytes())
    rng = np.random.default_rng(seed)
    junk = rng.integers(0, 256, len(raw), dtype=np.uint8).tobytes()
    valid = array.is_valid().to_pylist()
    donors = [(array.offset + row) * width for row, good in enumerate(valid) if good]
    for row, good in enumerate(valid):
        at = (array.offset + row) * width
        if good:
            continue
        if donors and rng.random() < 0.5:
            donor = donors[int(rng.integers(len(donors)))]
            raw[at:at + width] = bytes(raw[donor:donor + width])
        else:
            raw[at:at + width] = junk[at:at + width]
    return pa.Array.from_buffers(array.type, len(array), [validity, pa.py_buffer(bytes(raw))],
                                 offset=array.offset)


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_every_rule_on_sliced_batches_with_junk_under_nulls(data):
    n = data.draw(st.integers(1, 40))
    start = data.draw(st.integers(0, 13))
    total = start + n + data.draw(st.integers(0, 9))
    seed = data.draw(st.integers(0, 2**32 - 1))

    def column(strategy):
        return data.draw(st.lists(st.one_of(st.none(), strategy), min_size=total,
                                  max_size=total))

    ints = column(st.integers(-2**31, 2**31 - 1))
    floats = column(st.floats(allow_nan=False))
    days = column(st.integers(-719162, 2932896))
    secs = column(st.integers(-62135596800, 253402300799))
    limit = 10 ** 12 - 1
    decs = column(st.integers(-limit, limit))
    texts = column(st.text("ab é", max_size=8))
    arrays = [pa.array(ints, pa.int32()), pa.array(floats, pa.float64()),
              pa.array(days, pa.int32()).cast(pa.date32()),
              pa.array(secs, pa.int64()).cast(pa.timestamp("s")),
              pa.array([None if d is None else Decimal(d).scaleb(-2) for d in decs],
                       pa.decimal128(12, 2)),
              pa.array(texts), pa.array(texts)]
    arrays = [junk_under_nulls(a, seed) if i < 5 else a for i, a in enumerate(arrays)]
    batch = pa.record_batch(arrays, names=list("ifdtxvc")).slice(start, n)
    same(batch, [ColumnType(TypeCode.INTEGER, 4), ColumnType(TypeCode.FLOAT, 8),
                 ColumnType(TypeCode.DATE, 4), YEAR_TO_SECOND, _decimal(12, 2), _varchar(6),
                 ColumnType(TypeCode.CHAR, 7)], "utf-8")


@pytest.mark.parametrize("p, s", [(1, 0), (2, 1), (5, 2), (12, 2), (13, 2), (14, 4), (15, 3),
                                  (16, 2), (17, 0), (18, 2), (18, 5)])
def test_decimal_negatives_of_every_length_and_the_most_digits(p, s):
    # each digit count 1..p, negative and positive, as 9...9 and 10...0
    # (a complement that borrows through zeros), and the column's limit
    unscaled = [0, None]
    for k in range(1, p + 1):
        for u in (10 ** k - 1, 10 ** (k - 1), 10 ** (k - 1) + 1):
            unscaled += [u, -u]
    values = [None if u is None else Decimal(u).scaleb(-s) for u in unscaled]
    batch = pa.record_batch([pa.array(values, pa.decimal128(p, s))], names=["x"])
    same(batch, [ColumnType(TypeCode.DECIMAL, (p << 8) | s)])
    same(batch, [ColumnType(TypeCode.MONEY, (18 << 8) | min(s + 1, 18))])
    put = cursor_for([_decimal(p, s)], "iso-8859-1")
    got = items(put_images.put_items, pa.Table.from_batches([batch]), None, 1, put,
                "iso-8859-1", Bad)
    assert all(type(item) is bytes for item in got)      # every value fits: all put


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_rules_at_their_edges_with_junk_under_nulls_and_refused_rows(data):
    # the encoder's tricks where they could break, against the plain path:
    # pair counts either side of every power of 100, of both signs, at six
    # (DECIMAL(12,2)) and eight pairs (MONEY(16,2): head + word by strided
    # stores), values too wide for the column (bound, not put), the day
    # split at the ends of days, eras and the calendar and past it (no
    # Python value: the refusal names column and row), text one byte
    # short of, at and past its width; NULL slots hold junk or a donor's
    # value; the batch is sliced at an odd offset
    n = data.draw(st.integers(1, 30))
    start = data.draw(st.integers(0, 9))
    total = start + n
    seed = data.draw(st.integers(0, 2**32 - 1))

    def column(strategy):
        return data.draw(st.lists(st.one_of(st.none(), strategy), min_size=total,
                                  max_size=total))

    def edges(top: int):
        near = [e + d for j in range(top + 1) for e in (100 ** j,) for d in (-1, 0, 1)]
        return st.sampled_from([v * sign for v in near for sign in (1, -1)])

    amounts = column(st.one_of(st.integers(-10 ** 13, 10 ** 13), edges(6)))
    money = column(st.one_of(st.integers(-10 ** 17 + 1, 10 ** 17 - 1), edges(8)))
    first, last = -62135596800, 253402300799                # 0001-01-01, 9999-12-31 23:59:59
    day_edges = [first, first - 1, last, last + 1, 0, -1, 86399, 86400,
                 first + 146097 * 86400, first + 146097 * 86400 - 1]
    stamps = column(st.one_of(st.integers(first - 10 ** 6, last + 10 ** 6),
                              st.sampled_from(day_edges)))
    width = data.draw(st.integers(1, 6))
    texts = column(st.text("ab z", min_size=max(width - 1, 0), max_size=width + 1))
    arrays = [pa.array([None if a is None else Decimal(a).scaleb(-2) for a in amounts],
                       pa.decimal128(14, 2)),
              pa.array([None if m is None else Decimal(m).scaleb(-2) for m in money],
                       pa.decimal128(18, 2)),
              pa.array(stamps, pa.int64()).cast(pa.timestamp("s")),
              pa.array(texts)]
    arrays = [junk_under_nulls(a, seed) if i < 3 else a for i, a in enumerate(arrays)]
    batch = pa.record_batch(arrays, names=["amount", "money", "sold", "note"]).slice(start, n)
    same(batch, [_decimal(12, 2), ColumnType(TypeCode.MONEY, (16 << 8) | 2), YEAR_TO_SECOND,
                 _varchar(width)])


@pytest.mark.parametrize("p, s", [(18, 2), (18, 3), (17, 1), (16, 0), (15, 1), (16, 2)])
def test_wide_decimals_whose_values_are_all_small(p, s):
    # cells of 8 to 10 pairs are two words a row; a batch whose values
    # reach none of the leading pairs still has every pair in place
    values = [Decimal(v).scaleb(-s) for v in (1, -1, 0, 125, -99, 7)] + [None]
    batch = pa.record_batch([pa.array(values, pa.decimal128(p, s))], names=["x"])
    same(batch, [_decimal(p, s)])
    same(batch, [_decimal(18, s)])


def test_datetime_at_the_ends_of_the_calendar_and_of_each_day():
    ends = [dt.datetime(1, 1, 1), dt.datetime(1, 1, 1, 23, 59, 59), dt.datetime(9999, 12, 31),
            dt.datetime(9999, 12, 31, 23, 59, 59), dt.datetime(2000, 2, 29, 12, 30, 1),
            dt.datetime(1900, 2, 28, 23, 59, 59), dt.datetime(1900, 3, 1), dt.datetime(400, 12, 31),
            dt.datetime(401, 1, 1), dt.datetime(1969, 12, 31, 23, 59, 59), dt.datetime(1970, 1, 1)]
    for unit in ("s", "ms", "us"):
        batch = pa.record_batch([pa.array(ends + [None], pa.timestamp(unit))], names=["t"])
        same(batch, [YEAR_TO_SECOND])
    put = cursor_for([YEAR_TO_SECOND], "iso-8859-1")
    got = items(put_images.put_items, pa.Table.from_batches([batch]), None, 1, put,
                "iso-8859-1", Bad)
    assert got[0] == bytes([0xC7, 0, 1, 1, 1, 0, 0, 0])      # exponent 7 (pairs), year 1: 00 01
    assert got[3] == bytes([0xC7, 99, 99, 12, 31, 23, 59, 59])


def test_every_day_and_every_second_of_a_day_against_numpy_datetime64():
    # the float64 divisions and the tables, over the whole domain: every
    # day of years 1..9999 at a second that walks the clock, and every
    # second of the last day of 1969 and the first of 1970
    first, last = civil_days()
    days = np.arange(first, last + 1, dtype=np.int64)
    seconds = np.concatenate([days * 86400 + days * 7919 % 86400,
                              np.arange(-86400, 86400, dtype=np.int64)])
    ctype = YEAR_TO_SECOND
    check = cursor_for([ctype], "iso-8859-1").checks[0]
    for at in range(0, len(seconds), 1 << 19):
        part = seconds[at:at + (1 << 19)]
        cells = put_cells.column_cells(np, pa.array(part, pa.timestamp("s")), ctype, check,
                                       "iso-8859-1")
        assert cells.ok.all()
        got = cells.padded[:, :8]
        moments = part.astype("datetime64[s]")
        day = moments.astype("datetime64[D]")
        years = day.astype("datetime64[Y]")
        months = day.astype("datetime64[M]")
        year = years.astype(np.int64) + 1970
        clock = (moments - day).astype(np.int64)
        want = np.stack([np.full(len(part), 0xC7), year // 100, year % 100,
                         (months - years).astype(np.int64) + 1,
                         (day - months).astype(np.int64) + 1,
                         clock // 3600, clock // 60 % 60, clock % 60], axis=1)
        assert (got == want).all()


def civil_days():
    from informix_stream.arrow import civil
    return civil.FIRST_DAY, civil.LAST_DAY


@pytest.mark.parametrize("encoding", ["utf-8", "iso-8859-1"])
def test_text_empty_full_and_multibyte_at_the_byte_limit(encoding):
    width = 6
    texts = ["", "abcdef", "abcdefg", "ééé", "éééa", "aéé", None, "€€", "€€a", " ", "a b "]
    batch = pa.record_batch([pa.array(texts), pa.array(texts, pa.large_string())],
                            names=["v", "c"])
    same(batch, [_varchar(width), ColumnType(TypeCode.CHAR, width)], encoding)
    # VARCHAR(255), the longest a length byte holds
    long = ["x" * 255, "é" * 127 + "a", "é" * 128, "", None]
    batch = pa.record_batch([pa.array(long), pa.array(long)], names=["v", "c"])
    same(batch, [_varchar(255), ColumnType(TypeCode.CHAR, 255)], encoding)


def test_a_long_value_makes_the_images_end_to_end_and_they_are_the_same():
    # one 255-byte VARCHAR among 4,000 short rows: the matrix of the widest
    # cells would be mostly gaps, so the images go end to end by a byte index
    texts = ["a", "b" * 255] + [f"r{i}" for i in range(3998)]
    ints = list(range(len(texts)))
    batch = pa.record_batch([pa.array(ints, pa.int32()), pa.array(texts),
                             pa.array([Decimal(i) / 8 for i in ints], pa.decimal128(10, 3))],
                            names=["i", "t", "d"])
    types = [ColumnType(TypeCode.INTEGER, 4), _varchar(255), _decimal(10, 3)]
    cells = [put_cells.column_cells(np, batch.column(i), t, c, "utf-8")
             for i, (t, c) in enumerate(zip(types, cursor_for(types, "utf-8").checks))]
    stride = sum(c.padded.shape[1] for c in cells)
    row_len = np.add.reduce([c.lengths for c in cells])
    assert batch.num_rows * stride > put_images._GAPPED_LIMIT * int(row_len.sum()) + (1 << 16)
    same(batch, types, "utf-8")
    same(batch.slice(2, 50), types, "utf-8")                      # and the matrix one


def test_a_column_without_a_rule_between_columns_with_one():
    # BOOLEAN has no numpy rule: its cells come value by value (flat),
    # between a variable and a fixed column
    batch = pa.record_batch([pa.array(["x", None, "yyy", ""]), pa.array([True, None, False, True]),
                             pa.array([1, 2, None, 4], pa.int16())], names=["v", "b", "s"])
    same(batch, [_varchar(4), ColumnType(TypeCode.BOOLEAN, 1), ColumnType(TypeCode.SMALLINT, 2)])


def test_pair_word_against_the_plain_pairs():
    values = [0, 1, 99, 100, 9999, 10 ** 4, 10 ** 8 - 1, 10 ** 8, 10 ** 12 - 1, 10 ** 12,
              10 ** 16 - 1, 1234567890123456]
    for k in range(1, 9):
        fit = [v for v in values if v < 100 ** k]
        words = base100.pair_word(np, np.array(fit, np.uint64), k)
        for value, word in zip(fit, words.tolist()):
            pairs = [value // 100 ** (7 - j) % 100 for j in range(8)]
            assert word.to_bytes(8, "little") == bytes(pairs), (k, value)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_pair_word_and_pair_count_against_the_plain_forms(data):
    # pair_word's quads (uint32 below 10**8, a table per place) and
    # _pair_count's compares (which replaced a searchsorted) on numbers of
    # every length, either side of each power of 100, in one column
    k = data.draw(st.integers(1, 8))
    edges = [e for j in range(k + 1) for e in (100 ** j - 1, 100 ** j) if 0 <= e < 100 ** k]
    values = data.draw(st.lists(st.one_of(st.integers(0, 100 ** k - 1), st.sampled_from(edges)),
                                min_size=1, max_size=40))
    column = np.array(values, np.uint64)
    words = base100.pair_word(np, column, k).tolist()
    counts = put_cells._pair_count(np, column, k).tolist()
    for value, word, count in zip(values, words, counts):
        assert word.to_bytes(8, "little") == bytes(value // 100 ** (7 - j) % 100 for j in range(8))
        assert count == sum(1 for j in range(k) if 100 ** j <= value), value


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 2 ** 39 - 1), st.sampled_from(
    [0, 1, 127, 128, 86399, 86400, 86401, 675 * 128 * 146097, 2 ** 39 - 1,
     (put_cells._SPAN_SECONDS - 1)])), min_size=1, max_size=50))
def test_days_and_clock_against_divmod(seconds):
    # DATETIME's day split: a shift and a uint32 division instead of an
    # int64 or float64 division by 86,400
    days, clock = put_cells._days_and_clock(np, np.array(seconds, np.int64))
    assert list(zip(days.tolist(), clock.tolist())) == [divmod(s, 86400) for s in seconds]


def test_an_unconvertible_value_is_a_data_error_naming_column_and_row(ifx_target):
    # a timestamp past 9999-12-31 has no Python datetime and no cell: the
    # load stops at that row, with the column's name, the rows before it in
    t = unique("put_bad_ts")
    good = [dt.datetime(2020, 1, 1) + dt.timedelta(hours=i) for i in range(30)]
    ticks = pa.array(good, pa.timestamp("s")).cast(pa.int64()).to_pylist()
    ticks[17] = 253402300800                                  # 10000-01-01
    table = pa.table({"id": pa.array(range(30), pa.int32()),
                      "sold": pa.array(ticks, pa.int64()).cast(pa.timestamp("s"))})
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER, sold DATETIME YEAR TO SECOND)")
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", table, chunk_size=10)
        assert info.value.row_index == 17 and "'sold'" in str(info.value)
        cur.execute(f"SELECT count(*), max(id) FROM {t}")
        assert cur.fetchone() == (17, 16)
        cur.execute(f"DROP TABLE {t}")


def test_money_too_wide_mid_load_is_refused_at_its_row(ifx_target):
    # MONEY(16,2) holds 14 integer digits: row 31's 10**15 is not put (its
    # cell would be wrong), it is bound, and the server refuses it; the
    # rows before it are in the table, none after, and the error names row 31
    t = unique("put_money_wide")
    amounts = [Decimal(i * 7919 + 3).scaleb(-2) * (-1 if i % 3 else 1) for i in range(60)]
    amounts[31] = Decimal(10 ** 15)
    amounts[7] = None
    table = pa.table({"id": pa.array(range(60), pa.int32()),
                      "amount": pa.array(amounts, pa.decimal128(18, 2))})
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER, amount MONEY(16,2))")
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", table, chunk_size=10)
        assert info.value.row_index == 31
        cur.execute(f"SELECT id, amount FROM {t} ORDER BY id")
        assert cur.fetchall() == [(i, amounts[i]) for i in range(31)]
        cur.execute(f"DROP TABLE {t}")


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 24), st.data())
def test_char_values_filling_their_cells_with_null_rows_are_the_plain_cells(width, data):
    """CHAR whose every value fills its width takes _filled_char_cells, its
    NULL rows put between the values (a zero byte, then blanks): any NULL
    pattern (none, all, first, last, runs), sliced at any offset, gives the
    plain path's cells byte for byte; a NULL spanning bytes (a producer may
    leave some) or one short value sends the column to the general path,
    still the plain cells."""
    from informix_stream.insert_cursor import value_check
    text = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E),
                   min_size=width, max_size=width)
    values = data.draw(st.lists(st.one_of(st.none(), text), min_size=1, max_size=60))
    start = data.draw(st.integers(0, len(values) - 1))
    array = pa.array(values, pa.string()).slice(start)
    if data.draw(st.booleans()) and array.null_count:
        # the same values with each NULL row spanning a few junk bytes
        spans = [("x" * 3 if v is None else v) for v in values]
        full = pa.array(spans, pa.string())
        array = pa.Array.from_buffers(pa.string(), len(values),
                                      [pa.array(values, pa.string()).buffers()[0],
                                       *full.buffers()[1:]]).slice(start)
    ctype = ColumnType(TypeCode.CHAR, width)
    check = value_check(ctype, "iso-8859-1")
    fast = put_cells.column_cells(np, array, ctype, check, "iso-8859-1")
    plain = put_cells.python_cells(np, array, ctype, check, "iso-8859-1")
    assert fast.ok.all() and plain.ok.all()
    assert put_cells.flat_of(np, fast).tobytes() == put_cells.flat_of(np, plain).tobytes()
    assert list(fast.lengths) == list(plain.lengths)
