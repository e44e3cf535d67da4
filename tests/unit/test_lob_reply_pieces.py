"""LOB replies parsed piece by piece (messages.parse_reply's SQ_BLOB and
SQ_LODATA paths, ValueSink): any split of the bytes gives the same value,
the receive buffer stays resizable, and a reply that is not what it
declared is a ProtocolError, never a short or shifted value."""

from __future__ import annotations

import pytest

from informix_stream import codecs, fastpath
from informix_stream.codec import lob, slob
from informix_stream.core.session import ClientSession
from informix_stream.errors import ProtocolError
from informix_stream.framing import Writer
from informix_stream.messages import Reply, ValueSink, parse_reply, write_tuple_header

EOT = b"\x00\x0c"


def _feed(data: bytes, reply: Reply, step: int) -> None:
    """Feed ``data`` in pieces of ``step`` bytes through one growing
    bytearray, compacted as the client session does."""
    buf, pos, done = bytearray(), 0, False
    for at in range(0, len(data), step):
        buf += data[at:at + step]            # raises BufferError if a view leaked
        pos, done = parse_reply(buf, pos, reply)
        del buf[:pos]
        pos = 0
    assert done and not buf


def _blob_reply(value: bytes) -> bytes:
    out = bytearray()
    lob.append_chunks(out, value, lob.SERVE_CHUNK)
    return bytes(out) + EOT


def _lo_reply(value: bytes) -> bytes:
    w = Writer()
    fastpath.write_lo_read(w, value, slob.LO_CHUNK)
    return w.getvalue() + EOT


@pytest.mark.parametrize("step", [1, 3, 4096, 32001, 1 << 20])
def test_blob_value_any_split(step: int) -> None:
    value = bytes(range(256)) * 400 + b"odd"
    reply = Reply()
    reply.blob, reply.blob_limit = ValueSink(len(value)), len(value)
    _feed(_blob_reply(value), reply, step)
    assert reply.blob_ended and reply.blob.getvalue() == value


@pytest.mark.parametrize("step", [1, 7, 32003, 1 << 20])
def test_lo_read_any_split(step: int) -> None:
    value = bytes(range(251)) * 300 + b"x"
    reply = Reply()
    reply.lo_wanted, reply.lo_sink = len(value), ValueSink()
    _feed(_lo_reply(value), reply, step)
    assert reply.routine.size == len(value) and reply.lo_left == 0
    assert reply.lo_sink.getvalue() == value


def test_lo_read_empty() -> None:
    reply = Reply()
    reply.lo_wanted, reply.lo_sink = 10, ValueSink()
    _feed(_lo_reply(b""), reply, 1)
    assert reply.lo_sink.getvalue() == b""


def test_lo_chunk_beyond_declared_size_is_protocol_error() -> None:
    w = Writer().short(fastpath.LODATA).short(0).int(4).short(6).padded(b"abcdef")
    reply = Reply()
    reply.lo_wanted = 100
    with pytest.raises(ProtocolError, match="SQ_LODATA chunk of 6 bytes in a 4-byte read"):
        parse_reply(w.getvalue() + EOT, 0, reply)


def test_blob_beyond_descriptor_is_protocol_error() -> None:
    reply = Reply()
    reply.blob, reply.blob_limit = ValueSink(4), 4
    with pytest.raises(ProtocolError, match="more than the 4 bytes"):
        parse_reply(_blob_reply(b"abcdef"), 0, reply)


def test_value_sink_grows_and_truncates() -> None:
    sink = ValueSink()
    for k in range(10):
        sink.reserve(3)
        sink += bytes([k]) * 3
    assert sink.getvalue() == b"".join(bytes([k]) * 3 for k in range(10))
    short = ValueSink(100)
    short += b"abc"
    assert short.getvalue() == b"abc" and len(short) == 3


def _int_row(v: int) -> bytes:
    w = Writer()
    write_tuple_header(w, 4)
    return w.getvalue() + v.to_bytes(4, "big")


@pytest.mark.parametrize("step", [1, 5, 999, 32004, 40000, 65537, 70000, 300001, 1 << 20])
def test_session_parses_lob_replies_from_the_transport_buffer(step: int) -> None:
    """ClientSession.receive parses a reply without rows straight from the
    transport's buffer (which the transport reuses at once: here it is
    overwritten after each call); a reply with rows that follows in the
    same bytes still goes through the session's own buffer.  Any split
    gives the same values and rows."""
    blob = bytes(range(256)) * 300 + b"odd"
    smart = bytes(range(253)) * 200 + b"e"
    rows = _int_row(7) + _int_row(8) + EOT
    data = _blob_reply(blob) + _lo_reply(smart) + rows + _blob_reply(blob[:5000])
    s = ClientSession(max_message_size=1 << 16)
    a = s.send(b"A", blob_limit=len(blob), budget=2 * len(blob))
    a.reply.blob = ValueSink(len(blob))
    b = s.send(b"B", budget=2 * len(smart))
    b.reply.lo_wanted, b.reply.lo_sink = len(smart), ValueSink()
    c = s.send(b"C", decode=codecs.make_row_decoder([codecs.parse_type("INTEGER")]),
               budget=1024)
    d = s.send(b"D", blob_limit=5000, budget=20000)
    d.reply.blob = ValueSink(5000)
    scratch = bytearray(step)
    for at in range(0, len(data), step):
        piece = data[at:at + step]
        scratch[:len(piece)] = piece
        with memoryview(scratch) as view:
            s.receive(view[:len(piece)])
        scratch[:] = b"\xee" * len(scratch)      # the transport reuses its buffer
    assert a.done and b.done and c.done and d.done and s.broken is None
    assert a.reply.blob.getvalue() == blob and b.reply.lo_sink.getvalue() == smart
    assert c.reply.rows == [(7,), (8,)] and d.reply.blob.getvalue() == blob[:5000]
    assert not s.awaiting_reply


def test_session_bytes_after_the_last_lob_reply_break_it() -> None:
    s = ClientSession(max_message_size=1 << 16)
    a = s.send(b"A", blob_limit=3, budget=100)
    a.reply.blob = ValueSink(3)
    with pytest.raises(ProtocolError, match="after the last reply"):
        s.receive(memoryview(_blob_reply(b"abc") + b"\x00\x0f"))
    assert s.broken is not None
