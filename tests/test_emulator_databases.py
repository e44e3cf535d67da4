"""Databases as statements and at runtime: CREATE/DROP DATABASE, DATABASE,
CLOSE DATABASE, logging modes, and the engine's clone used by the pytest harness.

Codes are the server's (IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties):
-256 transaction not available, -329 database not found, -330 cannot create,
-349 database not selected, -354 bad database name, -359 cannot drop the
current database, -377 must end the transaction before closing the database,
-425 database opened by another user.  Which statement gives which is from
IBM's SQL Syntax guide (CREATE DATABASE, DROP DATABASE, CLOSE DATABASE,
DATABASE statements) and "Select the type of logging" (BEGIN WORK is not
permitted in a database without logging).
"""

from __future__ import annotations

import pytest

import informix_stream
from informix_stream.emulator.server import EmulatorServer
from informix_stream.emulator.statements import SqlError


@pytest.fixture
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        yield srv


def _connect(srv, database="testdb", **kw):
    return informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                   database=database, **kw)


def _code(excinfo) -> int:
    return excinfo.value.sqlcode


def test_create_database_without_log_refuses_transactions(server):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE nolog")
        cur.execute("CREATE TABLE t (a INT)")
        cur.execute("INSERT INTO t VALUES (1)")       # applied at once: no transaction
        for sql in ("BEGIN WORK", "COMMIT WORK", "ROLLBACK WORK"):
            with pytest.raises(informix_stream.DatabaseError) as info:
                cur.execute(sql)
            assert _code(info) == -256
    with _connect(server, "nolog", autocommit=True) as conn:
        assert conn.logged is False            # the DATABASE reply says: no logging
        cur = conn.cursor()
        cur.execute("SELECT a FROM t")
        assert cur.fetchall() == [(1,)]


@pytest.mark.parametrize("clause", ["WITH LOG", "WITH BUFFERED LOG"])
def test_create_database_with_log_is_logged(server, clause):
    with _connect(server, autocommit=True) as conn:
        conn.cursor().execute(f"CREATE DATABASE logged {clause}")
    with _connect(server, "logged") as conn:
        assert conn.logged is True
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (a INT)")
        conn.commit()
        cur.execute("INSERT INTO t VALUES (1)")
        conn.rollback()
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (0,)


def test_create_existing_and_if_not_exists(server):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("CREATE DATABASE testdb WITH LOG")
        assert _code(info) == -330
        cur.execute("CREATE DATABASE IF NOT EXISTS testdb WITH LOG")
        cur.execute("SELECT DBINFO('dbname') FROM systables WHERE tabid = 1")
        assert cur.fetchone()[0].strip() == "testdb"     # still the current database


def test_drop_database_rules(server):
    with _connect(server, autocommit=True) as conn, _connect(server, autocommit=True) as other:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE gone WITH LOG")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("DROP DATABASE gone")
        assert _code(info) == -359                       # the current database
        other.cursor().execute("DATABASE gone")
        cur.execute("DATABASE testdb")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("DROP DATABASE gone")
        assert _code(info) == -425                       # open in another session
        other.cursor().execute("CLOSE DATABASE")
        cur.execute("DROP DATABASE gone")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("DROP DATABASE gone")
        assert _code(info) == -329
        cur.execute("DROP DATABASE IF EXISTS gone")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("DATABASE gone")
        assert _code(info) == -329


def test_close_database(server):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("BEGIN WORK")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("CLOSE DATABASE")
        assert _code(info) == -377
        cur.execute("ROLLBACK WORK")
        cur.execute("CLOSE DATABASE")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("CLOSE DATABASE")
        assert _code(info) == -349
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("SELECT 1 FROM systables WHERE tabid = 1")
        assert _code(info) == -349


@pytest.mark.parametrize("sql, code", [
    ("DATABASE ../etc", -354),
    ("CREATE DATABASE a-b", -354),
    ("DATABASE", -201),
    ("DATABASE db@otherserver", -9999),
])
def test_refused_forms(server, sql, code):
    with _connect(server, autocommit=True) as conn:
        with pytest.raises(informix_stream.DatabaseError) as info:
            conn.cursor().execute(sql)
        assert _code(info) == code


def test_created_databases_survive_a_restart_with_their_mode(tmp_path):
    with EmulatorServer(databases=(), data_dir=str(tmp_path)) as srv:
        with informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                     autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("CREATE DATABASE kept")
            cur.execute("CREATE TABLE t (a INT)")
            cur.execute("INSERT INTO t VALUES (3)")
    with EmulatorServer(databases=(), data_dir=str(tmp_path)) as srv:
        with _connect(srv, "kept", autocommit=True) as conn:
            assert conn.logged is False
            cur = conn.cursor()
            cur.execute("SELECT a FROM t")
            assert cur.fetchall() == [(3,)]


def test_clone_copies_committed_state_and_mode(server):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE src")
        cur.execute("CREATE TABLE t (n SERIAL, a INT)")
        cur.execute("INSERT INTO t (a) VALUES (1)")
    server.engine.databases.clone("src", "copy")
    with _connect(server, "copy", autocommit=True) as conn:
        assert conn.logged is False
        cur = conn.cursor()
        cur.execute("INSERT INTO t (a) VALUES (2)")
        cur.execute("SELECT n, a FROM t ORDER BY n")
        assert cur.fetchall() == [(1, 1), (2, 2)]         # the SERIAL carries on
    with _connect(server, "src", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (1,)                      # the source is untouched


def test_forced_drop_cuts_off_a_leftover_connection(server):
    server.engine.databases.create("scratch")
    leftover = _connect(server, "scratch", autocommit=True, read_timeout=10)
    leftover.cursor().execute("CREATE TABLE t (a INT)")
    with pytest.raises(SqlError) as info:
        server.drop_database("scratch")
    assert _code(info) == -425
    server.drop_database("scratch", force=True)
    assert not server.engine.has_database("scratch")
    with pytest.raises(informix_stream.Error):
        leftover.cursor().execute("INSERT INTO t VALUES (1)")   # never a silent success
    leftover.close()


def test_statements_prepared_before_a_database_change_are_never_released_after_it(tmp_path):
    """DATABASE, CREATE DATABASE and CLOSE DATABASE free every statement on
    the server; the driver used to send the RELEASEs it had queued (or kept
    statements' ones) with the next request, which then failed with -410
    although the user's statement was fine -- or succeeded on the server and
    was reported as failed.  And a database created without logging is
    known as such at once (no implicit BEGIN, which would be -256)."""
    with EmulatorServer(databases=("testdb", "other")) as srv:
        conn = informix_stream.connect(host=srv.host, port=srv.port, user="informix",
                                       password="in4mix", database="testdb", autocommit=True)
        cur = conn.cursor()
        held = conn.cursor()
        held.execute("SELECT tabid FROM systables")          # an open stream
        held.fetchone()
        for n in range(3):
            cur.execute(f"SELECT {n} FROM systables WHERE tabid = 1")   # kept statements
        cur.execute("DATABASE other")
        cur.execute("SELECT 7 FROM systables WHERE tabid = 1")
        assert cur.fetchall() == [(7,)]
        held.close()                                          # owes nothing now
        cur.execute("SELECT 8 FROM systables WHERE tabid = 1")
        assert cur.fetchall() == [(8,)]
        cur.execute("CREATE DATABASE made_unlogged")
        conn.autocommit = False
        cur.execute("CREATE TABLE t (a INTEGER)")            # no BEGIN sent: unlogged
        cur.execute("INSERT INTO t VALUES (1)")
        cur.execute("SELECT a FROM t")
        assert cur.fetchall() == [(1,)]
        with pytest.raises(informix_stream.OperationalError) as info:
            cur.execute("BEGIN WORK")
        assert info.value.sqlcode == -256
        cur.execute("CLOSE DATABASE")
        cur.execute("DATABASE testdb")
        cur.execute("SELECT 9 FROM systables WHERE tabid = 1")
        assert cur.fetchall() == [(9,)]
        conn.close()
