"""Issue 9: an executemany whose rows the server commits one by one --
autocommit with ``batch_errors`` (BIND+EXECUTE: each statement its own
transaction), any call in a database without logging (BIND+EXECUTE or the
insert cursor) -- stopped by a Ctrl-C or a task cancellation.

No COMMIT ends such a chunk: each reply that says a row went in means the
row is in the table for good.  So after the interrupt:

* a chunk whose replies were all read is counted in full (the interrupt
  landed after the reading, before the chunk's code counted them): the
  connection is usable, ``rowcount`` equals the rows in the table and
  nothing is in doubt, so resuming from ``rowcount`` sends each row once;
* a chunk with requests out and replies not read leaves the connection
  broken, ``rowcount`` counting the rows answered and
  ``commit_in_doubt = (start, stop)`` naming the rows that may or may not
  have gone in (a prefix of them did, the server working in order).

test_executemany_commit_interrupt.py does the same for chunks that end in
a COMMIT; the sweep at the end lands the cut on sampled bytes of a load.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect, connect_async, rows
from faults.proxy import C2S, CALL, DROP, S2C, Fault
from faults.sweeps import cancel_sweep, ctrl_c_sweep

pytestmark = pytest.mark.timeout(240)

ROWS, CHUNK = 30, 10
START, STOP = CHUNK, 2 * CHUNK          # the second chunk is the one cut
SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)

# mode -> (database: "logged" or "nolog", executemany keywords)
MODES = {
    "batch-errors-bind": ("logged", {"batch_errors": True, "insert_cursor": False}),
    "nolog-bind": ("nolog", {"insert_cursor": False}),
    "nolog-insert-cursor": ("nolog", {"insert_cursor": True}),
    "nolog-batch-errors-bind": ("nolog", {"batch_errors": True, "insert_cursor": False}),
    "nolog-batch-errors-insert-cursor": ("nolog", {"batch_errors": True,
                                                   "insert_cursor": True}),
}
BIND_MODES = [m for m, (_, kw) in MODES.items() if kw["insert_cursor"] is False]


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def nolog(emu) -> str:
    """A database without logging on the module's emulator."""
    name = unique("nolog")
    with connect(emu, autocommit=True) as conn:
        conn.cursor().execute(f"CREATE DATABASE {name}")
    return name


class Target:
    """The mode's database: a table in it, connections to it (through the
    proxy or not) and the rows of one run that reached it."""

    def __init__(self, emu, proxy, nolog: str, mode: str) -> None:
        where, self.options = MODES[mode]
        self.kw = {"autocommit": True}
        if where == "nolog":
            self.kw["database"] = nolog
        self.emu, self.proxy = emu, proxy
        self.check = connect(emu, **self.kw)
        self.table = unique("obo")
        self.check.cursor().execute(f"CREATE TABLE {self.table} (id INTEGER, run INTEGER)")
        self.sql = f"INSERT INTO {self.table} VALUES (?, ?)"

    def connect(self):
        return connect(self.proxy, **self.kw)

    def connect_async(self, loop):
        return loop.run_until_complete(connect_async(self.proxy, **self.kw))

    def landed(self, side, run: int) -> list[int]:
        """The run's rows, once the server let a broken session go."""
        deadline = time.monotonic() + 10
        while side is not None and not side.ended:
            assert time.monotonic() < deadline, "the server kept the cut session"
            time.sleep(0.005)
        return [r[0] - run * 1000 for r in rows(
            self.check, f"SELECT id FROM {self.table} WHERE run = ? ORDER BY id", (run,))]

    def close(self) -> None:
        self.check.close()


@pytest.fixture(params=list(MODES))
def target(request, emu, proxy, nolog):
    t = Target(emu, proxy, nolog, request.param)
    yield t
    t.close()


def _data(run: int) -> list[tuple]:
    return [(run * 1000 + i, run) for i in range(ROWS)]


def _watch_second_chunk(session, at_send=None):
    """Wrap ``send_many``: the second chunk's Expects are kept (its last one
    first in the list returned), ``at_send`` runs once it is queued."""
    calls, kept = [0], []
    send_many = session.send_many

    def watch(bodies, **kw):
        expects = send_many(bodies, **kw)
        calls[0] += 1
        if calls[0] == 2:
            kept.append(expects[-1])
            if at_send is not None:
                at_send()
        return expects
    session.send_many = watch
    return kept


def _resume_exactly_once(target: Target, rowcount: int, run: int) -> None:
    """What a caller does after the interrupt: send the rows from
    ``rowcount`` on, on a connection of its own; each row is then in the
    table once."""
    with target.connect() as again:
        again.cursor().executemany(target.sql, _data(run)[rowcount:], chunk_size=CHUNK,
                                   **target.options)
    assert target.landed(None, run) == list(range(ROWS))


# -- the chunk's replies all read, its code not resumed ------------------------

def test_ctrl_c_after_the_replies_are_read_counts_every_row_that_went_in(target):
    """The interrupt lands between the I/O layer and the chunk's code: the
    rows are in the table (committed one by one), so they are counted."""
    run = 1
    conn = target.connect()
    io = conn._io
    last = _watch_second_chunk(conn._session)
    until = io._until

    def read_then_cut(step):
        until(step)
        if last and step is last[0] and step.done:
            raise KeyboardInterrupt("the chunk's replies read, its code not resumed")
    io._until = read_then_cut
    cur = conn.cursor()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            cur.executemany(target.sql, _data(run), chunk_size=CHUNK, **target.options)
        assert not conn.closed
        assert getattr(caught.value, "commit_in_doubt", None) is None
        assert cur.commit_in_doubt is None
        assert cur.rowcount == STOP
        assert target.landed(None, run) == list(range(STOP))
        if target.options.get("batch_errors"):
            assert cur.batch_errors == []
        rowcount = cur.rowcount
        cur.execute(target.sql, (-1, run))      # the connection goes on in autocommit
        assert -1 - run * 1000 in target.landed(None, run)
        cur.execute(f"DELETE FROM {target.table} WHERE id = ?", (-1,))
    finally:
        conn.close()
    _resume_exactly_once(target, rowcount, run)


def test_task_cancelled_after_the_replies_are_read_counts_every_row(target, loop):
    run = 2
    conn = target.connect_async(loop)
    io = conn._io
    last = _watch_second_chunk(conn._session)
    until = io._until

    async def read_then_cancel(step):
        await until(step)
        if last and step is last[0] and step.done:
            asyncio.current_task().cancel()
            await asyncio.sleep(0)
    io._until = read_then_cancel
    cur = conn.cursor()
    try:
        with pytest.raises(asyncio.CancelledError):
            loop.run_until_complete(cur.executemany(target.sql, _data(run), chunk_size=CHUNK,
                                                    **target.options))
        assert not conn.closed
        assert cur.commit_in_doubt is None
        assert cur.rowcount == STOP
        assert target.landed(None, run) == list(range(STOP))
    finally:
        loop.run_until_complete(conn.close())
    _resume_exactly_once(target, cur.rowcount, run)


# -- requests out, replies not (wholly) read -------------------------------------

# point -> (direction, offset in replies of the chunk's rows, drop), rows in doubt
POINTS = {
    "held-by-proxy": ((C2S, 0, True), (START, STOP)),
    "first-reply-half-read": ((S2C, 0, False), (START, STOP)),
    "five-replies-read": ((S2C, 5, False), (START + 5, STOP)),
}


def _reply_size(target: Target) -> int:
    """Bytes of one row's reply: a second call on a kept statement (no
    PREPARE) of one chunk, measured at the proxy."""
    with target.connect() as probe:
        cur = probe.cursor()
        sql, data = target.sql, [(-5, -5)] * CHUNK
        cur.executemany(sql, data, chunk_size=CHUNK, **target.options)
        before = target.proxy.counts()[1]
        cur.executemany(sql, data, chunk_size=CHUNK, **target.options)
        size, rest = divmod(target.proxy.counts()[1] - before, CHUNK)
        assert rest == 0, "the replies of a chunk are not all the same size"
        cur.execute(f"DELETE FROM {target.table} WHERE run = -5")
    return size


def _arm(target: Target, intr, point: str, per_reply: int, error: bool) -> None:
    (direction, replies, drop), _ = POINTS[point]
    offset = replies * per_reply + (0 if direction == C2S else 1)
    if error:
        target.proxy.arm(Fault(direction, offset, DROP))
        return

    def fire():
        time.sleep(0.05)        # the client reads what came before the cut
        intr.fire_and_wait()
    target.proxy.arm(Fault(direction, offset, CALL, callback=fire, drop=drop))


@pytest.mark.parametrize("point", list(POINTS))
def test_ctrl_c_with_replies_unread_names_the_rows_in_doubt(target, intr, point):
    if point == "five-replies-read" and target.options["insert_cursor"]:
        pytest.skip("the insert cursor answers per block of rows, not per row")
    per_reply = _reply_size(target) if POINTS[point][0][1] else 0
    run = 3
    conn = target.connect()
    side = target.emu.latest_session()
    _watch_second_chunk(conn._session, lambda: _arm(target, intr, point, per_reply, False))
    cur = conn.cursor()
    doubt = POINTS[point][1]
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            cur.executemany(target.sql, _data(run), chunk_size=CHUNK, **target.options)
        target.proxy.disarm()
        assert conn.closed
        assert cur.commit_in_doubt == doubt == caught.value.commit_in_doubt
        assert f"rows {doubt[0]}..{doubt[1] - 1} of this call" in "".join(
            caught.value.__notes__)
        assert cur.rowcount == doubt[0]
        with pytest.raises(SIGNALLED):
            cur.execute(f"SELECT COUNT(*) FROM {target.table}")
        landed = target.landed(side, run)
        assert landed == list(range(len(landed)))
        assert doubt[0] <= len(landed) <= doubt[1], landed
        if POINTS[point][0][2]:         # never reached the server
            assert len(landed) == doubt[0]
    finally:
        conn.close()


@pytest.mark.parametrize("mode", BIND_MODES)
def test_a_connection_lost_with_replies_unread_names_the_rows_in_doubt(emu, proxy, nolog,
                                                                       mode):
    """The same when the connection is lost (a PEP 249 error): the rows
    answered are counted, the error's message names the rows in doubt."""
    target = Target(emu, proxy, nolog, mode)
    try:
        per_reply = _reply_size(target)
        run = 4
        conn = target.connect()
        side = emu.latest_session()
        _watch_second_chunk(conn._session,
                            lambda: _arm(target, None, "five-replies-read", per_reply, True))
        cur = conn.cursor()
        with pytest.raises(ifx.OperationalError) as caught:
            cur.executemany(target.sql, _data(run), chunk_size=CHUNK, **target.options)
        proxy.disarm()
        doubt = (START + 5, STOP)
        assert conn.closed
        assert cur.commit_in_doubt == doubt == caught.value.commit_in_doubt
        assert f"rows {doubt[0]}..{doubt[1] - 1} of this call" in str(caught.value)
        assert cur.rowcount == doubt[0]
        landed = target.landed(side, run)
        assert landed == list(range(len(landed)))
        assert doubt[0] <= len(landed) <= doubt[1], landed
        conn.close()
    finally:
        target.close()


# -- a sweep: the cut on sampled bytes of a load -------------------------------------

SAMPLE = 16


def _check_cut(target: Target, cut) -> None:
    """What the driver said matches the table; with nothing in doubt,
    resuming from rowcount puts every row in once."""
    landed = target.landed(cut.side if cut.closed else None, cut.run)
    where, doubt = cut.where, cut.cur.commit_in_doubt
    assert landed == list(range(len(landed))), (where, landed[:5])
    if doubt is None:
        assert len(landed) == cut.cur.rowcount, (where, cut.cur.rowcount, len(landed))
        _resume_exactly_once(target, cut.cur.rowcount, cut.run)
        return
    assert cut.closed, where
    assert cut.cur.rowcount == doubt[0] <= len(landed) <= doubt[1], (where, doubt, landed)


def test_ctrl_c_anywhere_in_a_load_never_misstates_what_landed(target, intr):
    def load(conn, run):
        cur = conn.cursor()
        return cur, lambda: cur.executemany(target.sql, _data(run), chunk_size=CHUNK,
                                            **target.options)

    cuts = ctrl_c_sweep(target.emu, target.proxy, intr, load,
                        lambda cut: _check_cut(target, cut), SAMPLE, **target.kw)
    assert cuts > SAMPLE


def test_task_cancelled_anywhere_in_a_load_never_misstates_what_landed(target, loop):
    def load(conn, run):
        cur = conn.cursor()
        return cur, cur.executemany(target.sql, _data(run), chunk_size=CHUNK,
                                    **target.options)

    cuts = cancel_sweep(target.emu, target.proxy, loop, load,
                        lambda cut: _check_cut(target, cut), SAMPLE, **target.kw)
    assert cuts > SAMPLE
