"""Receive one large request in pieces, LOB contents spooled to disk.

The server normally holds a whole request before parsing it (cheap for the
small requests that are nearly all of them).  A request that grows past
``SPOOL_AT`` unparsed bytes is taken over by a ``RequestSpool``: its
messages are parsed one at a time as they arrive, and the contents of
SQ_BBIND's SQ_BLOB chunks and of an SQ_LODATA write's chunks go to an
anonymous temporary file as each chunk arrives, so the server's receive
buffer stays at a few chunks however large the LOB -- a real server takes
BYTE/TEXT values of any size (IBM: a TEXT or BYTE column holds up to 2^31
bytes, "Informix Guide to SQL: Reference", BYTE data type).  The request is
executed when its SQ_EOT arrives; a client that leaves before that has
nothing executed, and the spool files, unlinked from creation, vanish when
``close`` runs (or with the process).

The chunk layouts are those ``messages._parse_blob_bind`` and
``fastpath.parse_lo_data`` read whole (docs/protocol.md 10.5, 10.6); this is
their incremental form, used only for requests over ``SPOOL_AT``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from typing import IO

from ..errors import ProtocolError
from ..fastpath import LoData
from ..framing import Incomplete, Reader
from ..messages import BlobBind, Tag, parse_message
from .statements import SqlError

# -609 "Illegal attempt to use Text/Byte host variable." (IBM JDBC 15.0.1.0
# message catalog, sql_en_US.properties)
BAD_HOST_VARIABLE = -609

# Unparsed bytes of one request after which it is received in pieces.
SPOOL_AT = 4 * 1024 * 1024
_LO_WRITE = 2
# What one spool write collects before going to the file: fewer, larger
# writes than one per 1 KiB chunk; still a bounded amount of memory.
_FLUSH_AT = 256 * 1024


class SpooledValue:
    """A LOB value's bytes in an anonymous temporary file.

    ``read()`` materializes them (the engine binds values as ``bytes``);
    ``chunks()`` yields them a piece at a time for writers that can take
    them so (smart LOB storage).  ``close()`` frees the file.
    """

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="ifx-spool-")
        self._held = bytearray()
        self.size = 0

    def write(self, data: memoryview | bytes) -> None:
        self._held += data
        self.size += len(data)
        if len(self._held) >= _FLUSH_AT:
            self._flush()

    def _flush(self) -> None:
        if self._held:
            self._file.write(self._held)
            self._held.clear()

    def __len__(self) -> int:
        return self.size

    def read(self) -> bytes:
        """The whole value (one copy, read straight into a bytes object)."""
        return b"".join(self.chunks(max(self.size, 1)))

    def chunks(self, size: int = 1024 * 1024):
        """The value in pieces of at most ``size`` bytes."""
        if self._file.closed:
            # The spool files go with their request (RequestSpool.close): an
            # EXECUTE sent again without its SQ_BBIND has no contents.
            raise SqlError(BAD_HOST_VARIABLE, 0, "", "the BYTE/TEXT value was sent with an "
                                                     "earlier request; bind it again")
        self._flush()
        self._file.seek(0)
        left = self.size
        while left > 0:
            piece = self._file.read(min(size, left))
            if not piece:
                raise OSError("the LOB spool file ended early")
            left -= len(piece)
            yield piece

    def close(self) -> None:
        self._held = bytearray()
        self._file.close()


class RequestSpool:
    """One request parsed as it arrives (see the module docstring).

    ``feed(buf, pos)`` consumes what it can of ``buf[pos:]`` and returns the
    new position; ``done`` is set once the SQ_EOT (or a bare SQ_EXIT) has
    been consumed, and ``messages`` is the request as ``parse_request``
    would give it, LOB contents as ``SpooledValue`` objects.  ``recorded``
    holds the request's bytes less its LOB messages (for ``on_request``).
    """

    def __init__(self, read_param: Callable, record: bool = False) -> None:
        self.read_param = read_param
        self.messages: list = []
        self.values: list[SpooledValue] = []
        self.done = False
        self.recorded: bytearray | None = bytearray() if record else None
        self._step: Callable[[Reader], None] = self._next_message
        self._left = 0                   # values (SQ_BBIND) or bytes (SQ_LODATA) to come
        self._bind: list = []            # SQ_BBIND's values so far
        self._lo: tuple[int, int, int] = (0, 0, 0)   # SQ_LODATA's sub, fd, length

    def feed(self, buf: bytearray, pos: int) -> int:
        """Consume complete units of ``buf[pos:]``; the position after them."""
        r = Reader(buf, pos)
        while not self.done:
            start = r.pos
            try:
                self._step(r)
            except Incomplete:
                return start
            if self.recorded is not None and self._step == self._next_message:
                self.recorded += buf[start:r.pos]     # LOB messages left out
        return r.pos

    def close(self) -> None:
        """Free every spool file (the request ran, failed, or was abandoned)."""
        for value in self.values:
            value.close()
        self.values.clear()

    # -- steps: each consumes one unit or raises Incomplete having consumed nothing
    def _next_message(self, r: Reader) -> None:
        start = r.pos
        tag = r.short()
        if tag == Tag.BBIND:
            count = r.short()
            if count < 0:
                raise ProtocolError(f"negative blob count {count}")
            self._bind, self._left = [], count
            self._start_value()
            return
        if tag == Tag.LODATA:
            sub, fd, length, _bufsize = r.short(), r.short(), r.int(), r.short()
            if sub == _LO_WRITE:
                if length < 0:
                    raise ProtocolError(f"SQ_LODATA write of {length} bytes")
                self._lo, self._left = (sub, fd, length), length
                self.values.append(SpooledValue())
                self._step = self._lo_chunk
                self._lo_chunk_done_check()
                return
        msg, end = parse_message(r.buf, start, self.read_param)
        r.pos = end
        if msg is Tag.EOT:
            self.done = True
            return
        self.messages.append(msg)
        if msg is Tag.EXIT:
            self.done = True

    def _start_value(self) -> None:
        if self._left == 0:
            self.messages.append(BlobBind(self._bind))
            self._step = self._next_message
            return
        value = SpooledValue()
        self.values.append(value)
        self._bind.append(value)
        self._step = self._blob_chunk

    def _blob_chunk(self, r: Reader) -> None:
        """``[short 39][short n][n bytes][pad]``; n == 0 ends the value."""
        tag, n = r.short(), r.short()
        if tag != Tag.BLOB or n < 0:
            raise ProtocolError(f"SQ_BBIND carries message {tag} (length {n}), "
                                "not an SQ_BLOB chunk")
        if n == 0:
            self._left -= 1
            self._start_value()
            return
        at = r.pos
        r.padded_skip(n)
        with memoryview(r.buf) as view:
            self._bind[-1].write(view[at:at + n])

    def _lo_chunk(self, r: Reader) -> None:
        """``[short n][n bytes][pad]`` until the write's length has come."""
        n = r.short()
        if n <= 0 or n > self._left:
            raise ProtocolError(f"SQ_LODATA chunk of {n} bytes with {self._left} to come")
        at = r.pos
        r.padded_skip(n)
        with memoryview(r.buf) as view:
            self.values[-1].write(view[at:at + n])
        self._left -= n
        self._lo_chunk_done_check()

    def _lo_chunk_done_check(self) -> None:
        if self._left == 0:
            sub, fd, length = self._lo
            self.messages.append(LoData(sub, fd, length, self.values[-1]))
            self._step = self._next_message
