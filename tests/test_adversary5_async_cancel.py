"""Adversary: an asyncio task cancelled at a byte of ``load_arrow``,
``executemany(insert_cursor=True)`` (PUT blocks and FLUSH), ``executemany``
with ``batch_errors``, ``fetch_arrow_batches`` and ``connect_async``'s login.

Rules (issue 9 item 1): the task ends in CancelledError (never swallowed)
or completes; the connection is then consistent -- its next statement gives
exactly its own result -- or closed, every later call refusing; rows landed
are a prefix of what was sent in autocommit mode and nothing after a
rollback in a transaction; the batches a reader saw are a prefix of the
result, and reading on gives exactly the rest or a PEP 249 error.
"""

from __future__ import annotations

import asyncio
import time

import pytest

pa = pytest.importorskip("pyarrow", reason="load_arrow and Arrow fetches need the arrow extra")

import informix_stream as ifx  # noqa: E402
from faults.emu import connect_async, rows  # noqa: E402
from faults.proxy import C2S, CALL, S2C, Fault, sweep  # noqa: E402
from faults.sweeps import cancel_sweep, cancelled_at, offsets_of  # noqa: E402
from test_interrupts import unique  # noqa: E402

SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)
SAMPLE = 14
N = 400
pytestmark = pytest.mark.timeout(300)


def _check_next(loop, conn, table: str) -> None:
    """The statement after a cut: its own answer, or a refusal if broken."""
    async def count():
        cur = conn.cursor()
        await cur.execute(f"SELECT COUNT(*) FROM {table} WHERE run = -1")
        return await cur.fetchall()
    if conn.closed:
        with pytest.raises(SIGNALLED):
            loop.run_until_complete(count())
    else:
        assert loop.run_until_complete(count()) == [(3,)]


def _loader_table(direct) -> str:
    t = unique("aload")
    cur = direct.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, run INTEGER, name VARCHAR(30))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, -1, 'x')", [(-i,) for i in range(1, 4)])
    return t


def _data(run: int) -> list[tuple]:
    return [(run * 10_000 + i, run, f"name {i}") for i in range(N)]


LOADS = {
    "load_arrow": lambda cur, t, data: cur.load_arrow(
        t, pa.table({"id": [r[0] for r in data], "run": [r[1] for r in data],
                     "name": [r[2] for r in data]}), chunk_size=64),
    "insert_cursor": lambda cur, t, data: cur.executemany(
        f"INSERT INTO {t} VALUES (?, ?, ?)", data, insert_cursor=True, chunk_size=64),
    "batch_errors": lambda cur, t, data: cur.executemany(
        f"INSERT INTO {t} VALUES (?, ?, ?)", data, batch_errors=True, chunk_size=64),
}


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("how", sorted(LOADS))
def test_cancel_inside_a_load(emu, proxy, direct, loop, how, autocommit):
    t = _loader_table(direct)

    def load(conn, run):
        cur = conn.cursor()
        return cur, LOADS[how](cur, t, _data(run))

    def check(cut):
        conn, where = cut.conn, cut.where
        _check_next(loop, conn, t)
        if not autocommit and not conn.closed:
            loop.run_until_complete(conn.rollback())
        landed = [r[0] - cut.run * 10_000 for r in
                  rows(direct, f"SELECT id FROM {t} WHERE run = ? ORDER BY id", (cut.run,))]
        if not autocommit:
            assert landed == [], (*where, landed[:5])
        elif not cut.hit:
            assert landed == list(range(N)), where
        else:
            assert landed == list(range(len(landed))), (*where, landed[:5])

    cuts = cancel_sweep(emu, proxy, loop, load, check, SAMPLE,
                        probe_kw={"autocommit": True}, autocommit=autocommit)
    assert cuts > SAMPLE // 2


def test_cancel_inside_fetch_arrow_batches(emu, proxy, direct, loop):
    t = _loader_table(direct)
    direct.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", _data(7))
    want = [r[0] for r in rows(direct, f"SELECT id FROM {t} ORDER BY id")]

    async def reader(conn, seen):
        cur = conn.cursor(fetch_buffer_size=512)
        seen.append(cur)
        await cur.execute(f"SELECT id FROM {t} ORDER BY id")
        async for batch in cur.fetch_arrow_batches(batch_rows=50):
            seen.extend(batch.column(0).to_pylist())

    probe = loop.run_until_complete(connect_async(proxy, autocommit=True))
    offsets = offsets_of(loop, proxy, lambda: reader(probe, []), SAMPLE)
    loop.run_until_complete(probe.close())
    for direction, offset in offsets:
        conn = loop.run_until_complete(connect_async(proxy, autocommit=True, read_timeout=5))
        seen: list = []
        cut = cancelled_at(loop, proxy, direction, offset, reader(conn, seen))
        got = seen[1:]
        assert got == want[:len(got)], (direction, offset)
        if not cut:
            assert got == want
        elif len(seen) > 0:
            try:
                rest = loop.run_until_complete(seen[0].fetchall())
            except SIGNALLED:
                pass
            else:
                assert got + [r[0] for r in rest] == want, (direction, offset)
        _check_next(loop, conn, t)
        loop.run_until_complete(conn.close())


def _live_sessions(emu) -> int:
    return len([s for s in list(emu.sessions) if not s.ended])


def test_cancel_inside_the_login(emu, proxy, loop):
    """A connect_async cancelled at a byte of its login: CancelledError or a
    connection, no half-made session left on the server, and the next login
    works."""
    made: list = []

    async def login():
        made.append(await connect_async(proxy))

    conn = loop.run_until_complete(connect_async(proxy))
    c2s, s2c = proxy.counts()                  # one whole login's bytes each way
    loop.run_until_complete(conn.close())
    cuts = 0
    for direction, total in ((C2S, c2s), (S2C, s2c)):
        for offset in sweep(total, SAMPLE):
            task = loop.create_task(login())
            proxy.arm_next(Fault(direction, offset, CALL, pause=0.003,
                                 callback=lambda: loop.call_soon_threadsafe(task.cancel)))
            try:
                loop.run_until_complete(task)
            except asyncio.CancelledError:
                cuts += 1
            finally:
                proxy.disarm()
            for c in made:
                loop.run_until_complete(c.close())
            made.clear()
            ok = loop.run_until_complete(connect_async(proxy))
            cur = ok.cursor()
            loop.run_until_complete(cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1"))
            assert loop.run_until_complete(cur.fetchall()) == [(1,)]
            loop.run_until_complete(ok.close())
    assert cuts > SAMPLE
    deadline = time.monotonic() + 10
    while _live_sessions(emu) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _live_sessions(emu) == 0
