"""Hold cursors: ``cursor(hold=True)`` survives COMMIT and ROLLBACK WORK; any
other cursor is closed by the server when its transaction ends, and its next
fetch that needs the server raises the server's -400 ("Fetch attempted on
unopen cursor"), never a silent end of rows.

Real-server behaviour (HCL/IBM Informix SQL Syntax): COMMIT WORK "closes all
open cursors except those that were declared using the WITH HOLD keywords";
a hold cursor "should remain open when a transaction closes (by being
committed or by being rolled back)".  -400 is what a real 12.10 server
answers a fetch on a cursor that is not open (nukedzn/node-informix,
test/lib.cursor.test.js).
"""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from informix_stream.core import requests as rq
from informix_stream.core.session import EOT
from informix_stream.messages import CurName, NFetch, StmtId, Tag, parse_request
from test_driver import connect, unique

UNOPEN_CURSOR = -400
ROWS = 3000


def test_open_sends_hold_in_jdbcs_order():
    """CURNAME, [BIND], [SCROLL], HOLD, OPEN: IBM JDBC IfxSqli.sendQuery
    (SQ_AUTOFREE, SQ_SCROLL, then SQ_HOLD just before SQ_OPEN)."""
    body = rq.open_cursor(3, b"c1", [], scroll=True, hold=True, first_fetch=None)
    msgs, _ = parse_request(body + EOT, 0, None)
    assert msgs == [StmtId(3), CurName(b"c1"), Tag.SCROLL, Tag.HOLD, Tag.OPEN]
    body = rq.open_cursor(3, b"c1", [], scroll=False, hold=True, first_fetch=4096)
    msgs, _ = parse_request(body + EOT, 0, None)
    assert msgs[:4] == [StmtId(3), CurName(b"c1"), Tag.HOLD, Tag.OPEN]
    assert isinstance(msgs[-1], NFetch)
    body = rq.open_cursor(3, b"c1", [], scroll=False, hold=False, first_fetch=None)
    assert Tag.HOLD not in parse_request(body + EOT, 0, None)[0]


def _table(conn, rows: int = ROWS) -> str:
    """A committed table of ``rows`` ids 1..rows and an empty log table."""
    t = unique("hold")
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER NOT NULL, label VARCHAR(20))")
    cur.execute(f"CREATE TABLE {t}_log (id INTEGER NOT NULL)")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, f"r{i}") for i in range(1, rows + 1)])
    conn.commit()
    return t


def _count(conn, sql: str) -> int:
    cur = conn.cursor(materialize=True)
    cur.execute(sql)
    return cur.fetchone()[0]


@pytest.fixture
def conn(ifx_target):
    c = connect(ifx_target)
    yield c
    c.close()


@pytest.mark.parametrize("read_ahead", [True, False])
def test_long_read_on_hold_cursor_commits_every_n_rows(conn, read_ahead):
    """The issue's ETL case: every row exactly once, every write committed."""
    t = _table(conn)
    reader = conn.cursor(hold=True, fetch_buffer_size=512, read_ahead=read_ahead)
    writer = conn.cursor()
    reader.execute(f"SELECT id, label FROM {t} ORDER BY id")
    seen = []
    for row_id, label in reader:
        assert label == f"r{row_id}"
        seen.append(row_id)
        if row_id % 250 == 0:
            writer.execute(f"INSERT INTO {t}_log VALUES (?)", (row_id,))
            conn.commit()
    assert seen == list(range(1, ROWS + 1))
    assert reader.rowcount == ROWS
    assert _count(conn, f"SELECT COUNT(*) FROM {t}_log") == ROWS // 250
    conn.commit()


def test_commits_are_visible_to_another_session_while_the_hold_cursor_reads(conn, ifx_target):
    t = _table(conn)
    other = connect(ifx_target)
    reader = conn.cursor(hold=True, fetch_buffer_size=256)
    reader.execute(f"SELECT id FROM {t} ORDER BY id")
    first = reader.fetchmany(100)
    conn.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    conn.commit()
    # The other session writes too: the held read must not stop our next write.
    other.cursor().execute(f"INSERT INTO {t}_log VALUES (2)")
    other.commit()
    conn.cursor().execute(f"INSERT INTO {t}_log VALUES (3)")
    conn.commit()
    assert _count(other, f"SELECT COUNT(*) FROM {t}_log") == 3
    rest = reader.fetchall()
    assert [r[0] for r in first + rest] == list(range(1, ROWS + 1))
    other.close()


def test_non_hold_cursor_is_closed_by_commit(conn):
    t = _table(conn)
    cur = conn.cursor(fetch_buffer_size=256)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    got = [r[0] for r in cur.fetchmany(10)]
    conn.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    conn.commit()
    with pytest.raises(ifx.DatabaseError) as info:
        while True:                      # rows already on their way may still come
            batch = cur.fetchmany(100)
            assert batch, "the result must not look finished"
            got += [r[0] for r in batch]
    assert info.value.sqlcode == UNOPEN_CURSOR
    assert got == list(range(1, len(got) + 1))       # what came is right
    with pytest.raises(ifx.InterfaceError, match="ended early"):
        cur.fetchone()                   # and the cut stays visible
    # The connection is fine, and so is the cursor for a new statement.
    cur.execute(f"SELECT COUNT(*) FROM {t}_log")
    assert cur.fetchone() == (1,)
    conn.commit()


def test_non_hold_cursor_is_closed_by_rollback(conn):
    t = _table(conn)
    cur = conn.cursor(fetch_buffer_size=256, read_ahead=False)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    cur.fetchmany(10)
    conn.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    conn.rollback()
    with pytest.raises(ifx.DatabaseError) as info:
        cur.fetchall()
    assert info.value.sqlcode == UNOPEN_CURSOR
    assert _count(conn, f"SELECT COUNT(*) FROM {t}_log") == 0
    conn.commit()


def test_commit_by_statement_closes_like_commit_by_message(conn):
    t = _table(conn)
    cur = conn.cursor(fetch_buffer_size=256, read_ahead=False)
    held = conn.cursor(hold=True, fetch_buffer_size=256, read_ahead=False)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    held.execute(f"SELECT id FROM {t} ORDER BY id")
    cur.fetchmany(10)
    held.fetchmany(10)
    conn.cursor().execute("COMMIT WORK")
    assert not conn.in_transaction
    with pytest.raises(ifx.DatabaseError) as info:
        cur.fetchall()
    assert info.value.sqlcode == UNOPEN_CURSOR
    assert [r[0] for r in held.fetchall()] == list(range(11, ROWS + 1))


def test_hold_cursor_survives_rollback(conn):
    t = _table(conn)
    held = conn.cursor(hold=True, fetch_buffer_size=256)
    held.execute(f"SELECT id FROM {t} ORDER BY id")
    first = held.fetchmany(10)
    conn.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    conn.rollback()
    rest = held.fetchall()
    assert [r[0] for r in first + rest] == list(range(1, ROWS + 1))


def test_hold_cursor_opened_after_the_transaction_wrote_sees_its_rows(conn, ifx_target):
    """Read on the transaction's own connection (its uncommitted rows count),
    and still no pinned snapshot once COMMIT ends the transaction."""
    t = _table(conn, rows=500)
    w = conn.cursor()
    w.execute(f"INSERT INTO {t} VALUES (501, 'r501')")
    held = conn.cursor(hold=True, fetch_buffer_size=128)
    held.execute(f"SELECT id, label FROM {t} ORDER BY id")
    first = held.fetchmany(5)
    conn.commit()
    other = connect(ifx_target)
    other.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    other.commit()
    w.execute(f"INSERT INTO {t}_log VALUES (2)")     # would fail on a pinned snapshot
    conn.commit()
    rows = first + held.fetchall()
    assert [r[0] for r in rows] == list(range(1, 502))
    assert rows[-1] == (501, "r501")
    other.close()


def test_closing_a_cursor_the_commit_closed_keeps_the_connection_usable(conn):
    t = _table(conn)
    for _ in range(3):                    # the kept statement is reopened each time
        cur = conn.cursor(fetch_buffer_size=256)
        cur.execute(f"SELECT id FROM {t} ORDER BY id")
        cur.fetchmany(5)
        conn.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
        conn.commit()
        cur.close()                       # no CLOSE for a cursor the server closed
    cur = conn.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {t}_log")
    assert cur.fetchone() == (3,)


def test_autocommit_statements_do_not_close_cursors(ifx_target):
    """Without a transaction there is nothing to end: a streaming cursor and
    single-statement writes coexist."""
    c = connect(ifx_target, autocommit=True)
    t = _table(c)
    cur = c.cursor(fetch_buffer_size=256)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    first = cur.fetchmany(10)
    c.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    assert [r[0] for r in first + cur.fetchall()] == list(range(1, ROWS + 1))
    c.close()


def test_materializing_cursor_is_not_affected_by_commit(conn):
    """All rows are read at execute, so a commit cuts nothing (hold or not)."""
    t = _table(conn, rows=200)
    for hold in (False, True):
        cur = conn.cursor(materialize=True, hold=hold)
        cur.execute(f"SELECT id FROM {t} ORDER BY id")
        conn.commit()
        assert [r[0] for r in cur.fetchall()] == list(range(1, 201))


def test_scrollable_hold_cursor_scrolls_after_commit(conn):
    t = _table(conn, rows=200)
    cur = conn.cursor(scrollable=True, hold=True)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    assert cur.fetch_absolute(50) == (50,)
    conn.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    conn.commit()
    assert cur.fetch_last() == (200,)
    assert cur.fetch_absolute(7) == (7,)
    cur.close()


def test_scrollable_cursor_without_hold_is_closed_by_commit(conn):
    t = _table(conn, rows=200)
    cur = conn.cursor(scrollable=True)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    assert cur.fetch_absolute(50) == (50,)
    conn.commit()
    with pytest.raises(ifx.DatabaseError) as info:
        cur.fetch_absolute(51)
    assert info.value.sqlcode == UNOPEN_CURSOR
    cur.close()
    assert _count(conn, f"SELECT COUNT(*) FROM {t}") == 200


def test_asyncio_hold_cursor_across_commits(ifx_target):
    async def run() -> None:
        conn = await ifx.connect_async(host=ifx_target.host, port=ifx_target.port,
                                       user=ifx_target.user, password=ifx_target.password,
                                       database=ifx_target.database,
                                       server=ifx_target.server, read_timeout=60)
        try:
            t = unique("ahold")
            ddl = conn.cursor()
            await ddl.execute(f"CREATE TABLE {t} (id INTEGER NOT NULL)")
            await ddl.execute(f"CREATE TABLE {t}_log (id INTEGER NOT NULL)")
            await ddl.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(1, 2001)])
            await conn.commit()
            held = conn.cursor(hold=True, fetch_buffer_size=256)
            plain = conn.cursor(fetch_buffer_size=256, read_ahead=False)
            writer = conn.cursor()
            await held.execute(f"SELECT id FROM {t} ORDER BY id")
            await plain.execute(f"SELECT id FROM {t} ORDER BY id")
            await plain.fetchmany(5)
            seen = []
            async for (row_id,) in held:
                seen.append(row_id)
                if row_id % 500 == 0:
                    await writer.execute(f"INSERT INTO {t}_log VALUES (?)", (row_id,))
                    await conn.commit()
            assert seen == list(range(1, 2001))
            with pytest.raises(ifx.DatabaseError) as info:
                await plain.fetchall()
            assert info.value.sqlcode == UNOPEN_CURSOR
            await writer.execute(f"SELECT COUNT(*) FROM {t}_log")
            assert await writer.fetchone() == (4,)
        finally:
            await conn.close()

    asyncio.run(asyncio.wait_for(run(), timeout=120))


@pytest.mark.parametrize("hold", [False, True])
def test_autocommit_cursors_survive_executemanys_chunk_transactions(ifx_target, hold):
    """executemany in autocommit mode runs each chunk as BEGIN ... COMMIT
    (see informix_stream.executemany); that COMMIT would close an open cursor
    not declared WITH HOLD, so in autocommit mode every cursor is opened
    WITH HOLD."""
    c = connect(ifx_target, autocommit=True)
    t = _table(c)
    cur = c.cursor(fetch_buffer_size=256, read_ahead=False, hold=hold)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    first = cur.fetchmany(10)
    c.cursor().executemany(f"INSERT INTO {t}_log VALUES (?)", [(1,), (2,), (3,)])
    assert [r[0] for r in first + cur.fetchall()] == list(range(1, ROWS + 1))
    assert _count(c, f"SELECT COUNT(*) FROM {t}_log") == 3
    c.close()


def test_cursor_opened_in_autocommit_is_held_after_switching_it_off(ifx_target):
    """The hold is decided at OPEN: a cursor opened in autocommit mode keeps
    streaming through the transactions that follow."""
    c = connect(ifx_target, autocommit=True)
    t = _table(c)
    cur = c.cursor(fetch_buffer_size=256, read_ahead=False)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    first = cur.fetchmany(10)
    c.autocommit = False
    c.cursor().execute(f"INSERT INTO {t}_log VALUES (1)")
    c.commit()
    assert [r[0] for r in first + cur.fetchall()] == list(range(1, ROWS + 1))
    c.close()
