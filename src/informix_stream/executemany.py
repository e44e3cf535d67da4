"""Pipelined executemany: prepare once, then BIND+EXECUTE requests in chunks.

Within a chunk every request is sent back to back and the replies are read
as they arrive (the I/O layers never let the two directions block each
other), so a chunk of N rows costs about one round trip instead of N.  The
next chunk is encoded while the server works through this one and sent only
after this chunk's replies are checked.  Chunks bound client memory (one
chunk of encoded requests, kept until its replies are in), how long the
connection is held for one step, and how much a failure has to repair.

The error contract (README "Guarantees"): when row k fails, the call raises
that row's error with ``row_index = k`` and afterwards exactly ``rows[:k]``
are applied -- in autocommit mode each chunk runs as one transaction that is
rolled back and replayed up to row k; inside a transaction each chunk starts
with a savepoint that is rolled back to and replayed up to row k (a chunk
of one request needs none: the server stops that request at row k).  The
replay costs at most one chunk.  In a database without logging nothing can
be undone: the error then says which later rows of the chunk were applied
(``e.applied_after``); ``chunk_size=1`` stops exactly at the failing row.
With ``batch_errors=True`` every good row is applied and each failing row's
error, with its ``row_index``, lands in ``cursor.batch_errors``.

A call on a list or tuple of rows runs the statement the connection kept
from an earlier call or execute (bulk_statements.py), and executemany's
own SAVEPOINT statement is kept too, so a repeated small call -- what
SQLAlchemy's ORM sends, a new batch whenever a row's non-NULL keys change
-- costs one round trip.  A kept statement the server calls stale (-710 on
every request of the first chunk, so no row landed) is prepared again and
the rows sent again from the first; rows from an iterator cannot be sent
twice, so they always get a fresh PREPARE.
It is longer than 600 lines because the chunk loop, its protections and
their repair (BIND+EXECUTE and insert cursor) are one contract, kept together.
"""

from __future__ import annotations

import itertools
import struct
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import insert_cursor as ic
from .bulk_statements import Borrowed
from .core import requests as rq
from .core import statement as st
from .core.session import FLUSH, Expect
from .core.statement_cache import STALE_STATEMENT
from .errors import Error, InterfaceError, NotSupportedError
from .framing import Writer
from .messages import StmtType, Tag
from . import txabort
from .chunk_commit import ChunkWatch
from .row_errors import at_row, ranges, row_error, with_note

# Chosen by measurement (100k-row executemany against the emulator, one
# transaction, median of 3): 250 rows a chunk 40.0k rows/s, 1,000 44.9k,
# 4,000 48.7k, 16,000 47.9k.  Past a few thousand rows the per-chunk pause
# is amortised, and a chunk still holds the connection for only ~0.1 s.
DEFAULT_CHUNK_SIZE = 4000
DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024

_BIND_HEAD = struct.Struct("!hh")
_BEGIN = Writer().short(Tag.BEGIN).getvalue()
SAVEPOINT = "SAVEPOINT _ifxs_executemany"
ROLLBACK_TO_SAVEPOINT = "ROLLBACK WORK TO SAVEPOINT _ifxs_executemany"

# Statements whose run may leave state in the session beyond the call: a
# routine (it may SET ISOLATION or create a temporary table, unseen by the
# client) and SELECT ... INTO TEMP; a session-wide SET is Prepared.sets_session.
_SESSION_STATE_KINDS = frozenset({StmtType.EXECUTE_PROCEDURE, StmtType.SELECT_INTO})

# The insert cursor's state when a call ends (Plan.put_cursor).
OPEN, CLOSED, UNKNOWN = "open", "closed", "unknown"

# How a chunk is protected against a failing row.
BATCH, AUTOCOMMIT, SAVEPOINT_MODE, UNLOGGED = "batch", "autocommit", "savepoint", "unlogged"


class BindExecute:
    """The send strategy: one ``SQ_ID, SQ_BIND, SQ_EXECUTE`` request per row.

    A row source hands it each row's encoded parameter blocks; the insert
    cursor of a later version (PUT/FLUSH) is another strategy of the same
    shape.
    """

    def __init__(self, stmt_id: int) -> None:
        self.prefix = rq.statement_id(stmt_id)

    def request(self, encoded: list[bytes]) -> bytes | rq.Streamed:
        """One row's request; BYTE/TEXT contents ride in it as SQ_BBIND.
        A large value, a file or an iterator makes it a Streamed body, read
        only as the socket takes it (``chunk`` sends that row alone)."""
        return rq.with_blobs(self.prefix + _BIND_HEAD.pack(Tag.BIND, len(encoded))
                             + b"".join(encoded), encoded, rq.EXECUTE)


class Stale(Exception):
    """A kept statement went stale before any row landed (see ``Plan.restart_gen``)."""


class Unencodable(Exception):
    """A row source's row that cannot be encoded (as opposed to the caller's
    iterable failing): carries the PEP 249 error, named by row index later."""

    def __init__(self, error: Error) -> None:
        super().__init__(error)
        self.error = error


def tuple_rows(rows: Iterable[Sequence[Any]], order, count: int,
               encoding: str = "iso-8859-1"):
    """The row source for Python sequences: each row's encoded parameter blocks."""
    if isinstance(rows, (str, bytes)):
        raise InterfaceError("executemany takes an iterable of parameter rows")
    for params in rows:
        try:
            encoded = st.encode_params(params, order, count, encoding)
        except Error as exc:
            raise Unencodable(exc) from None
        yield encoded


def _chunks(rows: Iterable[Sequence[Any]], order, count: int, prefix: bytes,
            chunk_size: int, chunk_bytes: int, start: int = 0
            ) -> Iterator[tuple[int, list[bytes]]]:
    """BIND+EXECUTE requests for Python rows in chunks (``chunk``'s shape,
    kept for the request-building benchmark)."""
    strategy = BindExecute(0)
    strategy.prefix = prefix
    return chunk(tuple_rows(rows, order, count), strategy, chunk_size, chunk_bytes, start)


def chunk(source: Iterator[list[bytes]], strategy: BindExecute, chunk_size: int,
          chunk_bytes: int, start: int = 0) -> Iterator[tuple[int, list[bytes]]]:
    """Yield (index of the chunk's first row, its requests), lazily.

    When row k cannot be encoded, or the caller's iterable fails, the rows
    before it are sent first; then the exception goes on (with ``row_index``
    for an encoding error), so exactly ``rows[:k]`` are applied.
    """
    requests: list[bytes] = []
    size, first = 0, start
    index = start
    make = strategy.request
    while True:
        try:
            encoded = next(source)
        except StopIteration:
            break
        except Unencodable as bad:
            # The rows before it are sent first, so that exactly rows[:k]
            # are applied when row k cannot be encoded.
            if requests:
                yield first, requests
            raise at_row(bad.error, index) from bad.error.__cause__
        except BaseException:
            if requests:
                yield first, requests
            raise
        request = make(encoded)
        streamed = isinstance(request, rq.Streamed)
        if streamed and requests:
            # A streamed LOB row goes alone: read as it is sent, it cannot be
            # replayed, and a repair replays only rows before the failing one.
            yield first, requests
            requests, size, first = [], 0, index
        requests.append(request)
        size += rq.body_size(request)
        index += 1
        if streamed or len(requests) >= chunk_size or size >= chunk_bytes:
            yield first, requests
            requests, size, first = [], 0, index
    if requests:
        yield first, requests


def peek(rows: Iterable[Any]) -> tuple[Iterator[Any], bool]:
    """The rows again, and whether they are mappings (``:name`` markers);
    only the first row is read ahead."""
    if isinstance(rows, (str, bytes)):
        raise InterfaceError("executemany takes an iterable of parameter rows")
    source = iter(rows)
    for first in source:
        return itertools.chain((first,), source), isinstance(first, Mapping)
    return iter(()), False


def rows_again(rows: Any, arrow: bool) -> Sequence[Any] | None:
    """The rows, when they can be sent a second time (a list or tuple):
    executemany may then run a statement the connection kept."""
    return rows if not arrow and isinstance(rows, (list, tuple)) else None


async def apeek(rows: Any) -> tuple[Any, bool]:
    """``peek`` for an async iterable."""
    source = rows.__aiter__()
    try:
        first = await source.__anext__()
    except StopAsyncIteration:
        return _aempty(), False

    async def chained():
        yield first
        async for row in source:
            yield row
    return chained(), isinstance(first, Mapping)


async def _aempty():
    return
    yield  # pragma: no cover - makes this an async generator


class Plan:
    """One executemany call: its statement, chunking and failure mode."""

    def __init__(self, cursor, operation: str, *, batch_errors: bool,
                 chunk_size: int | None, chunk_bytes: int | None,
                 commit_every_chunk: bool, named: bool = False,
                 insert_cursor: bool | None = None,
                 rows_again: Sequence[Any] | None = None) -> None:
        self.chunk_size = DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size
        self.chunk_bytes = DEFAULT_CHUNK_BYTES if chunk_bytes is None else chunk_bytes
        if self.chunk_size < 1 or self.chunk_bytes < 1:
            raise InterfaceError("chunk_size and chunk_bytes must be positive")
        self.cursor = cursor
        self.session = cursor._session
        self.sql, self.order, self.count = st.parse_sql(operation, named)
        self.batch_errors = batch_errors
        self.commit_every_chunk = commit_every_chunk
        self.stmt_id: int | None = None
        self.savepoint_id: int | None = None
        self.rollback_id: int | None = None
        self.mode = BATCH
        self.is_insert = False
        self.want_put = insert_cursor
        self.put: ic.InsertCursor | None = None
        # the insert cursor on the server: None (never opened), OPEN, CLOSED
        # (a COMMIT closed it) or UNKNOWN (a request of its chunk failed)
        self.put_cursor: str | None = None
        # The rows once more (a list or tuple): only then may a kept statement
        # be used, since one that went stale (-710) means starting over.
        self.rows_again = rows_again
        self.prepared: st.Prepared | None = None
        self.borrowed = Borrowed(self.session, cursor.connection._statements)
        self.recheck = False        # the first chunk runs on a kept statement
        self.chunk = ChunkWatch(cursor, self._account, self._put_account)  # chunk_gen's
        cursor.rowcount = 0
        cursor.batch_errors = [] if batch_errors else None
        cursor.commit_in_doubt = None

    # -- the statement ---------------------------------------------------------
    def start_gen(self):
        """The statement: kept by the connection when the rows can be sent
        again (no PREPARE round trip), else prepared now (and offered to the
        connection's cache for the next call)."""
        borrowed = self.borrowed
        prepared = borrowed.checkout(self.sql) if self.rows_again is not None else None
        self.recheck = prepared is not None
        try:
            if prepared is None:
                prepared = yield from borrowed.prepare(self.sql, self.count)
            self._adopt(prepared)
            if self.mode == SAVEPOINT_MODE and self.savepoint_id is None:
                self.savepoint_id = (yield from borrowed.own(SAVEPOINT)).stmt_id
        except BaseException:
            self.finish()       # what was prepared or lent goes back
            raise

    def restart_gen(self):
        """The kept statement went stale (-710) before any row landed:
        prepare it afresh; the caller sends every row again."""
        self.borrowed.drop_stale(self.prepared)
        self.stmt_id = self.prepared = None
        self.put, self.put_cursor, self.recheck = None, None, False
        self._adopt((yield from self.borrowed.prepare(self.sql, self.count)))

    def _adopt(self, prepared: st.Prepared) -> None:
        """Take the statement's description: mode, and the insert cursor's
        plan (derived once per statement and code set)."""
        session = self.session
        self.prepared, self.stmt_id = prepared, prepared.stmt_id
        self.cursor._note_warnings(prepared.warnings)
        self.is_insert = prepared.describe.stmt_type == StmtType.INSERT
        if prepared.sets_session or prepared.describe.stmt_type in _SESSION_STATE_KINDS:
            session.state_changes += 1      # a pool does not hand the connection on
        self.mode = self._choose_mode()
        if self.want_put is not False and self.order is None:
            bulk = prepared.bulk
            if bulk is None or bulk[0] != session.encoding:
                bulk = prepared.bulk = (session.encoding, ic.put_plan(
                    prepared, session.encoding, BindExecute(self.stmt_id).request))
            self.put = bulk[1]
        if self.want_put and self.put is None:
            self.finish()
            raise NotSupportedError(
                "insert_cursor=True needs INSERT INTO t [(cols)] VALUES (?, ...) with one ? "
                "per column, positional parameters, and columns of types the insert cursor "
                "sends (no BYTE/TEXT/LVARCHAR/INTERVAL/SMALLFLOAT/UDT)")

    def _choose_mode(self) -> str:
        if self.batch_errors:
            return BATCH
        if not self.session.logged:
            return UNLOGGED
        return AUTOCOMMIT if self.session.autocommit else SAVEPOINT_MODE

    def chunks(self, rows: Iterable[Sequence[Any]], start: int = 0
               ) -> Iterator[tuple[int, list[bytes]]]:
        """Requests in chunks from Python rows (the tuple row source)."""
        if self.put is not None:
            return ic.chunks(rows, self.put, self.order, self.count, self.session.encoding,
                             self.chunk_size, self.chunk_bytes, at_row, start)
        rows = tuple_rows(rows, self.order, self.count, self.session.encoding)
        return chunk(rows, BindExecute(self.stmt_id),
                     self.chunk_size, self.chunk_bytes, start)

    def arrow_chunks(self, source: Any) -> Iterator[tuple[int, list[bytes]]]:
        """Requests in chunks from Arrow data, encoded a column at a time
        (``arrow.ingest``); positional markers only."""
        from .arrow import ingest
        if isinstance(self.order, tuple):
            raise InterfaceError("Arrow data binds by position: use ? markers, "
                                 "or cursor.load_arrow(table, data)")
        if self.put is not None:
            from .arrow import put_images, put_requests
            from .arrow._deps import load
            batches = put_images.put_batches(source, self.order, self.count, self.put,
                                             self.session.encoding)
            return put_requests.chunks(load()[0], batches, self.put, self.chunk_size,
                                       self.chunk_bytes, at_row)
        from .arrow.load_types import described_targets
        rows = ingest.encoded_rows(source, self.order, self.count, Unencodable,
                                    self.session.encoding, described_targets(self.prepared))
        return chunk(rows, BindExecute(self.stmt_id), self.chunk_size, self.chunk_bytes)

    async def async_chunks(self, rows) -> Any:
        """Chunks from an async iterable: a chunk's rows are gathered, then
        encoded; rows a failing source did produce are sent first."""
        batch: list = []
        base = 0
        source = rows.__aiter__()
        while True:
            try:
                row = await source.__anext__()
            except StopAsyncIteration:
                break
            except BaseException:
                for chunk in self.chunks(batch, base):
                    yield chunk
                raise
            batch.append(row)
            if len(batch) >= self.chunk_size:
                for chunk in self.chunks(batch, base):
                    yield chunk
                base += len(batch)
                batch = []
        for chunk in self.chunks(batch, base):
            yield chunk

    def finish(self) -> None:
        """Give kept statements back to the connection (an insert cursor left
        open is closed first) and release the others: cleanup rides on the
        next request."""
        borrowed = self.borrowed
        if borrowed.is_kept(self.stmt_id):
            if self.put_cursor == OPEN:
                self.session.defer_cleanup(rq.close_only(self.stmt_id))
            elif self.put_cursor == UNKNOWN:
                # CLOSE of a closed cursor fails in an ANSI database (IBM
                # Guide to SQL: Syntax, CLOSE): alone, its reply ignored
                self.session.owe(rq.close_only(self.stmt_id))
        borrowed.finish(self.stmt_id, cursor_open=self.put is not None)
        borrowed.finish(self.savepoint_id)
        borrowed.finish(self.rollback_id)
        self.stmt_id = self.savepoint_id = self.rollback_id = None

    # -- one chunk -----------------------------------------------------------------
    @property
    def _ansi_batch(self) -> bool:
        """batch_errors in autocommit mode on an ANSI database: the rows run
        in the server's implicit transaction, which the chunk must commit."""
        return self.mode == BATCH and self.session.ansi and self.session.autocommit

    @property
    def _commits_chunk(self) -> bool:
        return (self.mode == AUTOCOMMIT or self._ansi_batch
                or (self.commit_every_chunk and self.mode != UNLOGGED))

    def _exact(self, requests: list) -> bool:
        """Whether a chunk inside the caller's transaction needs no savepoint:
        one request, which the server stops at its failing row -- a failed
        EXECUTE undoes only itself, a failed SQ_PUT keeps the rows before the
        failing one and discards the rest (SQ_PUTERR's count; ESQL/C
        sqlerrd[2] after FLUSH) -- so exactly the rows before it are applied,
        with nothing to roll back or replay.  IBM's JDBC driver relies on the
        same: its sendPut writes one SQ_PUT per variable-width row into one
        request and builds executeBatch's row statuses from SQ_PUTERR's count
        alone (IfxSqli.sendPut, receivePutErr).  Saves a statement per small
        call (SQLAlchemy's ORM sends many)."""
        return self.mode == SAVEPOINT_MODE and len(requests) == 1

    def _open_chunk(self, exact: bool = False) -> Expect | None:
        """What protects the chunk: a transaction of its own, or a savepoint
        (none for an ``exact`` chunk)."""
        session = self.session
        if self.mode == AUTOCOMMIT or self._ansi_batch:
            return _own_transaction(session)
        if self.mode == SAVEPOINT_MODE and not exact:
            return session.send(rq.execute(self.savepoint_id, [], release=False), begin=True)
        return None

    def _send_chunk(self, guard: Expect | None, requests: list[bytes], meanwhile,
                    first: int, blocks: ic.Blocks | None = None):
        """Send a chunk's requests back to back, let the caller encode the next
        chunk (``meanwhile``) while the server works, then wait for the last
        reply; a failed protection (BEGIN/savepoint) raises here.  Returns
        the requests' Expects."""
        # a kept statement sent no PREPARE to carry the implicit SQ_BEGIN
        expects = self.session.send_many(requests, begin=guard is None)
        self.chunk.sent(self.session, guard, first, requests, expects, blocks)
        yield FLUSH
        if meanwhile is not None:
            meanwhile()
        yield expects[-1]
        if guard is not None:
            st.raise_for(guard.reply)
        return expects

    def chunk_gen(self, chunk: tuple[int, list[bytes]], meanwhile=None):
        """One chunk.  Until it ends -- or raises what the server said -- it
        is open: an interrupt then leaves work half done (``note_failure``)."""
        first, requests = chunk
        self.chunk.begin()
        try:
            if isinstance(requests, ic.Blocks):
                yield from self._put_chunk(first, requests, meanwhile)
            else:
                yield from self._bind_chunk(first, requests, meanwhile)
        except (Error, Stale):
            self.chunk.failed(self.session)
            raise
        self.chunk.end()

    def _bind_chunk(self, first: int, requests: list[bytes], meanwhile):
        counted = self.cursor.rowcount
        exact = self._exact(requests)
        guard = self._open_chunk(exact)
        expects = yield from self._send_chunk(guard, requests, meanwhile, first)
        if self._went_stale(expects):
            if self._commits_chunk:
                yield from _commit(self.session)
            raise Stale
        if self.session.tx_aborted:
            raise (yield from self._aborted(first, expects, [1] * len(expects)))
        failed = self._account(first, expects, exact)
        if failed is not None and self.mode in (AUTOCOMMIT, SAVEPOINT_MODE) and not exact:
            yield from self._repair(first, requests, failed)
        if self._commits_chunk:
            yield from self.chunk.commit_gen(self.session, first, len(requests), counted)
        if failed is not None and self.mode != BATCH:
            raise failed

    def note_failure(self, exc: BaseException) -> None:
        """The call failed with ``exc``: what it means for the chunk under
        way (``ChunkWatch.stopped``: a COMMIT in doubt, an open chunk)."""
        committed = self.chunk.stopped(exc, self.session, self.cursor.connection._io)
        if committed and self.put_cursor == OPEN:
            self.put_cursor = CLOSED     # the COMMIT closed it (not WITH HOLD)

    def _aborted(self, first: int, expects: list[Expect], counts: list[int],
                 own_tx: bool = False):
        """The server aborted the transaction (-458) at a row of this chunk:
        nothing to repair -- the transaction is gone, and no savepoint or
        replay can bring it back -- so the call stops, even with
        batch_errors, with the error that says what is in the table
        (txabort.report).  A transaction the call opened itself (autocommit,
        commit_every_chunk) is the call's to end: the connection is left out
        of the aborted state; the caller's own transaction is the caller's
        to end with rollback()."""
        own = own_tx or self._commits_chunk
        failed = txabort.report(first, expects, counts, ansi=self.session.ansi,
                                applied_until=first if own else 0)
        self.cursor.rowcount = failed.applied_until + len(failed.applied_after)
        if own:
            yield from self.cursor.connection._end_aborted_gen()
        return failed

    def _went_stale(self, expects: list[Expect]) -> bool:
        """The first chunk on a kept statement: whether every request failed
        with -710 (the table changed since the PREPARE) and so no row landed:
        then the statement is prepared again and the rows sent again."""
        if not self.recheck:
            return False
        self.recheck = False
        for expect in expects:
            reply = expect.reply
            if (reply.error is None or reply.error.sqlcode != STALE_STATEMENT
                    or reply.done_rows or reply.put_inserted):
                return False
        return True

    def _account(self, first: int, expects: list[Expect], exact: bool = False
                 ) -> Error | None:
        """Count what landed; the first failure's error (None if all landed).

        When the chunk will be repaired (rolled back and replayed), nothing
        of this pass is counted: the replay counts what finally landed
        (an ``exact`` chunk is never repaired).
        """
        cursor = self.cursor
        failed: Error | None = None
        applied, lastrowid, applied_after = 0, cursor.lastrowid, []
        for i, expect in enumerate(expects):
            reply = expect.reply
            cursor._note_warnings(reply)
            if reply.error is None:
                if failed is not None:
                    applied_after.append(first + i)
                applied += max(reply.rowcount, 0)
                if self.is_insert:
                    lastrowid = reply.serial8 or reply.bigserial or reply.serial or lastrowid
                continue
            error = row_error(first + i, reply)
            if self.mode == BATCH:
                cursor.batch_errors.append(error)
            elif failed is None:
                failed = error
        if failed is None or exact or self.mode in (BATCH, UNLOGGED):
            cursor.rowcount += applied
            cursor.lastrowid = lastrowid
        if failed is not None and self.mode == UNLOGGED and applied_after:
            _note_applied_after(failed, applied_after)
        return failed

    def _repair(self, first: int, requests: list[bytes], failed: Error):
        """Undo the chunk, then apply exactly the rows before the failing one."""
        session = self.session
        upto = failed.row_index - first
        while True:
            yield from self._undo_chunk()
            guard = self._open_chunk()
            expects = session.send_many(requests[:upto])
            yield FLUSH
            if not expects:
                if guard is not None:
                    yield guard
                    st.raise_for(guard.reply)
                return
            yield expects[-1]
            if guard is not None:
                st.raise_for(guard.reply)
            again = self._account(first, expects)
            if again is None:
                return
            # A row that succeeded before fails now (a concurrent change):
            # that row is the one the caller hears about.
            failed.row_index, upto = again.row_index, again.row_index - first
            failed.args = again.args

    # -- one chunk through the insert cursor --------------------------------------
    def _put_chunk(self, first: int, blocks: ic.Blocks, meanwhile):
        session = self.session
        # OPEN of an insert cursor needs a transaction in a logged database:
        # batch_errors in autocommit mode gets one per chunk.
        own_tx = self.mode == BATCH and session.autocommit and session.logged
        exact = self._exact(blocks)
        counted = self.cursor.rowcount
        guard = _own_transaction(session) if own_tx else self._open_chunk(exact)
        self.put_cursor = UNKNOWN
        expects = yield from self._send_chunk(guard, list(blocks), meanwhile, first, blocks)
        if self._went_stale(expects):
            if own_tx or self._commits_chunk:
                yield from _commit(session)
            raise Stale
        if session.tx_aborted:
            self.put_cursor = CLOSED         # with the transaction (not WITH HOLD)
            raise (yield from self._aborted(first, expects, blocks.counts, own_tx))
        if all(expect.reply.error is None for expect in expects):
            self.put_cursor = OPEN
        failed, discarded = self._put_account(first, blocks, expects, exact)
        while discarded:         # batch_errors: rows a failed block dropped go again
            start, stop = discarded.pop(0)
            items = blocks.items[start - first:stop - first]
            again = ic.Blocks(*self.put.requests(items), items)
            expects = session.send_many(list(again))
            self.chunk.sent(session, None, start, list(again), expects, again)
            yield FLUSH
            yield expects[-1]
            discarded += self._put_account(start, again, expects)[1]
        if failed is not None and self.mode in (AUTOCOMMIT, SAVEPOINT_MODE) and not exact:
            yield from self._put_repair(first, blocks, failed)
        if own_tx or self._commits_chunk:
            yield from self.chunk.commit_gen(self.session, first, sum(blocks.counts),
                                             counted)
            if self.put_cursor == OPEN:
                self.put_cursor = CLOSED     # COMMIT closes a cursor not WITH HOLD
        if failed is not None and self.mode != BATCH:
            raise failed

    def _put_account(self, first: int, blocks: ic.Blocks, expects: list[Expect],
                     exact: bool = False) -> tuple[Error | None, list[tuple[int, int]]]:
        """``_account`` for PUT requests: a failed block says how many of its
        rows went in before the failing one (SQ_PUTERR); the rest of it was
        discarded -- with batch_errors those (start, stop) row ranges are
        returned to be sent again."""
        cursor = self.cursor
        failed: Error | None = None
        applied, applied_after, discarded = 0, [], []
        row = first
        for expect, count in zip(expects, blocks.counts):
            reply = expect.reply
            cursor._note_warnings(reply)
            if reply.error is None:
                if reply.done_rows != count:
                    self.session.mark_broken("the server confirmed "
                                             f"{reply.done_rows} of {count} rows put")
                    raise InterfaceError(f"the server confirmed {reply.done_rows} of the "
                                         f"{count} rows put from row {row}: the rows in the "
                                         "table are unknown, the connection is closed")
                if failed is not None:
                    applied_after.extend(range(row, row + count))
                applied += count
                row += count
                continue
            landed = reply.done_rows + (reply.put_inserted or 0)
            if failed is not None:
                applied_after.extend(range(row, row + landed))
            applied += landed
            error = row_error(row + landed, reply)
            if self.mode == BATCH:
                cursor.batch_errors.append(error)
                if row + landed + 1 < row + count:
                    discarded.append((row + landed + 1, row + count))
            elif failed is None:
                failed = error
            row += count
        if failed is None or exact or self.mode in (BATCH, UNLOGGED):
            cursor.rowcount += applied
        if failed is not None and self.mode == UNLOGGED and applied_after:
            _note_applied_after(failed, applied_after)
        return failed, discarded

    def _put_repair(self, first: int, blocks: ic.Blocks, failed: Error):
        """``_repair`` for PUT: undo the chunk, put exactly the rows before the failing one."""
        session = self.session
        upto = failed.row_index - first
        while True:
            yield from self._undo_chunk()
            guard = self._open_chunk()
            items = blocks.items[:upto]
            again = ic.Blocks(*self.put.requests(items), items)
            expects = session.send_many(list(again), begin=guard is None)
            yield FLUSH
            if guard is not None and not expects:
                yield guard
            if expects:
                yield expects[-1]
            if guard is not None:
                st.raise_for(guard.reply)
            if not expects:
                return
            again_failed, _ = self._put_account(first, again, expects)
            if again_failed is None:
                return
            failed.row_index, upto = again_failed.row_index, again_failed.row_index - first
            failed.args = again_failed.args

    def _undo_chunk(self):
        session = self.session
        if self.mode == AUTOCOMMIT:
            yield from st.exchange(session, rq.ROLLBACK)
            session.transaction_ended()
            return
        if self.rollback_id is None:
            self.rollback_id = (yield from self.borrowed.own(ROLLBACK_TO_SAVEPOINT)).stmt_id
        yield from st.exchange(session, rq.execute(self.rollback_id, [], release=False))


def _own_transaction(session) -> Expect | None:
    """Open the transaction a chunk runs in: SQ_BEGIN, or in an ANSI database
    nothing -- autocommit left no work open, and the chunk's first statement
    opens the server's implicit transaction (BEGIN WORK there is -535 after
    any statement: IBM Guide to SQL: Syntax, "BEGIN WORK and ANSI-Compliant
    Databases"); the chunk still ends with COMMIT or ROLLBACK WORK."""
    if session.ansi:
        session.in_transaction = True
        return None
    return session.send(_BEGIN, opens=True)


def _commit(session):
    if session.in_transaction:
        try:
            yield from st.exchange(session, rq.COMMIT)
        finally:
            session.in_transaction = False
        session.transaction_ended()


def _note_applied_after(failed: Error, applied_after: list[int]) -> None:
    failed.applied_after = applied_after
    with_note(failed, f"database without logging: rows {ranges(applied_after)} after it "
                      "in the same chunk were applied and cannot be rolled back")


class ProgressReport:
    """executemany's progress callback: rows done and request bytes sent,
    reported after each chunk's replies are checked (between exchanges, so
    an exception from the callback stops the call with every reported row
    applied and nothing half-sent)."""

    def __init__(self, start: tuple) -> None:
        self.callback, self.start, _ = start
        self.rows = 0
        self.sent = 0

    def chunk_done(self, chunk: tuple[int, list[bytes]]) -> None:
        first, requests = chunk
        counts = getattr(requests, "counts", None)
        self.rows = first + (len(requests) if counts is None else sum(counts))
        self.sent += sum(map(rq.body_size, requests))
        if self.callback is not None:
            self.callback(self.rows, self.sent, time.perf_counter() - self.start)


class Lookahead:
    """Iterates the chunks, able to build the next one ahead of time.

    ``prepare`` pulls the next chunk early (the client's encoding then
    overlaps with the server's work on the current chunk); an exception it
    meets -- a row that cannot be encoded, or the caller's generator failing --
    is kept and raised when the loop reaches that point, after the current
    chunk's replies were handled.
    """

    _EMPTY = object()

    def __init__(self, chunks: Iterator) -> None:
        self._chunks = chunks
        self._next: object = self._EMPTY
        self._error: BaseException | None = None

    def prepare(self) -> None:
        if self._next is self._EMPTY and self._error is None:
            try:
                self._next = next(self._chunks)
            except StopIteration:
                self._next = None
            except BaseException as exc:  # noqa: BLE001 - re-raised in order
                self._error = exc

    def __iter__(self) -> Lookahead:
        return self

    def __next__(self):
        self.prepare()
        item, self._next = self._next, self._EMPTY
        if item is not None and item is not self._EMPTY:
            return item
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        raise StopIteration
