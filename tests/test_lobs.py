"""Issue 12 item 2 (BYTE and TEXT): values read and written through the
blob messages, driver and emulator together.

Reading: rows carry 56-byte descriptors; the driver exchanges them for the
values with SQ_FETCHBLOB while the cursor is open.  Writing: SQ_BIND carries
a descriptor, SQ_BBIND the contents, streamed from files and iterators.
Hostile blob replies and a Ctrl-C in the middle of a blob exchange leave the
connection consistent or closed.
"""

from __future__ import annotations

import asyncio
import io
import sqlite3
import struct
import uuid

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, PASSWORD, SERVER, USER, connect
from faults.hostile import HostileServer, eot, is_fetch
from faults.proxy import CALL, S2C, Fault, FaultProxy, Interrupter, sweep
from informix_stream.codec import lob
from informix_stream.core import requests as rq
from informix_stream.messages import FetchBlob

pytestmark = pytest.mark.timeout(120)
SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)
MB = 1 << 20
VALUES = [b"", b"x", bytes(range(256)) * 3 + b"\x00\x00", b"\x00" * 1001, bytes(MB) + b"\xff"]


@pytest.fixture
def conn(server):
    c = connect(server, autocommit=True)
    yield c
    c.close()


def table(conn, columns: str = "id INTEGER, b BYTE, t TEXT") -> str:
    name = f"lob_{uuid.uuid4().hex[:8]}"
    conn.cursor().execute(f"CREATE TABLE {name} ({columns})")
    return name


def blob_count(server) -> int:
    path = server.engine.databases.get(DATABASE).path      # the emulator's storage
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM _ifx_blobs").fetchone()[0]


@pytest.mark.parametrize("value", VALUES, ids=["empty", "one", "binary", "nuls", "1MB"])
def test_byte_and_text_round_trip(conn, value):
    t = table(conn)
    text = value.decode("iso-8859-1")
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1, ?, ?)", (value, ifx.Text(text)))
    cur.execute(f"SELECT b, t FROM {t}")
    got = cur.fetchall()
    assert got == [(value, text)]
    assert type(got[0][0]) is bytes and type(got[0][1]) is str


def test_null_byte_and_text(conn):
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1, ?, ?)", (None, None))
    cur.execute(f"INSERT INTO {t} (id) VALUES (2)")
    cur.execute(f"SELECT id, b, t FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, None, None), (2, None, None)]
    cur.execute(f"SELECT id FROM {t} WHERE b IS NULL AND t IS NULL ORDER BY id")
    assert cur.fetchall() == [(1,), (2,)]


def test_every_kind_of_source(conn):
    t = table(conn)
    cur = conn.cursor()
    big = "é" * 40000                       # too long for CHAR: Text() binds it as TEXT
    sources = [
        (1, bytearray(b"ba"), "plain str"),
        (2, memoryview(b"0123456789")[2:7], ifx.Text(big)),
        (3, io.BytesIO(b"f" * (3 * MB + 1)), ifx.Text(io.StringIO("straße" * 1000))),
        (4, iter([b"ab", bytearray(b"cd"), memoryview(b"ef")]), ifx.Text(iter(["x", "y"]))),
        (5, (bytes([i % 251]) * 4099 for i in range(300)), ifx.Text(b"raw \xe9")),
    ]
    for row in sources:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", row)
    cur.execute(f"SELECT id, b, t FROM {t} ORDER BY id")
    got = cur.fetchall()
    assert got[0] == (1, b"ba", "plain str")
    assert got[1] == (2, b"23456", big)
    assert got[2] == (3, b"f" * (3 * MB + 1), "straße" * 1000)
    assert got[3] == (4, b"abcdef", "xy")
    assert got[4] == (5, b"".join(bytes([i % 251]) * 4099 for i in range(300)), "raw é")


def test_update_delete_and_drop_free_the_contents(server, conn):
    t = table(conn)
    before = blob_count(server)
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)",
                    [(i, b"v%d" % i, ifx.Text("t%d" % i)) for i in range(10)])
    assert blob_count(server) == before + 20
    cur.execute(f"UPDATE {t} SET b = ? WHERE id < 5", (b"new",))
    assert blob_count(server) == before + 20
    cur.execute(f"UPDATE {t} SET t = NULL WHERE id >= 8")
    assert blob_count(server) == before + 18
    cur.execute(f"DELETE FROM {t} WHERE id = 0")
    assert blob_count(server) == before + 16
    cur.execute(f"SELECT id, b, t FROM {t} ORDER BY id")
    rows = cur.fetchall()
    assert rows[0] == (1, b"new", "t1") and rows[-1] == (9, b"v9", None)
    cur.execute(f"DROP TABLE {t}")
    assert blob_count(server) == before


def test_copies_get_their_own_contents(server, conn):
    src, dst = table(conn), table(conn)
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {src} VALUES (1, ?, ?)", (b"shared?", ifx.Text("no")))
    cur.execute(f"INSERT INTO {dst} SELECT * FROM {src}")
    cur.execute(f"SELECT id, b, t FROM {src} INTO TEMP tmp_copy WITH NO LOG")
    cur.execute(f"DELETE FROM {src}")
    cur.execute(f"SELECT b, t FROM {dst}")
    assert cur.fetchall() == [(b"shared?", "no")]
    cur.execute("SELECT b, t FROM tmp_copy")
    assert cur.fetchall() == [(b"shared?", "no")]


def test_many_rows_through_a_small_buffer_with_read_ahead(conn):
    t = table(conn)
    cur = conn.cursor()
    rows = [(i, bytes([i % 256]) * (i * 37), ifx.Text("r%d" % i * (i % 7))) for i in range(400)]
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", rows)
    reader = conn.cursor(fetch_buffer_size=512, read_ahead=True)
    reader.execute(f"SELECT id, b, t FROM {t} ORDER BY id")
    got = []
    while batch := reader.fetchmany(7):
        got += batch
    assert got == [(i, b, x.value) for i, b, x in rows]
    # the connection is in step afterwards
    cur.execute(f"SELECT count(*) FROM {t}")
    assert cur.fetchone() == (400,)


def test_materializing_cursor_and_dict_rows(conn):
    t = table(conn)
    conn.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, ?)", (b"m", ifx.Text("n")))
    cur = conn.cursor(materialize=True, row_factory=ifx.dict_row)
    cur.execute(f"SELECT id, b, t FROM {t}")
    assert cur.fetchall() == [{"id": 1, "b": b"m", "t": "n"}]


def test_description_types(conn):
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"SELECT b, t FROM {t}")
    assert cur.description[0][1] == ifx.BINARY and cur.description[1][1] == ifx.STRING


def test_scroll_cursor_refuses_blob_columns_as_informix_does(conn):
    t = table(conn)
    cur = conn.cursor(scrollable=True)
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"SELECT b FROM {t}")
    assert info.value.sqcode == -611 if hasattr(info.value, "sqcode") else \
        info.value.sqlcode == -611
    conn.cursor().execute(f"SELECT id FROM {t}")       # usable afterwards


def test_byte_in_table_storage_clause(conn):
    t = table(conn, "id INTEGER, b BYTE IN TABLE, t TEXT IN TABLE")
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1, ?, ?)", (b"in", ifx.Text("table")))
    cur.execute(f"SELECT b, t FROM {t}")
    assert cur.fetchall() == [(b"in", "table")]


def test_a_failing_source_closes_the_connection_and_writes_nothing(server, conn):
    t = table(conn)
    victim = connect(server, autocommit=True)

    def chunks():
        yield b"a" * MB
        raise OSError("disk gone")

    with pytest.raises(ifx.OperationalError) as info:
        victim.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, NULL)", (chunks(),))
    assert "disk gone" in str(info.value)
    assert victim.closed
    with pytest.raises(SIGNALLED):
        victim.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")
    cur = conn.cursor()
    cur.execute(f"SELECT count(*) FROM {t}")
    assert cur.fetchone() == (0,)


def test_a_stream_cannot_be_sent_twice():
    """A statement prepared again after -710 re-sends its parameters: a
    file or iterator already read must not go out empty the second time."""
    block = lob.lob_block(io.BytesIO(b"once" * MB), "iso-8859-1")
    assert block.streamed
    first = rq.with_blobs(b"head", [block], b"tail")
    assert isinstance(first, rq.Streamed)
    with pytest.raises(ifx.InterfaceError):
        rq.with_blobs(b"head", [block], b"tail")
    small = lob.lob_block(b"in memory", "iso-8859-1")
    assert rq.with_blobs(b"h", [small], b"t") == rq.with_blobs(b"h", [small], b"t")


def test_wrong_parameter_types(conn):
    t = table(conn)
    with pytest.raises(ifx.ProgrammingError):
        conn.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, NULL)", (ifx.Text(42),))
    with pytest.raises(ifx.DatabaseError) as info:
        conn.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, NULL)", ("a str for BYTE",))
    assert info.value.sqlcode == -608
    conn.cursor().execute(f"SELECT id FROM {t}")


def test_async_round_trip_streams_both_ways(server):
    async def run():
        c = await ifx.connect_async(host=server.host, port=server.port, user=USER,
                                    password=PASSWORD, database=DATABASE, server=SERVER,
                                    autocommit=True, read_timeout=30)
        try:
            cur = c.cursor()
            name = f"lob_{uuid.uuid4().hex[:8]}"
            await cur.execute(f"CREATE TABLE {name} (id INTEGER, b BYTE, t TEXT)")
            value = bytes(range(256)) * (12 * 1024)            # 3 MiB: streamed
            await cur.execute(f"INSERT INTO {name} VALUES (1, ?, ?)",
                              (io.BytesIO(value), ifx.Text("async")))
            await cur.execute(f"SELECT b, t FROM {name}")
            return await cur.fetchall(), value
        finally:
            await c.close()
    got, value = asyncio.run(asyncio.wait_for(run(), 60))
    assert got == [(value, "async")]


# ---------------------------------------------------------------------------
# Hostile blob replies
# ---------------------------------------------------------------------------

def _hostile_conn(h):
    c = ifx.connect(host=h.host, port=h.port, user=USER, password=PASSWORD, database=DATABASE,
                    server=SERVER, autocommit=True, read_timeout=10, connect_timeout=10)
    cur = c.cursor()
    cur.execute("CREATE TABLE t (id INTEGER, b BYTE)")
    cur.execute("INSERT INTO t VALUES (1, ?)", (b"12345",))
    cur.execute("SELECT b FROM t")
    assert cur.fetchall() == [(b"12345",)]
    return c


def _chunk(data: bytes) -> bytes:
    return b"".join(lob.chunk_messages(data, 1024))


@pytest.mark.parametrize("reply", [
    _chunk(b"123456") + lob.BLOB_END + eot(),                  # longer than declared
    _chunk(b"123") + lob.BLOB_END + eot(),                     # shorter
    _chunk(b"12345") + eot(),                                  # no terminator
    _chunk(b"12345") + lob.BLOB_END + _chunk(b"6") + eot(),    # a chunk after the end
    struct.pack("!hh", 39, -4) + eot(),                        # negative length
], ids=["longer", "shorter", "unterminated", "after-end", "negative"])
def test_hostile_blob_reply_breaks_the_connection(reply):
    with HostileServer() as h:
        c = _hostile_conn(h)
        h.tamper = lambda messages, _r: ([reply] if any(isinstance(m, FetchBlob)
                                                        for m in messages) else None)
        with pytest.raises(ifx.OperationalError):
            cur = c.cursor()
            cur.execute("SELECT b FROM t")
            cur.fetchall()
        assert c.closed
        with pytest.raises(SIGNALLED):
            c.cursor().execute("SELECT b FROM t")


def test_a_blob_chunk_where_a_tuple_was_expected():
    with HostileServer() as h:
        c = _hostile_conn(h)
        h.tamper = lambda messages, _r: ([_chunk(b"12345") + lob.BLOB_END + eot()]
                                         if is_fetch(messages) else None)
        with pytest.raises(ifx.OperationalError):
            c.cursor().execute("SELECT id FROM t")
        assert c.closed


# ---------------------------------------------------------------------------
# Ctrl-C during the blob exchange
# ---------------------------------------------------------------------------

def test_interrupt_during_the_blob_exchange(server):
    """A KeyboardInterrupt at sampled offsets of the reply bytes (rows and
    blob chunks): afterwards the connection reads the right values or is
    closed; never another value's bytes."""
    setup = connect(server, autocommit=True)
    t = table(setup)
    values = [bytes([65 + i]) * (20_000 + i) for i in range(4)]
    setup.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?, NULL)",
                               list(enumerate(values)))
    expected = list(enumerate(values))

    def select(c):
        cur = c.cursor(fetch_buffer_size=256)
        cur.execute(f"SELECT id, b FROM {t} ORDER BY id")
        return cur.fetchall()

    outcomes = set()
    with FaultProxy((server.host, server.port)) as proxy, Interrupter() as intr:
        probe = connect(proxy, autocommit=True)
        before = proxy.counts()[1]
        assert select(probe) == expected
        length = proxy.counts()[1] - before
        probe.close()
        for offset in sweep(length, 16):
            c = connect(proxy, autocommit=True)
            intr.reset()
            proxy.arm(Fault(S2C, offset, CALL, callback=intr.fire, pause=0.003))
            try:
                got = select(c)
                intr.settle(proxy)
                assert got == expected
                outcomes.add("finished")
            except KeyboardInterrupt:
                proxy.disarm()
                if c.closed:
                    with pytest.raises(SIGNALLED):
                        select(c)
                    outcomes.add("closed")
                else:
                    assert select(c) == expected
                    outcomes.add("consistent")
            finally:
                c.close()
    setup.close()
    assert "closed" in outcomes or "consistent" in outcomes
