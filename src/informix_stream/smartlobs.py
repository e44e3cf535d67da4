"""BLOB/CLOB values and server routines over the fast path (fastpath.py).

A BLOB/CLOB cell arrives as a locator (codec/slob.py).  Its value is read
as IBM's JDBC reads it (``IfxSmartBlob``/``IfxLobInputStream``):
``ifx_lo_open(locator, LO_RDONLY)`` for a descriptor, ``ifx_lo_stat`` for
its size, SQ_LODATA reads to the end (``at_end``), ``ifx_lo_close``.
A locator stays
valid after its cursor moved on (it names the object, not a cursor
position), so a batch is resolved right after it arrives, like BYTE/TEXT.

``call_gen`` is ``Connection.fast_path_call``: SQ_GETROUTINE once per
signature and database (the handle is cached on the session, as JDBC's
``setFPCacheInfo`` caches it per connection), then SQ_EXFPROUTINE.
"""

from __future__ import annotations

import struct
from collections.abc import Generator, Sequence
from typing import Any

from . import codecs, fastpath
from .codec import slob
from .core import statement as st
from .core.session import ClientSession
from .errors import ProtocolError
from .lobsinks import ValueSink

# Bytes asked for by one SQ_LODATA read of a stream (a reader's chunk): large
# enough that round trips do not dominate on loopback.
READ_SIZE = 1 << 20
# ... and of a whole value, whose buffer is sized already: the reply's chunks
# go into it as they arrive, so a larger read costs no memory and saves round
# trips (JDBC reads a whole value with one read of its size, docs/protocol.md
# 8a; a cap keeps one reply within what a server is known to send at once).
VALUE_READ = 16 << 20
OPEN = "function informix.ifx_lo_open(blob ,integer)"
CLOSE = "function informix.ifx_lo_close(integer)"
# JDBC's signature and arguments (``IfxSmartBlob.IfxLoSize``: the descriptor
# and a zeroed 644-byte ``ifx_lo_stat``); the result's size is an ifx_int8 at
# offset 4: [int low][int high][short sign, 0 = NULL] (docs/protocol.md 8a).
STAT = "function informix.ifx_lo_stat(int, ifx_lo_stat)"
_STAT_BYTES = 644
_STAT_SIZE = struct.Struct("!IIh")
# A size ifx_lo_stat gives above this is not used to size a value's buffer
# (JDBC casts it to a Java int too).
_MAX_HINT = (1 << 31) - 1


def param_block(value: object, encoding: str) -> bytes:
    """One routine argument as an SQ_BIND block (a locator as the opaque type)."""
    if isinstance(value, slob.Locator):
        return fastpath.locator_param(value)
    if isinstance(value, StatBuffer):
        return fastpath.udt_param(b"ifx_lo_stat", bytes(_STAT_BYTES))
    return codecs.encode_param(value, encoding)


def call_gen(session: ClientSession, signature: str, params: Sequence[Any]
             ) -> Generator[Any, None, list]:
    """Run routine ``signature`` with ``params``; its values as Python objects."""
    expect = yield from send_call_gen(session, signature, params)
    yield expect
    return _values(session, expect.reply)


def send_call_gen(session: ClientSession, signature: str, params: Sequence[Any]
                  ) -> Generator[Any, None, Any]:
    """Queue a call of ``signature`` (its handle asked first if not cached)
    without waiting for its reply; its Expect, for ``_values``."""
    blocks = [param_block(v, session.encoding) for v in params]
    database, handle = yield from handle_gen(session, signature)
    return session.send(fastpath.ex_fp_routine(database, handle, blocks))


def _values(session: ClientSession, reply) -> list:
    st.raise_for(reply)
    if not isinstance(reply.routine, list):
        _broken(session, "SQ_EXFPROUTINE was answered without SQ_FPROUTINE")
    return [_python(v) for v in reply.routine]


def handle_gen(session: ClientSession, signature: str
               ) -> Generator[Any, None, tuple[bytes, int]]:
    """(database, handle) of routine ``signature``: SQ_GETROUTINE once per
    signature and database, then from the session's cache."""
    cache = session.__dict__.setdefault("fp_handles", {})
    key = (session.database_changes, signature)
    found = cache.get(key)
    if found is None:
        reply = yield from st.exchange(session, fastpath.get_routine(
            signature.encode(session.encoding)))
        if not isinstance(reply.routine, tuple):
            _broken(session, "SQ_GETROUTINE was answered without a routine handle")
        found = cache[key] = reply.routine
    return found


def cached_call(session: ClientSession, signature: str, params: Sequence[Any]) -> bytes | None:
    """The SQ_EXFPROUTINE body of a call whose handle is cached (None if it
    is not): cleanup queued with ``session.owe`` without a round trip."""
    found = session.__dict__.get("fp_handles", {}).get((session.database_changes, signature))
    if found is None:
        return None
    blocks = [param_block(v, session.encoding) for v in params]
    return fastpath.ex_fp_routine(found[0], found[1], blocks)


def _python(v: fastpath.RoutineValue) -> object:
    if v.kind == "udt" and v.name in ("blob", "clob") and v.value is not None:
        return slob.Locator(bytes(v.value), v.name == "clob")
    return v.value


class StatBuffer:
    """The ``ifx_lo_stat`` argument: a zeroed buffer the routine fills."""


def size_gen(session: ClientSession, fd: int) -> Generator[Any, None, int | None]:
    """The open object's size by ``ifx_lo_stat``, as JDBC asks it before
    reading (``IfxLob.loadSmBlob`` and ``IfxLobInputStream``: ``IfxLoSize``);
    None when the answer holds no usable size."""
    values = yield from call_gen(session, STAT, [fd, StatBuffer()])
    return stat_size(values)


def stat_size(values: list) -> int | None:
    """The size in ``ifx_lo_stat``'s answer, or None."""
    raw = values[0] if len(values) == 1 else None
    if not isinstance(raw, (bytes, bytearray)) or len(raw) < 4 + _STAT_SIZE.size:
        return None
    low, high, sign = _STAT_SIZE.unpack_from(raw, 4)
    size = (high << 32) | low
    return size if sign == 1 and size <= _MAX_HINT else None


def read_gen(session: ClientSession, locator: slob.Locator, encoding: str, column: int
             ) -> Generator[Any, None, object]:
    """The whole value of a BLOB (bytes) or CLOB (str): every read's chunks
    go into one buffer, handed out without another copy.

    ``ifx_lo_stat`` goes with the first read (one round trip for both) and
    its size sizes the buffer before the rest arrives: grown by doubling
    instead, a 50 MB value was written about twice over into fresh memory,
    whose page faults cost more than the network (bench/lobs/read_rate.py).
    The size also says where a short read ends the value (``at_end``); a
    stale one never cuts a value short.  ``ifx_lo_close`` rides in front
    of the next request (``ClientSession.owe``), so a small value costs two
    round trips, ``ifx_lo_open`` and the read."""
    yield from handle_gen(session, CLOSE)       # so that closing needs no round trip
    fd = yield from open_gen(session, locator)
    try:
        stat = yield from send_call_gen(session, STAT, [fd, StatBuffer()])
        sink = ValueSink()
        asked = READ_SIZE
        got = yield from read_into_gen(session, fd, asked, sink, 0)
        hint = stat_size(_values(session, stat.reply))
        while not at_end(got, asked, len(sink), hint):
            asked = VALUE_READ
            room = VALUE_READ if hint is None else max(hint - len(sink), 0)
            got = yield from read_into_gen(session, fd, asked, sink, room)
    finally:
        close_later(session, fd)
    return sink.value(locator.text, encoding, column, "CLOB")


def close_later(session: ClientSession, fd: int) -> None:
    """Queue ``ifx_lo_close(fd)`` to go in front of the next request (its
    handle is cached first by whoever opened ``fd``): no I/O here."""
    body = cached_call(session, CLOSE, [fd])
    if body is not None:
        session.owe(body)


def at_end(got: int, asked: int, total: int, size: int | None) -> bool:
    """Whether a read of ``asked`` bytes that gave ``got`` (``total`` so
    far) ended the object.  A read of nothing always does; a short one
    only once the size ``ifx_lo_stat`` gave is reached: JDBC reads up to
    that size (``IfxLob.loadSmBlob``, ``IfxLobInputStream``) and nothing
    says a server never answers a read with less than it asked before the
    end, so a short read alone would risk a value cut short."""
    if got == 0:
        return True
    return got < asked and (size is None or total >= size)


def open_gen(session: ClientSession, locator: slob.Locator) -> Generator[Any, None, int]:
    values = yield from call_gen(session, OPEN, [locator, slob.LO_RDONLY])
    if len(values) != 1 or not isinstance(values[0], int):
        _broken(session, f"ifx_lo_open returned {values!r}")
    return values[0]


def read_into_gen(session: ClientSession, fd: int, n: int, sink: ValueSink,
                  room: int | None = None) -> Generator[Any, None, int]:
    """One SQ_LODATA read of up to ``n`` bytes into ``sink``, copied there as
    they arrive; the bytes read (fewer than ``n``: the object ended).
    ``room``: what to reserve in ``sink`` first (``n`` unless told)."""
    expect = session.send(fastpath.lo_read(fd, n), budget=n + n // 8 + 4096)
    expect.reply.lo_wanted = n
    expect.reply.lo_sink = sink
    sink.reserve(n if room is None else room)
    before = len(sink)
    yield expect
    st.raise_for(expect.reply)
    lo = expect.reply.routine
    if not isinstance(lo, fastpath.LoReply):
        _broken(session, "SQ_LODATA read was answered without SQ_LODATA")
    got = len(sink) - before
    if got != max(lo.size, 0):
        _broken(session, f"SQ_LODATA declared {lo.size} bytes and sent {got}")
    return got


class ViewSink:
    """A sink (``ValueSink``'s ``+=``/``len``/``reserve``) writing into the
    caller's buffer: ``LobStream.readinto`` fills it with no chunk of our
    own in between."""

    __slots__ = ("view", "size")

    def __init__(self, view: memoryview) -> None:
        self.view = view
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def reserve(self, n: int) -> None:
        if self.size + n > len(self.view):
            raise ValueError("a read larger than the buffer")

    def __iadd__(self, data) -> ViewSink:
        end = self.size + len(data)
        if end > len(self.view):
            raise ProtocolError(f"SQ_LODATA sent more than the {len(self.view)} bytes asked for")
        self.view[self.size:end] = data
        self.size = end
        return self


def read_chunk_gen(session: ClientSession, fd: int, n: int) -> Generator[Any, None, bytes]:
    """One SQ_LODATA read of up to ``n`` bytes, as bytes (stream mode)."""
    sink = ValueSink(n)
    yield from read_into_gen(session, fd, n, sink)
    return sink.getvalue()


def resolve_gen(session: ClientSession, rows: list, columns: tuple[int, ...], encoding: str
                ) -> Generator[Any, None, None]:
    """Replace each Locator in ``rows`` (in place) by its value."""
    for i, row in enumerate(rows):
        cells = {k: row[k] for k in columns if isinstance(row[k], slob.Locator)}
        if not cells:
            continue
        out = list(row)
        for k, loc in cells.items():
            out[k] = yield from read_gen(session, loc, encoding, k)
        rows[i] = tuple(out)


def _broken(session: ClientSession, why: str) -> None:
    session.mark_broken(why)
    raise ProtocolError(why)
