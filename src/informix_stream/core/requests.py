"""Request bodies the client sends, one builder per message sequence.

Each function returns the bytes of a request without its SQ_EOT (the session
adds it, with any cleanup in front).  Layouts are in docs/protocol.md; the
sequences are the ones both reference clients send (wire conformance test).
"""

from __future__ import annotations

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
    return Writer().short(Tag.ID).short(stmt_id).getvalue()


def prepare(sql: bytes, markers: int) -> bytes:
    """PREPARE with the client's marker count, asking for DESCRIBE and DONE."""
    w = Writer().short(Tag.PREPARE).short(markers)
    w.int(len(sql)).padded(sql).short(Tag.NDESCRIBE).short(Tag.WANTDONE)
    return w.getvalue()


def bind(encoded: list[bytes]) -> bytes:
    """SQ_BIND with the already-encoded parameter blocks (nothing if none)."""
    if not encoded:
        return b""
    w = Writer().short(Tag.BIND).short(len(encoded))
    for block in encoded:
        w.raw(block)
    return w.getvalue()


def execute(stmt_id: int, encoded: list[bytes], release: bool = True) -> bytes:
    """BIND + EXECUTE of a prepared non-SELECT, then RELEASE when asked."""
    body = statement_id(stmt_id) + bind(encoded) + EXECUTE
    return body + RELEASE if release else body


def bind_execute_prefix(stmt_id: int) -> bytes:
    """What every row of a pipelined executemany starts with."""
    return statement_id(stmt_id)


def open_cursor(stmt_id: int, name: bytes, encoded: list[bytes], *, scroll: bool,
                hold: bool, first_fetch: int | None) -> bytes:
    """CURNAME + BIND + [SCROLL] + [HOLD] + OPEN, then the first NFETCH when
    asked (repeating SQ_ID before it, as both reference clients do)."""
    w = Writer().short(Tag.ID).short(stmt_id).short(Tag.CURNAME).short_string(name)
    w.raw(bind(encoded))
    if scroll:
        w.short(Tag.SCROLL)
    if hold:
        w.short(Tag.HOLD)
    w.short(Tag.OPEN)
    if first_fetch is not None:
        w.raw(nfetch(stmt_id, first_fetch))
    return w.getvalue()


def nfetch(stmt_id: int, bufsize: int) -> bytes:
    w = Writer().short(Tag.ID).short(stmt_id).short(Tag.NFETCH)
    return w.int(bufsize).short(0).getvalue()


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
