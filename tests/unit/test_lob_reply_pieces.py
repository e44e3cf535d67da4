"""LOB replies parsed piece by piece (messages.parse_reply's SQ_BLOB and
SQ_LODATA paths, ValueSink): any split of the bytes gives the same value,
the receive buffer stays resizable, and a reply that is not what it
declared is a ProtocolError, never a short or shifted value."""

from __future__ import annotations

import pytest

from informix_stream import fastpath
from informix_stream.codec import lob, slob
from informix_stream.errors import ProtocolError
from informix_stream.framing import Writer
from informix_stream.messages import Reply, ValueSink, parse_reply

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
