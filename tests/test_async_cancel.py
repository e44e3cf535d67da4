"""Task cancellation and time limits in the asyncio driver: the connection ends
consistent or marked broken, never misaligned (the KeyboardInterrupt rule)."""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from test_driver import private, unique  # noqa: F401 - private is a fixture


async def aconnect(target, **kw) -> ifx.AsyncConnection:
    return await ifx.connect_async(host=target.host, port=target.port, user=target.user,
                                   password=target.password, database=target.database,
                                   server=target.server, **kw)


def test_task_cancelled_mid_fetch_marks_the_connection_broken(private):
    async def main() -> None:
        conn = await aconnect(private, autocommit=True)
        t = unique("acan")
        cur = conn.cursor(fetch_buffer_size=128)
        await cur.execute(f"CREATE TABLE {t} (id INTEGER)")
        await cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(2000)])
        await cur.execute(f"SELECT id FROM {t} ORDER BY id")
        first = await cur.fetchmany(10)
        assert first == [(i,) for i in range(10)]
        private.rec.hold()                      # the server stops answering
        try:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(cur.fetchall(), 0.5)
        finally:
            private.rec.release()
        assert conn.closed and conn.broken
        with pytest.raises(ifx.OperationalError, match="interrupted|unusable"):
            await conn.cursor().execute(f"SELECT COUNT(*) FROM {t}")
        await conn.close()
        fresh = await aconnect(private)
        cur = fresh.cursor()
        await cur.execute(f"SELECT COUNT(*) FROM {t}")
        assert await cur.fetchone() == (2000,)
        await fresh.close()

    asyncio.run(main())


def test_cancel_between_exchanges_keeps_the_connection(private):
    async def main() -> None:
        conn = await aconnect(private, autocommit=True)
        t = unique("acan")
        cur = conn.cursor(fetch_buffer_size=128)
        await cur.execute(f"CREATE TABLE {t} (id INTEGER)")
        await cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(500)])
        await cur.execute(f"SELECT id FROM {t} ORDER BY id")

        async def consume() -> None:
            async for _ in cur:
                await asyncio.sleep(10)         # cancelled here, between fetches

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not conn.closed
        other = conn.cursor()
        await other.execute(f"SELECT COUNT(*) FROM {t} WHERE id < ?", (42,))
        assert await other.fetchone() == (42,)
        await conn.close()

    asyncio.run(main())


def test_read_timeout_breaks_the_connection(private):
    async def main() -> None:
        conn = await aconnect(private, autocommit=True, read_timeout=0.5)
        private.rec.hold()
        try:
            with pytest.raises(ifx.OperationalError, match="timed out"):
                await conn.cursor().execute("SELECT COUNT(*) FROM systables")
        finally:
            private.rec.release()
        assert conn.broken
        await conn.close()

    asyncio.run(main())


def test_async_executemany_from_an_async_generator_that_fails(private):
    class Boom(Exception):
        pass

    async def rows():
        for i in range(25):
            yield (i,)
        raise Boom

    async def main() -> None:
        conn = await aconnect(private, autocommit=True)
        t = unique("agen")
        cur = conn.cursor()
        await cur.execute(f"CREATE TABLE {t} (id INTEGER)")
        with pytest.raises(Boom):
            await cur.executemany(f"INSERT INTO {t} VALUES (?)", rows(), chunk_size=10)
        await cur.execute(f"SELECT COUNT(*), MAX(id) FROM {t}")
        assert await cur.fetchone() == (25, 24)       # what the source produced landed
        await conn.close()

    asyncio.run(main())
