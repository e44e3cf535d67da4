"""asyncio connections: ``await informix_stream.connect_async(...)``.

The same operations as the blocking ``Connection`` (``connection_base``),
run by ``asyncio_io.AsyncIO``.  One task at a time talks to the server: each
run holds the connection's ``asyncio.Lock``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Any

from .asyncio_io import AsyncIO, open_stream
from .connect_params import ConnectParams
from .connection import connect_params
from .connection_base import ConnectionBase, login_gen
from .core.session import ClientSession
from .errors import OperationalError


class AsyncConnection(ConnectionBase):
    """A logged-in SQLI session driven by asyncio."""

    def __init__(self, io: AsyncIO, params: ConnectParams) -> None:
        super().__init__(io.session, params)
        self._io = io
        self._lock = asyncio.Lock()

    async def _run(self, op: Generator[Any, None, Any], timeout: float | None = None) -> Any:
        """Run one operation; the caller holds the lock."""
        self._check_process()
        # One turn of the event loop first: bytes the server sent while the
        # loop was idle are still in the socket; this moves them into the
        # reader, where check_idle sees them.
        await asyncio.sleep(0)
        self._io.check_idle()
        limit = timeout if timeout is not None else self.statement_timeout
        if not limit:
            return await self._io.run(op)
        handle = asyncio.get_running_loop().call_later(limit, self._cancel_quietly)
        try:
            return await self._io.run(op)
        finally:
            handle.cancel()

    async def _wait(self, op: Generator[Any, None, Any], timeout: float | None = None) -> Any:
        async with self._lock:
            return await self._run(op, timeout)

    def cancel(self) -> None:
        """Interrupt the running statement (the awaiting call raises -213)."""
        if self.closed:
            return
        try:
            self._io.cancel()
        except OSError as exc:
            raise OperationalError(f"could not send the cancel request: {exc}") from exc

    @property
    def autocommit(self) -> bool:
        return self._session.autocommit

    async def set_autocommit(self, value: bool) -> None:
        # after a -458, commit() raises: nothing was committed
        if value and self._session.owes_rollback:
            await self.commit()
        self._session.autocommit = bool(value)

    @staticmethod
    def _cursor_class(materialize: bool, scrollable: bool) -> type:
        from .async_cursors import async_cursor_class
        return async_cursor_class(materialize, scrollable)

    async def execute(self, operation: str, parameters=None):
        cur = self.cursor()
        await cur.execute(operation, parameters)
        return cur

    async def fast_path_call(self, signature: str, *params: object) -> list:
        """``Connection.fast_path_call``, awaited."""
        return await self._wait(self._fast_path_gen(signature, params))

    async def commit(self) -> None:
        await self._wait(self._commit_gen())

    async def rollback(self) -> None:
        await self._wait(self._rollback_gen())

    async def close(self) -> None:
        session = self._session
        if session.closed:
            return
        try:
            if session.broken is None:
                async with self._lock:
                    await self._io.run(self._goodbye_gen())
        except Exception:  # noqa: BLE001 - closing must not fail
            pass
        finally:
            session.in_transaction = False
            session.close()
            self._io.close()

    def _abort(self) -> None:
        """Close at once, with no await (no goodbye to the server, which
        rolls back an open transaction when the socket closes): for a task
        cancelled while the connection was mid-request, where the socket's
        state is unknown and another await could be cancelled again."""
        self._session.in_transaction = False
        self._session.close()
        self._io.close()

    async def __aenter__(self) -> AsyncConnection:
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        try:
            if not self.closed:
                if exc_type is None:
                    await self.commit()
                else:
                    await self.rollback()
        finally:
            await self.close()


async def connect_async(host: str | None = None, port: int | None = None, *,
                        dsn: str | None = None, **kwargs: Any) -> AsyncConnection:
    """``connect()``'s keywords, for asyncio: ``conn = await connect_async(...)``."""
    return await open_async(connect_params(host, port, dsn, kwargs))


async def open_async(params: ConnectParams) -> AsyncConnection:
    reader, writer = await open_stream(
        params.host, params.port, connect_timeout=params.connect_timeout,
        tls=params.tls_context(), server_hostname=params.tls_server_hostname,
        keepalive=params.keepalive)
    io = AsyncIO(reader, writer, ClientSession(max_message_size=params.max_message_size))
    io.timeout = params.connect_timeout
    conn = AsyncConnection(io, params)
    try:
        conn.server_version_internal = await io.run(login_gen(io.session, params))
        io.timeout = params.read_timeout
        # A property cannot await, so the release is asked at connect.
        conn.server_version = await io.run(conn._release_gen())
    except BaseException:
        io.close()
        raise
    return conn
