"""Adversary: executemany reusing kept prepared statements and its own
SAVEPOINTs (bulk_statements.py) through schema changes, rollbacks, user
savepoints and another table's loads, checked against a Python model of
what the SQL means.  The rule: after each call exactly ``rows[:e.row_index]``
(or every row) is applied, to the table the SQL names as it is now."""

from __future__ import annotations

import random
import threading

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect, rows
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)

INS_T = "INSERT INTO t (k, v) VALUES (?, ?)"
INS_U = "INSERT INTO u (k, v) VALUES (?, ?)"
T_FORMS = ("CREATE TABLE t (k INT PRIMARY KEY, v INT)",
           "CREATE TABLE t (v INT, k INT PRIMARY KEY)",
           "CREATE TABLE t (pad CHAR(3), v INT, k INT UNIQUE)")


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        yield srv


class Model:
    """What the tables hold, with savepoints and a committed copy."""

    def __init__(self) -> None:
        self.now = {"t": {}, "u": {}}
        self.committed = {"t": {}, "u": {}}
        self.savepoints: list[tuple[str, dict]] = []

    @staticmethod
    def copy(state: dict) -> dict:
        return {name: dict(table) for name, table in state.items()}

    def load(self, table: str, batch: list[tuple[int, int]]) -> int | None:
        """Rows applied until the first duplicate key: its index, or None."""
        target = self.now[table]
        for i, (k, v) in enumerate(batch):
            if k in target:
                return i
            target[k] = v
        return None


def _batch(rnd: random.Random, model: Model, table: str) -> list[tuple[int, int]]:
    size = rnd.choice((1, 2, 5, 40))
    keys = [rnd.randrange(200) for _ in range(size)]
    if rnd.random() < 0.5:                             # mostly new keys
        keys = [k + 1000 * rnd.randrange(1, 50) for k in keys]
    return [(k, rnd.randrange(-99, 99)) for k in dict.fromkeys(keys)] + (
        [(keys[0], 0)] if rnd.random() < 0.2 else [])  # a duplicate within the batch


def _step(rnd: random.Random, conn, cur, model: Model, log: list) -> None:
    op = rnd.choice(("t", "t", "u", "commit", "rollback", "save", "back", "recreate",
                     "alter"))
    log.append(op)
    if op in ("t", "u"):
        batch = _batch(rnd, model, op)
        failing = model.load(op, batch)
        try:
            cur.executemany(INS_T if op == "t" else INS_U, batch)
        except ifx.IntegrityError as exc:
            assert failing is not None and exc.row_index == failing, (log, batch)
        else:
            assert failing is None, (log, batch)
    elif op == "commit":
        conn.commit()
        model.committed, model.savepoints = model.copy(model.now), []
    elif op == "rollback":
        conn.rollback()
        model.now, model.savepoints = model.copy(model.committed), []
    elif op == "save":
        name = f"s{len(log)}"
        cur.execute(f"SAVEPOINT {name}")
        model.savepoints.append((name, model.copy(model.now)))
    elif op == "back" and model.savepoints:
        name, state = model.savepoints[rnd.randrange(len(model.savepoints))]
        cur.execute(f"ROLLBACK TO SAVEPOINT {name}")
        while model.savepoints[-1][0] != name:
            model.savepoints.pop()
        model.now = model.copy(state)
    elif op == "recreate":
        cur.execute("DROP TABLE t")
        cur.execute(rnd.choice(T_FORMS))
        model.now["t"] = {}
    elif op == "alter":
        cur.execute("ALTER TABLE t ADD extra INT BEFORE v")
        cur.execute("ALTER TABLE t DROP extra")


def _check(conn, model: Model, log: list) -> None:
    for table in ("t", "u"):
        got = dict(rows(conn, f"SELECT k, v FROM {table}"))
        assert got == model.now[table], (table, log)


@pytest.mark.parametrize("seed", range(12))
def test_random_loads_transactions_savepoints_and_ddl(server, seed):
    rnd = random.Random(seed)
    conn = connect(server)
    cur = conn.cursor()
    for sql in ("DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS u", T_FORMS[0],
                "CREATE TABLE u (k INT PRIMARY KEY, v INT)"):
        cur.execute(sql)
    conn.commit()
    model, log = Model(), []
    for _ in range(40):
        _step(rnd, conn, cur, model, log)
        _check(conn, model, log)
    conn.commit()
    check = connect(server, autocommit=True)
    model.committed = model.copy(model.now)
    _check(check, model, log)
    check.close(), conn.close()


def test_another_connection_recreates_the_table_between_calls(server):
    """The kept INSERT was prepared against the old table; the rows of the
    next call go to the table that has the name now, column by name."""
    a, b = connect(server, autocommit=True), connect(server, autocommit=True)
    cb = b.cursor()
    cb.execute("DROP TABLE IF EXISTS t")
    cb.execute(T_FORMS[0])
    a.cursor().executemany(INS_T, [(1, 10), (2, 20)])
    for form in T_FORMS[1:] + T_FORMS[:1]:
        cb.execute("RENAME TABLE t TO t_old")
        cb.execute(form)
        a.cursor().executemany(INS_T, [(3, 30), (4, 40)])
        assert dict(rows(b, "SELECT k, v FROM t")) == {3: 30, 4: 40}, form
        assert dict(rows(b, "SELECT k, v FROM t_old")) in ({1: 10, 2: 20}, {3: 30, 4: 40})
        cb.execute("DROP TABLE t_old")
        cb.execute("DELETE FROM t")
        a.cursor().executemany(INS_T, [(1, 10), (2, 20)])
    a.close(), b.close()


def test_two_threads_load_two_tables_on_one_connection(server):
    """Each thread's rows land in its own table, all of them, in transaction
    mode with one failing row each time (its call's SAVEPOINTs must be its own)."""
    conn = connect(server)
    cur = conn.cursor()
    for sql in ("DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS u", T_FORMS[0],
                "CREATE TABLE u (k INT PRIMARY KEY, v INT)"):
        cur.execute(sql)
    conn.commit()
    errors: list = []

    def load(sql: str, sign: int) -> None:
        c = conn.cursor()
        try:
            for n in range(15):
                batch = [(n * 100 + i, sign * i) for i in range(20)] + [(n * 100, 0)]
                with pytest.raises(ifx.IntegrityError) as info:
                    c.executemany(sql, batch)
                assert info.value.row_index == 20
        except BaseException as exc:       # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=load, args=(INS_T, 1)),
               threading.Thread(target=load, args=(INS_U, -1))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors and not any(th.is_alive() for th in threads)
    conn.commit()
    want = {n * 100 + i: i for n in range(15) for i in range(20)}
    assert dict(rows(conn, "SELECT k, v FROM t")) == want
    assert dict(rows(conn, "SELECT k, v FROM u")) == {k: -v for k, v in want.items()}
    conn.close()


@pytest.mark.parametrize("undo", ["ROLLBACK WORK", "ROLLBACK TO SAVEPOINT before_ddl"])
def test_a_statement_kept_on_a_table_the_rollback_undid(server, undo):
    """Found by this suite: a SELECT prepared (and kept) on a table that a
    transaction dropped and created with three columns, re-run after the
    ROLLBACK put the two-column table back, got tuples it could not frame
    (ProtocolError, connection lost): the emulator moved table versions on
    for an undone ALTER only, not for an undone CREATE/DROP TABLE."""
    conn = connect(server)
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS t")
    cur.execute("CREATE TABLE t (k INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO t VALUES (1, 2)")
    conn.commit()
    cur.execute("SAVEPOINT before_ddl")
    cur.execute("DROP TABLE t")
    cur.execute("CREATE TABLE t (pad CHAR(3), v INT, k INT UNIQUE)")
    cur.executemany(INS_T, [(7, 8)])
    assert rows(conn, "SELECT k, v FROM t") == [(7, 8)]
    cur.execute(undo)
    cur.executemany(INS_T, [(5, 6)])
    assert sorted(rows(conn, "SELECT k, v FROM t")) == [(1, 2), (5, 6)]
    conn.rollback()
    assert rows(conn, "SELECT k, v FROM t") == [(1, 2)]
    conn.close()


def test_another_sessions_uncommitted_recreate_is_locked_not_misread(server):
    """Found by this suite: while one transaction had dropped and created a
    table in another shape (not committed), another session's statements
    were translated against the new shape but read the old rows from its
    snapshot: tuples it could not frame (ProtocolError, connection lost).
    The server holds such a table locked until the transaction ends (as the
    emulator already did for ALTER): a lock error, then the committed rows."""
    a, b = connect(server), connect(server, autocommit=True)
    ca = a.cursor()
    ca.execute("DROP TABLE IF EXISTS t")
    ca.execute("CREATE TABLE t (k INT, v INT)")
    ca.execute("INSERT INTO t VALUES (1, 2)")
    a.commit()
    assert rows(b, "SELECT k, v FROM t") == [(1, 2)]
    ca.execute("DROP TABLE t")
    ca.execute("CREATE TABLE t (pad CHAR(3), v INT, k INT)")
    ca.execute("INSERT INTO t VALUES ('x', 20, 10)")
    for sql in ("SELECT k, v FROM t", "SELECT v FROM t WHERE k > 0"):
        with pytest.raises(ifx.OperationalError) as info:
            rows(b, sql)
        assert info.value.sqlcode == -244 and info.value.isam_code == -107
    with pytest.raises(ifx.OperationalError):
        b.cursor().executemany(INS_T, [(3, 4)])
    a.rollback()
    assert rows(b, "SELECT k, v FROM t") == [(1, 2)]
    b.cursor().executemany(INS_T, [(3, 4)])
    assert sorted(rows(a, "SELECT k, v FROM t")) == [(1, 2), (3, 4)]
    a.close(), b.close()
