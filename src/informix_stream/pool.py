"""A thread-safe connection pool: ``informix_stream.ConnectionPool``.

    with ConnectionPool(min_size=2, max_size=8, host=..., database=...) as pool:
        with pool.connection() as conn:      # commits on success, rolls back on error
            conn.execute("...")

See ``pool_base`` for what is shared with the asyncio pool.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .connection import Connection, connect_params, open_connection
from .errors import Error
from .pool_base import (PoolBase, PoolClosed, PoolTimeout, Slot, check_configured,
                        reset_state)

__all__ = ["ConnectionPool", "PoolTimeout", "PoolClosed"]


class ConnectionPool(PoolBase):
    """psycopg_pool's ``ConnectionPool`` shape over ``informix_stream.connect``."""

    def __init__(self, dsn: str | None = None, *, min_size: int = 1,
                 max_size: int | None = None, timeout: float = 30.0,
                 max_lifetime: float = 3600.0, max_idle: float = 600.0,
                 check_after: float = 30.0, name: str | None = None, open: bool = True,
                 configure: Callable[[Connection], Any] | None = None,
                 reset: Callable[[Connection], Any] | None = None,
                 **connect_kwargs: Any) -> None:
        params = connect_params(connect_kwargs.pop("host", None),
                                connect_kwargs.pop("port", None), dsn, connect_kwargs)
        super().__init__(params, min_size=min_size, max_size=max_size, timeout=timeout,
                         max_lifetime=max_lifetime, max_idle=max_idle,
                         check_after=check_after, name=name, configure=configure,
                         reset=reset)
        self._cond = threading.Condition()
        if open:
            self.open()

    # -- lifecycle -------------------------------------------------------------------
    def open(self) -> None:
        """Open ``min_size`` connections (a failure to connect raises here)."""
        with self._cond:
            if not self._closed:
                return
            self._closed = False
        try:
            while self.size < self.min_size:
                self._add_idle()
        except BaseException:
            self.close()
            raise

    def _add_idle(self) -> None:
        conn = self._connect()
        with self._cond:
            self._idle.append(Slot(conn))
            self._cond.notify()

    def _connect(self) -> Connection:
        conn = open_connection(self.params)
        self._stats["connections_num"] += 1
        if self.configure is not None:
            try:
                self.configure(conn)
                check_configured(conn)
            except BaseException:
                conn.close()
                raise
        return conn

    def close(self, timeout: float = 5.0) -> None:
        """Stop handing out; close idle connections; wait up to ``timeout``
        for checked-out ones to come back, then close them too."""
        with self._cond:
            self._closed = True
            idle, self._idle = list(self._idle), type(self._idle)()
            self._cond.notify_all()
            deadline = time.monotonic() + timeout
            while self._used and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
            used, self._used = [s for s in self._used.values()], {}
        for slot in idle + used:
            slot.conn.close()

    def __enter__(self) -> ConnectionPool:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- checkout ----------------------------------------------------------------------
    def getconn(self, timeout: float | None = None) -> Connection:
        """A connection for your own use; give it back with ``putconn``."""
        self._check_usable()
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        waited = False
        while True:
            with self._cond:
                self._check_usable()
                slot, discard = self._take_idle()
                if slot is None and self.size - len(discard) < self.max_size:
                    self._opening += 1
                    grow = True
                else:
                    grow = False
                    if slot is None and not discard:
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            self._stats["requests_errors"] += 1
                            raise PoolTimeout(f"no connection from pool {self.name!r} "
                                              f"within {limit} s")
                        if not waited:
                            self._stats["requests_waiting"] += 1
                            waited = True
                        start = time.monotonic()
                        self._cond.wait(remaining)
                        self._stats["requests_wait_ms"] += int((time.monotonic() - start) * 1000)
                        continue
            for old in discard:
                if old.conn.closed:
                    self._lost()
                old.conn.close()
            if grow:
                return self._grow()
            if slot is not None:
                conn = self._vet(slot)
                if conn is not None:
                    return conn

    def _grow(self) -> Connection:
        try:
            conn = self._connect()
        except BaseException:
            with self._cond:
                self._opening -= 1
                self._stats["requests_errors"] += 1
                self._cond.notify()
            raise
        with self._cond:
            self._opening -= 1
            return self._checked_out(Slot(conn))

    def _vet(self, slot: Slot) -> Connection | None:
        """Hand out a connection only if it is still sound: a free local check,
        and a round trip only when it has been idle for ``check_after``."""
        conn = slot.conn
        try:
            conn._io.check_idle()
            if self._needs_ping(slot):
                conn._wait(conn._ping_gen())
        except Error:
            conn.close()
            with self._cond:
                self._lost(slot)
                self._cond.notify()
            return None
        except BaseException:
            # interrupted mid-ping (Ctrl-C, a signal handler's exception): the
            # connection is mid-request and its slot reserved; give both up
            self._give_up(conn)
            raise
        with self._cond:
            return self._checked_out(slot)

    def putconn(self, conn: Connection) -> None:
        """Give a connection back: an open transaction is rolled back, open
        cursors are closed, a broken connection is replaced."""
        try:
            if not conn.closed and reset_state(conn):
                conn.rollback()
        except Error:
            conn.close()
        except BaseException:
            # interrupted mid-rollback: never kept, never left counted as in use
            with self._cond:
                self._returned(conn)
            self._give_up(conn)
            raise
        if self._reset_needed(conn):
            self._run_reset(conn)
        with self._cond:
            slot, keep = self._returned(conn)
            if keep:
                self._idle.append(slot)
                self._cond.notify()
                return
        conn.close()
        with self._cond:
            self._forget(conn)           # a closing pool waits for this one to be closed
            self._cond.notify_all()

    def _run_reset(self, conn: Connection) -> None:
        """The user's ``reset`` on a connection left with session state; the
        connection is closed if it fails or leaves a transaction open."""
        try:
            self.reset(conn)
        except Exception as exc:
            self._hook_failed("reset", exc)    # its state unchanged: closed on return
            return
        except BaseException:
            with self._cond:
                self._returned(conn)
            self._give_up(conn)
            raise
        with self._cond:
            self._rebase(conn)

    def _give_up(self, conn: Connection) -> None:
        """Close a connection interrupted mid-request (closing a broken one
        sends nothing) and free its place in the pool."""
        conn.close()
        with self._cond:
            self._forget(conn)
            self._lost()
            self._cond.notify_all()

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Connection]:
        """Check out a connection; on leaving, commit (or roll back on an
        exception) as ``with conn:`` does, then return it to the pool."""
        conn = self.getconn(timeout)
        try:
            yield conn
            if not conn.closed:
                conn.commit()
        except BaseException:
            if not conn.closed:
                try:
                    conn.rollback()
                except Error:
                    conn.close()
            raise
        finally:
            self.putconn(conn)

    def check(self) -> None:
        """Ping every idle connection now; replace the ones that fail."""
        with self._cond:
            slots, self._idle = list(self._idle), type(self._idle)()
        for slot in slots:
            try:
                slot.conn._wait(slot.conn._ping_gen())
            except Error:
                slot.conn.close()
                self._lost()
                continue
            with self._cond:
                self._idle.append(slot)
        while not self._closed and self.size < self.min_size:
            self._add_idle()

