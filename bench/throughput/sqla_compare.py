"""Issue 15's two targets: pandas and the ORM through the SQLAlchemy dialect.

    python bench/throughput/sqla_compare.py [--rows 100000] [--repeat 3]
                                            [--rss-sizes 100000 1000000] [--chunksize 10000]
                                            [--parts read insert]

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
   with ``render_nulls=True``, on the same rows without NULLs (against the
   driver on those rows), through SQLAlchemy Core, and each SQLAlchemy path
   once more with the driver's INSERT calls doing nothing: what SQLAlchemy
   alone costs, and the ceiling that puts on the ratio for any driver.

Prints rows/s (median of ``--repeat``), the ratios, the client's and the
emulator's CPU per row (the CPU columns hold still on a busy machine where
the wall-clock ratios do not), and the RSS figures.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
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
    costs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for name, run in (("read_sql informix-driver raw", theirs),
                          ("read_sql engine (ours)", ours),
                          ("read_sql raw DB-API (ours)", ours_raw),
                          ("read_sql engine (ours), GC off", ours_no_gc)):
            with Costs() as cost:
                got = run()
            if got != n:
                raise RuntimeError(f"{name} read {got:,} rows, not {n:,}")
            rates.setdefault(name, []).append(n / cost.wall)
            costs.setdefault(name, []).append((cost.client, cost.server))
    raw.close()
    engine.dispose()
    return {"rates": rates, "costs": costs}


def without_nulls(row: tuple) -> tuple:
    """The sales row with its NULL note filled: one key set for every ORM row."""
    return row if row[5] is not None else row[:5] + (f"none {row[0]}",)


def bulk_insert_rates(host: str, port: int, n: int, repeat: int) -> dict:
    """ORM ``session.execute(insert(Model), dicts)`` vs our executemany of tuples.

    Each entry: rows/s, the client's CPU seconds and the emulator's CPU
    seconds per round (``Costs``), so what SQLAlchemy, the driver and the
    server each take can be told apart.
    """
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
    full = [without_nulls(row) for row in data]
    dicts = [dict(zip(COLUMNS, row)) for row in data]
    full_dicts = [dict(zip(COLUMNS, row)) for row in full]
    engine = create_engine(engine_url(host, port))

    def fresh() -> None:
        # every timed call starts on a new connection (the driver's own does
        # too): a pooled one would keep an INSERT prepared on the dropped table
        engine.dispose()
        with connect(host, port, autocommit=True) as conn:
            cur = conn.cursor()
            try:
                cur.execute("DROP TABLE sqla_bulk")
            except Exception:  # noqa: BLE001 - not there on the first round
                pass
            cur.execute(f"CREATE TABLE sqla_bulk ({DDL})")

    def orm(rows: list, **options) -> None:
        stmt = insert(Sale).execution_options(**options) if options else insert(Sale)
        with Session(engine) as session:
            session.execute(stmt, rows)
            session.commit()

    def core(rows: list) -> None:
        # the same INSERT through SQLAlchemy Core (no ORM): one executemany
        with engine.begin() as conn:
            conn.execute(insert(Sale.__table__), rows)

    def driver(rows: list) -> None:
        with connect(host, port) as conn:
            conn.cursor().executemany(INSERT.format("sqla_bulk"), rows)
            conn.commit()

    def alone(run):
        # SQLAlchemy's own share: the same call with the driver's INSERT
        # execute/executemany doing nothing (no bytes sent): the floor any
        # driver under the same SQLAlchemy calls pays
        def floor() -> None:
            with inserts_do_nothing():
                run()
        return floor

    plain = lambda: orm(dicts)  # noqa: E731
    # SQLAlchemy leaves a None out of a bulk row's keys, and rows with other keys
    # start a new executemany batch: render_nulls keeps one batch (SQLAlchemy docs,
    # "ORM Bulk INSERT Statements", render_nulls).
    render_nulls = lambda: orm(dicts, render_nulls=True)  # noqa: E731
    runs = (("insert driver executemany", lambda: driver(data), True),
            ("insert ORM bulk", plain, True),
            ("insert ORM bulk render_nulls", render_nulls, True),
            ("insert driver executemany, no NULLs", lambda: driver(full), True),
            ("insert ORM bulk, no NULLs", lambda: orm(full_dicts), True),
            ("insert Core executemany", lambda: core(dicts), True),
            ("insert ORM bulk, SQLAlchemy alone", alone(plain), False),
            ("insert ORM render_nulls, SQLAlchemy alone", alone(render_nulls), False),
            ("insert Core, SQLAlchemy alone", alone(lambda: core(dicts)), False))
    rates: dict[str, list[float]] = {}
    costs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for name, run, stores in runs:
            fresh()
            with Costs() as cost:
                run()
            rates.setdefault(name, []).append(n / cost.wall)
            costs.setdefault(name, []).append((cost.client, cost.server))
            if stores:
                check_stored(host, port, n, name)
    engine.dispose()
    return {"rates": rates, "costs": costs}


def check_stored(host: str, port: int, n: int, name: str) -> None:
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute("SELECT count(*), sum(id), count(note) FROM sqla_bulk")
        got = tuple(cur.fetchone())
    nulls = "no NULLs" not in name
    want = (n, n * (n - 1) // 2, n - (n + 9) // 10 if nulls else n)
    if got != want:
        raise RuntimeError(f"{name} stored (rows, sum(id), notes) {got}, not {want}")


class Costs:
    """Wall time, this process's CPU time and the emulator's CPU time of a block."""

    def __enter__(self) -> Costs:
        self._server = emulator_cpu()
        self._client = time.process_time()
        self._wall = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._wall
        self.client = time.process_time() - self._client
        after = emulator_cpu()
        self.server = after - self._server if after is not None else float("nan")


def emulator_cpu() -> float | None:
    """CPU seconds (user + system, all threads) of the emulator child process,
    from /proc (Linux); None where that cannot be read."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) != os.getpid():
                    continue
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                if b"informix_stream.emulator" in cmd:
                    return (int(fields[11]) + int(fields[12])) / tick
    except OSError:
        pass
    return None


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


def report_reads(result: dict, n: int) -> None:
    """Rows/s, the ratio to informix-driver, client and emulator CPU per row."""
    rates, costs = result["rates"], result["costs"]
    med = {name: statistics.median(values) for name, values in rates.items()}
    base = med["read_sql informix-driver raw"]
    print(f"  {'':<36}{'rows/s':>9}{'ratio':>8}{'client us/row':>15}{'server us/row':>15}")
    for name, rate in med.items():
        client = statistics.median(c for c, _ in costs[name]) * 1e6 / n
        server = statistics.median(s for _, s in costs[name]) * 1e6 / n
        print(f"  {name:<36}{rate:>9,.0f}{rate / base:>7.2f}x{client:>15.1f}{server:>15.1f}")
    print(f"  target: read_sql engine (ours) >= 3x informix-driver raw ({n:,} rows)")


def report_inserts(result: dict, n: int) -> None:
    """Rows/s, the ratio to the driver's executemany of the same rows, and
    the client's and the emulator's CPU per row; then the ceiling SQLAlchemy's
    own cost sets on each ORM ratio (the driver's time plus SQLAlchemy's
    alone, if the driver part cost nothing extra under SQLAlchemy)."""
    rates, costs = result["rates"], result["costs"]
    med = {name: statistics.median(values) for name, values in rates.items()}
    print(f"  {'':<42}{'rows/s':>9}{'ratio':>8}{'client us/row':>15}{'server us/row':>15}")
    for name, rate in med.items():
        base = "insert driver executemany" + (", no NULLs" if "no NULLs" in name else "")
        client = statistics.median(c for c, _ in costs[name]) * 1e6 / n
        server = statistics.median(s for _, s in costs[name]) * 1e6 / n
        print(f"  {name:<42}{rate:>9,.0f}{rate / med[base]:>7.2f}x{client:>15.1f}"
              f"{server:>15.1f}")
    print("  target: ORM time within 1.5x of the driver's executemany, i.e. ratio >= 0.67")
    d = med["insert driver executemany"]
    for path, floor in (("ORM bulk", "insert ORM bulk, SQLAlchemy alone"),
                        ("ORM render_nulls", "insert ORM render_nulls, SQLAlchemy alone"),
                        ("Core executemany", "insert Core, SQLAlchemy alone")):
        print(f"  ceiling for {path}: 1 / (1 + driver/alone) = {1 / (1 + d / med[floor]):.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rss-sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    ap.add_argument("--chunksize", type=int, default=10_000)
    ap.add_argument("--parts", nargs="*", choices=("read", "insert"), default=["read", "insert"],
                    help="which of the timed comparisons to run (the RSS part follows "
                    "--rss-sizes)")
    args = ap.parse_args()
    with emulator_process() as (host, port):
        if "read" in args.parts:
            load(host, port, "sqla_sales", args.rows)
            print("pandas read_sql, sales table (median of", args.repeat, "rounds)")
            report_reads(read_sql_rates(host, port, "sqla_sales", args.rows, args.repeat),
                         args.rows)
        if "insert" in args.parts:
            print("ORM bulk insert, sales rows (median of", args.repeat, "rounds)")
            report_inserts(bulk_insert_rates(host, port, args.rows, args.repeat), args.rows)
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
