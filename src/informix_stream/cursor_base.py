"""What every cursor shares, without I/O: result state and its operations.

The operations are generators over the connection's ``ClientSession`` (see
``core.session``); ``cursors.Cursor`` runs them with blocking I/O and
``async_cursors.AsyncCursor`` with asyncio, so the protocol logic of a
cursor exists once.  The three kinds differ only in how a result is opened
and read, and are the mixins at the end of this module:

* streaming (the default): OPEN carries the first NFETCH; later batches come
  one fetch buffer at a time, with the next NFETCH already on the wire while
  the current batch is consumed (read-ahead);
* materializing: everything is read and the statement freed at execute;
* scrollable: a SCROLL cursor read with SFETCH.

Statement cleanup (CLOSE + RELEASE) rides at the front of the next request,
so a SELECT that fits one buffer costs two round trips.
"""

from __future__ import annotations

import logging
import re
import sys
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import codecs, lobs, lobstream, smartlobs
from .core import requests as rq
from .core import named_rows
from .core import statement as st
from .core.dblocale import settle_locale
from .core.session import ClientSession
from .core.statement_cache import INVALIDATING, STALE_STATEMENT
from .errors import DatabaseError, InterfaceError, NotSupportedError, ProgrammingError
from .messages import Reply, StmtType
from .rows import ResultShape
from .scroll import ScrollFetches
from .sqlwarn import CursorWarnings, WarningLog

_TX_OPENERS = {StmtType.BEGIN_WORK}
_TX_ENDERS = {StmtType.COMMIT, StmtType.ROLLBACK}
_TX_CLOSERS = _TX_ENDERS | {StmtType.DATABASE, StmtType.CLOSE_DATABASE}
# Statements after which the server has freed every statement and cursor.
_DATABASE_CHANGERS = {StmtType.DATABASE, StmtType.CREATE_DATABASE, StmtType.CLOSE_DATABASE}
DB_LOGGED = 0x01
DB_ANSI = 0x02
log = logging.getLogger("informix_stream")

RowMaker = Callable[[tuple], Any]
_ROUTINE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)?")


def callproc_sql(procname: str, parameters: Sequence[Any]) -> str:
    """The statement ``callproc`` runs: the routine's name checked as an
    identifier ([owner.]name), one '?' marker per parameter."""
    if not isinstance(procname, str) or not _ROUTINE_NAME.fullmatch(procname):
        raise ProgrammingError(f"callproc: {procname!r} is not a routine name")
    if isinstance(parameters, (Mapping, str, bytes)):
        raise ProgrammingError("callproc: parameters must be a sequence")
    return f"EXECUTE PROCEDURE {procname}({', '.join('?' * len(parameters))})"


class CursorBase(CursorWarnings, ScrollFetches):
    """State and protocol operations of one cursor (see module docstring)."""

    materialize = scrollable = False
    commit_in_doubt: tuple[int, int] | None = None      # executemany: chunk_commit.py
    _progress: tuple | None = None      # (callback, start time, bytes received at start)
    _progress_told = 0

    def __init__(self, conn, *, fetch_buffer_size: int, read_ahead: bool = True,
                 row_factory: Callable | None = None, hold: bool = False,
                 lob: str = "value") -> None:
        self.connection = conn
        # "value": LOB cells as bytes/str; "stream": as readers (lobstream)
        self.lob = lobstream.check_mode(lob)
        self._lob_streams: weakref.WeakSet = weakref.WeakSet()
        self.arraysize = 1
        self.fetch_buffer_size = fetch_buffer_size
        self.read_ahead = read_ahead and not self.scrollable
        self.row_factory = row_factory if row_factory is not None else conn.row_factory
        self.hold = hold
        # "tuple" or "dict": how ROW values decode (codec/composite.py)
        self.composite_rows = getattr(conn, "composite_rows", "tuple")
        self.description: list[tuple] | None = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.batch_errors: list | None = None
        self._warnings = WarningLog()
        self._closed = False
        self._stmt_id: int | None = None
        self._open = False
        self._opened_at = 0                # session.tx_ends at OPEN
        self._held = False                 # opened WITH HOLD
        self._exhausted = True
        self._batch: list = []
        self._pos = 0
        self._delivered = 0
        self._decode: Callable | None = None
        self._lobs: tuple[int, ...] = ()     # BYTE/TEXT columns, fetched by descriptor
        self._make_row: RowMaker | None = None
        self._ahead: deque = deque()
        self._nfetch_request: bytes | None = None
        self._cut: str | None = None       # why the result ended early, if it did
        self._prepared: st.Prepared | None = None
        self._kept = False                 # the statement belongs to the connection's cache
        self._begin = False                # the first request carries the implicit BEGIN
        self._position = 0
        self._total: int | None = None
        self._finalizer = weakref.finalize(self, _queue_cleanup, weakref.ref(conn), None)
        conn._cursors.add(self)

    @property
    def _session(self) -> ClientSession:
        return self.connection._session

    # -- execute ------------------------------------------------------------------
    def _execute_gen(self, operation: str, parameters: Sequence[Any] | None):
        """PREPARE, then OPEN a result or EXECUTE; logs the SQL text and the
        time at DEBUG (never the parameter values)."""
        self._check_open()
        self._reset()
        sql, order, count = st.parse_sql(operation, isinstance(parameters, Mapping))
        if not log.isEnabledFor(logging.DEBUG):
            yield from self._run_then_commit(sql, order, count, parameters)
            self._raise_warnings()
            return
        start = time.perf_counter()
        try:
            yield from self._run_then_commit(sql, order, count, parameters)
        finally:
            log.debug("execute (%d parameters) %.3f ms: %s", count,
                      (time.perf_counter() - start) * 1000, sql)
        self._raise_warnings()

    def _run_then_commit(self, sql: str, order, count: int, parameters):
        """The statement, then (autocommit on an ANSI database) its COMMIT:
        after a failed statement too, so no implicit transaction outlives
        it; the statement's own error is the one raised."""
        try:
            yield from self._run_statement(sql, order, count, parameters)
        except DatabaseError:
            if self._session.broken is None:
                try:
                    yield from st.ansi_autocommit(self._session, sql)
                except DatabaseError:
                    pass        # the statement's error is the one the caller needs
            raise
        yield from st.ansi_autocommit(self._session, sql)

    def _run_statement(self, sql: str, order, count: int, parameters):
        """Run ``sql`` on a kept prepared statement when there is one (no
        PREPARE round trip), else prepare it; a stale one (-710) is prepared again, once."""
        encoded = (st.encode_params(parameters, order, count, self._session.encoding)
                   if (parameters or count) else [])
        cache = self.connection._statements
        prepared = cache.checkout(sql)
        if prepared is not None:
            try:
                yield from self._run_prepared(prepared, encoded, True,
                                              st.opens_transaction(sql))
                return
            except DatabaseError as exc:
                if exc.sqlcode != STALE_STATEMENT:
                    raise
                log.debug("prepared statement went stale (-710); preparing again: %s", sql)
                self._cut = None             # nothing was delivered from the stale one
        prepared = yield from st.prepare(self._session, sql, count)
        yield from self._run_prepared(prepared, encoded, cache.lend_new(sql, prepared), False)

    def _run_prepared(self, prepared: st.Prepared, encoded: list[bytes], kept: bool,
                      begin: bool):
        self._stmt_id = prepared.stmt_id
        self._prepared, self._kept, self._begin = prepared, kept, begin
        # the PREPARE's own flags (no WHERE clause), again each time it runs
        self._note_warnings(prepared.warnings)
        kind = prepared.describe.stmt_type
        self._session.state_changes += kind == StmtType.EXECUTE_PROCEDURE  # sets_session_state
        if kind == StmtType.SELECT or (kind == StmtType.EXECUTE_PROCEDURE
                                       and prepared.describe.columns):
            yield from self._open_result(prepared, encoded)
        else:
            yield from self._execute_statement(prepared, encoded)

    def _execute_statement(self, prepared: st.Prepared, encoded: list[bytes]):
        session = self._session
        cache = self.connection._statements
        stmt_id, self._stmt_id = prepared.stmt_id, None
        try:
            reply = yield from st.exchange(
                session, rq.execute(stmt_id, encoded, release=not self._kept),
                begin=self._begin)
        except Exception as exc:
            if self._kept and isinstance(exc, DatabaseError) and exc.sqlcode != STALE_STATEMENT:
                self._give_back()                # the statement itself is fine
            else:
                # The failed EXECUTE skipped the RELEASE: it is owed to the server.
                cache.forget(stmt_id)
                session.owe(rq.release_only(stmt_id))
            raise
        if self._kept:
            self._give_back()
        self.rowcount = reply.rowcount
        kind = prepared.describe.stmt_type
        if kind == StmtType.INSERT:
            self.lastrowid = reply.serial8 or reply.bigserial or reply.serial or None
        if kind in _TX_OPENERS:
            session.in_transaction = True
        elif kind in _TX_ENDERS:
            session.transaction_ended()
        elif kind in _TX_CLOSERS:
            session.in_transaction = False
        if kind in _DATABASE_CHANGERS:
            session.database_changed()
            cache.clear()                        # freed by the server: nothing to release
        elif kind in INVALIDATING:
            for body in cache.clear():
                session.defer_cleanup(body)
        if prepared.sets_session or kind == StmtType.SELECT_INTO:
            session.state_changes += 1
        opened = kind in (StmtType.DATABASE, StmtType.CREATE_DATABASE)
        self._note_warnings(reply, opened)
        if opened:
            session.logged = bool(reply.warnings & DB_LOGGED)
            session.ansi = bool(reply.warnings & DB_ANSI)
            yield from settle_locale(session, reply.warnings)

    def _give_back(self) -> None:
        """Return a kept statement to the cache; what it evicts is released next request."""
        self._kept = False
        for body in self.connection._statements.give_back(self._prepared):
            self._session.defer_cleanup(body)

    def _describe_result(self, prepared: st.Prepared) -> None:
        """Decoder and PEP 249 description (derived once per prepared statement
        and code set, reused by each execute); a type we cannot decode frees
        the statement before the error goes to the caller."""
        key = (self._session.encoding, self.composite_rows)
        shape = prepared.shape
        if shape is None or shape[0] != key:
            shape = prepared.shape = (key, *self._derive_shape(prepared))
        self._decode, self._lobs = shape[1], shape[2]
        self.description = list(shape[3])
        self._make_row = (self.row_factory(ResultShape(self))
                          if self.row_factory is not None else None)

    def _resolve_named_rows_gen(self, prepared: st.Prepared):
        """Named ROW columns' fields, once per statement (core/named_rows.py);
        a failure frees the statement."""
        try:
            yield from named_rows.resolve_gen(self._session, self.connection._row_types,
                                              prepared)
        except BaseException:
            self._drop_prepared(prepared)
            raise

    def _drop_prepared(self, prepared: st.Prepared) -> None:
        """Free a prepared statement whose result this cursor will not open."""
        self.connection._statements.forget(prepared.stmt_id)
        self._session.owe(rq.release_only(prepared.stmt_id))
        self._stmt_id = None

    def _derive_shape(self, prepared: st.Prepared) -> tuple:
        try:
            types = st.column_types(prepared)
            decode = codecs.make_row_decoder(types, self._session.encoding,
                                             self.composite_rows)
        except Exception as exc:
            self._drop_prepared(prepared)
            if isinstance(exc, (ValueError, TypeError)):
                raise NotSupportedError(f"this driver cannot read the result: {exc}") from exc
            raise
        return decode, lobs.lob_columns(types), tuple(
            _description(c.name, t) for c, t in zip(prepared.describe.columns, types))

    def _open_request(self, prepared: st.Prepared, encoded: list[bytes],
                      first_fetch: bool) -> Reply:
        """Queue OPEN (and the first NFETCH); the statement is now ours to close."""
        conn = self.connection
        # In autocommit mode every cursor is opened WITH HOLD: there is no
        # transaction of the user's to end it, and the BEGIN ... COMMIT that
        # executemany wraps each chunk in must not close it.
        self._held = self.hold or self._session.autocommit
        body = rq.open_cursor(prepared.stmt_id, conn._next_cursor_name(), encoded,
                              scroll=self.scrollable, hold=self._held,
                              first_fetch=self.fetch_buffer_size if first_fetch else None)
        begin, self._begin = self._begin, False
        self._open = True
        self._opened_at = self._session.tx_ends
        self._exhausted = False
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _queue_cleanup, weakref.ref(conn),
                                           prepared.stmt_id,
                                           None if self._held else self._opened_at,
                                           prepared.epoch)
        return self._session.send(body, decode=self._decode, budget=self.fetch_buffer_size,
                                  begin=begin)

    def _open_result(self, prepared: st.Prepared, encoded: list[bytes]):
        """Streaming: OPEN with the first NFETCH (no read-ahead yet: a result
        that fits one buffer must not cost the server an extra NFETCH)."""
        self._take((yield from self._open_gen(prepared, encoded, first_fetch=True)))

    def _open_gen(self, prepared: st.Prepared, encoded: list[bytes], first_fetch: bool):
        """Describe, OPEN, wait; a failure leaves the cursor abandoned."""
        yield from self._resolve_named_rows_gen(prepared)
        self._describe_result(prepared)
        expect = self._open_request(prepared, encoded, first_fetch=first_fetch)
        try:
            yield expect
            st.raise_for(expect.reply)
            if self._lobs:
                yield from self._fetch_lobs_gen(expect.reply)
        except BaseException:
            self._abandon()
            raise
        return expect.reply

    def _fetch_lobs_gen(self, reply: Reply):
        """Exchange the batch's BYTE/TEXT descriptors for their values while
        the cursor is open (``lobs`` module docstring)."""
        if self.lob == "stream":
            yield from lobstream.resolve_gen(self, reply.rows, self._lobs, self._lob_stream_class)
            return
        yield from lobs.resolve_gen(self._session, self._stmt_id, reply.rows, self._lobs,
                                    self._session.encoding)
        yield from smartlobs.resolve_gen(self._session, reply.rows, self._lobs,
                                         self._session.encoding)

    # -- batches ------------------------------------------------------------------
    def _take(self, reply: Reply) -> None:
        """Make ``reply``'s rows the current batch; at the end, owe the cleanup."""
        rows = reply.rows
        self._note_warnings(reply)
        make = self._make_row
        self._batch = rows if make is None else [make(r) for r in rows]
        self._pos = 0
        self._delivered += len(rows)
        if reply.done or reply.closed or not rows:
            # A reply without rows also ends the result: servers that do not
            # send SQ_DONE at the end answer an exhausted NFETCH that way.
            self._exhausted = True
            self.rowcount = self._delivered
            self._release()

    def _next_reply_gen(self):
        """The next batch's reply: already read ahead, or asked for now.

        With read-ahead, up to two NFETCHes are out: before waiting for the
        older reply the next request is sent, so the server builds batch
        n+1 while this client decodes batch n.  After the last batch one
        request may still be out; its reply is read by whoever uses the wire
        next and dropped.
        """
        session = self._session
        request = self._nfetch_request
        if request is None:
            request = self._nfetch_request = rq.nfetch(self._stmt_id, self.fetch_buffer_size)
        try:
            budget = self.fetch_buffer_size
            if self._ahead:
                expect = self._ahead.popleft()
            else:
                expect = session.send(request, decode=self._decode, budget=budget)
            if self.read_ahead:
                self._ahead.append(session.send(request, decode=self._decode, detached=True,
                                                budget=budget))
            if not expect.done:
                yield expect
            st.raise_for(expect.reply)
            if self._lobs:
                yield from self._fetch_lobs_gen(expect.reply)
        except BaseException:
            self._abandon()
            raise
        return expect.reply

    def _fetch_batch_gen(self):
        """The next buffer of rows becomes current; False once the result is
        exhausted.  Closed by another thread meanwhile: its NFETCH's statement
        id is freed (maybe reused), so it raises."""
        if self._exhausted:
            return False
        if self._stmt_id is None:
            raise InterfaceError("cursor is closed")
        self._take((yield from self._next_reply_gen()))
        return bool(self._batch)

    def _materialize_gen(self):
        rows = list(self._batch)
        while not self._exhausted:
            self._take((yield from self._next_reply_gen()))
            rows += self._batch
        self._batch, self._pos = rows, 0

    # -- cleanup --------------------------------------------------------------------
    @property
    def _open_on_server(self) -> bool:
        """Is the server cursor still open?  COMMIT/ROLLBACK WORK closed it
        unless it was declared WITH HOLD; it must not be CLOSEd again (JDBC
        likewise marks such cursors closed after a commit and sends no
        CLOSE for them: IfxSqliConnect.markCursorsToClosed)."""
        return self._open and (self._held or self._opened_at == self._session.tx_ends)

    def _stale(self) -> bool:
        """Was the statement freed by a later change of database?"""
        prepared = self._prepared
        return prepared is not None and prepared.epoch != self._session.database_changes

    def _release(self) -> None:
        """Give the statement back at the front of the next request: CLOSE
        its cursor, and RELEASE it unless the connection keeps it (nothing
        when a change of database freed it on the server)."""
        if self._stmt_id is None:
            return
        if self._stale():
            self._kept = False
            self._stmt_id = None
            self._open = False
            self._finalizer.detach()
            return
        is_open = self._open_on_server
        if self._kept:
            if is_open:
                self._session.defer_cleanup(rq.close_only(self._stmt_id))
            self._give_back()
        else:
            self._session.defer_cleanup(rq.release(self._stmt_id, is_open))
        self._stmt_id = None
        self._open = False
        self._finalizer.detach()

    def _release_now_gen(self):
        """Free the server cursor now: one round trip, never a drain."""
        self._release()
        self._ahead.clear()
        session = self._session
        if session.cleanup_queued:
            yield from st.exchange(session, rq.NOTHING)

    def _abandon(self) -> None:
        """After a failed OPEN or FETCH the cursor may or may not be open:
        owe a CLOSE and a RELEASE separately so that either state is cleaned.
        The result is marked cut short: a later fetch raises instead of
        looking like the end of the rows."""
        self._ahead.clear()
        if not self._exhausted or self._decode is not None:
            exc = sys.exc_info()[1]
            self._cut = f"{type(exc).__name__}: {exc}" if exc is not None else "abandoned"
        self._exhausted = True
        if self._stmt_id is None:
            return
        self.connection._statements.forget(self._stmt_id)
        self._kept = False
        if self._stale():
            self._stmt_id = None
            self._open = False
            self._finalizer.detach()
            return
        if self._open_on_server:
            self._session.owe(rq.close_only(self._stmt_id))
        self._session.owe(rq.release_only(self._stmt_id))
        self._stmt_id = None
        self._open = False
        self._finalizer.detach()

    # -- progress reports ------------------------------------------------------------
    def _progress_start(self, callback: Callable[[int, int, float], Any] | None) -> tuple:
        """Where a read that reports progress starts (taken before it is sent)."""
        if callback is not None and not callable(callback):
            raise ProgrammingError("progress must be a callable (rows, bytes, elapsed)")
        return callback, time.perf_counter(), self._session.bytes_received

    def _tell_progress(self) -> None:
        """Call the result's progress callback when rows arrived since the last
        call: (rows received, bytes received, seconds since execute).  It runs
        between exchanges, so an exception from it reaches the caller and
        leaves the cursor and the connection as they were."""
        progress = self._progress
        if progress is None or self._delivered == self._progress_told:
            return
        callback, start, base = progress
        self._progress_told = self._delivered
        callback(self._delivered, self._session.bytes_received - base,
                 time.perf_counter() - start)

    _lob_stream_class: type = lobstream.LobStream

    def _end_lob_streams(self, why: str) -> None:
        """The result's LOB readers can no longer be read (``lobstream``)."""
        if not self._lob_streams:         # the common case: no copy of an empty set
            return
        for stream in list(self._lob_streams):
            stream.invalidate(why)
        self._lob_streams.clear()

    def _reset(self) -> None:
        self._end_lob_streams("its cursor ran another statement")
        self._progress = None
        self._progress_told = 0
        self._release()
        self._ahead.clear()
        self._nfetch_request = None
        self._cut = None
        self.description = None
        self.rowcount = -1
        self.lastrowid = None
        self.batch_errors = self.commit_in_doubt = None     # of the last call only
        self._warnings = WarningLog()
        self._batch, self._pos, self._delivered = [], 0, 0
        self._exhausted = True
        self._decode = None
        self._lobs = ()
        self._make_row = None
        self._position, self._total = 0, None

    def _check_open(self) -> None:
        if self._closed:
            raise InterfaceError("cursor is closed")
        self.connection._session.check()

    def _check_result(self) -> None:
        self._check_open()
        if self._decode is None:
            raise ProgrammingError("no result set: execute a query first")
        if self._cut is not None:
            raise InterfaceError("this result ended early and its remaining rows are "
                                 f"unknown ({self._cut}); execute the statement again")

    def _fetchmany_size(self, size: int | None) -> int:
        size = self.arraysize if size is None else size
        if size < 0:
            raise ProgrammingError("fetchmany size must not be negative")
        return size

    def _take_from_batch(self, size: int, out: list) -> None:
        take = self._batch[self._pos:self._pos + size - len(out)]
        self._pos += len(take)
        out += take

    # -- PEP 249 odds and ends -------------------------------------------------------
    @property
    def rownumber(self) -> int | None:
        if self.scrollable:
            return self._position - 1 if self._position else None
        return self._delivered - (len(self._batch) - self._pos) if self.description else None

    @property
    def closed(self) -> bool:
        return self._closed

    def setinputsizes(self, sizes) -> None:
        """Accepted for PEP 249; types come from the values themselves."""

    def setoutputsize(self, size, column=None) -> None:
        """Accepted for PEP 249; every column is fetched whole."""


class MaterializingKind:
    """Reads the whole result at execute and frees the statement at once."""

    materialize = True

    def _open_result(self, prepared, encoded):
        yield from CursorBase._open_result(self, prepared, encoded)
        yield from self._materialize_gen()
        yield from self._release_now_gen()


class ScrollableKind:
    """A SCROLL cursor: OPEN without a fetch; rows come by SFETCH."""

    scrollable = True

    def _open_result(self, prepared, encoded):
        yield from self._open_gen(prepared, encoded, first_fetch=False)


def _queue_cleanup(conn_ref, stmt_id: int | None, opened_at: int | None = None,
                   epoch: int | None = None) -> None:
    """What a garbage-collected cursor still owes the server.  Runs from a
    weakref finalizer, possibly on another thread, so it does no I/O.
    ``opened_at``: ``tx_ends`` at OPEN of a cursor without HOLD (a later
    COMMIT/ROLLBACK closed it on the server: RELEASE only); ``epoch``: the
    statement's, nothing owed after a change of database freed it."""
    conn = conn_ref()
    if conn is not None and stmt_id is not None:
        session = conn._session
        if epoch is not None and epoch != session.database_changes:
            return
        is_open = opened_at is None or opened_at == session.tx_ends
        session.defer_cleanup(rq.release(stmt_id, is_open))


def _description(name: str, t) -> tuple:
    """PEP 249's 7-tuple: name, type_code, display_size, internal_size, precision, scale, null_ok."""
    return (name, int(t.code), t.precision, t.wire_width, t.precision, t.scale, t.nullable)
