"""Large LOB contents sent to a client a piece at a time, never held whole.

An SQ_FETCHBLOB reply (BYTE/TEXT) or an SQ_LODATA read (BLOB/CLOB) over
``STREAM_AT`` bytes is not written into the request's reply: its handler
checks what a real server checks first (the descriptor names a stored value
of its declared size; the object is open), opens an SQLite incremental blob
handle on the value, and hands the session a generator of framed pieces.
The server sends the reply's bytes up to that point, then the pieces as
they are read, then the rest (``send``).  A 200 MB value used to be in the
emulator's memory three or four times over (SQLite's copy, the ``bytes``
read, the framed reply, the joined burst); now it is a piece at a time.

The blob handle is opened before the handler returns and stays open until
the last piece is read: an open handle is an active statement of the
session's SQLite connection, so the value is read from one snapshot (WAL)
however long the client takes, and nothing else runs on that connection in
the meantime (a session answers one request at a time).  The value can
therefore neither change nor vanish half way; if reading still fails, the
connection ends (part of the reply is on the wire, no error can follow it),
which the client sees as a broken connection, never as short or wrong bytes.
"""

from __future__ import annotations

import socket
import sqlite3
import struct
from collections.abc import Iterator

from ..codec import lob, slob

# Contents above this go out in pieces; below it, in the reply as before.
STREAM_AT = 1024 * 1024
# Bytes read from SQLite per piece: a whole number of wire chunks.
_BYTE_PIECE = 8 * lob.SERVE_CHUNK
_LO_PIECE = 8 * slob.LO_CHUNK
_HEAD = struct.Struct("!hh")
_SHORT = struct.Struct("!h")


class Pieces:
    """Framed contents read from an open blob handle, and that handle:
    ``close`` releases it whether or not the pieces were all read.
    ``size``: the bytes of contents they carry."""

    def __init__(self, blob: sqlite3.Blob, pieces: Iterator[bytes | bytearray],
                 size: int) -> None:
        self._blob = blob
        self._pieces = pieces
        self.size = size

    def __iter__(self) -> Iterator[bytes | bytearray]:
        return self._pieces

    def close(self) -> None:
        self._pieces.close()
        self._blob.close()


def blob_chunks(blob: sqlite3.Blob) -> Pieces:
    """SQ_FETCHBLOB's SQ_BLOB chunks of the whole value, then the
    zero-length one (the layout blobs.write_chunks writes)."""
    return Pieces(blob, _blob_pieces(blob), len(blob))


def _blob_pieces(blob: sqlite3.Blob) -> Iterator[bytes | bytearray]:
    left = len(blob)
    while left:
        data = blob.read(min(_BYTE_PIECE, left))
        if not data:
            raise OSError("the stored BYTE/TEXT value ended early")
        left -= len(data)
        yield _framed(data, lob.SERVE_CHUNK, _HEAD, lob.TAG_BLOB)
    yield lob.BLOB_END


def lo_chunks(blob: sqlite3.Blob, pos: int, n: int) -> Pieces:
    """The pieces of an SQ_LODATA read of ``n`` > 0 bytes at ``pos`` (the
    layout fastpath.write_lo_read writes after its header)."""
    return Pieces(blob, _lo_pieces(blob, pos, n), n)


def _lo_pieces(blob: sqlite3.Blob, pos: int, n: int) -> Iterator[bytearray]:
    blob.seek(pos)
    while n:
        data = blob.read(min(_LO_PIECE, n))
        if not data:
            raise OSError("the stored smart large object ended early")
        n -= len(data)
        yield _framed(data, slob.LO_CHUNK, _SHORT)


def _framed(data: bytes, chunk: int, head: struct.Struct, *tag: int) -> bytearray:
    """``data`` cut into ``[head][chunk][pad]`` messages."""
    out = bytearray()
    view = memoryview(data)
    for at in range(0, len(view), chunk):
        part = view[at:at + chunk]
        out += head.pack(*tag, len(part))
        out += part
        if len(part) & 1:
            out.append(0)
    return out


def send(conn: socket.socket, reply: bytes, streams: list[tuple[int, Pieces]]) -> None:
    """Send ``reply`` with each stream's pieces at its offset; every stream
    is closed (its blob handle with it) whatever happens."""
    try:
        view = memoryview(reply)
        at = 0
        for offset, pieces in streams:
            conn.sendall(view[at:offset])
            at = offset
            for piece in pieces:
                conn.sendall(piece)
        conn.sendall(view[at:])
    finally:
        for _, pieces in streams:
            pieces.close()
