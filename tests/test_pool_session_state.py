"""A pooled connection on which a user left session state behind (a
session-wide SET, a temporary table) is closed on return, not handed to the
next user: that user would otherwise read at the last user's isolation
level, wait on locks as the last user chose, or find the last user's
temporary tables (and collide with their names).  Statements whose effect
ends with the transaction keep the connection pooled."""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from faults.emu import connect_kw
from informix_stream.core.statement import sets_session_state

pytestmark = pytest.mark.timeout(60)



@pytest.mark.parametrize("sql, leaves_state", [
    ("SET ISOLATION TO DIRTY READ", True),
    ("set lock mode to wait 5", True),
    ("-- SET TRANSACTION here is a comment\nSET EXPLAIN ON", True),
    ("/* c */ SET PDQPRIORITY 10", True),
    ("CREATE TEMP TABLE tt (a INT)", True),
    ("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", False),
    ("SET CONSTRAINTS ALL DEFERRED", False),
    ("CREATE TABLE t (a INT)", False),
    ("SELECT * FROM t", False),
    ("UPDATE t SET a = 1", False),
])
def test_which_statements_leave_session_state(sql, leaves_state):
    assert sets_session_state(sql) is leaves_state


@pytest.mark.parametrize("statement", [
    "SET ISOLATION TO DIRTY READ",
    "SET LOCK MODE TO WAIT 5",
    "CREATE TEMP TABLE scratch (a INT)",
    "SELECT tabid FROM systables WHERE tabid = 1 INTO TEMP scratch",
])
def test_a_connection_left_with_session_state_is_closed_not_handed_on(server, statement):
    with ifx.ConnectionPool(min_size=1, max_size=1, **connect_kw(server)) as pool:
        with pool.connection() as conn:
            conn.cursor().execute(statement)
            first = conn
        with pool.connection() as conn:
            assert conn is not first
            assert first.closed
            cur = conn.cursor()
            # the temporary table (if any) went with the old session
            with pytest.raises(ifx.ProgrammingError) as info:
                cur.execute("SELECT a FROM scratch")
            assert info.value.sqlcode == -206


@pytest.mark.parametrize("statement", [
    "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
    "SELECT tabid FROM systables WHERE tabid = 1",
])
def test_a_connection_without_session_state_stays_pooled(server, statement):
    with ifx.ConnectionPool(min_size=1, max_size=1, **connect_kw(server)) as pool:
        with pool.connection() as conn:
            conn.cursor().execute(statement)
            first = conn
        with pool.connection() as conn:
            assert conn is first and not conn.closed


def test_a_set_that_failed_changed_nothing(server):
    with ifx.ConnectionPool(min_size=1, max_size=1, **connect_kw(server)) as pool:
        with pool.connection() as conn:
            first = conn
            with pytest.raises(ifx.DatabaseError):
                conn.cursor().execute("SET ISOLATION TO NO SUCH LEVEL")
            conn.rollback()
        with pool.connection() as conn:
            assert conn is first


def test_the_asyncio_pool_closes_it_too(server):
    async def main() -> None:
        async with ifx.AsyncConnectionPool(min_size=1, max_size=1, **connect_kw(server)) as pool:
            async with pool.connection() as conn:
                await conn.execute("CREATE TEMP TABLE scratch (a INT)")
                first = conn
            async with pool.connection() as conn:
                assert conn is not first
                with pytest.raises(ifx.ProgrammingError):
                    await conn.execute("SELECT a FROM scratch")
    asyncio.run(main())
