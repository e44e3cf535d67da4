"""Issue 9, adversary round 7b: a Ctrl-C at sampled bytes of autocommit
executemany loads shaped where chunk accounting is easiest to get wrong,
and the same connection used again afterwards.

Shapes: one row a chunk (``chunk_size=1``: a COMMIT after every row), one
row a chunk by bytes (``chunk_bytes=1``), a last partial chunk (25 rows in
chunks of 10), and ``batch_errors=True`` with failing rows (duplicate keys)
in every chunk.  After each cut, with L the call's rows in the table:

* nothing in doubt: L is exactly the good rows of the first whole chunks,
  and ``rowcount`` counts them;
* a COMMIT in doubt (start, stop): the connection is broken, ``rowcount``
  counts the good rows before ``start`` and L ends at ``start`` or ``stop``;
* a connection still usable is in no transaction, and a statement run on
  it afterwards is committed at once (autocommit), never left in a stale
  transaction the call opened; a broken one refuses with a PEP 249 error.

test_executemany_commit_sweep.py sweeps three chunks of ten in these modes;
these shapes put a COMMIT (or a chunk edge) much closer to every byte.
"""

from __future__ import annotations

import time
import uuid

import pytest

from faults.emu import connect, rows
from faults.sweeps import ctrl_c_sweep
from test_interrupts import SIGNALLED

pytestmark = pytest.mark.timeout(240)

SAMPLE = 10

# shape -> (rows in the call, executemany keywords, chunk edges, failing rows)
SHAPES = {
    "chunk-size-1": (5, {"chunk_size": 1, "insert_cursor": False}, 1, ()),
    "chunk-size-1-insert-cursor": (5, {"chunk_size": 1, "insert_cursor": True}, 1, ()),
    "chunk-bytes-1": (5, {"chunk_bytes": 1, "insert_cursor": False}, 1, ()),
    "partial-last-chunk": (25, {"chunk_size": 10, "insert_cursor": True}, 10, ()),
    "batch-errors-failing-rows": (24, {"chunk_size": 8, "batch_errors": True}, 8,
                                  (2, 9, 15, 21)),
}


def _table(direct) -> str:
    t = f"a7b_{uuid.uuid4().hex[:8]}"
    cur = direct.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, run INTEGER)")
    cur.execute(f"CREATE UNIQUE INDEX {t}_u ON {t} (id)")
    return t


def _data(run: int, count: int, failing: tuple) -> list[tuple]:
    """The call's rows; a failing row repeats the id of the row before it."""
    return [(run * 1000 + (i - 1 if i in failing else i), run) for i in range(count)]


def _expected(count: int, edge: int, failing: tuple, upto: int) -> list[int]:
    """The good rows among the call's first ``upto`` rows (offsets)."""
    return [i for i in range(min(upto, count)) if i not in failing]


def _landed(direct, side, t: str, run: int) -> list[int]:
    deadline = time.monotonic() + 10
    while side is not None and not side.ended:
        assert time.monotonic() < deadline, "the server kept the cut session"
        time.sleep(0.005)
    return [r[0] - run * 1000 for r in
            rows(direct, f"SELECT id FROM {t} WHERE run = ? ORDER BY id", (run,))]


def _check_told(shape: str, cur, closed: bool, landed: list[int], where) -> None:
    """What the driver said matches the table."""
    count, _, edge, failing = SHAPES[shape]
    edges = [min(k, count) for k in range(0, count + edge, edge)]
    doubt = cur.commit_in_doubt
    if doubt is None:
        assert len(landed) == cur.rowcount, (where, cur.rowcount, landed)
        assert any(landed == _expected(count, edge, failing, e) for e in edges), (where, landed)
        return
    start, stop = doubt
    assert closed, (where, doubt)
    assert start in edges and stop in edges and start < stop, (where, doubt)
    before = _expected(count, edge, failing, start)
    assert cur.rowcount == len(before), (where, cur.rowcount, doubt)
    assert landed in (before, _expected(count, edge, failing, stop)), (where, landed, doubt)


def _check_reuse(conn, direct, t: str, run: int, closed: bool, where) -> None:
    """The connection after the cut: a usable one runs a later statement in
    autocommit (visible to another session at once); a broken one refuses."""
    marker = run * 1000 + 999
    cur = conn.cursor() if not closed else None
    if closed:
        with pytest.raises(SIGNALLED):
            conn.cursor().execute(f"INSERT INTO {t} VALUES (?, ?)", (marker, run))
        return
    assert not conn.in_transaction, where
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (marker, run))
    assert cur.rowcount == 1 and cur.commit_in_doubt is None, where
    seen = rows(direct, f"SELECT COUNT(*) FROM {t} WHERE id = ?", (marker,))
    assert seen == [(1,)], (where, "a statement after the cut was not committed")


@pytest.mark.parametrize("shape", list(SHAPES))
def test_ctrl_c_in_a_load_then_the_same_connection(emu, proxy, intr, direct, shape):
    t = _table(direct)
    count, kw, _, failing = SHAPES[shape]

    def load(conn, run):
        cur = conn.cursor()
        return cur, lambda: cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                            _data(run, count, failing), **kw)

    def check(cut):
        landed = _landed(direct, cut.side if cut.closed else None, t, cut.run)
        _check_told(shape, cut.cur, cut.closed, landed, cut.where)
        _check_reuse(cut.conn, direct, t, cut.run, cut.closed, cut.where)

    # batch_errors' chunks report their rows: no exception but the Ctrl-C
    cuts = ctrl_c_sweep(emu, proxy, intr, load, check, SAMPLE, autocommit=True)
    assert cuts > SAMPLE


def test_commit_in_doubt_is_reset_by_the_next_execute(emu, direct):
    """``commit_in_doubt`` speaks of the cursor's last call only: a later
    execute (like a later executemany) clears it with ``rowcount``."""
    t = _table(direct)
    conn = connect(emu, autocommit=True)
    try:
        cur = conn.cursor()
        cur.commit_in_doubt = (0, 1)      # as a cut call on this cursor leaves it
        cur.execute(f"INSERT INTO {t} VALUES (1, 1)")
        assert cur.commit_in_doubt is None
        cur.commit_in_doubt = (0, 1)
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(2, 1)])
        assert cur.commit_in_doubt is None
    finally:
        conn.close()


@pytest.mark.parametrize("kw", [{"chunk_size": 1, "insert_cursor": False},
                                {"chunk_size": 4, "insert_cursor": True},
                                {"chunk_size": 4, "batch_errors": True}],
                         ids=["bind-1", "insert-cursor-4", "batch-errors-4"])
def test_ctrl_c_in_a_transactions_load_then_commit(emu, proxy, intr, direct, kw):
    """Inside the caller's transaction: after a cut the connection is either
    broken (the server rolls the transaction back: nothing of the call
    lands) or usable, and then COMMIT lands exactly the rows ``rowcount``
    counted -- the rows of the chunk cut midway are neither half applied
    nor lost unannounced."""
    t = _table(direct)
    count = 9

    def load(conn, run):
        cur = conn.cursor()
        return cur, lambda: cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                            _data(run, count, ()), **kw)

    def check(cut):
        conn, cur, where = cut.conn, cut.cur, cut.where
        if conn.closed:
            assert cur.commit_in_doubt is None, where
            assert _landed(direct, cut.side, t, cut.run) == [], where
            with pytest.raises(SIGNALLED):
                conn.commit()
            return
        conn.commit()
        landed = _landed(direct, None, t, cut.run)
        assert landed == list(range(cur.rowcount)), (where, cur.rowcount, landed)

    # the probe's transaction is rolled back as its connection closes
    cuts = ctrl_c_sweep(emu, proxy, intr, load, check, SAMPLE, autocommit=False)
    assert cuts > SAMPLE
