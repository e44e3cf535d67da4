"""Round trips and rows/s, ours and informix-driver side by side (pytest-benchmark).

    python -m pytest bench/throughput/test_throughput.py --benchmark-only \\
        --benchmark-storage=bench/throughput/baseline --benchmark-compare \\
        --benchmark-compare-fail=median:25%

Each group (select one row, select 1k rows, stream 100k rows, executemany 1k
and 100k, cold connect) holds one entry per client, so the two are compared
within one session against one server: the emulator in its own process, or a
real Informix when IFX_HOST is set.  Pedantic mode with fixed rounds keeps the
median and IQR stable for the fast cases and the run short for the slow ones.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "memory"))

from harness import Target, load, select_for, target  # noqa: E402

from common import DDL, TABLE, rows  # noqa: E402

CLIENTS = ("ours", "informix-driver")
INSERT = "INSERT INTO {} VALUES (?, ?, ?, ?, ?)"


@pytest.fixture(scope="module")
def server() -> Iterator[Target]:
    with target() as t:
        load(t, 1000)
        load(t, 100_000)
        yield t


def _connect(t: Target, client: str):
    return t.ours() if client == "ours" else t.theirs()


@pytest.fixture(scope="module", params=CLIENTS)
def client(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def conn(server: Target, client: str):
    """One warm connection per client: the query benchmarks time statements, not logins."""
    c = _connect(server, client)
    yield c
    c.close()


@pytest.fixture(scope="module")
def fresh_tables(server: Target) -> Iterator:
    """Makes empty copies of the table for executemany; drops them all at the end."""
    names = (f"bench_em_{i}" for i in itertools.count())
    made: list[str] = []
    with server.ours(autocommit=True) as ddl:
        cur = ddl.cursor()

        def fresh() -> str:
            name = next(names)
            cur.execute(f"DROP TABLE IF EXISTS {name}")
            cur.execute(DDL.replace(TABLE, name))
            made.append(name)
            return name
        yield fresh
        for name in made:
            cur.execute(f"DROP TABLE {name}")


def _fetch(conn, sql: str, params: tuple = ()) -> int:
    cur = conn.cursor()
    cur.execute(sql, params or None)
    count = sum(1 for _ in cur)
    cur.close()
    return count


@pytest.mark.benchmark(group="select one row")
def test_select_one_row(benchmark, conn) -> None:
    sql = select_for(1000) + " WHERE id = ?"
    assert benchmark.pedantic(_fetch, args=(conn, sql, (42,)), rounds=300,
                              warmup_rounds=20) == 1


@pytest.mark.benchmark(group="select 1k rows")
def test_select_1k_rows(benchmark, conn) -> None:
    assert benchmark.pedantic(_fetch, args=(conn, select_for(1000)), rounds=60,
                              warmup_rounds=3) == 1000


@pytest.mark.benchmark(group="stream 100k rows")
def test_stream_100k_rows(benchmark, conn) -> None:
    """Ours streams; informix-driver reads the whole result at execute, then iterates it."""
    assert benchmark.pedantic(_fetch, args=(conn, select_for(100_000)), rounds=10,
                              warmup_rounds=1) == 100_000


def _executemany(conn, table: str, data: list) -> None:
    cur = conn.cursor()
    cur.executemany(INSERT.format(table), data)
    conn.commit()


def _bench_executemany(benchmark, conn, fresh_tables, n: int, rounds: int) -> None:
    """One transaction per round into an empty table; building the rows is not timed."""
    data = list(rows(n))
    tables: list[str] = []

    def setup():
        tables.append(fresh_tables())
        # End the transaction the earlier SELECTs left open: the emulator's
        # SQLite snapshot would not show a table created after it began.
        conn.commit()
        return (conn, tables[-1], data), {}
    benchmark.pedantic(_executemany, setup=setup, rounds=rounds)
    assert _fetch(conn, f"SELECT id FROM {tables[-1]}") == n


@pytest.mark.benchmark(group="executemany 1k rows, one transaction")
def test_executemany_1k(benchmark, conn, fresh_tables) -> None:
    _bench_executemany(benchmark, conn, fresh_tables, 1000, rounds=15)


@pytest.mark.benchmark(group="executemany 100k rows, one transaction")
def test_executemany_100k(benchmark, conn, fresh_tables) -> None:
    _bench_executemany(benchmark, conn, fresh_tables, 100_000, rounds=5)


@pytest.mark.benchmark(group="cold connect (login + database open)")
def test_cold_connect(benchmark, server: Target, client: str) -> None:
    """Timed up to a usable connection; closing happens in teardown, untimed."""
    opened: list = []

    def connect() -> None:
        opened.append(_connect(server, client))

    def close() -> None:
        opened.pop().close()
    benchmark.pedantic(connect, teardown=close, rounds=40,
                       warmup_rounds=2)


# -- Arrow batches (issue 13): the fixed-width and the sales table of
# replay_compare.py, 100k rows each, read as Arrow by us and as tuples by
# informix-driver (it has no Arrow), one group per table.
ARROW_ROWS = 100_000


@pytest.fixture(scope="module")
def arrow_tables(server: Target) -> Iterator[dict]:
    from replay_compare import TABLES
    names = {}
    with server.ours(autocommit=True) as c:
        cur = c.cursor()
        for table in ("fixed", "sales"):
            ddl, make = TABLES[table]
            name = names[table] = f"bench_arrow_{table}"
            cur.execute(f"DROP TABLE IF EXISTS {name}")
            cur.execute(f"CREATE TABLE {name} ({ddl})")
            marks = ", ".join("?" * len(make(0)))
            cur.executemany(f"INSERT INTO {name} VALUES ({marks})",
                            (make(i) for i in range(ARROW_ROWS)))
        yield names
        for name in names.values():
            cur.execute(f"DROP TABLE {name}")


def _arrow(conn, sql: str) -> int:
    cur = conn.cursor()
    cur.execute(sql)
    count = sum(batch.num_rows for batch in cur.fetch_arrow_batches())
    cur.close()
    return count


@pytest.mark.parametrize("table", ["fixed", "sales"])
@pytest.mark.parametrize("reader", ["ours, Arrow batches", "informix-driver, tuples"])
def test_arrow_100k_rows(benchmark, server: Target, arrow_tables: dict, table: str,
                         reader: str) -> None:
    pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")
    benchmark.group = f"100k rows of the {table} table as Arrow"
    ours = reader.startswith("ours")
    conn = server.ours() if ours else server.theirs()
    try:
        sql = f"SELECT * FROM {arrow_tables[table]}"
        run = _arrow if ours else _fetch
        assert benchmark.pedantic(run, args=(conn, sql), rounds=10 if ours else 3,
                                  warmup_rounds=1) == ARROW_ROWS
    finally:
        conn.close()
