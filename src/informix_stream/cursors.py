"""PEP 249 cursors with blocking I/O: streaming by default, materializing or
scrollable on request.

The protocol logic lives in ``cursor_base`` (shared with the asyncio
cursors); these classes run its operations on the connection and hand out
rows.  Round trips per operation (the cost that matters on a real network):

* SELECT: PREPARE, then OPEN + first NFETCH; one NFETCH per further buffer,
  sent ahead of need while the current buffer is consumed.
* DML/DDL: PREPARE, then BIND + EXECUTE + RELEASE.
* closing a stream early: one round trip (CLOSE + RELEASE), never a drain.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from . import executemany as em
from .arrow import ArrowCursorMixin, ingest
from .cursor_base import CursorBase, MaterializingKind, ScrollableKind, callproc_sql
from .cursor_claim import CursorClaim, claimed
from .errors import NotSupportedError, ProgrammingError


class Cursor(CursorClaim, ArrowCursorMixin, CursorBase):
    """The default cursor: streams one fetch buffer at a time (as tuples, or
    as Arrow record batches through the mixin's ``fetch_arrow_*`` methods).
    One thread at a time: each call claims it (``cursor_claim``)."""

    def __init__(self, conn, **kwargs: Any) -> None:
        super().__init__(conn, **kwargs)
        self._init_claim()

    @claimed

    def execute(self, operation: str, parameters: Sequence[Any] | None = None, *,
                timeout: float | None = None,
                progress: Callable[[int, int, float], Any] | None = None) -> Cursor:
        """Run ``operation``; ``progress(rows, bytes, elapsed)``, if given, is
        called as the result's fetch buffers arrive (see README "Progress")."""
        start = self._progress_start(progress)
        self.connection._wait(self._execute_gen(operation, parameters), timeout)
        if progress is not None and self.description:
            self._progress = start
            self._tell_progress()
        return self

    @claimed
    def callproc(self, procname: str, parameters: Sequence[Any] = (), *,
                 timeout: float | None = None) -> Sequence[Any]:
        """PEP 249 callproc: ``EXECUTE PROCEDURE procname(?, ...)`` with the
        parameters bound (never put into the SQL text).  Returns the
        parameters unchanged (Informix SPL has no OUT parameters for
        procedures); a routine's returned rows are read with fetch*()."""
        Cursor.execute.__wrapped__(self, callproc_sql(procname, parameters),
                                   list(parameters), timeout=timeout)
        return parameters

    @claimed
    def executemany(self, operation: str, seq_of_parameters: Iterable[Sequence[Any]], *,
                    batch_errors: bool = False, chunk_size: int | None = None,
                    chunk_bytes: int | None = None,
                    commit_every_chunk: bool = False,
                    insert_cursor: bool | None = None,
                    progress: Callable[[int, int, float], Any] | None = None) -> Cursor:
        """Pipelined in chunks; see ``informix_stream.executemany`` for the
        error contract (which rows are applied when one fails).
        ``progress(rows, bytes, elapsed)`` is called after each chunk's
        replies are in: rows done so far, request bytes sent, seconds."""
        report = em.ProgressReport(self._progress_start(progress))
        self._check_open()
        self._reset()
        conn = self.connection
        arrow = ingest.is_arrow_source(seq_of_parameters)
        again = em.rows_again(seq_of_parameters, arrow)
        seq_of_parameters, named = (seq_of_parameters, False) if arrow else \
            em.peek(seq_of_parameters)
        plan = em.Plan(self, operation, batch_errors=batch_errors, chunk_size=chunk_size,
                       chunk_bytes=chunk_bytes, commit_every_chunk=commit_every_chunk,
                       named=named, insert_cursor=insert_cursor, rows_again=again)
        with conn._lock:           # no other thread runs between a chunk and its repair
            conn._wait(plan.start_gen())
            try:
                try:
                    self._send_chunks(plan, seq_of_parameters, arrow, report)
                except em.Stale:   # nothing landed: prepare again, send every row again
                    conn._wait(plan.restart_gen())
                    self._send_chunks(plan, again, False, report)
            except BaseException as exc:
                plan.note_failure(exc)
                raise
            finally:
                plan.finish()
        self._raise_warnings()
        return self

    def _send_chunks(self, plan: em.Plan, rows: Any, arrow: bool,
                     report: em.ProgressReport) -> None:
        conn = self.connection
        chunks = em.Lookahead(plan.arrow_chunks(rows) if arrow else plan.chunks(rows))
        for chunk in chunks:
            conn._wait(plan.chunk_gen(chunk, chunks.prepare))
            report.chunk_done(chunk)

    def load_arrow(self, table: str, data: Any, columns: Sequence[str] | None = None,
                   **options: Any) -> Cursor:
        """Insert Arrow data (a pyarrow Table/RecordBatch/RecordBatchReader or
        any ``__arrow_c_stream__`` object: polars, pandas through pyarrow)
        into ``table``: its columns (or ``columns``, by name) bound in order.
        ``options`` are executemany's (chunk_size, batch_errors, progress...)."""
        if columns is not None:
            data = ingest.select_columns(data, columns)
        names = list(columns) if columns is not None else ingest.source_names(data)
        return self.executemany(ingest.insert_statement(table, names), data, **options)

    def _next_batch(self) -> bool:
        """The next fetch buffer becomes the current batch (False at the end);
        a cursor closed meanwhile (by the loop's body) raises."""
        self._check_open()
        if self._exhausted:
            # the server sent the end already: no lock, no I/O, so reading a
            # small result to its end costs no second trip through the loop
            self._tell_progress()
            return False
        got = self.connection._wait(self._fetch_batch_gen())
        self._tell_progress()
        return got

    _loop_rows: Iterator | None = None     # the rows of a for loop's current batch

    @property
    def rownumber(self) -> int | None:
        """Inside a for loop, from the loop's iterator: the loop writes its
        place back only when it leaves a batch."""
        rows = self._loop_rows
        if rows is not None:
            return self._delivered - operator.length_hint(rows)
        return super().rownumber

    def fetchone(self) -> Any:
        free = self._free               # the claim inline, not @claimed: a call per row
        try:
            free.pop()
        except IndexError:
            raise ProgrammingError(self._refusal()) from None
        try:
            self._check_result()
            if self.scrollable:
                return self._scroll_next()
            while self._pos >= len(self._batch):
                if not self._next_batch():
                    return None
            row = self._batch[self._pos]
            self._pos += 1
            return row
        finally:
            free.append(True)

    def _scroll_next(self) -> Any:
        self._check_result()
        return self.connection._wait(self._scroll_fetch_gen(self._position + 1))

    def _fetchmany(self, size: int | None = None) -> list:
        self._check_result()
        size = self._fetchmany_size(size)
        if self.scrollable:
            return self.connection._wait(self._scroll_many_gen(size))
        out: list = []
        while len(out) < size:
            if self._pos >= len(self._batch) and not self._next_batch():
                break
            self._take_from_batch(size, out)
        return out

    fetchmany = claimed(_fetchmany)

    @claimed
    def fetchall(self) -> list:
        """All remaining rows in one list: this materializes the rest of the result."""
        self._check_result()
        if self.scrollable:
            return self.connection._wait(self._scroll_many_gen(-1))
        out = self._batch[self._pos:]
        self._batch, self._pos = [], 0
        while self._next_batch():
            out += self._batch
        self._batch = []
        return out

    def __iter__(self) -> Iterator:
        """Rows until the end; the loop holds the cursor's claim throughout
        (one generator, no inner one: each level would cost every row)."""
        self._claim()
        self._iterating = True
        try:
            self._check_result()
            if self.scrollable:
                yield from iter(self._scroll_next, None)
                return
            while True:
                batch = self._batch[self._pos:] if self._pos else self._batch
                start = len(self._batch) - len(batch)
                rows = self._loop_rows = iter(batch)     # rownumber reads the place from it
                try:
                    yield from rows
                finally:
                    # Where the caller stopped: every row handed out is consumed.
                    self._pos = start + len(batch) - operator.length_hint(rows)
                    self._loop_rows = None
                if not self._next_batch():
                    return
        finally:
            self._iterating = False
            self._unclaim()

    @claimed
    def scroll(self, value: int, mode: str = "relative") -> None:
        self._check_result()
        target = self._scroll_target(value, mode)
        if not self.scrollable:
            if mode != "relative" or value < 0:
                raise NotSupportedError("a forward-only cursor can only skip forward; "
                                        "use cursor(scrollable=True)")
            if len(self._fetchmany(value)) < value:
                raise IndexError("scroll past the end of the result")
            return
        total = self.connection._wait(self._row_total_gen())
        if not 0 <= target <= total:
            raise IndexError(f"scroll target {target} is outside the result")
        self._position = target

    def close(self) -> None:
        """Free the server cursor now (one round trip when a stream is abandoned)."""
        if self._closed:
            return
        try:
            if self._stmt_id is not None and not self.connection.closed:
                self.connection._wait(self._release_now_gen())
        finally:
            self._closed = True
            self._batch = []
            self._end_lob_streams("its cursor was closed")
            self._finalizer.detach()

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MaterializingCursor(MaterializingKind, Cursor):
    """Reads the whole result at execute, as classic drivers do."""


class ScrollableCursor(ScrollableKind, Cursor):
    """A server-side scroll cursor (SFETCH): moves freely over the result."""

    @claimed
    def _fetch_to(self, target: int) -> Any:
        self._check_result()
        return self.connection._wait(self._scroll_fetch_gen(target))

    def fetch_first(self) -> Any:
        return self._fetch_to(1)

    def fetch_last(self) -> Any:
        total = self._total_rows()
        return self._fetch_to(total) if total else None

    @claimed
    def _total_rows(self) -> int:
        return self.connection._wait(self._row_total_gen())

    def fetch_prior(self) -> Any:
        return self._fetch_to(self._position - 1)

    def fetch_absolute(self, n: int) -> Any:
        if n < 0:
            n = self._total_rows() + 1 + n
        return self._fetch_to(n)

    def fetch_relative(self, n: int) -> Any:
        return self._fetch_to(self._position + n)


def cursor_class(materialize: bool, scrollable: bool) -> type[Cursor]:
    if materialize and scrollable:
        raise ProgrammingError("a cursor is either materializing or scrollable, not both")
    if materialize:
        return MaterializingCursor
    return ScrollableCursor if scrollable else Cursor
