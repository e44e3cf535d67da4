"""Arrow results from real cursors: the same values as the tuple path, across
fetch buffers, read-ahead, row factories and mixed reading, blocking and
asyncio."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import pytest

pytest.importorskip("numpy", reason="the arrow extra (numpy, pyarrow) is not installed")
pa = pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")

import informix_stream as ifx  # noqa: E402
from test_driver import unique  # noqa: E402

SALES = ("id INTEGER, sku VARCHAR(32), amount DECIMAL(12,2), sold DATETIME YEAR TO SECOND, "
         "day DATE, note VARCHAR(64)")


def sale(i: int) -> tuple:
    return (i, f"SKU-{i % 97:06d}", Decimal(i % 100000) / 100 * (-1 if i % 7 == 0 else 1),
            dt.datetime(2020, 1, 1, 8) + dt.timedelta(seconds=i * 37),
            dt.date(2020, 1, 1) + dt.timedelta(days=i % 3000),
            None if i % 10 == 0 else f"note {i}")


def _connect(target, **kw):
    return ifx.connect(host=target.host, port=target.port, user=target.user,
                       password=target.password, database=target.database,
                       server=target.server, read_timeout=60, **kw)


@pytest.fixture(scope="module")
def sales(ifx_target):
    table = unique("arrow_sales")
    with _connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} ({SALES})")
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?)",
                        (sale(i) for i in range(1500)))
    yield table
    with _connect(ifx_target, autocommit=True) as conn:
        conn.cursor().execute(f"DROP TABLE {table}")


@pytest.fixture
def conn(ifx_target):
    c = _connect(ifx_target, autocommit=True)
    yield c
    c.close()


def as_rows(table) -> list[tuple]:
    return [tuple(d.values()) for d in table.to_pylist()]


def test_batches_hold_the_tuple_paths_values(conn, sales):
    cur = conn.cursor(fetch_buffer_size=4096)
    cur.execute(f"SELECT * FROM {sales} ORDER BY id")
    batches = list(cur.fetch_arrow_batches(batch_rows=100))
    assert all(b.num_rows <= 100 for b in batches) and len(batches) >= 15
    table = pa.Table.from_batches(batches)
    assert as_rows(table) == [sale(i) for i in range(1500)]
    assert [str(t) for t in table.schema.types] == [
        "int32", "string", "decimal128(12, 2)", "timestamp[s]", "date32[day]", "string"]
    assert table.column("note").null_count == 150


def test_reading_mixed_with_fetchone_loses_and_repeats_nothing(conn, sales):
    cur = conn.cursor(fetch_buffer_size=2048)
    cur.execute(f"SELECT * FROM {sales} ORDER BY id")
    got = [cur.fetchone() for _ in range(3)]
    batches = cur.fetch_arrow_batches(batch_rows=250)
    got += as_rows(pa.Table.from_batches([next(batches)]))
    got += [cur.fetchone() for _ in range(40)]        # rows that arrived as images
    got += as_rows(cur.fetch_arrow_table())
    assert got == [sale(i) for i in range(1500)]
    assert cur.fetchone() is None
    cur.execute("SELECT COUNT(*) FROM systables")     # the connection is in step
    assert cur.fetchone()[0] > 0


def test_row_factory_does_not_reach_arrow(conn, sales):
    cur = conn.cursor(row_factory=ifx.dict_row if hasattr(ifx, "dict_row") else None)
    cur.execute(f"SELECT id, note FROM {sales} WHERE id < 20 ORDER BY id")
    first = cur.fetchone()
    table = cur.fetch_arrow_table()
    assert table.column("id").to_pylist() == list(range(1, 20))
    assert first in ((0, None), {"id": 0, "note": None})


def test_reader_and_capsule_stream(conn, sales):
    cur = conn.cursor()
    cur.execute(f"SELECT id, amount FROM {sales} WHERE id < 500 ORDER BY id")
    reader = cur.fetch_arrow_reader(batch_rows=64)
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.read_all().num_rows == 500
    cur.execute(f"SELECT id, amount FROM {sales} WHERE id < 500 ORDER BY id")
    table = pa.table(cur)                             # through __arrow_c_stream__
    assert table.column("amount").to_pylist() == [sale(i)[2] for i in range(500)]


def test_empty_result_has_the_schema(conn, sales):
    cur = conn.cursor()
    cur.execute(f"SELECT * FROM {sales} WHERE id < 0")
    table = cur.fetch_arrow_table()
    assert table.num_rows == 0 and table.schema.names == ["id", "sku", "amount", "sold",
                                                          "day", "note"]


def test_fixed_width_shape_and_every_vectorised_type(conn):
    table = unique("arrow_fixed")
    cur = conn.cursor(fetch_buffer_size=1024)
    cur.execute(f"CREATE TABLE {table} (a SMALLINT, b INTEGER, c BIGINT, d INT8, e FLOAT, "
                "f SMALLFLOAT, g DATE, h DATETIME YEAR TO FRACTION(3), i DECIMAL(18,4), "
                "j CHAR(6), k MONEY(8,2))")
    rows = [(i - 50, i * 1000, -(i ** 8), i * 10 ** 12, i / 3, 0.5, dt.date(1, 1, 1) +
             dt.timedelta(days=i * 4000), dt.datetime(2024, 2, 29, 1, 2, 3, i * 1000),
             Decimal(i * 1234567) / 10000, f"c{i}", Decimal(i) / 100) for i in range(200)]
    rows.append((None,) * 11)
    cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    cur.execute(f"SELECT * FROM {table}")
    expect = cur.fetchall()
    cur.execute(f"SELECT * FROM {table}")
    got = as_rows(cur.fetch_arrow_table(batch_rows=33))
    assert [r[:8] + (r[8], r[9].rstrip() if r[9] else None, r[10]) for r in got] == \
        [r[:9] + (r[9].rstrip() if r[9] else None, r[10]) for r in expect]


def test_scrollable_cursor_is_refused(conn, sales):
    cur = conn.cursor(scrollable=True)
    cur.execute(f"SELECT * FROM {sales}")
    with pytest.raises(ifx.NotSupportedError):
        cur.fetch_arrow_table()


def test_asyncio_batches_and_table(ifx_target, sales):
    async def run():
        conn = await ifx.connect_async(host=ifx_target.host, port=ifx_target.port,
                                       user=ifx_target.user, password=ifx_target.password,
                                       database=ifx_target.database, server=ifx_target.server,
                                       read_timeout=60)
        try:
            cur = conn.cursor(fetch_buffer_size=4096)
            await cur.execute(f"SELECT * FROM {sales} ORDER BY id")
            sizes = [b.num_rows async for b in cur.fetch_arrow_batches(batch_rows=400)]
            await cur.execute(f"SELECT * FROM {sales} ORDER BY id")
            table = await cur.fetch_arrow_table()
            return sizes, table
        finally:
            await conn.close()
    sizes, table = asyncio.run(asyncio.wait_for(run(), 60))
    assert sum(sizes) == 1500 and max(sizes) <= 400
    assert as_rows(table) == [sale(i) for i in range(1500)]


def _hostile_fetch(nth: int, payloads: list[bytes]):
    """Replace the reply to the nth NFETCH (after the OPEN's) with these rows."""
    from faults.hostile import done, eot, is_fetch, tuple_msg
    seen = []

    def tamper(messages, reply):
        if not is_fetch(messages) or any(getattr(m, "name", "") for m in messages
                                         if type(m).__name__ == "CurName"):
            return None
        seen.append(1)
        if len(seen) != nth:
            return None
        return [b"".join(tuple_msg(len(p), p) for p in payloads) + done(len(payloads)) + eot()]
    return tamper


@pytest.fixture
def hostile_conn():
    from faults.emu import DATABASE, PASSWORD, USER
    from faults.hostile import HostileServer
    with HostileServer() as h:
        conn = ifx.connect(host=h.host, port=h.port, user=USER, password=PASSWORD,
                           database=DATABASE, autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER, d DATE, name VARCHAR(10))")
        cur.executemany("INSERT INTO t VALUES (?, ?, ?)",
                        [(i, dt.date(2020, 1, 1), "n") for i in range(400)])
        yield h, conn
        conn.close()


@pytest.mark.timeout(60)
def test_bad_value_in_an_arrow_batch_is_a_data_error_and_the_connection_lives(
        hostile_conn):
    h, conn = hostile_conn
    bad_date = b"\x00\x00\x00\x01" + b"\x7f\xff\xff\xff" + b"\x01n"   # day 2**31-1
    h.tamper = _hostile_fetch(2, [bad_date])
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT id, d, name FROM t ORDER BY id")
    with pytest.raises(ifx.DataError):
        cur.fetch_arrow_table()
    with pytest.raises(ifx.InterfaceError, match="ended early"):
        cur.fetchone()
    assert not conn.closed
    cur.execute("SELECT COUNT(*) FROM t")
    assert cur.fetchone() == (400,)


@pytest.mark.timeout(60)
def test_rows_that_do_not_frame_in_an_arrow_batch_break_the_connection(hostile_conn):
    h, conn = hostile_conn
    short = b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01" + b"\x05n"        # 5 said, 1 there
    h.tamper = _hostile_fetch(2, [short])
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT id, d, name FROM t ORDER BY id")
    with pytest.raises(ifx.OperationalError):
        cur.fetch_arrow_table()
    assert conn.closed
    with pytest.raises((ifx.OperationalError, ifx.InterfaceError)):
        conn.cursor().execute("SELECT COUNT(*) FROM t")
