"""A task cancelled (asyncio: getconn's own timeout cancels its wait
mid-ping; a caller's task cancelled mid-rollback) or a Ctrl-C (blocking)
while a pool vets or takes back a connection must not leave the connection
counted as in use: before, the pool's place stayed taken for ever and a pool
of one then timed out every later caller.  The half-used connection is
closed, never handed on."""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, PASSWORD, USER

pytestmark = pytest.mark.timeout(60)


def _pool(server, **kw) -> ifx.AsyncConnectionPool:
    return ifx.AsyncConnectionPool(min_size=1, max_size=1, host="127.0.0.1", port=server.port,
                                   user=USER, password=PASSWORD, database=DATABASE,
                                   read_timeout=30, connect_timeout=10, **kw)


async def _hang(*_args, **_kw):
    await asyncio.Event().wait()


def test_a_timeout_while_the_pool_pings_frees_the_place(server):
    async def main() -> None:
        async with _pool(server, check_after=0) as pool:
            idle = pool._idle[0].conn
            idle._wait = _hang                    # the vetting ping never answers
            with pytest.raises(ifx.PoolTimeout):
                await pool.getconn(timeout=0.3)
            assert idle.closed
            conn = await pool.getconn(timeout=5)  # a new connection takes the place
            assert conn is not idle
            cur = conn.cursor()
            await cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
            assert await cur.fetchone() == (1,)
            await pool.putconn(conn)
            assert pool.get_stats()["pool_size"] == 1
    asyncio.run(main())


def test_a_cancel_during_the_rollback_of_a_return_frees_the_place(server):
    async def main() -> None:
        async with _pool(server) as pool:
            conn = await pool.getconn()
            await conn.cursor().execute("SELECT COUNT(*) FROM systables")
            conn._session.in_transaction = True   # so putconn must roll back
            conn.rollback = _hang
            task = asyncio.ensure_future(pool.putconn(conn))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert conn.closed
            again = await pool.getconn(timeout=5)
            assert again is not conn
            await pool.putconn(again)
            stats = pool.get_stats()
            assert stats["pool_size"] == 1 and stats["pool_available"] == 1
    asyncio.run(main())


def test_the_blocking_pool_frees_the_place_after_an_interrupted_rollback(server):
    def interrupted() -> None:
        raise KeyboardInterrupt
    with ifx.ConnectionPool(min_size=1, max_size=1, host="127.0.0.1", port=server.port,
                            user=USER, password=PASSWORD, database=DATABASE,
                            read_timeout=30, connect_timeout=10) as pool:
        conn = pool.getconn()
        conn._session.in_transaction = True       # so putconn must roll back
        conn.rollback = interrupted
        with pytest.raises(KeyboardInterrupt):
            pool.putconn(conn)
        assert conn.closed
        again = pool.getconn(timeout=5)
        assert again is not conn
        pool.putconn(again)
        assert pool.get_stats()["pool_available"] == 1


def test_the_blocking_pool_frees_the_place_after_an_interrupted_ping(server):
    def interrupted(*_args) -> None:
        raise KeyboardInterrupt
    with ifx.ConnectionPool(min_size=1, max_size=1, host="127.0.0.1", port=server.port,
                            user=USER, password=PASSWORD, database=DATABASE, check_after=0,
                            read_timeout=30, connect_timeout=10) as pool:
        idle = pool._idle[0].conn
        idle._wait = interrupted
        with pytest.raises(KeyboardInterrupt):
            pool.getconn(timeout=5)
        assert idle.closed
        conn = pool.getconn(timeout=5)
        assert conn is not idle
        pool.putconn(conn)
