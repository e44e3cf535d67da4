"""The sysmaster tables clients read at connect, through ``sysmaster:``.

Columns, types and order: IBM Informix Administrator's Reference, "The
sysmaster database" (sysdatabases ids_adr_0221, sysdbslocale ids_adr_0222,
sysdual ids_adr_0225).  The query IBM's JDBC driver runs at connect is
IfxSqliConnect.xaSetSerWarnFlags's (decompiled jdbc-src).  Our driver and
informix-driver must read the same rows; IBM's driver reads them in
tests/interop/test_sysmaster_interop.py.
"""

from __future__ import annotations

import datetime

import pytest

import informix_stream as ifx
from test_driver import connect, theirs, unique

# The text IBM's JDBC driver sends (IfxSqliConnect.xaSetSerWarnFlags).
JDBC_PROBE = "select is_ansi, is_logging from sysmaster:informix.sysdatabases where name = '{}'"

pytestmark = pytest.mark.usefixtures("emulator_only")


@pytest.fixture
def emulator_only(ifx_target):
    if ifx_target.kind != "emulator":
        pytest.skip("the rows asserted here (database names, modes) are the emulator's own")


@pytest.fixture
def conn(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c
    c.close()


def rows(conn, sql: str) -> list[tuple]:
    cur = conn.cursor()
    cur.execute(sql)
    return cur.fetchall()


def test_jdbc_connect_probe_reads_the_current_database_mode(conn, ifx_target):
    # The test database is created WITH LOG (harness): logged, not ANSI.
    assert rows(conn, JDBC_PROBE.format(ifx_target.database)) == [(0, 1)]
    assert rows(conn, JDBC_PROBE.format("no_such_database")) == []


def test_sysdual_has_one_row(conn):
    assert rows(conn, "SELECT * FROM sysmaster:sysdual") == [("X",)]
    assert rows(conn, "SELECT 1 + 1 FROM sysmaster:'informix'.sysdual") == [(2,)]


def test_sysdatabases_columns_as_ibm_documents_them(conn):
    cur = conn.cursor()
    cur.execute("SELECT * FROM sysmaster:sysdatabases")
    assert [d[0] for d in cur.description] == [
        "name", "partnum", "owner", "created", "is_logging", "is_buff_log", "is_ansi",
        "is_nls", "is_case_insens", "flags"]
    assert [d[1] for d in cur.description] == [
        ifx.STRING, ifx.NUMBER, ifx.STRING, ifx.DATETIME] + [ifx.NUMBER] * 6


def test_created_database_appears_with_its_mode_and_goes_when_dropped(conn, ifx_target):
    name = unique("smdb")
    cur = conn.cursor()
    cur.execute(f"CREATE DATABASE {name} WITH BUFFERED LOG")
    try:
        cur.execute(f"DATABASE {ifx_target.database}")
        got = rows(conn, "SELECT name, owner, created, is_logging, is_buff_log, is_ansi,"
                         f" flags FROM sysmaster:sysdatabases WHERE name = '{name}'")
        assert [(r[0].rstrip(), r[1].rstrip(), *r[2:]) for r in got] == [
            (name, "informix", datetime.date.today(), 1, 1, 0, 2)]
        got = rows(conn, "SELECT dbs_collate FROM sysmaster:sysdbslocale"
                         f" WHERE dbs_dbsname = '{name}'")
        assert [r[0].rstrip() for r in got] == ["en_US.819"]
    finally:
        cur.execute(f"DROP DATABASE {name}")
    assert rows(conn, f"SELECT name FROM sysmaster:sysdatabases WHERE name = '{name}'") == []


def test_sysmaster_rows_join_the_current_database(conn, ifx_target):
    got = rows(conn, "SELECT d.name, t.tabname FROM sysmaster:informix.sysdatabases d,"
                     f" systables t WHERE t.tabid = 1 AND d.name = '{ifx_target.database}'")
    assert [(r[0].rstrip(), r[1]) for r in got] == [(ifx_target.database, "systables")]


def test_sysmaster_tables_cannot_be_written(conn):
    cur = conn.cursor()
    for sql in ("DELETE FROM sysmaster:sysdatabases",
                "INSERT INTO sysmaster:sysdual VALUES ('Y')",
                "UPDATE sysmaster:informix.sysdbslocale SET dbs_collate = 'x'"):
        with pytest.raises(ifx.NotSupportedError, match="not supported by the emulator"):
            cur.execute(sql)
    assert rows(conn, "SELECT count(*) FROM sysmaster:sysdual") == [(1,)]


def test_other_sysmaster_tables_are_refused_not_read_here(conn):
    cur = conn.cursor()
    for sql in ("SELECT state FROM sysmaster:informix.sysdri",
                "SELECT scs_currdb FROM sysmaster:informix.syssqlcurses",
                "SELECT * FROM sysmaster:systables"):
        with pytest.raises(ifx.NotSupportedError, match="sysmaster table .* not supported"):
            cur.execute(sql)


def test_unprefixed_names_do_not_reach_sysmaster(conn):
    with pytest.raises(ifx.ProgrammingError) as info:
        conn.cursor().execute("SELECT * FROM sysdual")
    assert info.value.sqlcode == -206


def test_informix_driver_reads_the_same_rows(conn, ifx_target):
    sql = ("SELECT name, partnum, owner, created, is_logging, is_buff_log, is_ansi, is_nls,"
           " is_case_insens, flags FROM sysmaster:sysdatabases ORDER BY name")
    other = theirs(ifx_target, autocommit=True)
    try:
        cur = other.cursor()
        cur.execute(sql)
        theirs_rows = cur.fetchall()
        cur.execute(JDBC_PROBE.format(ifx_target.database))
        probe = cur.fetchall()
        cur.execute("SELECT dummy FROM sysmaster:sysdual")
        dual = cur.fetchall()
    finally:
        other.close()
    ours = rows(conn, sql)
    assert len(ours) >= 1
    # informix-driver strips CHAR padding, ours keeps it (as the server sends it).
    assert [_stripped(r) for r in theirs_rows] == [_stripped(r) for r in ours]
    assert [tuple(r) for r in probe] == [(0, 1)]
    assert [tuple(r) for r in dual] == [("X",)]


def _stripped(row) -> tuple:
    return tuple(v.rstrip() if isinstance(v, str) else v for v in row)
