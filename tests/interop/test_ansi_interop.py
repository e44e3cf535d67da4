"""ANSI-compliant databases seen by IBM's JDBC driver and by informix-driver.

Both open a database made ``WITH LOG MODE ANSI`` on the emulator: JDBC reads
the DATABASE reply's ANSI bit (IfxSqliConnect.OpenDbInit) and then commits
after each statement in autocommit mode itself; its commit and rollback
scenario must give the answers a logged database gives.  A too-long text is
-1279 there (HCL Informix 14.10 ESQL/C Guide, "Insert VARCHAR data").
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer


informix_db = pytest.importorskip("informix_db", reason="informix-driver is not installed")


@pytest.fixture(scope="module")
def ansi_target() -> Iterator[SimpleNamespace]:
    with EmulatorServer(databases=("testdb",)) as srv:
        with informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                     database="testdb", autocommit=True) as conn:
            conn.cursor().execute("CREATE DATABASE adb WITH LOG MODE ANSI")
        yield SimpleNamespace(host=srv.host, port=srv.port, user="informix",
                              password="in4mix", database="adb", server="informix")


@pytest.mark.interop
def test_jdbc_commits_and_rolls_back_in_an_ansi_database(jdbc, ansi_target) -> None:
    assert jdbc.run(ansi_target, "transactions").check().facts() == {
        "autocommit": "false",
        "inside_tx_id1": "1",
        "after_rollback_id1": "0",
        "after_commit_id2": "1",
        "other_session_id1": "0",
        "other_session_id2": "1",
        "other_session_id3": "1",
    }


def _informix_db(target, **kw):
    return informix_db.connect(host=target.host, port=target.port, user=target.user,
                               password=target.password, database=target.database,
                               server=target.server, read_timeout=60, connect_timeout=30, **kw)


@pytest.mark.interop
def test_informix_driver_sees_ansi_commit_semantics_and_1279(ansi_target) -> None:
    conn = _informix_db(ansi_target, autocommit=False)
    other = _informix_db(ansi_target, autocommit=False)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE it (id INT, v VARCHAR(3))")
        conn.commit()
        cur.execute("INSERT INTO it VALUES (1, 'abc')")
        conn.rollback()
        cur.execute("INSERT INTO it VALUES (2, 'abc')")
        conn.commit()
        o = other.cursor()
        o.execute("SELECT id FROM it ORDER BY id")
        assert o.fetchall() == [(2,)]
        other.commit()
        with pytest.raises(informix_db.DatabaseError) as info:
            cur.execute("INSERT INTO it VALUES (?, ?)", (3, "abcd"))
        assert "1279" in str(info.value)
        conn.rollback()
        cur.execute("SELECT COUNT(*) FROM it")
        assert cur.fetchall() == [(1,)]
    finally:
        conn.close()
        other.close()
