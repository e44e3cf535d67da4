"""Adversary: a streaming cursor opened in a transaction, with read-ahead
out, when the transaction ends (COMMIT or ROLLBACK, blocking and asyncio):
a hold cursor gives every remaining row, in order, exactly once (Informix
keeps WITH HOLD cursors open across COMMIT WORK and ROLLBACK WORK); a
non-hold one raises -400 on its next fetch, never a short result."""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect, connect_async
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
N = 3000


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with connect(srv) as c:
            c.cursor().execute("CREATE TABLE t (n INT)")
            c.cursor().executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(N)])
            c.commit()
        yield srv


@pytest.mark.parametrize("end", ["commit", "rollback"])
@pytest.mark.parametrize("hold", [False, True])
def test_blocking(server, hold, end):
    conn = connect(server)
    cur = conn.cursor(hold=hold, fetch_buffer_size=1024)
    cur.execute("SELECT n FROM t ORDER BY n")
    head = [cur.fetchone()[0] for _ in range(5)]
    conn.cursor().execute("UPDATE t SET n = n WHERE n = 0")     # the transaction wrote
    getattr(conn, end)()
    if hold:
        assert head + [r[0] for r in cur.fetchall()] == list(range(N))
    else:
        with pytest.raises(ifx.ProgrammingError) as info:
            cur.fetchall()
        assert info.value.sqlcode == -400
    conn.close()


@pytest.mark.parametrize("end", ["commit", "rollback"])
@pytest.mark.parametrize("hold", [False, True])
def test_asyncio(server, hold, end):
    async def run():
        conn = await connect_async(server)
        try:
            cur = conn.cursor(hold=hold, fetch_buffer_size=1024)
            await cur.execute("SELECT n FROM t ORDER BY n")
            head = [(await cur.fetchone())[0] for _ in range(5)]
            await getattr(conn, end)()
            try:
                return head + [r[0] for r in await cur.fetchall()]
            except ifx.ProgrammingError as exc:
                return exc.sqlcode
        finally:
            await conn.close()
    got = asyncio.run(asyncio.wait_for(run(), 60))
    assert got == (list(range(N)) if hold else -400)
