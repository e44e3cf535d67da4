"""Connection pools, blocking and asyncio: limits, reset on return, faults, fork."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

import informix_stream as ifx
from informix_stream.emulator import EmulatorServer
from test_driver import unique


def kwargs(target, **kw) -> dict:
    return dict(host=target.host, port=target.port, user=target.user,
                password=target.password, database=target.database, server=target.server,
                read_timeout=30, **kw)


@pytest.fixture
def table(ifx_target) -> str:
    t = unique("pool")
    with ifx.connect(**kwargs(ifx_target)) as c:
        c.cursor().execute(f"CREATE TABLE {t} (id INTEGER, who VARCHAR(20))")
    return t


def count(target, table: str) -> int:
    with ifx.connect(**kwargs(target)) as c:
        cur = c.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        return cur.fetchone()[0]


def test_connection_block_commits_and_rolls_back(ifx_target, table):
    with ifx.ConnectionPool(min_size=1, max_size=2, **kwargs(ifx_target)) as pool:
        with pool.connection() as conn:
            conn.execute(f"INSERT INTO {table} VALUES (1, 'a')")
        with pytest.raises(RuntimeError):
            with pool.connection() as conn:
                conn.execute(f"INSERT INTO {table} VALUES (2, 'b')")
                raise RuntimeError("boom")
    assert count(ifx_target, table) == 1


def test_limits_timeout_and_stats(ifx_target):
    with ifx.ConnectionPool(min_size=1, max_size=2, timeout=5, **kwargs(ifx_target)) as pool:
        a, b = pool.getconn(), pool.getconn()
        started = time.monotonic()
        with pytest.raises(ifx.PoolTimeout):
            pool.getconn(timeout=0.3)
        assert 0.25 < time.monotonic() - started < 5
        pool.putconn(a)
        assert pool.getconn(timeout=1) is a          # the warm one comes back
        pool.putconn(a)
        pool.putconn(b)
        stats = pool.get_stats()
        assert stats["pool_size"] == 2 and stats["pool_available"] == 2
        assert stats["requests_num"] == 3 and stats["requests_errors"] == 1


def test_reset_on_return_rolls_back_and_closes_cursors(ifx_target, table):
    with ifx.ConnectionPool(min_size=1, max_size=1, **kwargs(ifx_target)) as pool:
        conn = pool.getconn()
        conn.cursor().execute(f"INSERT INTO {table} VALUES (7, 'uncommitted')")
        stream = conn.cursor(fetch_buffer_size=64)
        stream.execute("SELECT tabid FROM systables")
        stream.fetchone()
        assert conn.in_transaction
        pool.putconn(conn)
        assert stream.closed
        again = pool.getconn()
        assert again is conn and not again.in_transaction
        cur = again.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        assert cur.fetchone() == (0,)
        pool.putconn(again)


def test_broken_connection_is_replaced(ifx_target):
    with ifx.ConnectionPool(min_size=1, max_size=1, **kwargs(ifx_target)) as pool:
        conn = pool.getconn()
        conn._io.sock.close()
        with pytest.raises(ifx.OperationalError):
            conn.execute("SELECT 1 FROM systables WHERE tabid = 1")
        pool.putconn(conn)
        fresh = pool.getconn(timeout=5)
        assert fresh is not conn
        cur = fresh.cursor()
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
        assert cur.fetchone() == (1,)
        pool.putconn(fresh)
        assert pool.get_stats()["returns_bad"] == 1


def test_server_killed_while_connections_are_checked_out():
    srv = EmulatorServer(databases=("testdb",)).start()
    kw = dict(host=srv.host, port=srv.port, password="in4mix", database="testdb",
              read_timeout=10)
    pool = ifx.ConnectionPool(min_size=2, max_size=2, **kw)
    a, b = pool.getconn(), pool.getconn()
    srv.stop()
    for conn in (a, b):
        with pytest.raises(ifx.OperationalError):
            conn.execute("SELECT 1 FROM systables WHERE tabid = 1")
        pool.putconn(conn)
    with pytest.raises(ifx.OperationalError):
        pool.getconn(timeout=2)                  # nothing to connect to now
    pool.close()


def test_idle_connection_dropped_by_server_is_not_handed_out(ifx_target):
    with ifx.ConnectionPool(min_size=1, max_size=1, **kwargs(ifx_target)) as pool:
        conn = pool.getconn()
        pool.putconn(conn)
        conn._io.sock.close()        # as if the server had gone away meanwhile
        fresh = pool.getconn(timeout=5)
        assert fresh is not conn and not fresh.closed
        pool.putconn(fresh)
        assert pool.get_stats()["connections_lost"] >= 1


def test_threads_share_a_pool(ifx_target, table):
    errors: list = []
    with ifx.ConnectionPool(min_size=2, max_size=4, **kwargs(ifx_target)) as pool:
        def work(k: int) -> None:
            try:
                for i in range(20):
                    with pool.connection() as conn:
                        conn.execute(f"INSERT INTO {table} VALUES (?, ?)", (i, f"t{k}"))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        assert pool.get_stats()["pool_size"] <= 4
    assert errors == []
    assert count(ifx_target, table) == 160


def test_close_waits_for_checked_out_connections(ifx_target):
    pool = ifx.ConnectionPool(min_size=1, max_size=1, **kwargs(ifx_target))
    conn = pool.getconn()
    threading.Timer(0.3, pool.putconn, args=(conn,)).start()
    started = time.monotonic()
    pool.close(timeout=5)
    assert 0.2 < time.monotonic() - started < 5
    assert conn.closed
    with pytest.raises(ifx.PoolClosed):
        pool.getconn()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_pool_and_connection_refuse_in_a_forked_child(ifx_target):
    with ifx.ConnectionPool(min_size=1, max_size=1, **kwargs(ifx_target)) as pool:
        conn = pool.getconn()
        pid = os.fork()
        if pid == 0:                                  # the child
            code = 0
            for attempt in (lambda: pool.getconn(), lambda: conn.cursor()):
                try:
                    attempt()
                    code |= 1
                except ifx.InterfaceError:
                    pass
                except BaseException:  # noqa: BLE001
                    code |= 2
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        cur = conn.cursor()                           # the parent's socket is intact
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
        assert cur.fetchone() == (1,)
        pool.putconn(conn)


def test_async_pool_32_tasks_over_8_connections(ifx_target, table):
    with ifx.connect(**kwargs(ifx_target, autocommit=True)) as c:
        c.cursor().executemany(f"INSERT INTO {table} VALUES (?, 'r')",
                               ((i,) for i in range(3200)))

    async def main() -> list:
        async with ifx.AsyncConnectionPool(min_size=2, max_size=8,
                                           **kwargs(ifx_target)) as pool:
            async def task(k: int) -> list:
                async with pool.connection() as conn:
                    cur = conn.cursor(fetch_buffer_size=256)
                    await cur.execute(f"SELECT id FROM {table} WHERE id >= ? AND id < ? "
                                      "ORDER BY id", (k * 100, k * 100 + 100))
                    return [r[0] async for r in cur]
            results = await asyncio.gather(*(task(k) for k in range(32)))
            assert pool.get_stats()["pool_size"] <= 8
            return results

    results = asyncio.run(main())
    assert results == [list(range(k * 100, k * 100 + 100)) for k in range(32)]


def test_async_pool_timeout_and_rollback(ifx_target, table):
    async def main() -> None:
        async with ifx.AsyncConnectionPool(min_size=1, max_size=1,
                                           **kwargs(ifx_target)) as pool:
            with pytest.raises(ValueError):
                async with pool.connection() as conn:
                    await conn.execute(f"INSERT INTO {table} VALUES (1, 'gone')")
                    with pytest.raises(ifx.PoolTimeout):
                        await pool.getconn(timeout=0.2)
                    raise ValueError("roll it back")
            async with pool.connection() as conn:
                cur = await conn.execute(f"SELECT COUNT(*) FROM {table}")
                assert await cur.fetchone() == (0,)

    asyncio.run(main())
