"""Adversary: the emulator's smart-LOB read path (slobs.py's kept blob
handle per LO fd, lob_serve's pieces) with a second session writing the
same BLOB.  A reader streaming an object gets either exactly the bytes it
opened or an error, never a mix of the old and the new object; a
rolled-back write leaves no byte; an LO read spans its transaction's
COMMIT; nothing of an uncommitted write is kept.  All held when probed."""

from __future__ import annotations

import sqlite3

import pytest

import informix_stream as ifx
from faults.emu import PASSWORD, USER
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20
OLD, NEW = b"\x01" * (3 * MB), b"\x02" * (3 * MB)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with EmulatorServer(databases=("db",), data_dir=tmp_path_factory.mktemp("lobs")) as srv:
        yield srv


def _connect(server, **kw) -> ifx.Connection:
    return ifx.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                       database="db", read_timeout=30, connect_timeout=10, **kw)


@pytest.fixture
def two(server):
    with _connect(server, autocommit=True) as a, _connect(server, autocommit=True) as b:
        a.cursor().execute("DROP TABLE IF EXISTS t")
        a.cursor().execute("CREATE TABLE t (k INT, b BLOB)")
        a.cursor().execute("INSERT INTO t VALUES (1, ?)", (OLD,))
        yield a, b


def _open_stream(conn):
    cur = conn.cursor(lob="stream")
    cur.execute("SELECT k, b FROM t WHERE k = 1")
    _, stream = cur.fetchone()
    return cur, stream


def _objects(server) -> list[tuple[int, int]]:
    path = server.engine.databases.get("db").path      # the emulator's storage
    with sqlite3.connect(path) as raw:
        return list(raw.execute("SELECT id, length(data) FROM _ifx_blobs"))


@pytest.mark.parametrize("other", ["UPDATE t SET b = ? WHERE k = 1", "DELETE FROM t",
                                   "DELETE+INSERT"])
def test_a_stream_never_mixes_two_objects(two, other):
    a, b = two
    _, stream = _open_stream(a)
    first = stream.read(MB)
    cur = b.cursor()
    if other == "DELETE+INSERT":
        cur.execute("DELETE FROM t")
        cur.execute("INSERT INTO t VALUES (1, ?)", (NEW,))
    else:
        cur.execute(other, (NEW,) if "?" in other else None)
    try:
        got = first + stream.read()
    except ifx.DatabaseError as exc:     # the object it opened is gone: -9810
        assert exc.sqlcode == -9810
    else:
        assert got == OLD


def test_anothers_uncommitted_update_is_not_read_and_leaves_nothing(server, two):
    a, b = two
    _, stream = _open_stream(a)
    first = stream.read(MB)
    b.autocommit = False
    b.cursor().execute("UPDATE t SET b = ? WHERE k = 1", (NEW,))
    assert first + stream.read() == OLD
    b.rollback()
    cur = a.cursor()
    cur.execute("SELECT b FROM t")
    assert cur.fetchall() == [(OLD,)]
    assert [size for _, size in _objects(server)] == [len(OLD)]


def test_a_read_spans_its_transactions_commit(two):
    a, _ = two
    a.autocommit = False
    _, stream = _open_stream(a)
    first = stream.read(MB)
    a.commit()
    assert first + stream.read() == OLD


def test_a_rolled_back_insert_keeps_no_object(server, two):
    a, _ = two
    before = _objects(server)
    a.autocommit = False
    a.cursor().execute("INSERT INTO t VALUES (9, ?)", (NEW,))
    a.rollback()
    assert _objects(server) == before
