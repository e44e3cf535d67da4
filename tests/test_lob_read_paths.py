"""The fast paths of LOB reads (bench/lobs/read_rate.py) keep every byte:
a BYTE/TEXT spool that gathers chunks before writing its file, a BLOB/CLOB
value sized by ``ifx_lo_stat`` whose size may be wrong, and LOB replies
parsed straight from the socket buffer, split at any byte."""

from __future__ import annotations

import asyncio
import struct
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import informix_stream as ifx
from faults.emu import DATABASE, PASSWORD, SERVER, USER, connect
from informix_stream import lobstream, smartlobs
from informix_stream.codec.lob import LobRef, descriptor
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20
BIG = bytes(range(251)) * (12 * 1024 + 5)          # about 3 MiB, not a multiple of a read
TEXT = "grüße, ünïcode " * 40000


@pytest.fixture
def conn(server):
    with connect(server) as c:
        yield c


def table(conn, blob: bytes = BIG, clob: str = TEXT) -> str:
    name = f"lrp_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (id INTEGER, b BYTE, t TEXT, bl BLOB, cl CLOB)")
    cur.execute(f"INSERT INTO {name} VALUES (1, ?, ?, ?, ?)",
                (blob, ifx.Text(clob), blob, ifx.Text(clob)))
    cur.execute(f"UPDATE {name} SET bl = b, cl = t")
    return name


# -- the BYTE/TEXT spool --------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 7, 32000, lobstream.SPOOL_WRITE - 1,
                                 lobstream.SPOOL_WRITE, lobstream.SPOOL_WRITE + 3]),
                max_size=8), st.integers(0, 255))
def test_spool_keeps_every_byte_in_order(sizes, seed):
    pieces = [bytes((seed + i + k) % 256 for k in range(min(n, 64))) * (n // 64)
              + bytes((seed + i) % 256 for _ in range(n % 64)) for i, n in enumerate(sizes)]
    spool = lobstream.Spool(LobRef(descriptor(sum(map(len, pieces))), False))
    for piece in pieces:
        spool += memoryview(piece)          # the receive path hands views
    assert len(spool) == sum(map(len, pieces))
    with spool.finish() as f:
        assert f.read() == b"".join(pieces)


def test_spool_writes_whole_buffers():
    """Small chunks reach the file in SPOOL_WRITE pieces, not one write each."""
    spool = lobstream.Spool(LobRef(descriptor(0), False))
    writes = []
    real = spool.file

    class Counting:
        def write(self, data):
            writes.append(len(data))
            return real.write(data)

        def seek(self, *a):
            return real.seek(*a)
    spool.file = Counting()
    for _ in range(100):
        spool += b"x" * 32000
    spool.finish()
    per = lobstream.SPOOL_WRITE // 32000 * 32000         # whole chunks that fit
    assert writes == [per] * 3 + [3200000 - 3 * per]
    real.seek(0)
    assert real.read() == b"x" * 3200000
    real.close()


@pytest.mark.parametrize("column", ["b", "t"])
def test_streamed_byte_and_text_round_trip(conn, column):
    t = table(conn)
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT {column} FROM {t}")
    (reader,) = cur.fetchone()
    got = b"".join(reader)
    assert got == (BIG if column == "b" else TEXT.encode(reader.encoding))


# -- BLOB/CLOB values sized by ifx_lo_stat ----------------------------------------

def test_value_read_asks_the_size_first(conn):
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"SELECT bl, cl FROM {t}")
    assert cur.fetchone() == (BIG, TEXT)
    assert any(sig == smartlobs.STAT for _, sig in conn._session.fp_handles)


@pytest.mark.parametrize("hint", [None, 0, 1, len(BIG) - 1, len(BIG) + 1, 10 * len(BIG)])
def test_a_wrong_size_never_changes_the_value(conn, monkeypatch, hint):
    """The size only sizes the buffer: a stale or absent one still reads
    the whole value, no byte more or less."""
    monkeypatch.setattr(smartlobs, "stat_size", lambda values: hint)
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"SELECT bl, cl FROM {t}")
    assert cur.fetchone() == (BIG, TEXT)
    streams = conn.cursor(lob="stream")
    streams.execute(f"SELECT bl, cl FROM {t}")
    bl, cl = streams.fetchone()
    assert b"".join(bl) == BIG and b"".join(cl) == TEXT.encode(cl.encoding)


def test_value_reads_leave_no_descriptor_open():
    """ifx_lo_close of each value rides in front of the next request: after
    it, the session holds no open smart-LOB descriptor."""
    from informix_stream.emulator import slobs
    with EmulatorServer(databases=(DATABASE,)) as srv, connect(srv) as conn:
        t = table(conn)
        cur = conn.cursor()
        cur.execute(f"INSERT INTO {t} (id, bl, cl) SELECT id + 1, bl, cl FROM {t}")
        cur.execute(f"SELECT bl, cl FROM {t} ORDER BY id")
        assert cur.fetchall() == [(BIG, TEXT)] * 2
        (session,) = [s for s, _ in srv._served.values()]
        assert len(slobs._state(session).fds) == 1      # the last value's, still owed
        cur.execute(f"SELECT COUNT(*) FROM {t}")
        assert cur.fetchone() == (2,)
        assert slobs._state(session).fds == {}


@pytest.mark.parametrize("stat, expect", [
    (b"\x00" * 4 + struct.pack("!IIh", 1234, 0, 1), 1234),
    (b"\x00" * 4 + struct.pack("!IIh", 5, 1, 1), None),             # over 2 GiB
    (b"\x00" * 4 + struct.pack("!IIh", 1234, 0, 0), None),     # NULL
    (b"\x00" * 4 + struct.pack("!IIh", 1234, 0, -1), None),    # negative
    (b"\x00" * 6, None),                                       # too short
])
def test_stat_sizes(monkeypatch, stat, expect):
    def fake_call(session, signature, params):
        assert signature == smartlobs.STAT and params[0] == 7
        return [stat]
        yield  # noqa: unreachable
    monkeypatch.setattr(smartlobs, "call_gen", fake_call)
    gen = smartlobs.size_gen(None, 7)
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == expect


def test_async_values_and_streams(server):
    async def run():
        c = await ifx.connect_async(host=server.host, port=server.port, user=USER,
                                    password=PASSWORD, database=DATABASE, server=SERVER,
                                    autocommit=True, read_timeout=30)
        try:
            cur = c.cursor()
            name = f"lrp_{uuid.uuid4().hex[:8]}"
            await cur.execute(f"CREATE TABLE {name} (b BYTE, t TEXT, bl BLOB, cl CLOB)")
            await cur.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?)",
                              (BIG, ifx.Text(TEXT), BIG, ifx.Text(TEXT)))
            await cur.execute(f"UPDATE {name} SET bl = b, cl = t")
            await cur.execute(f"SELECT b, t, bl, cl FROM {name}")
            values = await cur.fetchone()
            scur = c.cursor(lob="stream")
            await scur.execute(f"SELECT b, t, bl, cl FROM {name}")
            streams = await scur.fetchone()
            streamed = [b"".join([chunk async for chunk in s]) for s in streams]
            await scur.close()
            return values, streamed
        finally:
            await c.close()
    values, streamed = asyncio.run(asyncio.wait_for(run(), 60))
    assert values == (BIG, TEXT, BIG, TEXT)
    encoded = TEXT.encode("iso-8859-1")
    assert streamed == [BIG, encoded, BIG, encoded]


# -- a server that answers reads with less than asked ---------------------------

@pytest.fixture
def capped_reads(monkeypatch):
    """The emulator answers every SQ_LODATA read with at most 100,001 bytes:
    nothing says a real server never does (only JDBC's reading up to the
    ifx_lo_stat size), so a short read must not end a value early."""
    from informix_stream.emulator import slobs
    real = slobs._read
    monkeypatch.setattr(slobs, "_read", lambda session, lo, n: real(session, lo, min(n, 100_001)))


def test_capped_reads_still_give_whole_values(conn, capped_reads):
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"SELECT bl, cl FROM {t}")
    assert cur.fetchone() == (BIG, TEXT)


def test_capped_reads_still_give_whole_streams(conn, capped_reads):
    t = table(conn)
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT bl, cl FROM {t}")
    bl, cl = cur.fetchone()
    assert b"".join(bl) == BIG
    buf = bytearray(MB)
    parts = []
    while n := cl.readinto(buf):
        parts.append(bytes(buf[:n]))
    assert b"".join(parts) == TEXT.encode(cl.encoding)


@pytest.mark.parametrize("got, asked, total, size, end", [
    (0, 10, 5, 100, True),          # nothing left, whatever the size said
    (0, 10, 0, None, True),
    (4, 10, 50, 100, False),        # short, but the size is not reached
    (4, 10, 100, 100, True),
    (4, 10, 120, 100, True),        # a stale size, smaller than the object
    (10, 10, 100, 100, False),      # a full read: the next one says
    (4, 10, 4, None, True),         # no size: a short read ends it
])
def test_at_end(got, asked, total, size, end):
    assert smartlobs.at_end(got, asked, total, size) is end


@pytest.mark.parametrize("read", [100_000, len(BIG), len(BIG) + 1, len(BIG) // 2])
def test_values_over_several_reads(conn, monkeypatch, read):
    """A value read in several full reads ends where it ends: exactly at a
    read's end (a read of nothing follows) or inside one."""
    monkeypatch.setattr(smartlobs, "VALUE_READ", read)
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"SELECT bl, cl FROM {t}")
    assert cur.fetchone() == (BIG, TEXT)
