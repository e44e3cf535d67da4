"""ANSI-compliant databases (CREATE DATABASE ... WITH LOG MODE ANSI), in the
emulator and in the driver.

What a real server does, and where it was learned:
* every statement runs in a transaction that lasts until COMMIT/ROLLBACK
  WORK (HCL Informix Database Design Guide, "Transactions");
* BEGIN WORK right after DATABASE/COMMIT/ROLLBACK is accepted (with a
  warning), after any other statement it is an error (Guide to SQL: Syntax,
  "BEGIN WORK and ANSI-Compliant Databases"): -535 "Already in transaction"
  (IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties);
* the DATABASE reply's warnings carry 0x02 for ANSI next to 0x01 for logged
  (JDBC IfxSqliConnect.OpenDbInit), and JDBC in autocommit mode sends
  COMMIT WORK after each statement there (IfxSqli.executeCommit when
  isCommitNeeded);
* a text value longer than its column raises -1279 in an ANSI database and
  is truncated in any other (HCL Informix 14.10 ESQL/C Guide, "Insert CHAR
  data", "Insert VARCHAR data").
"""

from __future__ import annotations

import pytest

import informix_stream
from informix_stream.emulator.server import EmulatorServer


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        with _connect(srv, "testdb", autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("CREATE DATABASE adb WITH LOG MODE ANSI")
            cur.execute("CREATE DATABASE ldb WITH LOG")
        yield srv


def _connect(srv, database="adb", **kw):
    return informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                   database=database, **kw)


@pytest.fixture
def table(server):
    """A fresh table in both databases: (name)."""
    name = f"t{table.n}"
    table.n += 1
    for db in ("adb", "ldb"):
        with _connect(server, db, autocommit=True) as conn:
            conn.cursor().execute(f"CREATE TABLE {name} (id INT PRIMARY KEY, "
                                  "v VARCHAR(3), c CHAR(3))")
    return name


table.n = 0


def _ids(server, t, db="adb"):
    with _connect(server, db, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id FROM {t} ORDER BY id")
        return [r[0] for r in cur.fetchall()]


def test_the_database_says_ansi(server):
    with _connect(server) as conn:
        assert conn.is_ansi is True and conn.logged is True
    with _connect(server, "ldb") as conn:
        assert conn.is_ansi is False and conn.logged is True
    with _connect(server, "testdb", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("DATABASE adb")
        assert conn.is_ansi is True
        cur.execute("DATABASE ldb")
        assert conn.is_ansi is False


def test_autocommit_commits_each_statement(server, table):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"INSERT INTO {table} VALUES (1, 'a', 'a')")
        assert conn.in_transaction is False
        assert _ids(server, table) == [1]        # another session sees it at once
        cur.execute(f"SELECT id FROM {table}")
        assert cur.fetchall() == [(1,)]
        cur.execute("CLOSE DATABASE")            # no transaction left open: no -377


def test_without_autocommit_work_waits_for_commit(server, table):
    with _connect(server) as conn:
        cur = conn.cursor()
        cur.execute(f"INSERT INTO {table} VALUES (1, 'a', 'a')")
        assert conn.in_transaction is True
        conn.rollback()
        assert _ids(server, table) == []
        cur.execute(f"INSERT INTO {table} VALUES (2, 'b', 'b')")
        conn.commit()
        assert _ids(server, table) == [2]
        cur.execute(f"INSERT INTO {table} VALUES (3, 'c', 'c')")
        conn.close()                             # rolls the open work back
    assert _ids(server, table) == [2]


def test_a_select_opens_the_transaction_too(server, table):
    with _connect(server) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id FROM {table}")
        cur.fetchall()
        assert conn.in_transaction is True
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("CLOSE DATABASE")
        assert info.value.sqlcode == -377


def test_begin_work_only_right_after_a_transaction_ends(server, table):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("BEGIN WORK")                # right after DATABASE: accepted
        cur.execute(f"INSERT INTO {table} VALUES (1, 'a', 'a')")
        cur.execute("ROLLBACK WORK")
    assert _ids(server, table) == []
    with _connect(server) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id FROM {table}")
        with pytest.raises(informix_stream.DatabaseError) as info:
            cur.execute("BEGIN WORK")
        assert info.value.sqlcode == -535


def test_commit_work_without_statements_is_no_error(server):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("COMMIT WORK")
        cur.execute("ROLLBACK WORK")


@pytest.mark.parametrize("value", ["abcd", "abc ", "ab\u00e9d"])
@pytest.mark.parametrize("column", ["v", "c"])
def test_too_long_text_is_1279_in_ansi_and_cut_elsewhere(server, table, column, value):
    other = "c" if column == "v" else "v"
    sql = f"INSERT INTO {table} (id, {column}, {other}) VALUES (?, ?, 'x')"
    with _connect(server, autocommit=True) as conn:
        with pytest.raises(informix_stream.DataError) as info:
            conn.cursor().execute(sql, (1, value))
        assert info.value.sqlcode == -1279
        with pytest.raises(informix_stream.DataError) as info:
            conn.cursor().execute(f"UPDATE {table} SET {column} = ?", (value,))
        assert info.value.sqlcode == -1279
    assert _ids(server, table) == []
    with _connect(server, "ldb", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(sql, (1, value))
        cur.execute(f"SELECT {column} FROM {table}")
        assert cur.fetchone()[0].rstrip() == value[:3].rstrip()


@pytest.mark.parametrize("insert_cursor", [True, False])
@pytest.mark.parametrize("autocommit", [True, False])
@pytest.mark.parametrize("bad", [0, 3, 9])
def test_executemany_lands_exactly_the_rows_before_a_too_long_one(
        server, table, insert_cursor, autocommit, bad):
    rows = [(i, "x" * (4 if i == bad else 3), "y") for i in range(10)]
    with _connect(server, autocommit=autocommit) as conn:
        cur = conn.cursor()
        with pytest.raises(informix_stream.DataError) as info:
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)", rows,
                            insert_cursor=insert_cursor, chunk_size=4)
        assert info.value.sqlcode == -1279 and info.value.row_index == bad
        if not autocommit:
            assert _ids(server, table) == []     # nothing committed behind the caller's back
            conn.commit()
    assert _ids(server, table) == list(range(bad))


@pytest.mark.parametrize("insert_cursor", [True, False])
def test_executemany_batch_errors_commits_the_good_rows(server, table, insert_cursor):
    rows = [(i, "x" * (4 if i in (2, 5) else 3), "y") for i in range(8)]
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)", rows,
                        insert_cursor=insert_cursor, batch_errors=True, chunk_size=3)
        assert [e.row_index for e in cur.batch_errors] == [2, 5]
        assert conn.in_transaction is False
    assert _ids(server, table) == [0, 1, 3, 4, 6, 7]


def test_another_owners_table_is_refused_not_resolved(server, table):
    with _connect(server, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id FROM informix.{table}")      # the owner systables names
        for sql in (f"SELECT id FROM bob.{table}", f"INSERT INTO bob.{table} VALUES (1, 'a', 'a')",
                    f"CREATE TABLE bob.{table} (a INT)"):
            with pytest.raises(informix_stream.DatabaseError) as info:
                cur.execute(sql)
            assert "not supported by the emulator" in str(info.value)
