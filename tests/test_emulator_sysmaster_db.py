"""Connecting to database ``sysmaster`` (issue 11).

IBM Informix Administrator's Reference, "The sysmaster Database"
(ids_adr_0200): every server has it, created with unbuffered logging; its
tables are read by name there (``SELECT ... FROM sysdatabases``), as they
are through ``sysmaster:`` from any other database.  The emulator serves
sysdatabases, sysdbslocale and sysdual (tests/test_emulator_sysmaster.py);
any other sysmaster table is "not supported by the emulator", never rows
of the emulator's own catalog.  A private server per test: opening
sysmaster makes it, and other tests count the shared server's databases.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import informix_stream as ifx
from informix_stream.emulator import EmulatorServer


@pytest.fixture
def server():
    with EmulatorServer(databases=("appdb",)) as srv:
        yield SimpleNamespace(host=srv.host, port=srv.port, user="informix",
                              password="in4mix", server="informix", database="sysmaster")


def connect(server, database="sysmaster"):
    return ifx.connect(host=server.host, port=server.port, user=server.user,
                       password=server.password, server=server.server, database=database,
                       autocommit=True, read_timeout=60)


def rows(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    return [tuple(v.rstrip() if isinstance(v, str) else v for v in r) for r in cur.fetchall()]


def test_sysmaster_tables_by_their_own_names(server):
    with connect(server) as conn:
        assert rows(conn, "SELECT name, is_logging, is_buff_log, is_ansi FROM sysdatabases "
                          "ORDER BY name") == [("appdb", 1, 0, 0), ("sysmaster", 1, 0, 0)]
        assert rows(conn, "SELECT dummy FROM sysdual") == [("X",)]
        assert rows(conn, "SELECT dummy FROM sysmaster:sysdual") == [("X",)]
        assert rows(conn, "SELECT dbs_dbsname FROM sysdbslocale ORDER BY 1") == \
            [("appdb",), ("sysmaster",)]
        # its own catalog is a database's catalog
        assert rows(conn, "SELECT tabname FROM systables WHERE tabid = 1") == [("systables",)]


def test_other_sysmaster_tables_are_not_supported_not_empty(server):
    with connect(server) as conn:
        with pytest.raises(ifx.NotSupportedError, match="sysmaster table sysdri"):
            conn.cursor().execute("SELECT state FROM sysdri")


def test_sysmaster_is_logged_and_listed_from_other_databases(server):
    with connect(server) as conn:
        conn.cursor().execute("SELECT dummy FROM sysdual")
    with connect(server, "appdb") as conn:
        assert rows(conn, "SELECT name FROM sysmaster:sysdatabases ORDER BY 1") == \
            [("appdb",), ("sysmaster",)]
        cur = conn.cursor()
        cur.execute("DATABASE sysmaster")
        assert rows(conn, "SELECT COUNT(*) FROM sysdatabases") == [(2,)]
    plain = ifx.connect(host=server.host, port=server.port, user=server.user,
                        password=server.password, server=server.server, database="sysmaster",
                        read_timeout=60)
    try:
        cur = plain.cursor()
        cur.execute("CREATE TABLE scratch (n INTEGER)")   # logged: ROLLBACK undoes it
        plain.rollback()
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabname = 'scratch'")
        assert cur.fetchall() == [(0,)]
    finally:
        plain.close()


def test_sysmaster_through_informix_driver(server):
    informix_db = pytest.importorskip("informix_db")
    conn = informix_db.connect(host=server.host, port=server.port, user=server.user,
                               password=server.password, server=server.server,
                               database="sysmaster")
    try:
        cur = conn.cursor()
        cur.execute("SELECT name FROM sysdatabases ORDER BY name")
        assert [r[0].rstrip() for r in cur.fetchall()] == ["appdb", "sysmaster"]
    finally:
        conn.close()
