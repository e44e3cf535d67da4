"""Server-side cursors of the emulator's SQLI session, and their lifecycle.

A cursor is opened by SQ_OPEN (with SQ_SCROLL and SQ_HOLD before it when
asked), read by SQ_NFETCH or SQ_SFETCH and closed by SQ_CLOSE, by releasing
its statement, or -- unless it was declared WITH HOLD -- by the end of its
transaction (see ``close_unheld``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from itertools import accumulate

from .. import codecs
from . import composite_wire
from .statements import NOT_SUPPORTED, SqlError


class ServerCursor:
    """Server-side position in a result, producing SQ_TUPLE messages on demand.

    A row source may hand over rows already in tuple form (``encoded``), as
    the engine does when it keeps row images for a table; otherwise rows are
    encoded here, once, as they are fetched.
    """

    def __init__(self, source, columns: list, scroll: bool, hold: bool = False,
                 encoding: str = "iso-8859-1") -> None:
        self.source = source
        self.hold = hold                 # survives COMMIT/ROLLBACK WORK
        self.encoded = getattr(source, "encoded", False)
        self.types = [c.type for c in columns]
        self.encoding = encoding
        self.binary: frozenset[int] = frozenset()   # UDT columns sent in binary form
        udt = any(t.code in composite_wire.UDT_CODES for t in self.types)
        # text in the session's code set; UDT columns in their text form
        # until an SQ_RET_TYPE asks otherwise (send_binary)
        self.encode = None if self.encoded else (
            composite_wire.tuple_encoder(self.types, self.binary, encoding) if udt
            else codecs.make_tuple_encoder(self.types, encoding))
        # a scroll cursor with UDT columns keeps its values too, so an
        # SQ_RET_TYPE after OPEN can still change their form (send_binary)
        self.values: list | None = None
        self._keep = scroll and udt
        # Lets go of the tables this cursor holds open (table_use.py), at its
        # close: a drained result still holds them until then.
        self.release_use: Callable[[], None] = _nothing
        self.pending: list[bytes] = []   # tuple messages fetched but not sent
        self.sent = 0
        self.exhausted = False
        self.rows: list[bytes] | None = None
        if scroll:                       # random access needs the whole result
            self.rows = self._drain()
            self.position = 0            # 1-based index of the last row sent

    def _next(self, hint: int) -> list[bytes]:
        batch = self.source.fetch(hint)
        if self._keep:
            self.values = (self.values or []) + list(batch)
        return batch if self.encoded else list(map(self.encode, batch))

    def _drain(self) -> list[bytes]:
        out: list[bytes] = []
        while batch := self._next(1024):
            out.extend(batch)
        self.source.close()
        return out

    def send_binary(self, binary: frozenset[int]) -> None:
        """SQ_RET_TYPE asked the binary form of these UDT columns
        (emulator/composite_wire.py): rows not yet sent use it."""
        if binary == self.binary:
            return
        if self.encoded or self.pending or (self.sent and self.rows is None):
            # rows of this cursor already went out (or were built) in the
            # other form; switching now would mix forms within one result
            raise SqlError(NOT_SUPPORTED, message="changing the form of UDT columns "
                           "in the middle of a result is not supported by the emulator")
        self.encode = composite_wire.tuple_encoder(self.types, binary, self.encoding)
        self.binary = binary
        if self.rows is not None:
            self.rows = list(map(self.encode, self.values or []))

    def fetch(self, bufsize: int, out: bytearray) -> bool:
        """Append whole tuples whose row images fit in ``bufsize`` (at least
        one); True once the result is exhausted and everything was sent.

        This is the emulator's serving hot path, so the per-row work is done
        by C-level helpers: running totals of the message lengths, a binary
        search for how many fit (each message is its row image plus an
        8-byte header), one join.
        """
        used = 0
        pending = self.pending
        while True:
            if not pending:
                if self.exhausted:
                    break
                batch = self._next(max(16, bufsize // 24))
                if not batch:
                    self.exhausted = True
                    break
                pending.extend(batch)
            ends = list(accumulate(map(len, pending)))
            fits = bisect_right(range(len(ends)), bufsize - used,
                                key=lambda j: ends[j] - 8 * (j + 1))
            if fits == 0:
                if used:
                    break
                fits = 1                   # one tuple always goes
            out += b"".join(pending[:fits])
            used += ends[fits - 1] - 8 * fits
            self.sent += fits
            del pending[:fits]
            if pending:
                break
        return self.exhausted and not pending

    def close(self) -> None:
        self.source.close()
        self.release_use()


def _nothing() -> None:
    """A cursor that holds no table open."""


def close_unheld(statements: Iterable) -> None:
    """COMMIT WORK / ROLLBACK WORK ends a transaction: close every open
    cursor not declared WITH HOLD; a later fetch on it gets -400.

    Hold cursors stay open and keep their place through both COMMIT and
    ROLLBACK.  HCL/IBM Informix SQL Syntax: DECLARE, "Using hold cursors"
    (the cursor "should remain open when a transaction closes (by being
    committed or by being rolled back)"); COMMIT WORK statement (it "closes
    all open cursors except those that were declared using the WITH HOLD
    keywords").  IBM's JDBC driver marks every cursor closed after a
    ROLLBACK (IfxSqli.executeRollback -> markCursorsToClosed(false)), but
    that only makes it skip SQ_CLOSE; it still fetches on a hold cursor.
    """
    for st in statements:
        cur = st.cursor
        if cur is not None and not cur.hold:
            cur.close()
            st.cursor = None
