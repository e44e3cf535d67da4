"""Progress callbacks for long loads and reads (issue 14 item 5).

``progress(rows, bytes, elapsed)`` is called as fetch buffers arrive on a
streaming read and after each chunk of an executemany; the figures only
grow, the last call reports every row, and an exception raised by the
callback reaches the caller with the connection usable and, for
executemany, exactly the reported rows applied.
"""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from test_driver import connect, unique


@pytest.fixture
def table(ifx_target):
    t = unique("progress")
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"CREATE TABLE {t} (id INTEGER, name VARCHAR(40))")
    yield t
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"DROP TABLE {t}")


def rows(n):
    return ((i, f"name {i:08d}") for i in range(n))


def test_executemany_and_streaming_read_report_progress(ifx_target, table):
    conn = connect(ifx_target, autocommit=True, fetch_buffer_size=4096)
    cur = conn.cursor()
    loads: list[tuple] = []
    cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows(2500), chunk_size=1000,
                    progress=lambda *a: loads.append(a))
    assert [r for r, _, _ in loads] == [1000, 2000, 2500]
    assert all(b2 > b1 for (_, b1, _), (_, b2, _) in zip(loads, loads[1:]))
    assert all(t2 >= t1 >= 0 for (_, _, t1), (_, _, t2) in zip(loads, loads[1:]))

    reads: list[tuple] = []
    cur.execute(f"SELECT id, name FROM {table} ORDER BY id", progress=lambda *a: reads.append(a))
    got = [r[0] for r in cur]
    assert got == list(range(2500))
    counts = [r for r, _, _ in reads]
    assert len(counts) > 5                           # one call per fetch buffer, not per row
    assert counts == sorted(set(counts)) and counts[-1] == 2500
    assert reads[-1][1] > 2500 * 14                  # the row images at least
    conn.close()


def test_a_callback_that_raises_stops_executemany_after_the_reported_rows(ifx_target, table):
    conn = connect(ifx_target, autocommit=True)
    cur = conn.cursor()

    def stop_at_2000(done, nbytes, elapsed):
        if done >= 2000:
            raise KeyboardInterrupt("enough")

    with pytest.raises(KeyboardInterrupt):
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows(5000), chunk_size=1000,
                        progress=stop_at_2000)
    cur.execute(f"SELECT count(*) FROM {table}")
    assert cur.fetchone() == (2000,)                 # exactly the reported rows
    conn.close()


def test_a_callback_that_raises_during_a_read_leaves_the_cursor_usable(ifx_target, table):
    conn = connect(ifx_target, autocommit=True, fetch_buffer_size=2048)
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows(1000))
    calls = []

    def flaky(done, nbytes, elapsed):
        calls.append(done)
        if len(calls) == 2:
            raise RuntimeError("progress bar broke")

    cur.execute(f"SELECT id FROM {table} ORDER BY id", progress=flaky)
    seen = []
    with pytest.raises(RuntimeError):
        for row in cur:
            seen.append(row[0])
    seen += [r[0] for r in cur]                      # iteration resumes where it stopped
    assert seen == list(range(1000))
    with pytest.raises(ifx.ProgrammingError):
        cur.execute("SELECT 1 FROM systables", progress="not callable")
    conn.close()


def test_asyncio_progress(ifx_target, table):
    async def main():
        conn = await ifx.connect_async(host=ifx_target.host, port=ifx_target.port,
                                       user=ifx_target.user, password=ifx_target.password,
                                       database=ifx_target.database, autocommit=True)
        cur = conn.cursor()
        loads, reads = [], []
        await cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows(1500),
                              chunk_size=500, progress=lambda *a: loads.append(a[0]))
        await cur.execute(f"SELECT id FROM {table}", progress=lambda *a: reads.append(a[0]))
        n = len([r async for r in cur])
        await conn.close()
        return loads, reads, n

    loads, reads, n = asyncio.run(main())
    assert loads == [500, 1000, 1500]
    assert n == 1500 and reads[-1] == 1500
