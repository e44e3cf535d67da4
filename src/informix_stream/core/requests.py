"""Request bodies the client sends, one builder per message sequence.

Each function returns the bytes of a request without its SQ_EOT (the session
adds it, with any cleanup in front).  Layouts are in docs/protocol.md; the
sequences are the ones both reference clients send (wire conformance test).
"""

from __future__ import annotations

import struct

from itertools import chain

from ..codec.lob import LobBlock, bbind_header, lob_messages
from ..errors import InterfaceError
from ..framing import Writer
from ..messages import Tag

CLOSE = Writer().short(Tag.CLOSE).getvalue()
RELEASE = Writer().short(Tag.RELEASE).getvalue()
EXECUTE = Writer().short(Tag.EXECUTE).getvalue()
COMMIT = Writer().short(Tag.CMMTWORK).getvalue()
ROLLBACK = Writer().short(Tag.RBWORK).short(0).getvalue()
EXIT = Writer().short(Tag.EXIT).getvalue()
NOTHING = b""

# SFETCH scroll types (IfxSqli's sendFetch).
SCROLL_ABSOLUTE, SCROLL_LAST = 6, 4


def statement_id(stmt_id: int) -> bytes:
    return _ID.pack(Tag.ID, stmt_id)


_ID = struct.Struct("!hh")


def prepare(sql: bytes, markers: int) -> bytes:
    """PREPARE with the client's marker count, asking for DESCRIBE and DONE."""
    w = Writer().short(Tag.PREPARE).short(markers)
    w.int(len(sql)).padded(sql).short(Tag.NDESCRIBE).short(Tag.WANTDONE)
    return w.getvalue()


# LOB contents up to this size go into the request as bytes; larger ones, and
# streams, go out piece by piece (a Streamed body).
INLINE_LOB_BYTES = 1 << 20


class Streamed:
    """A request body sent as it is produced: ``head``, then the pieces of
    ``parts`` (read only when the transport has room), then ``tail``."""

    __slots__ = ("head", "parts", "tail")

    def __init__(self, head: bytes, parts, tail: bytes) -> None:
        self.head, self.parts, self.tail = head, parts, tail


def body_size(body: bytes | Streamed) -> int:
    """Bytes of a request body known before it is sent (a Streamed body's
    LOB contents are not counted: they are produced while it goes out)."""
    if isinstance(body, Streamed):
        return len(body.head) + len(body.tail)
    return len(body)


def lob_blocks(encoded: list[bytes]) -> list[LobBlock]:
    return [b for b in encoded if type(b) is LobBlock]


def blob_contents(lobs: list[LobBlock]) -> bytes:
    """SQ_BBIND with every LOB's chunks, as bytes (streams read whole)."""
    if not lobs:
        return b""
    return bbind_header(len(lobs)) + b"".join(chain.from_iterable(map(lob_messages, lobs)))


def with_blobs(head: bytes, encoded: list[bytes], tail: bytes) -> bytes | Streamed:
    """``head`` (ending with the SQ_BIND), the SQ_BBIND contents of its LOB
    parameters, ``tail``: as bytes when small, else as a Streamed body."""
    lobs = lob_blocks(encoded)
    if not lobs:
        return head + tail
    if all(not b.streamed and len(b.data) <= INLINE_LOB_BYTES for b in lobs):
        return head + blob_contents(lobs) + tail
    for b in lobs:
        if b.streamed:
            if b.used:
                # e.g. a statement prepared again after -710: the stream was
                # read by the first attempt and cannot be read again
                raise InterfaceError("a file-like or iterator LOB parameter was already "
                                     "sent once and cannot be read again")
            b.used = True
    return Streamed(head + bbind_header(len(lobs)),
                    chain.from_iterable(map(lob_messages, lobs)), tail)


def fetch_blob(stmt_id: int, descriptor: bytes) -> bytes:
    """SQ_ID + SQ_FETCHBLOB with the row's 56-byte descriptor (JDBC
    ``IfxSqli.sendFetchBlob``)."""
    return statement_id(stmt_id) + Writer().short(Tag.FETCHBLOB).raw(descriptor).getvalue()


def bind(encoded: list[bytes]) -> bytes:
    """SQ_BIND with the already-encoded parameter blocks (nothing if none)."""
    if not encoded:
        return b""
    w = Writer().short(Tag.BIND).short(len(encoded))
    for block in encoded:
        w.raw(block)
    return w.getvalue()


def execute(stmt_id: int, encoded: list[bytes], release: bool = True) -> bytes | Streamed:
    """BIND (+ BBIND) + EXECUTE of a prepared non-SELECT, then RELEASE when asked."""
    return with_blobs(statement_id(stmt_id) + bind(encoded),
                      encoded, EXECUTE + RELEASE if release else EXECUTE)


def bind_execute_prefix(stmt_id: int) -> bytes:
    """What every row of a pipelined executemany starts with."""
    return statement_id(stmt_id)


def open_cursor(stmt_id: int, name: bytes, encoded: list[bytes], *, scroll: bool,
                hold: bool, first_fetch: int | None) -> bytes | Streamed:
    """CURNAME + BIND (+ BBIND) + [SCROLL] + [HOLD] + OPEN, then the first
    NFETCH when asked (repeating SQ_ID before it, as both reference clients do)."""
    head = (_ID_CURNAME.pack(Tag.ID, stmt_id, Tag.CURNAME, len(name)) + name
            + b"\x00" * (len(name) & 1) + bind(encoded))
    tail = _OPEN_FLAGS[scroll, hold]
    if first_fetch is not None:
        tail += nfetch(stmt_id, first_fetch)
    return with_blobs(head, encoded, tail) if encoded else head + tail


# [SQ_ID id][SQ_CURNAME][short len] of open_cursor, and its [SCROLL][HOLD]OPEN
# tails: the per-execute request of a cached SELECT is built by two packs.
_ID_CURNAME = struct.Struct("!hhhh")
_OPEN_FLAGS = {(scroll, hold): (struct.pack("!h", Tag.SCROLL) * scroll
                                + struct.pack("!h", Tag.HOLD) * hold
                                + struct.pack("!h", Tag.OPEN))
               for scroll in (False, True) for hold in (False, True)}
_NFETCH = struct.Struct("!hhhih")


def nfetch(stmt_id: int, bufsize: int) -> bytes:
    return _NFETCH.pack(Tag.ID, stmt_id, Tag.NFETCH, bufsize, 0)


def sfetch(stmt_id: int, kind: int, target: int, bufsize: int) -> bytes:
    w = Writer().short(Tag.ID).short(stmt_id).short(Tag.SFETCH)
    return w.short(kind).int(target).int(bufsize).getvalue()


def release(stmt_id: int, cursor_open: bool) -> bytes:
    """CLOSE (when a cursor is open) and RELEASE of one statement."""
    body = statement_id(stmt_id)
    return body + (CLOSE + RELEASE if cursor_open else RELEASE)


def close_only(stmt_id: int) -> bytes:
    return statement_id(stmt_id) + CLOSE


def release_only(stmt_id: int) -> bytes:
    return statement_id(stmt_id) + RELEASE


def protocols(mask: bytes) -> bytes:
    return Writer().short(Tag.PROTOCOLS).short_string(mask).getvalue()


def dbopen(name: bytes) -> bytes:
    return Writer().short(Tag.DBOPEN).short_string(name).short(0).getvalue()
