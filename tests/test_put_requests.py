"""The insert cursor fed a buffer of row images (arrow/put_requests.py).

An Arrow load's chunks and SQ_PUT requests are cut from each batch's image
buffer a block at a time; the row-by-row path (``insert_cursor.item_chunks``
over ``InsertCursor.item`` of each row's Python values) is the reference.
Hypothesis draws shapes (odd and even row sizes, NULLs, values bound rather
than put, a value that cannot be bound at all, several record batches),
chunk sizes, chunk byte limits and PUT block sizes, and the two must emit
the same chunks, byte for byte, and fail at the same row.  Then the
executemany contract through a server: a failing row in the middle of a
PUT block, ``batch_errors``, a failing stream, and asyncio alike.
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
from informix_stream import executemany as em  # noqa: E402
from informix_stream import insert_cursor as ic  # noqa: E402
from informix_stream import row_errors  # noqa: E402
from informix_stream.arrow import put_images, put_requests  # noqa: E402
from informix_stream.codec.typeinfo import ColumnType, TypeCode  # noqa: E402
from test_driver import connect, unique  # noqa: E402

ENC = "iso-8859-1"


def cursor_for(types: list[ColumnType]) -> ic.InsertCursor:
    return ic.InsertCursor(7, types, [ic.value_check(t, ENC) for t in types], ENC,
                           em.BindExecute(7).request)


# (Arrow type, Informix column, a strategy of values, some of them bound rather than
# put and, for DATE, one that cannot be bound at all: a day past 9999-12-31)
COLUMNS = {
    "int": (pa.int32(), ColumnType(TypeCode.INTEGER, 4),
            st.one_of(st.integers(-2**31, 2**31 - 1), st.just(-2**31))),
    "small": (pa.int16(), ColumnType(TypeCode.SMALLINT, 2), st.integers(-2**15, 2**15 - 1)),
    "big": (pa.int64(), ColumnType(TypeCode.BIGINT, 8), st.integers(-2**62, 2**62)),
    "text": (pa.string(), ColumnType(TypeCode.VARCHAR, 6), st.text("abé", max_size=8)),
    "char": (pa.string(), ColumnType(TypeCode.CHAR, 3), st.text("xy", max_size=4)),
    "dec": (pa.decimal128(7, 2), ColumnType(TypeCode.DECIMAL, (5 << 8) | 2),
            st.integers(-10**7 + 1, 10**7 - 1).map(lambda u: Decimal(u).scaleb(-2))),
    "float": (pa.float64(), ColumnType(TypeCode.FLOAT, 8),
              st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.just(float("nan")))),
    "day": (pa.date32(), ColumnType(TypeCode.DATE, 4),
            st.one_of(st.integers(-700_000, 2_900_000), st.just(3_000_000))),
    "stamp": (pa.timestamp("s"), ColumnType(TypeCode.DATETIME, (14 << 8) | 10),
              st.integers(-62_135_596_800, 253_402_300_799)),
    "flag": (pa.bool_(), ColumnType(TypeCode.BOOLEAN, 1), st.booleans()),
}


@st.composite
def loads(draw):
    names = draw(st.lists(st.sampled_from(sorted(COLUMNS)), min_size=1, max_size=4))
    allow_bad = draw(st.booleans())
    sizes = draw(st.lists(st.integers(0, 40), min_size=1, max_size=4))
    batches = []
    for n in sizes:
        arrays = []
        for name in names:
            kind, _, values = COLUMNS[name]
            if name == "day" and not allow_bad:
                values = st.integers(-700_000, 2_900_000)
            cells = draw(st.lists(st.one_of(st.none(), values), min_size=n, max_size=n))
            arrays.append(pa.array(cells, pa.int32()).cast(kind) if name == "day"
                          else pa.array(cells, kind))
        batches.append(pa.record_batch(arrays, names=[f"c{i}" for i in range(len(names))]))
    table = pa.Table.from_batches(batches)
    return table, [COLUMNS[name][1] for name in names]


def outcome(chunks) -> list:
    """Every chunk (first row, requests, row counts, its rows again), then
    how the chunks ended: the error's class and row, or "end"."""
    out = []
    try:
        for first, blocks in chunks:
            out.append((first, list(blocks), list(blocks.counts), blocks.items[:]))
    except ifx.Error as exc:
        out.append((type(exc).__name__, exc.row_index))
        return out
    out.append("end")
    return out


def reference(table, types, chunk_size: int, chunk_bytes: int):
    put = cursor_for(types)

    def items():
        try:
            yield from put_images.reference_items(table, None, len(types), put, ENC)
        except ifx.Error as exc:
            raise ic.BadRow(exc) from None
    return ic.item_chunks(items(), put, chunk_size, chunk_bytes, row_errors.at_row)


def from_buffer(table, types, chunk_size: int, chunk_bytes: int):
    put = cursor_for(types)
    batches = put_images.put_batches(table, None, len(types), put, ENC)
    return put_requests.chunks(np, batches, put, chunk_size, chunk_bytes, row_errors.at_row)


@settings(max_examples=300, deadline=None)
@given(load=loads(), chunk_size=st.integers(1, 60), chunk_bytes=st.integers(1, 3000),
       block=st.integers(2, 400))
def test_requests_from_the_buffer_are_the_row_paths_byte_for_byte(
        load, chunk_size, chunk_bytes, block):
    table, types = load
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ic, "PUT_BLOCK_BYTES", block)
        mp.setattr(put_requests, "PUT_BLOCK_BYTES", block)
        fast = outcome(from_buffer(table, types, chunk_size, chunk_bytes))
        plain = outcome(reference(table, types, chunk_size, chunk_bytes))
    assert fast == plain


def sales(n: int, note=lambda i: None if i % 10 == 0 else f"note {i}"):
    return pa.table({
        "id": pa.array(range(n), pa.int32()),
        "sku": pa.array([f"SKU-{i % 9973:06d}" for i in range(n)]),
        "amount": pa.array([Decimal(i % 100000) / 100 for i in range(n)], pa.decimal128(12, 2)),
        "sold": pa.array([dt.datetime(2020, 1, 1, 8) + dt.timedelta(seconds=37 * i)
                          for i in range(n)], pa.timestamp("s")),
        "day": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=i % 3000) for i in range(n)]),
        "note": pa.array([note(i) for i in range(n)])})


SALES_TYPES = [ColumnType(TypeCode.INTEGER, 4), ColumnType(TypeCode.VARCHAR, 32),
               ColumnType(TypeCode.DECIMAL, (12 << 8) | 2),
               ColumnType(TypeCode.DATETIME, (14 << 8) | 10), ColumnType(TypeCode.DATE, 4),
               ColumnType(TypeCode.VARCHAR, 64)]


@pytest.mark.parametrize("chunk_size, chunk_bytes", [(4000, 1 << 22), (1000, 40_000),
                                                     (9000, 1 << 30), (4096, 1 << 22)])
def test_the_sales_table_at_full_block_size(chunk_size, chunk_bytes):
    """Real PUT blocks (32 KB, ~700 sales rows), batches of 4,096 rows that
    chunks and requests straddle."""
    table = sales(9000)
    fast = outcome(from_buffer(table, SALES_TYPES, chunk_size, chunk_bytes))
    assert fast == outcome(reference(table, SALES_TYPES, chunk_size, chunk_bytes))
    assert sum(len(chunk[1]) for chunk in fast[:-1]) > 9000 * 40 // ic.PUT_BLOCK_BYTES


def test_a_complete_chunk_is_handed_on_before_the_next_batch_is_read():
    table = sales(100)
    pulled = []
    put = cursor_for(SALES_TYPES)

    def batches():
        for batch in put_images.put_batches(table.slice(0, 50), None, 6, put, ENC):
            pulled.append(len(batch.starts))
            yield batch
        for batch in put_images.put_batches(table.slice(50), None, 6, put, ENC):
            pulled.append(len(batch.starts))
            yield batch
    chunks = put_requests.chunks(np, batches(), put, 50, 1 << 20, row_errors.at_row)
    first, blocks = next(chunks)
    assert (first, sum(blocks.counts), pulled) == (0, 50, [50])
    assert [f for f, _ in chunks] == [50] and pulled == [50, 50]


def test_a_failing_stream_sends_the_rows_it_gave_first():
    table = sales(70)

    class Boom(Exception):
        pass

    put = cursor_for(SALES_TYPES)

    def batches():
        yield from put_images.put_batches(table, None, 6, put, ENC)
        raise Boom
    chunks = put_requests.chunks(np, batches(), put, 50, 1 << 20, row_errors.at_row)
    assert [(f, sum(b.counts)) for f, b in [next(chunks), next(chunks)]] == [(0, 50), (50, 20)]
    with pytest.raises(Boom):
        next(chunks)


def test_rows_again_are_cut_from_the_buffer_as_the_row_path_has_them():
    table = sales(30)
    put = cursor_for(SALES_TYPES)
    [(_, blocks)] = from_buffer(table, SALES_TYPES, 100, 1 << 20)
    again = blocks.items[7:19]
    assert again == list(put_images.reference_items(table, None, 6, put, ENC))[7:19]
    # sent again through the reference, they make the same requests
    assert put.requests(blocks.items[:]) == (list(blocks), blocks.counts)


# -- through a server -------------------------------------------------------------

def _table(cur) -> str:
    t = unique("pr")
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, sku VARCHAR(32), "
                "amount DECIMAL(12,2), sold DATETIME YEAR TO SECOND, day DATE, "
                "note VARCHAR(64))")
    return t


def _ids(cur, t: str) -> list[int]:
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def _with_duplicates(n: int, at: list[int]):
    ids = list(range(n))
    for k in at:
        ids[k] = k - 1
    data = sales(n)
    return data.set_column(0, "id", pa.array(ids, pa.int32())), ids


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("k", [1, 700, 999, 1000, 2345])
def test_a_failing_row_in_the_middle_of_a_put_block(ifx_target, autocommit, k):
    """The duplicate at row k: exactly rows[:k] applied, the error naming k,
    whichever PUT block and chunk it falls in."""
    data, ids = _with_duplicates(3000, [k])
    with connect(ifx_target, autocommit=True) as check, \
            connect(ifx_target, autocommit=autocommit) as c:
        t = _table(check.cursor())
        cur = c.cursor()
        with pytest.raises(ifx.IntegrityError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", data,
                            chunk_size=1000)
        assert info.value.row_index == k
        assert cur.rowcount == k
        c.commit()
        assert _ids(check.cursor(), t) == ids[:k]


def test_batch_errors_from_arrow_apply_every_good_row(ifx_target):
    bad = [5, 6, 699, 700, 1500, 2999]           # each a duplicate of row 0
    ids = [0 if i in bad else i for i in range(3000)]
    data = sales(3000).set_column(0, "id", pa.array(ids, pa.int32()))
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = _table(cur)
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", data,
                        batch_errors=True, chunk_size=1000)
        assert [e.row_index for e in cur.batch_errors] == bad
        assert cur.rowcount == 3000 - len(bad)
        assert _ids(cur, t) == [i for i in range(3000) if i not in bad]


def test_asyncio_load_with_a_failing_row_in_a_block(ifx_target):
    import asyncio
    data, ids = _with_duplicates(2500, [1234])

    async def main(t: str) -> tuple[int, int]:
        conn = await ifx.connect_async(host=ifx_target.host, port=ifx_target.port,
                                       user=ifx_target.user, password=ifx_target.password,
                                       database=ifx_target.database, autocommit=True)
        cur = conn.cursor()
        try:
            await cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", data,
                                  chunk_size=1000)
        except ifx.IntegrityError as exc:
            return exc.row_index, cur.rowcount
        finally:
            await conn.close()
        raise AssertionError("the duplicate was not refused")

    with connect(ifx_target, autocommit=True) as check:
        t = _table(check.cursor())
        assert asyncio.run(main(t)) == (1234, 1234)
        assert _ids(check.cursor(), t) == ids[:1234]


def test_progress_counts_the_rows_of_each_chunk(ifx_target):
    seen = []
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = _table(cur)
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", sales(2500),
                        chunk_size=1000, progress=lambda rows, sent, _: seen.append((rows, sent)))
        assert [rows for rows, _ in seen] == [1000, 2000, 2500]
        assert all(b > a for (_, a), (_, b) in zip(seen, seen[1:]))
        assert _ids(cur, t) == list(range(2500))


def fixed(n: int, ids=None):
    """A table whose every row image is 39 bytes (odd: each row padded)."""
    return pa.table({
        "id": pa.array(ids if ids is not None else range(n), pa.int32()),
        "big": pa.array([None if i % 9 == 0 else i * 1_000_003 for i in range(n)], pa.int64()),
        "value": pa.array([i / 7 for i in range(n)]),
        "day": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=i % 3000) for i in range(n)]),
        "sold": pa.array([dt.datetime(2020, 1, 1, 8) + dt.timedelta(seconds=37 * i)
                          for i in range(n)], pa.timestamp("s")),
        "amount": pa.array([None if i % 11 == 0 else Decimal(i % 100000) / 100
                            for i in range(n)], pa.decimal128(12, 2))})


FIXED_DDL = ("id INTEGER PRIMARY KEY, big BIGINT, value FLOAT, day DATE, "
             "sold DATETIME YEAR TO SECOND, amount DECIMAL(12,2)")


def test_a_fixed_width_batch_is_dense_and_its_rows_go_as_slices():
    types = [ColumnType(TypeCode.INTEGER, 4), ColumnType(TypeCode.BIGINT, 8),
             ColumnType(TypeCode.FLOAT, 8), ColumnType(TypeCode.DATE, 4),
             ColumnType(TypeCode.DATETIME, (14 << 8) | 10),
             ColumnType(TypeCode.DECIMAL, (12 << 8) | 2)]
    table = fixed(9000)
    batch = next(put_images.put_batches(table, None, 6, cursor_for(types), ENC))
    assert batch.dense and set(batch.lengths.tolist()) == {39}
    fast = outcome(from_buffer(table, types, 4000, 1 << 22))
    assert fast == outcome(reference(table, types, 4000, 1 << 22))


@pytest.mark.parametrize("k", [None, 1, 840, 4095, 4096, 5000])
def test_a_fixed_width_load_reads_back_and_fails_exactly(ifx_target, k):
    ids = list(range(6000))
    if k is not None:
        ids[k] = k - 1
    data = fixed(6000, ids)
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = unique("prf")
        cur.execute(f"CREATE TABLE {t} ({FIXED_DDL})")
        sql = f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)"
        if k is None:
            cur.executemany(sql, data, chunk_size=2500)
        else:
            with pytest.raises(ifx.IntegrityError) as info:
                cur.executemany(sql, data, chunk_size=2500)
            assert info.value.row_index == k
        cur.execute(f"SELECT * FROM {t} ORDER BY id")
        got = cur.fetchall()
        want = [tuple(r.values()) for r in data.to_pylist()][:6000 if k is None else k]
        assert [tuple(r) for r in got] == sorted(want)
