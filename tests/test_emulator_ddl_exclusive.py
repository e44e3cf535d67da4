"""DDL needs exclusive access to its table (issue 11, emulator fidelity).

DROP TABLE, ALTER TABLE, RENAME TABLE/COLUMN, CREATE INDEX and DROP INDEX
on a table another session holds -- rows its open transaction wrote, or a
cursor open on it under an isolation that keeps DDL out (DIRTY READ, CURSOR
STABILITY, REPEATABLE READ) -- get -242 "Could not open database table"
with ISAM -106 "non-exclusive access": IBM's finderr for -106 (an exclusive
lock is required; "a second user tries to alter a table that the first user
has locked"), IBM technotes 1648816 and 1174239 (-242/-106 for DDL while
dirty readers use the table; SET LOCK MODE TO WAIT in the DDL's session
makes it wait), 1674115 (TRUNCATE: -242/-106 with cursors open).  A
COMMITTED READ cursor holds no lock and no IBM text has it refuse DDL, so
there the DDL goes through (emulator/ddl_runner._set_isolation).  TRUNCATE
is stricter: a cursor of any isolation refuses it (IBM's "Restrictions on
the TRUNCATE statement", cited below).  The emulator used to let every such
DDL through.
"""

from __future__ import annotations

import threading
import time

import pytest

import informix_stream as ifx
from faults.emu import flush
from test_driver import connect, unique

pytestmark = pytest.mark.timeout(60)

ROWS = 3000          # more than one fetch buffer: the cursor stays open


@pytest.fixture
def table(ifx_target):
    t = unique("excl")
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER, v VARCHAR(40))")
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                        [(i, f"value number {i}") for i in range(ROWS)])
    yield t
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"DROP TABLE IF EXISTS {t}")


def _open_reader(ifx_target, table: str, isolation: str = "DIRTY READ"):
    c = connect(ifx_target, autocommit=True)
    cur = c.cursor()
    cur.execute(f"SET ISOLATION TO {isolation}")
    cur.execute(f"SELECT id, v FROM {table} ORDER BY id")
    return c, cur


@pytest.fixture
def reader(ifx_target, table):
    """A dirty reader with a cursor open on ``table``, one row fetched."""
    c, cur = _open_reader(ifx_target, table)
    assert cur.fetchone() == (0, "value number 0")
    yield c, cur
    c.close()


@pytest.fixture
def other(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c.cursor()
    c.close()


DDL = ["DROP TABLE {t}", "ALTER TABLE {t} ADD (w INTEGER)", "RENAME TABLE {t} TO {t}_new",
       "RENAME COLUMN {t}.v TO v2", "CREATE INDEX {t}_ix ON {t} (id)"]


def _refused(cur, sql: str) -> None:
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(sql)
    assert (info.value.sqlcode, info.value.isam_code) == (-242, -106)


@pytest.mark.parametrize("ddl", DDL)
def test_ddl_on_a_table_with_an_open_cursor_is_refused(reader, other, table, ddl):
    _, cur = reader
    started = time.monotonic()
    _refused(other, ddl.format(t=table))
    assert time.monotonic() - started < 0.9      # NOT WAIT: at once
    # the reader reads on, every row, and the table is unchanged
    assert len(cur.fetchall()) == ROWS - 1
    other.execute(f"SELECT count(*) FROM {table}")
    assert other.fetchone() == (ROWS,)
    other.execute(f"SELECT * FROM {table} WHERE id = 7")
    assert other.fetchall() == [(7, "value number 7")]


@pytest.mark.parametrize("isolation", ["DIRTY READ", "CURSOR STABILITY", "REPEATABLE READ"])
def test_each_locking_isolation_holds_the_table(ifx_target, table, other, isolation):
    c, cur = _open_reader(ifx_target, table, isolation)
    try:
        assert cur.fetchone() == (0, "value number 0")
        _refused(other, f"DROP TABLE {table}")
    finally:
        c.close()


@pytest.mark.parametrize("isolation", ["COMMITTED READ", "COMMITTED READ LAST COMMITTED"])
def test_a_committed_read_cursor_does_not_hold_the_table(ifx_target, table, other, isolation):
    c, cur = _open_reader(ifx_target, table, isolation)
    try:
        assert cur.fetchone() == (0, "value number 0")
        other.execute(f"ALTER TABLE {table} ADD (w INTEGER)")
    finally:
        c.close()


def test_the_ddl_goes_through_once_the_cursor_is_closed(reader, other, table):
    conn, cur = reader
    _refused(other, f"DROP TABLE {table}")
    cur.fetchall()            # read to the end: still open until closed
    _refused(other, f"DROP TABLE {table}")
    cur.close()
    # our driver sends the CLOSE of a drained cursor with its next request
    flush(conn)
    other.execute(f"CREATE INDEX {table}_ix ON {table} (id)")
    other.execute(f"DROP TABLE {table}")


def test_drop_index_is_refused_too(ifx_target, table, other):
    other.execute(f"CREATE INDEX {table}_ix ON {table} (id)")
    c, cur = _open_reader(ifx_target, table)
    with c:
        cur.fetchone()
        _refused(other, f"DROP INDEX {table}_ix")
    other.execute(f"DROP INDEX {table}_ix")


def test_rows_written_by_an_open_transaction_hold_the_table(ifx_target, table, other):
    writer = connect(ifx_target)
    try:
        writer.cursor().execute(f"UPDATE {table} SET v = 'x' WHERE id = 1")
        for ddl in DDL:
            _refused(other, ddl.format(t=table))
        writer.commit()
        other.execute(f"ALTER TABLE {table} ADD (w INTEGER)")
    finally:
        writer.close()


def test_lock_mode_wait_waits_for_the_cursor_to_close(reader, other, table):
    conn, cur = reader
    other.execute("SET LOCK MODE TO WAIT 20")
    closer = threading.Timer(0.4, cur.close)
    closer.start()
    started = time.monotonic()
    try:
        other.execute(f"DROP TABLE {table}")
    finally:
        closer.join(10)
    assert 0.3 < time.monotonic() - started < 15
    other.execute("SELECT count(*) FROM systables WHERE tabname = ?", (table,))
    assert other.fetchone() == (0,)


def test_lock_mode_wait_n_gives_up_after_n_seconds(reader, other, table):
    other.execute("SET LOCK MODE TO WAIT 1")
    started = time.monotonic()
    _refused(other, f"DROP TABLE {table}")
    assert 0.9 < time.monotonic() - started < 10


def test_a_session_that_ends_lets_go(ifx_target, table, other):
    c, cur = _open_reader(ifx_target, table)
    cur.fetchone()
    _refused(other, f"DROP TABLE {table}")
    c.close()
    deadline = time.monotonic() + 10       # the server sees the close soon after
    while True:
        try:
            other.execute(f"DROP TABLE {table}")
            break
        except ifx.DatabaseError:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_the_sessions_own_cursor_does_not_hold_it_against_itself(ifx_target, table):
    c, cur = _open_reader(ifx_target, table)
    with c:
        cur.fetchone()
        c.cursor().execute(f"CREATE INDEX {table}_own ON {table} (id)")


# -- TRUNCATE ------------------------------------------------------------------
# IBM, Guide to SQL: Syntax, "Restrictions on the TRUNCATE statement"
# (ids_sqs_1242): TRUNCATE fails when "one or more cursors are open on the
# table", when a Dirty Read session is reading it, or when a lock on it
# exists; "The Table Specification" (ids_sqs_1238): the RSAM -106 error;
# IBM technote 1674115 ("Truncate Table returns error -106 non-exclusive
# access"): -242 with ISAM -106.  Any open cursor counts, COMMITTED READ too.


def _count(cur, table: str) -> int:
    cur.execute(f"SELECT count(*) FROM {table}")
    return cur.fetchone()[0]


@pytest.mark.parametrize("isolation", ["DIRTY READ", "COMMITTED READ",
                                       "COMMITTED READ LAST COMMITTED", "REPEATABLE READ"])
def test_truncate_is_refused_by_a_cursor_of_any_isolation(ifx_target, table, other, isolation):
    c, cur = _open_reader(ifx_target, table, isolation)
    try:
        assert cur.fetchone() == (0, "value number 0")
        started = time.monotonic()
        _refused(other, f"TRUNCATE TABLE {table}")
        _refused(other, f"TRUNCATE {table}")
        assert time.monotonic() - started < 0.9        # NOT WAIT: at once
        assert len(cur.fetchall()) == ROWS - 1         # the reader reads on
        assert _count(other, table) == ROWS            # nothing was deleted
    finally:
        c.close()


def test_truncate_goes_through_once_the_cursor_is_closed(reader, other, table):
    conn, cur = reader
    _refused(other, f"TRUNCATE TABLE {table}")
    cur.close()
    flush(conn)           # our driver sends a drained cursor's CLOSE with its next request
    other.execute(f"TRUNCATE TABLE {table}")
    assert _count(other, table) == 0


def test_truncate_is_refused_by_rows_an_open_transaction_wrote(ifx_target, table, other):
    writer = connect(ifx_target)
    try:
        writer.cursor().execute(f"INSERT INTO {table} VALUES (-1, 'uncommitted')")
        _refused(other, f"TRUNCATE TABLE {table}")
        writer.rollback()
        other.execute(f"TRUNCATE TABLE {table}")
        assert _count(other, table) == 0
    finally:
        writer.close()


def test_truncate_under_lock_mode_wait_waits_for_the_cursor(reader, other, table):
    _, cur = reader
    other.execute("SET LOCK MODE TO WAIT 20")
    closer = threading.Timer(0.4, cur.close)
    closer.start()
    started = time.monotonic()
    try:
        other.execute(f"TRUNCATE TABLE {table}")
    finally:
        closer.join(10)
    assert 0.3 < time.monotonic() - started < 15
    assert _count(other, table) == 0


def test_truncate_in_a_procedure_is_refused_too(reader, other, table):
    other.execute(f"CREATE PROCEDURE {table}_p() TRUNCATE TABLE {table}; END PROCEDURE")
    try:
        _refused(other, f"EXECUTE PROCEDURE {table}_p()")
        assert _count(other, table) == ROWS
    finally:
        other.execute(f"DROP PROCEDURE {table}_p")


def test_truncate_of_a_temp_table_is_the_sessions_own(reader, other, table):
    """A TEMP table of the permanent one's name shadows it; no other
    session can have it open."""
    other.execute(f"CREATE TEMP TABLE {table} (id INTEGER)")
    other.execute(f"INSERT INTO {table} VALUES (1)")
    other.execute(f"TRUNCATE TABLE {table}")
    assert _count(other, table) == 0
    other.execute(f"DROP TABLE {table}")
    assert _count(other, table) == ROWS
