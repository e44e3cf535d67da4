"""The pools' ``configure`` and ``reset`` callbacks (psycopg_pool's names).

``configure`` runs on each new connection before the pool records its
session state, so a pool can give every connection ``SET LOCK MODE TO WAIT``
and still keep them.  ``reset`` runs on a returned connection its user left
with session state; the pool keeps the connection only if the callback
returned normally with no transaction open, else closes it as it would
without a callback.  A connection moved to another database is closed
whatever ``reset`` would do."""

from __future__ import annotations

import asyncio
import logging

import pytest

import informix_stream as ifx
from faults.emu import connect_kw, has_table

pytestmark = pytest.mark.timeout(60)



def _drop_scratch(conn) -> None:
    conn.cursor().execute("DROP TABLE scratch")
    conn.commit()


def test_configure_sets_are_the_baseline_so_the_connection_stays_pooled(server):
    seen = []

    def configure(conn):
        conn.cursor().execute("SET LOCK MODE TO WAIT 5")
        conn.commit()           # outside autocommit every statement opens a transaction
        seen.append(conn)

    with ifx.ConnectionPool(min_size=1, max_size=1, configure=configure,
                            **connect_kw(server)) as pool:
        with pool.connection() as conn:
            first = conn
            conn.cursor().execute("SELECT tabid FROM systables WHERE tabid = 1")
        with pool.connection() as conn:
            assert conn is first and not conn.closed
    assert seen == [first]


def test_configure_that_raises_fails_the_checkout_and_closes_its_connection(server):
    made = []

    def configure(conn):
        made.append(conn)
        raise RuntimeError("no")

    pool = ifx.ConnectionPool(min_size=0, max_size=1, configure=configure, **connect_kw(server))
    try:
        with pytest.raises(RuntimeError):
            pool.getconn(timeout=5)
        assert made and made[0].closed
        assert pool.get_stats()["pool_size"] == 0       # its place is free again
    finally:
        pool.close()


def test_configure_that_leaves_a_transaction_open_is_refused(server):
    def configure(conn):
        conn.autocommit = False
        conn.cursor().execute("CREATE TABLE cfg_tx (a INT)")   # begins a transaction

    pool = ifx.ConnectionPool(min_size=0, max_size=1, configure=configure, **connect_kw(server))
    try:
        with pytest.raises(ifx.InterfaceError, match="configure"):
            pool.getconn(timeout=5)
    finally:
        pool.close()
    with ifx.connect(**connect_kw(server)) as conn:        # nothing of it was committed
        cur = conn.cursor()
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabname = 'cfg_tx'")
        assert cur.fetchone() == (0,)


def test_reset_that_undoes_the_state_keeps_the_connection(server):
    calls = []

    def reset(conn):
        calls.append(conn)
        _drop_scratch(conn)

    with ifx.ConnectionPool(min_size=1, max_size=1, reset=reset, **connect_kw(server)) as pool:
        with pool.connection() as conn:
            conn.cursor().execute("CREATE TEMP TABLE scratch (a INT)")
            first = conn
        with pool.connection() as conn:
            assert conn is first and not conn.closed
            assert not has_table(conn, "scratch")
        with pool.connection() as conn:       # a user leaving nothing: reset not called
            conn.cursor().execute("SELECT tabid FROM systables WHERE tabid = 1")
    assert calls == [first]


def test_reset_that_raises_closes_the_connection_and_logs_no_message_text(server, caplog):
    def reset(conn):
        raise ValueError("secret-value-123")

    with caplog.at_level(logging.WARNING, logger="informix_stream"):
        with ifx.ConnectionPool(min_size=1, max_size=1, reset=reset, **connect_kw(server)) as pool:
            with pool.connection() as conn:
                conn.cursor().execute("CREATE TEMP TABLE scratch (a INT)")
                first = conn
            with pool.connection() as conn:
                assert conn is not first and first.closed
                assert not has_table(conn, "scratch")
    assert "ValueError" in caplog.text and "secret-value-123" not in caplog.text


def test_reset_that_leaves_a_transaction_open_closes_the_connection(server):
    def reset(conn):
        conn.cursor().execute("DROP TABLE scratch")       # no commit

    with ifx.ConnectionPool(min_size=1, max_size=1, reset=reset, **connect_kw(server)) as pool:
        with pool.connection() as conn:
            conn.autocommit = False
            conn.cursor().execute("CREATE TEMP TABLE scratch (a INT)")
            first = conn
        with pool.connection() as conn:
            assert conn is not first and first.closed


def test_a_database_change_is_closed_whatever_reset_does(server):
    with ifx.connect(**connect_kw(server)) as conn:
        conn.autocommit = True
        conn.cursor().execute("CREATE DATABASE hookother WITH LOG")
    calls = []
    with ifx.ConnectionPool(min_size=1, max_size=1, reset=calls.append,
                            **connect_kw(server)) as pool:
        with pool.connection() as conn:
            conn.cursor().execute("DATABASE hookother")
            conn.cursor().execute("SET LOCK MODE TO WAIT 5")
            first = conn
        with pool.connection() as conn:
            assert conn is not first and first.closed
    assert calls == []


def test_an_interrupt_in_reset_frees_the_slot(server):
    def reset(conn):
        raise KeyboardInterrupt

    with ifx.ConnectionPool(min_size=1, max_size=1, reset=reset, **connect_kw(server)) as pool:
        conn = pool.getconn(timeout=5)
        conn.cursor().execute("SET LOCK MODE TO WAIT 5")
        with pytest.raises(KeyboardInterrupt):
            pool.putconn(conn)
        assert conn.closed
        with pool.connection(timeout=5) as again:       # the pool of one is not stuck
            assert again is not conn


def test_async_pool_configure_and_reset(server):
    async def main():
        async def configure(conn):
            await conn.execute("SET LOCK MODE TO WAIT 5")
            await conn.commit()

        async def reset(conn):
            await conn.execute("DROP TABLE scratch")
            await conn.commit()

        async with ifx.AsyncConnectionPool(min_size=1, max_size=1, configure=configure,
                                           reset=reset, **connect_kw(server)) as pool:
            async with pool.connection() as conn:
                await conn.execute("CREATE TEMP TABLE scratch (a INT)")
                first = conn
            async with pool.connection() as conn:
                assert conn is first and not conn.closed
                with pytest.raises(ifx.ProgrammingError) as info:
                    await conn.execute("SELECT a FROM scratch")
                assert info.value.sqlcode == -206

        async def failing(conn):
            raise RuntimeError("no")

        async with ifx.AsyncConnectionPool(min_size=1, max_size=1, reset=failing,
                                           **connect_kw(server)) as pool:
            async with pool.connection() as conn:
                await conn.execute("SET LOCK MODE TO WAIT 5")
                first = conn
            async with pool.connection() as conn:
                assert conn is not first and first.closed

    asyncio.run(main())
