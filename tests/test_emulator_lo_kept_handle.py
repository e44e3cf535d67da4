"""The emulator keeps the blob handle of an SQ_LODATA read for the next read
of the same descriptor (slobs._Kept: a fresh handle's seek walks the whole
overflow chain, so a 200 MB stream cost O(size) per 1 MiB read).  These
tests pin what a reader sees, which must be exactly what it saw when every
read opened a fresh handle, and that any other request closes the kept
handle first (no SQLite statement open across the session's other work).
"""

from __future__ import annotations

import hashlib
import socket
import struct
import time
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect
from informix_stream.codec import slob
from informix_stream.emulator.engine import Engine
from informix_stream.emulator.session import Session
from informix_stream.fastpath import ExFpRoutine, GetRoutine, LoData
from informix_stream.messages import Reply, Tag, parse_reply
from informix_stream.framing import Writer
from informix_stream import codecs
from informix_stream.messages import parse_request

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20
C = slob.LO_CHUNK
OPEN = b"function informix.ifx_lo_open(blob,integer)"
CREATE = b"function informix.ifx_lo_create(informix.ifx_lo_spec,integer,informix.ifx_lo)"
CLOSE = b"function informix.ifx_lo_close(integer)"


def data_of(size: int) -> bytes:
    return (bytes(range(251)) * (size // 251 + 1))[:size]


class Lo:
    """One in-process emulator session spoken to in parsed messages."""

    def __init__(self, engine: Engine) -> None:
        self.session = Session(engine, version="test")
        self.sql_req(Writer().short(Tag.DBOPEN).short_string(b"testdb").short(0))
        self.handles: dict[bytes, int] = {}

    def sql_req(self, w: Writer) -> Reply:
        messages, _ = parse_request(w.getvalue() + b"\x00\x0c", 0, codecs.read_param)
        return self.reply(self.session.handle(messages))

    def sql(self, text: str) -> Reply:
        return self.sql_req(Writer().short(Tag.COMMAND).short(0).int(len(text))
                            .padded(text.encode()).short(Tag.EXECUTE).short(Tag.RELEASE))

    @staticmethod
    def reply(data: bytes) -> Reply:
        reply = Reply()
        _, done = parse_reply(data, 0, reply)
        assert done
        return reply

    def call(self, signature: bytes, *params) -> list:
        if signature not in self.handles:
            r = self.reply(self.session.handle([GetRoutine(signature)]))
            assert r.error is None, r.error
            self.handles[signature] = r.routine[1]
        r = self.reply(self.session.handle([ExFpRoutine(b"", self.handles[signature],
                                                        list(params))]))
        assert r.error is None, r.error
        return [v.value for v in r.routine]

    def create(self, data: bytes) -> bytes:
        """A new object holding ``data``; its locator."""
        loc, fd = self.call(CREATE, None, 0, None)
        self.write(fd, data)
        self.call(CLOSE, fd)
        return loc

    def write(self, fd: int, data: bytes) -> None:
        self.session.handle([LoData(slob.LO_WRITE, fd, len(data), data)])

    def open(self, loc: bytes) -> int:
        return self.call(OPEN, loc, slob.LO_RDONLY)[0]

    def read(self, fd: int, n: int) -> bytes | int:
        """The bytes of one SQ_LODATA read, or the sqlcode of its error."""
        out = self.session.handle([LoData(slob.LO_READ, fd, n, b"")])
        tag, _, size = struct.unpack_from("!hhi", out)
        if tag != Tag.LODATA:
            return self.reply(out).error.sqlcode
        data, at = bytearray(), 8 if size else 10     # an empty read: one 0 short
        while len(data) < size:
            (k,) = struct.unpack_from("!h", out, at)
            data += out[at + 2:at + 2 + k]
            at += 2 + k + (k & 1)
        assert struct.unpack_from("!h", out, at)[0] == Tag.EOT
        return bytes(data)

    @property
    def kept(self):
        state = getattr(self.session, "lo_state", None)
        return None if state is None else state.kept


@pytest.fixture
def engine():
    eng = Engine(["testdb"])
    yield eng
    eng.close()


@pytest.fixture
def lo(engine):
    s = Lo(engine)
    yield s
    s.session.close()


@pytest.mark.parametrize("size", [0, 1, C - 1, C, C + 1, MB - 1, MB, MB + 1, 3 * MB + 5])
@pytest.mark.parametrize("step", [MB, C + 1])
def test_reads_give_exactly_the_bytes_written(lo, size, step):
    data = data_of(size)
    fd = lo.open(lo.create(data))
    got = bytearray()
    while part := lo.read(fd, step):
        got += part
    assert hashlib.sha256(got).digest() == hashlib.sha256(data).digest()
    assert lo.read(fd, step) == b""


def test_handle_is_kept_for_reads_only_and_closed_by_anything_else(lo):
    data = data_of(3 * MB)
    fd = lo.open(lo.create(data))
    assert lo.read(fd, MB) == data[:MB]
    kept = lo.kept
    assert kept is not None and kept.lo is lo.session.lo_state.fds[fd]
    assert lo.read(fd, MB) == data[MB:2 * MB]
    assert lo.kept is kept                            # the same handle, reused
    lo.sql("CREATE TABLE other_t (i INTEGER)")
    assert lo.kept is None                            # a statement closed it first
    assert lo.read(fd, MB) == data[2 * MB:]
    lo.call(CLOSE, fd)
    assert lo.kept is None


def test_a_read_of_another_descriptor_does_not_use_the_kept_handle(lo):
    a, b = data_of(2 * MB), data_of(2 * MB)[::-1]
    fa, fb = lo.open(lo.create(a)), lo.open(lo.create(b))
    assert lo.read(fa, MB) == a[:MB]
    assert lo.read(fb, MB) == b[:MB]
    assert lo.read(fa, MB) == a[MB:]
    assert lo.read(fb, MB) == b[MB:]


def test_write_through_another_descriptor_between_reads(lo):
    """Pinned as it was before handles were kept: a write through another
    descriptor is pending until that descriptor is closed (or flushed), so
    the reader sees the object without it, then with it."""
    a, more = data_of(MB + 10), data_of(5000)[::-1]
    loc, fw = lo.call(CREATE, None, 0, None)
    lo.write(fw, a)
    lo.call(slob_stat := b"function informix.ifx_lo_stat(integer)", fw)  # flushes a
    del slob_stat
    fr = lo.open(loc)
    assert lo.read(fr, MB) == a[:MB]
    lo.write(fw, more)
    assert lo.read(fr, MB) == a[MB:]
    lo.call(CLOSE, fw)
    assert lo.read(fr, MB) == more


def test_another_sessions_commit_between_reads_is_seen(engine, lo):
    """Another session frees the object (drops its last reference) between
    two reads: the next read says the object is gone, as a fresh handle
    did, instead of serving a snapshot the kept handle pinned."""
    other = Lo(engine)
    try:
        data = data_of(3 * MB)
        other.sql("CREATE TABLE lo_src (id INTEGER, b BLOB)")
        loc = lo.create(data)
        fd = lo.open(loc)
        assert lo.read(fd, MB) == data[:MB]
        assert lo.read(fd, MB) == data[MB:2 * MB] and lo.kept is not None
        oid = slob.object_id(loc)
        with other.session.db._conn as conn:  # noqa: SLF001 - another connection's commit
            conn.execute("DELETE FROM _ifx_blobs WHERE id = ?", (oid,))
        assert lo.read(fd, MB) == -9810               # SLOB_ERROR: no such object
    finally:
        other.session.close()


def test_session_end_closes_the_kept_handle(engine):
    s = Lo(engine)
    fd = s.open(s.create(data_of(2 * MB)))
    s.read(fd, MB)
    kept = s.kept
    assert kept is not None
    s.session.close()
    assert s.kept is None
    with pytest.raises(Exception):                    # the probe is closed too
        kept.probe.execute("SELECT 1")


# -- through the driver, against a served emulator ------------------------

@pytest.fixture
def table(emu):
    name = f"kh_{uuid.uuid4().hex[:8]}"
    with connect(emu, autocommit=True) as c:
        c.cursor().execute(f"CREATE TABLE {name} (id INTEGER, bl BLOB, cl CLOB)")
        c.cursor().execute(f"INSERT INTO {name} VALUES (1, ?, ?)",
                           (data_of(3 * MB + 7), ifx.Text(data_of(2 * MB).decode("latin-1"))))
    return name


def open_stream(conn, table):
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT bl FROM {table} WHERE id = 1")
    (reader,) = cur.fetchone()
    return cur, reader


@pytest.mark.parametrize("statement", ["ALTER TABLE {t} ADD extra INTEGER", "DROP TABLE {t}"])
def test_ddl_of_the_lobs_table_between_reads(emu, table, statement):
    with connect(emu, autocommit=True) as conn:
        _, reader = open_stream(conn, table)
        first = reader.read(MB) + reader.read(MB)
        assert first == data_of(3 * MB + 7)[:2 * MB]
        assert emu.latest_session().lo_state.kept is not None
        conn.cursor().execute(statement.format(t=table))      # no "table is locked"
        if statement.startswith("ALTER"):
            assert first + reader.read() == data_of(3 * MB + 7)
        else:
            with pytest.raises(ifx.DatabaseError):               # the object went with it
                reader.read()
        conn.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")


@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_commit_or_rollback_between_reads(emu, table, end):
    with connect(emu) as conn:
        _, reader = open_stream(conn, table)
        got = reader.read(MB) + reader.read(MB)
        getattr(conn, end)()
        got += reader.read()
        assert got == data_of(3 * MB + 7)


@pytest.mark.parametrize("how", ["close", "drop"])
def test_client_leaving_mid_stream_frees_the_table(emu, table, how):
    conn = connect(emu, autocommit=True)
    _, reader = open_stream(conn, table)
    reader.read(MB)
    reader.read(MB)
    session = emu.latest_session()
    assert session.lo_state.kept is not None
    if how == "close":
        conn.close()
    else:
        conn._io.sock.shutdown(socket.SHUT_RDWR)  # noqa: SLF001 - gone without a word
        conn._io.sock.close()  # noqa: SLF001
    deadline = time.monotonic() + 10
    while not session.ended and time.monotonic() < deadline:
        time.sleep(0.01)
    assert session.ended and session.lo_state.kept is None
    with connect(emu, autocommit=True) as other:
        other.cursor().execute(f"DROP TABLE {table}")
