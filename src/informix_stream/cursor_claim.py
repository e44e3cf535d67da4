"""A blocking cursor is one thread's at a time (``threadsafety = 2``): a
second user while one is inside a cursor call is refused, not served.

The connection's lock keeps each exchange whole, but a cursor's own state
(the current fetch buffer and the position in it) is read and moved by the
calling thread outside that lock.  Two threads on one cursor could each
take the same row, or each fetch a new buffer and lose the one the other
fetched (adversary 8 saw both: tests/test_adversary8_threads_cursor.py).
So every cursor call claims the cursor and a second claim raises
ProgrammingError.  The claim is a one-item list popped to take and appended
to give back: ``list.pop`` is one atomic step (under the GIL, and under a
free-threaded build's per-object lock), as ``Lock.acquire(False)`` is, at a
quarter of its cost (~23 against ~92 ns a claim and release, which
``fetchone`` pays every row).  Iterating (``for row in cursor``) holds the
claim from the first row until the loop ends, since the loop's position is
its own until then: a fetch call or a second loop in between (even in the
same thread) would hand rows out twice, and an ``execute`` would leave the
loop reading a different statement's rows.  ``close()`` claims nothing: it
is how another thread or the loop's own body stops a cursor.

An asyncio cursor is claimed the same way (``AsyncCursorClaim``): a task
switch happens only at an await, so the non-blocking check is the whole
claim, held by a call across its awaits.  Its loop cannot hold the claim
from row to row: ``break`` leaves an async generator suspended and asyncio
closes it later from a task of its own, so the next fetch would be refused
(or, before round 8b, started from the position the loop had when its
batch began: rows handed out twice).  The loop therefore keeps its position
in a live iterator the cursor knows of (``_live``); every claimed call first
settles the cursor's position from it, and the loop, resumed, sees its
iterator taken and reads on from the settled position -- each row once
however the loop and the calls in its body interleave
(tests/test_adversary8b_async_cursor.py).
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import ProgrammingError

F = TypeVar("F", bound=Callable[..., Any])


class CursorClaim:
    """The claim of one blocking cursor (mixed into ``cursors.Cursor``)."""

    _free: list                 # [True] while unclaimed, [] while claimed
    _iterating = False          # the claim is held by an unfinished ``for`` loop

    def _init_claim(self) -> None:
        self._free = [True]

    def _claim(self) -> None:
        try:
            self._free.pop()
        except IndexError:
            raise ProgrammingError(self._refusal()) from None

    def _unclaim(self) -> None:
        self._free.append(True)

    def _claimed_now(self) -> bool:
        """Whether a call holds the claim (a check, not a claim)."""
        return not self._free

    def _refusal(self) -> str:
        if self._iterating:
            return ("this cursor is being iterated (a loop over it has not ended): fetch "
                    "or execute on it only after the loop, or use a second cursor; from "
                    "another thread a cursor is one thread's at a time (threadsafety 2)")
        return ("this cursor is in use by another thread: a cursor is one thread's at a "
                "time (threadsafety 2); give each thread its own cursor")


class AsyncCursorClaim(CursorClaim):
    """The claim of one asyncio cursor, and the position of its loop."""

    # (row iterator, batch) of an ``async for`` handing out the current
    # batch's rows; ``_pos`` lags behind it until ``_settle``.
    _live: tuple | None = None

    def _claim(self) -> None:
        super()._claim()
        if self._live is not None:
            self._settle()

    def _settle(self) -> None:
        """Take the position from the loop's live iterator; the loop, when it
        resumes, sees it is no longer live and reads on from ``_pos``."""
        rows, batch = self._live
        self._live = None
        if batch is self._batch:
            self._pos = len(batch) - operator.length_hint(rows)

    def _refusal(self) -> str:
        return ("this cursor is in use by another task (a call on it awaits the "
                "server): an asyncio cursor is one task's at a time; give each task "
                "its own cursor")


def claimed(method: F) -> F:
    """Run a cursor method (a coroutine function too: across its awaits)
    holding the cursor's claim."""
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def run_async(self, *args: Any, **kwargs: Any) -> Any:
            self._claim()
            try:
                return await method(self, *args, **kwargs)
            finally:
                self._unclaim()
        return run_async  # type: ignore[return-value]

    @functools.wraps(method)
    def run(self, *args: Any, **kwargs: Any) -> Any:
        self._claim()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._unclaim()
    return run  # type: ignore[return-value]
