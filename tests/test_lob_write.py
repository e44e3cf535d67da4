"""Issue 12 item 2, writing: LOB parameters from generators and file-like
objects stream in ``execute`` and ``executemany`` (never read whole), in
SQ_BLOB chunks of ``lob.SEND_CHUNK`` bytes; a source failing in the middle of
an ``executemany`` closes the connection and the rows that landed are known.
"""

from __future__ import annotations

import io
import struct
import uuid

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect
from informix_stream import executemany as em
from informix_stream.codec import lob
from informix_stream.core import requests as rq
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20
SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)


@pytest.fixture
def conn(server):
    c = connect(server, autocommit=True)
    yield c
    c.close()


def table(conn, columns: str = "id INTEGER, b BYTE, t TEXT") -> str:
    name = f"lobw_{uuid.uuid4().hex[:8]}"
    conn.cursor().execute(f"CREATE TABLE {name} ({columns})")
    return name


def pieces(seed: int, count: int, size: int = 100_001):
    """A generator of ``count`` pieces whose bytes depend on ``seed`` and position."""
    for k in range(count):
        yield bytes([(seed + k) % 256]) * size


def value_of(seed: int, count: int, size: int = 100_001) -> bytes:
    return b"".join(pieces(seed, count, size))


# ---------------------------------------------------------------------------
# Chunking
# ---------------------------------------------------------------------------

def _chunk_lengths(stream: bytes) -> list[int]:
    out, at = [], 0
    while at < len(stream):
        tag, n = struct.unpack_from("!hh", stream, at)
        assert tag == lob.TAG_BLOB
        out.append(n)
        at += 4 + n + (n & 1)
    return out


@pytest.mark.parametrize("source", ["bytes", "iterator", "file"])
def test_blob_chunks_are_what_both_reference_clients_send(source):
    data = bytes(range(256)) * 1000 + b"odd"          # 256,003 bytes
    value = {"bytes": data, "iterator": iter([data[:70_000], data[70_000:]]),
             "file": io.BytesIO(data)}[source]
    block = lob.lob_block(value, "iso-8859-1")
    stream = b"".join(lob.lob_messages(block))
    lengths = _chunk_lengths(stream)
    assert lengths[-1] == 0                            # the terminator
    assert sum(lengths) == len(data)
    assert max(lengths) == lob.SEND_CHUNK == 1024      # JDBC's and informix-driver's size
    # every item handed to the send buffer is bounded, whatever the piece size
    assert max(map(len, lob.lob_messages(lob.lob_block(bytes(3 * MB), "ascii")))) < 200_000


def test_executemany_sends_a_streamed_row_alone_and_reads_nothing_ahead():
    pulled = []

    def source(tag):
        pulled.append(tag)
        yield b"x" * 10

    rows = [[b"\x00\x01"], [lob.lob_block(source("a"), "ascii")], [b"\x00\x02"],
            [lob.lob_block(source("b"), "ascii")]]
    chunks = list(em.chunk(iter(rows), em.BindExecute(7), chunk_size=100,
                           chunk_bytes=1 << 22))
    assert [(first, len(reqs)) for first, reqs in chunks] == [(0, 1), (1, 1), (2, 1), (3, 1)]
    assert isinstance(chunks[1][1][0], rq.Streamed) and isinstance(chunks[3][1][0], rq.Streamed)
    assert pulled == []                  # a generator is read only as the socket takes it


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------

def test_executemany_streams_generators_and_files(conn):
    t = table(conn)
    rows = [(1, pieces(1, 30), ifx.Text(io.StringIO("é" * 50_000))),
            (2, b"small", ifx.Text("small text")),
            (3, io.BytesIO(value_of(9, 12)), ifx.Text(iter(["a" * 70_000, "b"]))),
            (4, None, None)]
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", rows)
    assert cur.rowcount == 4
    cur.execute(f"SELECT id, b, t FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, value_of(1, 30), "é" * 50_000), (2, b"small", "small text"),
                              (3, value_of(9, 12), "a" * 70_000 + "b"), (4, None, None)]


def test_executemany_generator_into_blob_and_clob_columns(conn):
    t = table(conn, "id INTEGER, b BLOB, c CLOB")
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)",
                    [(1, pieces(3, 25), ifx.Text(iter(["x" * 40_000] * 3))),
                     (2, b"b2", ifx.Text("c2"))])
    cur.execute(f"SELECT id, b, c FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, value_of(3, 25), "x" * 120_000), (2, b"b2", "c2")]


# ---------------------------------------------------------------------------
# Interrupted writes
# ---------------------------------------------------------------------------

def _failing(after: int):
    yield from pieces(5, after)
    raise OSError("source gone")


@pytest.mark.parametrize("autocommit", [True, False])
def test_a_source_failing_mid_executemany(server, conn, autocommit):
    """Rows before the failing one landed in autocommit mode (each chunk is
    its own transaction) and none in a transaction the broken connection
    could not commit; the connection is closed and says why."""
    t = table(conn)
    victim = connect(server, autocommit=autocommit)
    rows = [(1, b"one", None), (2, pieces(2, 20), None), (3, _failing(15), None),
            (4, b"four", None)]
    with pytest.raises(ifx.OperationalError) as info:
        victim.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", rows)
    assert "source gone" in str(info.value)
    assert victim.closed
    with pytest.raises(SIGNALLED):
        victim.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")
    cur = conn.cursor()
    cur.execute(f"SELECT id, b FROM {t} ORDER BY id")
    expected = [(1, b"one"), (2, value_of(2, 20))] if autocommit else []
    assert cur.fetchall() == expected


def test_a_stream_is_not_replayed_after_a_failing_row(conn):
    """A chunk with a failing row is repaired by replaying the rows before
    it; a streamed row goes alone, so it never needs a replay."""
    t = table(conn, "id INTEGER PRIMARY KEY, b BYTE")
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (3, NULL)")
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                        [(1, b"one"), (2, pieces(7, 4)), (3, b"dup"), (4, b"four")])
    assert info.value.row_index == 2
    cur.execute(f"SELECT id, b FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, b"one"), (2, value_of(7, 4)), (3, None)]


# ---------------------------------------------------------------------------
# A large str for a CLOB/TEXT column: ifx.Text() takes it through SQ_BBIND
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("column", ["CLOB", "TEXT"])
def test_a_large_str_into_a_clob_or_text_column(conn, column):
    t = table(conn, f"id INTEGER, c {column}")
    big = "".join(chr(32 + k % 90) for k in range(100_000))
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, ifx.Text(big)))
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                    [(2, ifx.Text(big[::-1])), (3, "short")])
    cur.execute(f"SELECT id, c FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, big), (2, big[::-1]), (3, "short")]


def test_a_str_too_long_for_char_says_to_use_text(conn):
    """Without the column's type the driver cannot tell a CLOB from a
    VARCHAR, and binding it as TEXT could be silently truncated into a
    VARCHAR: refused before anything is sent, naming the way out."""
    t = table(conn, "id INTEGER, c CLOB")
    with pytest.raises(ifx.DataError, match=r"parameter 2.*Text\(\)"):
        conn.cursor().execute(f"INSERT INTO {t} VALUES (?, ?)", (1, "x" * 40_000))


# ---------------------------------------------------------------------------
# Reading into the caller's buffer (no chunk of ours in between)
# ---------------------------------------------------------------------------

def test_readinto_a_blob_stream(conn):
    t = table(conn, "id INTEGER, b BLOB")
    value = value_of(11, 25)                               # 2.5 MB: several reads
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (value,))
    scur = conn.cursor(lob="stream")
    scur.execute(f"SELECT b FROM {t}")
    (reader,) = scur.fetchone()
    head = reader.read(10)                                 # a refill, partly handed out
    buf = bytearray(300_000)
    got = [head]
    while n := reader.readinto(buf):
        got.append(bytes(buf[:n]))
    assert b"".join(got) == value
    assert reader.readinto(buf) == 0
    scur.close()
    with pytest.raises(ifx.InterfaceError):
        reader.readinto(buf)
    conn.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")   # still usable


def test_a_request_over_the_emulator_limit_is_refused_not_truncated(monkeypatch):
    """The emulator holds a request whole before it parses it (MAX_PENDING,
    256 MiB: a 200 MB value fits); one over the limit ends the connection
    with an error that says so, and nothing of it is stored."""
    from informix_stream.emulator import server as emu_server
    monkeypatch.setattr(emu_server, "MAX_PENDING", 4 * MB)
    with EmulatorServer(databases=(DATABASE,)) as srv:
        c = connect(srv, autocommit=True)
        t = table(c)
        victim = connect(srv, autocommit=True)
        with pytest.raises(ifx.OperationalError) as info:
            victim.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, NULL)", (pieces(1, 100),))
        assert victim.closed
        cur = c.cursor()
        cur.execute(f"SELECT count(*) FROM {t}")
        assert cur.fetchone() == (0,)
        c.close()
