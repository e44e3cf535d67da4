"""Issue 12 item 2: ``cursor(lob="stream")`` hands out BYTE/TEXT/BLOB/CLOB
cells as file-like readers that fetch in chunks; a reader whose result is
gone raises InterfaceError, never another value's bytes."""

from __future__ import annotations

import asyncio
import io
import uuid

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, PASSWORD, SERVER, USER, connect
from informix_stream import lobstream

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20
CLOSE = "function informix.ifx_lo_close(integer)"
BIG = bytes(range(256)) * (10 * 1024 + 7)          # 2.5 MiB: several chunks
TEXT = "héllo wörld " * 1000


@pytest.fixture
def conn(server):
    with connect(server) as c:
        yield c


def table(conn) -> str:
    name = f"ls_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (id INTEGER, b BYTE, t TEXT, bl BLOB, cl CLOB)")
    cur.execute(f"INSERT INTO {name} VALUES (1, ?, ?, ?, ?)",
                (BIG, ifx.Text(TEXT), BIG[::-1], TEXT.upper()))
    cur.execute(f"INSERT INTO {name} VALUES (2, NULL, NULL, NULL, NULL)")
    return name


def test_default_mode_gives_values(conn):
    t = table(conn)
    cur = conn.cursor()
    cur.execute(f"SELECT b, t, bl, cl FROM {t} WHERE id = 1")
    assert cur.fetchone() == (BIG, TEXT, BIG[::-1], TEXT.upper())


def test_unknown_mode_is_refused(conn):
    with pytest.raises(ifx.ProgrammingError, match="lob must be"):
        conn.cursor(lob="file")


def test_every_kind_streams_its_value(conn):
    t = table(conn)
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT id, b, t, bl, cl FROM {t} ORDER BY id")
    (_, b, text, bl, cl), null_row = cur.fetchall()
    assert null_row == (2, None, None, None, None)
    assert all(isinstance(r, io.RawIOBase) and r.readable() for r in (b, text, bl, cl))
    assert (b.size, text.size, bl.size) == (len(BIG), len(TEXT.encode("latin-1")), None)
    # read(n) gives at most n bytes, then the rest; b"" at the end
    assert b.read(10) == BIG[:10]
    assert b.read() == BIG[10:]
    assert b.read(5) == b""
    # iteration: chunks of at most one CHUNK, adding up to the value
    chunks = list(bl)
    assert len(chunks) == 3 and max(map(len, chunks)) <= lobstream.CHUNK
    assert b"".join(chunks) == BIG[::-1]
    # readinto and text through TextIOWrapper
    buf = bytearray(7)
    assert cl.readinto(buf) == 7 and bytes(buf) == TEXT.upper()[:7].encode("latin-1")
    assert cl.read().decode(cl.encoding) == TEXT.upper()[7:]
    assert (text.text, b.text) == (True, False)
    assert io.TextIOWrapper(io.BufferedReader(text), text.encoding).read() == TEXT


def test_readers_interleave_with_other_statements(conn):
    """A BLOB reader half read, other statements and another reader run on
    the connection: each still reads its own bytes."""
    t = table(conn)
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT bl, cl, b FROM {t} WHERE id = 1")
    bl, cl, b = cur.fetchone()
    first = bl.read(lobstream.CHUNK + 3)
    other = conn.cursor()
    other.execute(f"SELECT bl FROM {t} WHERE id = 1")
    assert other.fetchone() == (BIG[::-1],)
    assert cl.read(4) == TEXT.upper()[:4].encode("latin-1")
    other.execute(f"UPDATE {t} SET id = 3 WHERE id = 2")
    assert first + bl.read() == BIG[::-1]
    assert b.read() == BIG


@pytest.mark.parametrize("how", ["cursor closed", "executed again", "reader closed"])
def test_reader_whose_result_is_gone_raises(conn, how):
    t = table(conn)
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT b, bl, cl FROM {t} WHERE id = 1")
    readers = cur.fetchone()
    for r in readers:
        r.read(3)
    if how == "cursor closed":
        cur.close()
    elif how == "executed again":
        cur.execute(f"SELECT b, bl, cl FROM {t} WHERE id = 1")
    else:
        for r in readers:
            r.close()
    for r in readers:
        with pytest.raises(ifx.InterfaceError, match="cannot be read"):
            r.read(1)
        with pytest.raises(ifx.InterfaceError):
            r.readinto(bytearray(4))
    # the connection goes on, and a new result reads its values
    if how == "executed again":
        assert cur.fetchone()[0].read() == BIG
    conn.cursor().execute(f"SELECT id FROM {t}")


def test_closing_a_reader_closes_the_server_descriptor(conn):
    """close() does no I/O; ifx_lo_close rides on the next request, so the
    descriptor is gone on the server afterwards."""
    t = table(conn)
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT bl FROM {t} WHERE id = 1")
    (bl,) = cur.fetchone()
    bl.read(1)
    fd = bl._source.fd
    assert isinstance(fd, int)
    bl.close()
    conn.cursor().execute(f"SELECT id FROM {t}")
    with pytest.raises(ifx.DatabaseError):
        conn.fast_path_call(CLOSE, fd)
    conn.cursor().execute(f"SELECT id FROM {t}")


def test_reader_after_connection_closed(server):
    c = connect(server)
    t = table(c)
    cur = c.cursor(lob="stream")
    cur.execute(f"SELECT bl, b FROM {t} WHERE id = 1")
    bl, b = cur.fetchone()
    c.close()
    for r in (bl, b):
        with pytest.raises(ifx.InterfaceError):
            r.read(1)


def test_materializing_cursor_streams_too(conn):
    """BYTE/TEXT spooled while the statement was open stay readable after
    the materializing cursor released it; BLOB/CLOB read by locator."""
    t = table(conn)
    cur = conn.cursor(lob="stream", materialize=True)
    cur.execute(f"SELECT b, bl FROM {t} ORDER BY id")
    rows = cur.fetchall()
    assert rows[0][0].read() == BIG and rows[0][1].read() == BIG[::-1]
    assert rows[1] == (None, None)


def test_async_reader(server):
    async def run():
        c = await ifx.connect_async(host=server.host, port=server.port, user=USER,
                                    password=PASSWORD, database=DATABASE, server=SERVER,
                                    autocommit=True, read_timeout=30)
        try:
            cur = c.cursor()
            name = f"ls_{uuid.uuid4().hex[:8]}"
            await cur.execute(f"CREATE TABLE {name} (b BYTE, bl BLOB)")
            await cur.execute(f"INSERT INTO {name} VALUES (?, ?)", (BIG, BIG[::-1]))
            scur = c.cursor(lob="stream")
            await scur.execute(f"SELECT b, bl FROM {name}")
            b, bl = await scur.fetchone()
            head = await bl.read(5)
            parts = [chunk async for chunk in bl]
            whole = await b.read()
            await scur.close()
            try:
                await b.read(1)
            except ifx.InterfaceError:
                gone = True
            else:
                gone = False
            return head + b"".join(parts), whole, gone
        finally:
            await c.close()
    streamed, whole, gone = asyncio.run(asyncio.wait_for(run(), 60))
    assert (streamed, whole, gone) == (BIG[::-1], BIG, True)
