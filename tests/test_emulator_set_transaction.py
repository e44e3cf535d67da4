"""SET TRANSACTION in the emulator (issue 11, emulator fidelity): an
isolation level and access mode for one transaction.  It used to be
accepted and ignored.

What the server does, and where it was learned:
* READ UNCOMMITTED is Dirty Read, READ COMMITTED Committed Read, REPEATABLE
  READ and SERIALIZABLE are Repeatable Read, for the transaction only (IBM
  Guide to SQL: Syntax, "Comparing SET TRANSACTION with SET ISOLATION",
  ids_sqs_1201);
* valid only in a database with logging (ids_sqs_1200): -256;
* outside a transaction: -255 "Not in transaction" (an Informix session
  quoted on pgsql-hackers, 2002);
* once per transaction, before its work: -876 (Guide to SQL: Tutorial,
  ids_sqt_392, shows -876 for a second SET TRANSACTION after a SELECT);
* SET ISOLATION after it in the same transaction: -877;
* READ ONLY refuses row changes and creating/altering/dropping objects,
  temporary tables included (Guide to SQL: Syntax, "Access Modes",
  ids_sqs_1207): -878.
The codes' texts: IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties).
Whether a transaction's level is in force is seen through what the server
does with DDL on a table another session reads: a Dirty Read or Repeatable
Read cursor keeps DROP TABLE out (-242/-106), a Committed Read one does not
(tests/test_emulator_ddl_exclusive.py has the sources).
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import connect, log_mode_server

pytestmark = pytest.mark.timeout(60)

ROWS = 3000          # more than one fetch buffer: the cursor stays open
KEPT_OUT = (-242, -106)


@pytest.fixture(scope="module")
def server():
    with log_mode_server() as srv:
        yield srv


def _connect(srv, database: str, **kw) -> ifx.Connection:
    return connect(srv, database=database, **kw)


@pytest.fixture
def table(server):
    name = f"st{_n()}"
    with _connect(server, "ldb", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} (id INTEGER, v VARCHAR(40))")
        cur.executemany(f"INSERT INTO {name} VALUES (?, ?)",
                        [(i, f"value number {i}") for i in range(ROWS)])
    return name


def _n(counter=[0]) -> int:       # noqa: B006 - a module-wide counter
    counter[0] += 1
    return counter[0]


@pytest.fixture
def ldb(server):
    """A session on the logged database, autocommit on (BEGIN WORK by hand)."""
    conn = _connect(server, "ldb", autocommit=True)
    yield conn.cursor()
    conn.close()


def _code(cur, sql: str) -> int:
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(sql)
    return info.value.sqlcode


def _drop(server, table: str) -> tuple[int, int] | None:
    """DROP TABLE from another session, rolled back: None when it went
    through, else (sqlcode, ISAM code)."""
    with _connect(server, "ldb", autocommit=True) as other:
        cur = other.cursor()
        cur.execute("BEGIN WORK")
        try:
            cur.execute(f"DROP TABLE {table}")
        except ifx.DatabaseError as exc:
            return exc.sqlcode, exc.isam_code
        finally:
            cur.execute("ROLLBACK WORK")
    return None


@pytest.mark.parametrize("level, kept_out", [
    ("READ UNCOMMITTED", True), ("READ COMMITTED", False),
    ("REPEATABLE READ", True), ("SERIALIZABLE", True),
])
def test_the_level_holds_in_the_transaction(server, table, ldb, level, kept_out):
    ldb.execute("BEGIN WORK")
    ldb.execute(f"SET TRANSACTION ISOLATION LEVEL {level}")
    ldb.execute(f"SELECT id, v FROM {table} ORDER BY id")
    assert ldb.fetchone() == (0, "value number 0")
    assert _drop(server, table) == (KEPT_OUT if kept_out else None)


def test_the_level_ends_with_the_transaction(server, table, ldb):
    """After COMMIT the session's own level (Committed Read, the logged
    database's default) is back: a cursor no longer keeps DDL out."""
    ldb.execute("BEGIN WORK")
    ldb.execute("SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
    ldb.execute("COMMIT WORK")
    ldb.execute(f"SELECT id, v FROM {table} ORDER BY id")
    assert ldb.fetchone() == (0, "value number 0")
    assert _drop(server, table) is None


def test_the_sessions_set_isolation_returns_after_it(server, table, ldb):
    ldb.execute("SET ISOLATION TO DIRTY READ")
    ldb.execute("BEGIN WORK")
    ldb.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
    ldb.execute(f"SELECT id, v FROM {table} ORDER BY id")
    assert ldb.fetchone() == (0, "value number 0")
    assert _drop(server, table) is None          # Committed Read in the transaction
    ldb.execute("ROLLBACK WORK")
    ldb.execute(f"SELECT id, v FROM {table} ORDER BY id")
    assert ldb.fetchone() == (0, "value number 0")
    assert _drop(server, table) == KEPT_OUT      # Dirty Read again after it


def test_outside_a_transaction_is_255(ldb):
    assert _code(ldb, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED") == -255


def test_a_database_without_logging_is_256(server):
    with _connect(server, "nolog", autocommit=True) as conn:
        assert _code(conn.cursor(), "SET TRANSACTION READ ONLY") == -256


def test_an_ansi_database_takes_it_as_its_transactions_first_statement(server):
    with _connect(server, "adb") as conn:
        cur = conn.cursor()
        cur.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
        conn.commit()


@pytest.mark.parametrize("before", [
    "SELECT COUNT(*) FROM systables", "SET TRANSACTION READ WRITE",
])
def test_after_the_transactions_work_or_a_first_one_it_is_876(ldb, before):
    ldb.execute("BEGIN WORK")
    ldb.execute(before)
    assert _code(ldb, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE") == -876
    ldb.execute("ROLLBACK WORK")
    ldb.execute("BEGIN WORK")             # the next transaction may set its own
    ldb.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    ldb.execute("ROLLBACK WORK")


def test_set_isolation_in_its_transaction_is_877(ldb):
    ldb.execute("BEGIN WORK")
    ldb.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    assert _code(ldb, "SET ISOLATION TO DIRTY READ") == -877
    ldb.execute("COMMIT WORK")
    ldb.execute("SET ISOLATION TO DIRTY READ")     # the transaction is over


def test_set_isolation_before_it_in_the_transaction_is_no_work(ldb):
    ldb.execute("BEGIN WORK")
    ldb.execute("SET ISOLATION TO DIRTY READ")
    ldb.execute("SET TRANSACTION READ ONLY")
    ldb.execute("ROLLBACK WORK")


@pytest.mark.parametrize("sql", [
    "INSERT INTO {t} VALUES (-1, 'x')", "UPDATE {t} SET v = 'x' WHERE id = 1",
    "DELETE FROM {t} WHERE id = 1", "CREATE TABLE {t}_b (a INTEGER)",
    "CREATE TEMP TABLE {t}_tmp (a INTEGER)", "DROP TABLE {t}",
    "CREATE INDEX {t}_ix ON {t} (id)",
])
def test_a_read_only_transaction_refuses_changes_with_878(ldb, table, sql):
    ldb.execute("BEGIN WORK")
    ldb.execute("SET TRANSACTION READ ONLY")
    ldb.execute(f"SELECT COUNT(*) FROM {table}")      # reads are fine
    assert ldb.fetchone() == (ROWS,)
    assert _code(ldb, sql.format(t=table)) == -878
    ldb.execute("COMMIT WORK")
    ldb.execute(f"SELECT COUNT(*) FROM {table} WHERE v = 'x' OR id < 0")
    assert ldb.fetchone() == (0,)                     # nothing changed
    ldb.execute(f"INSERT INTO {table} VALUES (-2, 'y')")   # the next transaction writes


@pytest.mark.parametrize("sql", [
    "SET TRANSACTION", "SET TRANSACTION ISOLATION LEVEL DIRTY READ",
    "SET TRANSACTION READ ONLY, READ WRITE", "SET TRANSACTION READ ONLY,",
    "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, ISOLATION LEVEL SERIALIZABLE",
])
def test_a_malformed_set_transaction_is_201(ldb, sql):
    ldb.execute("BEGIN WORK")
    assert _code(ldb, sql) == -201
    ldb.execute("ROLLBACK WORK")


def test_a_routine_in_a_read_only_transaction_may_read_but_not_write(ldb, table):
    """ids_sqs_1207: a routine runs in a read-only transaction "as long as
    the SPL routine does not try to perform any restricted statement"."""
    ldb.execute(f"CREATE PROCEDURE {table}_w() INSERT INTO {table} VALUES (-5, 'p'); "
                "END PROCEDURE")
    ldb.execute(f"CREATE FUNCTION {table}_r() RETURNING INTEGER; DEFINE n INTEGER; "
                f"SELECT COUNT(*) INTO n FROM {table}; RETURN n; END FUNCTION")
    ldb.execute("BEGIN WORK")
    ldb.execute("SET TRANSACTION READ ONLY")
    ldb.execute(f"EXECUTE FUNCTION {table}_r()")
    assert ldb.fetchone() == (ROWS,)
    assert _code(ldb, f"EXECUTE PROCEDURE {table}_w()") == -878
    ldb.execute("COMMIT WORK")
    ldb.execute(f"SELECT COUNT(*) FROM {table} WHERE id = -5")
    assert ldb.fetchone() == (0,)
