"""What DATABASE and CLOSE DATABASE do to the session's open cursors (issue
11, emulator fidelity).

IBM Guide to SQL: Syntax, "DATABASE statement" (ids_sqs_0652): opening a
database when one is open "closes the current database before opening the
new one. Closing the current database releases any cursor resources that
the database server holds, invalidating any cursors that you have declared
up to that point"; "CLOSE DATABASE statement" (ids_sqs_0339): after it the
declared cursors are no longer valid, and inside a transaction of a logged
database it is refused until COMMIT or ROLLBACK: -377 "Must terminate
transaction before closing database" (IBM JDBC 15.0.1.0 message catalog).

So a session with a Dirty Read cursor open that runs DATABASE other loses
the cursor: its hold on the table goes (another session's DDL goes
through), and fetching from it again is an error, never more rows of the
old database.  The error a server sends for a fetch on a statement it has
freed is not documented; the emulator answers -410 ("Prepare statement
failed or was not executed"), as for any statement id it does not hold.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import connect
from informix_stream.emulator.server import EmulatorServer

pytestmark = pytest.mark.timeout(60)

ROWS = 20000         # many fetch buffers: the cursor is far from its end


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        with _connect(srv, "testdb") as conn:
            cur = conn.cursor()
            cur.execute("CREATE DATABASE nolog")
            cur.execute("CREATE DATABASE ldb WITH LOG")
            cur.execute("CREATE DATABASE other")
            cur.execute("DATABASE nolog")
            cur.execute("CREATE TABLE t (id INTEGER, v VARCHAR(40))")
            cur.executemany("INSERT INTO t VALUES (?, ?)",
                            [(i, f"value number {i}") for i in range(ROWS)])
        yield srv


def _connect(srv, database: str, **kw) -> ifx.Connection:
    kw.setdefault("autocommit", True)
    return connect(srv, database=database, **kw)


def _alter(server) -> None:
    """Another session's DDL on t, undone at once: it needs t alone."""
    with _connect(server, "nolog") as other:
        cur = other.cursor()
        cur.execute("ALTER TABLE t ADD (w INTEGER)")
        cur.execute("ALTER TABLE t DROP (w)")


@pytest.mark.parametrize("statement", ["DATABASE other", "CLOSE DATABASE"])
def test_the_open_cursor_is_gone_with_its_database(server, statement):
    conn = _connect(server, "nolog")         # Dirty Read, the unlogged default
    try:
        reader = conn.cursor()
        reader.execute("SELECT id, v FROM t ORDER BY id")
        assert reader.fetchone() == (0, "value number 0")
        with _connect(server, "nolog") as other:
            with pytest.raises(ifx.DatabaseError) as info:
                other.cursor().execute("ALTER TABLE t ADD (w INTEGER)")
            assert (info.value.sqlcode, info.value.isam_code) == (-242, -106)   # held
        conn.cursor().execute(statement)
        _alter(server)                                   # the hold went with it
        with pytest.raises(ifx.DatabaseError) as info:
            reader.fetchall()
        assert info.value.sqlcode == -410
    finally:
        conn.close()


def test_the_connection_goes_on_in_the_new_database(server):
    conn = _connect(server, "nolog")
    try:
        reader = conn.cursor()
        reader.execute("SELECT id FROM t ORDER BY id")
        reader.fetchone()
        cur = conn.cursor()
        cur.execute("DATABASE other")
        with pytest.raises(ifx.ProgrammingError) as info:
            cur.execute("SELECT COUNT(*) FROM t")          # t is nolog's, not other's
        assert info.value.sqlcode == -206
        cur.execute("DATABASE nolog")
        cur.execute("SELECT COUNT(*) FROM t")
        assert cur.fetchone() == (ROWS,)
    finally:
        conn.close()


def test_inside_a_transaction_it_is_377_and_the_cursor_stays(server):
    with _connect(server, "ldb") as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE IF NOT EXISTS lt (id INTEGER)")
        cur.execute("DELETE FROM lt")
        cur.executemany("INSERT INTO lt VALUES (?)", [(i,) for i in range(ROWS)])
        cur.execute("BEGIN WORK")
        reader = conn.cursor()
        reader.execute("SELECT id FROM lt ORDER BY id")
        assert reader.fetchone() == (0,)
        for statement in ("DATABASE other", "CLOSE DATABASE"):
            with pytest.raises(ifx.DatabaseError) as info:
                cur.execute(statement)
            assert info.value.sqlcode == -377
        assert len(reader.fetchall()) == ROWS - 1          # still open, every row
        cur.execute("COMMIT WORK")
