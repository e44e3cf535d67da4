"""Issue 15's two targets: pandas and the ORM through the SQLAlchemy dialect.

    python bench/throughput/sqla_compare.py [--rows 100000] [--repeat 3]
                                            [--rss-sizes 100000 1000000] [--chunksize 10000]

One emulator in its own process serves every measurement, interleaved:

1. ``pandas.read_sql`` of the sales table (``--rows`` rows) through a
   SQLAlchemy engine on this driver, beside the same call on informix-driver's
   raw DB-API connection (pandas' fallback path).  Target: >= 3x.
2. ``read_sql(..., chunksize=N)`` through the engine at each ``--rss-sizes``
   row count, each in a fresh interpreter sampling its RSS: the growth from
   the first chunk to the end must stay flat as rows grow 10x.
3. ORM bulk insert of ``--rows`` sales rows with
   ``session.execute(insert(Model), list_of_dicts)`` beside this driver's own
   ``executemany`` of the same rows as tuples.  Target: within 1.5x.  Also
   the same ORM call with the driver's INSERT calls doing nothing: what
   SQLAlchemy alone costs (a bound on any driver's ratio).

Prints rows/s (median of ``--repeat``), the ratios and the RSS figures.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "memory"))

from common import SHAPES, connect, emulator_process, sales_row  # noqa: E402

DDL = SHAPES["sales"][0]
INSERT = "INSERT INTO {} VALUES (?, ?, ?, ?, ?, ?)"
COLUMNS = ("id", "sku", "amount", "sold", "day", "note")


def register() -> None:
    """The entry point exists only once the package is installed; the bench runs from src/."""
    from sqlalchemy.dialects import registry
    registry.register("informix.informix_stream", "informix_stream.sqlalchemy.sync",
                      "InformixDialect_informix_stream")


def engine_url(host: str, port: int) -> str:
    register()
    return f"informix+informix_stream://informix:in4mix@{host}:{port}/testdb?server=informix"


def load(host: str, port: int, table: str, n: int) -> None:
    """Create ``table`` with the sales shape and fill it with n rows (our insert cursor)."""
    with connect(host, port, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} ({DDL})")
        step = 100_000
        for start in range(0, n, step):
            cur.executemany(INSERT.format(table),
                            [sales_row(i) for i in range(start, min(n, start + step))])


def read_sql_rates(host: str, port: int, table: str, n: int, repeat: int) -> dict:
    """pandas.read_sql through our engine vs informix-driver's raw connection."""
    import informix_db
    import pandas as pd
    from sqlalchemy import create_engine

    engine = create_engine(engine_url(host, port))
    sql = f"SELECT {', '.join(COLUMNS)} FROM {table}"
    raw = informix_db.connect(host=host, port=port, user="informix", password="in4mix",
                              database="testdb", server="informix", autocommit=True)

    def ours() -> int:
        with engine.connect() as conn:
            return len(pd.read_sql(sql, conn))

    def ours_raw() -> int:
        # the same fallback path on our DB-API connection: what the dialect adds
        with connect(host, port, autocommit=True) as conn, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return len(pd.read_sql(sql, conn))

    def ours_no_gc() -> int:
        # diagnostic: SQLAlchemy's Row objects stay tracked by the cyclic
        # GC (the driver's tuples of atomic values do not), so the engine's
        # read pays collections the raw call does not
        gc.disable()
        try:
            return ours()
        finally:
            gc.enable()

    def theirs() -> int:
        with warnings.catch_warnings():   # pandas warns on a raw DB-API connection
            warnings.simplefilter("ignore", UserWarning)
            return len(pd.read_sql(sql, raw))

    rates: dict[str, list[float]] = {}
    for _ in range(repeat):
        for name, run in (("read_sql informix-driver raw", theirs),
                          ("read_sql engine (ours)", ours),
                          ("read_sql raw DB-API (ours)", ours_raw),
                          ("read_sql engine (ours), GC off", ours_no_gc)):
            start = time.perf_counter()
            got = run()
            elapsed = time.perf_counter() - start
            if got != n:
                raise RuntimeError(f"{name} read {got:,} rows, not {n:,}")
            rates.setdefault(name, []).append(n / elapsed)
    raw.close()
    engine.dispose()
    return rates


def bulk_insert_rates(host: str, port: int, n: int, repeat: int) -> dict:
    """ORM ``session.execute(insert(Model), dicts)`` vs our executemany of tuples."""
    from sqlalchemy import DateTime, Date, Integer, Numeric, String, create_engine, insert
    from sqlalchemy.orm import DeclarativeBase, Session, mapped_column

    class Base(DeclarativeBase):
        pass

    class Sale(Base):
        __tablename__ = "sqla_bulk"
        id = mapped_column(Integer, primary_key=True, autoincrement=False)
        sku = mapped_column(String(32))
        amount = mapped_column(Numeric(12, 2))
        sold = mapped_column(DateTime)
        day = mapped_column(Date)
        note = mapped_column(String(64), nullable=True)

    data = [sales_row(i) for i in range(n)]
    dicts = [dict(zip(COLUMNS, row)) for row in data]
    engine = create_engine(engine_url(host, port))

    def fresh() -> None:
        with connect(host, port, autocommit=True) as conn:
            cur = conn.cursor()
            try:
                cur.execute("DROP TABLE sqla_bulk")
            except Exception:  # noqa: BLE001 - not there on the first round
                pass
            cur.execute(f"CREATE TABLE sqla_bulk ({DDL})")

    def orm() -> None:
        with Session(engine) as session:
            session.execute(insert(Sale), dicts)
            session.commit()

    def orm_render_nulls() -> None:
        # SQLAlchemy leaves a None out of a bulk row's keys, and rows with other keys
        # start a new executemany batch: render_nulls keeps one batch (SQLAlchemy docs,
        # "ORM Bulk INSERT Statements", render_nulls).
        with Session(engine) as session:
            session.execute(insert(Sale).execution_options(render_nulls=True), dicts)
            session.commit()

    def driver() -> None:
        with connect(host, port) as conn:
            conn.cursor().executemany(INSERT.format("sqla_bulk"), data)
            conn.commit()

    def orm_alone() -> None:
        # SQLAlchemy's own share: the same ORM call with the driver's INSERT
        # execute/executemany doing nothing (no bytes sent), the floor any
        # driver under this ORM batching pays
        with inserts_do_nothing():
            orm()

    rates: dict[str, list[float]] = {}
    for _ in range(repeat):
        for name, run in (("insert driver executemany", driver), ("insert ORM bulk", orm),
                          ("insert ORM bulk render_nulls", orm_render_nulls),
                          ("insert ORM bulk, SQLAlchemy alone", orm_alone)):
            fresh()
            start = time.perf_counter()
            run()
            elapsed = time.perf_counter() - start
            rates.setdefault(name, []).append(n / elapsed)
            if run is orm_alone:
                continue
            with connect(host, port) as conn:
                cur = conn.cursor()
                cur.execute("SELECT count(*), sum(id) FROM sqla_bulk")
                if tuple(cur.fetchone()) != (n, n * (n - 1) // 2):
                    raise RuntimeError(f"{name} did not store the {n:,} rows")
    engine.dispose()
    return rates


@contextlib.contextmanager
def inserts_do_nothing():
    """The driver's execute/executemany of an INSERT return at once (rowcount
    set, nothing sent) while the block runs; other statements run."""
    from informix_stream import cursors
    execute, executemany = cursors.Cursor.execute, cursors.Cursor.executemany

    def fake_execute(self, operation, parameters=None, **kw):
        if not operation.lstrip().upper().startswith("INSERT"):
            return execute(self, operation, parameters, **kw)
        self.rowcount = 1
        return self

    def fake_executemany(self, operation, rows, **kw):
        self.rowcount = len(rows)
        return self

    cursors.Cursor.execute, cursors.Cursor.executemany = fake_execute, fake_executemany
    try:
        yield
    finally:
        cursors.Cursor.execute, cursors.Cursor.executemany = execute, executemany


def chunked_child(host: str, port: int, table: str, n: int, chunksize: int) -> None:
    """In a fresh interpreter: read_sql(chunksize) through the engine, RSS sampled."""
    import pandas as pd
    from harness import RssSampler
    from sqlalchemy import create_engine

    engine = create_engine(engine_url(host, port))
    sql = f"SELECT {', '.join(COLUMNS)} FROM {table}"
    seen, after_first = 0, 0
    start = time.perf_counter()
    with engine.connect() as conn, RssSampler() as sampler:
        for frame in pd.read_sql(sql, conn, chunksize=chunksize):
            seen += len(frame)
            sampler.rows = seen
            if not after_first:
                after_first = sampler.rss()
    elapsed = time.perf_counter() - start
    print(json.dumps({"rows": seen, "seconds": elapsed, "after_first": after_first,
                      "peak": sampler.peak}))


def chunked_rss(host: str, port: int, table: str, n: int, chunksize: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", host, str(port), table, str(n),
                          str(chunksize)], capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"chunked read of {n:,} rows failed:\n{out.stderr}")
    result = json.loads(out.stdout.splitlines()[-1])
    if result["rows"] != n:
        raise RuntimeError(f"chunked read saw {result['rows']:,} rows, not {n:,}")
    return result


def report(rates: dict, base: str, target: str, goal: str, n: int,
           ratio_of: dict | None = None) -> None:
    """Print each rate, then target's median over base's (from ``ratio_of`` if given)."""
    for name, values in rates.items():
        print(f"  {name:<36}{statistics.median(values):>12,.0f} rows/s")
    of = ratio_of or rates
    ratio = statistics.median(of[target]) / statistics.median(of[base])
    print(f"  ratio {target} / {base}: {ratio:.2f}x" + (f"  ({goal}; {n:,} rows)" if goal else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rss-sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    ap.add_argument("--chunksize", type=int, default=10_000)
    args = ap.parse_args()
    with emulator_process() as (host, port):
        load(host, port, "sqla_sales", args.rows)
        print("pandas read_sql, sales table (median of", args.repeat, "rounds)")
        report(read_sql_rates(host, port, "sqla_sales", args.rows, args.repeat),
               "read_sql informix-driver raw", "read_sql engine (ours)", "target >= 3x",
               args.rows)
        print("ORM bulk insert, sales rows (median of", args.repeat, "rounds)")
        rates = bulk_insert_rates(host, port, args.rows, args.repeat)
        report(rates, "insert driver executemany", "insert ORM bulk",
               "target: ORM time within 1.5x, i.e. ratio >= 0.67", args.rows)
        report({}, "insert driver executemany", "insert ORM bulk render_nulls", "", 0,
               rates)
        report({}, "insert driver executemany", "insert ORM bulk, SQLAlchemy alone",
               "no driver can do better under this batching", args.rows, rates)
        print(f"read_sql(chunksize={args.chunksize}) through the engine, fresh process each")
        for n in args.rss_sizes:
            table = f"sqla_sales_{n}"
            load(host, port, table, n)
            r = chunked_rss(host, port, table, n, args.chunksize)
            mb = 1 << 20
            print(f"  {n:>9,} rows: {n / r['seconds']:>9,.0f} rows/s, RSS after first chunk "
                  f"{r['after_first'] / mb:.1f} MB, peak {r['peak'] / mb:.1f} MB, growth "
                  f"{(r['peak'] - r['after_first']) / mb:+.1f} MB")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        h, p, t, count, size = sys.argv[2:7]
        chunked_child(h, int(p), t, int(count), int(size))
    else:
        main()
