"""Adversary round 8: one thread ends the transaction, or closes the
connection or a cursor, while another thread is mid-fetch or
mid-executemany on the same connection; a pool under 8 threads whose users
hand connections back mid-transaction.

Rules: a reader never gets a row twice or a row past a lost one (it ends
with an error instead); commit() reports exactly what was committed; a
close from another thread ends the other thread's work with a PEP 249
error, never a hang or struct/Value errors.
"""

from __future__ import annotations

import threading

import pytest

import informix_stream as ifx
from faults.emu import connect_kw
from adversary8 import JOIN, bounded, numbered_server_fixture

pytestmark = pytest.mark.timeout(120)
N = 3000

server = numbered_server_fixture(N)


def _read_until_error(cur, started: threading.Event) -> tuple[list, BaseException | None]:
    got: list = []
    try:
        for row in cur:
            got.append(row[0])
            if len(got) == 10:
                started.set()
    except ifx.Error as exc:
        started.set()
        return got, exc
    started.set()
    return got, None


@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_ending_the_transaction_under_a_reader(server, end):
    """A cursor without HOLD is closed by COMMIT/ROLLBACK WORK on the
    server: the reader either finished or stops with an error; the rows it
    got are a gap-free prefix of the result."""
    conn = ifx.connect(**connect_kw(server, autocommit=False))
    try:
        for _ in range(3):
            cur = conn.cursor(fetch_buffer_size=512)
            cur.execute("SELECT k FROM src ORDER BY k")
            started = threading.Event()

            def ender():
                assert started.wait(JOIN)
                conn.cursor().execute("UPDATE src SET v = v WHERE k = -1")
                getattr(conn, end)()
                return True

            (got, err), done = bounded(lambda: _read_until_error(cur, started), ender)
            assert done is True
            assert got == list(range(len(got))), "a row lost or repeated"
            if err is None:
                assert len(got) == N
            else:
                assert isinstance(err, ifx.DatabaseError | ifx.InterfaceError), err
            conn.rollback()
    finally:
        conn.close()


def test_commit_waits_for_an_executemany_and_commits_all_of_it(server):
    conn = ifx.connect(**connect_kw(server, autocommit=False))
    try:
        conn.cursor().execute("CREATE TABLE em_tx (k INTEGER)")
        conn.commit()
        started = threading.Event()
        rows = [(i,) for i in range(4000)]

        def source():
            for i, r in enumerate(rows):
                if i == 100:
                    started.set()
                yield r

        def writer():
            cur = conn.cursor()
            cur.executemany("INSERT INTO em_tx VALUES (?)", source(), chunk_size=50)
            return cur.rowcount

        def committer():
            assert started.wait(JOIN)
            conn.commit()
            return "committed"

        count, said = bounded(writer, committer)
        assert count == 4000
        assert said == "committed"
        # the commit ran after the whole executemany (it waits for the
        # connection); what it reported committed is committed
        with ifx.connect(**connect_kw(server, autocommit=True)) as other:
            cur = other.cursor()
            cur.execute("SELECT COUNT(*) FROM em_tx")
            seen = cur.fetchone()[0]
        conn.rollback()
        with ifx.connect(**connect_kw(server, autocommit=True)) as other:
            cur = other.cursor()
            cur.execute("SELECT COUNT(*) FROM em_tx")
            assert cur.fetchone()[0] == seen
            assert seen in (0, 4000)
            cur.execute("DROP TABLE em_tx")
    finally:
        conn.close()


@pytest.mark.parametrize("what", ["connection", "cursor"])
def test_close_from_another_thread_during_a_fetch(server, what):
    for _ in range(3):
        conn = ifx.connect(**connect_kw(server, autocommit=True))
        cur = conn.cursor(fetch_buffer_size=512)
        cur.execute("SELECT k FROM src ORDER BY k")
        started = threading.Event()

        def closer():
            assert started.wait(JOIN)
            (conn if what == "connection" else cur).close()
            return True

        (got, err), done = bounded(lambda: _read_until_error(cur, started), closer)
        assert done is True
        assert got == list(range(len(got)))
        if err is None:
            assert len(got) == N
        else:
            assert isinstance(err, ifx.InterfaceError | ifx.OperationalError), err
        conn.close()


@pytest.mark.parametrize("scrollable", [False, True])
def test_a_fetch_that_waited_for_the_connection_while_its_cursor_was_closed(server,
                                                                             scrollable):
    """The step a reader takes once it has the connection, after another
    thread closed its cursor and a third opened a statement of the same
    shape while it waited.  Before: its NFETCH named the freed statement id,
    which the server had given to the new statement -- it returned the
    other statement's rows as its own (scrollable: struct.error)."""
    conn = ifx.connect(**connect_kw(server, autocommit=True, prepare_cache_size=0))
    try:
        mine = conn.cursor(fetch_buffer_size=512, scrollable=scrollable)
        mine.execute("SELECT k FROM src ORDER BY k")
        assert [r[0] for r in mine.fetchmany(150)] == list(range(150))
        conn._wait(mine._release_now_gen())          # what close() sends
        other = conn.cursor(fetch_buffer_size=512)
        other.execute("SELECT k + 100000 FROM src ORDER BY k")
        step = mine._scroll_fetch_gen(151) if scrollable else mine._fetch_batch_gen()
        with pytest.raises(ifx.InterfaceError, match="closed"):
            conn._wait(step)
        assert other.fetchone() == (100000,)
    finally:
        conn.close()


def test_close_connection_from_another_thread_during_executemany(server):
    with ifx.connect(**connect_kw(server, autocommit=True)) as c:
        c.cursor().execute("CREATE TABLE em_close (k INTEGER)")
    for _ in range(3):
        conn = ifx.connect(**connect_kw(server, autocommit=False))
        started = threading.Event()

        def source():
            for i in range(20000):
                if i == 200:
                    started.set()
                yield (i,)

        def writer():
            cur = conn.cursor()
            cur.executemany("INSERT INTO em_close VALUES (?)", source(), chunk_size=50)
            conn.commit()
            return cur.rowcount

        def closer():
            assert started.wait(JOIN)
            conn.close()
            return True

        result, done = bounded(writer, closer)
        assert done is True
        with ifx.connect(**connect_kw(server, autocommit=True)) as other:
            cur = other.cursor()
            cur.execute("SELECT COUNT(*) FROM em_close")
            count = cur.fetchone()[0]
            cur.execute("DELETE FROM em_close")
        if isinstance(result, BaseException):
            assert isinstance(result, ifx.Error), repr(result)
            assert count == 0, "work reported failed was committed"
        else:
            assert result == 20000 and count == 20000


def test_pool_8_threads_connections_returned_mid_transaction(server):
    """Each user inserts its own marks and hands the connection back
    without commit or rollback half the time: the pool must roll that back,
    so only committed marks exist, and no user sees another's open work."""
    with ifx.connect(**connect_kw(server, autocommit=True)) as c:
        c.cursor().execute("CREATE TABLE marks8 (who INTEGER, n INTEGER)")
    pool = ifx.ConnectionPool(min_size=2, max_size=4, **connect_kw(server, autocommit=False))
    committed: list[tuple[int, int]] = []
    lock = threading.Lock()

    def user(who: int):
        for n in range(15):
            if n % 2:
                # checked out and handed back with work open: never committed
                conn = pool.getconn(timeout=30)
                try:
                    cur = conn.cursor()
                    cur.execute("SELECT COUNT(*) FROM marks8 WHERE n < 0")
                    assert cur.fetchone() == (0,), "saw another user's open work"
                    cur.execute("INSERT INTO marks8 VALUES (?, ?)", (who, -n))
                finally:
                    pool.putconn(conn)
                continue
            with pool.connection(timeout=30) as conn:       # commits on leaving
                conn.cursor().execute("INSERT INTO marks8 VALUES (?, ?)", (who, n))
            with lock:
                committed.append((who, n))
        return True

    try:
        results = bounded(*[lambda w=w: user(w) for w in range(8)])
        assert results == [True] * 8, results
    finally:
        pool.close()
    with ifx.connect(**connect_kw(server, autocommit=True)) as c:
        cur = c.cursor()
        cur.execute("SELECT who, n FROM marks8 ORDER BY who, n")
        assert cur.fetchall() == sorted(committed)
        cur.execute("DROP TABLE marks8")
