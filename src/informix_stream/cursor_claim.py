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
"""

from __future__ import annotations

import functools
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

    def _refusal(self) -> str:
        if self._iterating:
            return ("this cursor is being iterated (a loop over it has not ended): fetch "
                    "or execute on it only after the loop, or use a second cursor; from "
                    "another thread a cursor is one thread's at a time (threadsafety 2)")
        return ("this cursor is in use by another thread: a cursor is one thread's at a "
                "time (threadsafety 2); give each thread its own cursor")


def claimed(method: F) -> F:
    """Run a cursor method holding the cursor's claim."""
    @functools.wraps(method)
    def run(self, *args: Any, **kwargs: Any) -> Any:
        self._claim()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._unclaim()
    return run  # type: ignore[return-value]
