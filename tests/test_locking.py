"""Lock conflicts answered as Informix answers them (issue 11 item 1).

A writer that meets another session's open transaction waits as its
``SET LOCK MODE`` says and then gets the server's error: -271 "Could not
insert new row into the table" (-346 for UPDATE, -240 for DELETE) with ISAM
-107 "record is locked" (IBM Informix Error Messages); never SQLite's
"database is locked", never an unbounded wait.  Readers are not blocked by a
writer (the emulator's committed-read snapshots), and a session that dies
in the middle of a transaction is rolled back at once, so it blocks nobody.
"""

from __future__ import annotations

import time

import pytest

import informix_stream as ifx
from test_driver import connect, unique


@pytest.fixture
def table(ifx_target):
    t = unique("locks")
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"CREATE TABLE {t} (id INTEGER, v INTEGER)")
        c.cursor().execute(f"INSERT INTO {t} VALUES (1, 10)")
    yield t
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"DROP TABLE {t}")


@pytest.fixture
def holder(ifx_target, table):
    """A session with an open transaction that wrote to ``table``."""
    c = connect(ifx_target)
    c.cursor().execute(f"INSERT INTO {table} VALUES (2, 20)")
    yield c
    c.close()


@pytest.mark.parametrize("sql, code", [("INSERT INTO {t} VALUES (3, 30)", -271),
                                       ("UPDATE {t} SET v = 11 WHERE id = 1", -346),
                                       ("DELETE FROM {t} WHERE id = 1", -240)])
def test_a_writer_meeting_an_open_transaction_gets_the_lock_error(ifx_target, table, holder,
                                                                 sql, code):
    other = connect(ifx_target, autocommit=True)
    cur = other.cursor()
    cur.execute("SET LOCK MODE TO NOT WAIT")
    with pytest.raises(ifx.OperationalError) as info:
        cur.execute(sql.format(t=table))
    assert (info.value.sqlcode, info.value.isam_code) == (code, -107)
    assert "database is locked" not in str(info.value)
    cur.execute(f"SELECT id, v FROM {table} ORDER BY id")       # readers are not blocked
    assert cur.fetchall() == [(1, 10)]
    holder.commit()
    cur.execute(sql.format(t=table))                             # the lock is gone
    assert cur.rowcount == 1
    other.close()


def test_lock_mode_wait_waits_then_fails(ifx_target, table, holder):
    other = connect(ifx_target, autocommit=True)
    cur = other.cursor()
    cur.execute("SET LOCK MODE TO WAIT 1")
    started = time.monotonic()
    with pytest.raises(ifx.OperationalError) as info:
        cur.execute(f"INSERT INTO {table} VALUES (3, 30)")
    assert info.value.sqlcode == -271
    assert time.monotonic() - started >= 0.9                    # it did wait
    holder.rollback()
    other.close()


def test_a_session_that_dies_mid_transaction_is_rolled_back_at_once(ifx_target, table, holder):
    holder._io.sock.close()                  # the client vanishes without a goodbye
    other = connect(ifx_target, autocommit=True)
    cur = other.cursor()
    cur.execute("SET LOCK MODE TO WAIT 10")
    cur.execute(f"INSERT INTO {table} VALUES (3, 30)")          # not blocked for long
    cur.execute(f"SELECT id FROM {table} ORDER BY id")
    assert cur.fetchall() == [(1,), (3,)]                       # its row was never committed
    other.close()
