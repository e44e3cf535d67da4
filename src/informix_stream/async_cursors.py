"""asyncio cursors: the operations of ``cursor_base``, awaited.

``async for row in cur`` streams with read-ahead like the blocking cursor;
``await cur.executemany(sql, rows)`` is the same pipelined, chunked path and
takes a sync or an async iterable.  A cursor is one task's at a time: each
call claims it across its awaits (``cursor_claim``).
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from . import executemany as em
from . import lobstream
from .arrow import AsyncArrowCursorMixin, ingest
from .cursor_base import CursorBase, MaterializingKind, ScrollableKind, callproc_sql
from .cursor_claim import AsyncCursorClaim, claimed
from .errors import NotSupportedError, ProgrammingError


class AsyncCursor(AsyncCursorClaim, AsyncArrowCursorMixin, CursorBase):
    """The default asyncio cursor: streams one fetch buffer at a time (as
    tuples, or as Arrow record batches through the mixin)."""

    _lob_stream_class = lobstream.AsyncLobStream
    _results = 0            # statements run: a loop over an earlier one must stop

    def __init__(self, conn, **kwargs: Any) -> None:
        super().__init__(conn, **kwargs)
        self._init_claim()

    def _reset(self) -> None:
        super()._reset()
        self._live = None
        self._results += 1

    @claimed
    async def execute(self, operation: str, parameters: Sequence[Any] | None = None, *,
                      timeout: float | None = None,
                      progress: Callable[[int, int, float], Any] | None = None
                      ) -> AsyncCursor:
        """Run ``operation``; ``progress`` as for ``Cursor.execute``."""
        start = self._progress_start(progress)
        await self.connection._wait(self._execute_gen(operation, parameters), timeout)
        if progress is not None and self.description:
            self._progress = start
            self._tell_progress()
        return self

    @claimed
    async def callproc(self, procname: str, parameters: Sequence[Any] = (), *,
                       timeout: float | None = None) -> Sequence[Any]:
        """PEP 249 callproc, as ``Cursor.callproc``."""
        await AsyncCursor.execute.__wrapped__(self, callproc_sql(procname, parameters),
                                              list(parameters), timeout=timeout)
        return parameters

    @claimed
    async def executemany(self, operation: str, seq_of_parameters, *,
                          batch_errors: bool = False, chunk_size: int | None = None,
                          chunk_bytes: int | None = None,
                          commit_every_chunk: bool = False,
                          insert_cursor: bool | None = None,
                          progress: Callable[[int, int, float], Any] | None = None
                          ) -> AsyncCursor:
        """Pipelined in chunks, with ``Cursor.executemany``'s error contract
        and ``progress`` callback."""
        report = em.ProgressReport(self._progress_start(progress))
        self._check_open()
        self._reset()
        conn = self.connection
        arrow = ingest.is_arrow_source(seq_of_parameters)
        again = em.rows_again(seq_of_parameters, arrow)
        if arrow:
            named = False
        elif hasattr(seq_of_parameters, "__aiter__"):
            seq_of_parameters, named = await em.apeek(seq_of_parameters)
        else:
            seq_of_parameters, named = em.peek(seq_of_parameters)
        plan = em.Plan(self, operation, batch_errors=batch_errors, chunk_size=chunk_size,
                       chunk_bytes=chunk_bytes, commit_every_chunk=commit_every_chunk,
                       named=named, insert_cursor=insert_cursor, rows_again=again)
        async with conn._lock:      # no other task runs between a chunk and its repair
            await conn._run(plan.start_gen())
            try:
                if not arrow and hasattr(seq_of_parameters, "__aiter__"):
                    chunks = plan.async_chunks(seq_of_parameters)
                    try:
                        async for chunk in chunks:
                            await conn._run(plan.chunk_gen(chunk))
                            report.chunk_done(chunk)
                    finally:
                        await chunks.aclose()
                else:
                    try:
                        await self._send_chunks(plan, seq_of_parameters, arrow, report)
                    except em.Stale:   # nothing landed: prepare again, send every row again
                        await conn._run(plan.restart_gen())
                        await self._send_chunks(plan, again, False, report)
            except BaseException as exc:
                plan.note_failure(exc)
                raise
            finally:
                plan.finish()
        self._raise_warnings()
        return self

    async def _send_chunks(self, plan: em.Plan, rows: Any, arrow: bool,
                           report: em.ProgressReport) -> None:
        conn = self.connection
        ahead = em.Lookahead(plan.arrow_chunks(rows) if arrow else plan.chunks(rows))
        for chunk in ahead:
            await conn._run(plan.chunk_gen(chunk, ahead.prepare))
            report.chunk_done(chunk)

    async def load_arrow(self, table: str, data: Any, columns: Sequence[str] | None = None,
                         **options: Any) -> AsyncCursor:
        """``Cursor.load_arrow``, awaited."""
        if columns is not None:
            data = ingest.select_columns(data, columns)
        names = list(columns) if columns is not None else ingest.source_names(data)
        return await self.executemany(ingest.insert_statement(table, names), data, **options)

    async def _fetch_batch(self) -> bool:
        """The next fetch buffer becomes the current batch (False at the end);
        a cursor closed meanwhile (by a loop's body) raises."""
        self._check_open()
        if self._exhausted:
            # the server sent the end already: no lock, no I/O, so reading a
            # small result to its end costs no second trip through the loop
            self._tell_progress()
            return False
        got = await self.connection._wait(self._fetch_batch_gen())
        self._tell_progress()
        return got

    _next_batch = claimed(_fetch_batch)

    async def fetchone(self) -> Any:
        """A row in hand is returned with no await: no other task runs during
        the call, so finding the claim free is enough (taking and freeing it
        cost ~100 ns a row); a fetch from the server is claimed."""
        if self._claimed_now():
            raise ProgrammingError(self._refusal())
        if self._live is not None:
            self._settle()
        self._check_result()
        pos = self._pos
        if pos < len(self._batch) and not self.scrollable:
            self._pos = pos + 1
            return self._batch[pos]
        return await self._fetchone_awaiting()

    @claimed
    async def _fetchone_awaiting(self) -> Any:
        if self.scrollable:
            return await self.connection._wait(self._scroll_fetch_gen(self._position + 1))
        while self._pos >= len(self._batch):
            if not await self._fetch_batch():
                return None
        row = self._batch[self._pos]
        self._pos += 1
        return row

    async def _fetchmany(self, size: int | None = None) -> list:
        self._check_result()
        size = self._fetchmany_size(size)
        if self.scrollable:
            return await self.connection._wait(self._scroll_many_gen(size))
        out: list = []
        while len(out) < size:
            if self._pos >= len(self._batch) and not await self._fetch_batch():
                break
            self._take_from_batch(size, out)
        return out

    fetchmany = claimed(_fetchmany)

    @claimed
    async def fetchall(self) -> list:
        self._check_result()
        if self.scrollable:
            return await self.connection._wait(self._scroll_many_gen(-1))
        out = self._batch[self._pos:]
        self._batch, self._pos = [], 0
        while await self._fetch_batch():
            out += self._batch
        self._batch = []
        return out

    async def __aiter__(self) -> AsyncIterator:
        """Rows until the end.  The loop holds no claim between rows
        (``cursor_claim``): its position is the live iterator, which a call
        in its body settles; resumed, it reads on from the cursor's position,
        refusing a cursor closed, running another statement or in another
        task's call meanwhile."""
        self._check_result()
        results = self._results
        if self.scrollable:
            while (row := await self.fetchone()) is not None:
                yield row
                self._check_loop(results)
            return
        while True:
            self._check_loop(results)
            batch, pos = self._batch, self._pos
            if pos < len(batch):
                rows = iter(batch[pos:] if pos else batch)
                live = self._live = (rows, batch)
                for row in rows:
                    yield row
                    if self._live is not live:
                        break           # a call settled the position: read on from it
                else:
                    self._live = None
                    self._pos = len(batch)
            elif not await self._next_batch():
                return

    def _check_loop(self, results: int) -> None:
        """May a loop read on (between batches, or after a call in its body)?
        From the position another loop over the cursor left, if one did."""
        if self._live is not None:
            self._settle()
        self._check_result()
        if self._results != results:
            raise ProgrammingError("this cursor executed another statement while a loop "
                                   "over its result was unfinished; loop over the new "
                                   "result with a new async for")
        if self._claimed_now():
            raise ProgrammingError(self._refusal())

    @property
    def rownumber(self) -> int | None:
        """Read inside a loop from its live iterator, without settling: that
        would send the loop to copy the rest of its batch at every row."""
        live = self._live
        if live is not None and live[1] is self._batch:
            return self._delivered - operator.length_hint(live[0])
        return super().rownumber

    @claimed
    async def scroll(self, value: int, mode: str = "relative") -> None:
        self._check_result()
        target = self._scroll_target(value, mode)
        if not self.scrollable:
            if mode != "relative" or value < 0:
                raise NotSupportedError("a forward-only cursor can only skip forward; "
                                        "use cursor(scrollable=True)")
            if len(await self._fetchmany(value)) < value:
                raise IndexError("scroll past the end of the result")
            return
        total = await self.connection._wait(self._row_total_gen())
        if not 0 <= target <= total:
            raise IndexError(f"scroll target {target} is outside the result")
        self._position = target

    async def close(self) -> None:
        if self._closed:
            return
        try:
            if self._stmt_id is not None and not self.connection.closed:
                await self.connection._wait(self._release_now_gen())
        finally:
            self._closed = True
            self._live = None           # a loop over it stops at its next row
            self._batch = []
            self._end_lob_streams("its cursor was closed")
            self._finalizer.detach()

    async def __aenter__(self) -> AsyncCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncMaterializingCursor(MaterializingKind, AsyncCursor):
    """Reads the whole result at execute."""


class AsyncScrollableCursor(ScrollableKind, AsyncCursor):
    """A server-side scroll cursor (SFETCH)."""

    @claimed
    async def _fetch_to(self, target: int) -> Any:
        self._check_result()
        return await self.connection._wait(self._scroll_fetch_gen(target))

    async def fetch_first(self) -> Any:
        return await self._fetch_to(1)

    @claimed
    async def _total_rows(self) -> int:
        return await self.connection._wait(self._row_total_gen())

    async def fetch_last(self) -> Any:
        total = await self._total_rows()
        return await self._fetch_to(total) if total else None

    async def fetch_prior(self) -> Any:
        return await self._fetch_to(self._position - 1)

    async def fetch_absolute(self, n: int) -> Any:
        if n < 0:
            n = await self._total_rows() + 1 + n
        return await self._fetch_to(n)

    async def fetch_relative(self, n: int) -> Any:
        return await self._fetch_to(self._position + n)


def async_cursor_class(materialize: bool, scrollable: bool) -> type[AsyncCursor]:
    if materialize and scrollable:
        raise ProgrammingError("a cursor is either materializing or scrollable, not both")
    if materialize:
        return AsyncMaterializingCursor
    return AsyncScrollableCursor if scrollable else AsyncCursor
