"""Database prefixes on table names (``db:table``, ``db@server:table``).

IBM Informix Guide to SQL: Syntax, "Database Object Name": a table may be
named ``database[@server]:[owner.]table``; a prefix naming the current
database names the same table as no prefix at all.  The emulator cannot read
another database from a session, so such a prefix must be refused as
unsupported, never resolved in the current database (which returned the
current database's table of the same name: wrong rows, no error).  The
sysmaster tables clients read at connect are served (test_emulator_sysmaster);
any other sysmaster table is refused the same way.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, unique


@pytest.fixture
def conn(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c
    c.close()


@pytest.fixture
def table(conn):
    name = unique("pfx")
    conn.cursor().execute(f"CREATE TABLE {name} (k INTEGER)")
    conn.cursor().execute(f"INSERT INTO {name} VALUES (7)")
    yield name
    conn.cursor().execute(f"DROP TABLE {name}")


def test_prefix_naming_the_current_database_is_the_same_table(conn, table, ifx_target):
    cur = conn.cursor()
    db = ifx_target.database
    cur.execute(f"SELECT k FROM {db}:{table}")
    assert cur.fetchall() == [(7,)]
    cur.execute(f"SELECT k FROM {db}:informix.{table} WHERE k = ?", (7,))
    assert cur.fetchall() == [(7,)]
    cur.execute(f"INSERT INTO {db}:{table} VALUES (8)")
    cur.execute(f"UPDATE {db}:{table} SET k = 9 WHERE k = 8")
    cur.execute(f"SELECT {table}.k FROM {db}:{table} ORDER BY 1")
    assert cur.fetchall() == [(7,), (9,)]


def test_other_database_prefix_is_refused_not_read_from_this_one(conn, table, ifx_target):
    if ifx_target.kind != "emulator":
        pytest.skip("a real server reads the other database; the emulator cannot")
    cur = conn.cursor()
    for sql in (f"SELECT k FROM otherdb:{table}",
                f"SELECT k FROM otherdb:informix.{table}",
                f"INSERT INTO otherdb:{table} VALUES (1)",
                f"DELETE FROM otherdb:{table}",
                "SELECT state FROM sysmaster:informix.sysdri",
                f"SELECT k FROM {ifx_target.database}@elsewhere:{table}"):
        with pytest.raises(ifx.NotSupportedError, match="not supported by the emulator"):
            cur.execute(sql)
    cur.execute(f"SELECT k FROM {table}")
    assert cur.fetchall() == [(7,)]          # nothing was written through a refused prefix


def test_stray_at_sign_is_a_syntax_error(conn, table):
    with pytest.raises(ifx.ProgrammingError) as info:
        conn.cursor().execute(f"SELECT k @ 2 FROM {table}")
    assert info.value.sqlcode == -201


def test_colons_that_are_not_prefixes_still_work(conn, table):
    cur = conn.cursor()
    cur.execute(f"SELECT k::CHAR(3), DATETIME(12:30) HOUR TO MINUTE FROM {table}")
    row = cur.fetchone()
    assert row[0].strip() == "7" and (row[1].hour, row[1].minute) == (12, 30)
