"""Adversary round 8: threads sharing one connection, each with its own cursor.

``threadsafety = 2`` promises that threads may share a connection.  Every
test here runs workers on ONE connection and asserts that each gets exactly
its own rows, rowcount and description (never another statement's), that
nothing hangs (every join is bounded) and that only PEP 249 errors arise.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import informix_stream as ifx
from adversary8 import bounded
from faults.emu import connect_kw
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
N = 600            # rows per table: several fetch buffers at the sizes used


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        with ifx.connect(**connect_kw(srv, autocommit=True)) as c:
            cur = c.cursor()
            for t in ("ta", "tb", "tc", "td"):
                cur.execute(f"CREATE TABLE {t} (k INTEGER, v VARCHAR(40))")
                cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                [(i, f"{t}-{i}") for i in range(N)])
            cur.execute("CREATE TABLE blobs (k INTEGER, b BYTE, t TEXT)")
            cur.executemany("INSERT INTO blobs VALUES (?, ?, ?)",
                            [(i, bytes([i % 256]) * (1000 + i), f"text-{i}" * 50)
                             for i in range(40)])
            cur.execute("CREATE TABLE slobs (k INTEGER, b BLOB, c CLOB)")
            cur.executemany("INSERT INTO slobs VALUES (?, ?, ?)",
                            [(i, bytes([i]) * (70000 + i), ifx.Text(f"clob-{i}" * 9000))
                             for i in range(12)])
        yield srv


@pytest.fixture
def conn(server):
    c = ifx.connect(**connect_kw(server, autocommit=True))
    yield c
    c.close()


def expected(table: str) -> list[tuple]:
    return [(i, f"{table}-{i}") for i in range(N)]


def run_threads(*targets: Callable[[], object]) -> list:
    """``bounded``, re-raising the first exception a worker raised."""
    results = bounded(*targets)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results


def _stream_each(conn, table: str, how: str, size: int, rounds: int = 3):
    def work():
        got = []
        for _ in range(rounds):
            cur = conn.cursor(fetch_buffer_size=size)
            cur.execute(f"SELECT k, v FROM {table} ORDER BY k")
            assert cur.description[1][0] == "v"
            if how == "iter":
                rows = list(cur)
            elif how == "many":
                rows = []
                while batch := cur.fetchmany(37):
                    rows += batch
            else:
                rows = []
                while (row := cur.fetchone()) is not None:
                    rows.append(row)
            assert cur.rowcount == N
            got.append(rows)
            cur.close()
        return got
    return work


@pytest.mark.parametrize("size", [512, 4096])
def test_streaming_cursors_interleaved(conn, size):
    ways = ["iter", "many", "one", "iter"]
    tables = ["ta", "tb", "tc", "td"]
    results = run_threads(*[_stream_each(conn, t, w, size) for t, w in zip(tables, ways)])
    for table, got in zip(tables, results):
        for rows in got:
            assert rows == expected(table)


def test_materializing_and_scrollable_interleaved(conn):
    def materialized():
        out = []
        for _ in range(5):
            cur = conn.cursor(materialize=True)
            cur.execute("SELECT k, v FROM ta WHERE k < ? ORDER BY k", (300,))
            out.append((cur.fetchall(), cur.rowcount))
        return out

    def scrolled():
        out = []
        for _ in range(5):
            cur = conn.cursor(scrollable=True)
            cur.execute("SELECT k, v FROM tb ORDER BY k")
            out.append((cur.fetch_last(), cur.fetch_absolute(10), cur.fetch_prior(),
                        cur.fetchmany(3)))
            cur.close()
        return out

    def dml():
        out = []
        cur = conn.cursor()
        for i in range(20):
            cur.execute("UPDATE tc SET v = v WHERE k < ?", (i,))
            out.append(cur.rowcount)
        return out

    mat, scr, upd = run_threads(materialized, scrolled, dml)
    want = [(i, f"ta-{i}") for i in range(300)]
    assert mat == [(want, 300)] * 5
    assert scr == [((N - 1, f"tb-{N - 1}"), (9, "tb-9"), (8, "tb-8"),
                    [(9, "tb-9"), (10, "tb-10"), (11, "tb-11")])] * 5
    assert upd == list(range(20))


def test_description_and_rowcount_stay_per_cursor(conn):
    """Two cursors of different shapes alternate on two threads; each
    cursor's description and rowcount are its own statement's."""
    def narrow():
        out = []
        cur = conn.cursor()
        for i in range(40):
            cur.execute("SELECT k FROM ta WHERE k < ?", (i % 7,))
            out.append(([d[0] for d in cur.description], len(cur.fetchall()), cur.rowcount))
        return out

    def wide():
        out = []
        cur = conn.cursor()
        for i in range(40):
            cur.execute("SELECT v, k, k + 1 AS k1 FROM tb WHERE k < ?", (i % 5,))
            out.append(([d[0] for d in cur.description], len(cur.fetchall()), cur.rowcount))
        return out

    a, b = run_threads(narrow, wide)
    assert a == [(["k"], i % 7, i % 7) for i in range(40)]
    assert b == [(["v", "k", "k1"], i % 5, i % 5) for i in range(40)]


@pytest.mark.parametrize("insert_cursor", [True, False])
def test_executemany_both_paths_against_readers(conn, insert_cursor):
    """executemany (PUT or BIND) on one thread while another streams."""
    setup = conn.cursor()
    setup.execute("CREATE TABLE em_%s (k INTEGER, w VARCHAR(20))" % int(insert_cursor))
    table = "em_%d" % int(insert_cursor)

    def writer():
        cur = conn.cursor()
        for r in range(4):
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?)",
                            [(r * 1000 + i, f"w{i}") for i in range(500)],
                            chunk_size=64, insert_cursor=insert_cursor)
            assert cur.rowcount == 500
        return True

    def reader():
        out = []
        for _ in range(4):
            cur = conn.cursor(fetch_buffer_size=1024)
            cur.execute("SELECT k, v FROM td ORDER BY k")
            out.append(list(cur))
        return out

    _, read = run_threads(writer, reader)
    assert read == [expected("td")] * 4
    setup.execute(f"SELECT COUNT(*), COUNT(DISTINCT k) FROM {table}")
    assert setup.fetchone() == (2000, 2000)
    setup.execute(f"DROP TABLE {table}")


def test_lob_reads_interleaved(conn):
    def reader(mode: str):
        def work():
            out = []
            for _ in range(3):
                cur = conn.cursor(fetch_buffer_size=2048, lob=mode)
                cur.execute("SELECT k, b, t FROM blobs ORDER BY k")
                for k, b, t in cur:
                    if mode == "stream":
                        b, t = b.read(), t.read().decode(t.encoding)
                    out.append((k, bytes(b), str(t)))
            return out
        return work

    want = [(i, bytes([i % 256]) * (1000 + i), f"text-{i}" * 50) for i in range(40)] * 3
    a, b, c = run_threads(reader("value"), reader("stream"), reader("value"))
    assert a == want
    assert b == want
    assert c == want


def test_arrow_batches_interleaved(conn):
    pytest.importorskip("pyarrow", reason="Arrow fetch needs the optional pyarrow")

    def arrow(table: str):
        def work():
            out = []
            for _ in range(3):
                cur = conn.cursor(fetch_buffer_size=1024)
                cur.execute(f"SELECT k, v FROM {table} ORDER BY k")
                rows = []
                for batch in cur.fetch_arrow_batches(batch_rows=50):
                    rows += list(zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()))
                out.append(rows)
            return out
        return work

    def plain():
        out = []
        for _ in range(3):
            cur = conn.cursor(fetch_buffer_size=1024)
            cur.execute("SELECT k, v FROM tc ORDER BY k")
            out.append(cur.fetchall())
        return out

    a, b, c = run_threads(arrow("ta"), arrow("tb"), plain)
    assert a == [expected("ta")] * 3
    assert b == [expected("tb")] * 3
    assert c == [expected("tc")] * 3


def test_hold_cursor_survives_other_threads_commits(server):
    """A WITH HOLD cursor streams on while another thread commits its own
    inserts on the same (non-autocommit) connection: every row once, and
    the other thread's work is committed."""
    conn = ifx.connect(**connect_kw(server, autocommit=False))
    try:
        conn.cursor().execute("CREATE TABLE hold_w (k INTEGER)")
        conn.commit()

        def reader():
            cur = conn.cursor(hold=True, fetch_buffer_size=512)
            cur.execute("SELECT k, v FROM ta ORDER BY k")
            return list(cur)

        def writer():
            cur = conn.cursor()
            for i in range(30):
                cur.execute("INSERT INTO hold_w VALUES (?)", (i,))
                conn.commit()
            return True

        rows, _ = run_threads(reader, writer)
        assert rows == expected("ta")
        with ifx.connect(**connect_kw(server, autocommit=True)) as other:
            cur = other.cursor()
            cur.execute("SELECT COUNT(*) FROM hold_w")
            assert cur.fetchone() == (30,)
            cur.execute("DROP TABLE hold_w")
    finally:
        conn.close()


def test_smart_lob_reads_interleaved(conn):
    """BLOB/CLOB readers (ifx_lo_open + SQ_LODATA per refill) on one thread,
    values on another, a plain stream on a third, all on one connection."""
    want = [(i, bytes([i]) * (70000 + i), f"clob-{i}" * 9000) for i in range(12)]

    def streamed():
        out = []
        for _ in range(2):
            cur = conn.cursor(lob="stream")
            cur.execute("SELECT k, b, c FROM slobs ORDER BY k")
            for k, b, c in cur:
                parts = []
                while chunk := b.read(5000):     # many refills, interleaved
                    parts.append(chunk)
                out.append((k, b"".join(parts), c.read().decode(c.encoding)))
        return out

    def valued():
        out = []
        for _ in range(2):
            cur = conn.cursor()
            cur.execute("SELECT k, b, c FROM slobs ORDER BY k")
            out += [(k, bytes(b), c) for k, b, c in cur]
        return out

    a, b, c = run_threads(streamed, valued, _stream_each(conn, "ta", "many", 512))
    assert a == want * 2
    assert b == want * 2
    assert c == [expected("ta")] * 3
