"""asyncio cursors: the operations of ``cursor_base``, awaited.

``async for row in cur`` streams with read-ahead like the blocking cursor;
``await cur.executemany(sql, rows)`` is the same pipelined, chunked path and
takes a sync or an async iterable.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from . import executemany as em
from . import lobstream
from .arrow import AsyncArrowCursorMixin, ingest
from .cursor_base import CursorBase, MaterializingKind, ScrollableKind, callproc_sql
from .errors import NotSupportedError, ProgrammingError


class AsyncCursor(AsyncArrowCursorMixin, CursorBase):
    """The default asyncio cursor: streams one fetch buffer at a time (as
    tuples, or as Arrow record batches through the mixin)."""

    _lob_stream_class = lobstream.AsyncLobStream

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

    async def callproc(self, procname: str, parameters: Sequence[Any] = (), *,
                       timeout: float | None = None) -> Sequence[Any]:
        """PEP 249 callproc, as ``Cursor.callproc``."""
        await self.execute(callproc_sql(procname, parameters), list(parameters),
                           timeout=timeout)
        return parameters

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
        if self._exhausted:
            # the server sent the end already: no lock, no I/O, so reading a
            # small result to its end costs no second trip through the loop
            self._tell_progress()
            return False
        got = await self.connection._wait(self._fetch_batch_gen())
        self._tell_progress()
        return got

    async def fetchone(self) -> Any:
        self._check_result()
        if self.scrollable:
            return await self.connection._wait(self._scroll_fetch_gen(self._position + 1))
        while self._pos >= len(self._batch):
            if not await self._fetch_batch():
                return None
        row = self._batch[self._pos]
        self._pos += 1
        return row

    async def fetchmany(self, size: int | None = None) -> list:
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
        self._check_result()
        while True:
            if self.scrollable:
                row = await self.fetchone()
                if row is None:
                    return
                yield row
                continue
            batch = self._batch[self._pos:] if self._pos else self._batch
            start = len(self._batch) - len(batch)
            rows = iter(batch)
            try:
                for row in rows:
                    yield row
            finally:
                # Where the caller stopped: every row handed out is consumed.
                self._pos = start + len(batch) - operator.length_hint(rows)
            if not await self._fetch_batch():
                return

    async def scroll(self, value: int, mode: str = "relative") -> None:
        self._check_result()
        target = self._scroll_target(value, mode)
        if not self.scrollable:
            if mode != "relative" or value < 0:
                raise NotSupportedError("a forward-only cursor can only skip forward; "
                                        "use cursor(scrollable=True)")
            for _ in range(value):
                if await self.fetchone() is None:
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

    async def _fetch_to(self, target: int) -> Any:
        self._check_result()
        return await self.connection._wait(self._scroll_fetch_gen(target))

    async def fetch_first(self) -> Any:
        return await self._fetch_to(1)

    async def fetch_last(self) -> Any:
        total = await self.connection._wait(self._row_total_gen())
        return await self._fetch_to(total) if total else None

    async def fetch_prior(self) -> Any:
        return await self._fetch_to(self._position - 1)

    async def fetch_absolute(self, n: int) -> Any:
        if n < 0:
            n = await self.connection._wait(self._row_total_gen()) + 1 + n
        return await self._fetch_to(n)

    async def fetch_relative(self, n: int) -> Any:
        return await self._fetch_to(self._position + n)


def async_cursor_class(materialize: bool, scrollable: bool) -> type[AsyncCursor]:
    if materialize and scrollable:
        raise ProgrammingError("a cursor is either materializing or scrollable, not both")
    if materialize:
        return AsyncMaterializingCursor
    return AsyncScrollableCursor if scrollable else AsyncCursor
