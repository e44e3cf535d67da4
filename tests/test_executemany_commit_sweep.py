"""Issue 9: whatever byte of an autocommit executemany a Ctrl-C or a task
cancellation lands on, what the driver says matches the table.

A sample of the byte offsets of a whole three-chunk load, each direction,
for the BIND+EXECUTE path, the insert cursor and batch_errors (whose chunks
run in the insert cursor's own transaction).  After each cut, with L the
rows of the call in the table (always a prefix, whole chunks):

* nothing in doubt (``cur.commit_in_doubt is None``): L == rowcount;
* a COMMIT in doubt, rows (start, stop): rowcount == start and L is start
  or stop -- never anything else;
* a connection still usable is not inside a transaction the call opened.

test_executemany_commit_interrupt.py lands on each point of the COMMIT
deterministically; this sweep checks the same promise everywhere else.
"""

from __future__ import annotations

import time
import uuid

import pytest

from faults.emu import rows
from faults.sweeps import cancel_sweep, ctrl_c_sweep

pytestmark = pytest.mark.timeout(300)

ROWS, CHUNK = 30, 10
SAMPLE = 24
MODES = {
    "bind": {"insert_cursor": False},
    "insert-cursor": {"insert_cursor": True},
    "batch-errors": {"batch_errors": True},
}


def _table(direct) -> str:
    t = f"cms_{uuid.uuid4().hex[:8]}"
    direct.cursor().execute(f"CREATE TABLE {t} (id INTEGER, run INTEGER)")
    return t


def _data(run: int) -> list[tuple]:
    return [(run * 1000 + i, run) for i in range(ROWS)]


def _landed(direct, side, t: str, run: int) -> list[int]:
    """The run's rows, once the server let a broken session go."""
    deadline = time.monotonic() + 10
    while side is not None and not side.ended:
        assert time.monotonic() < deadline, "the server kept the cut session"
        time.sleep(0.005)
    return [r[0] - run * 1000 for r in
            rows(direct, f"SELECT id FROM {t} WHERE run = ? ORDER BY id", (run,))]


def _check(conn_closed: bool, in_tx: bool, rowcount: int, doubt, landed: list[int],
           where) -> None:
    assert landed == list(range(len(landed))), (where, landed[:5])
    assert len(landed) % CHUNK == 0, (where, len(landed))
    if doubt is None:
        assert len(landed) == rowcount, (where, rowcount, len(landed))
    else:
        assert conn_closed, where
        assert rowcount == doubt[0] and len(landed) in doubt, (where, rowcount, doubt)
    if not conn_closed:
        assert not in_tx, where


def _told(direct, t: str, cut) -> None:
    """What the driver said of one cut run matches the table."""
    landed = _landed(direct, cut.side if cut.closed else None, t, cut.run)
    _check(cut.closed, cut.conn.in_transaction, cut.cur.rowcount, cut.cur.commit_in_doubt,
           landed, cut.where)


@pytest.mark.parametrize("mode", list(MODES))
def test_ctrl_c_anywhere_in_a_load_never_misstates_what_landed(emu, proxy, intr, direct,
                                                                mode):
    t = _table(direct)

    def load(conn, run):
        cur = conn.cursor()
        return cur, lambda: cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(run),
                                            chunk_size=CHUNK, **MODES[mode])

    cuts = ctrl_c_sweep(emu, proxy, intr, load, lambda cut: _told(direct, t, cut), SAMPLE,
                        autocommit=True)
    assert cuts > SAMPLE


@pytest.mark.parametrize("mode", list(MODES))
def test_task_cancelled_anywhere_in_a_load_never_misstates_what_landed(emu, proxy, direct,
                                                                       loop, mode):
    """The awaiting code may get a new CancelledError (asyncio makes one):
    the cursor keeps what the call knows."""
    t = _table(direct)

    def load(conn, run):
        cur = conn.cursor()
        return cur, cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _data(run),
                                    chunk_size=CHUNK, **MODES[mode])

    cuts = cancel_sweep(emu, proxy, loop, load, lambda cut: _told(direct, t, cut), SAMPLE,
                        autocommit=True)
    assert cuts > SAMPLE
