"""PEP 249 cursors: streaming by default, materializing or scrollable on request.

A streaming cursor holds one fetch buffer of rows: ``execute`` prepares and
opens the server cursor and fetches the first batch in the same request as the
OPEN; later batches come with SQ_NFETCH when the caller has consumed the
current one.  Statement cleanup (CLOSE + RELEASE) is owed to the server when
the result ends or the caller moves on; it rides at the front of the next
request this connection sends instead of costing a round trip of its own, so
a SELECT that fits in one buffer costs two round trips.

Round trips per operation (the cost that matters on a real network):
* SELECT: PREPARE, then OPEN + first NFETCH; one NFETCH per further buffer.
* DML/DDL: PREPARE, then BIND + EXECUTE + RELEASE.
* closing a stream early: one round trip (CLOSE + RELEASE), never a drain.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from . import codecs
from .connection import DB_LOGGED, raise_for
from .errors import (DataError, InterfaceError, NotSupportedError,
                     ProgrammingError)
from .framing import Writer
from .messages import StmtType, Tag
from .placeholders import convert, first_keyword

# Statement types after which the session is inside / outside a transaction.
_TX_OPENERS = {StmtType.BEGIN_WORK}
_TX_CLOSERS = {StmtType.COMMIT, StmtType.ROLLBACK, StmtType.DATABASE,
               StmtType.CLOSE_DATABASE}
# Statements that must not be preceded by an implicit SQ_BEGIN.
_NO_IMPLICIT_BEGIN = {"BEGIN", "COMMIT", "ROLLBACK", "DATABASE", "CLOSE",
                      "CREATE DATABASE", "SAVEPOINT"}

_CLOSE = Writer().short(Tag.CLOSE).getvalue()
_RELEASE = Writer().short(Tag.RELEASE).getvalue()

# SFETCH scroll types.
_SCROLL_ABSOLUTE, _SCROLL_LAST = 6, 4


def encode_params(params: Sequence[Any], order: list[int] | None, count: int) -> list[bytes]:
    """Encode every bound value before anything is sent, so bad input costs nothing."""
    if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
        raise ProgrammingError("parameters must be a sequence (tuple or list)")
    needed = (max(order) + 1) if order else count
    if len(params) != needed:
        raise ProgrammingError(f"statement needs {needed} parameters, {len(params)} given")
    values = [params[i] for i in order] if order else params
    out = []
    for index, value in enumerate(values):
        try:
            out.append(codecs.encode_param(value))
        except (TypeError, ValueError, OverflowError) as exc:
            cls = ProgrammingError if isinstance(exc, TypeError) else DataError
            raise cls(f"parameter {index + 1}: {exc}") from exc
    return out


def _bind(w: Writer, encoded: list[bytes]) -> None:
    if encoded:
        w.short(Tag.BIND).short(len(encoded))
        for block in encoded:
            w.raw(block)


def release_request(stmt_id: int, cursor_open: bool) -> bytes:
    w = Writer().short(Tag.ID).short(stmt_id)
    if cursor_open:
        w.short(Tag.CLOSE)
    return w.short(Tag.RELEASE).getvalue()


class Cursor:
    """A PEP 249 cursor over one connection."""

    def __init__(self, conn, *, materialize: bool = False, scrollable: bool = False,
                 fetch_buffer_size: int, read_ahead: bool = True) -> None:
        if materialize and scrollable:
            raise ProgrammingError("a cursor is either materializing or scrollable, not both")
        self.connection = conn
        self.arraysize = 1
        self.materialize = materialize
        self.scrollable = scrollable
        self.fetch_buffer_size = fetch_buffer_size
        self.description: list[tuple] | None = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self._closed = False
        self._stmt_id: int | None = None
        self._open = False            # server-side cursor open
        self._exhausted = True
        self._batch: list = []
        self._pos = 0
        self._delivered = 0
        self._decode = None
        self._position = 0            # scrollable: 1-based row last returned
        self._total: int | None = None
        self.read_ahead = read_ahead and not scrollable
        self._inflight = 0            # our NFETCHes whose replies are not read yet
        self._absorbed: deque = deque()   # replies the connection read for us
        self._finalizer = weakref.finalize(self, _Cleanup.run, _Cleanup(conn))

    # -- execution -------------------------------------------------------------
    def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> Cursor:
        self._check_open()
        self._reset()
        sql, order, count = convert(operation)
        encoded = encode_params(parameters or (), order, count) if (parameters or count) else []
        describe = self._prepare(sql, count)
        if describe.stmt_type == StmtType.SELECT or (
                describe.stmt_type == StmtType.EXECUTE_PROCEDURE and describe.columns):
            self._open_cursor(describe, encoded)
        else:
            self._execute_statement(describe, encoded)
        return self

    def executemany(self, operation: str, seq_of_parameters, *, chunk_size: int | None = None,
                    chunk_bytes: int | None = None, commit_every_chunk: bool = False) -> Cursor:
        """Pipelined in chunks; see ``informix_stream.executemany``."""
        from . import executemany as em
        self._check_open()
        self._reset()
        em.execute_many(self, operation, seq_of_parameters,
                        chunk_size=chunk_size or em.DEFAULT_CHUNK_SIZE,
                        chunk_bytes=chunk_bytes or em.DEFAULT_CHUNK_BYTES,
                        commit_every_chunk=commit_every_chunk)
        return self

    def _prepare(self, sql: str, count: int):
        conn = self.connection
        w = Writer().short(Tag.PREPARE).short(count)
        data = sql.encode("iso-8859-1", errors="strict")
        w.int(len(data)).padded(data).short(Tag.NDESCRIBE).short(Tag.WANTDONE)
        begin = not _starts_session_statement(sql)
        reply = conn.request(w, begin=begin)
        describe = reply.describe
        if describe is None:
            raise ProgrammingError("server prepared the statement without describing it")
        self._stmt_id = describe.stmt_id
        return describe

    def _execute_statement(self, describe, encoded: list[bytes]) -> None:
        conn = self.connection
        w = Writer().short(Tag.ID).short(describe.stmt_id)
        _bind(w, encoded)
        w.short(Tag.EXECUTE).short(Tag.RELEASE)
        stmt_id, self._stmt_id = self._stmt_id, None
        try:
            reply = conn.request(w)
        except Exception:
            # The failed EXECUTE skipped the RELEASE: it is owed to the server.
            conn.owe_cleanup(release_request(stmt_id, False))
            raise
        self.rowcount = reply.rowcount
        if describe.stmt_type == StmtType.INSERT:
            self.lastrowid = reply.serial8 or reply.bigserial or reply.serial or None
        if describe.stmt_type in _TX_OPENERS:
            conn._in_transaction = True
        elif describe.stmt_type in _TX_CLOSERS:
            conn._in_transaction = False
        if describe.stmt_type == StmtType.DATABASE:
            conn.logged = bool(reply.warnings & DB_LOGGED)

    def _open_cursor(self, describe, encoded: list[bytes]) -> None:
        conn = self.connection
        types = [codecs.column_type_from_describe(c.wire_type, c.extended_id, c.encoded_length)
                 for c in describe.columns]
        self._decode = codecs.make_row_decoder(types)
        self.description = [_description(c.name, t) for c, t in zip(describe.columns, types)]
        w = Writer().short(Tag.ID).short(describe.stmt_id)
        w.short(Tag.CURNAME).short_string(conn.next_cursor_name())
        _bind(w, encoded)
        if self.scrollable:
            w.short(Tag.SCROLL)
        w.short(Tag.OPEN)
        if not self.scrollable:
            # Repeating SQ_ID before the NFETCH is what both reference clients do.
            w.short(Tag.ID).short(describe.stmt_id)
            w.short(Tag.NFETCH).int(self.fetch_buffer_size).short(0)
        self._open = True
        self._exhausted = False
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _Cleanup.run,
                                           _Cleanup(conn, describe.stmt_id))
        try:
            # No read-ahead yet: a result that fits one buffer (the common
            # small SELECT) must not cost the server an extra NFETCH.
            reply = conn.request(w, decode_row=self._decode)
        except Exception:
            self._abandon()
            raise
        if not self.scrollable:
            self._take(reply)
            if self.materialize:
                self._materialize()

    def _take(self, reply) -> None:
        """Make ``reply``'s rows the current batch; at the end, owe the cleanup."""
        self._batch = reply.rows
        self._pos = 0
        self._delivered += len(reply.rows)
        if reply.done or reply.closed or not reply.rows:
            # A reply without rows also ends the result: servers that do not
            # send SQ_DONE at the end answer an exhausted NFETCH that way.
            self._exhausted = True
            self.rowcount = self._delivered
            if not self.materialize:     # _materialize releases at once instead
                self._release()

    def _nfetch(self) -> Writer:
        w = Writer().short(Tag.ID).short(self._stmt_id).short(Tag.NFETCH)
        return w.int(self.fetch_buffer_size).short(0)

    def _ahead_request(self) -> tuple | None:
        """The next NFETCH, to travel with a request (None without read-ahead)."""
        if not self.read_ahead:
            return None
        self._inflight += 1
        return (self, self._nfetch(), self._decode)

    def absorb(self, reply) -> None:
        """The connection read one of our replies in flight because it needed
        the wire; replies after the end of the result are dropped."""
        self._inflight -= 1
        if not self._exhausted:
            self._absorbed.append(reply)

    def _next_reply(self):
        """The next batch's reply: absorbed, in flight, or asked for now.

        With read-ahead there are up to two NFETCHes out: before blocking on
        the older reply, the next request is sent, so the server builds batch
        n+1 while this client decodes batch n.  After the last batch one
        request may still be out; its reply (an empty DONE) is read and
        dropped by whoever needs the wire next.
        """
        conn = self.connection
        try:
            if self._absorbed:
                reply = self._absorbed.popleft()
                raise_for(reply)
                return reply
            if self._inflight:
                if self.read_ahead:
                    conn.send_ahead(self, self._nfetch(), self._decode)
                    self._inflight += 1
                reply = conn.read_ahead(self)
                self._inflight -= 1
                return reply
            return conn.request(self._nfetch(), decode_row=self._decode,
                                ahead=self._ahead_request())
        except Exception:
            self._abandon()
            raise

    def _materialize(self) -> None:
        rows = self._batch
        while not self._exhausted:
            reply = self._next_reply()
            rows += reply.rows
            self._take(reply)
        self._batch, self._pos = rows, 0
        self._release(now=True)

    def _fetch_batch(self) -> bool:
        """Make the next buffer of rows current; False once the result is exhausted."""
        if self._exhausted:
            return False
        self._take(self._next_reply())
        return bool(self._batch)

    # -- fetching -------------------------------------------------------------
    def fetchone(self) -> tuple | None:
        self._check_result()
        if self.scrollable:
            return self._scroll_fetch(self._position + 1)
        while self._pos >= len(self._batch):
            if not self._fetch_batch():
                return None
        row = self._batch[self._pos]
        self._pos += 1
        return row

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        self._check_result()
        size = self.arraysize if size is None else size
        if size < 0:
            raise ProgrammingError("fetchmany size must not be negative")
        if self.scrollable:
            return self._scroll_many(size)
        out: list = []
        while len(out) < size:
            if self._pos >= len(self._batch) and not self._fetch_batch():
                break
            take = self._batch[self._pos:self._pos + size - len(out)]
            self._pos += len(take)
            out += take
        return out

    def fetchall(self) -> list[tuple]:
        """All remaining rows in one list: this materializes the rest of the result."""
        self._check_result()
        if self.scrollable:
            return self._scroll_many(-1)
        out = self._batch[self._pos:]
        self._batch, self._pos = [], 0
        while self._fetch_batch():
            out += self._batch
        self._batch = []
        return out

    def __iter__(self) -> Iterator[tuple]:
        self._check_result()
        if self.scrollable:
            yield from iter(self.fetchone, None)
            return
        while True:
            batch, i = self._batch, self._pos
            n = len(batch)
            try:
                while i < n:
                    row = batch[i]
                    i += 1
                    yield row
            finally:
                self._pos = i
            if not self._fetch_batch():
                return

    # -- scrolling --------------------------------------------------------------
    def scroll(self, value: int, mode: str = "relative") -> None:
        self._check_result()
        if mode == "relative":
            target = self._position + value
        elif mode == "absolute":
            target = value
        else:
            raise ProgrammingError(f"scroll mode must be 'relative' or 'absolute', not {mode!r}")
        if not self.scrollable:
            if mode != "relative" or value < 0:
                raise NotSupportedError("a forward-only cursor can only skip forward; "
                                        "use cursor(scrollable=True)")
            for _ in range(value):
                if self.fetchone() is None:
                    raise IndexError("scroll past the end of the result")
            return
        if not 0 <= target <= self._row_total():
            raise IndexError(f"scroll target {target} is outside the result")
        self._position = target

    def _row_total(self) -> int:
        if self._total is None:
            reply = self._sfetch(_SCROLL_LAST, 0)
            self._total = reply.tupid if reply.rows else 0
        return self._total

    def _sfetch(self, kind: int, target: int):
        w = Writer().short(Tag.ID).short(self._stmt_id).short(Tag.SFETCH)
        w.short(kind).int(target).int(self.fetch_buffer_size)
        return self.connection.request(w, decode_row=self._decode)

    def _scroll_fetch(self, target: int) -> tuple | None:
        if target < 1 or (self._total is not None and target > self._total):
            return None
        reply = self._sfetch(_SCROLL_ABSOLUTE, target)
        if not reply.rows:
            self._total = target - 1
            self._position = target
            return None
        self._position = target
        return reply.rows[0]

    def _scroll_many(self, size: int) -> list[tuple]:
        out: list = []
        while size < 0 or len(out) < size:
            row = self._scroll_fetch(self._position + 1)
            if row is None:
                break
            out.append(row)
        return out

    @property
    def rownumber(self) -> int | None:
        if self.scrollable:
            return self._position - 1 if self._position else None
        return self._delivered - (len(self._batch) - self._pos) if self.description else None

    # -- lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        """Free the server cursor now (one round trip when a stream is abandoned)."""
        if self._closed:
            return
        try:
            if self._stmt_id is not None and not self.connection.closed:
                self._release(now=True)
        finally:
            self._closed = True
            self._batch = []
            self._finalizer.detach()

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def setinputsizes(self, sizes) -> None:
        """Accepted for PEP 249; types come from the values themselves."""

    def setoutputsize(self, size, column=None) -> None:
        """Accepted for PEP 249; every column is fetched whole."""

    def _release(self, now: bool = False) -> None:
        """Give the statement back: now, or at the front of the next request."""
        if self._stmt_id is None:
            return
        data = release_request(self._stmt_id, self._open)
        self._stmt_id = None
        self._open = False
        self._finalizer.detach()
        conn = self.connection
        if now:
            conn.defer_cleanup(data)
            conn.request(Writer())
        else:
            conn.defer_cleanup(data)

    def _abandon(self) -> None:
        """After a failed OPEN or FETCH the cursor may or may not be open:
        owe a CLOSE and a RELEASE separately so that either state is cleaned."""
        if self._stmt_id is None:
            return
        sid = Writer().short(Tag.ID).short(self._stmt_id)
        self.connection.owe_cleanup(bytes(sid) + _CLOSE, bytes(sid) + _RELEASE)
        self._stmt_id = None
        self._open = False
        self._exhausted = True
        self._finalizer.detach()

    def _reset(self) -> None:
        self._release()
        self.description = None
        self.rowcount = -1
        self.lastrowid = None
        self._batch, self._pos, self._delivered = [], 0, 0
        self._exhausted = True
        self._absorbed.clear()
        self._decode = None
        self._position, self._total = 0, None

    def _check_open(self) -> None:
        if self._closed:
            raise InterfaceError("cursor is closed")
        if self.connection.closed:
            raise InterfaceError("connection is closed")

    def _check_result(self) -> None:
        self._check_open()
        if self._decode is None:
            raise ProgrammingError("no result set: execute a query first")


class _Cleanup:
    """What a garbage-collected cursor still owes the server.

    Runs from a weakref finalizer, possibly on another thread, so it does no
    I/O: it queues the CLOSE+RELEASE to ride on the connection's next request.
    """

    def __init__(self, conn, stmt_id: int | None = None) -> None:
        self.conn = weakref.ref(conn)
        self.stmt_id = stmt_id

    def run(self) -> None:
        conn = self.conn()
        if conn is not None and self.stmt_id is not None and not conn.closed:
            conn.defer_cleanup(release_request(self.stmt_id, True))


def _starts_session_statement(sql: str) -> bool:
    word = first_keyword(sql)
    if word == "CREATE":
        rest = sql.split(None, 2)
        return len(rest) > 1 and rest[1].upper() == "DATABASE"
    return word in _NO_IMPLICIT_BEGIN


def _description(name: str, t) -> tuple:
    """PEP 249's 7-tuple: name, type_code, display_size, internal_size, precision, scale, null_ok."""
    return (name, int(t.code), t.precision, t.wire_width, t.precision, t.scale, t.nullable)
