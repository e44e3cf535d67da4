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

A chunk with no transaction around it -- autocommit with batch_errors (each
statement commits on its own), any chunk in a database without logging --
has no COMMIT: each reply read is a row in the table for good.  The chunk's
code counts the replies after reading them, and a stop can land in
between; so when such a chunk is stopped its replies are counted again
from what was read (``ChunkWatch.sent``/``OneByOne``), whatever point the
chunk's code had reached: the connection stays usable if every reply was
read; else it is broken and the rows whose requests went out wholly with no
answer are told in ``commit_in_doubt`` (a prefix of them may have landed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .core import requests as rq
from .core import statement as st
from .core.session import EOT, ClientSession, Expect
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


@dataclass
class OneByOne:
    """Requests of a chunk whose rows the server commits as it runs them:
    ``first``'s row onwards (``counts[i]`` rows for request i, one each
    when None), queued so that their bytes end at ``end`` (a session
    offset); ``account`` and ``put_account`` are the chunk's own counts of
    answered replies (executemany.Plan's)."""

    first: int
    requests: list
    expects: list[Expect]
    blocks: object
    end: int
    account: Callable
    put_account: Callable

    def recount(self, handed: int) -> tuple[int, int] | None:
        """Count the answered replies again; the rows of the unanswered
        requests that went out whole (offset ``handed``), if any.  A
        streamed request counts as out once its head is (conservative: it
        may not have run)."""
        done = 0
        while done < len(self.expects) and self.expects[done].done:
            done += 1
        if self.blocks is None:
            self.account(self.first, self.expects[:done])
        else:
            self.put_account(self.first, self.blocks, self.expects[:done])
        counts = getattr(self.blocks, "counts", None) or [1] * len(self.requests)
        starts = [self.first]
        for n in counts:
            starts.append(starts[-1] + n)
        end, out = self.end, None
        for i in range(len(self.requests) - 1, done - 1, -1):
            if end <= handed:
                out = max(out or 0, starts[i + 1])
            end -= rq.body_size(self.requests[i]) + len(EOT)
        return None if out is None or done == len(self.requests) else (starts[done], out)


def commits_each_row(session: ClientSession, guard: Expect | None) -> bool:
    """Whether the server commits a chunk's rows as it runs them: a
    database without logging, or autocommit with no transaction opened for
    the chunk (``guard``) -- batch_errors' BIND+EXECUTE outside ANSI."""
    return not session.logged or (session.autocommit and guard is None
                                  and not session.in_transaction)


class ChunkWatch:
    """The chunk a call has under way, for when the call is stopped: whether
    one is open (sent, not yet settled), ``rowcount`` (and batch_errors,
    lastrowid) before it, its COMMIT once under way, and its requests when
    the server commits their rows one by one."""

    def __init__(self, cursor, account: Callable, put_account: Callable) -> None:
        self.cursor = cursor
        self.account, self.put_account = account, put_account
        self.open = False
        self.counted = 0
        self.commit: ChunkCommit | None = None
        self.passes: list[OneByOne] = []
        self.before: tuple = (0, 0, None)

    def begin(self) -> None:
        cursor = self.cursor
        self.open, self.counted, self.commit = True, cursor.rowcount, None
        self.passes = []
        self.before = (cursor.rowcount, len(cursor.batch_errors or ()), cursor.lastrowid)

    def end(self) -> None:
        """The chunk ended, or raised what the server said."""
        self.open, self.commit = False, None

    def failed(self, session: ClientSession) -> None:
        """The chunk raised an error: what the server said ends it; a
        connection lost with rows committed one by one unread leaves it to
        ``stopped``."""
        if session.broken is None or all(e.done for p in self.passes for e in p.expects):
            self.end()

    def sent(self, session: ClientSession, guard: Expect | None, first: int,
             requests: list, expects: list[Expect], blocks) -> None:
        """The chunk's ``requests`` (``blocks``: the insert cursor's) were
        queued; if the server commits their rows one by one, they are
        counted again from their replies when the call is stopped."""
        if commits_each_row(session, guard):
            end = session.bytes_sent + len(session.data_to_send())
            self.passes.append(OneByOne(first, requests, expects, blocks, end,
                                        self.account, self.put_account))

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
        before the chunk.  Rows the server committed one by one are counted
        from the replies read (``recount``)."""
        commit, was_open = self.commit, self.open
        in_tx = session.in_transaction
        self.end()
        if commit is not None:
            doubt = commit.in_doubt(session)
            if doubt is not None:
                tell_in_doubt(exc, self.cursor, doubt)
            if commit.answered:
                return commit.committed
        if was_open and self.passes:
            self.recount(exc, session, io)
        elif was_open and in_tx and not isinstance(exc, Error):
            self.cursor.rowcount = self.counted
            _break(session, io, exc)
        return False

    def recount(self, exc: BaseException, session: ClientSession, io) -> None:
        """The chunk's rows committed one by one, counted from scratch from
        the replies read; a request with its reply unread breaks the
        connection (its reply would otherwise be read by the next call),
        and the rows that may have run are told in doubt."""
        cursor = self.cursor
        cursor.rowcount, errors, cursor.lastrowid = self.before
        if cursor.batch_errors is not None:
            del cursor.batch_errors[errors:]
        doubt = None
        for one in self.passes:
            rows = one.recount(session.bytes_handed)
            if rows is not None:
                doubt = rows if doubt is None else (min(doubt[0], rows[0]),
                                                    max(doubt[1], rows[1]))
        if not all(e.done for one in self.passes for e in one.expects):
            _break(session, io, exc)
        if doubt is not None:
            tell_in_doubt(exc, cursor, doubt, "were sent, each to be committed on its own, "
                          "and got no answer")


def _break(session: ClientSession, io, exc: BaseException) -> None:
    """An interrupt left the chunk where the connection cannot go on."""
    if session.broken is None:
        session.mark_broken(f"interrupted inside an executemany chunk "
                            f"({type(exc).__name__})")
        io.close()


def tell_in_doubt(exc: BaseException, cursor, rows: tuple[int, int],
                  why: str = "were in a COMMIT that got no answer") -> None:
    """Say on ``exc`` and on ``cursor`` which rows may or may not be in the
    table: they were in a COMMIT that got no answer, or ``why`` else.  A
    PEP 249 error gets it in its message; any other exception
    (KeyboardInterrupt, a signal handler's own, CancelledError) passes on
    unchanged but for the attribute and a note (``__notes__``), since
    asyncio may hand the awaiting code a new CancelledError: the cursor
    keeps it too."""
    start, stop = rows
    cursor.commit_in_doubt = rows
    note = (f"rows {start}..{stop - 1} of this call {why}: they may or may not be in "
            f"the table; the rows before {start} are")
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
