"""Issue 9: a Ctrl-C (or a signal handler's exception) or a task
cancellation while an executemany chunk's COMMIT is in flight.

A chunk that commits on its own (autocommit, ``commit_every_chunk``, the
insert cursor's own transaction under ``batch_errors``) is stopped at each
point of its COMMIT: before it is queued, queued but not sent, sent and held
back by the proxy (it never reaches the server), reached the server with no
byte of the reply back, the reply half read, and the reply wholly read but
the operation not yet resumed.  Afterwards:

* either the chunk's fate is known and the connection consistent: rowcount
  counts it if it committed, nothing is in doubt;
* or the connection is broken and, if the COMMIT went out with no answer,
  the interrupt itself (and the cursor) says which rows are in doubt:
  ``commit_in_doubt = (start, stop)``;
* rowcount never counts a chunk whose COMMIT was not answered, and what the
  table holds is what the driver said (a chunk in doubt either way).

Also: an interrupt in the chunk's own code once its rows are answered
(before the COMMIT, or inside the caller's transaction before the savepoint
repair) breaks the connection rather than leave the rows in a transaction
the driver no longer tracks; a pool never hands on a connection broken so;
a cancel asked for right after a COMMIT's reply lands with the chunk counted.

The interrupt lands deterministically: the COMMIT is recognised when the
cursor queues it (a wrapper around the session's ``send``), and the fault
proxy holds the bytes until the SIGINT (or the cancellation) is delivered.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect, connect_async, connect_kw, rows
from faults.proxy import C2S, CALL, S2C, Fault
from informix_stream.core import requests as rq

pytestmark = pytest.mark.timeout(120)

ROWS, CHUNK = 30, 10
START, STOP = CHUNK, 2 * CHUNK          # the second chunk's COMMIT is the one cut
NTH = 2

MODES = {
    "bind": ({"insert_cursor": False}, True),
    "insert-cursor": ({"insert_cursor": True}, True),
    "batch-errors": ({"batch_errors": True}, True),
    "commit-every-chunk": ({"commit_every_chunk": True, "insert_cursor": False}, False),
}

# point -> (connection broken, rows in doubt, rows in the table)
BLOCKING_POINTS = {
    "before-queued": (True, None, START),
    "queued-unsent": (True, None, START),
    "held-by-proxy": (True, (START, STOP), START),
    "no-reply-byte": (True, (START, STOP), STOP),
    "half-reply": (True, (START, STOP), STOP),
    "reply-read": (False, None, STOP),
}


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


class CommitTrap:
    """Watches a session for executemany's ``nth`` COMMIT: ``at_commit`` runs
    just before it is queued; ``expect`` is its reply once queued."""

    def __init__(self, session, nth: int, at_commit) -> None:
        self.nth, self.seen, self.at_commit = nth, 0, at_commit
        self.expect = None
        original = session.send

        def send(body, **kw):
            if body == rq.COMMIT:
                self.seen += 1
                if self.seen == self.nth:
                    self.at_commit()
                    self.expect = original(body, **kw)
                    return self.expect
            return original(body, **kw)
        session.send = send


def _table(direct) -> str:
    t = unique("cmi")
    direct.cursor().execute(f"CREATE TABLE {t} (n INTEGER, s VARCHAR(20))")
    return t


def _data() -> list[tuple]:
    return [(i, f"r{i}") for i in range(ROWS)]


def _landed(emu, direct, side, t: str) -> list[int]:
    """The table's rows once the server let the cut session go (a broken
    connection's transaction is rolled back then)."""
    deadline = time.monotonic() + 10
    while side is not None and not side.ended:
        assert time.monotonic() < deadline, "the server kept the cut session"
        time.sleep(0.005)
    return [r[0] for r in rows(direct, f"SELECT n FROM {t} ORDER BY n")]


def _arm_blocking(point: str, conn, proxy, intr) -> CommitTrap:
    """The cut for ``point`` on a blocking connection."""
    io = conn._io

    def at_commit():
        if point == "before-queued":
            raise KeyboardInterrupt("before the COMMIT is queued")
        if point == "queued-unsent":
            flush = io._flush

            def cut_flush():
                io._flush = flush
                raise KeyboardInterrupt("the COMMIT queued, nothing of it sent")
            io._flush = cut_flush
        elif point == "held-by-proxy":
            proxy.arm(Fault(C2S, 0, CALL, callback=intr.fire_and_wait, drop=True))
        elif point == "no-reply-byte":
            proxy.arm(Fault(S2C, 0, CALL, callback=intr.fire_and_wait))
        elif point == "half-reply":
            proxy.arm(Fault(S2C, 1, CALL, callback=intr.fire_and_wait))

    trap = CommitTrap(conn._session, NTH, at_commit)
    if point == "reply-read":
        until = io._until

        def read_then_cut(step):
            until(step)
            if step is trap.expect and step.done:
                raise KeyboardInterrupt("the COMMIT's reply read, the chunk not resumed")
        io._until = read_then_cut
    return trap


@pytest.mark.parametrize("point", list(BLOCKING_POINTS))
@pytest.mark.parametrize("mode", list(MODES))
def test_ctrl_c_at_each_point_of_a_chunks_commit(emu, proxy, direct, intr, mode, point):
    options, autocommit = MODES[mode]
    broken, doubt, in_table = BLOCKING_POINTS[point]
    t = _table(direct)
    conn = connect(proxy, autocommit=autocommit)
    side = emu.latest_session()
    cur = conn.cursor()
    _arm_blocking(point, conn, proxy, intr)
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(), chunk_size=CHUNK,
                            **options)
        proxy.disarm()
        assert conn.closed is broken
        assert cur.rowcount == (STOP if in_table == STOP and not broken else START)
        assert getattr(caught.value, "commit_in_doubt", None) == doubt
        assert cur.commit_in_doubt == doubt
        if doubt is not None:
            notes = "".join(getattr(caught.value, "__notes__", []))
            assert f"rows {START}..{STOP - 1} of this call" in notes
        if broken:
            with pytest.raises((ifx.OperationalError, ifx.InterfaceError)):
                cur.execute(f"SELECT COUNT(*) FROM {t}")
            assert _landed(emu, direct, side, t) == list(range(in_table))
            return
        assert not conn.in_transaction
        assert _landed(emu, direct, None, t) == list(range(in_table))
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (-1, "after"))
        if not autocommit:
            conn.commit()
        assert _landed(emu, direct, None, t) == [-1, *range(in_table)]
    finally:
        conn.close()


class JobTimeout(Exception):
    """What a job runner's SIGALRM/SIGINT handler may raise instead."""


@pytest.mark.parametrize("mode", ["bind", "insert-cursor"])
def test_a_lost_commits_rows_are_in_doubt_even_when_a_signal_handler_raises_an_error(
        emu, proxy, direct, mode):
    """A signal handler may raise any exception (a job runner's own timeout
    class): it is told the same, and the connection is broken."""
    options, autocommit = MODES[mode]
    t = _table(direct)
    conn = connect(proxy, autocommit=autocommit)
    side = emu.latest_session()
    cur = conn.cursor()
    raised = threading.Event()

    def handler(signum, frame):
        raised.set()
        raise JobTimeout("the job ran out of time")

    previous = signal.signal(signal.SIGINT, handler)
    try:
        main = threading.main_thread().ident
        CommitTrap(conn._session, NTH, lambda: proxy.arm(Fault(
            C2S, 0, CALL, drop=True,
            callback=lambda: (signal.pthread_kill(main, signal.SIGINT), raised.wait(5)))))
        with pytest.raises(JobTimeout) as caught:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(), chunk_size=CHUNK,
                            **options)
    finally:
        signal.signal(signal.SIGINT, previous)
        proxy.disarm()
    assert conn.closed
    assert caught.value.commit_in_doubt == (START, STOP) == cur.commit_in_doubt
    assert cur.rowcount == START
    assert _landed(emu, direct, side, t) == list(range(START))
    conn.close()


@pytest.mark.parametrize("point", ["before-queued", "held-by-proxy", "reply-read"])
def test_a_pool_never_hands_out_a_connection_cut_in_a_commit(emu, proxy, direct, intr, point):
    """``with pool.connection()`` left by the interrupt: a broken connection
    is replaced, a consistent one handed on with no transaction open."""
    options, _ = MODES["bind"]
    t = _table(direct)
    with ifx.ConnectionPool(min_size=1, max_size=1, timeout=10,
                            **connect_kw(proxy, autocommit=True)) as pool:
        with pool.connection() as first:
            pass
        with pytest.raises(KeyboardInterrupt):
            with pool.connection() as conn:
                assert conn is first
                _arm_blocking(point, conn, proxy, intr)
                conn.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(),
                                          chunk_size=CHUNK, **options)
        proxy.disarm()
        broken = BLOCKING_POINTS[point][0]
        assert conn.closed is broken
        with pool.connection() as again:
            assert (again is first) is not broken
            assert not again.in_transaction
            cur = again.cursor()
            cur.execute(f"SELECT COUNT(*) FROM {t}")
            assert cur.fetchone()[0] == BLOCKING_POINTS[point][2]


def test_with_conn_after_a_cut_commit_neither_commits_nor_hides_the_interrupt(
        emu, proxy, direct, intr):
    """``with conn:`` exits on the KeyboardInterrupt of a broken connection:
    the interrupt is what the caller sees, and the connection is closed."""
    t = _table(direct)
    conn = connect(proxy, autocommit=False)
    side = emu.latest_session()
    _arm_blocking("held-by-proxy", conn, proxy, intr)
    with pytest.raises(KeyboardInterrupt) as caught:
        with conn:
            conn.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(),
                                      chunk_size=CHUNK, commit_every_chunk=True,
                                      insert_cursor=False)
    proxy.disarm()
    assert caught.value.commit_in_doubt == (START, STOP)
    assert conn.closed
    assert _landed(emu, direct, side, t) == list(range(START))


# -- an interrupt in the chunk's own code, its replies read, before its COMMIT --

OPEN_CHUNK_MODES = {
    # mode -> (options, autocommit, broken, rows in the table)
    **{m: (*MODES[m], True, START) for m in ("bind", "insert-cursor", "batch-errors",
                                             "commit-every-chunk")},
    "savepoint": ({"insert_cursor": False}, False, True, 0),
    # each row committed by the server on its own: nothing to undo or break
    "batch-errors-bind": ({"batch_errors": True, "insert_cursor": False}, True, False, STOP),
}


@pytest.mark.parametrize("mode", list(OPEN_CHUNK_MODES))
def test_ctrl_c_after_a_chunks_replies_before_its_commit(emu, proxy, direct, mode):
    """The last reply of the second chunk is read and the operation is not
    resumed (the interrupt lands between the I/O layer and the chunk's
    code): the chunk's rows are in an open transaction that nobody would
    commit or roll back, so the connection is broken (the server rolls the
    chunk back) and rowcount is what it was before the chunk."""
    options, autocommit, broken, in_table = OPEN_CHUNK_MODES[mode]
    t = _table(direct)
    conn = connect(proxy, autocommit=autocommit)
    side = emu.latest_session()
    session, io = conn._session, conn._io
    calls, last = [0], []
    send_many, until = session.send_many, io._until

    def watch_chunks(bodies, **kw):
        expects = send_many(bodies, **kw)
        calls[0] += 1
        if calls[0] == NTH:
            last.append(expects[-1])
        return expects

    def read_then_cut(step):
        until(step)
        if last and step is last[0] and step.done:
            raise KeyboardInterrupt("the chunk's replies read, its code not resumed")
    session.send_many, io._until = watch_chunks, read_then_cut
    cur = conn.cursor()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(), chunk_size=CHUNK,
                            **options)
        assert conn.closed is broken
        assert getattr(caught.value, "commit_in_doubt", None) is None
        assert cur.commit_in_doubt is None
        if broken:
            assert cur.rowcount == START
            assert _landed(emu, direct, side, t) == list(range(in_table))
            return
        assert cur.rowcount == in_table      # committed one by one: counted as read
        assert _landed(emu, direct, None, t) == list(range(in_table))
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (-1, "after"))
        assert _landed(emu, direct, None, t) == [-1, *range(in_table)]
    finally:
        conn.close()


# -- asyncio: task.cancel() at each await point of the COMMIT -----------------

ASYNC_POINTS = {
    "held-by-proxy": (C2S, 0, True, START),
    "no-reply-byte": (S2C, 0, False, STOP),
    "half-reply": (S2C, 1, False, STOP),
}


@pytest.mark.parametrize("point", list(ASYNC_POINTS))
@pytest.mark.parametrize("mode", ["bind", "insert-cursor", "batch-errors"])
def test_task_cancelled_at_each_await_of_a_chunks_commit(emu, proxy, direct, loop, mode,
                                                         point):
    options, autocommit = MODES[mode]
    direction, offset, drop, in_table = ASYNC_POINTS[point]
    t = _table(direct)
    conn = loop.run_until_complete(connect_async(proxy, autocommit=autocommit))
    side = emu.latest_session()
    cur = conn.cursor()
    seen = threading.Event()
    outcome: dict = {}

    async def load():
        try:
            await cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(),
                                  chunk_size=CHUNK, **options)
        except asyncio.CancelledError as exc:
            outcome.update(error=exc, rowcount=cur.rowcount, doubt=cur.commit_in_doubt)
            seen.set()
            raise

    task = loop.create_task(load())

    def cancel():
        loop.call_soon_threadsafe(task.cancel)
        seen.wait(5)

    CommitTrap(conn._session, NTH, lambda: proxy.arm(
        Fault(direction, offset, CALL, callback=cancel, drop=drop)))
    try:
        with pytest.raises(asyncio.CancelledError):
            loop.run_until_complete(task)
    finally:
        proxy.disarm()
    assert conn.closed
    assert outcome["rowcount"] == START
    assert outcome["doubt"] == (START, STOP)
    assert outcome["error"].commit_in_doubt == (START, STOP)
    assert f"rows {START}..{STOP - 1}" in "".join(outcome["error"].__notes__)
    assert _landed(emu, direct, side, t) == list(range(in_table))
    with pytest.raises((ifx.OperationalError, ifx.InterfaceError)):
        loop.run_until_complete(cur.execute(f"SELECT COUNT(*) FROM {t}"))
    loop.run_until_complete(conn.close())


def test_an_async_pool_replaces_a_connection_cancelled_in_a_commit(emu, proxy, direct, loop):
    t = _table(direct)
    seen = threading.Event()

    async def scenario():
        async with ifx.AsyncConnectionPool(min_size=1, max_size=1, timeout=10,
                                           **connect_kw(proxy, autocommit=True)) as pool:
            async with pool.connection() as first:
                pass
            task = asyncio.current_task()

            async def load():
                async with pool.connection() as conn:
                    assert conn is first
                    CommitTrap(conn._session, NTH, lambda: proxy.arm(Fault(
                        C2S, 0, CALL, drop=True,
                        callback=lambda: (loop.call_soon_threadsafe(inner.cancel),
                                          seen.wait(5)))))
                    try:
                        await conn.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                                        _data(), chunk_size=CHUNK)
                    except asyncio.CancelledError:
                        seen.set()
                        raise

            inner = asyncio.ensure_future(load())
            with pytest.raises(asyncio.CancelledError):
                await inner
            assert task is asyncio.current_task()
            assert first.closed
            async with pool.connection() as again:
                assert again is not first
                cur = again.cursor()
                await cur.execute(f"SELECT COUNT(*) FROM {t}")
                return (await cur.fetchone())[0]

    try:
        count = loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    finally:
        proxy.disarm()
    assert count == START


@pytest.mark.parametrize("mode", ["bind", "insert-cursor", "batch-errors"])
def test_task_cancelled_right_after_a_chunks_commit_is_answered(emu, direct, loop, mode):
    """No await lies between a COMMIT's reply and the count of its rows: a
    cancel asked for then (here by the progress callback) lands at the next
    chunk's first await, with the chunk counted and the connection usable."""
    options, autocommit = MODES[mode]
    t = _table(direct)

    async def scenario():
        conn = await connect_async(emu, autocommit=autocommit)
        cur = conn.cursor()
        task = asyncio.current_task()

        def progress(done, sent, elapsed):
            if done == STOP:
                task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError) as caught:
                await cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(),
                                      chunk_size=CHUNK, progress=progress, **options)
            if hasattr(task, "uncancel"):     # 3.11+: the cancel was consumed
                task.uncancel()
            assert not conn.closed
            assert not conn.in_transaction
            assert cur.rowcount == STOP
            assert cur.commit_in_doubt is None
            assert getattr(caught.value, "commit_in_doubt", None) is None
            await cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (-1, "after"))
        finally:
            await conn.close()

    loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert _landed(emu, direct, None, t) == [-1, *range(STOP)]
