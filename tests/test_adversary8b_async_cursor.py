"""Adversary round 8b: ONE asyncio cursor used by two tasks, and one async
cursor read two ways at once in one task (round 8 did this for threads).

The rule: the rows handed out are exactly the result, each once, or the
driver raises ProgrammingError (InterfaceError for a closed cursor).  A
task switch happens only at an await, but a fetch awaits the connection and
the server, and the body of an ``async for`` awaits whatever it likes.
"""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from adversary8 import numbered_server, run_async

pytestmark = pytest.mark.timeout(120)
N = 2000


@pytest.fixture(scope="module")
def server():
    with numbered_server(N) as srv:
        yield srv


async def selected(conn, size: int = 512, **kw):
    cur = conn.cursor(fetch_buffer_size=size, **kw)
    await cur.execute("SELECT k FROM src ORDER BY k")
    return cur


async def take(cur, how: str, out: list) -> None:
    """Read ``cur`` to its end one of three ways, yielding to other tasks
    between rows."""
    if how == "iter":
        async for row in cur:
            out.append(row[0])
            await asyncio.sleep(0)
    elif how == "one":
        while (row := await cur.fetchone()) is not None:
            out.append(row[0])
            await asyncio.sleep(0)
    else:
        while batch := await cur.fetchmany(7):
            out += [r[0] for r in batch]
            await asyncio.sleep(0)


@pytest.mark.parametrize("how", ["one", "many", "iter"])
def test_two_tasks_on_one_cursor_get_every_row_once_or_are_refused(server, how):
    async def body(conn):
        cur = await selected(conn)
        outs: list[list] = [[], []]
        results = await asyncio.gather(take(cur, how, outs[0]), take(cur, how, outs[1]),
                                       return_exceptions=True)
        return outs, [r for r in results if r is not None]

    outs, errors = run_async(server, body)
    assert all(isinstance(e, ifx.ProgrammingError) for e in errors), errors
    got = outs[0] + outs[1]
    assert len(got) == len(set(got)), "a row was handed out twice"
    assert sorted(got) == list(range(N)), "rows were lost"


def test_a_loop_left_early_hands_the_cursor_on_where_it_stopped(server):
    """``break`` leaves an async generator suspended (asyncio closes it
    later, from a task of its own): the next fetch must still start at the
    row after the last one the loop handed out."""
    async def body(conn):
        cur = await selected(conn)
        first = []
        async for row in cur:
            first.append(row[0])
            if row[0] == 299:
                break
        nxt = await cur.fetchone()
        more = await cur.fetchmany(5)
        await asyncio.sleep(0.05)           # the abandoned loop is finalized now
        rest = await cur.fetchall()
        return first, nxt, more, rest

    first, nxt, more, rest = run_async(server, body)
    assert first == list(range(300))
    assert nxt == (300,)
    assert more == [(k,) for k in range(301, 306)]
    assert [r[0] for r in rest] == list(range(306, N))


def test_a_loop_left_early_then_a_new_loop(server):
    async def body(conn):
        cur = await selected(conn)
        got = []
        for stop in (99, 699, 1299):
            async for row in cur:
                got.append(row[0])
                if row[0] == stop:
                    break
        async for row in cur:
            got.append(row[0])
        return got

    assert run_async(server, body) == list(range(N))


@pytest.mark.parametrize("call", ["fetchone", "fetchmany"])
def test_a_fetch_inside_a_loop_over_the_same_cursor(server, call):
    """Each row once: the loop goes on after the rows the body fetched, or
    the fetch is refused."""
    async def body(conn):
        cur = await selected(conn)
        loop_rows, body_rows = [], []
        try:
            async for row in cur:
                loop_rows.append(row[0])
                if call == "fetchone":
                    extra = await cur.fetchone()
                    body_rows += [extra[0]] if extra else []
                else:
                    body_rows += [r[0] for r in await cur.fetchmany(3)]
        except ifx.ProgrammingError as exc:
            return loop_rows, body_rows, exc
        return loop_rows, body_rows, None

    loop_rows, body_rows, refused = run_async(server, body)
    got = loop_rows + body_rows
    assert len(got) == len(set(got)), "a row was handed out twice"
    if refused is None:
        assert sorted(got) == list(range(N))
    else:
        assert sorted(got) == list(range(len(got)))


@pytest.mark.parametrize("scrollable", [False, True], ids=["forward", "scrollable"])
def test_execute_inside_a_loop_does_not_feed_the_loop_other_rows(server, scrollable):
    """Before: the loop went on into the new statement's result (or ended as
    if the SELECT had no more rows) without an error."""
    async def body(conn):
        cur = await selected(conn, scrollable=scrollable)
        got = []
        with pytest.raises((ifx.ProgrammingError, ifx.InterfaceError)):
            async for row in cur:
                got.append(row[0])
                if row[0] == 5:
                    await cur.execute("SELECT k + 100000 FROM src WHERE k < 3 ORDER BY k")
        return got, await cur.fetchall()

    got, after = run_async(server, body)
    assert got == list(range(6)), "the loop handed out rows after the execute"
    assert after == [(100000,), (100001,), (100002,)], "the execute ran: its own rows"


def test_a_second_loop_over_one_cursor(server):
    async def body(conn):
        cur = await selected(conn)
        first = cur.__aiter__()
        a = [(await first.__anext__())[0]]
        second = cur.__aiter__()
        b = []
        try:
            b.append((await second.__anext__())[0])
        except ifx.ProgrammingError:
            pass
        async for row in first:
            a.append(row[0])
        async for row in second:
            b.append(row[0])
        return a, b

    a, b = run_async(server, body)
    got = a + b
    assert len(got) == len(set(got)), "a row was handed out twice"
    assert sorted(got) == list(range(N))


@pytest.mark.parametrize("rows", [N, 50], ids=["streaming", "read-to-the-end"])
def test_close_inside_the_loop_ends_it_with_an_error_not_more_rows(server, rows):
    """50 rows fit one buffer (the server sent their end already): a close
    in the body must still end the loop with an error, not as if done."""
    async def body(conn):
        cur = conn.cursor(fetch_buffer_size=512)
        await cur.execute("SELECT k FROM src WHERE k < ? ORDER BY k", (rows,))
        got = []
        with pytest.raises(ifx.InterfaceError):
            async for row in cur:
                got.append(row[0])
                if row[0] == 3:
                    await cur.close()
        return got

    got = run_async(server, body)
    assert got == list(range(len(got)))
    assert 4 <= len(got) < rows


@pytest.mark.parametrize("what", ["cursor", "connection"])
def test_close_from_another_task_while_a_fetch_waits_for_the_connection(server, what):
    """The fetch waits for the lock; meanwhile another task closes its
    cursor (or the connection).  The fetch must not send an NFETCH naming
    the freed statement (the server may have given that id to another
    statement: its rows would come back as this cursor's)."""
    async def body(conn):
        cur = await selected(conn)
        first = await cur.fetchmany(512)        # the buffer in hand is used up
        other = conn.cursor()
        async with conn._lock:                  # hold the connection: the fetch waits
            fetch = asyncio.ensure_future(cur.fetchone())
            await asyncio.sleep(0.01)
            closer = asyncio.ensure_future(cur.close() if what == "cursor" else conn.close())
            await asyncio.sleep(0.01)
            assert not fetch.done()
        results = await asyncio.gather(fetch, closer, return_exceptions=True)
        if what == "cursor" and not conn.closed:
            # another statement now, maybe on the freed id: its own rows only
            await other.execute("SELECT k + 50000 FROM src WHERE k < 3 ORDER BY k")
            assert await other.fetchall() == [(50000,), (50001,), (50002,)]
        return first, results

    first, (fetched, closed) = run_async(server, body)
    assert [r[0] for r in first] == list(range(512))
    assert closed is None
    if isinstance(fetched, BaseException):
        assert isinstance(fetched, ifx.InterfaceError | ifx.ProgrammingError | ifx.OperationalError), \
            repr(fetched)
    else:
        assert fetched == (512,)     # it ran before the close: the next row, exactly


async def reading(cur, got: list, stop: int, pause: float) -> asyncio.Task:
    """A task looping over ``cur`` into ``got`` (sleeping ``pause`` seconds a
    row from row ``stop`` on), once it has handed out ``stop`` rows."""
    async def reader():
        async for row in cur:
            got.append(row[0])
            await asyncio.sleep(pause if len(got) >= stop else 0)

    task = asyncio.ensure_future(reader())
    while len(got) < stop:
        await asyncio.sleep(0)
    return task


def test_close_from_another_task_while_a_loop_waits(server):
    async def body(conn):
        cur = await selected(conn)
        got: list = []
        task = await reading(cur, got, 700, 0)
        await cur.close()
        return got, (await asyncio.gather(task, return_exceptions=True))[0]

    got, error = run_async(server, body)
    assert isinstance(error, ifx.InterfaceError), repr(error)
    assert got == list(range(len(got))) and 700 <= len(got) < N


def test_a_task_cancelled_while_waiting_for_the_lock_leaves_others_exact(server):
    """Tasks queue for the connection's lock; one is cancelled in the queue.
    The others get exactly their rows; the cancelled one's cursor reads on
    from where it was (its fetch was never sent)."""
    async def body(conn):
        curs = [await selected(conn, 256) for _ in range(3)]
        for c in curs:
            assert len(await c.fetchmany(256)) == 256      # each needs a fetch next
        async with conn._lock:
            waiting = [asyncio.ensure_future(c.fetchone()) for c in curs]
            await asyncio.sleep(0.01)
            waiting[1].cancel()
            await asyncio.sleep(0)
        results = await asyncio.gather(*waiting, return_exceptions=True)
        rests = [await c.fetchall() for c in curs]
        return results, rests

    results, rests = run_async(server, body)
    assert results[0] == results[2] == (256,)
    assert isinstance(results[1], asyncio.CancelledError)
    assert [r[0] for r in rests[0]] == list(range(257, N))
    assert [r[0] for r in rests[1]] == list(range(256, N))
    assert [r[0] for r in rests[2]] == list(range(257, N))


def test_a_task_cancelled_mid_loop_leaves_the_cursor_where_it_stopped(server):
    async def body(conn):
        cur = await selected(conn)
        got: list = []
        task = await reading(cur, got, 300, 10)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return got, await cur.fetchall()

    got, rest = run_async(server, body)
    assert got == list(range(300))
    assert [r[0] for r in rest] == list(range(300, N))


def test_rownumber_inside_a_loop_counts_the_rows_handed_out(server):
    """Before: the loop moved the cursor's position only when it left a
    batch, so rownumber inside it stayed at the batch's start."""
    async def body(conn):
        cur = await selected(conn)
        seen = []
        async for row in cur:
            seen.append(cur.rownumber == row[0] + 1)
        return seen

    assert run_async(server, body) == [True] * N
