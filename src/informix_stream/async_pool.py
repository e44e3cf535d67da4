"""An asyncio connection pool: ``informix_stream.AsyncConnectionPool``.

    async with AsyncConnectionPool(min_size=2, max_size=8, host=...) as pool:
        async with pool.connection() as conn:    # commits, or rolls back on error
            await conn.execute("...")

The bookkeeping is ``pool_base``'s, shared with the blocking pool.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from .async_connection import AsyncConnection, open_async
from .connection import connect_params
from .errors import Error
from .pool_base import PoolBase, PoolTimeout, Slot, check_configured, reset_state

__all__ = ["AsyncConnectionPool"]


class AsyncConnectionPool(PoolBase):
    """psycopg_pool's ``AsyncConnectionPool`` shape over ``connect_async``."""

    def __init__(self, dsn: str | None = None, *, min_size: int = 1,
                 max_size: int | None = None, timeout: float = 30.0,
                 max_lifetime: float = 3600.0, max_idle: float = 600.0,
                 check_after: float = 30.0, name: str | None = None,
                 configure: Callable[[AsyncConnection], Awaitable[Any]] | None = None,
                 reset: Callable[[AsyncConnection], Awaitable[Any]] | None = None,
                 **connect_kwargs: Any) -> None:
        params = connect_params(connect_kwargs.pop("host", None),
                                connect_kwargs.pop("port", None), dsn, connect_kwargs)
        super().__init__(params, min_size=min_size, max_size=max_size, timeout=timeout,
                         max_lifetime=max_lifetime, max_idle=max_idle,
                         check_after=check_after, name=name, configure=configure,
                         reset=reset)
        self._cond: asyncio.Condition | None = None
        self._wakers: set[asyncio.Task] = set()    # _give_up's wake-up tasks, kept alive

    async def open(self) -> None:
        if not self._closed:
            return
        self._cond = asyncio.Condition()
        self._closed = False
        try:
            while self.size < self.min_size:
                conn = await self._connect()
                async with self._cond:
                    self._idle.append(Slot(conn))
                    self._cond.notify()
        except BaseException:
            await self.close()
            raise

    async def _connect(self) -> AsyncConnection:
        conn = await open_async(self.params)
        self._stats["connections_num"] += 1
        if self.configure is not None:
            try:
                await self.configure(conn)
                check_configured(conn)
            except BaseException:
                conn._abort()               # no await: a cancelled task closes it too
                raise
        return conn

    async def close(self, timeout: float = 5.0) -> None:
        if self._cond is None:
            self._closed = True
            return
        async with self._cond:
            self._closed = True
            idle, self._idle = list(self._idle), type(self._idle)()
            self._cond.notify_all()
            try:
                await asyncio.wait_for(self._cond.wait_for(lambda: not self._used), timeout)
            except asyncio.TimeoutError:
                pass
            used, self._used = list(self._used.values()), {}
        for slot in idle + used:
            await slot.conn.close()

    async def __aenter__(self) -> AsyncConnectionPool:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def getconn(self, timeout: float | None = None) -> AsyncConnection:
        """A connection within ``timeout`` seconds (the pool's by default).

        The checkout runs as a task of its own, awaited with ``asyncio.wait``
        (which never cancels it), not ``wait_for``: Python 3.11's wait_for,
        cancelled as the checkout finished, dropped the connection it got,
        left counted as in use for ever (adversary 8b).  A checkout given up
        (timeout, cancellation) is cancelled, and a connection it got anyway
        goes back to the pool."""
        self._check_usable()
        limit = self.timeout if timeout is None else timeout
        task = asyncio.ensure_future(self._getconn())
        try:
            done, _ = await asyncio.wait((task,), timeout=limit)
        except BaseException:
            self._abandon_checkout(task)
            raise
        if not done:
            self._abandon_checkout(task)
            await asyncio.wait((task,))     # its place is free when PoolTimeout is raised
            self._stats["requests_errors"] += 1
            raise PoolTimeout(f"no connection from pool {self.name!r} within {limit} s")
        return task.result()

    def _abandon_checkout(self, task: asyncio.Task) -> None:
        task.cancel()
        task.add_done_callback(self._checkout_abandoned)

    def _checkout_abandoned(self, task: asyncio.Task) -> None:
        """A checkout nobody waits for ended: a connection it got was never
        handed to a user, so it goes back to the idle list as it is."""
        if task.cancelled() or task.exception() is not None:
            return
        conn = task.result()
        slot = self._used.pop(id(conn), None)
        if slot is not None and not self._closed and not conn.closed:
            self._idle.append(slot)
        else:
            conn._abort()
        self._wake_waiters()

    async def _getconn(self) -> AsyncConnection:
        cond = self._cond
        waited = False
        while True:
            async with cond:
                self._check_usable()
                slot, discard = self._take_idle()
                grow = slot is None and self.size - len(discard) < self.max_size
                if grow:
                    self._opening += 1
                elif slot is None and not discard:
                    if not waited:
                        self._stats["requests_waiting"] += 1
                        waited = True
                    start = time.monotonic()
                    try:
                        await cond.wait()
                    except BaseException:
                        # a wake-up meant for this checkout passes on (3.11's
                        # Condition drops it when the waiter is cancelled)
                        cond.notify()
                        raise
                    self._stats["requests_wait_ms"] += int((time.monotonic() - start) * 1000)
                    continue
            try:
                await self._close_discarded(discard)
            except BaseException:
                self._unreserve(slot, grow)     # cancelled: what was reserved is free again
                raise
            if grow:
                return await self._grow()
            if slot is not None:
                conn = await self._vet(slot)
                if conn is not None:
                    return conn

    async def _close_discarded(self, discard: list[Slot]) -> None:
        """Close the idle connections a checkout found unfit; cancelled, the
        rest are closed with no await."""
        for k, old in enumerate(discard):
            if old.conn.closed:
                self._lost()
            try:
                await old.conn.close()
            except BaseException:
                for rest in discard[k:]:
                    rest.conn._abort()
                raise

    def _unreserve(self, slot: Slot | None, grow: bool) -> None:
        """Undo a checkout's reservation (an idle slot, or a place to open a
        connection in) with no await, for a task cancelled before using it."""
        if grow:
            self._opening -= 1
        if slot is not None:
            self._forget(slot.conn)
            self._idle.append(slot)
        self._wake_waiters()

    async def _grow(self) -> AsyncConnection:
        """Open a connection in the place reserved for it.  The accounting
        takes no await (the pool's lock is only for waiting on it): a task
        cancelled while queued for that lock left a connection open and its
        place counted as opening for ever (adversary 8b)."""
        try:
            conn = await self._connect()
        except BaseException:
            self._opening -= 1
            self._wake_waiters()
            raise
        self._opening -= 1
        return self._checked_out(Slot(conn))

    async def _vet(self, slot: Slot) -> AsyncConnection | None:
        """An idle connection reserved for this checkout, pinged when it has
        been idle a while; None if it is dead (its place is freed first, so a
        cancelled close cannot keep it reserved)."""
        conn = slot.conn
        try:
            conn._io.check_idle()
            if self._needs_ping(slot):
                await conn._wait(conn._ping_gen())
        except Error:
            self._lost(slot)
            self._wake_waiters()
            await conn.close()
            return None
        except BaseException:
            # cancelled mid-ping (e.g. getconn's timeout): the connection is
            # mid-request and its slot reserved; both are given up now
            self._give_up(conn)
            raise
        return self._checked_out(slot)

    def _give_up(self, conn: AsyncConnection) -> None:
        """Close a connection and free its place in the pool with no await,
        for a task cancelled while vetting or returning it."""
        conn._abort()
        self._forget(conn)
        self._lost()
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        """Wake the checkouts waiting for a place, from a task of its own
        (waking needs the condition's lock, and the caller may not await)."""
        task = asyncio.get_running_loop().create_task(self._wake())
        self._wakers.add(task)
        task.add_done_callback(self._wakers.discard)

    async def _wake(self) -> None:
        async with self._cond:
            self._cond.notify_all()

    async def putconn(self, conn: AsyncConnection) -> None:
        try:
            if not conn.closed and reset_state(conn):
                await conn.rollback()
        except Error:
            await conn.close()
        except BaseException:
            # cancelled mid-rollback: never kept, never left counted as in use
            self._returned(conn)
            self._give_up(conn)
            raise
        if self._reset_needed(conn):
            await self._run_reset(conn)
        try:
            async with self._cond:
                slot, keep = self._returned(conn)
                if keep:
                    self._idle.append(slot)
                    self._cond.notify()
                    return
        except BaseException:
            if id(conn) in self._used:           # cancelled before it was accounted
                self._returned(conn)
                self._give_up(conn)
            raise
        try:
            await conn.close()
        except BaseException:
            self._give_up(conn)
            raise
        # No await between the close and the accounting (a closing pool waits
        # for this one to be closed): cancelled while queued for the pool's
        # lock, it stayed counted as in use for ever (adversary 8b).
        self._forget(conn)
        self._wake_waiters()

    async def _run_reset(self, conn: AsyncConnection) -> None:
        """The user's ``reset`` (awaited) on a connection left with session
        state; closed if it fails or leaves a transaction open."""
        try:
            await self.reset(conn)
        except Exception as exc:
            self._hook_failed("reset", exc)    # its state unchanged: closed on return
            return
        except BaseException:
            self._returned(conn)
            self._give_up(conn)
            raise
        self._rebase(conn)                  # no await: nothing interleaves

    @asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[AsyncConnection]:
        conn = await self.getconn(timeout)
        try:
            yield conn
            if not conn.closed:
                await conn.commit()
        except BaseException:
            if not conn.closed:
                try:
                    await conn.rollback()
                except Error:
                    await conn.close()
            raise
        finally:
            await self.putconn(conn)
