"""The COMMIT that ends an executemany chunk, and what is known of the chunk
when the call is stopped around it (executemany.py's ``Plan``).

A chunk that commits on its own (autocommit, ``commit_every_chunk``, the
insert cursor's own transaction, ``batch_errors`` in an ANSI database)
counts in ``rowcount`` only once its COMMIT is answered.  Whatever stops the
call -- a lost connection, a KeyboardInterrupt or any exception a signal
handler raises, a task cancellation -- the chunk is then in one of three
states, and each is told as such:

* the reply was read (even if the operation was stopped before it looked
  at it): committed (counted) or refused (rolled back, not counted); the
  connection is consistent and nothing is in doubt;
* the COMMIT was never wholly offered to the transport (``send`` never
  called with its last byte): the server cannot have run it.  The connection is broken (the I/O layer marks it so when
  bytes are left unsent; a stop before it was even queued is marked here),
  and the server rolls the open transaction back when the socket closes
  (IBM Informix Guide to SQL: Syntax, DISCONNECT, "When a Transaction is
  Active": an application that ends without DISCONNECT has its active
  transactions rolled back), so the chunk is known absent;
* it went out and no answer came: nobody can know whether it landed.  The
  exception and the cursor say which rows: ``commit_in_doubt = (start,
  stop)``, rows of the call.
"""

from __future__ import annotations

from .core import requests as rq
from .core import statement as st
from .core.session import ClientSession, Expect
from .errors import Error
from .row_errors import with_note


class ChunkCommit:
    """One chunk's COMMIT: the call's rows [start, stop), the rows it adds to
    ``cursor.rowcount`` once answered, and its request once queued."""

    def __init__(self, cursor, start: int, stop: int, rows: int) -> None:
        self.cursor = cursor
        self.start, self.stop, self.rows = start, stop, rows
        self.expect: Expect | None = None
        self.ends_at = 0        # session.bytes_handed once the COMMIT may have gone whole
        self.settled = False

    def run(self, session: ClientSession):
        """COMMIT the open transaction (none open: nothing to send); the rows
        are counted once it is answered, a refusal raises (rolled back)."""
        if session.in_transaction:
            self.expect = session.send(rq.COMMIT)
            self.ends_at = session.bytes_sent + len(session.data_to_send())
            yield self.expect
        self.settle(session)
        if self.expect is not None:
            st.raise_for(self.expect.reply)

    def settle(self, session: ClientSession) -> None:
        """The answer is in: the transaction is over; the rows count if the
        server committed them.  Runs once, whichever path gets here first."""
        if self.settled:
            return
        self.settled = True
        error = None if self.expect is None else self.expect.reply.error
        session.in_transaction = False
        if error is None:
            if self.expect is not None:
                session.transaction_ended()
            self.cursor.rowcount += self.rows

    @property
    def answered(self) -> bool:
        """The server's answer is in (or there was nothing to commit)."""
        return self.settled or (self.expect is not None and self.expect.done)

    @property
    def committed(self) -> bool:
        return self.answered and (self.expect is None or self.expect.reply.error is None)

    def in_doubt(self, session: ClientSession) -> tuple[int, int] | None:
        """After the call was stopped: settle an answered COMMIT, and say
        which rows are in doubt (None when the chunk's fate is known: a
        COMMIT not yet queued or not wholly sent never ran)."""
        if self.answered:
            self.settle(session)
            return None
        session.in_transaction = False
        if self.expect is not None and session.bytes_handed >= self.ends_at:
            return self.start, self.stop
        return None


class ChunkWatch:
    """The chunk a call has under way, for when the call is stopped: whether
    one is open (sent, not yet settled), ``rowcount`` before it, and its
    COMMIT once under way."""

    def __init__(self, cursor) -> None:
        self.cursor = cursor
        self.open = False
        self.counted = 0
        self.commit: ChunkCommit | None = None

    def begin(self) -> None:
        self.open, self.counted, self.commit = True, self.cursor.rowcount, None

    def end(self) -> None:
        """The chunk ended, or raised what the server said."""
        self.open, self.commit = False, None

    def commit_gen(self, session: ClientSession, first: int, rows: int, counted: int):
        """COMMIT the chunk; its rows (all counted since ``counted``) are
        counted again only once that is answered."""
        cursor = self.cursor
        pending, cursor.rowcount = cursor.rowcount - counted, counted
        self.commit = ChunkCommit(cursor, first, first + rows, pending)
        yield from self.commit.run(session)

    def stopped(self, exc: BaseException, session: ClientSession, io) -> bool:
        """The call failed with ``exc``: settle or tell the COMMIT under way
        (whether it committed); a chunk left open by anything but the
        server's answer (an interrupt, a signal handler's exception in the
        middle of its work) with its rows in an open transaction cannot be
        accounted for on a usable connection: ``io``'s is broken -- the
        server rolls the work back -- and ``rowcount`` is what it was
        before the chunk.  (Rows the server committed one by one --
        autocommit with batch_errors, a database without logging -- stay
        applied whatever happens: the connection is left as it is.)"""
        commit, was_open = self.commit, self.open
        in_tx = session.in_transaction
        self.end()
        if commit is not None:
            doubt = commit.in_doubt(session)
            if doubt is not None:
                tell_in_doubt(exc, self.cursor, doubt)
            if commit.answered:
                return commit.committed
        if was_open and in_tx and not isinstance(exc, Error):
            self.cursor.rowcount = self.counted
            if session.broken is None:
                session.mark_broken(f"interrupted inside an executemany chunk "
                                    f"({type(exc).__name__})")
                io.close()
        return False


def tell_in_doubt(exc: BaseException, cursor, rows: tuple[int, int]) -> None:
    """Say on ``exc`` and on ``cursor`` which rows were in a COMMIT that got
    no answer.  A PEP 249 error gets it in its message; any other exception
    (KeyboardInterrupt, a signal handler's own, CancelledError) passes on
    unchanged but for the attribute and a note (``__notes__``), since
    asyncio may hand the awaiting code a new CancelledError: the cursor
    keeps it too."""
    start, stop = rows
    cursor.commit_in_doubt = rows
    note = (f"rows {start}..{stop - 1} of this call were in a COMMIT that got no "
            f"answer: they may or may not be in the table; the rows before {start} are")
    try:
        exc.commit_in_doubt = rows
    except AttributeError:      # pragma: no cover - an exception type with __slots__
        return
    if isinstance(exc, Error):
        with_note(exc, note)
    elif hasattr(exc, "add_note"):
        exc.add_note(note)
    else:                       # pragma: no cover - Python 3.10
        exc.__notes__ = [*getattr(exc, "__notes__", []), note]
