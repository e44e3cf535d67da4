"""LOB cells as file-like readers: ``conn.cursor(lob="stream")``.

In stream mode a BYTE, TEXT, BLOB or CLOB cell is a reader (``LobStream``,
``io.RawIOBase``; ``AsyncLobStream`` on asyncio connections) instead of
``bytes``/``str``, so a value of any size is read with memory of one chunk:

* BYTE/TEXT: SQ_FETCHBLOB has no offset (JDBC ``IfxSqli.executeFetchBlob``
  sends only the descriptor) and the descriptor is valid only while its
  cursor is open, so the reply's SQ_BLOB chunks go, as they arrive, to a
  temporary file that the reader then reads (``Spool``; IBM's JDBC does the
  same with its ``LOBCACHE`` setting: values over it are kept in a temporary
  file).  The batch is resolved before it becomes current, as in ``lobs``.
* BLOB/CLOB: the locator names the object, so nothing is read until the
  first ``read``: ``ifx_lo_open``, then one SQ_LODATA read of ``CHUNK`` bytes
  per refill, as JDBC's ``IfxLobInputStream`` reads (``smartlobs``).  The
  server-side descriptor is closed by ``ifx_lo_close`` queued as cleanup
  (``ClientSession.owe``) at the end of the value or at ``close``, so
  closing a reader, even from the garbage collector, does no I/O.

A reader belongs to its cursor's result: once the cursor is closed or runs
another statement, or the connection is closed, every read raises
``InterfaceError``; it never hands out another value's bytes.  TEXT/CLOB
readers give bytes in the session's code set (``encoding``); wrap one in
``io.TextIOWrapper(io.BufferedReader(r), r.encoding)`` for text.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import AsyncIterator, Generator
from typing import Any

from . import lobs, smartlobs
from .codec import slob
from .codec.lob import LobRef
from .core.session import ClientSession
from .errors import InterfaceError, ProgrammingError

MODES = ("value", "stream")
# Bytes one refill asks the server for (a BLOB/CLOB SQ_LODATA read).
CHUNK = smartlobs.READ_SIZE
# Bytes a BYTE/TEXT spool gathers before one write to its file.
SPOOL_WRITE = 1 << 20


def check_mode(lob: str) -> str:
    if lob not in MODES:
        raise ProgrammingError(f"lob must be one of {MODES}, not {lob!r}")
    return lob


class Spool:
    """Where a stream-mode SQ_FETCHBLOB reply's chunks go (``lobs.resolve_gen``
    appends with ``+=`` and checks ``len``): an unnamed temporary file,
    written ``SPOOL_WRITE`` bytes at a time.  The reply's chunks are 32000
    bytes or less, and one write per chunk cost three times what 1 MiB
    writes cost (a 50 MB value: 30 ms against 9, bench/lobs/read_rate.py)."""

    __slots__ = ("file", "size", "ref", "_pending", "_view", "_fill")

    def __init__(self, ref: LobRef) -> None:
        self.file = tempfile.TemporaryFile()
        self.size = 0
        self.ref = ref
        self._pending: bytearray | None = None   # allocated with the first chunk
        self._view: memoryview | None = None
        self._fill = 0

    def __len__(self) -> int:
        return self.size

    def __iadd__(self, data) -> Spool:
        n = len(data)
        if self._view is None:
            if n >= SPOOL_WRITE:
                self.file.write(data)
                self.size += n
                return self
            self._pending = bytearray(SPOOL_WRITE)
            self._view = memoryview(self._pending)
        at, view = self._fill, self._view
        if at + n > SPOOL_WRITE:
            self.file.write(view[:at])
            at = 0
            if n >= SPOOL_WRITE:
                self.file.write(data)
                self.size += n
                self._fill = 0
                return self
        view[at:at + n] = data
        self._fill = at + n
        self.size += n
        return self

    def finish(self):
        """The file, holding every byte appended, at its start; the write
        buffer is given up."""
        view, self._view, self._pending = self._view, None, None
        if view is not None:
            with view:
                self.file.write(view[:self._fill])
        self._fill = 0
        self.file.seek(0)
        return self.file


class _Source:
    """Where a reader's bytes come from; ``read_gen`` is an operation."""

    def read_gen(self, n: int) -> Generator[Any, None, bytes]:
        raise NotImplementedError

    def discard(self) -> None:
        """Give up the value without I/O."""


class _SpoolSource(_Source):
    def __init__(self, spool: Spool) -> None:
        self.file = spool.finish()

    def read_gen(self, n: int) -> Generator[Any, None, bytes]:
        return self.file.read(n)
        yield  # noqa: unreachable - makes this a generator like the others

    def discard(self) -> None:
        self.file.close()


class _SmartSource(_Source):
    """A BLOB/CLOB read through ``ifx_lo_open``/SQ_LODATA (``smartlobs``)."""

    def __init__(self, session: ClientSession, locator: slob.Locator) -> None:
        self.session = session
        self.locator = locator
        self.fd: int | None = None
        self.ended = False
        self.size: int | None = None     # ifx_lo_stat's, at open
        self.total = 0

    def read_gen(self, n: int) -> Generator[Any, None, bytes]:
        if self.ended:
            return b""
        yield from self._open_gen()
        data = yield from smartlobs.read_chunk_gen(self.session, self.fd, n)
        self._note(len(data), n)
        return data

    def readinto_gen(self, view: memoryview) -> Generator[Any, None, int]:
        if self.ended:
            return 0
        yield from self._open_gen()
        got = yield from smartlobs.read_into_gen(self.session, self.fd, len(view),
                                                 smartlobs.ViewSink(view))
        self._note(got, len(view))
        return got

    def _open_gen(self) -> Generator[Any, None, None]:
        if self.fd is None:
            # the close routine's handle first, so that closing needs no round trip
            yield from smartlobs.handle_gen(self.session, smartlobs.CLOSE)
            self.fd = yield from smartlobs.open_gen(self.session, self.locator)
            # the size tells a short read at the end from one before it
            # (smartlobs.at_end), as JDBC's IfxLobInputStream asks it at open
            self.size = yield from smartlobs.size_gen(self.session, self.fd)

    def _note(self, got: int, asked: int) -> None:
        self.total += got
        if smartlobs.at_end(got, asked, self.total, self.size):
            self.ended = True
            self.discard()

    def discard(self) -> None:
        self.ended = True
        fd, self.fd = self.fd, None
        if fd is not None:
            smartlobs.close_later(self.session, fd)


class _Reader:
    """What both readers share: the buffer, the checks, the invalidation."""

    def _setup(self, cursor, source: _Source, text: bool, size: int | None) -> None:
        self._cursor = cursor
        self._source = source
        self._buf = b""
        self._at = 0
        self._gone: str | None = None
        self.text = text
        self.encoding = cursor._session.encoding
        self.size = size            # bytes, when the row said (BYTE/TEXT)
        cursor._lob_streams.add(self)

    def invalidate(self, why: str) -> None:
        """The cursor's result is gone: later reads raise, saying ``why``."""
        if self._gone is None:
            self._gone = why
            self._buf = b""
            self._source.discard()

    def _check(self) -> None:
        if self._gone is not None:
            raise InterfaceError(f"this LOB stream cannot be read: {self._gone}")
        self._cursor._session.check()

    def _read_plan(self, size: int | None):
        """``(bytes, None)`` when the buffer answers a read of ``size`` without
        I/O, else ``(None, generator)`` for the connection to run: one place
        for what the blocking and the asyncio ``read`` decide alike."""
        n = -1 if size is None or size < 0 else size
        if n == 0:
            return b"", None
        got = self._take(n) if n >= 0 else None
        if got is not None:
            return got, None
        return None, (self._readall_gen() if n < 0 else self._refill_gen(n))

    def _take(self, n: int) -> bytes | None:
        """Up to ``n`` buffered bytes, or None when the buffer is empty."""
        buf, at = self._buf, self._at
        if at >= len(buf):
            return None
        if n < 0 or n >= len(buf) - at:
            self._buf, self._at = b"", 0
            return buf[at:] if at else buf
        self._at = at + n
        return buf[at:at + n]

    def _refill_gen(self, n: int) -> Generator[Any, None, bytes]:
        """Read from the source: at least a chunk, more when asked for more."""
        data = yield from self._source.read_gen(max(n, CHUNK))
        if n < 0 or len(data) <= n:
            return data
        self._buf, self._at = data, n
        return data[:n]

    def _readall_gen(self) -> Generator[Any, None, bytes]:
        parts = [self._take(-1) or b""]
        while data := (yield from self._source.read_gen(CHUNK)):
            parts.append(data)
        return b"".join(parts)


class LobStream(_Reader, io.RawIOBase):
    """A LOB cell read in chunks with blocking I/O (module docstring)."""

    def __init__(self, cursor, source: _Source, text: bool, size: int | None) -> None:
        io.RawIOBase.__init__(self)
        self._setup(cursor, source, text, size)

    def readable(self) -> bool:
        return True

    def __repr__(self) -> str:
        kind = ("TEXT" if self.text else "BYTE") if self.size is not None else (
            "CLOB" if self.text else "BLOB")
        return f"<LobStream {kind}{'' if self.size is None else f' {self.size} bytes'}>"

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all that is left when ``size`` is -1/None);
        b"" at the end."""
        self._check_closed()
        self._check()
        got, gen = self._read_plan(size)
        return got if gen is None else self._cursor.connection._wait(gen)

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer) -> int:
        """Into ``buffer``; a BLOB/CLOB read lands there directly (no chunk
        of ours in between) when nothing is buffered."""
        view = memoryview(buffer).cast("B")
        direct = getattr(self._source, "readinto_gen", None)
        if direct is None or not view or self._at < len(self._buf):
            data = self.read(len(view))
            view[:len(data)] = data
            return len(data)
        self._check_closed()
        self._check()
        return self._cursor.connection._wait(direct(view[:CHUNK]))

    def __iter__(self):
        """The value chunk by chunk (not line by line: a LOB is not text lines)."""
        while chunk := self.read(CHUNK):
            yield chunk

    def __next__(self) -> bytes:
        chunk = self.read(CHUNK)
        if not chunk:
            raise StopIteration
        return chunk

    def close(self) -> None:
        """No I/O: a BLOB/CLOB's server descriptor is closed with the next request."""
        if not self.closed:
            self.invalidate("it was closed")
        io.RawIOBase.close(self)

    def _check_closed(self) -> None:
        if self.closed:
            raise InterfaceError("this LOB stream cannot be read: it was closed")


class AsyncLobStream(_Reader):
    """A LOB cell read in chunks on an asyncio connection: ``await read(n)``,
    ``async for chunk in stream``; ``close()`` does no I/O."""

    def __init__(self, cursor, source: _Source, text: bool, size: int | None) -> None:
        self.closed = False
        self._setup(cursor, source, text, size)

    async def read(self, size: int | None = -1) -> bytes:
        self._check()
        got, gen = self._read_plan(size)
        return got if gen is None else await self._cursor.connection._wait(gen)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while chunk := await self.read(CHUNK):
            yield chunk

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.invalidate("it was closed")

    def __enter__(self) -> AsyncLobStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_gen(cursor, rows: list, columns: tuple[int, ...], stream_class: type
                ) -> Generator[Any, None, None]:
    """Replace each LOB cell of ``rows`` (in place) by a reader: BYTE/TEXT
    spooled now, while the cursor is open; BLOB/CLOB read later."""
    session = cursor._session
    yield from lobs.resolve_gen(session, cursor._stmt_id, rows, columns, session.encoding,
                                spool=Spool)
    for i, row in enumerate(rows):
        if not any(isinstance(row[k], (Spool, slob.Locator)) for k in columns):
            continue
        out = list(row)
        for k in columns:
            cell = out[k]
            if isinstance(cell, Spool):
                out[k] = stream_class(cursor, _SpoolSource(cell), cell.ref.text, cell.size)
            elif isinstance(cell, slob.Locator):
                out[k] = stream_class(cursor, _SmartSource(session, cell), cell.text, None)
        rows[i] = tuple(out)
