"""Issue 9 item 1 for the asyncio driver: a task cancelled at a chosen byte.

The fault proxy calls ``loop.call_soon_threadsafe(task.cancel)`` once a
chosen byte of the request or reply has gone through -- the asyncio form of
a Ctrl-C.  Afterwards the connection is consistent (the next statement gives
exactly its own result) or broken (``closed`` is True and every later call
raises OperationalError or InterfaceError), as in test_interrupts.py.
"""

from __future__ import annotations

import itertools

import pytest

import informix_stream as ifx
from faults.emu import connect_async, rows
from faults.sweeps import cancelled_at, offsets_of
from test_interrupts import SAMPLE, _tables, unique

SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)
_values = itertools.count(10_000_000)
_runs = itertools.count(1)
pytestmark = pytest.mark.timeout(240)


def test_task_cancelled_at_a_byte_never_shifts_the_next_statement(emu, proxy, direct, loop):
    t1, t2 = _tables(direct)

    async def insert(conn, v):
        await conn.cursor().execute(f"INSERT INTO {t1} VALUES (?)", (v,))

    async def select_t2(conn):
        cur = conn.cursor()
        await cur.execute(f"SELECT id FROM {t2} WHERE id < 0 ORDER BY id")
        return await cur.fetchall()

    probe = loop.run_until_complete(connect_async(proxy, autocommit=True))
    offsets = offsets_of(loop, proxy, lambda: insert(probe, 0), SAMPLE)
    loop.run_until_complete(probe.close())
    cancelled = 0
    for direction, offset in offsets:
        v = next(_values)
        conn = loop.run_until_complete(connect_async(proxy, autocommit=True))
        cancelled += cancelled_at(loop, proxy, direction, offset, insert(conn, v))
        if conn.closed:
            with pytest.raises(SIGNALLED):
                loop.run_until_complete(select_t2(conn))
        else:
            assert loop.run_until_complete(select_t2(conn)) == [(-3,), (-2,), (-1,)]
        assert rows(direct, f"SELECT COUNT(*) FROM {t1} WHERE id = ?", (v,))[0][0] <= 1
        loop.run_until_complete(conn.close())
    assert cancelled > SAMPLE


def test_task_cancelled_during_a_stream(emu, proxy, direct, loop):
    t, other = unique("astream"), unique("aother")
    cur = direct.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, name VARCHAR(20))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, f"n{i}") for i in range(300)])
    cur.execute(f"CREATE TABLE {other} (id INTEGER)")
    cur.executemany(f"INSERT INTO {other} VALUES (?)", [(-i,) for i in range(5)])
    want = [(i, f"n{i}") for i in range(300)]

    async def reader(conn, seen):
        c = conn.cursor(fetch_buffer_size=200)
        seen.append(c)
        await c.execute(f"SELECT id, name FROM {t} ORDER BY id")
        async for row in c:
            seen.append(row)

    async def after(conn):
        c = conn.cursor()
        await c.execute(f"SELECT id FROM {other} ORDER BY id")
        return await c.fetchall()

    probe = loop.run_until_complete(connect_async(proxy, autocommit=True))
    offsets = offsets_of(loop, proxy, lambda: reader(probe, []), 40)
    loop.run_until_complete(probe.close())
    for direction, offset in offsets:
        conn = loop.run_until_complete(connect_async(proxy, autocommit=True, read_timeout=5))
        seen: list = []
        cut = cancelled_at(loop, proxy, direction, offset, reader(conn, seen))
        got = seen[1:]
        assert got == want[:len(got)], (direction, offset)
        if not cut:
            assert got == want
        else:
            try:
                rest = loop.run_until_complete(seen[0].fetchall())
            except SIGNALLED:
                pass
            else:
                assert got + rest == want, (direction, offset, len(got), len(rest))
            if conn.closed:
                with pytest.raises(SIGNALLED):
                    loop.run_until_complete(after(conn))
            else:
                assert loop.run_until_complete(after(conn)) == [(-4,), (-3,), (-2,), (-1,), (0,)]
        loop.run_until_complete(conn.close())


@pytest.mark.parametrize("source", ["tuples", "arrow"])
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_task_cancelled_inside_executemany(emu, proxy, direct, loop, autocommit, source):
    """From Arrow the rows go by the insert cursor's requests cut from a
    dense image buffer (arrow/put_requests.py)."""
    t = unique("aemi")
    direct.cursor().execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, run INTEGER)")
    n = 120

    def data(run):
        rows = [(run * 1000 + i, run) for i in range(n)]
        if source == "tuples":
            return rows
        pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
        ids, runs = zip(*rows)
        return pa.table({"id": pa.array(ids, pa.int32()), "run": pa.array(runs, pa.int32())})

    async def load(conn, run):
        await conn.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", data(run),
                                        chunk_size=25)

    probe = loop.run_until_complete(connect_async(proxy, autocommit=True))
    offsets = offsets_of(loop, proxy, lambda: load(probe, 0), 30)
    loop.run_until_complete(probe.close())
    for direction, offset in offsets:
        run = next(_runs)
        conn = loop.run_until_complete(connect_async(proxy, autocommit=autocommit))
        cut = cancelled_at(loop, proxy, direction, offset, load(conn, run))
        if not autocommit and not conn.closed:
            loop.run_until_complete(conn.rollback())
        landed = [r[0] - run * 1000 for r in
                  rows(direct, f"SELECT id FROM {t} WHERE run = ? ORDER BY id", (run,))]
        if not autocommit:
            assert landed == [], (direction, offset)
        elif not cut:
            assert landed == list(range(n))
        else:
            assert landed == list(range(len(landed))), (direction, offset, landed[:5])
        loop.run_until_complete(conn.close())
