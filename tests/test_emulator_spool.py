"""Issue 12 item 2: the emulator receives a large LOB write in pieces
(emulator.spool): SQ_BLOB and SQ_LODATA chunks go to a spool file as they
arrive, so its receive buffer stays bounded however large the value, a value
larger than the old whole-request limit is stored, and a request cut short
or garbled stores nothing and leaves no spool file behind.
"""

from __future__ import annotations

import sqlite3
import time
import uuid

import pytest

import informix_stream as ifx
from informix_stream import fastpath
from informix_stream.emulator import EmulatorServer, server as server_mod, spool
from informix_stream.fastpath import LoData
from informix_stream.framing import Reader, Writer
from informix_stream.messages import BlobBind, Tag

from test_emulator_server import _raw_login, _recv_all

pytestmark = pytest.mark.timeout(120)
MB = 1 << 20


@pytest.fixture
def tracked(monkeypatch):
    """Every spool value made, and the largest receive buffer seen."""
    made: list = []
    peak = [0]

    class Tracked(spool.SpooledValue):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    real_recv = server_mod._recv_into

    def recv(conn, buf):
        ok = real_recv(conn, buf)
        peak[0] = max(peak[0], len(buf))
        return ok

    monkeypatch.setattr(spool, "SpooledValue", Tracked)
    monkeypatch.setattr(server_mod, "_recv_into", recv)
    return made, peak


@pytest.fixture
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        yield srv


def _connect(srv):
    return ifx.connect(host=srv.host, port=srv.port, password="in4mix", database="testdb",
                       autocommit=True, read_timeout=30)


def _pieces(total: int, fail_at: int | None = None):
    """``total`` bytes in 1 MiB pieces whose contents depend on position."""
    for k in range(total // MB):
        if fail_at is not None and k * MB >= fail_at:
            raise RuntimeError("the source failed")
        yield bytes([k % 251]) * MB


def _blob_rows(srv) -> int:
    """Values in the database's blob storage, read beside the emulator."""
    with sqlite3.connect(srv.engine.databases.get("testdb").path) as raw:
        return raw.execute("SELECT COUNT(*) FROM _ifx_blobs").fetchone()[0]


def _closed(value: spool.SpooledValue) -> bool:
    return value._file.closed  # noqa: SLF001


def _all_closed(made: list, timeout: float = 10.0) -> bool:
    """Every spool file closed, waiting (bounded) for the session thread to
    notice its client has gone."""
    deadline = time.monotonic() + timeout
    while not (made and all(_closed(v) for v in made)) and time.monotonic() < deadline:
        time.sleep(0.02)          # the session thread may still be reading the bytes sent
    return all(_closed(v) for v in made)


def test_a_large_byte_and_text_write_is_spooled_and_read_back(server, tracked):
    made, peak = tracked
    conn = _connect(server)
    t = f"sp_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, b BYTE, x TEXT)")
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)",
                (1, _pieces(24 * MB), ifx.Text(b"t" * (9 * MB))))
    cur.execute(f"SELECT b, x FROM {t}")
    b, x = cur.fetchone()
    assert len(b) == 24 * MB and b == b"".join(_pieces(24 * MB))
    assert x == "t" * (9 * MB)
    assert [v.size for v in made] == [24 * MB, 9 * MB]
    assert all(_closed(v) for v in made)
    # the receive buffer never held the value: the spool threshold and a recv or two
    assert peak[0] < spool.SPOOL_AT * 5 // 4 + 2 * server_mod.RECV_SIZE
    conn.close()


def test_a_value_over_the_old_request_limit_is_stored(server, tracked, monkeypatch):
    monkeypatch.setattr(server_mod, "MAX_PENDING", 8 * MB)   # a 256 MiB value, scaled down
    conn = _connect(server)
    t = f"sp_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, b BYTE)")
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, _pieces(20 * MB)))
    cur.execute(f"SELECT b FROM {t}")
    assert len(cur.fetchone()[0]) == 20 * MB
    conn.close()


def test_a_client_leaving_mid_lob_stores_nothing_and_frees_the_spool(server, tracked):
    made, _peak = tracked
    conn = _connect(server)
    t = f"sp_{uuid.uuid4().hex[:8]}"
    conn.cursor().execute(f"CREATE TABLE {t} (id INTEGER, b BYTE)")
    before = _blob_rows(server)
    with pytest.raises((ifx.OperationalError, ifx.InterfaceError)):
        conn.cursor().execute(f"INSERT INTO {t} VALUES (?, ?)",
                              (1, _pieces(32 * MB, fail_at=12 * MB)))
    conn.close()
    check = _connect(server)
    cur = check.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {t}")
    assert cur.fetchone() == (0,)
    assert _blob_rows(server) == before
    assert _all_closed(made) and made
    check.close()


def _bbind_chunks(total: int) -> bytes:
    w = Writer().short(Tag.BBIND).short(1)
    chunk = b"\x5a" * 1024
    for _ in range(total // 1024):
        w.short(Tag.BLOB).short(1024).raw(chunk)
    return w.getvalue()


def test_garbage_in_the_middle_of_a_spooled_request_gets_408(server, tracked):
    made, _peak = tracked
    sock = _raw_login(server)
    sock.sendall(_bbind_chunks(6 * MB) + bytes.fromhex("7fff0010"))   # not an SQ_BLOB
    reply = _recv_all(sock)
    sock.close()
    r = Reader(reply)
    assert (r.short(), r.short()) == (Tag.ERR, -408)
    assert _all_closed(made) and made
    conn = _connect(server)       # the server carries on
    conn.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")
    conn.close()


def test_an_error_in_a_spooled_request_is_answered_and_the_session_goes_on(server, tracked):
    """SQ_BBIND with no statement before it: the server's error, not a dropped link."""
    made, _peak = tracked
    sock = _raw_login(server)
    sock.sendall(_bbind_chunks(6 * MB) + Writer().short(Tag.BLOB).short(0)
                 .short(Tag.EOT).getvalue())
    sock.settimeout(30)
    reply = b""
    while not reply.endswith(b"\x00\x0c"):
        reply += sock.recv(65536)
    r = Reader(reply)
    assert r.short() == Tag.ERR and r.short() < 0
    assert _all_closed(made) and made
    sock.sendall(Writer().short(Tag.EXIT).getvalue())
    sock.close()


def _feed_in_pieces(data: bytes, step: int) -> spool.RequestSpool:
    rs = spool.RequestSpool(lambda r: None)
    buf, pos = bytearray(), 0
    for at in range(0, len(data), step):
        buf += data[at:at + step]
        pos = rs.feed(buf, pos)
        del buf[:pos]
        pos = 0
        assert len(buf) < step + 40000      # never more than a chunk held back
    assert rs.done and not buf
    return rs


@pytest.mark.parametrize("step", [1, 7, 4096, 1 << 16])
def test_the_request_spool_takes_bytes_in_any_pieces(step):
    value = bytes(range(256)) * 40 + b"odd"            # odd length: a pad byte
    head = Writer().short(Tag.BBIND).short(2)
    for part in (value[:1001], value[1001:]):
        head.short(Tag.BLOB).short(len(part)).padded(part)
    head.short(Tag.BLOB).short(0)
    head.short(Tag.BLOB).short(0)                        # the second value: empty
    lo = fastpath.lo_write_head(3, len(value)) + fastpath.lo_write_chunk(value[:3000]) \
        + fastpath.lo_write_chunk(value[3000:])
    request = head.getvalue() + lo + Writer().short(Tag.EXECUTE).short(Tag.EOT).getvalue()
    rs = _feed_in_pieces(request, step)
    bind, lodata, execute = rs.messages
    assert isinstance(bind, BlobBind) and [v.read() for v in bind.values] == [value, b""]
    assert isinstance(lodata, LoData) and (lodata.subcommand, lodata.fd) == (2, 3)
    assert lodata.data.read() == value and lodata.length == len(value)
    assert execute is Tag.EXECUTE
    rs.close()
    assert all(_closed(v) for v in rs.values) and rs.values == []
