"""What the blocking and the asyncio connection pools share, without waiting.

The bookkeeping -- idle connections with their ages, the size limits, the
statistics, which connection is fit to hand out -- is here once;
``pool.ConnectionPool`` adds threads and ``async_pool.AsyncConnectionPool``
adds tasks.  The shape is psycopg_pool's: ``min_size``/``max_size``,
``connection()`` as a context manager that ends like ``with conn:``,
``getconn()``/``putconn()``, ``max_lifetime``/``max_idle``, ``get_stats()``.

A pool adds no request of its own on the hot path: a connection that was
used within ``check_after`` seconds is handed out with only a zero-cost
local check (is the socket still quiet?).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import forks
from .connect_params import ConnectParams
from .errors import InterfaceError, OperationalError

log = logging.getLogger("informix_stream")


class PoolTimeout(OperationalError):
    """No connection could be had within the checkout timeout."""


class PoolClosed(OperationalError):
    """The pool was closed."""


@dataclass
class Slot:
    """One pooled connection and its history."""

    conn: Any
    created: float = field(default_factory=time.monotonic)
    last_used: float = field(default_factory=time.monotonic)
    # The session's count of DATABASE / CLOSE DATABASE statements when the
    # pool opened it: a connection a user moved to another database is not
    # handed to the next user, whose writes would land in that database.
    database_changes: int = field(init=False)
    # Likewise its count of statements that leave session state behind (a
    # session-wide SET such as SET ISOLATION or SET LOCK MODE, a temporary
    # table): the next user would read at the last user's isolation level or
    # see the last user's temporary tables, so such a connection is closed.
    state_changes: int = field(init=False)
    # The autocommit mode ``configure`` left (else the connect options'):
    # every user of this connection starts in it, not only the first.
    autocommit: bool = field(init=False)

    def __post_init__(self) -> None:
        session = self.conn._session
        self.database_changes = session.database_changes
        self.state_changes = session.state_changes
        self.autocommit = session.autocommit


class PoolBase:
    """Limits, idle list and statistics (see module docstring)."""

    def __init__(self, params: ConnectParams, *, min_size: int, max_size: int | None,
                 timeout: float, max_lifetime: float, max_idle: float,
                 check_after: float, name: str | None,
                 configure: Callable[[Any], Any] | None = None,
                 reset: Callable[[Any], Any] | None = None) -> None:
        max_size = min_size if max_size is None else max_size
        if min_size < 0 or max_size < 1 or max_size < min_size:
            raise InterfaceError("need 0 <= min_size <= max_size and max_size >= 1")
        self.params = params
        self.min_size, self.max_size = min_size, max_size
        self.timeout = timeout
        self.max_lifetime, self.max_idle = max_lifetime, max_idle
        self.check_after = check_after
        self.name = name or f"pool-{id(self):x}"
        # psycopg_pool's two hooks: ``configure`` runs on each new connection
        # before its session state is recorded (so its SETs are the baseline);
        # ``reset`` runs on a returned connection whose session state changed,
        # and the pool trusts it to have undone it (see ``_reset_needed``).
        self.configure, self.reset = configure, reset
        self._idle: deque[Slot] = deque()
        self._used: dict[int, Slot] = {}
        self._opening = 0
        self._closed = True
        self._generation = forks.generation()
        self._stats = {"connections_num": 0, "connections_lost": 0, "requests_num": 0,
                       "requests_waiting": 0, "requests_wait_ms": 0, "requests_errors": 0,
                       "returns_bad": 0, "usage_ms": 0}

    # -- state ---------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def _check_usable(self) -> None:
        if forks.generation() != self._generation:
            raise InterfaceError("this pool was created in another process; "
                                 "a child process after fork() must create its own")
        if self._closed:
            raise PoolClosed(f"pool {self.name!r} is closed")

    @property
    def size(self) -> int:
        return len(self._idle) + len(self._used) + self._opening

    def get_stats(self) -> dict[str, int]:
        """Counters since the pool opened plus the current sizes (psycopg_pool's names)."""
        out = dict(self._stats)
        out.update(pool_min=self.min_size, pool_max=self.max_size, pool_size=self.size,
                   pool_available=len(self._idle))
        return out

    # -- decisions -------------------------------------------------------------------
    def _expired(self, slot: Slot, now: float) -> bool:
        return now - slot.created > self.max_lifetime

    def _take_idle(self) -> tuple[Slot | None, list[Slot]]:
        """An idle connection fit to hand out (LIFO: the warmest), and the
        ones to close on the way (broken, too old, idle too long)."""
        now = time.monotonic()
        discard = []
        while self._idle:
            slot = self._idle.pop()
            conn = slot.conn
            too_idle = (now - slot.last_used > self.max_idle
                        and len(self._idle) + len(self._used) >= self.min_size)
            if conn.closed or self._expired(slot, now) or too_idle:
                discard.append(slot)
                continue
            self._used[id(conn)] = slot        # reserved while it is vetted
            return slot, discard
        return None, discard

    def _needs_ping(self, slot: Slot) -> bool:
        return time.monotonic() - slot.last_used > self.check_after

    def _checked_out(self, slot: Slot) -> Any:
        self._used[id(slot.conn)] = slot
        slot.last_used = time.monotonic()
        self._stats["requests_num"] += 1
        return slot.conn

    def _returned(self, conn: Any) -> tuple[Slot | None, bool]:
        """Account for a returned connection: (its slot, keep it?).  One not
        kept stays counted as in use until ``_forget`` (after it is closed),
        so a closing pool waits for it."""
        slot = self._used.get(id(conn))
        if slot is None and self._closed:
            # close() gave up waiting for it and closed it already: given back
            # late (say after a slow ``reset``), it is simply not kept
            return None, False
        if slot is None:
            raise InterfaceError("this connection does not belong to the pool "
                                 "(or was already returned)")
        now = time.monotonic()
        self._stats["usage_ms"] += int((now - slot.last_used) * 1000)
        slot.last_used = now
        session = conn._session
        keep = not conn.closed and not self._closed and not self._expired(slot, now) \
            and session.database_changes == slot.database_changes \
            and session.state_changes == slot.state_changes
        if conn.closed:
            self._stats["returns_bad"] += 1
        if keep:
            del self._used[id(conn)]
            # what the pool's connect options and ``configure`` set, whatever
            # the last user chose (its transaction is over: reset_state rolled
            # it back)
            session.autocommit = slot.autocommit
        return slot, keep

    def _reset_needed(self, conn: Any) -> bool:
        """Whether ``reset`` is to run on a returned connection: its user left
        session state behind (a SET, a temporary table, a routine call).  A
        connection moved to another database is closed whatever ``reset``
        would do: a write landing in the wrong database is not a risk the
        pool takes on a callback's word."""
        slot = self._used.get(id(conn))
        if self.reset is None or slot is None or conn.closed:
            return False
        session = conn._session
        return (session.state_changes != slot.state_changes
                and session.database_changes == slot.database_changes)

    def _rebase(self, conn: Any) -> None:
        """After ``reset`` returned: the session's state as it now is becomes
        the baseline, so the connection is kept, unless the callback left a
        transaction open (then the old baseline stands and it is closed)."""
        slot = self._used.get(id(conn))
        if slot is None or conn.closed:
            return
        if conn._session.owes_rollback:
            log.warning("pool %s: reset() left a transaction open; the connection "
                        "is closed", self.name)
            return
        slot.state_changes = conn._session.state_changes

    def _hook_failed(self, hook: str, exc: BaseException) -> None:
        # the exception's type only: its text may hold the user's values
        log.warning("pool %s: %s() raised %s; the connection is closed",
                    self.name, hook, type(exc).__name__)

    def _forget(self, conn: Any) -> None:
        self._used.pop(id(conn), None)

    def _lost(self, slot: Slot | None = None) -> None:
        """A connection found dead; ``slot``'s reservation is given up."""
        if slot is not None:
            self._used.pop(id(slot.conn), None)
        self._stats["connections_lost"] += 1


def reset_state(conn: Any) -> bool:
    """Whether a returned connection needs a round trip to be reset: an open
    transaction must be rolled back; open cursors are closed without I/O
    (their cleanup rides on the next request)."""
    for cursor in list(conn._cursors):
        cursor._release()
        cursor._ahead.clear()
        cursor._closed = True
    return conn._session.owes_rollback


def check_configured(conn: Any) -> None:
    """A connection ``configure`` left in a transaction would hand its first
    user that transaction's work: refused, as psycopg_pool refuses it."""
    if conn._session.owes_rollback:
        raise InterfaceError("the pool's configure() left a transaction open: end it "
                             "with commit() or rollback() inside the callback")
