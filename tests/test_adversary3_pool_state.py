"""Adversary: session state that slips past the pool's check (pool_base:
a connection whose session counted a state change is closed on return).

Found here: a routine that creates a temporary table (``SELECT ... INTO
TEMP`` or ``CREATE TEMP TABLE`` inside SPL; IBM lists both, and SET
ISOLATION / SET LOCK MODE, among the SQL statements valid in SPL routines)
run by ``EXECUTE PROCEDURE``, ``callproc`` or ``executemany`` left its
table to the next user of the pooled connection, who silently read (or
collided with) the last user's rows.  The client cannot see what a routine
did, so any routine call now counts as a state change.

Also probed, and held: lowercase, comment-led (``--``, ``/* */``, ``{ }``)
and tab-separated SET/CREATE TEMP, ``SET ENVIRONMENT``, ``SET ROLE``,
``SET SESSION AUTHORIZATION``, a statement kept by the connection and run
again later, the asyncio pool.
"""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect_kw, has_table
from informix_stream.core.statement import sets_session_state
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with ifx.connect(**connect_kw(srv), autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE secrets (who VARCHAR(20))")
            cur.execute("INSERT INTO secrets VALUES ('first user')")
            cur.execute("CREATE PROCEDURE stash() SELECT who FROM secrets INTO TEMP stash_t; "
                        "END PROCEDURE")
            cur.execute("CREATE PROCEDURE stash_arg(n INT) SELECT who FROM secrets "
                        "INTO TEMP stash_t; END PROCEDURE")
            cur.execute("CREATE PROCEDURE stash_fail() SELECT who FROM secrets INTO TEMP "
                        "stash_t; RAISE EXCEPTION -746, 0, 'after the temp table'; "
                        "END PROCEDURE")
            cur.execute("CREATE FUNCTION stash_rows() RETURNING INT; "
                        "SELECT who FROM secrets INTO TEMP stash_t; RETURN 1; END FUNCTION")
        yield srv



def _sees_stash(conn) -> bool:
    """Whether this session has a table stash_t (the last user's)."""
    return has_table(conn, "stash_t")


def _call(conn, how: str) -> None:
    cur = conn.cursor()
    if how == "execute":
        cur.execute("EXECUTE PROCEDURE stash()")
    elif how == "lowercase, comment":
        cur.execute("-- a note\n/* more */ execute procedure stash()")
    elif how == "callproc":
        cur.callproc("stash_arg", [1])
    elif how == "executemany":
        cur.executemany("EXECUTE PROCEDURE stash_arg(?)", [(1,)])
    elif how == "function with rows":
        cur.execute("EXECUTE FUNCTION stash_rows()")
        assert cur.fetchall() == [(1,)]
    elif how == "failing routine":
        with pytest.raises(ifx.DatabaseError):
            cur.execute("EXECUTE PROCEDURE stash_fail()")
    else:  # pragma: no cover
        raise AssertionError(how)


HOWS = ["execute", "lowercase, comment", "callproc", "executemany", "function with rows",
        "failing routine"]


@pytest.mark.parametrize("how", HOWS)
def test_a_routine_that_made_a_temp_table_is_not_handed_on(server, how):
    with ifx.ConnectionPool(min_size=1, max_size=1, **connect_kw(server), autocommit=True) as pool:
        with pool.connection() as conn:
            _call(conn, how)
            # the routine's temp table stays for the session (a failing
            # routine's too: its statements ran before the RAISE), so this
            # is what the next user would have had
            assert _sees_stash(conn)
            first = conn
        with pool.connection() as conn:
            assert conn is not first and first.closed
            assert not _sees_stash(conn)


def test_a_routine_run_again_from_the_connections_cache_counts_each_time(server):
    """The second run of a kept statement skips PREPARE; it still counts."""
    with ifx.ConnectionPool(min_size=1, max_size=1, **connect_kw(server), autocommit=True) as pool:
        with pool.connection() as conn:
            conn.cursor().execute("DROP TABLE IF EXISTS stash_t")
        for _ in range(2):
            with pool.connection() as conn:
                cur = conn.cursor()
                cur.execute("EXECUTE PROCEDURE stash()")
                first = conn
            with pool.connection() as conn:
                assert conn is not first
                assert not _sees_stash(conn)


def test_the_asyncio_pool_does_not_hand_on_a_routines_temp_table(server):
    async def main() -> None:
        async with ifx.AsyncConnectionPool(min_size=1, max_size=1, **connect_kw(server),
                                           autocommit=True) as pool:
            async with pool.connection() as conn:
                await conn.execute("EXECUTE PROCEDURE stash()")
                first = conn
            async with pool.connection() as conn:
                assert conn is not first
                with pytest.raises(ifx.ProgrammingError):
                    await conn.execute("SELECT who FROM stash_t")
    asyncio.run(main())


@pytest.mark.parametrize("sql", [
    "set isolation to dirty read",
    "{ brace comment } SET LOCK MODE TO WAIT",
    "--x\n\tSET\tEXPLAIN ON",
    "SET ENVIRONMENT OPTCOMPIND '0'",
    "SET ROLE admin",
    "SET SESSION AUTHORIZATION TO 'bob'",
    "create temp table x (a int)",
    "/* a */ CREATE /* b */ TEMP TABLE x (a INT)",
])
def test_session_wide_statements_are_known_however_spelled(sql):
    assert sets_session_state(sql)
