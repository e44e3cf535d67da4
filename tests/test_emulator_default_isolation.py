"""A session's isolation before any SET ISOLATION is its database's default,
and it decides whether the session's cursors keep DDL out (issue 11).

What a real server does, and where it was learned:
* the default isolation is Dirty Read in a database without logging,
  Committed Read in a logged one, Repeatable Read in an ANSI one (IBM,
  Guide to SQL: Syntax, SET ISOLATION, "Default Isolation Levels",
  ids_sqs_1168; Database Design and Implementation Guide, "Default
  isolation level", ids_ddi_153).  IBM's JDBC driver assumes the same
  (IfxSqliConnect.OpenDbInit: READ_COMMITTED when logged, SERIALIZABLE when
  ANSI);
* the isolation of an unlogged database cannot be changed (ids_ddi_153,
  15.0 edition; "Specifying Default Isolation Level": "it has to be DIRTY
  READ");
* a SET ISOLATION lasts until another database of another default is
  opened (ids_sqs_1168);
* DDL on a table a Dirty Read, Cursor Stability or Repeatable Read cursor
  of another session has open gets -242 with ISAM -106 (IBM finderr -106;
  technotes 1648816, 1174239), a Committed Read cursor does not keep it
  out (tests/test_emulator_ddl_exclusive.py has the rest).
The emulator used to count only an explicit SET ISOLATION, so an unlogged
or ANSI database's plain cursors let DROP TABLE through.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import connect, flush, log_mode_server

pytestmark = pytest.mark.timeout(60)

ROWS = 3000          # more than one fetch buffer: the cursor stays open
KEPT_OUT = (-242, -106)


@pytest.fixture(scope="module")
def server():
    with log_mode_server() as srv:
        yield srv


def _connect(srv, database: str, **kw) -> ifx.Connection:
    return connect(srv, database=database, **kw)


def _autocommit(db: str) -> bool:
    """BEGIN WORK is refused without logging, so there only autocommit."""
    return db == "nolog"


@pytest.fixture
def table(server, request):
    name = f"iso{_n()}"
    for db in ("nolog", "ldb", "adb"):
        with _connect(server, db, autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute(f"CREATE TABLE {name} (id INTEGER, v VARCHAR(40))")
            cur.executemany(f"INSERT INTO {name} VALUES (?, ?)",
                            [(i, f"value number {i}") for i in range(ROWS)])
    return name


def _n(counter=[0]) -> int:       # noqa: B006 - a module-wide counter
    counter[0] += 1
    return counter[0]


def _reader(server, db: str, table: str, isolation: str | None = None):
    """A connection with a cursor open on ``table``, one row fetched."""
    conn = _connect(server, db, autocommit=_autocommit(db))
    cur = conn.cursor()
    if isolation:
        cur.execute(f"SET ISOLATION TO {isolation}")
    cur.execute(f"SELECT id, v FROM {table} ORDER BY id")
    assert cur.fetchone() == (0, "value number 0")
    return conn, cur


def _drop(server, db: str, table: str) -> tuple[int, int] | None:
    """DROP TABLE from another session: None when it went through, else
    (sqlcode, ISAM code)."""
    with _connect(server, db, autocommit=True) as other:
        try:
            other.cursor().execute(f"DROP TABLE {table}")
        except ifx.DatabaseError as exc:
            return exc.sqlcode, exc.isam_code
    return None


@pytest.mark.parametrize("db, expected", [("nolog", KEPT_OUT), ("ldb", None),
                                          ("adb", KEPT_OUT)])
def test_a_cursor_at_the_databases_default_isolation(server, table, db, expected):
    """Unlogged: Dirty Read, kept out; logged: Committed Read, goes through;
    ANSI: Repeatable Read, kept out."""
    conn, cur = _reader(server, db, table)
    try:
        assert _drop(server, db, table) == expected
        if expected is not None:
            assert len(cur.fetchall()) == ROWS - 1     # the reader reads on
    finally:
        conn.close()


def test_the_ddl_goes_through_once_the_ansi_transaction_ends(server, table):
    conn, cur = _reader(server, "adb", table)
    try:
        assert _drop(server, "adb", table) == KEPT_OUT
        conn.commit()          # ends the transaction: the cursor is closed
        assert _drop(server, "adb", table) is None
    finally:
        conn.close()


def test_set_isolation_overrides_an_ansi_default(server, table):
    conn, _ = _reader(server, "adb", table, "COMMITTED READ")
    try:
        assert _drop(server, "adb", table) is None
    finally:
        conn.close()


def test_set_isolation_overrides_a_logged_default(server, table):
    conn, _ = _reader(server, "ldb", table, "REPEATABLE READ")
    try:
        assert _drop(server, "ldb", table) == KEPT_OUT
    finally:
        conn.close()


def test_an_unlogged_database_reads_at_dirty_read_whatever_is_set(server, table):
    conn, _ = _reader(server, "nolog", table, "COMMITTED READ")
    try:
        assert _drop(server, "nolog", table) == KEPT_OUT
    finally:
        conn.close()


def test_opening_another_database_brings_its_default(server, table):
    """SET ISOLATION TO DIRTY READ in the ANSI database, then DATABASE ldb:
    ldb's Committed Read applies (ids_sqs_1168), and DDL goes through."""
    conn = _connect(server, "adb", autocommit=False)
    try:
        cur = conn.cursor()
        cur.execute("SET ISOLATION TO DIRTY READ")
        conn.commit()
        cur.execute("DATABASE ldb")
        cur.execute(f"SELECT id, v FROM {table} ORDER BY id")
        assert cur.fetchone() == (0, "value number 0")
        assert _drop(server, "ldb", table) is None
    finally:
        conn.close()


def test_the_unlogged_reader_lets_go_at_close(server, table):
    conn, cur = _reader(server, "nolog", table)
    try:
        assert _drop(server, "nolog", table) == KEPT_OUT
        cur.close()
        flush(conn)      # our driver sends a cursor's CLOSE with its next request
        assert _drop(server, "nolog", table) is None
    finally:
        conn.close()


def test_repeatable_read_in_a_transaction_holds_the_table_until_it_ends(server, table):
    """Repeatable Read locks every row examined "for the duration of the
    transaction" (IBM Performance Guide, "Repeatable Read isolation",
    ids_prf_429): closing the cursor does not let DDL through, COMMIT does.
    Outside a transaction (no BEGIN WORK in a logged database) the close
    is enough."""
    conn, cur = _reader(server, "ldb", table, "REPEATABLE READ")
    try:
        cur.close()
        flush(conn)
        assert _drop(server, "ldb", table) == KEPT_OUT
        conn.commit()
        assert _drop(server, "ldb", table) is None
    finally:
        conn.close()


def test_repeatable_read_outside_a_transaction_lets_go_at_close(server, table):
    conn = _connect(server, "ldb", autocommit=True)
    try:
        cur = conn.cursor()
        cur.execute("SET ISOLATION TO REPEATABLE READ")
        cur.execute(f"SELECT id, v FROM {table} ORDER BY id")
        cur.fetchone()
        assert _drop(server, "ldb", table) == KEPT_OUT
        cur.close()
        flush(conn)
        assert _drop(server, "ldb", table) is None
    finally:
        conn.close()
