"""``informix+informix_stream_async://``: the dialect on ``connect_async``.

SQLAlchemy runs dialects synchronously inside a greenlet; its AsyncAdapt_*
classes turn each driver coroutine into a blocking-looking call there, as its
asyncpg and psycopg dialects do.  A plain cursor's rows are read at execute
(SQLAlchemy's contract for async drivers); ``stream_results`` uses the
server-side adapter, which fetches a buffer at a time.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.connectors.asyncio import (AsyncAdapt_dbapi_connection,
                                           AsyncAdapt_dbapi_cursor,
                                           AsyncAdapt_dbapi_ss_cursor)
from sqlalchemy.pool import AsyncAdaptedQueuePool

try:                                   # SQLAlchemy 2.1
    from sqlalchemy.util.concurrency import await_
except ImportError:                    # pragma: no cover - SQLAlchemy 2.0
    from sqlalchemy.util.concurrency import await_only as await_

from .base import InformixDialect


class AsyncAdapt_informix_cursor(AsyncAdapt_dbapi_cursor):  # noqa: N801
    __slots__ = ()


class AsyncAdapt_informix_ss_cursor(AsyncAdapt_dbapi_ss_cursor):  # noqa: N801
    __slots__ = ()


class AsyncAdapt_informix_connection(AsyncAdapt_dbapi_connection):  # noqa: N801
    """An ``AsyncConnection`` seen through blocking-looking calls."""

    __slots__ = ()
    _cursor_cls = AsyncAdapt_informix_cursor
    _ss_cursor_cls = AsyncAdapt_informix_ss_cursor

    @property
    def autocommit(self) -> bool:
        return self._connection.autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        await_(self._connection.set_autocommit(value))

    @property
    def broken(self) -> bool:
        return self._connection.broken

    @property
    def closed(self) -> bool:
        return self._connection.closed

    def terminate(self) -> None:
        """Drop the connection without waiting on the server (pool invalidation)."""
        self._connection._session.close()
        self._connection._io.close()


class InformixAdaptDBAPI:
    """The informix_stream module as SQLAlchemy expects an async DB-API."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.dbapi_module = None
        self.exceptions_module = driver
        for name, value in driver.__dict__.items():
            if name != "connect":
                self.__dict__[name] = value

    def connect(self, *args: Any, **kw: Any) -> AsyncAdapt_informix_connection:
        creator = kw.pop("async_creator_fn", self.driver.connect_async)
        return await_(AsyncAdapt_informix_connection.create(self, creator(*args, **kw)))


class InformixDialectAsync_informix_stream(InformixDialect):  # noqa: N801
    """The Informix dialect with asyncio connections."""

    driver = "informix_stream_async"
    is_async = True
    supports_statement_cache = True
    supports_server_side_cursors = True

    @classmethod
    def import_dbapi(cls) -> Any:
        import informix_stream
        return InformixAdaptDBAPI(informix_stream)

    @classmethod
    def get_pool_class(cls, url: Any) -> type:
        return AsyncAdaptedQueuePool

    def get_driver_connection(self, connection: Any) -> Any:
        return connection._connection

    def do_terminate(self, dbapi_connection: Any) -> None:
        dbapi_connection.terminate()


dialect = InformixDialectAsync_informix_stream
