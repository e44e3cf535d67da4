"""A scroll cursor's fetches (SQ_SFETCH): absolute positions, the last row
for the row count, relative moves.  A mixin of CursorBase; the server keeps
the result, so every move is one exchange and nothing is cached here."""

from __future__ import annotations

from .core import requests as rq
from .core import statement as st
from .errors import InterfaceError, ProgrammingError


class ScrollFetches:
    """Needs the cursor's _stmt_id, _session, _decode, fetch_buffer_size,
    _note_warnings, _make_row, _position and _total."""

    def _sfetch_gen(self, kind: int, target: int):
        if self._stmt_id is None:       # closed by another thread while this waited
            raise InterfaceError("cursor is closed")
        body = rq.sfetch(self._stmt_id, kind, target, self.fetch_buffer_size)
        reply = yield from st.exchange(self._session, body, decode=self._decode,
                                       budget=self.fetch_buffer_size)
        self._note_warnings(reply)
        return reply

    def _row_total_gen(self):
        if self._total is None:
            reply = yield from self._sfetch_gen(rq.SCROLL_LAST, 0)
            self._total = reply.tupid if reply.rows else 0
        return self._total

    def _scroll_fetch_gen(self, target: int):
        """Row ``target`` (1-based), or None with the cursor before the first
        row or after the last one, as JDBC's ResultSet.absolute/relative
        leave it: the next fetchone then gives the first or nothing, and
        fetch_prior the last.  An empty reply only says the result has fewer
        than ``target`` rows, so the row count is asked for, never guessed."""
        if target < 1:
            self._position = 0
            return None
        if self._total is not None and target > self._total:
            self._position = self._total + 1
            return None
        reply = yield from self._sfetch_gen(rq.SCROLL_ABSOLUTE, target)
        if not reply.rows:
            if target == 1:
                self._total = 0
            total = yield from self._row_total_gen()
            self._position = total + 1
            return None
        self._position = target
        row = reply.rows[0]
        return row if self._make_row is None else self._make_row(row)

    def _scroll_many_gen(self, size: int):
        out: list = []
        while size < 0 or len(out) < size:
            row = yield from self._scroll_fetch_gen(self._position + 1)
            if row is None:
                break
            out.append(row)
        return out

    def _scroll_target(self, value: int, mode: str) -> int:
        if mode == "relative":
            return self._position + value
        if mode == "absolute":
            return value
        raise ProgrammingError(f"scroll mode must be 'relative' or 'absolute', not {mode!r}")
