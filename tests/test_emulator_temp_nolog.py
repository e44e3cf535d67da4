"""A TEMP table created WITH NO LOG keeps its rows through a ROLLBACK
(issue 11, emulator fidelity); they used to be rolled back with the
transaction.

IBM Guide to SQL: Syntax, "Using the WITH NO LOG option" (ids_sqs_0575):
"DML operations on the temporary table are not included in the transaction
log records", while the CREATE TEMP TABLE itself, "like all DDL
statements", is logged.  Administrator's Reference, "TEMPTAB_NOLOG
configuration parameter" (ids_adr_0183): without that logging "rolling back
a transaction on a temporary table will no longer undo the work in the
temporary table".  So: rows inserted, changed or deleted in the transaction
stay as they are after ROLLBACK WORK (and ROLLBACK TO SAVEPOINT); a table
created WITH NO LOG inside the rolled-back transaction is gone; a logged
temp table's work is undone as before.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from informix_stream.emulator.server import EmulatorServer

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        with ifx.connect(host=srv.host, port=srv.port, password="in4mix",
                         database="testdb", autocommit=True) as conn:
            conn.cursor().execute("CREATE DATABASE ldb WITH LOG")
        yield srv


@pytest.fixture
def cur(server):
    conn = ifx.connect(host=server.host, port=server.port, password="in4mix",
                       database="ldb", autocommit=True, read_timeout=30)
    yield conn.cursor()
    conn.close()


def _rows(cur, table: str) -> list[tuple]:
    cur.execute(f"SELECT * FROM {table} ORDER BY 1")
    return cur.fetchall()


@pytest.mark.parametrize("create", [
    "CREATE TEMP TABLE nl (id INTEGER, v VARCHAR(10)) WITH NO LOG",
    "SELECT tabid AS id, tabname AS v FROM systables WHERE tabid = 1 INTO TEMP nl "
    "WITH NO LOG",
])
def test_rollback_leaves_a_no_log_tables_rows(cur, create):
    cur.execute(create)
    cur.execute("DELETE FROM nl")
    cur.execute("INSERT INTO nl VALUES (1, 'before')")
    cur.execute("BEGIN WORK")
    cur.execute("INSERT INTO nl VALUES (2, 'in tx')")
    cur.execute("UPDATE nl SET v = 'changed' WHERE id = 1")
    cur.execute("ROLLBACK WORK")
    assert _rows(cur, "nl") == [(1, "changed"), (2, "in tx")]


def test_a_logged_temp_table_is_rolled_back(cur):
    cur.execute("CREATE TEMP TABLE lg (id INTEGER)")
    cur.execute("INSERT INTO lg VALUES (1)")
    cur.execute("BEGIN WORK")
    cur.execute("INSERT INTO lg VALUES (2)")
    cur.execute("DELETE FROM lg WHERE id = 1")
    cur.execute("ROLLBACK WORK")
    assert _rows(cur, "lg") == [(1,)]


def test_a_delete_is_not_undone_either(cur):
    cur.execute("CREATE TEMP TABLE nd (id INTEGER) WITH NO LOG")
    cur.execute("INSERT INTO nd VALUES (1)")
    cur.execute("INSERT INTO nd VALUES (2)")
    cur.execute("BEGIN WORK")
    cur.execute("DELETE FROM nd WHERE id = 1")
    cur.execute("ROLLBACK WORK")
    assert _rows(cur, "nd") == [(2,)]


def test_its_create_in_the_rolled_back_transaction_is_undone(cur):
    cur.execute("BEGIN WORK")
    cur.execute("CREATE TEMP TABLE nc (id INTEGER) WITH NO LOG")
    cur.execute("INSERT INTO nc VALUES (1)")
    cur.execute("ROLLBACK WORK")
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute("SELECT * FROM nc")
    assert info.value.sqlcode == -206
    cur.execute("CREATE TEMP TABLE nc (id INTEGER) WITH NO LOG")   # the name is free


def test_rollback_to_savepoint_leaves_them_too(cur):
    cur.execute("CREATE TEMP TABLE ns (id INTEGER) WITH NO LOG")
    cur.execute("CREATE TEMP TABLE ls (id INTEGER)")
    cur.execute("BEGIN WORK")
    cur.execute("SAVEPOINT a")
    cur.execute("INSERT INTO ns VALUES (1)")
    cur.execute("INSERT INTO ls VALUES (1)")
    cur.execute("ROLLBACK TO SAVEPOINT a")
    assert _rows(cur, "ns") == [(1,)]
    assert _rows(cur, "ls") == []
    cur.execute("COMMIT WORK")
    assert _rows(cur, "ns") == [(1,)]


def test_text_values_survive_the_rollback(cur):
    cur.execute("CREATE TEMP TABLE nt (id INTEGER, body TEXT, raw BYTE) WITH NO LOG")
    cur.execute("INSERT INTO nt VALUES (?, ?, ?)", (1, "kept before", b"\x00\x01"))
    cur.execute("BEGIN WORK")
    cur.execute("INSERT INTO nt VALUES (?, ?, ?)", (2, "written in the transaction", b"\xff"))
    cur.execute("ROLLBACK WORK")
    assert _rows(cur, "nt") == [(1, "kept before", b"\x00\x01"),
                                (2, "written in the transaction", b"\xff")]
    cur.execute("DELETE FROM nt")                     # and the values are still its own
    assert _rows(cur, "nt") == []
