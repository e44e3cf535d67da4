"""Issue 12 item 2 (BLOB, CLOB) and item 6 (fast_path_call): smart large
objects kept outside the row, read through ifx_lo_open / SQ_LODATA /
ifx_lo_close over the fast-path messages, driver and emulator together."""

from __future__ import annotations

import sqlite3
import uuid

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect
from informix_stream.codec import slob

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20
CREATE = "function informix.ifx_lo_create( ifx_lo_spec,integer,blob)"
OPEN = "function informix.ifx_lo_open(blob ,integer)"
CLOSE = "function informix.ifx_lo_close(integer)"


@pytest.fixture
def conn(server):
    with connect(server) as c:
        yield c


def table(conn) -> str:
    name = f"slob_{uuid.uuid4().hex[:8]}"
    conn.cursor().execute(f"CREATE TABLE {name} (id INTEGER, b BLOB, c CLOB)")
    return name


@pytest.mark.parametrize("value", [b"", b"x", bytes(range(256)) * 5, bytes(3 * MB) + b"\xff"])
def test_blob_and_clob_round_trip(conn, value):
    t = table(conn)
    text = "smart é " * min(len(value) // 8 + 1, 3000)   # a CHAR parameter: < 32 KB
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", (1, value, text))
    cur.execute(f"INSERT INTO {t} VALUES (2, NULL, NULL)")
    cur.execute(f"SELECT id, b, c FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, value, text), (2, None, None)]
    assert [d[1] for d in cur.description] == [2, 102, 101]


def test_literals_create_objects(conn):
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1, 'abc', 'défg')")
    cur.execute(f"SELECT b, c FROM {t}")
    assert cur.fetchall() == [(b"abc", "défg")]


def blob_sizes(server) -> list[int]:
    path = server.engine.databases.get(DATABASE).path      # the emulator's storage
    with sqlite3.connect(path) as raw:
        return [r[0] for r in raw.execute("SELECT length(data) FROM _ifx_blobs")]


def test_the_value_lives_outside_the_row_and_goes_with_it(server, conn):
    t = table(conn)
    before = blob_sizes(server)
    conn.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, NULL)", (b"q" * 5003,))
    conn.commit()
    assert sorted(blob_sizes(server)) == sorted(before + [5003])
    conn.cursor().execute(f"DELETE FROM {t}")
    conn.commit()
    assert sorted(blob_sizes(server)) == sorted(before)


def test_fast_path_create_write_and_bind_the_locator(conn):
    t = table(conn)
    loc, fd = conn.fast_path_call(CREATE, None, slob.LO_RDWR, None)
    assert isinstance(loc, slob.Locator) and len(loc) == 72 and isinstance(fd, int)
    assert conn.fast_path_call(CLOSE, fd) == [0]
    # a closed descriptor is the server's smart-LOB error; the connection goes on
    with pytest.raises(ifx.DatabaseError) as info:
        conn.fast_path_call(CLOSE, fd)
    assert info.value.sqlcode == -9810
    conn.cursor().execute(f"INSERT INTO {t} VALUES (1, 'still', 'usable')")


def test_an_unknown_routine_is_not_resolved(conn):
    with pytest.raises(ifx.DatabaseError) as info:
        conn.fast_path_call("function informix.no_such_routine(integer)", 1)
    assert info.value.sqlcode == -674
    conn.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")


def test_routine_handles_are_cached_per_connection(conn):
    loc, fd = conn.fast_path_call(CREATE, None, slob.LO_RDWR, None)
    conn.fast_path_call(CLOSE, fd)
    session = conn._session
    cached = dict(session.fp_handles)
    loc2, fd2 = conn.fast_path_call(CREATE, None, slob.LO_RDWR, None)
    assert session.fp_handles == cached and slob.object_id(loc2) != slob.object_id(loc)
    assert conn.fast_path_call(CLOSE, fd2) == [0]
