"""Adversary: sessions racing inserts, deletes, updates, reads, commits and
rollbacks on one table in the emulator, each under its own isolation level
and lock mode, checked against a model.

Rules: a session's reads see exactly its own committed and uncommitted
rows of its own (what it deleted gone); another session's row is seen only
once that session asked to commit it; at the end the table holds every row
whose transaction's commit() returned, exactly once, and nothing else; a
lock conflict is a lock error (-271/-240/-346...), never anything else.
Held when probed (seeds 0..12, 4-6 sessions, 40 transactions each).
"""

from __future__ import annotations

import collections
import random
import threading

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect, rows
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(180)
ISOLATIONS = ("DIRTY READ", "COMMITTED READ", "CURSOR STABILITY", "REPEATABLE READ",
              "COMMITTED READ LAST COMMITTED")
WAITS = ("SET LOCK MODE TO NOT WAIT", "SET LOCK MODE TO WAIT 1", "SET LOCK MODE TO WAIT 3")
LOCK_ERRORS = {-271, -240, -346, -244, -243, -250}


class Model:
    """Rows another session may see (asked to commit) and what went wrong."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.visible: set[int] = set()
        self.errors: list[str] = []
        self.final: dict[int, set[int]] = {}


def _read(cur, wid: int, expect: set[int], model: Model) -> None:
    cur.execute("SELECT k, w FROM t")
    got = cur.fetchall()
    own = {k for k, w in got if w == wid}
    if own != expect:
        model.errors.append(f"session {wid} read its own rows wrong: {sorted(own ^ expect)}")
    with model.lock:
        foreign = [k for k, w in got if w != wid and k not in model.visible]
    if foreign:
        model.errors.append(f"session {wid} read uncommitted rows {foreign[:3]}")


def _transaction(cur, rnd: random.Random, wid: int, keys, mine: set[int],
                 model: Model) -> tuple[set[int], set[int]]:
    """A few random statements; what they inserted and deleted."""
    ins: set[int] = set()
    dels: set[int] = set()
    for _ in range(rnd.randint(1, 4)):
        op = rnd.random()
        try:
            if op < 0.6:
                k = next(keys)
                cur.execute("INSERT INTO t VALUES (?, ?)", (k, wid))
                ins.add(k)
            elif op < 0.8 and mine - dels:
                k = rnd.choice(sorted(mine - dels))
                cur.execute("DELETE FROM t WHERE k = ?", (k,))
                if cur.rowcount != 1:
                    model.errors.append(f"session {wid} deleted {cur.rowcount} rows of key {k}")
                dels.add(k)
            elif op < 0.9 and ins:
                cur.execute("UPDATE t SET w = w WHERE k = ?", (max(ins),))
            else:
                _read(cur, wid, (mine | ins) - dels, model)
        except ifx.Error as exc:
            if getattr(exc, "sqlcode", None) not in LOCK_ERRORS:
                model.errors.append(f"session {wid}: {exc!r}")
    return ins, dels


def _session(server, wid: int, seed: int, model: Model) -> None:
    rnd = random.Random(seed)
    keys = iter(range(wid * 100_000, (wid + 1) * 100_000))
    mine: set[int] = set()
    with connect(server) as conn:
        cur = conn.cursor()
        cur.execute(f"SET ISOLATION TO {rnd.choice(ISOLATIONS)}")
        cur.execute(rnd.choice(WAITS))
        for _ in range(40):
            ins, dels = _transaction(cur, rnd, wid, keys, mine, model)
            try:
                if rnd.random() < 0.6:
                    with model.lock:
                        model.visible |= ins
                    conn.commit()
                    mine = (mine | ins) - dels
                else:
                    conn.rollback()
            except ifx.Error as exc:
                model.errors.append(f"session {wid} could not end its transaction: {exc!r}")
    model.final[wid] = mine


@pytest.mark.parametrize("seed, sessions", [(1, 4), (2, 6), (3, 6)])
def test_racing_sessions_keep_exactly_the_committed_rows(seed, sessions):
    model = Model()
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with connect(srv, autocommit=True) as c:
            c.cursor().execute("CREATE TABLE t (k INT, w INT)")
        threads = [threading.Thread(target=_session, args=(srv, i, seed * 100 + i, model))
                   for i in range(sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads)
        with connect(srv) as c:
            table = collections.Counter(k for (k,) in rows(c, "SELECT k FROM t"))
    assert model.errors == []
    assert len(model.final) == sessions                 # every session ran to its end
    assert set(table) == set().union(*model.final.values())
    assert max(table.values(), default=1) == 1
