"""What the adversary-8 tests share: bounded threads, bounded asyncio runs
(round 8b) and a server with one numbered table."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import pytest

import informix_stream as ifx
from faults.emu import connect_kw
from informix_stream.emulator import EmulatorServer

JOIN = 60          # seconds a worker may take before a test calls it a hang


def bounded(*targets: Callable[[], object]) -> list:
    """Run each target in its own thread, started together; their results
    in order (an exception a target raised stands as its result).  A worker
    still alive after JOIN seconds fails the test: a hang."""
    results: list = [None] * len(targets)
    gate = threading.Barrier(len(targets))

    def wrap(i: int, fn: Callable[[], object]) -> None:
        try:
            gate.wait(JOIN)
            results[i] = fn()
        except BaseException as exc:  # noqa: BLE001 - judged by the test
            results[i] = exc

    threads = [threading.Thread(target=wrap, args=(i, fn), daemon=True)
               for i, fn in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN)
    assert not [t for t in threads if t.is_alive()], "a worker hung"
    return results


def run_async(server: EmulatorServer, body: Callable[..., Awaitable], **kw: object):
    """``await body(conn)`` on a fresh async connection (autocommit unless
    ``kw`` says otherwise), closed after; a run longer than JOIN seconds is
    a hang and fails the test (asyncio.TimeoutError)."""
    async def main():
        conn = await ifx.connect_async(**connect_kw(server, **{"autocommit": True, **kw}))
        try:
            return await body(conn)
        finally:
            await conn.close()
    return asyncio.run(asyncio.wait_for(main(), JOIN))


@contextmanager
def numbered_server(n: int) -> Iterator[EmulatorServer]:
    """An emulator whose table ``src (k, v)`` holds k = 0..n-1, v = 'v<k>'."""
    with EmulatorServer(databases=("testdb",)) as srv:
        with ifx.connect(**connect_kw(srv, autocommit=True)) as c:
            cur = c.cursor()
            cur.execute("CREATE TABLE src (k INTEGER, v VARCHAR(30))")
            cur.executemany("INSERT INTO src VALUES (?, ?)", [(i, f"v{i}") for i in range(n)])
        yield srv


def numbered_server_fixture(n: int):
    """A module-scoped ``server`` fixture: ``numbered_server(n)``."""
    @pytest.fixture(scope="module")
    def server() -> Iterator[EmulatorServer]:
        with numbered_server(n) as srv:
            yield srv
    return server
