"""Adversary round 8: ONE cursor used by two threads (misuse under
``threadsafety = 2``), and one cursor read two ways at once in one thread.

The rule: the rows handed out are exactly the result, each once, or the
driver raises ProgrammingError.  Before cursor_claim.py two threads calling
fetchone lost whole fetch buffers (each fetched a new buffer, one replaced
the other's), a fetchone inside ``for row in cur`` returned rows the loop
returned as well, two loops over one cursor duplicated and lost rows, and
an ``execute`` inside the loop cut the loop's result short silently.
"""

from __future__ import annotations

import sys
import threading

import pytest

import informix_stream as ifx
from faults.emu import connect_kw
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
N = 2000
JOIN = 60


@pytest.fixture(scope="module")
def conn():
    with EmulatorServer(databases=("testdb",)) as srv:
        c = ifx.connect(**connect_kw(srv, autocommit=True))
        cur = c.cursor()
        cur.execute("CREATE TABLE t (k INTEGER)")
        cur.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(N)])
        cur.execute("CREATE TABLE u (k INTEGER)")
        cur.executemany("INSERT INTO u VALUES (?)", [(i,) for i in range(10000, 10050)])
        yield c
        c.close()


@pytest.fixture
def fast_switch():
    """Threads switch as often as the interpreter allows, so races show."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _take(cur, how: str, out: list) -> None:
    if how == "iter":
        for row in cur:
            out.append(row[0])
    elif how == "one":
        while (row := cur.fetchone()) is not None:
            out.append(row[0])
    else:
        while batch := cur.fetchmany(7):
            out += [r[0] for r in batch]


def _two_threads_on_one_cursor(cur, how: str) -> tuple[list, list]:
    outs: list[list] = [[], []]
    errors: list = []
    gate = threading.Barrier(2)

    def work(i: int) -> None:
        try:
            gate.wait(JOIN)
            _take(cur, how, outs[i])
        except Exception as exc:  # noqa: BLE001 - judged below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN)
    assert not any(t.is_alive() for t in threads), "a reader hung"
    return outs[0] + outs[1], errors


@pytest.mark.parametrize("how", ["one", "many", "iter"])
def test_two_threads_one_cursor_get_every_row_once_or_are_refused(conn, fast_switch, how):
    for _ in range(5):
        cur = conn.cursor(fetch_buffer_size=512)
        cur.execute("SELECT k FROM t ORDER BY k")
        got, errors = _two_threads_on_one_cursor(cur, how)
        assert all(isinstance(e, ifx.ProgrammingError) for e in errors), errors
        assert len(got) == len(set(got)), "a row was handed out twice"
        if not errors:
            assert sorted(got) == list(range(N)), "rows were lost"
        else:
            # the refused thread stopped; the other read on to the end
            assert sorted(got) == list(range(N))
        cur.close()


def test_a_cursor_handed_to_another_thread_goes_on_where_it_stopped(conn):
    """One thread at a time is the promise: handing a cursor over is fine."""
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT k FROM t ORDER BY k")
    first = [r[0] for r in cur.fetchmany(150)]
    for row in cur:              # a loop left early releases the cursor
        first.append(row[0])
        if row[0] == 299:
            break
    rest: list = []
    t = threading.Thread(target=_take, args=(cur, "one", rest), daemon=True)
    t.start()
    t.join(JOIN)
    assert not t.is_alive()
    assert first + rest == list(range(N))


@pytest.mark.parametrize("call", ["fetchone", "execute"])
def test_a_call_inside_a_loop_over_the_same_cursor_is_refused(conn, call):
    """Before: fetchone returned the row the loop had just returned; an
    execute sent the loop on into the new statement's (empty) result, ending
    it as if the SELECT had no more rows -- rows lost without an error."""
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT k FROM t ORDER BY k")
    got = []
    with pytest.raises(ifx.ProgrammingError, match="being iterated"):
        for row in cur:
            got.append(row[0])
            if call == "fetchone":
                cur.fetchone()
            else:
                cur.execute("UPDATE u SET k = k WHERE k < 0")
    assert got == [0]
    # the loop ended: the cursor reads on from the row after the last handed out
    assert cur.fetchone() == (1,)


def test_a_second_loop_over_one_cursor_is_refused(conn):
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT k FROM t ORDER BY k")
    first = iter(cur)
    assert next(first) == (0,)
    with pytest.raises(ifx.ProgrammingError, match="being iterated"):
        next(iter(cur))
    assert [r[0] for r in first] == list(range(1, N))


def test_close_inside_the_loop_ends_it_with_an_error_not_more_rows(conn):
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT k FROM t ORDER BY k")
    got = []
    with pytest.raises(ifx.InterfaceError):
        for row in cur:
            got.append(row[0])
            if row[0] == 3:
                cur.close()
    # rows of the buffer already in hand may come; never past it, never twice
    assert got == list(range(len(got)))
    assert 4 <= len(got) < N


@pytest.mark.parametrize("kind", [{}, {"materialize": True}])
def test_rownumber_inside_a_loop_counts_the_rows_handed_out(conn, kind):
    """The loop wrote its place back only when it left a batch, so
    ``rownumber`` inside it stayed at the batch's start (found for the
    asyncio cursor in round 8b; the blocking one had it too).  PEP 249: the
    index of the row the next fetch returns."""
    cur = conn.cursor(fetch_buffer_size=512, **kind)
    cur.execute("SELECT k FROM t ORDER BY k")
    seen = [cur.rownumber == row[0] + 1 for row in cur]
    assert seen == [True] * N
    assert cur.rownumber == N


def test_rownumber_inside_a_scrollable_loop_is_the_current_row(conn):
    """A scroll cursor's rownumber is its current row's index, as
    informix-driver's is (tests/interop/test_informix_driver_interop.py)."""
    cur = conn.cursor(scrollable=True)
    cur.execute("SELECT k FROM t ORDER BY k")
    seen = [cur.rownumber == row[0] for row in cur]
    assert seen == [True] * N
