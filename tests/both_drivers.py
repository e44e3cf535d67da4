"""One face for the blocking and the asyncio driver, so a behaviour test is
written once and run against both (``drivers`` fixture in the tests).

The asyncio side runs every call to completion on a private event loop; an
``async for`` is stepped one row at a time, so streaming (and read-ahead)
behaves exactly as it does inside a real task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import informix_stream as ifx


class SyncDriver:
    name = "sync"

    def connect(self, target, **kw) -> Any:
        kw.setdefault("read_timeout", 60)
        return ifx.connect(host=target.host, port=target.port, user=target.user,
                           password=target.password, database=target.database,
                           server=target.server, **kw)

    def close(self) -> None:
        pass


class AsyncDriver:
    name = "async"

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def run(self, coro) -> Any:
        return self.loop.run_until_complete(coro)

    def connect(self, target, **kw) -> AsyncConnectionFace:
        kw.setdefault("read_timeout", 60)
        conn = self.run(ifx.connect_async(
            host=target.host, port=target.port, user=target.user, password=target.password,
            database=target.database, server=target.server, **kw))
        return AsyncConnectionFace(self, conn)

    def close(self) -> None:
        self.loop.close()


class AsyncConnectionFace:
    def __init__(self, driver: AsyncDriver, conn: ifx.AsyncConnection) -> None:
        self.driver, self.inner = driver, conn

    def cursor(self, **kw) -> AsyncCursorFace:
        return AsyncCursorFace(self.driver, self.inner.cursor(**kw))

    def commit(self) -> None:
        self.driver.run(self.inner.commit())

    def rollback(self) -> None:
        self.driver.run(self.inner.rollback())

    def close(self) -> None:
        self.driver.run(self.inner.close())

    @property
    def closed(self) -> bool:
        return self.inner.closed

    @property
    def autocommit(self) -> bool:
        return self.inner.autocommit

    def __enter__(self) -> AsyncConnectionFace:
        return self

    def __exit__(self, *exc) -> None:
        self.driver.run(self.inner.__aexit__(*exc))


class AsyncCursorFace:
    def __init__(self, driver: AsyncDriver, cur: ifx.AsyncCursor) -> None:
        self.driver, self.inner = driver, cur

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if asyncio.iscoroutinefunction(value):
            return lambda *a, **kw: self.driver.run(value(*a, **kw))
        return value

    def execute(self, *a, **kw) -> AsyncCursorFace:
        self.driver.run(self.inner.execute(*a, **kw))
        return self

    def executemany(self, *a, **kw) -> AsyncCursorFace:
        self.driver.run(self.inner.executemany(*a, **kw))
        return self

    def __iter__(self) -> Iterator:
        agen = self.inner.__aiter__()
        while True:
            try:
                yield self.driver.run(agen.__anext__())
            except StopAsyncIteration:
                return

    def __enter__(self) -> AsyncCursorFace:
        return self

    def __exit__(self, *exc) -> None:
        self.driver.run(self.inner.close())
