"""Adversary: the emulator's DDL exclusivity (table_use.py, ddl_runner.py).

Found here: a cursor opened on a VIEW held only the view's name, so an
ALTER/DROP of the view's base table by another session went through while
the cursor was open under DIRTY READ or REPEATABLE READ, where the real
server refuses it with -242/-106 (the view's rows are the base table's;
IBM finderr -106, technotes 1648816 and 1674115: DDL needs exclusive access
to a table whose rows another session's cursor reads).  Also held: a
session that dies mid-fetch lets its tables go; -242 is immediate without
SET LOCK MODE TO WAIT.
"""

from __future__ import annotations

import time

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect_kw
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with ifx.connect(**connect_kw(srv), autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE big (n INT, pad CHAR(200))")
            cur.executemany("INSERT INTO big VALUES (?, ?)", [(i, "x") for i in range(2000)])
            cur.execute("CREATE VIEW bigv AS SELECT n FROM big WHERE n >= 0")
            cur.execute("CREATE VIEW bigvv AS SELECT n FROM bigv")
        yield srv


def _reader(server, source: str, isolation: str):
    conn = ifx.connect(**connect_kw(server), autocommit=True, fetch_buffer_size=512)
    conn.cursor().execute(f"SET ISOLATION TO {isolation}")
    cur = conn.cursor()
    cur.execute(f"SELECT * FROM {source}")
    assert cur.fetchone() is not None
    return conn, cur


def _alter(server) -> None:
    with ifx.connect(**connect_kw(server), autocommit=True) as other:
        other.cursor().execute("ALTER TABLE big ADD (extra INT)")


@pytest.mark.parametrize("source", ["big", "bigv", "bigvv"])
@pytest.mark.parametrize("isolation", ["DIRTY READ", "REPEATABLE READ"])
def test_a_cursor_on_a_view_holds_its_base_table(server, source, isolation):
    conn, _cur = _reader(server, source, isolation)
    try:
        start = time.monotonic()
        with pytest.raises(ifx.Error) as info:
            _alter(server)
        assert info.value.sqlcode == -242 and time.monotonic() - start < 2
    finally:
        conn.close()
    _alter(server)                       # once it is gone, the DDL goes through


@pytest.mark.parametrize("source", ["big", "bigv"])
def test_a_session_dropped_mid_fetch_lets_its_tables_go(server, source):
    conn, _cur = _reader(server, source, "REPEATABLE READ")
    conn._io.close()                     # the socket dropped, no goodbye
    deadline = time.monotonic() + 5
    while True:
        try:
            _alter(server)
            break
        except ifx.Error as exc:
            assert exc.sqlcode == -242
            assert time.monotonic() < deadline, "the dead session still holds the table"
            time.sleep(0.05)
    with ifx.connect(**connect_kw(server), autocommit=True) as check:
        cur = check.cursor()
        cur.execute("SELECT extra FROM big WHERE n = 1")
        assert cur.fetchall() == [(None,)]
