"""LOB values of every size that meets a buffer boundary come back whole:
none, one byte, and one byte either side of a reply chunk (32000), the
transport's receive buffer (256 KiB), a stream's and a value's first read
(1 MiB), for BYTE, TEXT, BLOB and CLOB, as values and as streams, in a
Latin-1 and a UTF-8 database (where a character's bytes straddle each
boundary).  Also: the value buffer sized ahead (descriptor size,
``ifx_lo_stat``) is never handed out with its unused room."""

from __future__ import annotations

import uuid

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, SERVER
from faults.hostile import HostileServer, eot
from informix_stream import blocking, smartlobs
from informix_stream.codec import lob, slob
from informix_stream.emulator import EmulatorServer
from informix_stream.lobsinks import ValueSink
from informix_stream.messages import FetchBlob

pytestmark = pytest.mark.timeout(180)
USER, PASSWORD = "informix", "in4mix"
BOUNDARIES = (lob.SERVE_CHUNK, slob.LO_CHUNK, blocking.RECV_SIZE, smartlobs.READ_SIZE)
SIZES = sorted({0, 1, 2} | {b + d for b in BOUNDARIES for d in (-1, 0, 1)}
               | {2 * smartlobs.READ_SIZE + 3})


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"latindb": "en_US.8859-1", "utf8db": "en_US.utf8"}) as srv:
        yield srv


def connect(server, database: str):
    return ifx.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                       database=database, autocommit=True, read_timeout=30)


def _bytes(n: int) -> bytes:
    return bytes((k * 7 + 3) % 256 for k in range(min(n, 4099))) * (n // 4099) \
        + bytes((k * 7 + 3) % 256 for k in range(n % 4099))


def _text(n: int, database: str) -> str:
    """A str whose encoding is exactly ``n`` bytes; in UTF-8 it is made of
    two- and three-byte characters, so one straddles each boundary."""
    if database == "latindb":
        return ("déjà vu " * (n // 8 + 1))[:n]
    unit = "é日"                                    # 2 + 3 bytes
    text = unit * (n // 5) + "a" * (n % 5)
    assert len(text.encode("utf-8")) == n
    return text


@pytest.fixture(scope="module")
def tables(server):
    """One table per database, a row per size; the sizes' values."""
    made = {}
    for database in ("latindb", "utf8db"):
        name = f"sz_{uuid.uuid4().hex[:8]}"
        with connect(server, database) as conn:
            cur = conn.cursor()
            cur.execute(f"CREATE TABLE {name} (n INTEGER, b BYTE, t TEXT, bl BLOB, cl CLOB)")
            for n in SIZES:
                text = _text(n, database)
                cur.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?, ?)",
                            (n, _bytes(n), ifx.Text(text), _bytes(n), ifx.Text(text)))
        made[database] = name
    return made


@pytest.mark.parametrize("database", ["latindb", "utf8db"])
def test_values_at_every_boundary(server, tables, database):
    with connect(server, database) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT n, b, t, bl, cl FROM {tables[database]} ORDER BY n")
        rows = cur.fetchall()
    assert [r[0] for r in rows] == SIZES
    for n, b, t, bl, cl in rows:
        text = _text(n, database)
        assert (type(b), type(bl), type(t), type(cl)) == (bytes, bytes, str, str)
        assert b == bl == _bytes(n), n
        assert t == cl == text, n


@pytest.mark.parametrize("database", ["latindb", "utf8db"])
def test_streams_at_every_boundary(server, tables, database):
    with connect(server, database) as conn:
        cur = conn.cursor(lob="stream")
        cur.execute(f"SELECT n, b, t, bl, cl FROM {tables[database]} ORDER BY n")
        for n, *readers in cur:
            b, t, bl, cl = (r.read() for r in readers)
            encoded = _text(n, database).encode(readers[1].encoding)
            assert b == bl == _bytes(n), n
            assert t == cl == encoded, n


def test_a_smart_value_larger_than_its_stat_size_is_whole(server, tables, monkeypatch):
    """ifx_lo_stat under-reporting by one byte, at every size: the buffer
    grows, and the value is neither cut at the stated size nor padded."""
    with connect(server, "latindb") as conn:
        cur = conn.cursor()
        for n in (1, slob.LO_CHUNK + 1, smartlobs.READ_SIZE + 1):
            monkeypatch.setattr(smartlobs, "stat_size", lambda values, n=n: n - 1)
            cur.execute(f"SELECT bl, cl FROM {tables['latindb']} WHERE n = ?", (n,))
            assert cur.fetchall() == [(_bytes(n), _text(n, "latindb"))]


@pytest.mark.parametrize("capacity, written", [(0, 0), (1, 0), (10, 1), (10, 10), (3, 7)])
def test_value_sink_hands_out_only_what_was_written(capacity, written):
    """A buffer sized ahead (the descriptor's or ifx_lo_stat's size) and
    filled less, or more, gives exactly the bytes written."""
    sink = ValueSink(capacity)
    sink.reserve(written)
    data = bytes(range(1, written + 1))
    sink += memoryview(data)
    assert len(sink) == written
    assert sink.getvalue() == data


def _chunks(data: bytes) -> bytes:
    return b"".join(lob.chunk_messages(data, 1024))


@pytest.mark.parametrize("reply", [
    _chunks(b"abcdef") + lob.BLOB_END + eot(),       # one byte more than declared
    _chunks(b"abcd") + lob.BLOB_END + eot(),         # one byte less
    _chunks(b"") + lob.BLOB_END + eot(),             # nothing
], ids=["longer", "shorter", "empty"])
def test_a_text_value_of_another_size_than_declared_breaks_the_connection(reply):
    """A TEXT value is decoded only once its size matched the descriptor's:
    never a short or padded str, and the connection is closed."""
    with HostileServer() as h:
        c = ifx.connect(host=h.host, port=h.port, user=USER, password=PASSWORD,
                        database=DATABASE, server=SERVER, autocommit=True, read_timeout=10,
                        connect_timeout=10)
        cur = c.cursor()
        cur.execute("CREATE TABLE t (id INTEGER, t TEXT)")
        cur.execute("INSERT INTO t VALUES (1, ?)", (ifx.Text("abcde"),))
        cur.execute("SELECT t FROM t")
        assert cur.fetchall() == [("abcde",)]
        h.tamper = lambda messages, _r: ([reply] if any(isinstance(m, FetchBlob)
                                                        for m in messages) else None)
        with pytest.raises(ifx.OperationalError, match="blob"):
            cur.execute("SELECT t FROM t")
            cur.fetchall()
        assert c.closed


def test_text_bytes_invalid_in_the_code_set_name_the_column(server):
    """Bytes that are not UTF-8 in a TEXT/CLOB value of a UTF-8 session are
    a DataError naming the column (not a UnicodeError), and the connection
    stays usable."""
    name = f"bad_{uuid.uuid4().hex[:8]}"
    with connect(server, "latindb") as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} (id INTEGER, t TEXT, cl CLOB)")
        cur.execute(f"INSERT INTO {name} VALUES (1, ?, ?)", (ifx.Text("caf\xe9"),
                                                              ifx.Text("caf\xe9")))
    with connect(server, "latindb") as conn:
        conn._session.encoding = "utf-8"      # a session that guessed its code set wrong
        cur = conn.cursor()
        for column, kind in (("t", "TEXT"), ("cl", "CLOB")):
            with pytest.raises(ifx.DataError, match=f"column 1 \\({kind}\\)") as info:
                cur.execute(f"SELECT {column} FROM {name}")
                cur.fetchall()
            assert not isinstance(info.value, UnicodeError)
        cur.execute(f"SELECT id FROM {name}")
        assert cur.fetchall() == [(1,)]
