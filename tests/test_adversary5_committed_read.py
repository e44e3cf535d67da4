"""Adversary: what a transaction reads after another session commits.

Committed Read (the default of a logged database) guarantees "that every
retrieved row is committed in the table at the time that the row is
retrieved", and the non-repeatable read and the phantom are the phenomena
it allows (IBM/HCL Guide to SQL: Syntax, SET ISOLATION, ids_sqs_1161 and
ids_sqs_1164): a second SELECT in the same transaction sees the rows
another session committed in between, and an INSERT of another row meets
no lock (Informix locks rows).

Found here: the emulator's transaction read one SQLite snapshot from its
first SELECT on.  The second SELECT silently gave the old answer (a row
committed by another session missing, a deleted one still there), and the
transaction's first write then failed at once with -271, whatever SET LOCK
MODE said (SQLite's stale-snapshot busy error, which no busy wait retries).
Now a transaction that has written nothing reads a fresh snapshot at each
statement, except under Repeatable Read; once it wrote, it holds SQLite's
write lock, so nobody else can commit under it.
"""

from __future__ import annotations

import pytest

from faults.emu import DATABASE, connect, rows
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)
LEVELS = ("COMMITTED READ", "DIRTY READ", "CURSOR STABILITY", "COMMITTED READ LAST COMMITTED")


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with connect(srv, autocommit=True) as c:
            c.cursor().execute("CREATE TABLE t (id INTEGER)")
        yield srv


@pytest.fixture
def pair(server):
    with connect(server, autocommit=True) as other, connect(server) as conn:
        other.cursor().execute("DELETE FROM t")
        other.cursor().execute("INSERT INTO t VALUES (1)")
        yield conn, other


def _ids(conn) -> list[int]:
    return [r[0] for r in rows(conn, "SELECT id FROM t ORDER BY id")]


@pytest.mark.parametrize("level", LEVELS)
def test_a_second_read_sees_what_another_session_committed(pair, level):
    conn, other = pair
    conn.cursor().execute(f"SET ISOLATION TO {level}")
    assert _ids(conn) == [1]
    other.cursor().execute("INSERT INTO t VALUES (2)")
    other.cursor().execute("DELETE FROM t WHERE id = 1")
    assert conn.in_transaction
    assert _ids(conn) == [2]
    conn.rollback()


def test_the_first_write_after_a_read_meets_no_lock(pair):
    conn, other = pair
    cur = conn.cursor()
    cur.execute("SET LOCK MODE TO WAIT 5")
    assert _ids(conn) == [1]
    other.cursor().execute("INSERT INTO t VALUES (2)")
    cur.execute("INSERT INTO t VALUES (3)")
    assert _ids(conn) == [1, 2, 3]
    conn.commit()
    assert _ids(other) == [1, 2, 3]


def test_repeatable_read_keeps_what_it_read(pair):
    conn, other = pair
    conn.cursor().execute("SET ISOLATION TO REPEATABLE READ")
    assert _ids(conn) == [1]
    other.cursor().execute("INSERT INTO t VALUES (2)")
    assert _ids(conn) == [1]
    conn.rollback()


def test_after_its_own_write_a_transaction_still_sees_it(pair):
    conn, other = pair
    conn.cursor().execute("INSERT INTO t VALUES (5)")
    assert _ids(conn) == [1, 5]
    assert _ids(other) == [1]
    conn.rollback()
    assert _ids(other) == [1]
