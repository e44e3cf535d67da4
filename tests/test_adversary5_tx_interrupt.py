"""Adversary: a statement interrupted (conn.cancel(), statement_timeout)
inside a transaction.  IBM's ESQL/C sqlbreak(): after an interrupted request
"any open databases, cursors, and transactions remain open" -- only the
statement is undone.  SQLite, under the emulator, rolls the WHOLE
transaction back when a write in it is interrupted (sqlite3_interrupt: "If
the interrupted SQL operation is an INSERT, UPDATE, or DELETE that is
inside an explicit transaction, then the entire transaction will be rolled
back automatically").

Found here: the emulator did not notice.  The transaction's earlier rows
were gone, the next INSERT ran in SQLite's autocommit (visible to every
session at once), and ``commit()`` / ``rollback()`` both reported success:
a committed row the caller meant to roll back, earlier rows silently lost.
Now the emulator refuses every statement of the lost transaction with a
"not supported by the emulator" error until it ends, and a COMMIT of it
fails saying it was rolled back.

Rule checked: whatever the calls after the interrupt say, the table holds
exactly what a successful commit() vouched for, and nothing before it.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect, rows
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
SLOW_INSERT = ("INSERT INTO t SELECT a.id + 1000 FROM big a, big b, big c "
               "WHERE a.id + b.id + c.id >= 0")
SLOW_UPDATE = "UPDATE t SET id = id WHERE id IN (SELECT a.id FROM big a, big b, big c)"


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with connect(srv, autocommit=True) as c:
            cur = c.cursor()
            cur.execute("CREATE TABLE big (id INTEGER)")
            cur.execute("CREATE TABLE t (id INTEGER)")
            cur.executemany("INSERT INTO big VALUES (?)", [(i,) for i in range(300)])
            cur.execute("CREATE TABLE s (k SERIAL, id INTEGER)")
            cur.executemany("INSERT INTO s (id) VALUES (?)", [(i,) for i in range(300)])
        yield srv


@pytest.fixture
def observer(server):
    with connect(server, autocommit=True) as c:
        c.cursor().execute("DELETE FROM t")
        yield c


def _try(call) -> bool:
    try:
        call()
        return True
    except ifx.Error:
        return False


def _interrupted(cur, sql: str) -> None:
    with pytest.raises(ifx.OperationalError) as info:
        cur.execute(sql)
        cur.fetchall()            # a SELECT runs as its rows are fetched
    assert info.value.sqlcode == -213


@pytest.mark.parametrize("slow", [SLOW_INSERT, SLOW_UPDATE], ids=["insert", "update"])
@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_work_after_an_interrupted_write_is_never_committed_unasked(server, observer,
                                                                    slow, end):
    conn = connect(server, statement_timeout=0.3)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1)")
    _interrupted(cur, slow)
    second = _try(lambda: cur.execute("INSERT INTO t VALUES (2)", timeout=30))
    assert rows(observer, "SELECT id FROM t") == []          # nothing visible yet
    ended = _try(conn.commit if end == "commit" else conn.rollback)
    committed = sorted(r[0] for r in rows(observer, "SELECT id FROM t"))
    if end == "commit" and ended:
        assert committed == [1, 2] if second else [1]
    else:
        assert committed == []
    conn.close()


def test_after_the_rollback_the_connection_works_in_a_new_transaction(server, observer):
    conn = connect(server, statement_timeout=0.3)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1)")
    _interrupted(cur, SLOW_INSERT)
    conn.rollback()
    cur.execute("INSERT INTO t VALUES (3)", timeout=30)
    conn.commit()
    assert rows(observer, "SELECT id FROM t") == [(3,)]
    conn.close()


def test_an_interrupted_read_in_a_transaction_keeps_the_transaction(server, observer):
    conn = connect(server, statement_timeout=0.3)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1)")
    _interrupted(cur, "SELECT COUNT(*) FROM big a, big b, big c "
                      "WHERE a.id + b.id + c.id >= 0")
    cur.execute("INSERT INTO t VALUES (2)", timeout=30)
    conn.commit()
    assert sorted(rows(observer, "SELECT id FROM t")) == [(1,), (2,)]
    conn.close()


@pytest.mark.parametrize("autocommit", [True, False])
def test_an_interrupted_multi_step_write_is_minus_213_and_undone(server, autocommit):
    """A DELETE on a table with a SERIAL column runs as several SQLite steps
    under one savepoint (savepoints.StatementSavepoint).  Found here: interrupted, it
    was an emulator internal error (-999, "no such savepoint": SQLite had
    already undone the savepoint with the transaction), not -213."""
    conn = connect(server, statement_timeout=0.3, autocommit=autocommit)
    cur = conn.cursor()
    _interrupted(cur, "DELETE FROM s WHERE id IN "
                      "(SELECT a.id FROM big a, big b, big c WHERE a.id + b.id + c.id >= 0)")
    if not autocommit:
        conn.rollback()
    assert rows(conn, "SELECT COUNT(*) FROM s") == [(300,)]
    conn.close()


def test_an_insert_cursors_replay_never_runs_outside_the_lost_transaction():
    """insert_cursor.put: when a PUT block's batch fails (an interrupt among
    the transient failures it expects), the block is replayed row by row.
    Found here: after an interrupted write, the replay ran in SQLite's
    autocommit -- rows committed at once, outside the transaction the client
    still had open, and kept by its ROLLBACK WORK."""
    from informix_stream.emulator.engine import Engine
    from informix_stream.emulator.statements import NOT_SUPPORTED, SqlError

    eng = Engine(["testdb"])
    try:
        s = eng.connect("testdb")
        s.execute(s.prepare("CREATE TABLE t (id INTEGER)"))
        s.begin()
        insert = s.prepare("INSERT INTO t VALUES (?)")
        s.execute(insert, [1])
        s._conn.execute("ROLLBACK")    # what SQLite does when a write in it is interrupted
        with pytest.raises(SqlError) as info:
            s.execute_many(insert, [[2], [3]])
        assert info.value.sqlcode == NOT_SUPPORTED
        s.rollback()
        count = s.open_cursor(s.prepare("SELECT COUNT(*) FROM t")).fetch(10)
        assert count == [(0,)]
    finally:
        eng.close()
