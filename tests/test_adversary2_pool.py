"""Adversary: what one user of a pool leaves on a connection must not reach
the next one.  A user who moved the connection to another database
(``DATABASE otherdb``) or switched autocommit on would otherwise hand the
next user a connection whose INSERTs land in the other database's table,
or whose ``rollback()`` undoes nothing; threads and tasks hammering a small
pool each see exactly their own transaction (checked against a model)."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

import informix_stream as ifx
from faults.emu import PASSWORD, USER
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("db", "otherdb")) as srv:
        for name in ("db", "otherdb"):
            with ifx.connect(**_kw(srv, name), autocommit=True) as conn:
                conn.cursor().execute("CREATE TABLE t (x INT, who VARCHAR(20))")
        yield srv


def _kw(srv, database: str = "db") -> dict:
    return dict(host="127.0.0.1", port=srv.port, user=USER, password=PASSWORD,
                database=database, read_timeout=30, connect_timeout=10)


def _rows(database: str, srv, sql: str) -> list[tuple]:
    with ifx.connect(**_kw(srv, database)) as conn:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()


@pytest.mark.parametrize("statement", ["DATABASE otherdb", "CLOSE DATABASE"])
def test_a_connection_moved_to_another_database_is_not_handed_out_again(server, statement):
    tag = f"next-{statement.split()[0].lower()}"
    with ifx.ConnectionPool(min_size=1, max_size=1, **_kw(server)) as pool:
        with pool.connection() as conn:
            conn.cursor().execute(statement)
        with pool.connection() as conn:
            cur = conn.cursor()
            cur.execute("INSERT INTO t VALUES (1, ?)", (tag,))
            cur.execute("SELECT DBINFO('dbname') FROM systables WHERE tabid = 1")
            assert cur.fetchone() == ("db",)
    assert _rows("db", server, f"SELECT x FROM t WHERE who = '{tag}'") == [(1,)]
    assert _rows("otherdb", server, f"SELECT x FROM t WHERE who = '{tag}'") == []


def test_autocommit_set_by_one_user_is_not_the_next_users(server):
    """Pool opened with autocommit off: the next user's rollback must undo."""
    with ifx.ConnectionPool(min_size=1, max_size=1, **_kw(server)) as pool:
        conn = pool.getconn()
        conn.autocommit = True
        pool.putconn(conn)
        with pytest.raises(RuntimeError):
            with pool.connection() as conn:
                assert conn.autocommit is False
                conn.cursor().execute("INSERT INTO t VALUES (2, 'undone')")
                raise RuntimeError("the caller gives up")
    assert _rows("db", server, "SELECT x FROM t WHERE who = 'undone'") == []


def test_threads_hammering_a_small_pool_see_only_their_own_work(server):
    """12 threads, 3 connections, random commit/rollback/exception/early
    return with a transaction open: the table ends as the model says, and no
    connection is ever held by two threads at once."""
    holders: dict[int, int] = {}
    lock = threading.Lock()
    expected: set[tuple[int, int]] = set()
    errors: list[BaseException] = []

    def worker(me: int, pool: ifx.ConnectionPool) -> None:
        rnd = random.Random(me)
        try:
            for step in range(25):
                ending = rnd.choice(("commit", "rollback", "raise", "putconn"))
                conn = pool.getconn(timeout=60)
                with lock:
                    assert id(conn) not in holders, "a connection handed to two users"
                    holders[id(conn)] = me
                try:
                    cur = conn.cursor()
                    cur.execute("SELECT count(*) FROM t WHERE who = ?", (f"w{me}",))
                    with lock:
                        mine = sum(1 for w, _ in expected if w == me)
                    assert cur.fetchone() == (mine,), "another user's transaction leaked"
                    try:
                        cur.execute("INSERT INTO t VALUES (?, ?)", (step, f"w{me}"))
                    except ifx.OperationalError as exc:
                        # another thread's transaction holds the lock: an
                        # error, never a silent wait (-271, ISAM -107)
                        assert (exc.sqlcode, exc.isamcode) == (-271, -107)
                        ending = "rollback"
                    if ending == "commit":
                        conn.commit()
                        with lock:
                            expected.add((me, step))
                    elif ending == "rollback":
                        conn.rollback()
                finally:
                    with lock:
                        del holders[id(conn)]
                    pool.putconn(conn)      # "raise"/"putconn": rolled back on return
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    with ifx.ConnectionPool(min_size=1, max_size=3, **_kw(server)) as pool:
        threads = [threading.Thread(target=worker, args=(me, pool)) for me in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(100)
        assert not any(t.is_alive() for t in threads)
    assert not errors, errors[0]
    got = _rows("db", server, "SELECT who, x FROM t WHERE who LIKE 'w%'")
    assert sorted(got) == sorted((f"w{me}", step) for me, step in expected)


def test_async_pool_resets_database_and_autocommit_too(server):
    async def main() -> None:
        async with ifx.AsyncConnectionPool(min_size=1, max_size=1, **_kw(server)) as pool:
            async with pool.connection() as conn:
                await conn.set_autocommit(True)
                await conn.cursor().execute("DATABASE otherdb")
            async with pool.connection() as conn:
                assert conn.autocommit is False
                cur = conn.cursor()
                await cur.execute("INSERT INTO t VALUES (3, 'async-next')")
    asyncio.run(asyncio.wait_for(main(), 60))
    assert _rows("db", server, "SELECT x FROM t WHERE who = 'async-next'") == [(3,)]
    assert _rows("otherdb", server, "SELECT x FROM t WHERE who = 'async-next'") == []
