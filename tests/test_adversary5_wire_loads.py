"""Adversary: the socket dropped, or foreign bytes slipped in, at sampled
bytes of an insert-cursor load (PUT blocks and FLUSH), of an Arrow load,
and of a hold cursor read on across COMMIT.

Rules: the call succeeds with everything applied, or raises a PEP 249
error with the connection closed (or, for a reply bent so that it still
parses, with the next statement right); the rows in the table are then a prefix
of the rows sent (autocommit: each chunk commits whole or not at all) or
none (a transaction the cut ended); if the error names a ``row_index``,
nothing from that row on was applied unless the cut fell on a COMMIT in
flight; a hold cursor gives a prefix of its rows, in order, never a row
twice or another result's rows.
"""

from __future__ import annotations

import itertools
import time
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect, rows
from faults.proxy import C2S, DROP, INJECT, S2C, sweep
from test_wire_faults import fault_for, measure

SAMPLE = 14
N = 300
SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)
_runs = itertools.count(1)
pytestmark = pytest.mark.timeout(240)


def _table(direct) -> str:
    t = f"wl_{uuid.uuid4().hex[:8]}"
    direct.cursor().execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, run INTEGER, "
                            "name VARCHAR(40))")
    return t


def _rows(run: int) -> list[tuple]:
    return [(run * 10_000 + i, run, f"row {i} " + "x" * (i % 30)) for i in range(N)]


def _load(how: str, conn, t: str, data: list[tuple]) -> None:
    cur = conn.cursor()
    if how == "arrow":
        pa = pytest.importorskip("pyarrow", reason="the Arrow load needs the arrow extra")
        table = pa.table({"id": [r[0] for r in data], "run": [r[1] for r in data],
                          "name": [r[2] for r in data]})
        cur.load_arrow(t, table, chunk_size=64)
    else:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", data,
                        insert_cursor=True, chunk_size=64)


def _directions(action: str, c2s: int, s2c: int) -> list[tuple[str, int]]:
    """Foreign bytes go into replies only: slipped into a request, they are
    the server's to refuse (-408), which it does without closing."""
    return [(S2C, s2c)] if action == INJECT else [(C2S, c2s), (S2C, s2c)]


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("action", [DROP, INJECT])
@pytest.mark.parametrize("how", ["insert_cursor", "arrow"])
def test_a_load_cut_at_a_byte_leaves_a_prefix_or_nothing(emu, proxy, direct, how, action,
                                                        autocommit):
    t = _table(direct)
    probe = connect(proxy, autocommit=True)
    c2s, s2c = measure(proxy, lambda: _load(how, probe, t, _rows(0)))
    probe.close()
    for direction, length in _directions(action, c2s, s2c):
        for offset in sweep(length, SAMPLE):
            run = next(_runs)
            conn = connect(proxy, autocommit=autocommit, read_timeout=2)
            proxy.arm(fault_for(action, direction, offset))
            error = None
            start = time.monotonic()
            try:
                _load(how, conn, t, _rows(run))
                if not autocommit:
                    conn.commit()
            except ifx.Error as exc:
                error = exc
            finally:
                proxy.disarm()
            if error is not None and not conn.closed:
                # a reply bent so that it still parses (an injected SQ_DONE
                # inside a DESCRIBE): an error, and the wire still aligned
                assert not isinstance(error, SIGNALLED), (direction, offset, repr(error))
                # ... or the rest of the bent reply is found before the next
                # request, and that call fails closing the connection
                try:
                    assert rows(conn, f"SELECT COUNT(*) FROM {t} WHERE run = -5") == [(0,)]
                    if not autocommit:
                        conn.rollback()
                except SIGNALLED:
                    assert conn.closed, (direction, offset, repr(error))
            assert time.monotonic() - start < 10, (direction, offset)
            landed = [r[0] - run * 10_000 for r in
                      rows(direct, f"SELECT id FROM {t} WHERE run = ? ORDER BY id", (run,))]
            where = (direction, offset, len(landed), repr(error))
            if error is None:
                assert landed == list(range(N)), where
            else:
                assert landed == list(range(len(landed))), where
                if not autocommit:
                    assert landed in ([], list(range(N))), where   # COMMIT in doubt
            conn.close()


def test_a_hold_cursor_read_across_commit_cut_at_a_byte(emu, proxy, direct):
    t = _table(direct)
    direct.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", _rows(0))
    want = [r[0] for r in _rows(0)]

    def read(conn, seen):
        cur = conn.cursor(hold=True, fetch_buffer_size=256)
        cur.execute(f"SELECT id FROM {t} ORDER BY id")
        for i, (k,) in enumerate(cur):
            seen.append(k)
            if i in (40, 150):
                conn.cursor().execute(f"UPDATE {t} SET run = run WHERE id = -1")
                conn.commit()

    probe = connect(proxy)
    c2s, s2c = measure(proxy, lambda: read(probe, []))
    probe.close()
    for action in (DROP, INJECT):
        for direction, length in _directions(action, c2s, s2c):
            for offset in sweep(length, SAMPLE):
                conn = connect(proxy, read_timeout=2)
                proxy.arm(fault_for(action, direction, offset))
                seen: list[int] = []
                try:
                    read(conn, seen)
                    failed = False
                except SIGNALLED:
                    failed = True
                finally:
                    proxy.disarm()
                assert seen == want[:len(seen)], (action, direction, offset)
                assert failed or seen == want, (action, direction, offset)
                if failed:
                    assert conn.closed, (action, direction, offset)
                conn.close()
