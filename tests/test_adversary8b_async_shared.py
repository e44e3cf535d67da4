"""Adversary round 8b: asyncio tasks sharing ONE async connection, each with
its own cursor, interleaving execute/fetch, executemany (BIND and PUT, a
sync and an async row source), Arrow fetches, commit/rollback and close.

Rules: each cursor gets exactly its own rows, rowcount and description; a
reader never gets a row twice or a row past a lost one (it ends with a PEP
249 error instead); commit() reports exactly what was committed; a close
from another task ends the other task's work with a PEP 249 error, never a
hang or a struct/Value error.
"""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from adversary8 import numbered_server, run_async
from faults.emu import connect_kw

pytestmark = pytest.mark.timeout(120)
N = 1500


@pytest.fixture(scope="module")
def server():
    with numbered_server(N) as srv:
        with ifx.connect(**connect_kw(srv, autocommit=True)) as c:
            cur = c.cursor()
            for t in ("ta", "tb", "tc", "td"):
                cur.execute(f"CREATE TABLE {t} (k INTEGER, v VARCHAR(30))")
                cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                [(i, f"{t}-{i}") for i in range(N)])
        yield srv


def expected(table: str) -> list[tuple]:
    return [(i, f"{table}-{i}") for i in range(N)]


async def gather_or_raise(*coros):
    """All results in order; the first exception a task raised is raised."""
    return list(await asyncio.gather(*coros))


async def read_all(cur, how: str) -> list:
    """The rest of ``cur``'s rows, yielding to other tasks between reads."""
    rows: list = []
    if how == "iter":
        async for row in cur:
            rows.append(row)
            await asyncio.sleep(0)
    elif how == "many":
        while batch := await cur.fetchmany(37):
            rows += batch
            await asyncio.sleep(0)
    elif how == "one":
        while (row := await cur.fetchone()) is not None:
            rows.append(row)
            await asyncio.sleep(0)
    else:
        rows = await cur.fetchall()
    return rows


async def read_table(conn, table: str, how: str, rounds: int, size: int = 1024) -> list:
    """``rounds`` reads of ``table`` on a new cursor each, read ``how``."""
    out = []
    for _ in range(rounds):
        cur = conn.cursor(fetch_buffer_size=size)
        await cur.execute(f"SELECT k, v FROM {table} ORDER BY k")
        assert cur.description[1][0] == "v"
        out.append(await read_all(cur, how))
        assert cur.rowcount == N
        await cur.close()
    return out


@pytest.mark.parametrize("size", [512, 4096])
def test_streaming_cursors_interleaved(server, size):
    async def body(conn):
        return await gather_or_raise(*[read_table(conn, t, how, 3, size) for t, how in
                                       zip(("ta", "tb", "tc", "td"),
                                           ("iter", "many", "one", "all"))])

    for table, got in zip(("ta", "tb", "tc", "td"), run_async(server, body)):
        assert got == [expected(table)] * 3


def test_materializing_scrollable_and_dml_interleaved(server):
    async def materialized(conn):
        out = []
        for _ in range(5):
            cur = conn.cursor(materialize=True)
            await cur.execute("SELECT k, v FROM ta WHERE k < ? ORDER BY k", (300,))
            out.append((await cur.fetchall(), cur.rowcount))
            await asyncio.sleep(0)
        return out

    async def scrolled(conn):
        out = []
        for _ in range(5):
            cur = conn.cursor(scrollable=True)
            await cur.execute("SELECT k, v FROM tb ORDER BY k")
            out.append((await cur.fetch_last(), await cur.fetch_absolute(10),
                        await cur.fetch_prior(), await cur.fetchmany(3)))
            await cur.close()
        return out

    async def dml(conn):
        out = []
        cur = conn.cursor()
        for i in range(20):
            await cur.execute("UPDATE tc SET v = v WHERE k < ?", (i,))
            out.append(cur.rowcount)
        return out

    async def body(conn):
        return await gather_or_raise(materialized(conn), scrolled(conn), dml(conn))

    mat, scr, upd = run_async(server, body)
    want = [(i, f"ta-{i}") for i in range(300)]
    assert mat == [(want, 300)] * 5
    assert scr == [((N - 1, f"tb-{N - 1}"), (9, "tb-9"), (8, "tb-8"),
                    [(9, "tb-9"), (10, "tb-10"), (11, "tb-11")])] * 5
    assert upd == list(range(20))


def test_description_and_rowcount_stay_per_cursor(server):
    async def shape(conn, sql: str, mod: int):
        out = []
        cur = conn.cursor()
        for i in range(40):
            await cur.execute(sql, (i % mod,))
            await asyncio.sleep(0)
            out.append(([d[0] for d in cur.description], len(await cur.fetchall()),
                        cur.rowcount))
        return out

    async def body(conn):
        return await gather_or_raise(shape(conn, "SELECT k FROM ta WHERE k < ?", 7),
                                     shape(conn, "SELECT v, k, k + 1 AS k1 FROM tb "
                                                 "WHERE k < ?", 5))

    a, b = run_async(server, body)
    assert a == [(["k"], i % 7, i % 7) for i in range(40)]
    assert b == [(["v", "k", "k1"], i % 5, i % 5) for i in range(40)]


@pytest.mark.parametrize("source", ["list", "async"])
@pytest.mark.parametrize("insert_cursor", [True, False], ids=["put", "bind"])
def test_executemany_both_paths_against_readers(server, insert_cursor, source):
    table = f"em_{int(insert_cursor)}_{source}"

    def rows(r: int):
        data = [(r * 1000 + i, f"w{i}") for i in range(500)]
        if source == "list":
            return data

        async def gen():
            for i, row in enumerate(data):
                if i % 50 == 0:
                    await asyncio.sleep(0)      # other tasks run mid-statement
                yield row
        return gen()

    async def writer(conn):
        cur = conn.cursor()
        for r in range(4):
            await cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows(r),
                                  chunk_size=64, insert_cursor=insert_cursor)
            assert cur.rowcount == 500
        return True

    async def body(conn):
        await conn.cursor().execute(f"CREATE TABLE {table} (k INTEGER, w VARCHAR(20))")
        _, read = await gather_or_raise(writer(conn), read_table(conn, "td", "iter", 4))
        cur = conn.cursor()
        await cur.execute(f"SELECT COUNT(*), COUNT(DISTINCT k) FROM {table}")
        counts = await cur.fetchone()
        await cur.execute(f"DROP TABLE {table}")
        return read, counts

    read, counts = run_async(server, body)
    assert read == [expected("td")] * 4
    assert counts == (2000, 2000)


def test_arrow_batches_interleaved(server):
    pytest.importorskip("pyarrow", reason="Arrow fetch needs the optional pyarrow")

    async def arrow(conn, table: str):
        out = []
        for _ in range(3):
            cur = conn.cursor(fetch_buffer_size=1024)
            await cur.execute(f"SELECT k, v FROM {table} ORDER BY k")
            got = []
            async for batch in cur.fetch_arrow_batches(batch_rows=50):
                got += list(zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()))
                await asyncio.sleep(0)
            out.append(got)
        return out

    async def table(conn):
        cur = conn.cursor(fetch_buffer_size=1024)
        await cur.execute("SELECT k, v FROM td ORDER BY k")
        t = await cur.fetch_arrow_table(batch_rows=64)
        return list(zip(t.column(0).to_pylist(), t.column(1).to_pylist()))

    async def body(conn):
        return await gather_or_raise(arrow(conn, "ta"), arrow(conn, "tb"), read_table(conn, "tc", "one", 3),
                                     table(conn))

    a, b, c, d = run_async(server, body)
    assert a == [expected("ta")] * 3
    assert b == [expected("tb")] * 3
    assert c == [expected("tc")] * 3
    assert d == expected("td")


def test_arrow_batches_and_rows_from_one_cursor_in_two_tasks(server):
    """Arrow batches in one task, rows in another, ONE cursor: each row
    once across both, or a ProgrammingError."""
    pytest.importorskip("pyarrow", reason="Arrow fetch needs the optional pyarrow")

    async def arrow(cur, out):
        async for batch in cur.fetch_arrow_batches(batch_rows=40):
            out += batch.column(0).to_pylist()
            await asyncio.sleep(0)

    async def rows(cur, out):
        while (row := await cur.fetchone()) is not None:
            out.append(row[0])
            await asyncio.sleep(0)

    async def body(conn):
        cur = conn.cursor(fetch_buffer_size=512)
        await cur.execute("SELECT k FROM src ORDER BY k")
        a: list = []
        b: list = []
        results = await asyncio.gather(arrow(cur, a), rows(cur, b), return_exceptions=True)
        return a, b, [r for r in results if r is not None]

    a, b, errors = run_async(server, body)
    assert all(isinstance(e, ifx.ProgrammingError) for e in errors), errors
    got = a + b
    assert len(got) == len(set(got)), "a row was handed out twice"
    assert sorted(got) == list(range(N)), "rows were lost"


async def _read_until_error(cur, started: asyncio.Event) -> tuple[list, BaseException | None]:
    got: list = []
    try:
        async for row in cur:
            got.append(row[0])
            if len(got) == 10:
                started.set()
            await asyncio.sleep(0)
    except ifx.Error as exc:
        started.set()
        return got, exc
    started.set()
    return got, None


@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_ending_the_transaction_under_a_reader(server, end):
    """A cursor without HOLD is closed by COMMIT/ROLLBACK WORK on the server:
    the reader finishes or stops with an error; its rows are a gap-free prefix."""
    async def body(conn):
        outcomes = []
        for _ in range(3):
            cur = conn.cursor(fetch_buffer_size=256)
            await cur.execute("SELECT k FROM src ORDER BY k")
            started = asyncio.Event()

            async def ender():
                await started.wait()
                await conn.cursor().execute("UPDATE src SET v = v WHERE k = -1")
                await getattr(conn, end)()

            outcomes.append((await asyncio.gather(_read_until_error(cur, started),
                                                  ender()))[0])
            await conn.rollback()
        return outcomes

    for got, err in run_async(server, body, autocommit=False):
        assert got == list(range(len(got))), "a row lost or repeated"
        if err is None:
            assert len(got) == N
        else:
            assert isinstance(err, ifx.DatabaseError | ifx.InterfaceError), repr(err)


def test_commit_waits_for_an_executemany_and_commits_all_of_it(server):
    async def body(conn):
        await conn.cursor().execute("CREATE TABLE em_tx (k INTEGER)")
        await conn.commit()
        started = asyncio.Event()

        async def writer():
            cur = conn.cursor()
            await cur.executemany("INSERT INTO em_tx VALUES (?)", _source(4000, started),
                                  chunk_size=50)
            return cur.rowcount

        async def committer():
            await started.wait()
            await conn.commit()
            return "committed"

        count, said = await gather_or_raise(writer(), committer())
        seen = await _count_elsewhere(server, "em_tx")
        await conn.rollback()
        after = await _count_elsewhere(server, "em_tx", drop=True)
        return count, said, seen, after

    count, said, seen, after = run_async(server, body, autocommit=False)
    assert count == 4000 and said == "committed"
    # the commit waits for the whole executemany: what it said it committed is there
    assert seen == after == 4000


async def _source(n: int, started: asyncio.Event):
    """Rows (i,) for i < n, as an async source that lets other tasks run
    every 40 rows and sets ``started`` at row 100."""
    for i in range(n):
        if i == 100:
            started.set()
        if i % 40 == 0:
            await asyncio.sleep(0)
        yield (i,)


async def _count_elsewhere(server, table: str, drop: bool = False) -> int:
    other = await ifx.connect_async(**connect_kw(server, autocommit=True))
    try:
        cur = other.cursor()
        await cur.execute(f"SELECT COUNT(*) FROM {table}")
        (n,) = await cur.fetchone()
        if drop:
            await cur.execute(f"DROP TABLE {table}")
        return n
    finally:
        await other.close()


@pytest.mark.parametrize("what", ["connection", "cursor"])
def test_close_from_another_task_during_a_read(server, what):
    async def body(conn):
        cur = conn.cursor(fetch_buffer_size=256)
        await cur.execute("SELECT k FROM src ORDER BY k")
        started = asyncio.Event()

        async def closer():
            await started.wait()
            await (conn if what == "connection" else cur).close()

        return (await asyncio.gather(_read_until_error(cur, started), closer()))[0]

    got, err = run_async(server, body)
    assert got == list(range(len(got)))
    if err is None:
        assert len(got) == N
    else:
        assert isinstance(err, ifx.InterfaceError | ifx.OperationalError), repr(err)


def test_close_connection_from_another_task_during_executemany(server):
    async def body(conn):
        await conn.cursor().execute("CREATE TABLE em_close (k INTEGER)")
        await conn.set_autocommit(False)
        started = asyncio.Event()

        async def writer():
            cur = conn.cursor()
            await cur.executemany("INSERT INTO em_close VALUES (?)", _source(20000, started),
                                  chunk_size=50)
            await conn.commit()
            return cur.rowcount

        async def closer():
            await started.wait()
            await conn.close()

        result, _ = await asyncio.gather(writer(), closer(), return_exceptions=True)
        return result, await _count_elsewhere(server, "em_close", drop=True)

    result, count = run_async(server, body)
    if isinstance(result, BaseException):
        assert isinstance(result, ifx.Error), repr(result)
        assert count == 0, "work reported failed was committed"
    else:
        assert result == 20000 and count == 20000
