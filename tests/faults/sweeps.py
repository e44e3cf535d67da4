"""Interrupt sweeps: one operation cut at sampled byte offsets of a recorded
run, by a Ctrl-C (blocking driver) or a task cancellation (asyncio).

``ctrl_c_sweep`` and ``cancel_sweep`` are the loop every sweep runs: record
the bytes each way of one run on a probe connection, then for each sampled
offset open a fresh connection, run the operation with the cut armed there,
and hand the result (a ``Cut``) to the test's own check; the connection is
closed afterwards whatever the check says.  The pieces (``interrupted``,
``cancelled_at``, the offset sampling) serve scenarios of other shapes.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from faults.emu import connect, connect_async
from faults.proxy import C2S, CALL, S2C, Fault, FaultProxy, Interrupter, sweep

# distinguishes the rows of each cut run (0 is the probe's)
_runs = itertools.count(1)


def measure(proxy: FaultProxy, op) -> tuple[int, int]:
    """Bytes each way one run of ``op`` moves (read-ahead replies included)."""
    before = proxy.counts()
    op()
    time.sleep(0.15)
    after = proxy.counts()
    return after[0] - before[0], after[1] - before[1]


def sweep_offsets(proxy, op_once, sample) -> list[tuple[str, int]]:
    """(direction, offset) pairs: ``sample`` offsets of each direction of
    one run of ``op_once`` (every offset when ``sample`` is None)."""
    c2s, s2c = measure(proxy, op_once)
    assert c2s > 0 and s2c > 0
    return [(C2S, n) for n in sweep(c2s, sample)] + [(S2C, n) for n in sweep(s2c, sample)]


def offsets_of(loop, proxy, make_coro, sample) -> list[tuple[str, int]]:
    """``sweep_offsets`` for a coroutine (made by ``make_coro``)."""
    return sweep_offsets(proxy, lambda: loop.run_until_complete(make_coro()), sample)


def interrupted(proxy: FaultProxy, intr: Interrupter, direction: str, offset: int,
                op, pause: float = 0.003) -> bool:
    """Run ``op`` with a Ctrl-C after ``offset`` bytes of ``direction``; True
    when it raised KeyboardInterrupt (during or right after the call)."""
    intr.reset()
    proxy.arm(Fault(direction, offset, CALL, callback=intr.fire, pause=pause))
    try:
        op()
        intr.settle(proxy)
    except KeyboardInterrupt:
        proxy.disarm()
        return True
    return False


def cancelled_at(loop, proxy, direction: str, offset: int, coro) -> bool:
    """Run ``coro`` as a task cancelled after ``offset`` bytes of ``direction``;
    True when it ended cancelled."""
    task = loop.create_task(coro)
    proxy.arm(Fault(direction, offset, CALL, pause=0.003,
                    callback=lambda: loop.call_soon_threadsafe(task.cancel)))
    try:
        loop.run_until_complete(task)
        cut = False
    except asyncio.CancelledError:
        cut = True
    finally:
        proxy.disarm()
    loop.run_until_complete(asyncio.sleep(0.01))       # a late cancel lands now
    return cut


@dataclass
class Cut:
    """One run of a sweep, as its check sees it."""

    conn: Any
    cur: Any            # what the load function returned with the operation
    side: Any           # the server's session of ``conn`` (emulator)
    run: int            # the run's number, for rows told apart by run
    hit: bool           # the interrupt landed (the operation did not complete)
    closed: bool        # ``conn.closed`` right after the cut
    where: tuple[str, int]


def ctrl_c_sweep(emu, proxy, intr, load: Callable, check: Callable[[Cut], None],
                 sample: int | None, **kw: Any) -> int:
    """Run ``load(conn, run) -> (cur, op)``'s ``op`` once per sampled offset
    with a Ctrl-C there, each on a fresh ``connect(proxy, **kw)``, and
    ``check`` each Cut; the number of runs interrupted."""
    probe = connect(proxy, **kw)
    try:
        offsets = sweep_offsets(proxy, load(probe, 0)[1], sample)
    finally:
        probe.close()
    return _each(emu, offsets, load, check, lambda: connect(proxy, **kw),
                 lambda d, n, op: interrupted(proxy, intr, d, n, op), lambda c: c.close())


def cancel_sweep(emu, proxy, loop, load: Callable, check: Callable[[Cut], None],
                 sample: int | None, probe_kw: dict | None = None, **kw: Any) -> int:
    """``ctrl_c_sweep`` for asyncio: ``load(conn, run) -> (cur, coroutine)``
    run as a task cancelled at each offset; the probe connects with
    ``probe_kw`` (default ``kw``)."""
    probe = loop.run_until_complete(connect_async(proxy, **(kw if probe_kw is None
                                                           else probe_kw)))
    try:
        offsets = offsets_of(loop, proxy, lambda: load(probe, 0)[1], sample)
    finally:
        loop.run_until_complete(probe.close())
    return _each(emu, offsets, load, check,
                 lambda: loop.run_until_complete(connect_async(proxy, **kw)),
                 lambda d, n, coro: cancelled_at(loop, proxy, d, n, coro),
                 lambda c: loop.run_until_complete(c.close()))


def _each(emu, offsets, load, check, open_conn, cut_at, close) -> int:
    """The sweep's loop: per offset a fresh connection (``open_conn``), the
    load cut there (``cut_at``), the check, the connection closed
    (``close``) whatever the check said; the number of runs cut."""
    cuts = 0
    for direction, offset in offsets:
        run = next(_runs)
        conn = open_conn()
        try:
            side = emu.latest_session()
            cur, op = load(conn, run)
            hit = cut_at(direction, offset, op)
            cuts += hit
            check(Cut(conn, cur, side, run, hit, conn.closed, (direction, offset)))
        finally:
            close(conn)
    return cuts
