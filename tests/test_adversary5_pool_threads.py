"""Adversary: a pool shared by 8 threads whose ``configure`` and ``reset``
hooks fail at random (an exception before or after they changed the
session), while users leave temp tables, open transactions, autocommit
switched on and moved isolation behind, or raise inside ``with``.

Rules: no user ever sees what another left (a temp table, an open
transaction's row, autocommit it did not ask for); a hook's failure reaches
the caller that triggered it (getconn) or is swallowed only with the
connection closed (putconn); afterwards the pool's sizes are right, no slot
is lost, nothing hangs.  Held when probed (seeds 1..6).
"""

from __future__ import annotations

import random
import threading

import pytest

import informix_stream as ifx
from faults.emu import connect_kw, has_table
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(180)
THREADS, ROUNDS = 8, 25


class HookFailure(RuntimeError):
    """What a failing hook raises."""


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        with ifx.connect(**connect_kw(srv, autocommit=True)) as c:
            c.cursor().execute("CREATE TABLE marks (k INTEGER, who INTEGER)")
        yield srv


def _hooks(rnd: random.Random, lock: threading.Lock):
    def chance(p: float) -> bool:
        with lock:
            return rnd.random() < p

    def configure(conn):
        if chance(0.15):
            raise HookFailure("configure failed before doing anything")
        conn.cursor().execute("SET LOCK MODE TO WAIT 5")
        conn.commit()
        if chance(0.1):
            raise HookFailure("configure failed half-way")

    def reset(conn):
        if chance(0.2):
            raise HookFailure("reset failed before doing anything")
        cur = conn.cursor()
        cur.execute("SET ISOLATION TO COMMITTED READ")
        if has_table(conn, "mine"):
            cur.execute("DROP TABLE mine")
        if chance(0.1):
            cur.execute("CREATE TEMP TABLE by_reset (x INTEGER)")
            raise HookFailure("reset failed after leaving a temp table")
        conn.commit()
        conn.autocommit = False
    return configure, reset


def _use(pool, rnd: random.Random, who: int, keys, errors: list) -> None:
    try:
        with pool.connection(timeout=30) as conn:
            if conn.autocommit:
                errors.append(f"user {who} got autocommit on")
            for leftover in ("mine", "by_reset"):
                if has_table(conn, leftover):
                    errors.append(f"user {who} inherited temp table {leftover}")
            cur = conn.cursor()
            cur.execute("SELECT COUNT(*) FROM marks WHERE who < 0")
            if cur.fetchone() != (0,):
                errors.append(f"user {who} read an uncommitted row")
            choice = rnd.random()
            if choice < 0.2:
                cur.execute("CREATE TEMP TABLE mine (x INTEGER)")
            elif choice < 0.35:
                cur.execute("SET ISOLATION TO DIRTY READ")
            elif choice < 0.45:
                conn.autocommit = True
            elif choice < 0.6:
                cur.execute("INSERT INTO marks VALUES (?, ?)", (next(keys), -who - 1))
                raise KeyError("the user's own failure after a write")
            else:
                cur.execute("INSERT INTO marks VALUES (?, ?)", (next(keys), who))
    except (HookFailure, KeyError):
        pass


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_eight_threads_with_failing_hooks(server, seed):
    rnd, lock = random.Random(seed), threading.Lock()
    configure, reset = _hooks(rnd, lock)
    errors: list[str] = []
    keys = iter(range(seed * 1_000_000, (seed + 1) * 1_000_000))
    pool = ifx.ConnectionPool(min_size=0, max_size=4, configure=configure, reset=reset,
                              **connect_kw(server))

    def worker(who: int) -> None:
        mine = random.Random(seed * 100 + who)
        try:
            for _ in range(ROUNDS):
                _use(pool, mine, who, keys, errors)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(f"user {who}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    stats = pool.get_stats()
    pool.close()
    assert errors == [], errors[:6]
    assert stats["pool_size"] == stats["pool_available"] <= 4
    with ifx.connect(**connect_kw(server)) as c:
        cur = c.cursor()
        cur.execute("SELECT COUNT(*) FROM marks WHERE who < 0")
        assert cur.fetchone() == (0,)           # every failed user's write rolled back
