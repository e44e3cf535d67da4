"""Pipelined executemany: laziness, per-row errors, totals, size and threads."""

from __future__ import annotations

import itertools
import socket
import threading

import pytest

import informix_stream as ifx
from informix_stream.messages import Tag
from test_driver import connect, private, scalar, unique  # noqa: F401 - private is a fixture


@pytest.fixture(autouse=True)
def bind_path(monkeypatch):
    """These tests count BIND+EXECUTE requests on the wire, so they pin that
    path; the insert cursor (the default where it applies) keeps the same
    contract in test_executemany_contract.py and test_insert_cursor.py."""
    from informix_stream import executemany as em
    init = em.Plan.__init__

    def bind_only(self, *args, insert_cursor=None, **kw):
        init(self, *args, insert_cursor=False if insert_cursor is None else insert_cursor, **kw)
    monkeypatch.setattr(em.Plan, "__init__", bind_only)


@pytest.fixture
def conn(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c
    c.close()


def keyed_table(conn: ifx.Connection, *taken: int) -> str:
    """A table with a primary key, holding ``taken`` ids already."""
    t = unique("em")
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, v VARCHAR(20))")
    for i in taken:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (i, "taken"))
    if not conn.autocommit:
        conn.commit()
    return t


def count(conn: ifx.Connection, table: str, where: str = "", params=None) -> int:
    return scalar(conn, f"SELECT COUNT(*) FROM {table} {where}", params)


def executes(rec, start: int = 0) -> int:
    """How many rows' BIND+EXECUTE reached the private server."""
    return sum(1 for req in rec.messages(start) for m in req if m is Tag.EXECUTE)


# ---------------------------------------------------------------------------
# basics
# ---------------------------------------------------------------------------


def test_rowcount_and_lastrowid(conn):
    t = unique("emser")
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id SERIAL, v INTEGER, g INTEGER)")
    cur.executemany(f"INSERT INTO {t} (v, g) VALUES (?, ?)",
                    [(i, i % 3) for i in range(2500)], chunk_size=1000)
    assert cur.rowcount == 2500
    assert cur.lastrowid == scalar(conn, f"SELECT MAX(id) FROM {t}") == 2500
    assert scalar(conn, f"SELECT id FROM {t} WHERE v = 2499") == 2500
    cur.executemany(f"UPDATE {t} SET v = v + 1 WHERE g = ? AND v < ?",
                    [(0, 30), (1, 0), (2, 9)])
    assert cur.rowcount == 10 + 0 + 3
    cur.executemany(f"DELETE FROM {t} WHERE g = :1", iter([(1,), (1,)]))
    assert cur.rowcount == 833
    assert count(conn, t) == 2500 - 833
    cur.executemany(f"INSERT INTO {t} (v, g) VALUES (:2, :1)", [(5, 6)], chunk_size=1)
    assert cur.lastrowid == 2501
    assert scalar(conn, f"SELECT v FROM {t} WHERE id = 2501") == 6


def test_empty_sequence(conn):
    t = keyed_table(conn)
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [])
    assert cur.rowcount == 0
    assert count(conn, t) == 0


def test_generator_is_consumed_lazily(private):
    c = connect(private, autocommit=True)
    t = keyed_table(c)
    produced = 0
    seen_at_execute: list[int] = []

    def rows():
        nonlocal produced
        for i in range(1000):
            produced += 1
            yield (i, "x")

    def on_request(data: bytes) -> None:
        if b"\x00\x07\x00\x0c" in data[-4:]:           # ends with EXECUTE, EOT
            seen_at_execute.append(produced)
        private.rec.raw.append(data)

    private.srv.on_request = on_request
    c.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", rows(), chunk_size=100)
    assert len(seen_at_execute) == 1000
    # While the server works through chunk k the driver encodes chunk k+1
    # (having let go of chunk k's requests), so the generator is at most one
    # chunk ahead of what the server has executed -- never further.
    for row, advanced in enumerate(seen_at_execute):
        assert advanced <= (row // 100 + 2) * 100, (row, advanced)
    assert seen_at_execute[0] <= 200
    assert count(c, t) == 1000
    c.close()


def test_chunk_bytes_bounds_a_chunk(private):
    c = connect(private, autocommit=True)
    t = keyed_table(c)
    produced = 0
    first_seen: list[int] = []

    def rows():
        nonlocal produced
        for i in range(50):
            produced += 1
            yield (i, "y" * 20)

    def on_request(data: bytes) -> None:
        if not first_seen and data.endswith(b"\x00\x07\x00\x0c"):
            first_seen.append(produced)

    private.srv.on_request = on_request
    c.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", rows(),
                           chunk_size=1000, chunk_bytes=1)
    # One-row chunks: the first reaches the server while at most the next
    # one-row chunk has been encoded ahead (never the 1000 of chunk_size).
    assert first_seen in ([1], [2])
    assert count(c, t) == 50
    c.close()


# ---------------------------------------------------------------------------
# constraint violations
# ---------------------------------------------------------------------------

CHUNK, ROWS = 10, 35


def _chunk_end(index: int) -> int:
    return min((index // CHUNK + 1) * CHUNK, ROWS)


@pytest.mark.parametrize("bad", [0, 4, 9, 23, 34])
def test_constraint_violation_names_the_row(conn, bad):
    t = keyed_table(conn, 1000 + bad)
    cur = conn.cursor()
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                        ((1000 + i, f"r{i}") for i in range(ROWS)), chunk_size=CHUNK)
    exc = info.value
    assert exc.sqlcode in (-268, -239) and exc.isam_code == -100
    assert exc.row_index == bad
    # Resume-safe: exactly rows[:bad] landed, nothing from the failing row on
    # (the rest of its chunk was rolled back), so rows[bad:] is what to retry.
    assert cur.rowcount == bad == count(conn, t, "WHERE v <> 'taken'")
    assert count(conn, t, "WHERE id < ?", (1000 + bad,)) == bad
    assert count(conn, t, "WHERE id > ?", (1000 + bad,)) == 0
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(1, "a"), (2, "b")])
    assert cur.rowcount == 2


@pytest.mark.parametrize("bad", [0, 9, 23])
def test_nothing_after_the_failing_chunk_is_sent(private, bad):
    c = connect(private, autocommit=True)
    t = keyed_table(c, 1000 + bad)
    start = len(private.rec)
    with pytest.raises(ifx.IntegrityError) as info:
        c.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)",
                               ((1000 + i, "v") for i in range(ROWS)), chunk_size=CHUNK)
    assert info.value.row_index == bad
    # The failing chunk went out whole, was rolled back, and the rows before
    # the failing one were replayed: nothing of a later chunk was sent.
    assert executes(private.rec, start) == _chunk_end(bad) + bad % CHUNK
    assert count(c, t, "WHERE v <> 'taken'") == bad
    c.close()


# ---------------------------------------------------------------------------
# encoding errors and failing iterables
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, 5, 10, 23])
@pytest.mark.parametrize("value, cls", [
    ((object(), "x"), ifx.DatabaseError),
    ((2 ** 70, "x"), ifx.DataError),
    ((1,), ifx.ProgrammingError),
    ((1, "x", 3), ifx.ProgrammingError),
])
def test_encoding_error_sends_exactly_the_rows_before_it(private, bad, value, cls):
    c = connect(private, autocommit=True)
    t = keyed_table(c)
    rows = [(i, "ok") for i in range(ROWS)]
    rows[bad] = value
    cur = c.cursor()
    start = len(private.rec)
    with pytest.raises(cls) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows, chunk_size=CHUNK)
    assert isinstance(info.value, (ifx.ProgrammingError, ifx.DataError))
    assert info.value.row_index == bad
    # Nothing from the bad row on is sent; exactly the rows before it land.
    assert executes(private.rec, start) == bad
    assert count(c, t) == bad == cur.rowcount
    c.close()


class Boom(Exception):
    pass


def _rows_then_boom(n: int):
    for i in range(n):
        yield (i, "g")
    raise Boom("the source failed")


def test_generator_failure_in_autocommit_keeps_earlier_rows(conn):
    t = keyed_table(conn)
    cur = conn.cursor()
    with pytest.raises(Boom):
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _rows_then_boom(25),
                        chunk_size=CHUNK)
    assert count(conn, t) == 25
    assert cur.rowcount == 25


def test_generator_failure_in_transaction_rolls_back(ifx_target, conn):
    t = keyed_table(conn)
    c = connect(ifx_target)
    cur = c.cursor()
    with pytest.raises(Boom):
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", _rows_then_boom(25),
                        chunk_size=CHUNK)
    assert count(c, t) == 25                     # pending in the transaction
    c.rollback()
    assert count(c, t) == 0
    assert count(conn, t) == 0
    c.close()


# ---------------------------------------------------------------------------
# size and flow control
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_two_hundred_thousand_rows(conn):
    t = unique("embig")
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v VARCHAR(20))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                    ((i, f"value {i}") for i in range(200_000)))
    assert cur.rowcount == 200_000
    assert count(conn, t) == 200_000
    assert scalar(conn, f"SELECT SUM(id) FROM {t}") == sum(range(200_000))


def test_tiny_receive_buffer_and_huge_chunk(ifx_target):
    c = connect(ifx_target, autocommit=True, read_timeout=120)
    c._io.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    t = unique("emtiny")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v VARCHAR(40))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                    ((i, f"padding padding {i}") for i in range(20_000)),
                    chunk_size=20_000, chunk_bytes=1 << 30)
    assert cur.rowcount == 20_000
    assert count(c, t) == 20_000
    c.close()


# ---------------------------------------------------------------------------
# commit_every_chunk and threads
# ---------------------------------------------------------------------------


def test_commit_every_chunk_keeps_earlier_chunks(ifx_target, conn):
    t = keyed_table(conn, 1025)
    c = connect(ifx_target)
    cur = c.cursor()
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                        ((1000 + i, "c") for i in range(ROWS)), chunk_size=CHUNK,
                        commit_every_chunk=True)
    assert info.value.row_index == 25
    c.rollback()
    # Committed chunk by chunk, and the failing chunk up to its failing row.
    assert count(conn, t, "WHERE v = 'c'") == 25
    assert count(conn, t, "WHERE id < 1025 AND v = 'c'") == 25
    c.close()


def test_other_thread_waits_for_the_whole_executemany(conn):
    """The connection is held for the whole call, so no other thread's
    statement can run between a chunk and its repair after a failure."""
    t, other = unique("emthr"), keyed_table(conn, 1, 2, 3)
    conn.cursor().execute(f"CREATE TABLE {t} (id INTEGER)")
    order = itertools.count()
    started = threading.Event()
    marks: dict[str, int] = {}
    result: list = []

    def rows():
        for i in range(60_000):
            if i == 1000:
                started.set()                    # the first chunks were sent
            yield (i,)

    def bulk():
        conn.cursor().executemany(f"INSERT INTO {t} VALUES (?)", rows(), chunk_size=200)
        marks["bulk"] = next(order)

    def query():
        assert started.wait(30)
        result.append(count(conn, other))
        marks["query"] = next(order)

    threads = [threading.Thread(target=bulk), threading.Thread(target=query)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert result == [3]
    assert marks["bulk"] < marks["query"], marks
    assert count(conn, t) == 60_000


def test_a_failing_row_costs_the_emulator_linear_work(monkeypatch, ifx_target):
    """Issue 9 item 7: the emulator answers a pipelined run with a failing row
    by replaying it once, request by request -- not a batch from every index."""
    if ifx_target.kind != "emulator":
        pytest.skip("counts the emulator's own batch attempts")
    from informix_stream.emulator import engine as engine_module
    from informix_stream.emulator import EmulatorServer
    attempted = []
    original = engine_module.Session.execute_many

    def counting(self, stmt, rows):
        rows = list(rows)
        attempted.append(len(rows))
        return original(self, stmt, rows)

    monkeypatch.setattr(engine_module.Session, "execute_many", counting)
    with EmulatorServer(databases=("testdb",)) as srv:
        c = ifx.connect(host=srv.host, port=srv.port, password="in4mix", database="testdb",
                        autocommit=True)
        t = keyed_table(c, 3000)
        with pytest.raises(ifx.IntegrityError) as info:
            c.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                   ((i, "x") for i in range(4000)), chunk_size=4000)
        assert info.value.row_index == 3000
        assert sum(attempted) <= 2 * 4000, sum(attempted)
        c.close()
