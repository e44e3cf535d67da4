"""Issue 12 follow-up: the emulator stores a large LOB a chunk at a time
(emulator.lob_fill) and serves one a piece at a time (emulator.lob_serve).

The thresholds are scaled down here (every request spooled, every value
over a few bytes streamed, tiny fill chunks) so that the edge sizes 0, 1,
chunk-1, chunk, chunk+1 run in milliseconds; bench/lobs/emulator_lob_rss.py
measures the memory itself with 200 MB values.  What must hold: readers get
exactly the bytes written, a rollback or a failed write leaves nothing
behind, and no marker (lob_fill's stand-in for the value) is ever seen.
"""

from __future__ import annotations

import hashlib
import sqlite3
import uuid

import pytest

import informix_stream as ifx
from informix_stream.codec import lob
from informix_stream.emulator import EmulatorServer, lob_fill, lob_serve, server as server_mod
from informix_stream.framing import Incomplete
from informix_stream.messages import BlobBind

pytestmark = pytest.mark.timeout(120)
FILL = 1000                     # lob_fill.FILL_CHUNK, scaled down
PIECE = lob.SERVE_CHUNK         # lob_serve's read piece, scaled down to one wire chunk
SIZES = (0, 1, FILL - 1, FILL, FILL + 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 7)
KINDS = ("BYTE", "TEXT", "BLOB", "CLOB")


@pytest.fixture
def deferred(monkeypatch):
    """How many statements lob_fill ran (so no test passes without it)."""
    calls = [0]
    real = lob_fill.execute

    def execute(*args):
        calls[0] += 1
        return real(*args)
    monkeypatch.setattr(lob_fill, "execute", execute)
    return calls


@pytest.fixture
def server(monkeypatch, deferred):
    # Every request with LOB contents is received as a spooled one: it is
    # reported unfinished when whole, and 64 bytes is past the threshold.
    real_parse = server_mod.parse_request

    def parse_request(buf, pos, read_param):
        messages, end = real_parse(buf, pos, read_param)
        if any(isinstance(m, BlobBind) for m in messages):
            raise Incomplete()
        return messages, end
    monkeypatch.setattr(server_mod, "parse_request", parse_request)
    monkeypatch.setattr(server_mod, "SPOOL_AT", 64)
    monkeypatch.setattr(lob_fill, "FILL_CHUNK", FILL)
    monkeypatch.setattr(lob_serve, "STREAM_AT", 0)         # every value streamed
    monkeypatch.setattr(lob_serve, "_BYTE_PIECE", PIECE)
    monkeypatch.setattr(lob_serve, "_LO_PIECE", 2 * 32000)
    with EmulatorServer(databases=("testdb",)) as srv:
        yield srv


def _connect(srv, **kw):
    return ifx.connect(host=srv.host, port=srv.port, password="in4mix", database="testdb",
                       read_timeout=30, **{"autocommit": True, **kw})


def _value(size: int, seed: int = 0) -> bytes:
    """``size`` bytes that differ by position (printable: valid TEXT/CLOB)."""
    block = bytes(65 + (i * 7 + seed) % 26 for i in range(997))
    return (block * (size // len(block) + 1))[:size]


def _bind(kind: str, data: bytes, pieces: int = 3):
    """The value as a generator of pieces, as a streamed parameter."""
    step = max(1, len(data) // pieces + 1)
    gen = (data[i:i + step] for i in range(0, len(data), step))
    return ifx.Text(gen) if kind in ("TEXT", "CLOB") else gen


def _as_bytes(v) -> bytes | None:
    return v.encode("iso-8859-1") if isinstance(v, str) else v


def _raw(srv) -> sqlite3.Connection:
    return sqlite3.connect(srv.engine.databases.get("testdb").path)


def _blob_rows(srv) -> int:
    with _raw(srv) as raw:
        return raw.execute("SELECT COUNT(*) FROM _ifx_blobs").fetchone()[0]


def _markers(srv) -> int:
    with _raw(srv) as raw:
        return raw.execute("SELECT COUNT(*) FROM _ifx_blobs WHERE substr(data, 1, ?) = ?",
                           (len(lob_fill._MARK), lob_fill._MARK)).fetchone()[0]


def _table(cur, kind: str) -> str:
    t = f"m_{uuid.uuid4().hex[:8]}"
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v {kind})")
    return t


@pytest.mark.parametrize("kind", KINDS)
def test_edge_sizes_read_back_exactly(server, deferred, kind):
    conn = _connect(server)
    cur = conn.cursor()
    t = _table(cur, kind)
    for k, size in enumerate(SIZES):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (k, _bind(kind, _value(size, k))))
    cur.execute(f"SELECT id, v FROM {t} ORDER BY id")
    got = {i: _as_bytes(v) for i, v in cur.fetchall()}
    assert got == {k: _value(size, k) for k, size in enumerate(SIZES)}
    assert deferred[0] == len(SIZES)
    stream = conn.cursor(lob="stream")
    stream.execute(f"SELECT id, v FROM {t} ORDER BY id")
    for i, reader in stream.fetchall():
        data = b"".join(_as_bytes(c) for c in reader)
        assert hashlib.sha256(data).digest() == hashlib.sha256(_value(SIZES[i], i)).digest()
    assert _markers(server) == 0
    conn.close()


@pytest.mark.parametrize("kind", ("BYTE", "BLOB"))
def test_an_update_of_many_rows_gives_each_its_own_copy(server, deferred, kind):
    conn = _connect(server)
    cur = conn.cursor()
    t = _table(cur, kind)
    for k in range(3):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (k, b"old"))
    before = _blob_rows(server)
    data = _value(3 * FILL + 5)
    cur.execute(f"UPDATE {t} SET v = ? WHERE id >= 1", (_bind(kind, data),))
    assert cur.rowcount == 2 and deferred[0] == 4      # three INSERTs, the UPDATE
    # two new contents, the two values they replaced freed
    assert _blob_rows(server) == before
    cur.execute(f"DELETE FROM {t} WHERE id = 1")
    cur.execute(f"SELECT id, v FROM {t} ORDER BY id")
    assert cur.fetchall() == [(0, b"old"), (2, data)]
    assert _markers(server) == 0
    conn.close()


@pytest.mark.parametrize("kind", KINDS)
def test_rollback_leaves_no_lob_behind(server, deferred, kind):
    conn = _connect(server, autocommit=False)
    cur = conn.cursor()
    t = _table(cur, kind)
    conn.commit()
    before = _blob_rows(server)
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (_bind(kind, _value(5 * FILL)),))
    assert deferred[0] == 1
    conn.rollback()
    assert _blob_rows(server) == before
    cur.execute(f"SELECT COUNT(*) FROM {t}")
    assert cur.fetchone() == (0,)
    cur.execute(f"INSERT INTO {t} VALUES (2, ?)", (_bind(kind, _value(5 * FILL, 2)),))
    conn.commit()
    conn.close()
    again = _connect(server)
    cur = again.cursor()
    cur.execute(f"SELECT id, v FROM {t}")
    ((i, v),) = cur.fetchall()
    assert (i, _as_bytes(v)) == (2, _value(5 * FILL, 2))
    again.close()


def test_a_server_error_after_the_value_arrived_stores_nothing(server, deferred):
    conn = _connect(server)
    cur = conn.cursor()
    t = f"m_{uuid.uuid4().hex[:8]}"
    cur.execute(f"CREATE TABLE {t} (id INTEGER NOT NULL, v BYTE)")
    cur.execute(f"CREATE UNIQUE INDEX {t}_u ON {t} (id)")
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (_bind("BYTE", _value(4 * FILL)),))
    before = _blob_rows(server)
    with pytest.raises(ifx.IntegrityError):
        cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (_bind("BYTE", _value(4 * FILL, 1)),))
    assert deferred[0] == 2
    assert _blob_rows(server) == before and _markers(server) == 0
    cur.execute(f"SELECT v FROM {t}")
    assert cur.fetchall() == [(_value(4 * FILL),)]
    conn.close()


def test_a_source_failing_half_way_stores_nothing(server):
    conn = _connect(server)
    cur = conn.cursor()
    t = _table(cur, "BYTE")
    before = _blob_rows(server)

    def failing():
        yield _value(3 * FILL)
        raise RuntimeError("the source failed")
    with pytest.raises(ifx.OperationalError):
        cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (failing(),))
    conn.close()
    check = _connect(server)
    cur = check.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {t}")
    assert cur.fetchone() == (0,)
    assert _blob_rows(server) == before and _markers(server) == 0
    check.close()


def test_a_marker_no_cell_points_at_is_refused_and_undone(server, monkeypatch):
    """The adversary: the value's stand-in ends up where lob_fill cannot
    find the cell that points at it.  The statement is refused as not
    supported and undone; the marker is never left in a table."""
    monkeypatch.setattr(lob_fill, "_lob_cells", lambda db: [])
    conn = _connect(server)
    cur = conn.cursor()
    t = _table(cur, "BYTE")
    before = _blob_rows(server)
    with pytest.raises(ifx.Error, match="not supported by the emulator"):
        cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (_bind("BYTE", _value(2 * FILL)),))
    cur.execute(f"SELECT COUNT(*) FROM {t}")
    assert cur.fetchone() == (0,)
    assert _blob_rows(server) == before and _markers(server) == 0
    conn.close()


def test_a_stored_value_copied_by_another_statement_is_whole(server):
    """A value lob_fill stored is a value like any other: INSERT ... SELECT
    copies it (blobs.py's triggers), and the copy outlives the original."""
    conn = _connect(server)
    cur = conn.cursor()
    src, dst = _table(cur, "BYTE"), _table(cur, "BYTE")
    data = _value(2 * FILL + 3)
    cur.execute(f"INSERT INTO {src} VALUES (1, ?)", (_bind("BYTE", data),))
    cur.execute(f"INSERT INTO {dst} SELECT id, v FROM {src}")
    cur.execute(f"DELETE FROM {src}")
    cur.execute(f"SELECT v FROM {dst}")
    assert cur.fetchall() == [(data,)]
    conn.close()


def test_parameters_not_stored_in_a_lob_column_are_read_whole():
    """Only a parameter every use of which stores it in a LOB column of an
    INSERT/UPDATE is deferred; one compared, or in another statement kind,
    gets the bytes."""
    from informix_stream.codecs import ColumnType, TypeCode
    from informix_stream.emulator.statements import Bind, StatementKind

    class Stmt:
        def __init__(self, kind, binds):
            self.kind = kind
            self.translation = type("T", (), {"binds": binds})()
    byte = ColumnType(TypeCode.BYTE, 56)
    stored = Bind(0, None, byte)
    compared = Bind(1, None, byte, compared=True)
    other = Bind(2, None, ColumnType(TypeCode.INTEGER, 4))
    reused = Bind(0, None, ColumnType(TypeCode.CHAR, 10))
    assert lob_fill._stored_params(Stmt(StatementKind.INSERT, [stored, compared, other])) == {0}
    assert lob_fill._stored_params(Stmt(StatementKind.UPDATE, [stored, reused])) == set()
    assert lob_fill._stored_params(Stmt(StatementKind.SELECT, [stored])) == set()


def test_a_streamed_read_keeps_its_snapshot_when_the_row_is_deleted(tmp_path):
    """lob_serve's claim: the open blob handle reads one snapshot, so a
    value deleted by another session half way through a read still arrives
    whole (never short, never another value's bytes)."""
    path = str(tmp_path / "db.sqlite")
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE _ifx_blobs (id INTEGER PRIMARY KEY, data BLOB)")
        setup.execute("INSERT INTO _ifx_blobs VALUES (1, ?)", (_value(5 * PIECE),))
    reader = sqlite3.connect(path)
    pieces = lob_serve.blob_chunks(reader.blobopen("_ifx_blobs", "data", 1, readonly=True))
    it = iter(pieces)
    first = next(it)
    other = sqlite3.connect(path, timeout=5)
    other.execute("DELETE FROM _ifx_blobs")
    other.commit()
    framed = bytes(first) + b"".join(bytes(p) for p in it)
    pieces.close()
    data, at = bytearray(), 0
    while True:
        tag, n = int.from_bytes(framed[at:at + 2], "big"), int.from_bytes(framed[at + 2:at + 4], "big")
        assert tag == lob.TAG_BLOB
        at += 4
        if n == 0:
            break
        data += framed[at:at + n]
        at += n + (n & 1)
    assert at == len(framed) and bytes(data) == _value(5 * PIECE)
    other.close()
    reader.close()


def test_a_send_that_fails_closes_the_blob_handle(tmp_path):
    path = str(tmp_path / "db.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE _ifx_blobs (id INTEGER PRIMARY KEY, data BLOB)")
    conn.execute("INSERT INTO _ifx_blobs VALUES (1, ?)", (_value(4 * PIECE),))
    conn.commit()
    blob = conn.blobopen("_ifx_blobs", "data", 1, readonly=True)

    class Dropped:
        sent = 0

        def sendall(self, data) -> None:
            self.sent += 1
            if self.sent > 2:
                raise BrokenPipeError("the client left")
    with pytest.raises(BrokenPipeError):
        lob_serve.send(Dropped(), b"head", [(2, lob_serve.blob_chunks(blob))])
    with pytest.raises(sqlite3.ProgrammingError):
        blob.read(1)                     # closed: the value is let go
    conn.execute("DELETE FROM _ifx_blobs")   # and nothing pins the row
    conn.close()


@pytest.mark.parametrize("old", (b"", b"a", _value(2 * FILL + 1)))
def test_smart_lob_writes_append_exactly(old):
    """slobs._flush grows an object with zeroblob and fills it by blob I/O
    (an empty object directly; a non-empty one through a spool copy of its
    bytes so far), never ``data || zeroblob``, which built it in memory."""
    from informix_stream.emulator import slobs, spool

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE _ifx_blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
    conn.execute("INSERT INTO _ifx_blobs VALUES (7, ?)", (old,))
    spooled = spool.SpooledValue()
    spooled.write(_value(FILL + 1, 3))
    pending = [b"xyz", spooled, b""]
    added = sum(len(p) for p in pending)
    session = type("S", (), {"_need_db": lambda self: type("D", (), {"_conn": conn})()})()
    lo = slobs._Open(7, True, pos=len(old) + added, pending=list(pending))
    slobs._flush(session, lo)
    (data,) = conn.execute("SELECT data FROM _ifx_blobs WHERE id = 7").fetchone()
    assert data == old + b"xyz" + _value(FILL + 1, 3) and lo.pending == []
    spooled.close()
