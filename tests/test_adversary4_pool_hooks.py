"""Adversary: the pools' ``configure`` and ``reset`` hooks (pool_base
``_reset_needed``/``_rebase``) attacked from outside.

Rule checked in every scenario: the next user never inherits session state
the pool did not vouch for, the pool never leaks a slot (``get_stats()``
sizes are right afterwards) and nothing hangs.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect_kw
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE, "otherdb")) as srv:
        with ifx.connect(**connect_kw(srv), autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE ledger (n INT)")
            cur.execute("CREATE TABLE held (n INT)")
            cur.execute("INSERT INTO held VALUES (1)")
            cur.execute("INSERT INTO held VALUES (2)")
            cur.execute("CREATE PROCEDURE noop() END PROCEDURE")
        yield srv


def _sizes(pool) -> tuple[int, int]:
    stats = pool.get_stats()
    return stats["pool_size"], stats["pool_available"]


def _count(server, table: str) -> int:
    with ifx.connect(**connect_kw(server), autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        return cur.fetchone()[0]


def _dirty(conn) -> None:
    conn.cursor().execute("SET ISOLATION TO DIRTY READ")


def test_a_second_putconn_is_refused_and_never_duplicates_the_idle_slot(server):
    """Returning a connection twice must not put it in the idle list twice
    (two users would then share one session and its transaction)."""
    with ifx.ConnectionPool(min_size=1, max_size=2, **connect_kw(server)) as pool:
        conn = pool.getconn()
        pool.putconn(conn)
        with pytest.raises(ifx.InterfaceError):
            pool.putconn(conn)
        assert _sizes(pool) == (1, 1)
        a, b = pool.getconn(), pool.getconn()
        assert a is not b
        pool.putconn(a)
        pool.putconn(b)
        assert _sizes(pool) == (2, 2)


def test_configure_choosing_autocommit_is_what_every_user_gets(server):
    """configure's choices are the pool's baseline: the second user of a
    connection must get the autocommit mode the first one got."""
    def configure(conn):
        conn.autocommit = True

    with ifx.ConnectionPool(min_size=1, max_size=1, configure=configure,
                            **connect_kw(server)) as pool:
        modes = []
        for _ in range(3):
            conn = pool.getconn()
            modes.append(conn.autocommit)
            pool.putconn(conn)
        assert modes == [True, True, True]


def test_a_reset_that_moves_to_another_database_and_back_is_closed(server):
    def reset(conn):
        cur = conn.cursor()
        cur.execute("DATABASE otherdb")
        cur.execute(f"DATABASE {DATABASE}")
        cur.execute("SET ISOLATION TO COMMITTED READ")

    with ifx.ConnectionPool(min_size=1, max_size=2, reset=reset,
                            **connect_kw(server)) as pool:
        conn = pool.getconn()
        _dirty(conn)
        pool.putconn(conn)
        assert conn.closed
        assert _sizes(pool)[0] in (0, 1) and _sizes(pool)[0] == _sizes(pool)[1]
        with pool.connection() as again:
            assert again is not conn


def test_a_reset_that_runs_a_routine_is_trusted_and_kept(server):
    def reset(conn):
        conn.cursor().execute("SET ISOLATION TO COMMITTED READ")
        conn.cursor().execute("EXECUTE PROCEDURE noop()")
        conn.commit()           # outside autocommit every statement opens a transaction

    with ifx.ConnectionPool(min_size=1, max_size=1, reset=reset,
                            **connect_kw(server)) as pool:
        conn = pool.getconn()
        _dirty(conn)
        pool.putconn(conn)
        assert not conn.closed and _sizes(pool) == (1, 1)


def test_a_cursor_left_open_by_reset_never_reaches_the_next_user(server):
    """reset's open cursor would keep the table in use for the pool's own
    sake: the next user's DDL would meet -242 from its own connection, and
    the cursor would be handed over in conn._cursors."""
    def reset(conn):
        conn.cursor().execute("SET ISOLATION TO COMMITTED READ")
        cur = conn.cursor()
        cur.execute("SELECT n FROM held")
        cur.fetchone()                   # left open

    with ifx.ConnectionPool(min_size=1, max_size=1, reset=reset,
                            **connect_kw(server), autocommit=True) as pool:
        conn = pool.getconn()
        _dirty(conn)
        pool.putconn(conn)
        with pool.connection() as again:
            assert again is conn
            assert not any(not c.closed for c in list(again._cursors))
            with ifx.connect(**connect_kw(server), autocommit=True) as other:
                other.cursor().execute("ALTER TABLE held ADD (extra INT)")
                other.cursor().execute("ALTER TABLE held DROP (extra)")


def test_a_reset_that_closes_the_connection_frees_its_slot(server):
    def reset(conn):
        conn.close()

    with ifx.ConnectionPool(min_size=0, max_size=1, reset=reset,
                            **connect_kw(server)) as pool:
        conn = pool.getconn()
        _dirty(conn)
        pool.putconn(conn)
        assert _sizes(pool) == (0, 0)
        with pool.connection(timeout=5) as again:
            assert again is not conn


def test_threads_returning_connections_concurrently_lose_no_slot(server):
    calls = []

    def reset(conn):
        calls.append(1)
        conn.cursor().execute("SET ISOLATION TO COMMITTED READ")
        conn.commit()

    with ifx.ConnectionPool(min_size=0, max_size=4, reset=reset,
                            **connect_kw(server)) as pool:
        errors = []

        def worker(k):
            try:
                for _ in range(10):
                    with pool.connection(timeout=20) as conn:
                        if k % 2:
                            _dirty(conn)
                        conn.cursor().execute("SELECT COUNT(*) FROM held")
            except BaseException as exc:     # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors and not any(t.is_alive() for t in threads)
        size, available = _sizes(pool)
        assert size == available and 1 <= size <= 4
        assert len(calls) == 30


def test_close_while_a_reset_runs_ends_with_nothing_leaked(server):
    started = threading.Event()

    def reset(conn):
        started.set()
        time.sleep(0.6)
        conn.cursor().execute("SET ISOLATION TO COMMITTED READ")

    pool = ifx.ConnectionPool(min_size=1, max_size=1, reset=reset, **connect_kw(server))
    conn = pool.getconn()
    _dirty(conn)
    outcome = []

    def give_back():
        try:
            pool.putconn(conn)
            outcome.append("ok")
        except ifx.Error as exc:
            outcome.append(exc)

    t = threading.Thread(target=give_back)
    t.start()
    assert started.wait(10)
    pool.close(timeout=0.1)
    t.join(20)
    assert not t.is_alive()
    assert conn.closed
    assert _sizes(pool) == (0, 0)
    assert outcome == ["ok"]         # giving back to a closed pool closes it, no error


def test_async_reset_cancelled_mid_await_frees_its_slot(server):
    async def main():
        entered = asyncio.Event()

        async def reset(conn):
            entered.set()
            await asyncio.sleep(5)

        pool = ifx.AsyncConnectionPool(min_size=1, max_size=1, reset=reset,
                                       **connect_kw(server))
        await pool.open()
        conn = await pool.getconn()
        await conn.cursor().execute("SET ISOLATION TO DIRTY READ")
        task = asyncio.create_task(pool.putconn(conn))
        await asyncio.wait_for(entered.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.05)
        assert conn.closed
        assert _sizes(pool) == (0, 0)
        fresh = await pool.getconn(timeout=5)
        assert fresh is not conn and not fresh.closed
        await pool.putconn(fresh)
        await pool.close()

    asyncio.run(asyncio.wait_for(main(), 60))
